// clEnqueueNDRangeKernel, after validation: choose the split, instantiate each slice's
// regions, move the missing bytes, enqueue one sub-kernel per device, update the directories.
#pragma once

#include "analysis/region/Instantiate.h"
#include "device/Fence.h"
#include "icd/objects/Kernel.h"
#include "icd/objects/Queue.h"

#include <vector>

namespace clsplit::icd::runtime {

// `range.local` holds the application's local size, or zeros when it passed NULL. `profiled`:
// the application gets this launch's event from a profiling queue (its real commands are timed).
device::FenceRef launchKernel(Queue& queue, Kernel& kernel, const analysis::NDRange& range,
                              std::vector<device::FenceRef> waits, bool profiled = false);

} // namespace clsplit::icd::runtime
