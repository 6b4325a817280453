// Commands on shared virtual memory: each is one real command on the queue of the device whose
// SVM the clsplit device offers (Device::svmSlot). SVM is not in the buffer directory: kernels
// given SVM pointers run on that device too (Launch.cpp), and every command that reaches SVM
// keeps the in-order semantics of the application's queue in full (it waits for the queue's
// earlier commands, and later commands touching the same host memory wait for it).
// Callers validate arguments, hold the context's planning lock and turn the fence into the
// application's event.
#pragma once

#include "device/Fence.h"
#include "icd/objects/Queue.h"

#include <vector>

namespace clsplit::buffer {
class BufferStorage;
}

namespace clsplit::icd::runtime {

using device::FenceRef;

FenceRef svmMemcpy(Queue& q, void* dst, const void* src, size_t size, std::vector<FenceRef> waits);
FenceRef svmMemFill(Queue& q, void* ptr, const void* pattern, size_t patternSize, size_t size,
                    std::vector<FenceRef> waits);
FenceRef svmMap(Queue& q, cl_map_flags flags, void* ptr, size_t size, std::vector<FenceRef> waits);
FenceRef svmUnmap(Queue& q, void* ptr, std::vector<FenceRef> waits);
FenceRef svmMigrate(Queue& q, cl_uint count, const void** pointers, const size_t* sizes, cl_mem_migration_flags flags,
                    std::vector<FenceRef> waits);

// clEnqueueSVMFree's callback; the application's is called with the application's queue.
using SvmFreeCallback = void(CL_CALLBACK*)(cl_command_queue, cl_uint, void**, void*);
// Frees `pointers` once the wait list has run: through `callback` if given (the pointers stay
// the context's until the application frees them there), else the vendor's clSVMFree (they
// leave the context's allocations at once).
FenceRef svmFree(const std::shared_ptr<Queue>& q, std::vector<void*> pointers, SvmFreeCallback callback, void* userData,
                 std::vector<FenceRef> waits);

// Memory a command reaches directly: SVM (or, for copies, any host memory).
struct SvmAccess {
  const void* ptr;
  size_t size;
  bool writes;
};
// What a command reaching `access` waits for besides its wait list: every earlier command of
// the queue, and the device copies of buffers made on that memory (Context::addSvmBacked; a
// released one included), read into it after their writers.
std::vector<FenceRef> beforeSvmAccess(Queue& q, const std::vector<SvmAccess>& access);
// After it (`done`): later commands of the queue touching that host memory follow it, and
// buffers made on memory it may write have that memory as their only valid copy once it
// completes, except `skip` (buffers the command wrote as buffers: their device copies are newer).
void afterSvmAccess(Queue& q, const FenceRef& done, const std::vector<SvmAccess>& access,
                    const std::vector<const buffer::BufferStorage*>& skip = {});

} // namespace clsplit::icd::runtime
