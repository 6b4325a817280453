// planTransfers(): one pass over the directory runs that overlap `need`, choosing a source per
// missing run and extending the previous transfer when the run continues it from the same source.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace clsplit::buffer {

template <class Token>
std::vector<PlannedTransfer<Token>> planTransfers(const Directory<Token>& directory,
                                                  const RangeSet& need, Holder to,
                                                  const CostFunction& cost) {
  detail::checkHolder(to);
  std::vector<PlannedTransfer<Token>> plan;
  for (const auto& range : need) {
    directory.visit(range, [&](ByteRange piece, const Cell<Token>& cell) {
      if (cell.mask() & bit(to)) return; // already valid on `to`
      PlannedTransfer<Token>* previous = nullptr;
      if (!plan.empty() && plan.back().range.hi == piece.lo) previous = &plan.back();

      // Cheapest source; on a tie keep the previous piece's source so the transfers coalesce,
      // otherwise the lowest holder (deterministic). A NaN cost never wins.
      const Copy<Token>* best = nullptr;
      double bestCost = 0;
      for (const auto& c : cell.copies) {
        double k = cost ? cost(c.holder, to, piece.size()) : 0.0;
        if (std::isnan(k)) k = std::numeric_limits<double>::infinity();
        bool better = !best || k < bestCost ||
                      (k == bestCost && previous && c.holder == previous->from &&
                       best->holder != previous->from);
        if (better) {
          best = &c;
          bestCost = k;
        }
      }

      if (previous && previous->from == best->holder) {
        previous->range.hi = piece.hi;
        // Keep tokens distinct: the runtime waits on each of them once.
        if (std::find(previous->tokens.begin(), previous->tokens.end(), best->token) ==
            previous->tokens.end())
          previous->tokens.push_back(best->token);
      } else {
        plan.push_back(PlannedTransfer<Token>{piece, best->holder, {best->token}});
      }
    });
  }
  return plan;
}

} // namespace clsplit::buffer
