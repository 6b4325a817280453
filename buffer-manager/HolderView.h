// What a planner may see of a buffer's directory: which holders hold a valid copy of each byte,
// without the tokens the runtime keeps with them. Pure: planners and their tests use it with
// any directory, or with hand-written layouts.
#pragma once

#include "buffer-manager/Directory.h"
#include "support/FunctionRef.h"

namespace clsplit::buffer {

class HolderView {
public:
  virtual ~HolderView() = default;
  virtual uint64_t size() const = 0;
  // f(piece, holders) for each maximal run of equal holders overlapping `ranges`, clipped to
  // them and to the buffer, in address order.
  virtual void visit(const RangeSet& ranges, FunctionRef<void(ByteRange, HolderMask)> f) const = 0;

  // The bytes of `need` that `h` does not hold.
  RangeSet missing(const RangeSet& need, Holder h) const;
  // Holders valid on every byte of `ranges` (all holders when `ranges` is empty).
  HolderMask holdersOfAll(const RangeSet& ranges) const;
};

// A Directory seen as a HolderView (it must outlive the view).
template <class Token>
class DirectoryHolders final : public HolderView {
public:
  explicit DirectoryHolders(const Directory<Token>& directory) : directory_(directory) {}
  uint64_t size() const override { return directory_.size(); }
  void visit(const RangeSet& ranges, FunctionRef<void(ByteRange, HolderMask)> f) const override {
    directory_.visit(ranges, [&](ByteRange piece, const Cell<Token>& cell) { f(piece, cell.mask()); });
  }

private:
  const Directory<Token>& directory_;
};

inline RangeSet HolderView::missing(const RangeSet& need, Holder h) const {
  detail::checkHolder(h);
  std::vector<ByteRange> out;
  visit(need, [&](ByteRange piece, HolderMask holders) {
    if (!(holders & bit(h))) {
      if (!out.empty() && out.back().hi == piece.lo)
        out.back().hi = piece.hi;
      else
        out.push_back(piece);
    }
  });
  return RangeSet::fromRanges(std::move(out));
}

inline HolderMask HolderView::holdersOfAll(const RangeSet& ranges) const {
  HolderMask all = ~HolderMask{0};
  visit(ranges, [&](ByteRange, HolderMask holders) { all &= holders; });
  return all;
}

} // namespace clsplit::buffer
