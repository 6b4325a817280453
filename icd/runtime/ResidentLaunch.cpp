// The fast lane of the launch path (ResidentLaunch.h): no regions, no transfers, no memo keys.
#include "icd/runtime/ResidentLaunch.h"

#include "device/Enqueue.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"
#include "support/Log.h"

namespace clsplit::icd::runtime {

bool residentOn(const Kernel& kernel, const LaunchBuffers& buffers, unsigned slot) {
  for (cl_uint i = 0; i < buffers.mems.size(); ++i) {
    const Mem* mem = buffers.mems[i].get();
    if (!mem) continue;
    const auto& storage = mem->storage();
    if (!storage.validEverywhereOn(slot)) return false;
    if (kernel.argWritten(i) && !storage.noOtherDeviceHolds(slot)) return false;
  }
  return true;
}

device::FenceRef launchResident(Queue& queue, Kernel& kernel, const analysis::NDRange& range,
                                const LaunchBuffers& buffers, unsigned slot,
                                const std::vector<device::FenceRef>& waits, const ResidentRecord& record,
                                bool profiled) {
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
    if (kernel.argWritten(i)) storage.addWriteHazards(slot, wl);
    else wl.add(storage.validAfter(slot));
  }

  cl_kernel k = kernel.realKernel(slot, buffers.mems);
  if (kernel.partitionReady()) kernel.setHiddenWhole(slot);
  size_t offset[3], global[3], local[3];
  for (unsigned d = 0; d < 3; ++d) {
    offset[d] = range.offset[d];
    global[d] = range.global[d];
    local[d] = range.local[d];
  }
  const bool localGiven = range.local[0] != 0;
  const bool timed = record.measure || profiled || rt.commandsTimed();
  device::FenceRef done;
  cl_int err = device::enqueueCommand(
      real, slotContext.context, wl, timed,
      [&](cl_uint n, const cl_event* list, cl_event* event) {
        return device::call(&cl_icd_dispatch::clEnqueueNDRangeKernel, real, k, cl_uint(range.dims),
                            static_cast<const size_t*>(offset), static_cast<const size_t*>(global),
                            localGiven ? static_cast<const size_t*>(local) : nullptr, n, list, event);
      },
      done);
  if (err != CL_SUCCESS) throw Error(err, "the device rejected the kernel launch");

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
