// The per-buffer directory: for every byte of a virtual buffer, which holders (host shadow,
// device 0..n-1) have a valid copy, and for each such copy an opaque token the runtime uses to
// order work after it (e.g. the real event that produced it). Invariant: every byte always has
// at least one valid holder.
#pragma once

#include "analysis/region/RangeSet.h"

#include <cstdint>
#include <map>
#include <vector>

namespace clsplit::buffer {

using Holder = uint8_t; // kHost or a device index + 1
inline constexpr Holder kHost = 0;
inline constexpr Holder kMaxHolders = 64;
inline constexpr Holder deviceHolder(unsigned device) { return static_cast<Holder>(device + 1); }
inline constexpr bool isDevice(Holder h) { return h != kHost; }
inline constexpr unsigned deviceOf(Holder h) { return h - 1u; }

using HolderMask = uint64_t;
inline constexpr HolderMask bit(Holder h) { return HolderMask{1} << h; }

// A valid copy of some bytes: who holds it and the token that came with it.
template <class Token>
struct Copy {
  Holder holder;
  Token token;
  bool operator==(const Copy&) const = default;
};

// The holders of one maximal run of bytes with identical state.
template <class Token>
struct Cell {
  std::vector<Copy<Token>> copies; // sorted by holder, never empty
  HolderMask mask() const;
  const Token* tokenOf(Holder h) const;
  bool operator==(const Cell&) const = default;
};

// An interval map [0, size) -> Cell, with neighbouring runs of equal cells merged.
// Token must be copyable and equality-comparable. Ranges reaching past size() are clipped to it
// (those bytes exist on no holder); a holder >= kMaxHolders throws std::invalid_argument.
template <class Token>
class Directory {
public:
  Directory(uint64_t size, Holder initial, Token token);

  uint64_t size() const { return size_; }

  // Calls f(ByteRange, const Cell<Token>&) for each run overlapping `r`, clipped to `r`.
  template <class F>
  void visit(ByteRange r, F&& f) const;
  // The same for every range of `rs`, in one forward walk over the runs (O(ranges + runs), not
  // a lookup per range: regions of strided accesses have thousands of ranges).
  template <class F>
  void visit(const RangeSet& rs, F&& f) const;

  // The bytes of `need` for which `h` holds no valid copy.
  RangeSet missing(const RangeSet& need, Holder h) const;
  // The bytes of [0,size) valid on `h`.
  RangeSet validOn(Holder h) const;

  // `h` now also holds a valid copy of `r` (after a transfer), with `token`.
  void addCopy(const RangeSet& r, Holder h, const Token& token);
  // `h` is now the only valid holder of `r` (after a write), with `token`.
  void setOnly(const RangeSet& r, Holder h, const Token& token);
  // `h` no longer holds any byte of `r` (its memory for them is released). Every byte of `r`
  // must keep another holder: the caller moves what `h` alone holds first.
  void drop(const RangeSet& r, Holder h);
  // Replace the token of h's copies within `r` (only where h is valid).
  void retoken(const RangeSet& r, Holder h, const Token& token);

  size_t runCount() const { return runs_.size(); }
  // Changes whenever a mutation is applied (callers cache what they derive from the runs).
  uint64_t generation() const { return generation_; }
  // Checks the representation invariants (coverage, non-empty cells, merged runs).
  bool invariantHolds() const;

private:
  using RunIterator = typename std::map<uint64_t, Cell<Token>>::iterator;
  // Makes a run start exactly at `pos` (splitting the run containing it); end() at size_.
  RunIterator splitAt(uint64_t pos);
  // Merges every run starting in [lo, hi] into its predecessor when their cells are equal.
  void mergeAround(uint64_t lo, uint64_t hi);
  // Applies mutate(Cell&) to every run within `r`, then restores the merged-runs invariant.
  template <class Mutate>
  void update(const RangeSet& r, Mutate&& mutate);

  // runs_[start] = cell covering [start, next start) (last one up to size_).
  std::map<uint64_t, Cell<Token>> runs_;
  uint64_t size_;
  uint64_t generation_ = 0;
};

} // namespace clsplit::buffer

#include "buffer-manager/Directory.inl"
