// CL_MEM_USE_HOST_PTR memory that follows the kernels, as on CPU runtimes (where the buffer is
// that memory): programs written for CPUs read their host arrays after clFinish without
// mapping (NAS CG and MG do). The specification leaves that undefined; clsplit makes it work.
#pragma once

#include "device/Fence.h"

namespace clsplit::icd {
class Queue;
}

namespace clsplit::icd::runtime {

// A synchronisation point of `queue` (clFinish, a blocking command, clWaitForEvents), after
// the wait for `waited`: the application memory of its context's CL_MEM_USE_HOST_PTR buffers
// receives the bytes completed commands wrote since the last one, and this waits for them.
// Commands of a real queue enqueued before a part of `waited` count as completed. Nothing
// happens, at no cost, in a context without such buffers, or with CLSPLIT_HOST_PTR_SYNC=0.
void bringHostPtrMemoryHome(Queue& queue, const device::FenceRef& waited);

} // namespace clsplit::icd::runtime
