// Slice regions: instantiated regions per slice and buffer, overlap checks, atomic merges,
// computation replication and write-gap fills.
#include "planner/SliceRegions.h"

#include "analysis/Analysis.h"
#include "analysis/region/Replication.h"
#include "buffer-manager/AtomicMerge.h"

#include <algorithm>

namespace clsplit::planner {

using analysis::NDRange;
using analysis::Slice;

std::span<const std::byte> InputValues::scalarBytes(unsigned arg) const {
  if (arg >= input_.args.size()) return {};
  const ArgInput& a = input_.args[arg];
  return a.kind == ArgInput::Kind::Scalar || a.kind == ArgInput::Kind::Buffer ? a.scalar : std::span<const std::byte>{};
}

uint64_t InputValues::bufferSize(unsigned arg) const {
  return arg < input_.args.size() && input_.args[arg].kind == ArgInput::Kind::Buffer ? input_.args[arg].size : 0;
}

std::optional<analysis::ScalarValue> InputValues::readElement(unsigned arg, uint64_t offset,
                                                              analysis::ScalarType type) const {
  if (!readContents_ || !input_.readElement) return std::nullopt;
  readBuffers_ = true;
  return input_.readElement(arg, offset, type);
}

void sliceRange(const NDRange& range, const Slice& slice, std::array<uint64_t, 3>& offset,
                std::array<uint64_t, 3>& global) {
  offset = {0, 0, 0};
  global = {1, 1, 1};
  for (unsigned d = 0; d < range.dims; ++d) {
    offset[d] = range.offset[d];
    global[d] = range.global[d];
  }
  // The last group may be partial (non-uniform work-groups): a slice ends where the range does.
  const uint64_t begin = slice.groupBegin * range.local[slice.dim];
  const uint64_t end = std::min(slice.groupEnd * range.local[slice.dim], range.global[slice.dim]);
  offset[slice.dim] = range.offset[slice.dim] + begin;
  global[slice.dim] = end > begin ? end - begin : 0;
}

namespace {

bool regionsTrusted(const LaunchInput& input) {
  return input.analysis && !input.analysis->unsplittableReason && !input.unsplittable;
}

} // namespace

std::vector<BufferUse> regionsOf(const LaunchInput& input, const analysis::LaunchValues& values, const Slice& slice,
                                 RegionMemo* memo) {
  std::vector<BufferUse> uses;
  auto useOf = [&uses](unsigned buffer) -> BufferUse& {
    for (auto& u : uses)
      if (u.buffer == buffer) return u;
    BufferUse use;
    use.buffer = buffer;
    uses.push_back(std::move(use));
    return uses.back();
  };
  // Regions are trusted only from a complete analysis: an unsplittable kernel's regions may be
  // partial, and then every buffer argument counts as wholly read and (unless read-only) written.
  std::vector<analysis::BufferRegions> regions;
  if (regionsTrusted(input))
    regions = memo ? memo->instantiate(*input.analysis, input.range, slice, values)
                   : analysis::instantiate(*input.analysis, input.range, slice, values);
  for (unsigned i = 0; i < input.args.size(); ++i) {
    const ArgInput& a = input.args[i];
    if (a.kind != ArgInput::Kind::Buffer) continue;
    BufferUse& use = useOf(a.buffer);
    const auto shift = static_cast<int64_t>(a.origin);
    if (a.wholeRead) {
      use.read.add(RangeSet::of(a.origin, a.origin + a.size));
      continue;
    }
    if (i < regions.size()) {
      const auto& r = regions[i];
      use.read.add(r.read.shifted(shift));
      use.write.add(r.write.shifted(shift));
      use.atomic.add(r.atomic.shifted(shift));
      use.writeExact = use.writeExact && r.writeExact;
      if (!r.atomic.empty()) {
        if (use.atomicOp != analysis::AtomicOp::None && (use.atomicOp != r.atomicOp || use.atomicType != r.atomicType))
          use.atomicMixed = true;
        use.atomicOp = r.atomicOp;
        use.atomicType = r.atomicType;
      }
    } else {
      RangeSet whole = RangeSet::of(a.origin, a.origin + a.size);
      use.read.add(whole);
      if (a.written) {
        use.write.add(whole);
        use.writeExact = false;
      }
    }
  }
  // Two arguments on one buffer: a byte written through one and read through the other must
  // be fetched too, which `need` covers because both are united per buffer.
  return uses;
}

namespace {

// Why running these slices apart would be unsafe (empty: safe). Overlapping commutative
// atomics are safe and listed in `merges`.
std::string overlapProblem(const std::vector<SubKernel>& slices, std::vector<AtomicMerge>& merges) {
  merges.clear();
  for (size_t a = 0; a < slices.size(); ++a)
    for (size_t b = a + 1; b < slices.size(); ++b)
      for (const auto& ua : slices[a].uses)
        for (const auto& ub : slices[b].uses) {
          if (ua.buffer != ub.buffer) continue;
          if (ua.write.intersects(ub.write.united(ub.atomic)) || ua.atomic.intersects(ub.write))
            return "the write regions of two slices overlap (a buffer's written bytes cannot be "
                   "attributed to one device)";
          RangeSet both = ua.atomic.intersected(ub.atomic);
          if (both.empty()) continue;
          if (ua.atomicMixed || ub.atomicMixed || ua.atomicOp != ub.atomicOp || ua.atomicType != ub.atomicType ||
              !buffer::atomicMergeable(ua.atomicOp, ua.atomicType))
            return "slices update the same bytes with atomics that cannot be merged";
          auto it =
              std::find_if(merges.begin(), merges.end(), [&](const AtomicMerge& m) { return m.buffer == ua.buffer; });
          if (it == merges.end())
            merges.push_back({ua.buffer, both, ua.atomicOp, ua.atomicType});
          else
            it->region.add(both);
        }
  return {};
}

// Gaps between a slice's written ranges are filled when small (at most kMaxGap bytes, and no
// larger than a neighbouring range, so at most the written bytes are added), except for bytes
// another slice writes: the slice's device acquires them and becomes their only holder, which
// is right because it holds them valid and nothing else changes them in this launch.
constexpr uint64_t kMaxGap = 4096;

void closeWriteGaps(std::vector<SubKernel>& slices) {
  for (size_t i = 0; i < slices.size(); ++i)
    for (auto& use : slices[i].uses) {
      const auto& ranges = use.write.ranges();
      if (ranges.size() < 2) continue;
      std::vector<ByteRange> small;
      for (size_t k = 1; k < ranges.size(); ++k) {
        uint64_t gap = ranges[k].lo - ranges[k - 1].hi;
        if (gap <= kMaxGap && gap <= std::min(ranges[k].size(), ranges[k - 1].size()))
          small.push_back(ByteRange{ranges[k - 1].hi, ranges[k].lo});
      }
      RangeSet gaps = RangeSet::fromRanges(std::move(small));
      for (size_t j = 0; j < slices.size() && !gaps.empty(); ++j)
        for (const auto& other : slices[j].uses)
          if (j != i && other.buffer == use.buffer) gaps = gaps.minus(other.write.united(other.atomic));
      use.fill = gaps.minus(use.atomic);
    }
}

// Computation replication (thesis §3.1.3, analysis/region/Replication.h): slices whose
// may-write regions overlap are widened until each written byte has an owner. Not with
// commutative atomics: an update run twice would be merged twice. Empty: not possible.
std::vector<SubKernel> replicate(const LaunchInput& input, const analysis::LaunchValues& values,
                                 const std::vector<SubKernel>& slices, RegionMemo* memo) {
  for (const auto& s : slices)
    for (const auto& u : s.uses)
      if (!u.atomic.empty()) return {};
  const uint32_t dim = slices.front().slice.dim;
  std::vector<std::pair<uint64_t, uint64_t>> bounds;
  for (const auto& s : slices) bounds.emplace_back(s.slice.groupBegin, s.slice.groupEnd);
  // Buffers are keyed by their index (as a pointer-sized key).
  auto key = [](unsigned buffer) { return reinterpret_cast<const void*>(static_cast<uintptr_t>(buffer) + 1); };
  auto writesOf = [&](uint64_t begin, uint64_t end) {
    analysis::WriteRegions out;
    for (auto& u : regionsOf(input, values, Slice{dim, begin, end}, memo))
      out.emplace_back(key(u.buffer), std::move(u.write));
    return out;
  };
  auto wide = analysis::replicateSlices(bounds, input.range.groups(dim), writesOf);
  std::vector<SubKernel> out;
  for (size_t i = 0; i < wide.size(); ++i) {
    SubKernel sk;
    sk.device = slices[i].device;
    sk.slice = Slice{dim, wide[i].begin, wide[i].end};
    sk.uses = regionsOf(input, values, sk.slice, memo);
    for (auto& use : sk.uses)
      for (auto& [buffer, set] : wide[i].owned)
        if (buffer == key(use.buffer)) use.owned = set;
    out.push_back(std::move(sk));
  }
  return out;
}

} // namespace

Slicing sliceLaunch(const LaunchInput& input, const analysis::LaunchValues& values, uint32_t dim,
                    const std::vector<uint64_t>& groups, RegionMemo* memo) {
  Slicing out;
  auto build = [&](const std::vector<uint64_t>& perDevice) {
    out.subKernels.clear();
    uint64_t begin = 0;
    for (unsigned d = 0; d < perDevice.size(); ++d) {
      if (!perDevice[d]) continue;
      SubKernel sk;
      sk.device = d;
      sk.slice = Slice{dim, begin, begin + perDevice[d]};
      begin += perDevice[d];
      sk.uses = regionsOf(input, values, sk.slice, memo);
      out.subKernels.push_back(std::move(sk));
    }
  };
  build(groups);
  if (out.subKernels.size() > 1) {
    if (std::string problem = overlapProblem(out.subKernels, out.merges); !problem.empty()) {
      out.merges.clear();
      if (auto wide = replicate(input, values, out.subKernels, memo); !wide.empty()) {
        out.subKernels = std::move(wide);
        out.replicated = true;
      } else {
        out.problem = problem;
        std::vector<uint64_t> whole(groups.size(), 0);
        whole[std::max_element(groups.begin(), groups.end()) - groups.begin()] = input.range.groups(dim);
        build(whole);
      }
    }
  }
  closeWriteGaps(out.subKernels);
  for (auto& sk : out.subKernels) {
    sliceRange(input.range, sk.slice, sk.offset, sk.global);
    for (auto& use : sk.uses) {
      use.need = use.read.united(use.atomic);
      if (!use.writeExact) use.need.add(use.write); // unwritten bytes of a may-write stay valid
      use.need.add(use.fill);
      use.published = (out.replicated ? use.owned : use.write.united(use.atomic)).united(use.fill);
      for (const auto& m : out.merges) // merged bytes end on the host, not on any device
        if (m.buffer == use.buffer) use.published.subtract(m.region);
    }
  }
  return out;
}

} // namespace clsplit::planner
