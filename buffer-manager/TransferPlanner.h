// Transfer planning: which missing bytes a holder needs, and from which valid copy to take each,
// cheapest source first, adjacent pieces from the same source coalesced.
#pragma once

#include "buffer-manager/Directory.h"

#include <functional>
#include <vector>

namespace clsplit::buffer {

template <class Token>
struct PlannedTransfer {
  ByteRange range;
  Holder from;
  std::vector<Token> tokens; // distinct tokens of the source pieces coalesced into this transfer,
                             // in address order of first appearance
};

// cost(from, to, bytes): relative cost of moving `bytes` from `from` to `to` (lower is better;
// NaN counts as infinite). Ties go to the source of the adjacent previous piece, else the lowest
// holder. An empty function makes every source equally cheap.
using CostFunction = std::function<double(Holder from, Holder to, uint64_t bytes)>;

// `bridgeBytes`: a transfer also takes along a gap of at most this many bytes up to the next
// piece it would start from the same source, when the source holds the whole gap: the gap's
// bytes are valid values, so the destination may hold them too, and one larger transfer beats
// several small ones (each costs a fixed latency). The gap then belongs to the transfer's range.
template <class Token>
std::vector<PlannedTransfer<Token>> planTransfers(const Directory<Token>& directory,
                                                  const RangeSet& need, Holder to,
                                                  const CostFunction& cost,
                                                  uint64_t bridgeBytes = 0);

} // namespace clsplit::buffer

#include "buffer-manager/TransferPlanner.inl"
