// The fast lane of the launch path (ResidentLaunch.h): no regions, no transfers, no memo keys.
#include "icd/runtime/ResidentLaunch.h"

#include "device/Enqueue.h"
#include "device/Submission.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"
#include "support/Log.h"

namespace clsplit::icd::runtime {

namespace {

// A launch's range as the vendor's clEnqueueNDRangeKernel takes it.
struct VendorRange {
  explicit VendorRange(const analysis::NDRange& range) : dims(range.dims), localGiven(range.local[0] != 0) {
    for (unsigned d = 0; d < 3; ++d) {
      offset[d] = range.offset[d];
      global[d] = range.global[d];
      local[d] = range.local[d];
    }
  }
  cl_int enqueue(cl_command_queue queue, cl_kernel kernel, cl_uint n, const cl_event* list, cl_event* event) const {
    return device::call(&cl_icd_dispatch::clEnqueueNDRangeKernel, queue, kernel, dims,
                        static_cast<const size_t*>(offset), static_cast<const size_t*>(global),
                        localGiven ? static_cast<const size_t*>(local) : nullptr, n, list, event);
  }
  cl_uint dims;
  bool localGiven;
  size_t offset[3], global[3], local[3];
};

// Leaves the enqueue (and the argument values the real kernel lacks) to the submission thread.
// The real kernel, queue and buffers stay alive meanwhile: every entry point that could release
// them waits for the deferred calls first (icd/api/Entry.h).
device::FenceRef deferLaunch(Kernel& kernel, const analysis::NDRange& range, const LaunchBuffers& buffers,
                             cl_command_queue queue, cl_context context, unsigned slot) {
  Kernel::ArgWrites writes;
  cl_kernel k = kernel.realKernel(slot, buffers.mems, &writes);
  if (kernel.partitionReady()) kernel.setHiddenWhole(slot, &writes);
  auto fence = std::make_shared<device::submission::DeferredFence>(queue, context);
  device::submission::defer([fence, writes = std::move(writes), vendor = VendorRange(range), k, queue, context] {
    device::FenceRef done;
    cl_int err = writes.apply(k);
    // Resolved under the queue's lock: no later command of the queue (a marker another thread
    // asks for) gets a position before this one's fence shows its own.
    if (err == CL_SUCCESS)
      err = device::enqueueCommand(
          queue, context, device::WaitList(context, queue), false,
          [&](cl_uint n, const cl_event* list, cl_event* event) { return vendor.enqueue(queue, k, n, list, event); },
          done, [&](const device::FenceRef& enqueued) { fence->resolve(enqueued); });
    if (err != CL_SUCCESS) {
      log().error("the device rejected a kernel launch enqueued after the application's call returned ({}); "
                  "the next clFinish returns it",
                  errorName(err));
      device::submission::noteError(err);
      auto failed = std::make_shared<device::HostFence>();
      failed->complete(err);
      fence->resolve(std::move(failed));
    }
  });
  return fence;
}

} // namespace

bool residentOn(const Kernel& kernel, const LaunchBuffers& buffers, unsigned slot) {
  for (cl_uint i = 0; i < buffers.mems.size(); ++i) {
    const Mem* mem = buffers.mems[i].get();
    if (!mem) continue;
    const auto& storage = mem->storage();
    if (!storage.wholeOn(slot) || !storage.validEverywhereOn(slot)) return false;
    if (kernel.argWritten(i) && !storage.noOtherDeviceHolds(slot)) return false;
  }
  return true;
}

device::FenceRef launchResident(Queue& queue, Kernel& kernel, const analysis::NDRange& range,
                                const LaunchBuffers& buffers, unsigned slot, const std::vector<device::FenceRef>& waits,
                                const ResidentRecord& record, bool profiled) {
  auto& rt = Runtime::get();
  cl_command_queue real = queue.realQueue(slot);
  const auto& slotContext = queue.slot(slot);
  // What the kernel waits for: the application's wait list and the queue's barrier, the writer
  // of each device copy it reads (its bytes are valid once that has run) and, for the copies it
  // writes, their readers too. Commands of this queue are implied by its order.
  device::WaitList wl(slotContext.context, real);
  wl.add(waits);
  wl.add(queue.gate());
  for (cl_uint i = 0; i < buffers.mems.size(); ++i) {
    if (!buffers.mems[i]) continue;
    auto& storage = buffers.mems[i]->storage();
    if (kernel.argWritten(i))
      storage.addWriteHazards(slot, wl);
    else
      storage.addValidAfter(slot, wl);
  }

  const bool timed = record.measure || profiled || rt.commandsTimed();
  device::FenceRef done;
  if (record.mayDefer && !timed && device::submission::worthwhile() && wl.size() == 0 &&
      kernel.shapeAccepted(slot, range) && !Trace::active()) {
    done = deferLaunch(kernel, range, buffers, real, slotContext.context, slot);
  } else {
    device::submission::drain(); // the real kernel's arguments and the queue: after what was deferred
    cl_kernel k = kernel.realKernel(slot, buffers.mems);
    if (kernel.partitionReady()) kernel.setHiddenWhole(slot);
    VendorRange vendor(range);
    cl_int err = device::enqueueCommand(
        real, slotContext.context, wl, timed,
        [&](cl_uint n, const cl_event* list, cl_event* event) { return vendor.enqueue(real, k, n, list, event); },
        done);
    if (err != CL_SUCCESS) throw Error(err, "the device rejected the kernel launch");
    if (device::submission::enabled()) kernel.noteShapeAccepted(slot, range); // what may be deferred next
  }

  for (cl_uint i = 0; i < buffers.mems.size(); ++i) {
    if (!buffers.mems[i]) continue;
    auto& storage = buffers.mems[i]->storage();
    if (kernel.argWritten(i)) {
      storage.noteWrite(slot, done);
      storage.publishWholeOn(slot, record.launchId);
    } else {
      storage.noteRead(slot, done);
    }
  }
  // Two arguments on one buffer, one written: the write's hazards above already follow the read
  // (noteWrite drops readers older than it), and a later read waits for this writer.

  if (auto* trace = Trace::active()) trace->subKernel(slot, kernel.name(), 0, record.groups, done);
  if (rt.reporting() || (record.launchId && record.measure)) {
    auto& report = rt.report();
    std::vector<uint64_t> groupsPerSlot(rt.slots().size(), 0);
    groupsPerSlot[slot] = record.groups;
    std::vector<std::pair<unsigned, device::FenceRef>> subKernels{{slot, done}};
    report.noteLaunch(kernel.name(), groupsPerSlot, false,
                      record.fallback ? std::optional<std::string>(*record.fallback) : std::nullopt, subKernels, {},
                      false, /*resident=*/true);
    if (record.launchId) rt.recordLaunch(record.launchId, record.measure, subKernels, groupsPerSlot, {});
  }
  return done;
}

} // namespace clsplit::icd::runtime
