// planMoves(): one pass over the runs that overlap `need`, choosing a source per missing run and
// extending the previous move when the run continues it from the same source.
#include "buffer-manager/TransferPlanner.h"

#include <bit>
#include <cmath>
#include <limits>

namespace clsplit::buffer {

std::vector<PlannedMove> planMoves(const HolderView& holders, const RangeSet& need, Holder to, const CostFunction& cost,
                                   uint64_t bridgeBytes) {
  detail::checkHolder(to);
  // Extends `m` over [m.range.hi, upTo) if its source holds all of it.
  auto bridge = [&](PlannedMove& m, uint64_t upTo) {
    bool held = true;
    holders.visit(RangeSet{ByteRange{m.range.hi, upTo}},
                  [&](ByteRange, HolderMask h) { held = held && (h & bit(m.from)); });
    if (!held) return false;
    m.range.hi = upTo;
    return true;
  };
  std::vector<PlannedMove> plan;
  holders.visit(need, [&](ByteRange piece, HolderMask valid) {
    if (valid & bit(to)) return; // already valid on `to`
    PlannedMove* previous = nullptr;
    if (!plan.empty() && plan.back().range.hi == piece.lo) previous = &plan.back();
    PlannedMove* gapBefore = nullptr;
    if (!previous && !plan.empty() && piece.lo - plan.back().range.hi <= bridgeBytes) gapBefore = &plan.back();

    // Cheapest source; on a tie keep the previous piece's source so the moves coalesce,
    // otherwise the lowest holder (deterministic). A NaN cost never wins.
    const PlannedMove* next = previous ? previous : gapBefore;
    bool found = false;
    Holder best = 0;
    double bestCost = 0;
    for (HolderMask left = valid; left; left &= left - 1) { // holders in increasing order
      const Holder h = static_cast<Holder>(std::countr_zero(left));
      double k = cost ? cost(h, to, piece.size()) : 0.0;
      if (std::isnan(k)) k = std::numeric_limits<double>::infinity();
      bool better = !found || k < bestCost || (k == bestCost && next && h == next->from && best != next->from);
      if (better) {
        best = h;
        bestCost = k;
        found = true;
      }
    }
    if (!found) return; // no holder at all: nothing can be moved (the directory forbids it)

    if (!previous && gapBefore && gapBefore->from == best && bridge(*gapBefore, piece.lo)) previous = gapBefore;
    if (previous && previous->from == best)
      previous->range.hi = piece.hi;
    else
      plan.push_back(PlannedMove{piece, best});
  });
  return plan;
}

} // namespace clsplit::buffer
