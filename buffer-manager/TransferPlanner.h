// Transfer planning: which missing bytes a holder needs, and from which valid copy to take each,
// cheapest source first, adjacent pieces from the same source coalesced.
#pragma once

#include "buffer-manager/Directory.h"
#include "buffer-manager/HolderView.h"

#include <functional>
#include <vector>

namespace clsplit::buffer {

// One move of bytes: `range` from the valid copy of `from`.
struct PlannedMove {
  ByteRange range;
  Holder from;
  bool operator==(const PlannedMove&) const = default;
};

// cost(from, to, bytes): relative cost of moving `bytes` from `from` to `to` (lower is better;
// NaN counts as infinite). Ties go to the source of the adjacent previous piece, else the lowest
// holder. An empty function makes every source equally cheap.
using CostFunction = std::function<double(Holder from, Holder to, uint64_t bytes)>;

// The moves that make `need` valid on `to`, in address order.
// `bridgeBytes`: a move also takes along a gap of at most this many bytes up to the next piece
// it would start from the same source, when the source holds the whole gap: the gap's bytes are
// valid values, so the destination may hold them too, and one larger transfer beats several
// small ones (each costs a fixed latency). The gap then belongs to the move's range.
std::vector<PlannedMove> planMoves(const HolderView& holders, const RangeSet& need, Holder to, const CostFunction& cost,
                                   uint64_t bridgeBytes = 0);

// The same moves with the tokens of their sources (for callers that order work on them).
template <class Token>
struct PlannedTransfer {
  ByteRange range;
  Holder from;
  std::vector<Token> tokens; // distinct tokens of the source copy over `range`, in address order
};

template <class Token>
std::vector<PlannedTransfer<Token>> planTransfers(const Directory<Token>& directory, const RangeSet& need, Holder to,
                                                  const CostFunction& cost, uint64_t bridgeBytes = 0) {
  std::vector<PlannedTransfer<Token>> plan;
  for (const auto& move : planMoves(DirectoryHolders<Token>(directory), need, to, cost, bridgeBytes)) {
    PlannedTransfer<Token> t{move.range, move.from, {}};
    directory.visit(move.range, [&](ByteRange, const Cell<Token>& cell) {
      const Token* token = cell.tokenOf(move.from);
      if (token && std::find(t.tokens.begin(), t.tokens.end(), *token) == t.tokens.end()) t.tokens.push_back(*token);
    });
    plan.push_back(std::move(t));
  }
  return plan;
}

} // namespace clsplit::buffer
