// Moves: per sub-kernel and buffer, the transfer planner over the directory, with the bytes
// staged earlier in the same plan counted as host copies.
#include "planner/Moves.h"

#include "buffer-manager/TransferPlanner.h"

#include <algorithm>

namespace clsplit::planner {

using buffer::bit;
using buffer::deviceHolder;
using buffer::deviceOf;
using buffer::kHost;

namespace {

// Gaps a move may bridge (planMoves): at ~10 GB/s, 64 KiB cost about what one more transfer's
// fixed latency does on a GPU (~5-10 us).
constexpr uint64_t kBridgeBytes = 64 * 1024;

// A buffer's holders with the bytes staged earlier in this plan also held by the host.
class StagedHolders final : public buffer::HolderView {
public:
  StagedHolders(const buffer::HolderView& base, const RangeSet& staged) : base_(base), staged_(staged) {}
  uint64_t size() const override { return base_.size(); }
  void visit(const RangeSet& ranges, FunctionRef<void(ByteRange, HolderMask)> f) const override {
    if (staged_.empty()) return base_.visit(ranges, f);
    base_.visit(ranges, [&](ByteRange piece, HolderMask holders) {
      uint64_t at = piece.lo;
      auto it = std::upper_bound(staged_.begin(), staged_.end(), piece.lo,
                                 [](uint64_t x, const ByteRange& r) { return x < r.hi; });
      for (; it != staged_.end() && it->lo < piece.hi; ++it) {
        const uint64_t lo = std::max(it->lo, piece.lo), hi = std::min(it->hi, piece.hi);
        if (at < lo) f(ByteRange{at, lo}, holders);
        f(ByteRange{lo, hi}, holders | bit(kHost));
        at = hi;
      }
      if (at < piece.hi) f(ByteRange{at, piece.hi}, holders);
    });
  }

private:
  const buffer::HolderView& base_;
  const RangeSet& staged_;
};

} // namespace

void planAcquire(const std::vector<DeviceTraits>& devices, const buffer::HolderView& holders, unsigned buffer,
                 const RangeSet& need, unsigned device, std::vector<Staging>& staging, std::vector<Move>& moves,
                 RangeSet& staged) {
  const buffer::Holder me = deviceHolder(device);
  StagedHolders view(holders, staged);
  // The steady state of an iterated kernel: the device already holds all it needs. With many
  // ranges (strided regions), looking at their hull is far cheaper than at each range.
  if (need.count() > 8 && view.missing(RangeSet{need.hull()}, me).empty()) return;
  RangeSet missing = view.missing(need, me);
  if (missing.empty()) return;
  auto cost = [&devices](buffer::Holder f, buffer::Holder t, uint64_t b) { return moveCost(devices, f, t, b); };
  std::vector<ByteRange> newlyStaged;
  for (const auto& m : buffer::planMoves(view, missing, me, cost, kBridgeBytes)) {
    const Route route = routeBetween(devices, m.from, device);
    if (route == Route::ThroughHost) {
      staging.push_back({buffer, m.range, deviceOf(m.from)});
      newlyStaged.push_back(m.range);
    }
    moves.push_back({buffer, m.range, m.from, device, route});
  }
  if (!newlyStaged.empty()) staged.add(RangeSet::fromRanges(std::move(newlyStaged)));
}

void planMoves(const LaunchInput& input, LaunchPlan& plan) {
  plan.staging.clear();
  plan.moves.clear();
  std::vector<RangeSet> staged(input.buffers.size());
  for (const auto& sk : plan.subKernels())
    for (const auto& use : sk.uses)
      planAcquire(input.devices, *input.buffers[use.buffer].holders, use.buffer, use.need, sk.device, plan.staging,
                  plan.moves, staged[use.buffer]);
}

} // namespace clsplit::planner
