// Executing a launch plan (planner/LaunchPlan.h) on the real devices: its staging legs and
// moves, the bases of its atomic merges, one sub-kernel per device, the merges, and the
// directory updates. What a device's failure leaves to do (plan again without it, or report a
// partly run launch) is the caller's; a sub-kernel a device rejects after others accepted theirs
// runs on an accepting device when that is safe.
#pragma once

#include "device/Fence.h"
#include "icd/objects/Kernel.h"
#include "icd/objects/Queue.h"
#include "planner/LaunchPlan.h"

#include <optional>
#include <vector>

namespace clsplit::icd::runtime {

// One launch as the executor needs it: the kernel, its argument snapshot, the storage of each
// buffer the plan names, and what its commands wait for.
struct LaunchContext {
  Queue& queue;
  Kernel& kernel;
  const std::vector<Kernel::Arg>& args;
  const std::vector<buffer::BufferStorage*>& storages; // by the plan's buffer index
  const planner::LaunchInput& input;
  const std::vector<device::FenceRef>& waits; // the application's wait list and the queue's barrier
  uint64_t launchId = 0;                      // the partitioner's id (producer of written bytes)
};

struct Execution {
  // Devices that failed a transfer, or rejected every sub-kernel: nothing of the launch ran.
  // The caller plans it again without them.
  std::vector<unsigned> failedDevices;
  cl_int error = CL_SUCCESS;
  // A device rejected its sub-kernel after others had accepted theirs and the slice could not
  // run elsewhere: the directory records what ran; the application gets `error`.
  bool partial = false;
  std::vector<std::pair<unsigned, device::FenceRef>> subKernels; // (device that ran it, fence)
  std::vector<uint64_t> groupsPerDevice;
  std::vector<device::FenceRef> merged;
  buffer::TransferLog transfers;

  bool ran() const { return failedDevices.empty(); }
};

// Before a plan runs: room on each device for the bytes its sub-kernel uses (windows of the
// buffers where they do not fit whole: buffer-manager/storage/DeviceMemory.h). Returns whether
// a directory changed meanwhile (copies that shrank sent bytes to the host): the plan's moves
// must then be planned again. Throws CL_MEM_OBJECT_ALLOCATION_FAILURE when a device cannot
// hold what its slice uses.
bool reserveRoom(const LaunchContext& launch, const planner::LaunchPlan& plan, buffer::TransferLog& log);

Execution executePlan(const LaunchContext& launch, const planner::LaunchPlan& plan);

} // namespace clsplit::icd::runtime
