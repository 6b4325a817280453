// Slice planning: instantiated regions per slice and storage, overlap checks, atomic merges,
// write-gap fills, and the per-kernel memo of plans.
#include "icd/runtime/SlicePlan.h"

#include "analysis/region/Replication.h"
#include "buffer-manager/AtomicMerge.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace clsplit::icd::runtime {

using analysis::BufferRegions;
using analysis::NDRange;
using analysis::Slice;

namespace {

analysis::ScalarValue decode(const std::byte* bytes, analysis::ScalarType type) {
  using analysis::ScalarType;
  analysis::ScalarValue v;
  auto as = [&](auto sample) {
    decltype(sample) x;
    std::memcpy(&x, bytes, sizeof x);
    return x;
  };
  switch (type) {
  case ScalarType::I8: v.i = as(int8_t{}); break;
  case ScalarType::U8: v.i = as(uint8_t{}); break;
  case ScalarType::I16: v.i = as(int16_t{}); break;
  case ScalarType::U16: v.i = as(uint16_t{}); break;
  case ScalarType::I32: v.i = as(int32_t{}); break;
  case ScalarType::U32: v.i = as(uint32_t{}); break;
  case ScalarType::I64: v.i = as(int64_t{}); break;
  case ScalarType::U64: v.i = static_cast<int64_t>(as(uint64_t{})); break;
  case ScalarType::F32: v.isFloat = true; v.f = as(float{}); break;
  case ScalarType::F64: v.isFloat = true; v.f = as(double{}); break;
  case ScalarType::Unknown: break;
  }
  return v;
}

// Regions of every buffer argument of one slice: from the analysis, or the whole buffer.
std::vector<StorageUse> regionsOf(const Kernel& kernel, const std::vector<Kernel::Arg>& args,
                                  const NDRange& range, const Slice& slice, const ArgValues& values) {
  std::vector<StorageUse> uses;
  auto useOf = [&uses](const Mem& mem) -> StorageUse& {
    for (auto& u : uses)
      if (u.storage == &mem.storage()) return u;
    uses.push_back({&mem.storage(), mem.id()});
    return uses.back();
  };
  // Regions are trusted only from a complete analysis: an unsplittable kernel's regions may be
  // partial, and then every buffer argument counts as wholly read and (unless const) written.
  std::vector<BufferRegions> regions;
  if (const auto* a = kernel.analysis(); a && !a->unsplittableReason)
    regions = analysis::instantiate(*a, range, slice, values);
  for (cl_uint i = 0; i < args.size(); ++i) {
    if (args[i].kind != Kernel::ArgKind::Mem || !args[i].mem) continue;
    const Mem& mem = *args[i].mem;
    StorageUse& use = useOf(mem);
    if (i < regions.size()) {
      const auto& r = regions[i];
      use.read.add(mem.toRoot(r.read));
      use.write.add(mem.toRoot(r.write));
      use.atomic.add(mem.toRoot(r.atomic));
      use.writeExact = use.writeExact && r.writeExact;
      if (!r.atomic.empty()) {
        if (use.atomicOp != analysis::AtomicOp::None &&
            (use.atomicOp != r.atomicOp || use.atomicType != r.atomicType))
          use.atomicMixed = true;
        use.atomicOp = r.atomicOp;
        use.atomicType = r.atomicType;
      }
    } else {
      RangeSet whole = RangeSet::of(mem.origin(), mem.origin() + mem.size());
      use.read.add(whole);
      if (!kernel.argReadOnly(i)) {
        use.write.add(whole);
        use.writeExact = false;
      }
    }
  }
  // Two arguments on one buffer: a byte written through one and read through the other must
  // be fetched too, which `need` covers because both are united per storage.
  return uses;
}

// Why splitting these slices would be unsafe (empty: safe). Overlapping commutative atomics
// are safe and listed in `merges`.
std::string overlapProblem(const std::vector<SliceWork>& slices, std::vector<AtomicMerge>& merges) {
  merges.clear();
  for (size_t a = 0; a < slices.size(); ++a)
    for (size_t b = a + 1; b < slices.size(); ++b)
      for (const auto& ua : slices[a].uses)
        for (const auto& ub : slices[b].uses) {
          if (ua.storage != ub.storage) continue;
          if (ua.write.intersects(ub.write.united(ub.atomic)) || ua.atomic.intersects(ub.write))
            return "the write regions of two slices overlap (a buffer's written bytes cannot be "
                   "attributed to one device)";
          RangeSet both = ua.atomic.intersected(ub.atomic);
          if (both.empty()) continue;
          if (ua.atomicMixed || ub.atomicMixed || ua.atomicOp != ub.atomicOp ||
              ua.atomicType != ub.atomicType || !buffer::atomicMergeable(ua.atomicOp, ua.atomicType))
            return "slices update the same bytes with atomics that cannot be merged";
          auto it = std::find_if(merges.begin(), merges.end(),
                                 [&](const AtomicMerge& m) { return m.storage == ua.storage; });
          if (it == merges.end()) merges.push_back({ua.storage, both, ua.atomicOp, ua.atomicType});
          else it->region.add(both);
        }
  return {};
}

// Gaps between a slice's written ranges are filled when small (at most kMaxGap bytes, and no
// larger than a neighbouring range, so at most the written bytes are added), except for bytes
// another slice writes: the slice's device acquires them and becomes their only holder, which
// is right because it holds them valid and nothing else changes them in this launch.
constexpr uint64_t kMaxGap = 4096;

void closeWriteGaps(std::vector<SliceWork>& slices) {
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
          if (j != i && other.storage == use.storage) gaps = gaps.minus(other.write.united(other.atomic));
      use.fill = gaps.minus(use.atomic);
    }
}

// Computation replication (thesis §3.1.3, analysis/region/Replication.h): slices whose
// may-write regions overlap are widened until each written byte has an owner. Not with
// commutative atomics: an update run twice would be merged twice. Empty: not possible.
std::vector<SliceWork> replicate(const Kernel& kernel, const std::vector<Kernel::Arg>& args,
                                 const NDRange& range, const std::vector<SliceWork>& slices,
                                 const ArgValues& values) {
  for (const auto& s : slices)
    for (const auto& u : s.uses)
      if (!u.atomic.empty()) return {};
  const uint32_t dim = slices.front().slice.dim;
  std::vector<std::pair<uint64_t, uint64_t>> bounds;
  for (const auto& s : slices) bounds.emplace_back(s.slice.groupBegin, s.slice.groupEnd);
  auto writesOf = [&](uint64_t begin, uint64_t end) {
    analysis::WriteRegions out;
    for (auto& u : regionsOf(kernel, args, range, Slice{dim, begin, end}, values))
      out.emplace_back(u.storage, std::move(u.write));
    return out;
  };
  auto wide = analysis::replicateSlices(bounds, range.groups(dim), writesOf);
  std::vector<SliceWork> out;
  for (size_t i = 0; i < wide.size(); ++i) {
    Slice slice{dim, wide[i].begin, wide[i].end};
    SliceWork work{slices[i].slot, slice, regionsOf(kernel, args, range, slice, values)};
    for (auto& use : work.uses)
      for (auto& [buffer, set] : wide[i].owned)
        if (buffer == use.storage) use.owned = set;
    out.push_back(std::move(work));
  }
  return out;
}

} // namespace

std::span<const std::byte> ArgValues::scalarBytes(unsigned arg) const {
  if (arg >= args_.size() || args_[arg].kind != Kernel::ArgKind::Scalar) return {};
  return args_[arg].bytes;
}

uint64_t ArgValues::bufferSize(unsigned arg) const {
  return arg < args_.size() && args_[arg].mem ? args_[arg].mem->size() : 0;
}

std::optional<analysis::ScalarValue> ArgValues::readElement(unsigned arg, uint64_t offset,
                                                            analysis::ScalarType type) const {
  if (!readContents_) return std::nullopt;
  readBuffers_ = true;
  if (arg >= args_.size() || !args_[arg].mem) return std::nullopt;
  Mem& mem = *args_[arg].mem;
  size_t width = analysis::scalarSize(type);
  if (!width || offset + width > mem.size()) return std::nullopt;
  std::array<std::byte, 8> bytes{};
  mem.storage().readToHost(mem.toRoot(ByteRange{offset, offset + width}), bytes.data(), {}, queue_, nullptr)->wait();
  return decode(bytes.data(), type);
}

SlicePlan planSlices(const Kernel& kernel, const std::vector<Kernel::Arg>& args, const NDRange& range,
                     uint32_t dim, const std::vector<uint64_t>& groups, const ArgValues& values) {
  SlicePlan plan;
  auto build = [&](const std::vector<uint64_t>& perSlot) {
    plan.slices.clear();
    uint64_t begin = 0;
    for (unsigned s = 0; s < perSlot.size(); ++s) {
      if (!perSlot[s]) continue;
      Slice slice{dim, begin, begin + perSlot[s]};
      begin += perSlot[s];
      plan.slices.push_back({s, slice, regionsOf(kernel, args, range, slice, values)});
    }
  };
  build(groups);
  if (plan.slices.size() > 1) {
    if (std::string problem = overlapProblem(plan.slices, plan.merges); !problem.empty()) {
      plan.merges.clear();
      if (auto wide = replicate(kernel, args, range, plan.slices, values); !wide.empty()) {
        plan.slices = std::move(wide);
        plan.replicated = true;
      } else {
        plan.problem = problem;
        std::vector<uint64_t> whole(groups.size(), 0);
        whole[std::max_element(groups.begin(), groups.end()) - groups.begin()] = range.groups(dim);
        build(whole);
      }
    }
  }
  closeWriteGaps(plan.slices);
  for (auto& slice : plan.slices)
    for (auto& use : slice.uses) {
      use.need = use.read.united(use.atomic);
      if (!use.writeExact) use.need.add(use.write); // unwritten bytes of a may-write stay valid
      use.need.add(use.fill);
      use.published = (plan.replicated ? use.owned : use.write.united(use.atomic)).united(use.fill);
      for (const auto& m : plan.merges) // merged bytes end on the host, not on any device
        if (m.storage == use.storage) use.published.subtract(m.region);
    }
  return plan;
}

// --- LaunchMemo ----------------------------------------------------------------------------

std::string LaunchMemo::key(const NDRange& range, const std::vector<Kernel::Arg>& args) {
  std::string k;
  k.reserve(sizeof range + args.size() * 32);
  auto put = [&k](const void* p, size_t n) { k.append(static_cast<const char*>(p), n); };
  put(&range.dims, sizeof range.dims);
  put(range.offset.data(), sizeof range.offset);
  put(range.global.data(), sizeof range.global);
  put(range.local.data(), sizeof range.local);
  for (const auto& a : args) {
    put(&a.kind, sizeof a.kind);
    switch (a.kind) {
    case Kernel::ArgKind::Scalar: {
      uint64_t n = a.bytes.size();
      put(&n, sizeof n);
      put(a.bytes.data(), a.bytes.size());
      break;
    }
    case Kernel::ArgKind::Mem: {
      const void* storage = a.mem ? &a.mem->storage() : nullptr;
      uint64_t window[2] = {a.mem ? a.mem->origin() : 0, a.mem ? a.mem->size() : 0};
      put(&storage, sizeof storage);
      put(window, sizeof window);
      break;
    }
    case Kernel::ArgKind::Local: put(&a.localSize, sizeof a.localSize); break;
    case Kernel::ArgKind::Unset: break;
    }
  }
  return k;
}

std::shared_ptr<LaunchMemo> LaunchMemo::of(Kernel& kernel) {
  return std::static_pointer_cast<LaunchMemo>(
      kernel.launchState([] { return std::static_pointer_cast<void>(std::make_shared<LaunchMemo>()); }));
}

std::optional<uint32_t> LaunchMemo::dimension(const std::string& key) const {
  std::lock_guard lock(mutex_);
  for (const auto& [k, dim] : dims_)
    if (k == key) return dim;
  return std::nullopt;
}

void LaunchMemo::rememberDimension(const std::string& key, uint32_t dim) {
  std::lock_guard lock(mutex_);
  if (dims_.size() >= kEntries) dims_.erase(dims_.begin());
  dims_.emplace_back(key, dim);
}

std::shared_ptr<const SlicePlan> LaunchMemo::plan(const std::string& key, uint32_t dim,
                                                  const std::vector<uint64_t>& groups) const {
  std::lock_guard lock(mutex_);
  for (const auto& e : plans_)
    if (e.dim == dim && e.groups == groups && e.key == key) return e.plan;
  return nullptr;
}

void LaunchMemo::rememberPlan(const std::string& key, uint32_t dim, const std::vector<uint64_t>& groups,
                              std::shared_ptr<const SlicePlan> plan) {
  std::lock_guard lock(mutex_);
  if (plans_.size() >= kEntries) plans_.erase(plans_.begin());
  plans_.push_back({key, dim, groups, std::move(plan)});
}

} // namespace clsplit::icd::runtime
