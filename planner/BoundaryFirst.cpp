// Boundary-first cuts: the smallest edge pieces (1, 2, 4, ... groups) whose writes cover the halo.
#include "planner/BoundaryFirst.h"

#include "planner/SliceRegions.h"

#include <algorithm>

namespace clsplit::planner {

using analysis::Slice;

namespace {

// What `slice` may write, per buffer use of the sub-kernel (indexed like its uses).
std::vector<RangeSet> writesOf(const LaunchInput& input, const analysis::LaunchValues& values, const Slice& slice,
                               const std::vector<BufferUse>& like) {
  std::vector<RangeSet> out(like.size());
  for (const auto& use : regionsOf(input, values, slice))
    for (size_t u = 0; u < like.size(); ++u)
      if (like[u].buffer == use.buffer) out[u] = use.write.united(use.atomic);
  return out;
}

bool covers(const std::vector<RangeSet>& writes, const std::vector<RangeSet>& wanted) {
  for (size_t u = 0; u < wanted.size(); ++u)
    if (!writes[u].contains(wanted[u])) return false;
  return true;
}

bool anyBytes(const std::vector<RangeSet>& sets) {
  return std::any_of(sets.begin(), sets.end(), [](const RangeSet& s) { return !s.empty(); });
}

// The fewest groups (doubling up to `max`) from one edge of `sk` whose writes cover `wanted`;
// 0 if none does.
uint64_t edgeGroups(const LaunchInput& input, const analysis::LaunchValues& values, const SubKernel& sk,
                    const std::vector<RangeSet>& wanted, uint64_t max, bool low) {
  for (uint64_t g = 1;; g = std::min(max, 2 * g)) {
    const Slice edge = low ? Slice{sk.slice.dim, sk.slice.groupBegin, sk.slice.groupBegin + g}
                           : Slice{sk.slice.dim, sk.slice.groupEnd - g, sk.slice.groupEnd};
    if (covers(writesOf(input, values, edge, sk.uses), wanted)) return g;
    if (g == max) return 0;
  }
}

Piece pieceOf(const LaunchInput& input, const analysis::LaunchValues& values, const Slice& slice, bool boundary) {
  Piece p;
  p.slice = slice;
  p.boundary = boundary;
  sliceRange(input.range, slice, p.offset, p.global);
  for (auto& use : regionsOf(input, values, slice)) {
    Piece::Use u;
    u.buffer = use.buffer;
    u.write = use.write.united(use.atomic);
    u.read = use.read.united(use.atomic);
    if (!use.writeExact) u.read.add(use.write); // bytes it may leave unwritten must be valid
    p.uses.push_back(std::move(u));
  }
  return p;
}

} // namespace

std::vector<std::vector<RangeSet>> haloOf(const LaunchInput& input, const Slicing& slicing) {
  std::vector<std::vector<RangeSet>> halo;
  bool any = false;
  for (const auto& sk : slicing.subKernels) {
    std::vector<RangeSet> mine(sk.uses.size());
    for (size_t u = 0; u < sk.uses.size(); ++u) {
      const auto& use = sk.uses[u];
      const auto& pulled = input.buffers[use.buffer].pulled;
      if (sk.device >= pulled.size() || pulled[sk.device].empty() || !use.writes()) continue;
      mine[u] = pulled[sk.device].intersected(use.write.united(use.atomic));
      any |= !mine[u].empty();
    }
    halo.push_back(std::move(mine));
  }
  if (!any) halo.clear();
  return halo;
}

std::shared_ptr<const Slicing> cutBoundaries(const LaunchInput& input, const analysis::LaunchValues& values,
                                             const Slicing& slicing, const std::vector<std::vector<RangeSet>>& halo,
                                             BoundaryRules rules) {
  if (halo.size() != slicing.subKernels.size() || slicing.replicated || !slicing.merges.empty() ||
      slicing.subKernels.size() < 2)
    return nullptr;
  auto cut = std::make_shared<Slicing>(slicing);
  bool any = false;
  for (size_t i = 0; i < cut->subKernels.size(); ++i) {
    SubKernel& sk = cut->subKernels[i];
    const auto& wanted = halo[i];
    const uint64_t n = sk.groups();
    if (!anyBytes(wanted) || n < rules.minGroups) continue;
    const uint64_t max = std::max<uint64_t>(1, n / rules.maxEdgeDivisor);
    const Slice lowEdge{sk.slice.dim, sk.slice.groupBegin, sk.slice.groupBegin + max};
    const Slice highEdge{sk.slice.dim, sk.slice.groupEnd - max, sk.slice.groupEnd};
    const auto lowWrites = writesOf(input, values, lowEdge, sk.uses);
    const auto highWrites = writesOf(input, values, highEdge, sk.uses);
    std::vector<RangeSet> low(wanted.size()), high(wanted.size());
    bool atEdges = true;
    for (size_t u = 0; u < wanted.size(); ++u) {
      low[u] = wanted[u].intersected(lowWrites[u]);
      high[u] = wanted[u].intersected(highWrites[u]);
      // A halo byte that only interior groups write cannot move before the interior has run.
      atEdges &= wanted[u].minus(low[u]).minus(high[u]).empty();
    }
    if (!atEdges) continue;
    const uint64_t lowGroups = anyBytes(low) ? edgeGroups(input, values, sk, low, max, true) : 0;
    const uint64_t highGroups = anyBytes(high) ? edgeGroups(input, values, sk, high, max, false) : 0;
    if ((anyBytes(low) && !lowGroups) || (anyBytes(high) && !highGroups) || lowGroups + highGroups >= n) continue;
    const uint64_t begin = sk.slice.groupBegin, end = sk.slice.groupEnd;
    if (lowGroups) sk.pieces.push_back(pieceOf(input, values, Slice{sk.slice.dim, begin, begin + lowGroups}, true));
    if (highGroups) sk.pieces.push_back(pieceOf(input, values, Slice{sk.slice.dim, end - highGroups, end}, true));
    sk.pieces.push_back(pieceOf(input, values, Slice{sk.slice.dim, begin + lowGroups, end - highGroups}, false));
    any = true;
  }
  if (!any) return nullptr;
  return cut;
}

} // namespace clsplit::planner
