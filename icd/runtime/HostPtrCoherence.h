// CL_MEM_USE_HOST_PTR memory that follows the kernels, as on CPU runtimes (where the buffer is
// that memory): programs written for CPUs read their host arrays after clFinish without
// mapping (NAS CG and MG do). The specification leaves that undefined; clsplit makes it work.
#pragma once

namespace clsplit::icd {
class Queue;
}

namespace clsplit::icd::runtime {

// A synchronisation point of `queue` (clFinish, a blocking command, clWaitForEvents): the
// application memory of its context's CL_MEM_USE_HOST_PTR buffers receives the bytes completed
// commands wrote since the last one, and this waits for them. Nothing happens, at no cost, in a
// context without such buffers, or with CLSPLIT_HOST_PTR_SYNC=0.
void bringHostPtrMemoryHome(Queue& queue);

} // namespace clsplit::icd::runtime
