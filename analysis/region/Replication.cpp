// replicateSlices(): widen, compute must-write regions, check that they cover every may-write.
#include "analysis/region/Replication.h"

#include <algorithm>

namespace clsplit::analysis {

namespace {

RangeSet regionOf(const WriteRegions& regions, const void* buffer) {
  for (const auto& [key, set] : regions)
    if (key == buffer) return set;
  return {};
}

RangeSet& slot(WriteRegions& regions, const void* buffer) {
  for (auto& [key, set] : regions)
    if (key == buffer) return set;
  regions.emplace_back(buffer, RangeSet{});
  return regions.back().second;
}

} // namespace

std::vector<ReplicatedSlice> replicateSlices(const std::vector<std::pair<uint64_t, uint64_t>>& slices, uint64_t total,
                                             const std::function<WriteRegions(uint64_t, uint64_t)>& writesOf) {
  if (slices.size() < 2) return {};
  uint64_t smallest = total;
  for (const auto& [b, e] : slices) smallest = std::min(smallest, e - b);
  auto writes = [&](uint64_t begin, uint64_t end) { return begin < end ? writesOf(begin, end) : WriteRegions{}; };

  for (uint64_t h = 1; h < smallest; h *= 2) { // never as wide as a whole neighbour
    std::vector<ReplicatedSlice> wide;
    std::vector<WriteRegions> mayWrite;
    for (size_t i = 0; i < slices.size(); ++i) {
      uint64_t begin = slices[i].first, end = slices[i].second;
      if (i > 0) begin = begin > h ? begin - h : 0;
      if (i + 1 < slices.size()) end = std::min(total, end + h);
      wide.push_back({begin, end, {}});
      mayWrite.push_back(writes(begin, end));
    }
    WriteRegions ownedSoFar;
    for (size_t i = 0; i < wide.size(); ++i) {
      WriteRegions before = writes(0, wide[i].begin), after = writes(wide[i].end, total);
      for (const auto& [buffer, may] : mayWrite[i]) {
        RangeSet mine = may.minus(regionOf(before, buffer)).minus(regionOf(after, buffer));
        RangeSet& taken = slot(ownedSoFar, buffer);
        mine.subtract(taken);
        taken.add(mine);
        wide[i].owned.emplace_back(buffer, std::move(mine));
      }
    }
    bool covered = true;
    for (const auto& regions : mayWrite)
      for (const auto& [buffer, may] : regions) covered = covered && regionOf(ownedSoFar, buffer).contains(may);
    if (covered) return wide;
  }
  return {};
}

} // namespace clsplit::analysis
