// The launch path of one clEnqueueNDRangeKernel, in named steps (a kernel given shared virtual
// memory runs whole on its device instead: launchWithSvm):
//   1. resident: one device runs everything and holds every buffer -> enqueue it as is
//   2. remembered: buffers this kernel ran on before -> ask the partitioner with their request;
//      kept whole where the data is (or gathered there) -> enqueue it as is
//   3. bind the arguments for the planner (planner::LaunchInput)
//   4. decide the shares: the partitioner's work-groups per device (whole on one when the kernel
//      cannot be split); kept whole on a device holding everything -> enqueue it as is
//   5. plan: slices, their regions, the bytes to move (planner::LaunchPlanner)
//   6. execute the plan (PlanExecution.h); a device that fails: plan again without it
//   7. record the launch (run report, partitioner, trace)
#include "icd/runtime/Launch.h"

#include "device/Submission.h"
#include "icd/objects/Device.h"
#include "icd/runtime/PlanExecution.h"
#include "icd/runtime/ResidentLaunch.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/SvmCommands.h"
#include "icd/runtime/Trace.h"
#include "icd/runtime/Transfers.h"
#include "partitioner/GroupSplit.h"
#include "partitioner/MemoryFit.h"
#include "partitioner/Partitioner.h"
#include "planner/PlanPrinter.h"
#include "support/Log.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>

namespace clsplit::icd::runtime {

using analysis::NDRange;
using device::FenceRef;

namespace {

// One launch's arguments bound for the planner: the kernel's arguments (alive for the launch),
// the storage of each distinct buffer, and the planner's view of them.
class BoundLaunch {
public:
  BoundLaunch(Kernel& kernel, const NDRange& range, bool localGiven, Queue& queue) : args_(kernel.snapshotArgs()) {
    input.analysis = kernel.analysis();
    if (!kernel.partitionReady()) input.unsplittable = "the kernel could not be made partition-ready";
    if (kernel.writesImages())
      input.unsplittable = "the kernel writes an image (kernels that write images run whole on one device)";
    // Its last work-group partial: the regions assume whole groups (a partial group's
    // get_local_size differs), so the whole buffers go where the launch runs whole.
    if (!range.uniform())
      input.unsplittable = "non-uniform work-groups (a local size that does not divide the global size) run whole "
                           "on one device";
    input.range = range;
    input.localGiven = localGiven;
    input.devices = queue.context().deviceTraits();
    input.args.resize(args_.size());
    input.buffers.reserve(args_.size());
    storages_.reserve(args_.size());
    for (cl_uint i = 0; i < args_.size(); ++i) {
      const auto& a = args_[i];
      auto& in = input.args[i];
      switch (a.kind) {
      case Kernel::ArgKind::Scalar:
        in.kind = planner::ArgInput::Kind::Scalar;
        in.scalar = a.bytes;
        break;
      case Kernel::ArgKind::Local:
        in.kind = planner::ArgInput::Kind::Local;
        in.size = a.localSize;
        break;
      case Kernel::ArgKind::Mem:
        if (!a.mem) {
          in.kind = planner::ArgInput::Kind::NullBuffer;
          break;
        }
        in.kind = planner::ArgInput::Kind::Buffer;
        in.buffer = bufferOf(*a.mem);
        in.origin = a.mem->origin();
        in.size = a.mem->size();
        in.written = kernel.argWritten(i);
        in.wholeRead = kernel.argIsImage(i) && !in.written; // every device of a split holds it whole
        in.scalar = a.mem->imageQueryBytes();               // what its get_image_* queries return
        break;
      case Kernel::ArgKind::Sampler: // no bytes a region could depend on (a scalar without value)
      case Kernel::ArgKind::Svm:     // (launches with SVM arguments are not planned: launchWithSvm)
      case Kernel::ArgKind::Unset:
        break;
      }
    }
    // An indirection hint reads two elements of an index buffer: the one place the enqueue waits
    // for devices.
    input.readElement = [this, &queue](unsigned arg, uint64_t offset,
                                       analysis::ScalarType type) -> std::optional<analysis::ScalarValue> {
      if (arg >= args_.size() || !args_[arg].mem) return std::nullopt;
      Mem& mem = *args_[arg].mem;
      const size_t width = analysis::scalarSize(type);
      if (!width || offset + width > mem.size()) return std::nullopt;
      if (auto known = mem.rememberedElement(offset, width)) return analysis::decodeScalar(known->data(), type);
      std::array<std::byte, 8> bytes{};
      readToHost(mem.storage(), mem.toRoot(ByteRange{offset, offset + width}), bytes.data(), {}, queue, nullptr)
          ->wait();
      // The read itself changes no holder (it goes to the caller's bytes), so the generation
      // it is remembered at is the contents' own.
      mem.rememberElement(offset, width, bytes);
      return analysis::decodeScalar(bytes.data(), type);
    };
  }
  BoundLaunch(const BoundLaunch&) = delete;
  BoundLaunch& operator=(const BoundLaunch&) = delete;

  const std::vector<Kernel::Arg>& args() const { return args_; }
  // For a launch that may run boundary-first: what other devices fetched lately from each
  // buffer's device copies (planner::BufferInput::pulled).
  void gatherPulled() {
    for (size_t b = 0; b < storages_.size(); ++b) {
      auto& pulled = input.buffers[b].pulled;
      pulled.clear();
      for (unsigned slot = 0; slot < input.devices.size(); ++slot) pulled.push_back(storages_[b]->recentlyPulled(slot));
    }
  }
  const std::vector<buffer::BufferStorage*>& storages() const { return storages_; }

  planner::LaunchInput input;

private:
  unsigned bufferOf(const Mem& mem) {
    buffer::BufferStorage* s = &mem.storage();
    for (unsigned b = 0; b < storages_.size(); ++b)
      if (storages_[b] == s) return b;
    storages_.push_back(s);
    input.buffers.push_back({mem.id(), &s->holders(), {}});
    return static_cast<unsigned>(storages_.size() - 1);
  }

  std::vector<Kernel::Arg> args_;
  std::vector<buffer::BufferStorage*> storages_;
};

// How the launch uses each buffer, for the partitioner's dependence tracking.
partition::LaunchRequest requestFor(const Kernel& kernel, const BoundLaunch& bound, uint32_t dim) {
  const NDRange& range = bound.input.range;
  partition::LaunchRequest request;
  request.kernel = kernel.identity();
  request.groups = range.groups(dim);
  request.groupSize = range.local[0] * range.local[1] * range.local[2];
  request.otherGroups = 1;
  for (unsigned d = 0; d < range.dims; ++d)
    if (d != dim) request.otherGroups *= range.groups(d);
  const auto& args = bound.args();
  request.buffers.reserve(bound.storages().size());
  for (cl_uint i = 0; i < args.size(); ++i) {
    if (args[i].kind != Kernel::ArgKind::Mem || !args[i].mem) continue;
    const bool reads = kernel.argRead(i), writes = kernel.argWritten(i);
    auto it = std::find_if(request.buffers.begin(), request.buffers.end(),
                           [&](const partition::BufferUse& u) { return u.buffer == args[i].mem->id(); });
    if (it == request.buffers.end())
      request.buffers.push_back({args[i].mem->id(), reads, writes, args[i].mem->storage().size()});
    else
      it->reads |= reads, it->writes |= writes;
  }
  return request;
}

// The slot the groups all went to, if they did.
std::optional<unsigned> onlyDeviceOf(const std::vector<uint64_t>& groups) {
  std::optional<unsigned> only;
  for (unsigned d = 0; d < groups.size(); ++d)
    if (groups[d]) {
      if (only) return std::nullopt;
      only = d;
    }
  return only;
}

// Brings every buffer of the launch to `slot` whole (what it lacks of them).
void makeResident(Queue& queue, const LaunchBuffers& buffers, unsigned slot) {
  buffer::TransferLog log;
  for (const auto& mem : buffers.mems)
    if (mem) acquire(mem->storage(), RangeSet::of(0, mem->storage().size()), slot, queue, &log);
  if (log.empty()) return;
  Runtime::get().report().noteTransfers(log);
  if (auto* trace = Trace::active()) trace->transfers(log);
}

// A launch kept whole on `slot`: whether it can run there as is (ResidentLaunch.h). When the
// partitioner says its buffers belong there (partition::LaunchPlan::gather), copies other
// devices hold of the buffers it may write are dropped by the launch (a single-device runtime's
// layout: later launches find it), and what `slot` lacks is first brought there if `mayMove`.
// The caller allows moves only for launches that wait for nothing (no application events, no
// barrier): the moves would not wait for those, and a wait list the host completes later (a user
// event) must not be run ahead of. (A CI run once hung in a three-queue pipeline over PoCL +
// rusticl, cause not established; this rules moving out there.) Dropping copies needs no move:
// a launch that waits (kernel + marker chains over two queues) still settles.
bool runsAsIs(Queue& queue, const Kernel& kernel, const LaunchBuffers& buffers, unsigned slot, bool gather,
              bool mayMove) {
  if (residentOn(kernel, buffers, slot)) return true;
  if (!gather) return false;
  auto allValidThere = [&] {
    return std::all_of(buffers.mems.begin(), buffers.mems.end(),
                       [&](const auto& mem) { return !mem || mem->storage().validEverywhereOn(slot); });
  };
  if (allValidThere()) return true;
  if (!mayMove) return false;
  try {
    makeResident(queue, buffers, slot);
  } catch (const Error& e) {
    // The device cannot hold them whole (its memory for clsplit): the launch is planned instead,
    // with windows, and split by memory if the partitioner's split does not fit either.
    if (e.code() != CL_MEM_OBJECT_ALLOCATION_FAILURE) throw;
    log().info("kernel {}: its buffers are not gathered on device slot {}: {}", kernel.name(), slot, e.what());
    return false;
  }
  return allValidThere();
}

// Work-groups per slot in proportion to the memory each slot's device has for clsplit's copies
// (a device selected twice shares its memory between its slots).
std::vector<uint64_t> groupsByMemory(const Context& context, uint64_t groups, uint64_t largestBuffer) {
  const auto& memory = context.deviceMemory();
  const auto& slots = context.slots();
  std::vector<double> ratios(slots.size(), 1.0), maxShare(slots.size(), 1.0);
  if (memory)
    for (size_t s = 0; s < slots.size(); ++s) {
      const auto sharing =
          std::count_if(slots.begin(), slots.end(), [&](const SlotContext& o) { return o.device == slots[s].device; });
      ratios[s] = static_cast<double>(memory->cap(slots[s].device)) / static_cast<double>(sharing);
      // A share's window of the largest buffer is one allocation (MemoryFit.h).
      maxShare[s] = partition::allocationShare(static_cast<double>(memory->maxAlloc(slots[s].device)),
                                               static_cast<double>(largestBuffer));
    }
  double total = 0;
  for (double r : ratios) total += r;
  for (double& r : ratios) r /= total;
  return partition::ratiosToGroups(partition::withinShares(std::move(ratios), maxShare), groups);
}

void logUnsplitOnce(const Kernel& kernel, const std::string& reason) {
  static std::mutex onceMutex;
  static std::set<std::string> logged;
  std::lock_guard lock(onceMutex);
  if (logged.insert(kernel.identity()).second) log().info("kernel {} runs unsplit: {}", kernel.name(), reason);
}

// The work-groups of a launch kept whole, for the run report and the trace (0 without them: no
// work for launches nobody reads about).
uint64_t groupsToReport(const Kernel& kernel, const NDRange& range) {
  if (!Runtime::get().reporting() && !Trace::active()) return 0;
  NDRange sized = range;
  if (!sized.local[0])
    sized.local = planner::explicitLocalSize(sized, kernel.maxWorkGroupSize(), kernel.requiredWorkGroupSize());
  return sized.groups(analysis::defaultSplitDimension(sized));
}

// A launch that uses shared virtual memory runs whole on the device that holds it: an SVM pointer
// is one vendor's address, and what the kernel reaches through it is not in the directory. Its
// buffers are gathered there first.
FenceRef launchWithSvm(Queue& queue, Kernel& kernel, const NDRange& range, const std::vector<FenceRef>& waits,
                       bool profiled) {
  static const std::string reason =
      "the kernel uses shared virtual memory: it runs whole on the device whose SVM it was given";
  const unsigned slot = *queue.context().device().svmSlot(); // set: the kernel has SVM pointers
  LaunchBuffers buffers;
  kernel.bindBuffers(buffers.mems);
  std::unique_lock plan(queue.context().planMutex());
  if (!runsAsIs(queue, kernel, buffers, slot, /*gather=*/true, /*mayMove=*/true))
    throw Error(CL_MEM_OBJECT_ALLOCATION_FAILURE,
                "the buffers of a kernel using shared virtual memory do not fit its device (slot " +
                    std::to_string(slot) + ")");
  logUnsplitOnce(kernel, reason);
  // What it reaches through SVM: the allocations of its pointers, as read and written. An SVM
  // kernel keeps the queue's order in full and buffers made on that memory follow it
  // (SvmCommands.h), but for those it writes as buffers.
  std::vector<SvmAccess> access;
  for (const void* pointer : kernel.svmPointers())
    if (auto allocation = queue.context().svm().find(pointer))
      access.push_back({allocation->base, allocation->size, true});
  std::vector<FenceRef> after = waits;
  for (auto& wait : beforeSvmAccess(queue, access)) after.push_back(std::move(wait));
  ResidentRecord record;
  record.fallback = &reason;
  record.groups = groupsToReport(kernel, range);
  FenceRef done = launchResident(queue, kernel, range, buffers, slot, after, record, profiled);
  std::vector<const buffer::BufferStorage*> written;
  for (cl_uint i = 0; i < buffers.mems.size(); ++i)
    if (buffers.mems[i] && kernel.argWritten(i)) written.push_back(&buffers.mems[i]->storage());
  afterSvmAccess(queue, done, access, written);
  return done;
}

} // namespace

FenceRef launchKernel(Queue& queue, Kernel& kernel, const NDRange& appRange, std::vector<FenceRef> waits,
                      bool profiled) {
  auto& rt = Runtime::get();
  Context& context = queue.context();
  const unsigned slots = static_cast<unsigned>(context.slots().size());
  rt.harvestSomeMeasurements(); // earlier launches' times, for the partitioner (an atomic load if none)

  // 1. One device runs every launch (one selected, or `single`): its buffers are made resident
  //    there whole, as a single-device runtime keeps them, and nothing is planned
  //    (ResidentLaunch.h).
  const std::optional<unsigned> only = rt.partitioner().onlyDevice();
  if (only && !kernel.usesSvm()) {
    LaunchBuffers buffers;
    kernel.bindBuffers(buffers.mems);
    std::unique_lock plan(context.planMutex());
    bool resident = residentOn(kernel, buffers, *only);
    if (!resident) {
      device::submission::drain(); // moves are vendor calls of their own
      makeResident(queue, buffers, *only);
      resident = residentOn(kernel, buffers, *only);
    }
    if (resident) {
      ResidentRecord record;
      record.mayDefer = true;
      record.groups = groupsToReport(kernel, appRange);
      return launchResident(queue, kernel, appRange, buffers, *only, waits, record, profiled);
    }
  }
  // Several devices: planning, moves and sub-kernels make vendor calls on this thread, after
  // whatever was deferred (device/Submission.h).
  device::submission::drain();
  if (kernel.usesSvm()) return launchWithSvm(queue, kernel, appRange, waits, profiled);
  if (auto gate = queue.gate()) waits.push_back(gate);
  const bool localGiven = appRange.local[0] != 0;
  auto resolveLocal = [&kernel](const NDRange& r) {
    return planner::explicitLocalSize(r, kernel.maxWorkGroupSize(), kernel.requiredWorkGroupSize());
  };
  LaunchBuffers buffers;
  kernel.bindBuffers(buffers.mems);
  buffers.ids.reserve(buffers.mems.size());
  for (const auto& mem : buffers.mems) buffers.ids.push_back(mem ? mem->id() : 0);

  std::unique_lock plan(context.planMutex());
  HostSpan span("plan launch");

  // 2. A launch on buffers this kernel was launched on before: the partitioner is asked with the
  //    request remembered for them. Kept whole on a device that holds all its data, it runs as is.
  std::optional<partition::LaunchPlan> asked;
  uint32_t askedDim = 0;
  planner::LaunchPlanner& planner = kernel.planner();
  if (slots > 1 && !only)
    if (auto* known = planner.repeatable(buffers.ids, appRange, resolveLocal)) {
      {
        HostSpan partition("partitioner");
        asked = rt.partitioner().plan(known->request);
      }
      askedDim = known->dim;
      asked->groups.resize(slots, 0);
      if (auto device = onlyDeviceOf(asked->groups);
          device && runsAsIs(queue, kernel, buffers, *device, asked->gather, waits.empty())) {
        std::optional<std::string> oneGroup;
        if (known->splittable && known->request.groups <= 1 && (rt.reporting() || Trace::active()))
          oneGroup = "one work-group along dimension " + std::to_string(known->dim) + ": nothing to divide";
        const std::string* fallback = known->fallback ? &*known->fallback : oneGroup ? &*oneGroup : nullptr;
        if (Trace::active()) span.setArgs("\"kernel\": \"" + kernel.name() + "\", \"split\": false");
        ResidentRecord record{asked->launchId, asked->measure, asked->groups[*device], fallback};
        return launchResident(queue, kernel, appRange, buffers, *device, waits, record, profiled);
      }
    }

  // 3. Bind the arguments (a split needs the local size the vendor would pick: slices are whole
  //    work-groups).
  const auto planned = std::chrono::steady_clock::now(); // what a split costs the host, from here
  NDRange range = appRange;
  if (!localGiven) range.local = resolveLocal(range);
  std::optional<HostSpan> binding(std::in_place, "bind arguments");
  BoundLaunch bound(kernel, range, localGiven, queue);
  const planner::LaunchInput& input = bound.input;
  binding.reset();

  // 4. Decide the shares (unless step 2 asked).
  std::optional<std::string> kernelFallback;
  if (slots > 1 && !only) {
    if (kernel.writesImages())
      kernelFallback = *input.unsplittable; // whatever the analysis said
    else if (!input.analysis)
      kernelFallback = "the kernel was not analysed (program built without analysis)";
    else if (input.analysis->unsplittableReason)
      kernelFallback = *input.analysis->unsplittableReason;
    else if (input.unsplittable)
      kernelFallback = *input.unsplittable;
  }
  std::optional<std::string> fallback = kernelFallback;
  const bool splittable = slots > 1 && !only && !fallback;
  const std::string key = planner.key(input);
  const uint32_t dim = splittable ? planner.splitDimension(input, key) : analysis::defaultSplitDimension(range);
  // Only a report or trace shows it: no string per launch of a program of one-group kernels.
  if (splittable && range.groups(dim) <= 1 && (rt.reporting() || Trace::active()))
    fallback = "one work-group along dimension " + std::to_string(dim) + ": nothing to divide";

  partition::LaunchPlan decision;
  bool remapped = false;
  if (asked) {
    decision = std::move(*asked);
    if (askedDim != dim) {
      // Asked in groups of another dimension than this launch's plan uses: the same shares along
      // this one (its times are not reported), and the request follows for the next launches.
      decision.groups = partition::ratiosToGroups(partition::groupsToRatios(decision.groups), range.groups(dim));
      remapped = true;
      if (auto* known = planner.repeatable(buffers.ids, appRange, resolveLocal)) known->retarget(range, dim);
    }
  } else {
    partition::LaunchRequest request = requestFor(kernel, bound, dim);
    request.splittable = splittable && request.groups > 1;
    std::optional<HostSpan> partition(std::in_place, "partitioner");
    decision = rt.partitioner().plan(request);
    partition.reset();
    if (slots > 1 && !only) {
      planner::LaunchPlanner::Repeatable known{{buffers.ids.begin(), buffers.ids.end()},
                                               appRange,
                                               range,
                                               dim,
                                               std::move(request),
                                               splittable,
                                               kernelFallback};
      planner.remember(std::move(known));
    }
  }
  std::vector<uint64_t> groups = decision.groups;
  groups.resize(slots, 0);
  if (auto device = onlyDeviceOf(groups)) {
    // Kept whole on a device that holds every buffer it uses: no plan needed either.
    if (runsAsIs(queue, kernel, buffers, *device, decision.gather, waits.empty())) {
      span.setArgs("\"kernel\": \"" + kernel.name() + "\", \"split\": false");
      if (fallback) logUnsplitOnce(kernel, *fallback);
      ResidentRecord record{decision.launchId, decision.measure && !remapped, groups[*device],
                            fallback ? &*fallback : nullptr};
      return launchResident(queue, kernel, appRange, buffers, *device, waits, record, profiled);
    }
  }

  // 5-6. Plan and execute. A device that fails a transfer, or rejects the only (or every)
  //      sub-kernel, has run nothing of this launch: it is planned again, whole, on another.
  // The launch's commands get events of their own when the partitioner measures it, or the
  // application will read its profiling times.
  std::optional<Queue::TimedCommand> timed(std::in_place, queue, decision.measure || profiled);
  bound.input.overlap = context.boundaryFirst(decision.predictedNs);
  if (bound.input.overlap) bound.gatherPulled();
  std::vector<unsigned> failed;
  planner::LaunchPlan launchPlan;
  Execution done;
  bool byMemory = false;
  for (;;) {
    std::optional<HostSpan> planning(std::in_place, "plan");
    launchPlan = kernel.planner().plan(input, key, groups);
    planning.reset();
    if (launchPlan.fallback) fallback = launchPlan.fallback;
    if (log().should_log(spdlog::level::trace))
      log().trace("kernel {}: {}", kernel.name(), planner::describe(launchPlan));
    LaunchContext context{queue, kernel, bound.args(), bound.storages(), input, waits, decision.launchId};
    buffer::TransferLog evicted;
    try {
      // Room first: copies that shrink move bytes to the host, and the moves are planned from
      // the directory as it is then.
      if (reserveRoom(context, launchPlan, evicted)) launchPlan = kernel.planner().plan(input, key, groups);
      HostSpan execution("execute");
      done = executePlan(context, launchPlan);
      done.transfers.insert(done.transfers.begin(), evicted.begin(), evicted.end());
    } catch (const Error& e) {
      rt.report().noteTransfers(evicted);
      // A device cannot hold what its share of the launch uses (DeviceMemory.h): planned again
      // once, with shares in proportion to the memory each device has for clsplit.
      if (e.code() != CL_MEM_OBJECT_ALLOCATION_FAILURE || byMemory || !splittable) throw;
      byMemory = true;
      uint64_t largest = 0;
      for (const auto* storage : bound.storages())
        if (storage) largest = std::max(largest, storage->size());
      groups = groupsByMemory(context.queue.context(), range.groups(launchPlan.dim), largest);
      log().info("kernel {}: {}; the launch is split by the devices' memory instead", kernel.name(), e.what());
      fallback = "the partitioner's split did not fit the devices' memory; split by memory";
      continue;
    }
    if (done.ran()) break;
    if (slots < 2) throw Error(done.error, "the device failed the kernel launch");
    // A device blamed again (its bytes cannot be fetched from it, wherever the launch runs):
    // no other device can run the launch either.
    if (!done.failedDevices.empty() &&
        std::all_of(done.failedDevices.begin(), done.failedDevices.end(),
                    [&](unsigned d) { return std::find(failed.begin(), failed.end(), d) != failed.end(); }))
      throw Error(done.error, "the kernel launch failed again on a device it had failed on");
    failed.insert(failed.end(), done.failedDevices.begin(), done.failedDevices.end());
    const unsigned home = rt.partitioner().homeDevice();
    std::optional<unsigned> other;
    for (unsigned s = 0; s < slots && !other; ++s) {
      const unsigned candidate = (home + s) % slots;
      if (std::find(failed.begin(), failed.end(), candidate) == failed.end() && kernel.runsOn(candidate))
        other = candidate;
    }
    if (!other) throw Error(done.error, "the kernel launch failed on every device");
    log().warn("kernel {}: a device failed ({}) on slot {}; the launch runs whole on slot {}", kernel.name(),
               errorName(done.error), done.failedDevices.front(), *other);
    groups.assign(slots, 0);
    groups[*other] = range.groups(launchPlan.dim);
    fallback = "a device failed (" + std::string(errorName(done.error)) + "); the launch ran whole on another";
  }
  if (fallback) logUnsplitOnce(kernel, *fallback);
  if (Trace::active())
    span.setArgs("\"kernel\": \"" + kernel.name() + "\", \"split\": " + (launchPlan.split() ? "true" : "false"));
  timed.reset();
  plan.unlock();
  if (launchPlan.split())
    rt.partitioner().reportSplitHostTime(
        unsigned(done.subKernels.size()),
        uint64_t(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - planned).count()));

  // 7. Record the launch.
  const bool measured = decision.measure && !launchPlan.remapped && !remapped;
  HostSpan recording("record");
  rt.report().noteTransfers(done.transfers);
  rt.report().noteLaunch(kernel.name(), done.groupsPerDevice, launchPlan.split(), fallback, done.subKernels,
                         done.transfers, launchPlan.boundaryFirst());
  rt.recordLaunch(decision.launchId, measured, done.subKernels, done.groupsPerDevice, done.transfers);

  if (done.partial) // the directory knows what ran; the application learns that the launch failed
    throw Error(done.error, "a device rejected its part of the kernel launch after others had started theirs");
  std::vector<FenceRef> fences = done.merged;
  for (auto& [slot, f] : done.subKernels) fences.push_back(f);
  // Moves on the transfer queues are waited for by this launch's sub-kernels but are commands of
  // other real queues: part of the launch's fence, so that what waited for the launch (clFinish,
  // USE_HOST_PTR synchronisation) knows those queues' progress too.
  if (launchPlan.overlap)
    for (const auto& t : done.transfers) fences.push_back(t.fence);
  return device::allOf(std::move(fences));
}

} // namespace clsplit::icd::runtime
