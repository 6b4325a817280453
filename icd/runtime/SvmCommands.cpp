// The SVM commands (SvmCommands.h): the vendor's own command on the SVM device's real queue.
#include "icd/runtime/SvmCommands.h"

#include "icd/objects/Context.h"
#include "icd/objects/Device.h"
#include "buffer-manager/storage/HostBlock.h"
#include "icd/runtime/CommandSteps.h"

#include <algorithm>
#include <memory>

namespace clsplit::icd::runtime {

using device::call;

namespace {

unsigned svmSlotOf(Queue& q) {
  auto slot = q.context().device().svmSlot();
  require(slot.has_value(), CL_INVALID_OPERATION, "no device of the context offers shared virtual memory");
  return *slot;
}

template <class Enqueue>
FenceRef onSvmDevice(Queue& q, std::vector<FenceRef> waits, const char* what, Enqueue&& enqueue) {
  const unsigned slot = svmSlotOf(q);
  steps::append(waits, bringSvmBackedHome(q));
  return steps::enqueueOn(q, slot, steps::withGate(q, std::move(waits)), what, enqueue);
}

// What clEnqueueSVMFree's callback needs from the application (freed by the callback itself).
struct FreeCall {
  SvmFreeCallback callback;
  std::shared_ptr<Queue> queue;
  void* userData;
};

void CL_CALLBACK callApplication(cl_command_queue, cl_uint count, void** pointers, void* data) {
  std::unique_ptr<FreeCall> free(static_cast<FreeCall*>(data));
  free->callback(free->queue->handle(), count, pointers, free->userData);
}

} // namespace

std::vector<FenceRef> bringSvmBackedHome(Queue& q) {
  std::vector<FenceRef> reads;
  if (!q.context().hasSvmBacked()) return reads;
  buffer::TransferLog log;
  for (const auto& storage : q.context().svmBacked(/*takeRetired=*/true))
    steps::append(reads, storage->bringHomeAfterWriters(q, &log));
  steps::record(log);
  return reads;
}

void svmMemoryWritten(Queue& q, const FenceRef& written, const void* lo, size_t size,
                      const std::vector<const buffer::BufferStorage*>& skip) {
  if (!q.context().hasSvmBacked()) return;
  const auto from = reinterpret_cast<uintptr_t>(lo), to = from + size;
  for (const auto& storage : q.context().svmBacked(/*takeRetired=*/false)) {
    if (std::find(skip.begin(), skip.end(), storage.get()) != skip.end()) continue;
    auto* home = static_cast<std::byte*>(storage->useHostPtr());
    const auto begin = reinterpret_cast<uintptr_t>(home), end = begin + storage->size();
    if (lo && (end <= from || to <= begin)) continue;
    storage->publishHostBlock(RangeSet{ByteRange{0, storage->size()}}, buffer::HostBlock::wrap(home, storage->size()),
                              0, written);
  }
}

FenceRef svmMemcpy(Queue& q, void* dst, const void* src, size_t size, std::vector<FenceRef> waits) {
  FenceRef done = onSvmDevice(q, std::move(waits), "clEnqueueSVMMemcpy",
                              [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                                return call(&cl_icd_dispatch::clEnqueueSVMMemcpy, real, cl_bool(CL_FALSE), dst, src,
                                            size, n, list, event);
                              });
  svmMemoryWritten(q, done, dst, size);
  return done;
}

FenceRef svmMemFill(Queue& q, void* ptr, const void* pattern, size_t patternSize, size_t size,
                    std::vector<FenceRef> waits) {
  FenceRef done = onSvmDevice(q, std::move(waits), "clEnqueueSVMMemFill",
                              [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                                return call(&cl_icd_dispatch::clEnqueueSVMMemFill, real, ptr, pattern, patternSize,
                                            size, n, list, event);
                              });
  svmMemoryWritten(q, done, ptr, size);
  return done;
}

FenceRef svmMap(Queue& q, cl_map_flags flags, void* ptr, size_t size, std::vector<FenceRef> waits) {
  return onSvmDevice(q, std::move(waits), "clEnqueueSVMMap",
                     [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                       return call(&cl_icd_dispatch::clEnqueueSVMMap, real, cl_bool(CL_FALSE), flags, ptr, size, n,
                                   list, event);
                     });
}

FenceRef svmUnmap(Queue& q, void* ptr, std::vector<FenceRef> waits) {
  FenceRef done = onSvmDevice(q, std::move(waits), "clEnqueueSVMUnmap",
                              [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                                return call(&cl_icd_dispatch::clEnqueueSVMUnmap, real, ptr, n, list, event);
                              });
  // The host may have written the mapped region (its size is the map's: the allocation bounds it).
  if (auto allocation = q.context().svm().find(ptr))
    svmMemoryWritten(q, done, allocation->base, allocation->size);
  else
    svmMemoryWritten(q, done, nullptr, 0);
  return done;
}

FenceRef svmMigrate(Queue& q, cl_uint count, const void** pointers, const size_t* sizes,
                    cl_mem_migration_flags flags, std::vector<FenceRef> waits) {
  return onSvmDevice(q, std::move(waits), "clEnqueueSVMMigrateMem",
                     [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                       return call(&cl_icd_dispatch::clEnqueueSVMMigrateMem, real, count, pointers, sizes, flags, n,
                                   list, event);
                     });
}

FenceRef svmFree(const std::shared_ptr<Queue>& q, std::vector<void*> pointers, SvmFreeCallback callback,
                 void* userData, std::vector<FenceRef> waits) {
  std::unique_ptr<FreeCall> free;
  if (callback) free.reset(new FreeCall{callback, q, userData});
  FenceRef done = onSvmDevice(*q, std::move(waits), "clEnqueueSVMFree",
                              [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                                return call(&cl_icd_dispatch::clEnqueueSVMFree, real,
                                            static_cast<cl_uint>(pointers.size()), pointers.data(),
                                            free ? &callApplication : nullptr, static_cast<void*>(free.get()), n,
                                            list, event);
                              });
  free.release(); // the vendor calls it (enqueueOn threw otherwise)
  for (void* p : pointers) {
    if (auto allocation = q->context().svm().find(p); allocation && allocation->base == p)
      q->context().forgetRetiredSvmBacked(allocation->base, allocation->size);
    q->context().svm().remove(p);
  }
  return done;
}

} // namespace clsplit::icd::runtime
