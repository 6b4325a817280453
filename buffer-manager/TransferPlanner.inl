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
                                                  const CostFunction& cost,
                                                  uint64_t bridgeBytes) {
  detail::checkHolder(to);
  auto addToken = [](PlannedTransfer<Token>& t, const Token& token) {
    // Keep tokens distinct: the runtime waits on each of them once.
    if (std::find(t.tokens.begin(), t.tokens.end(), token) == t.tokens.end()) t.tokens.push_back(token);
  };
  // Extends `t` over [t.range.hi, upTo) if its source holds all of it.
  auto bridge = [&](PlannedTransfer<Token>& t, uint64_t upTo) {
    bool held = true;
    std::vector<Token> tokens;
    directory.visit(ByteRange{t.range.hi, upTo}, [&](ByteRange, const Cell<Token>& cell) {
      const Token* token = cell.tokenOf(t.from);
      if (!token) held = false;
      else if (held) tokens.push_back(*token);
    });
    if (!held) return false;
    for (const auto& token : tokens) addToken(t, token);
    t.range.hi = upTo;
    return true;
  };
  std::vector<PlannedTransfer<Token>> plan;
  {
    directory.visit(need, [&](ByteRange piece, const Cell<Token>& cell) {
      if (cell.mask() & bit(to)) return; // already valid on `to`
      PlannedTransfer<Token>* previous = nullptr;
      if (!plan.empty() && plan.back().range.hi == piece.lo) previous = &plan.back();
      PlannedTransfer<Token>* gapBefore = nullptr;
      if (!previous && !plan.empty() && piece.lo - plan.back().range.hi <= bridgeBytes)
        gapBefore = &plan.back();

      // Cheapest source; on a tie keep the previous piece's source so the transfers coalesce,
      // otherwise the lowest holder (deterministic). A NaN cost never wins.
      const Copy<Token>* best = nullptr;
      double bestCost = 0;
      for (const auto& c : cell.copies) {
        double k = cost ? cost(c.holder, to, piece.size()) : 0.0;
        if (std::isnan(k)) k = std::numeric_limits<double>::infinity();
        const auto* next = previous ? previous : gapBefore;
        bool better = !best || k < bestCost ||
                      (k == bestCost && next && c.holder == next->from && best->holder != next->from);
        if (better) {
          best = &c;
          bestCost = k;
        }
      }

      if (!previous && gapBefore && gapBefore->from == best->holder && bridge(*gapBefore, piece.lo))
        previous = gapBefore;
      if (previous && previous->from == best->holder) {
        previous->range.hi = piece.hi;
        addToken(*previous, best->token);
      } else {
        plan.push_back(PlannedTransfer<Token>{piece, best->holder, {best->token}});
      }
    });
  }
  return plan;
}

} // namespace clsplit::buffer
