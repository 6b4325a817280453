// Computation replication (thesis §3.1.3), as pure logic: how far to widen neighbouring slices
// so that every byte they may write is owned by one of them, given a function that instantiates
// the write regions of any range of work-groups.
#pragma once

#include "analysis/region/RangeSet.h"

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace clsplit::analysis {

// Write regions per buffer; the key identifies a buffer (any pointer the caller chooses).
using WriteRegions = std::vector<std::pair<const void*, RangeSet>>;

struct ReplicatedSlice {
  uint64_t begin = 0, end = 0; // work-groups of the split dimension, widened
  WriteRegions owned;          // bytes only this slice's work-items may write
};

// `slices`: the split as [begin, end) work-group ranges, in order, covering [0, total).
// `writesOf(begin, end)`: the (over-approximated) write regions of those work-groups.
// Each slice is widened by h groups on the sides it shares with a neighbour, h = 1, 2, 4, ...
// while h is below the smallest slice's size (no slice swallows a neighbour), until every byte a widened slice may
// write is owned by some slice: one whose widened range holds every work-item that may write it (the bytes it may write
// minus those the work-groups outside it may write). A byte two slices could own goes to the first. Returns the widened
// slices, or nothing when no width up to the bound works (e.g. when all work-items may write the same bytes).
std::vector<ReplicatedSlice> replicateSlices(const std::vector<std::pair<uint64_t, uint64_t>>& slices, uint64_t total,
                                             const std::function<WriteRegions(uint64_t begin, uint64_t end)>& writesOf);

} // namespace clsplit::analysis
