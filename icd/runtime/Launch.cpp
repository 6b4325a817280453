// The launch path of one clEnqueueNDRangeKernel, in named steps:
//   1. snapshot the arguments          4. check the slices are safe to run apart
//   2. decide the split (partitioner)  5. move the missing bytes to each device
//   3. instantiate each slice's regions 6. enqueue one sub-kernel per device
//                                      7. publish what each device wrote; record the launch
// Steps 3-4 live in SlicePlan.cpp (and are remembered for launches that repeat).
#include "icd/runtime/Launch.h"

#include "buffer-manager/storage/AtomicMerge.h"
#include "device/Clock.h"
#include "device/HostExecutor.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/SlicePlan.h"
#include "icd/runtime/Trace.h"
#include "partitioner/Partitioner.h"
#include "support/Log.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>

namespace clsplit::icd::runtime {

using analysis::NDRange;
using device::FenceRef;

namespace {

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
  auto memo = LaunchMemo::of(kernel);
  const std::string memoKey = LaunchMemo::key(range, args);
  uint32_t dim = 0;
  if (splittable) {
    if (auto known = memo->dimension(memoKey)) {
      dim = *known;
    } else {
      // Without resolving indirections: a dimension is chosen before the partitioner says
      // whether this launch is split at all, and an unsplit launch must not wait for a device.
      ArgValues shallow(args, queue, /*readContents=*/false);
      dim = analysis::chooseSplitDimension(*analysis, range, shallow);
      memo->rememberDimension(memoKey, dim);
    }
  }

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

  // 3-4. Instantiate each slice's regions; check the slices are safe to run apart (if not,
  //      the whole range runs on one device).
  std::vector<uint64_t> groups = decision.groups;
  groups.resize(slots, 0);
  auto slicePlan = memo->plan(memoKey, dim, groups);
  if (!slicePlan) {
    // A launch that runs whole on one device needs no exact regions: whole buffers are right
    // (the device then holds all of them) and spare the enqueue a wait for indirection values.
    bool whole = std::count_if(groups.begin(), groups.end(), [](uint64_t g) { return g > 0; }) <= 1;
    ArgValues fresh(args, queue, !whole);
    auto planned = std::make_shared<const SlicePlan>(planSlices(kernel, args, range, dim, groups, fresh));
    if (!fresh.readBuffers()) memo->rememberPlan(memoKey, dim, groups, planned);
    slicePlan = std::move(planned);
  }
  const auto& slices = slicePlan->slices;
  const auto& merges = slicePlan->merges;
  if (slicePlan->problem) fallback = slicePlan->problem;
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
      auto fences = use.storage->acquire(use.need, slices[i].slot, queue, &transfers);
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
    for (const auto& use : slices[i].uses)
      use.storage->publishWrite(use.published, slices[i].slot, subKernels[i].second, decision.launchId);
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
