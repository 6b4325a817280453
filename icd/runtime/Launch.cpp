// The launch path of one clEnqueueNDRangeKernel, in named steps:
//   1. snapshot the arguments          4. check the slices are safe to run apart
//   2. decide the split (partitioner)  5. move the missing bytes to each device
//   3. instantiate each slice's regions 6. enqueue one sub-kernel per device
//                                      7. publish what each device wrote; record the launch
// Steps 3-4 live in SlicePlan.cpp (and are remembered for launches that repeat).
#include "icd/runtime/Launch.h"

#include "buffer-manager/AtomicMerge.h"
#include "icd/runtime/ResidentLaunch.h"
#include "device/Clock.h"
#include "device/Enqueue.h"
#include "device/HostExecutor.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/SlicePlan.h"
#include "icd/runtime/Trace.h"
#include "partitioner/GroupSplit.h"
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
  // Groups of 64 split finely; a large 1-D range gets larger groups (up to 256, keeping at least
  // ~512 of them): an H200 ran 2^23 items of a stencil 1.5x slower in groups of 64 than in its
  // own choice, the cost of scheduling many small groups.
  uint64_t wanted = std::clamp<uint64_t>(range.global[0] / 512, 64, 256);
  local[0] = largestDivisor(range.global[0], std::min<uint64_t>(budget, wanted));
  if (range.dims > 1) local[1] = largestDivisor(range.global[1], std::max<uint64_t>(1, std::min<uint64_t>(4, budget / local[0])));
  return local;
}

} // namespace

FenceRef launchKernel(Queue& queue, Kernel& kernel, const NDRange& appRange, std::vector<FenceRef> waits,
                      bool profiled) {
  auto& rt = Runtime::get();
  Context& context = queue.context();
  const unsigned slots = static_cast<unsigned>(context.slots().size());

  // 0. One device runs every launch (one selected, or `single`): when it holds every buffer
  //    the launch uses, nothing is planned (ResidentLaunch.h).
  if (auto only = rt.partitioner().onlyDevice()) {
    LaunchBuffers buffers;
    kernel.bindBuffers(buffers.mems);
    std::unique_lock plan(context.planMutex());
    if (residentOn(kernel, buffers, *only)) {
      ResidentRecord record;
      if (rt.reporting() || Trace::active()) { // work-groups along the default split dimension
        NDRange r = appRange;
        if (!r.local[0]) r.local = chooseLocalSize(r, kernel.maxWorkGroupSize(), kernel.requiredWorkGroupSize());
        record.groups = r.groups(analysis::defaultSplitDimension(r));
      }
      return launchResident(queue, kernel, appRange, buffers, *only, waits, record, profiled);
    }
  }
  if (auto gate = queue.gate()) waits.push_back(gate);

  // 1. Snapshot the arguments.
  std::vector<Kernel::Arg> args = kernel.snapshotArgs();

  // 2. Decide the split.
  const auto* analysis = kernel.analysis();
  std::optional<std::string> fallback;
  if (slots > 1 && !rt.singleStrategy()) {
    if (!analysis) fallback = "the kernel was not analysed (program built without analysis)";
    else if (analysis->unsplittableReason) fallback = *analysis->unsplittableReason;
    else if (!kernel.partitionReady()) fallback = "the kernel could not be made partition-ready";
  }
  bool localGiven = appRange.local[0] != 0;
  NDRange range = appRange;
  if (!localGiven) range.local = chooseLocalSize(range, kernel.maxWorkGroupSize(), kernel.requiredWorkGroupSize());
  bool splittable = slots > 1 && !fallback && !rt.singleStrategy();
  auto memo = LaunchMemo::of(kernel);
  const std::string memoKey = LaunchMemo::key(range, args);
  // The split dimension: remembered per launch key once chosen. Choosing it instantiates the
  // regions of trial splits (~0.2-0.3 ms per kernel on a 2048^2 grid, on the H200 machine's
  // host), so until a launch of the kernel is actually split the default is used (exact unless
  // several dimensions have groups to split); see step 2.
  uint32_t dim = 0;
  std::optional<uint32_t> knownDim;
  if (splittable) {
    knownDim = memo->dimension(memoKey);
    if (!knownDim && !analysis::splitDimensionIsAChoice(range)) {
      knownDim = analysis::defaultSplitDimension(range);
      memo->rememberDimension(memoKey, *knownDim);
    }
    dim = knownDim ? *knownDim : analysis::defaultSplitDimension(range);
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
  auto splitNow = [&] {
    return std::count_if(decision.groups.begin(), decision.groups.end(), [](uint64_t g) { return g > 0; }) > 1;
  };
  if (splittable && !knownDim && splitNow()) {
    // The first split launch with this key: now the dimension is worth choosing. Without
    // resolving indirections (their values would make the enqueue wait for a device).
    HostSpan choose("choose split dimension");
    ArgValues shallow(args, queue, /*readContents=*/false);
    const uint32_t best = analysis::chooseSplitDimension(*analysis, range, shallow);
    memo->rememberDimension(memoKey, best);
    if (best != dim) {
      log().debug("kernel {}: split along dimension {} rather than {}", kernel.name(), best, dim);
      // The same shares along the chosen dimension. This launch's times are not reported: the
      // partitioner counted it in groups of the other dimension.
      decision.groups = partition::ratiosToGroups(partition::groupsToRatios(decision.groups), range.groups(best));
      decision.measure = false;
      dim = best;
    }
  }
  // A launch kept whole on a device that holds every buffer it uses needs no plan.
  if (std::count_if(decision.groups.begin(), decision.groups.end(), [](uint64_t g) { return g > 0; }) == 1) {
    const unsigned slot = static_cast<unsigned>(
        std::find_if(decision.groups.begin(), decision.groups.end(), [](uint64_t g) { return g > 0; }) -
        decision.groups.begin());
    LaunchBuffers buffers;
    for (const auto& a : args) buffers.mems.push_back(a.kind == Kernel::ArgKind::Mem ? a.mem : nullptr);
    if (slot < slots && residentOn(kernel, buffers, slot)) {
      span.setArgs("\"kernel\": \"" + kernel.name() + "\", \"split\": false");
      return launchResident(queue, kernel, appRange, buffers, slot, waits,
                            ResidentRecord{decision.launchId, decision.measure, decision.groups[slot]}, profiled);
    }
  }
  // The launch's commands get events of their own when the partitioner measures it, or the
  // application will read its profiling times.
  std::optional<Queue::TimedCommand> timed(std::in_place, queue, decision.measure || profiled);

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
  if (slicePlan->problem) fallback = slicePlan->problem;

  // 5. Move the missing bytes to each device (all transfers before any sub-kernel, so a
  //    transfer reading a device's old bytes is never overtaken by that device's kernel).
  // 6. Enqueue one sub-kernel per device.
  // A device that fails a transfer, or rejects its sub-kernel while no other sub-kernel was
  // accepted, has run nothing of this launch: it is planned again, whole, on another device.
  // A device that rejects its sub-kernel after others were accepted: its slice runs on an
  // accepting device when that slice reads nothing the accepted sub-kernels write (their
  // devices' copies are being overwritten) and no atomics are merged; otherwise the launch has
  // partly run, which the directory records before the error reaches the application.
  buffer::TransferLog transfers;
  std::vector<unsigned> failedSlots;
  struct MergeState {
    std::shared_ptr<buffer::HostBlock> base;
    uint64_t origin;
    FenceRef baseRead;
  };
  std::vector<MergeState> mergeStates;
  std::vector<unsigned> ranOn;
  std::vector<FenceRef> kernelFence;
  cl_int rejection = CL_SUCCESS;
  bool partial = false;
  auto wholeOnAnother = [&](cl_int err, const char* what) {
    unsigned home = rt.partitioner().homeDevice();
    std::optional<unsigned> other;
    for (unsigned s = 0; s < slots && !other; ++s) {
      unsigned candidate = (home + s) % slots;
      if (std::find(failedSlots.begin(), failedSlots.end(), candidate) == failedSlots.end()) other = candidate;
    }
    if (!other) throw Error(err, std::string(what) + " failed on every device");
    log().warn("kernel {}: {} failed on device slot {} ({}); the launch runs whole on slot {}", kernel.name(),
               what, failedSlots.back(), errorName(err), *other);
    std::vector<uint64_t> whole(slots, 0);
    whole[*other] = range.groups(dim);
    ArgValues shallow(args, queue, /*readContents=*/false);
    slicePlan = std::make_shared<const SlicePlan>(planSlices(kernel, args, range, dim, whole, shallow));
    fallback = "a device failed (" + std::string(errorName(err)) + "); the launch ran whole on another";
  };
  auto enqueueSlice = [&](const SliceWork& work, size_t i, unsigned slot,
                          const std::vector<FenceRef>& inputs, bool split) -> cl_int {
    cl_command_queue real = queue.realQueue(slot);
    device::WaitList wl(queue.slot(slot).context, real);
    wl.add(waits);
    wl.add(inputs);
    for (const auto& use : work.uses)
      if (use.writes()) use.storage->addWriteHazards(slot, wl);

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
    FenceRef f;
    cl_int err = device::enqueueCommand(
        real, queue.slot(slot).context, wl, queue.timesCommands(),
        [&](cl_uint n, const cl_event* list, cl_event* event) {
          return device::call(&cl_icd_dispatch::clEnqueueNDRangeKernel, real, k, cl_uint(range.dims),
                              static_cast<const size_t*>(offset), static_cast<const size_t*>(global),
                              passLocal ? static_cast<const size_t*>(local) : nullptr, n, list, event);
        },
        f);
    if (err != CL_SUCCESS) {
      log().warn("clEnqueueNDRangeKernel({}) failed on {}: {}", kernel.name(),
                 rt.slots()[slot].device->name, errorName(err));
      return err;
    }
    for (const auto& use : work.uses) {
      use.storage->noteRead(slot, f);
      if (use.writes()) use.storage->noteWrite(slot, f);
    }
    ranOn[i] = slot;
    kernelFence[i] = f;
    return CL_SUCCESS;
  };
  for (;;) {
    const SlicePlan& current = *slicePlan;
    const size_t n = current.slices.size();
    std::vector<std::vector<FenceRef>> ready(n);
    unsigned acquiring = 0;
    try {
      // Inputs that come through host memory leave their devices first, so that no device's
      // outgoing transfer queues behind its own incoming ones (which wait for other devices).
      if (n > 1)
        for (size_t i = 0; i < n; ++i)
          for (auto& use : current.slices[i].uses) {
            acquiring = current.slices[i].slot;
            use.storage->stageOut(use.need, acquiring, queue, &transfers);
          }
      for (size_t i = 0; i < n; ++i)
        for (auto& use : current.slices[i].uses) {
          acquiring = current.slices[i].slot;
          auto fences = use.storage->acquire(use.need, acquiring, queue, &transfers);
          ready[i].insert(ready[i].end(), fences.begin(), fences.end());
        }
    } catch (const Error& e) {
      if (slots < 2) throw;
      failedSlots.push_back(acquiring);
      wholeOnAnother(e.code(), "a transfer");
      continue;
    }

    // Atomic merges start from the values before the kernel (the reads are noted, so no
    // sub-kernel overwrites them first).
    mergeStates.clear();
    for (const auto& m : current.merges) {
      ByteRange hull = m.region.hull();
      auto block = m.storage->allocateHost(hull.size());
      std::vector<FenceRef> reads;
      for (const auto& r : m.region)
        reads.push_back(m.storage->readToHost(r, block->data() + (r.lo - hull.lo), {}, queue, &transfers));
      mergeStates.push_back({block, hull.lo, device::allOf(std::move(reads))});
    }

    ranOn.assign(n, 0);
    kernelFence.assign(n, nullptr);
    std::vector<size_t> rejected;
    for (size_t i = 0; i < n; ++i)
      if (cl_int err = enqueueSlice(current.slices[i], i, current.slices[i].slot, ready[i], n > 1); err != CL_SUCCESS) {
        rejected.push_back(i);
        rejection = err;
      }
    if (!rejected.empty() && rejected.size() == n) {
      if (slots < 2) throw Error(rejection, "the device rejected the kernel launch");
      for (size_t i : rejected) failedSlots.push_back(current.slices[i].slot);
      wholeOnAnother(rejection, "the kernel launch");
      continue;
    }
    for (size_t i : rejected) {
      size_t host = 0;
      while (!kernelFence[host]) ++host; // a slice whose device accepted its sub-kernel
      bool safe = current.merges.empty();
      for (const auto& use : current.slices[i].uses)
        for (size_t j = 0; j < n && safe; ++j)
          if (kernelFence[j])
            for (const auto& other : current.slices[j].uses)
              if (other.storage == use.storage && use.need.intersects(other.write.united(other.published)))
                safe = false;
      if (safe) {
        std::vector<FenceRef> inputs;
        for (const auto& use : current.slices[i].uses)
          for (auto& f : use.storage->acquire(use.need, ranOn[host], queue, &transfers)) inputs.push_back(f);
        safe = enqueueSlice(current.slices[i], i, ranOn[host], inputs, n > 1) == CL_SUCCESS;
      }
      if (safe)
        log().warn("kernel {}: the slice of slot {} ran on slot {}", kernel.name(), current.slices[i].slot, ranOn[host]);
      else
        partial = true;
    }
    break;
  }
  const auto& slices = slicePlan->slices;
  const auto& merges = slicePlan->merges;
  bool split = slices.size() > 1;
  if (fallback) {
    static std::mutex onceMutex;
    static std::set<std::string> logged;
    std::lock_guard lock(onceMutex);
    if (logged.insert(kernel.identity()).second)
      log().info("kernel {} runs unsplit: {}", kernel.name(), *fallback);
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
        auto block = use.storage->allocateHost(hull.size());
        inputs.push_back(use.storage->readFromSlot(mine, ranOn[i], block->data(), hull.lo,
                                                   {kernelFence[i]}, queue, &transfers));
        partials.emplace_back(block, mine);
      }
    auto result = merge.storage->allocateHost(hull.size());
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
  // Slices whose sub-kernel ran (all, unless the launch only partly ran).
  std::vector<std::pair<unsigned, FenceRef>> subKernels;
  for (size_t i = 0; i < slices.size(); ++i) {
    if (!kernelFence[i]) continue;
    subKernels.emplace_back(ranOn[i], kernelFence[i]);
    for (const auto& use : slices[i].uses)
      use.storage->publishWrite(use.published, ranOn[i], kernelFence[i], decision.launchId);
  }
  for (size_t m = 0; m < merges.size(); ++m) // the merged bytes' only valid copy is on the host
    merges[m].storage->publishHostBlock(merges[m].region, mergedBlocks[m], merges[m].region.hull().lo,
                                        merged[m]);
  if (auto* trace = Trace::active()) {
    for (size_t i = 0; i < slices.size(); ++i)
      if (kernelFence[i])
        trace->subKernel(ranOn[i], kernel.name(), slices[i].slice.groupBegin, slices[i].slice.groupEnd,
                         kernelFence[i]);
    trace->transfers(transfers);
    span.setArgs("\"kernel\": \"" + kernel.name() + "\", \"split\": " + (split ? "true" : "false"));
  }
  timed.reset();
  plan.unlock();

  std::vector<uint64_t> groupsPerSlot(slots, 0);
  for (size_t i = 0; i < slices.size(); ++i)
    if (kernelFence[i]) groupsPerSlot[ranOn[i]] += slices[i].slice.groupEnd - slices[i].slice.groupBegin;
  rt.report().noteTransfers(transfers);
  rt.report().noteLaunch(kernel.name(), groupsPerSlot, split, fallback, subKernels, transfers);
  rt.recordLaunch(decision.launchId, decision.measure, subKernels, groupsPerSlot, transfers);

  if (partial) // the directory knows what ran; the application learns that the launch failed
    throw Error(rejection, "a device rejected its part of the kernel launch after others had started theirs");
  std::vector<FenceRef> fences = merged;
  for (auto& [slot, f] : subKernels) fences.push_back(f);
  return device::allOf(std::move(fences));
}

} // namespace clsplit::icd::runtime
