// The launch path of one clEnqueueNDRangeKernel, in named steps:
//   1. snapshot the arguments          4. check the slices are safe to run apart
//   2. decide the split (partitioner)  5. move the missing bytes to each device
//   3. instantiate each slice's regions 6. enqueue one sub-kernel per device
//                                      7. publish what each device wrote; record the launch
#include "icd/runtime/Launch.h"

#include "buffer-manager/storage/AtomicMerge.h"
#include "device/Clock.h"
#include "device/HostExecutor.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"
#include "partitioner/Partitioner.h"
#include "support/Log.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>

namespace clsplit::icd::runtime {

using analysis::BufferRegions;
using analysis::NDRange;
using analysis::Slice;
using device::FenceRef;

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

// The values the region instantiation asks for, read from this launch's arguments.
class ArgValues final : public analysis::LaunchValues {
public:
  ArgValues(const std::vector<Kernel::Arg>& args, Queue& queue) : args_(args), queue_(queue) {}

  std::span<const std::byte> scalarBytes(unsigned arg) const override {
    if (arg >= args_.size() || args_[arg].kind != Kernel::ArgKind::Scalar) return {};
    return args_[arg].bytes;
  }
  uint64_t bufferSize(unsigned arg) const override {
    return arg < args_.size() && args_[arg].mem ? args_[arg].mem->size() : 0;
  }
  std::optional<analysis::ScalarValue> readElement(unsigned arg, uint64_t offset,
                                                   analysis::ScalarType type) const override {
    if (arg >= args_.size() || !args_[arg].mem) return std::nullopt;
    Mem& mem = *args_[arg].mem;
    size_t width = analysis::scalarSize(type);
    if (!width || offset + width > mem.size()) return std::nullopt;
    std::array<std::byte, 8> bytes{};
    // An indirection hint: the one place the enqueue waits for devices (two elements).
    mem.storage().readToHost(mem.toRoot(ByteRange{offset, offset + width}), bytes.data(), {}, queue_, nullptr)->wait();
    return decode(bytes.data(), type);
  }

private:
  const std::vector<Kernel::Arg>& args_;
  Queue& queue_;
};

// How one buffer storage is used by one slice, in root-buffer offsets.
struct StorageUse {
  buffer::BufferStorage* storage = nullptr;
  uint64_t bufferId = 0;
  RangeSet read, write, atomic;
  bool writeExact = true;
  analysis::AtomicOp atomicOp = analysis::AtomicOp::None;
  analysis::ScalarType atomicType = analysis::ScalarType::Unknown;
  bool atomicMixed = false; // atomics of different ops or types on this buffer
  RangeSet need() const {
    RangeSet n = read.united(atomic);
    if (!writeExact) n.add(write); // unwritten bytes of an over-approximated write stay valid
    return n;
  }
  bool writes() const { return !write.empty() || !atomic.empty(); }
};

struct SliceWork {
  unsigned slot;
  Slice slice;
  std::vector<StorageUse> uses;
  StorageUse& use(const Mem& mem) {
    for (auto& u : uses)
      if (u.storage == &mem.storage()) return u;
    uses.push_back({&mem.storage(), mem.id()});
    return uses.back();
  }
};

// Regions of every buffer argument of one slice: from the analysis, or the whole buffer.
std::vector<StorageUse> regionsOf(const Kernel& kernel, const std::vector<Kernel::Arg>& args,
                                  const NDRange& range, const Slice& slice, const ArgValues& values) {
  SliceWork work{0, slice, {}};
  // Regions are trusted only from a complete analysis: an unsplittable kernel's regions may be
  // partial, and then every buffer argument counts as wholly read and (unless const) written.
  std::vector<BufferRegions> regions;
  if (const auto* a = kernel.analysis(); a && !a->unsplittableReason)
    regions = analysis::instantiate(*a, range, slice, values);
  for (cl_uint i = 0; i < args.size(); ++i) {
    if (args[i].kind != Kernel::ArgKind::Mem || !args[i].mem) continue;
    const Mem& mem = *args[i].mem;
    StorageUse& use = work.use(mem);
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
  // be fetched too, which `need()` covers because both are united per storage.
  return work.uses;
}

// Bytes that several slices update with the same commutative atomic: merged by a reduction.
struct AtomicMerge {
  buffer::BufferStorage* storage;
  RangeSet region;
  analysis::AtomicOp op;
  analysis::ScalarType type;
};

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

std::array<uint64_t, 3> chooseLocalSize(const NDRange& range, size_t maxGroup,
                                        const std::array<size_t, 3>& required) {
  std::array<uint64_t, 3> local{1, 1, 1};
  if (required[0]) {
    for (int d = 0; d < 3; ++d) local[d] = std::max<size_t>(1, required[d]);
    return local;
  }
  auto largestDivisor = [](uint64_t n, uint64_t cap) {
    for (uint64_t c = std::min(n, cap); c > 1; --c)
      if (n % c == 0) return c;
    return uint64_t{1};
  };
  uint64_t budget = std::max<uint64_t>(1, std::min<uint64_t>(maxGroup, 256));
  local[0] = largestDivisor(range.global[0], std::min<uint64_t>(budget, 64));
  if (range.dims > 1) local[1] = largestDivisor(range.global[1], std::max<uint64_t>(1, std::min<uint64_t>(4, budget / local[0])));
  return local;
}

} // namespace

FenceRef launchKernel(Queue& queue, Kernel& kernel, const NDRange& appRange, std::vector<FenceRef> waits) {
  auto& rt = Runtime::get();
  Context& context = queue.context();
  const unsigned slots = static_cast<unsigned>(context.slots().size());
  if (auto gate = queue.gate()) waits.push_back(gate);

  // 1. Snapshot the arguments.
  std::vector<Kernel::Arg> args = kernel.snapshotArgs();
  ArgValues values(args, queue);

  // 2. Decide the split.
  const auto* analysis = kernel.analysis();
  std::optional<std::string> fallback;
  if (slots > 1 && rt.settings().value("CLSPLIT_STRATEGY") != "single") {
    if (!analysis) fallback = "the kernel was not analysed (program built without analysis)";
    else if (analysis->unsplittableReason) fallback = *analysis->unsplittableReason;
    else if (!kernel.partitionReady()) fallback = "the kernel could not be made partition-ready";
  }
  bool localGiven = appRange.local[0] != 0;
  NDRange range = appRange;
  if (!localGiven) range.local = chooseLocalSize(range, kernel.maxWorkGroupSize(), kernel.requiredWorkGroupSize());
  bool splittable = slots > 1 && !fallback && rt.settings().value("CLSPLIT_STRATEGY") != "single";
  uint32_t dim = splittable ? analysis::chooseSplitDimension(*analysis, range, values) : 0;

  partition::LaunchRequest request;
  request.kernel = kernel.identity();
  request.groups = range.groups(dim);
  request.groupSize = range.local[0] * range.local[1] * range.local[2];
  request.otherGroups = 1;
  for (unsigned d = 0; d < range.dims; ++d)
    if (d != dim) request.otherGroups *= range.groups(d);
  request.splittable = splittable && request.groups > 1;
  // How each buffer is used, from the analysed statements when the kernel was analysed.
  for (cl_uint i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a.kind != Kernel::ArgKind::Mem || !a.mem) continue;
    bool reads = true, writes = !kernel.argReadOnly(i);
    if (analysis && !analysis->unsplittableReason) {
      reads = writes = false;
      for (const auto& st : analysis->regions.statements)
        if (st.arg == i) {
          reads |= st.kind == analysis::AccessKind::Read;
          writes |= st.kind != analysis::AccessKind::Read;
        }
    }
    auto it = std::find_if(request.buffers.begin(), request.buffers.end(),
                           [&](const partition::BufferUse& u) { return u.buffer == a.mem->id(); });
    if (it == request.buffers.end())
      request.buffers.push_back({a.mem->id(), reads, writes, a.mem->storage().size()});
    else
      it->reads |= reads, it->writes |= writes;
  }

  std::unique_lock plan(context.planMutex());
  HostSpan span("plan launch");
  partition::LaunchPlan decision = rt.partitioner().plan(request);

  // 3. Instantiate each slice's regions.
  std::vector<SliceWork> slices;
  auto buildSlices = [&](const std::vector<uint64_t>& groups) {
    slices.clear();
    uint64_t begin = 0;
    for (unsigned s = 0; s < slots && s < groups.size(); ++s) {
      if (!groups[s]) continue;
      Slice slice{dim, begin, begin + groups[s]};
      begin += groups[s];
      slices.push_back({s, slice, regionsOf(kernel, args, range, slice, values)});
    }
  };
  buildSlices(decision.groups);

  // 4. Check the slices are safe to run apart; if not, run whole on one device.
  std::vector<AtomicMerge> merges;
  if (slices.size() > 1) {
    if (std::string problem = overlapProblem(slices, merges); !problem.empty()) {
      fallback = problem;
      std::vector<uint64_t> whole(slots, 0);
      auto most = std::max_element(decision.groups.begin(), decision.groups.end());
      whole[most - decision.groups.begin()] = range.groups(dim);
      buildSlices(whole);
    }
  }
  bool split = slices.size() > 1;
  if (fallback) {
    static std::mutex onceMutex;
    static std::set<std::string> logged;
    std::lock_guard lock(onceMutex);
    if (logged.insert(kernel.identity()).second)
      log().info("kernel {} runs unsplit: {}", kernel.name(), *fallback);
  }

  // 5. Move the missing bytes to each device (all transfers before any sub-kernel, so a
  //    transfer reading a device's old bytes is never overtaken by that device's kernel).
  buffer::TransferLog transfers;
  std::vector<std::vector<FenceRef>> ready(slices.size());
  for (size_t i = 0; i < slices.size(); ++i)
    for (auto& use : slices[i].uses) {
      auto fences = use.storage->acquire(use.need(), slices[i].slot, queue, &transfers);
      ready[i].insert(ready[i].end(), fences.begin(), fences.end());
    }

  // Atomic merges start from the values before the kernel (the reads are noted, so no
  // sub-kernel overwrites them first).
  struct MergeState {
    std::shared_ptr<buffer::HostBlock> base;
    uint64_t origin;
    FenceRef baseRead;
  };
  std::vector<MergeState> mergeStates;
  for (const auto& m : merges) {
    ByteRange hull = m.region.hull();
    auto block = buffer::HostBlock::allocate(hull.size());
    std::vector<FenceRef> reads;
    for (const auto& r : m.region)
      reads.push_back(m.storage->readToHost(r, block->data() + (r.lo - hull.lo), {}, queue, &transfers));
    mergeStates.push_back({block, hull.lo, device::allOf(std::move(reads))});
  }

  // 6. Enqueue one sub-kernel per device.
  std::vector<std::pair<unsigned, FenceRef>> subKernels;
  for (size_t i = 0; i < slices.size(); ++i) {
    const auto& work = slices[i];
    unsigned slot = work.slot;
    cl_command_queue real = queue.realQueue(slot);
    device::WaitList wl(queue.slot(slot).context, real);
    wl.add(waits);
    wl.add(ready[i]);
    for (const auto& use : work.uses)
      if (use.writes()) wl.add(use.storage->writeHazards(slot));

    cl_kernel k = kernel.realKernel(slot, args);
    std::array<uint64_t, 4> hiddenOffset{0, 0, 0, 0}, hiddenSize{1, 1, 1, 0};
    size_t offset[3] = {0, 0, 0}, global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
    for (unsigned d = 0; d < range.dims; ++d) {
      hiddenOffset[d] = offset[d] = range.offset[d];
      hiddenSize[d] = global[d] = range.global[d];
      local[d] = range.local[d];
    }
    if (kernel.partitionReady()) kernel.setHiddenArgs(slot, hiddenOffset, hiddenSize);
    bool whole = work.slice.groupBegin == 0 && work.slice.groupEnd == range.groups(dim);
    if (!whole) {
      offset[dim] = range.offset[dim] + work.slice.groupBegin * range.local[dim];
      global[dim] = (work.slice.groupEnd - work.slice.groupBegin) * range.local[dim];
    }
    bool passLocal = localGiven || split;
    cl_event event = nullptr;
    uint64_t at = device::hostNowNs();
    cl_int err = device::call(&cl_icd_dispatch::clEnqueueNDRangeKernel, real, k, cl_uint(range.dims),
                              static_cast<const size_t*>(offset), static_cast<const size_t*>(global),
                              passLocal ? static_cast<const size_t*>(local) : nullptr, wl.size(),
                              wl.data(), &event);
    if (err != CL_SUCCESS) {
      log().warn("clEnqueueNDRangeKernel({}) failed on {}: {}", kernel.name(),
                 rt.slots()[slot].device->name, errorName(err));
      throw Error(err, "the device rejected the kernel launch");
    }
    FenceRef f = std::make_shared<device::RealEventFence>(device::RealEvent::adopt(event),
                                                          queue.slot(slot).context, real, at);
    for (const auto& use : work.uses) {
      use.storage->noteRead(slot, f);
      if (use.writes()) use.storage->noteWrite(slot, f);
    }
    subKernels.emplace_back(slot, f);
  }

  // 7. Publish what each device wrote (merging overlapping atomics on the host); record the
  //    launch.
  std::vector<FenceRef> merged;
  std::vector<std::shared_ptr<buffer::HostBlock>> mergedBlocks;
  for (size_t m = 0; m < merges.size(); ++m) {
    const auto& merge = merges[m];
    const auto& state = mergeStates[m];
    ByteRange hull = merge.region.hull();
    std::vector<FenceRef> inputs{state.baseRead};
    std::vector<std::pair<std::shared_ptr<buffer::HostBlock>, RangeSet>> partials;
    for (size_t i = 0; i < slices.size(); ++i)
      for (const auto& use : slices[i].uses) {
        if (use.storage != merge.storage) continue;
        RangeSet mine = merge.region.intersected(use.atomic);
        if (mine.empty()) continue;
        auto block = buffer::HostBlock::allocate(hull.size());
        inputs.push_back(use.storage->readFromSlot(mine, slices[i].slot, block->data(), hull.lo,
                                                   {subKernels[i].second}, queue, &transfers));
        partials.emplace_back(block, mine);
      }
    auto result = buffer::HostBlock::allocate(hull.size());
    FenceRef done = device::runAfter(std::move(inputs), [merge, state, partials, result, hull] {
      // Each device's partial: its own values where it updated, the base elsewhere.
      std::vector<std::vector<std::byte>> full;
      std::vector<const std::byte*> views;
      for (const auto& [block, mine] : partials) {
        full.emplace_back(state.base->data(), state.base->data() + hull.size());
        for (const auto& r : mine)
          std::memcpy(full.back().data() + (r.lo - hull.lo), block->data() + (r.lo - hull.lo), r.size());
        views.push_back(full.back().data());
      }
      std::memcpy(result->data(), state.base->data(), hull.size());
      buffer::mergeAtomic(merge.op, merge.type, result->data(), views, hull.size());
    });
    merged.push_back(done);
    mergedBlocks.push_back(result);
  }
  for (size_t i = 0; i < slices.size(); ++i)
    for (const auto& use : slices[i].uses) {
      RangeSet written = use.write.united(use.atomic);
      for (const auto& m : merges)
        if (m.storage == use.storage) written.subtract(m.region);
      use.storage->publishWrite(written, slices[i].slot, subKernels[i].second, decision.launchId);
    }
  for (size_t m = 0; m < merges.size(); ++m) // the merged bytes' only valid copy is on the host
    merges[m].storage->publishHostBlock(merges[m].region, mergedBlocks[m], merges[m].region.hull().lo,
                                        merged[m]);
  if (auto* trace = Trace::active()) {
    for (size_t i = 0; i < slices.size(); ++i)
      trace->subKernel(slices[i].slot, kernel.name(), slices[i].slice.groupBegin, slices[i].slice.groupEnd,
                       subKernels[i].second);
    trace->transfers(transfers);
    span.setArgs("\"kernel\": \"" + kernel.name() + "\", \"split\": " + (split ? "true" : "false"));
  }
  plan.unlock();

  std::vector<uint64_t> groupsPerSlot(slots, 0);
  for (const auto& s : slices) groupsPerSlot[s.slot] = s.slice.groupEnd - s.slice.groupBegin;
  rt.report().noteTransfers(transfers);
  rt.report().noteLaunch(kernel.name(), groupsPerSlot, split, fallback, subKernels, transfers);
  rt.recordLaunch(decision.launchId, subKernels, groupsPerSlot, transfers);

  std::vector<FenceRef> fences = merged;
  for (auto& [slot, f] : subKernels) fences.push_back(f);
  return device::allOf(std::move(fences));
}

} // namespace clsplit::icd::runtime
