// Commands on shared virtual memory: each is one real command on the queue of the device whose
// SVM the clsplit device offers (Device::svmSlot), after the command's wait list and the queue's
// barrier. SVM is not in the buffer directory: kernels given SVM pointers run on that device
// too (Launch.cpp), so its real queue's order is the order of everything that touches SVM.
// Callers validate arguments, hold the context's planning lock and turn the fence into the
// application's event.
#pragma once

#include "device/Fence.h"
#include "icd/objects/Queue.h"

#include <vector>

namespace clsplit::icd::runtime {

using device::FenceRef;

FenceRef svmMemcpy(Queue& q, void* dst, const void* src, size_t size, std::vector<FenceRef> waits);
FenceRef svmMemFill(Queue& q, void* ptr, const void* pattern, size_t patternSize, size_t size,
                    std::vector<FenceRef> waits);
FenceRef svmMap(Queue& q, cl_map_flags flags, void* ptr, size_t size, std::vector<FenceRef> waits);
FenceRef svmUnmap(Queue& q, void* ptr, std::vector<FenceRef> waits);
FenceRef svmMigrate(Queue& q, cl_uint count, const void** pointers, const size_t* sizes,
                    cl_mem_migration_flags flags, std::vector<FenceRef> waits);

// clEnqueueSVMFree's callback; the application's is called with the application's queue.
using SvmFreeCallback = void(CL_CALLBACK*)(cl_command_queue, cl_uint, void**, void*);
// Frees `pointers` once the wait list has run: through `callback` if given, else the vendor's
// clSVMFree. The pointers leave the context's allocations at once.
FenceRef svmFree(const std::shared_ptr<Queue>& q, std::vector<void*> pointers, SvmFreeCallback callback,
                 void* userData, std::vector<FenceRef> waits);

// Buffers made on SVM memory (Context::addSvmBacked) around a command that reaches SVM directly
// (the ones above, and kernels given SVM):
// before it, their device copies are read into that memory after their writers, and the command
// waits for the returned reads (released such buffers included, then let go);
std::vector<FenceRef> bringSvmBackedHome(Queue& q);
// after it, where it may have written [lo, lo + size) of SVM (lo null: anything), that memory is
// their only valid copy once `written` completes, except for `skip` (buffers the command used as
// buffers: their device copies are newer).
void svmMemoryWritten(Queue& q, const FenceRef& written, const void* lo, size_t size,
                      const std::vector<const buffer::BufferStorage*>& skip = {});

} // namespace clsplit::icd::runtime
