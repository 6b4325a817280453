// The SVM commands (SvmCommands.h): the vendor's own command on the SVM device's real queue.
#include "icd/runtime/SvmCommands.h"

#include "buffer-manager/storage/HostBlock.h"
#include "device/HostExecutor.h"
#include "icd/objects/Context.h"
#include "icd/objects/Device.h"
#include "icd/runtime/CommandSteps.h"

#include <algorithm>
#include <memory>
#include <mutex>

namespace clsplit::icd::runtime {

using device::call;

namespace {

unsigned svmSlotOf(Queue& q) {
  auto slot = q.context().device().svmSlot();
  require(slot.has_value(), CL_INVALID_OPERATION, "no device of the context offers shared virtual memory");
  return *slot;
}

// One real command on the SVM device's queue that reaches `access`. `hostOrder`: it reads host
// memory, so it waits for what it waits for as the host sees it (device::hostOrdered).
template <class Enqueue>
FenceRef onSvmDevice(Queue& q, std::vector<FenceRef> waits, const std::vector<SvmAccess>& access, const char* what,
                     Enqueue&& enqueue, bool hostOrder = false) {
  const unsigned slot = svmSlotOf(q);
  steps::append(waits, beforeSvmAccess(q, access));
  waits = steps::withGate(q, std::move(waits));
  if (hostOrder) {
    std::vector<FenceRef> ordered;
    for (const auto& wait : waits)
      if (auto f = device::hostOrdered(wait)) ordered.push_back(std::move(f));
    waits = std::move(ordered);
  }
  FenceRef done = steps::enqueueOn(q, slot, waits, what, enqueue);
  afterSvmAccess(q, done, access);
  return done;
}

bool overlaps(const buffer::BufferStorage& storage, const SvmAccess& a) {
  const auto home = reinterpret_cast<uintptr_t>(storage.useHostPtr()), at = reinterpret_cast<uintptr_t>(a.ptr);
  return home < at + a.size && at < home + storage.size();
}

// What clEnqueueSVMFree's callback needs from the application. The vendor gets a holder of its
// own (freed by the callback); a command whose wait list failed may never be called back, so its
// failure lets go of the queue too, and whichever comes first claims the call.
struct FreeCall {
  SvmFreeCallback callback;
  void* userData;
  std::mutex mutex;
  std::shared_ptr<Queue> queue; // null once claimed
};

void CL_CALLBACK callApplication(cl_command_queue, cl_uint count, void** pointers, void* data) {
  std::unique_ptr<std::shared_ptr<FreeCall>> holder(static_cast<std::shared_ptr<FreeCall>*>(data));
  FreeCall& free = **holder;
  std::shared_ptr<Queue> queue;
  {
    std::lock_guard lock(free.mutex);
    queue.swap(free.queue);
  }
  if (queue) free.callback(queue->handle(), count, pointers, free.userData);
}

} // namespace

std::vector<FenceRef> beforeSvmAccess(Queue& q, const std::vector<SvmAccess>& access) {
  std::vector<FenceRef> waits{q.allRecorded()};
  Context& context = q.context();
  if (!context.hasSvmBacked()) return waits;
  buffer::TransferLog log;
  std::vector<const buffer::BufferStorage*> home;
  for (const auto& storage : context.svmBacked()) {
    if (std::none_of(access.begin(), access.end(), [&](const SvmAccess& a) { return overlaps(*storage, a); })) continue;
    for (auto& read : storage->bringHomeAfterWriters(q, &log)) {
      context.noteSvmHomeRead(storage->useHostPtr(), storage->size(), read);
      waits.push_back(std::move(read));
    }
    home.push_back(storage.get());
  }
  context.letGoRetired(home);
  steps::record(log);
  return waits;
}

void afterSvmAccess(Queue& q, const FenceRef& done, const std::vector<SvmAccess>& access,
                    const std::vector<const buffer::BufferStorage*>& skip) {
  for (const auto& a : access) q.noteHostAccess(a.ptr, a.size, a.writes, done);
  if (!q.context().hasSvmBacked()) return;
  for (const auto& storage : q.context().svmBacked()) {
    if (std::find(skip.begin(), skip.end(), storage.get()) != skip.end()) continue;
    if (std::none_of(access.begin(), access.end(),
                     [&](const SvmAccess& a) { return a.writes && overlaps(*storage, a); }))
      continue;
    auto* memory = static_cast<std::byte*>(storage->useHostPtr());
    storage->publishHostBlock(RangeSet{ByteRange{0, storage->size()}}, buffer::HostBlock::wrap(memory, storage->size()),
                              0, done);
  }
}

FenceRef svmMemcpy(Queue& q, void* dst, const void* src, size_t size, std::vector<FenceRef> waits) {
  // Its source may be host memory other commands fill: a driver may read pageable memory when
  // the copy is enqueued, whatever its wait list (NVIDIA did: through clsplit a copy from memory
  // a read of a split buffer was filling took stale bytes), so it waits as the host sees them.
  return onSvmDevice(
      q, std::move(waits), {{src, size, false}, {dst, size, true}}, "clEnqueueSVMMemcpy",
      [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
        return call(&cl_icd_dispatch::clEnqueueSVMMemcpy, real, cl_bool(CL_FALSE), dst, src, size, n, list, event);
      },
      /*hostOrder=*/true);
}

FenceRef svmMemFill(Queue& q, void* ptr, const void* pattern, size_t patternSize, size_t size,
                    std::vector<FenceRef> waits) {
  return onSvmDevice(q, std::move(waits), {{ptr, size, true}}, "clEnqueueSVMMemFill",
                     [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                       return call(&cl_icd_dispatch::clEnqueueSVMMemFill, real, ptr, pattern, patternSize, size, n,
                                   list, event);
                     });
}

FenceRef svmMap(Queue& q, cl_map_flags flags, void* ptr, size_t size, std::vector<FenceRef> waits) {
  // The host reads or writes the region once the map completes: what other commands wrote there
  // must be there by then (a write after it is the unmap's).
  return onSvmDevice(q, std::move(waits), {{ptr, size, false}}, "clEnqueueSVMMap",
                     [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                       return call(&cl_icd_dispatch::clEnqueueSVMMap, real, cl_bool(CL_FALSE), flags, ptr, size, n,
                                   list, event);
                     });
}

FenceRef svmUnmap(Queue& q, void* ptr, std::vector<FenceRef> waits) {
  // The host may have written the mapped region, whose size was the map's: the allocation
  // bounds it.
  auto allocation = q.context().svm().find(ptr);
  const SvmAccess region = allocation ? SvmAccess{allocation->base, allocation->size, true} : SvmAccess{ptr, 1, true};
  return onSvmDevice(q, std::move(waits), {region}, "clEnqueueSVMUnmap",
                     [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                       return call(&cl_icd_dispatch::clEnqueueSVMUnmap, real, ptr, n, list, event);
                     });
}

FenceRef svmMigrate(Queue& q, cl_uint count, const void** pointers, const size_t* sizes, cl_mem_migration_flags flags,
                    std::vector<FenceRef> waits) {
  std::vector<SvmAccess> access;
  for (cl_uint i = 0; i < count; ++i) {
    auto allocation = q.context().svm().find(pointers[i]);
    const size_t size = sizes && sizes[i] ? sizes[i] : allocation ? allocation->size : 1;
    access.push_back({pointers[i], size, false});
  }
  return onSvmDevice(q, std::move(waits), access, "clEnqueueSVMMigrateMem",
                     [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                       return call(&cl_icd_dispatch::clEnqueueSVMMigrateMem, real, count, pointers, sizes, flags, n,
                                   list, event);
                     });
}

FenceRef svmFree(const std::shared_ptr<Queue>& q, std::vector<void*> pointers, SvmFreeCallback callback, void* userData,
                 std::vector<FenceRef> waits) {
  Context& context = q->context();
  for (void* p : pointers)
    if (auto allocation = context.svm().find(p); allocation && allocation->base == p) {
      // Released buffers on it are let go unread; clsplit's reads into it still running come first.
      context.forgetRetiredSvmBacked(allocation->base, allocation->size);
      steps::append(waits, context.svmHomeReadsIn(allocation->base, allocation->size));
    }
  std::erase(pointers, nullptr); // NULL frees nothing (as clSVMFree)
  if (pointers.empty()) {        // nothing for the vendor: the command orders itself after its waits
    steps::append(waits, beforeSvmAccess(*q, {}));
    FenceRef after = device::allOf(steps::withGate(*q, std::move(waits)));
    if (!callback) return after;
    // The command is the callback: its event completes after it, and it runs on clsplit's
    // background thread (never under the planning lock the caller holds, nor inline).
    auto called = std::make_shared<device::HostFence>();
    after->onComplete([called, callback, q, userData](cl_int status) {
      if (status < 0) {
        called->complete(status);
        return;
      }
      device::runInBackground([called, callback, q, userData] {
        callback(q->handle(), 0, nullptr, userData);
        called->complete(CL_COMPLETE);
      });
    });
    return called;
  }
  std::shared_ptr<FreeCall> free;
  std::unique_ptr<std::shared_ptr<FreeCall>> holder;
  if (callback) {
    free = std::make_shared<FreeCall>();
    free->callback = callback;
    free->userData = userData;
    free->queue = q;
    holder = std::make_unique<std::shared_ptr<FreeCall>>(free);
  }
  FenceRef done = onSvmDevice(
      *q, std::move(waits), {}, "clEnqueueSVMFree",
      [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
        return call(&cl_icd_dispatch::clEnqueueSVMFree, real, static_cast<cl_uint>(pointers.size()), pointers.data(),
                    free ? &callApplication : nullptr, static_cast<void*>(holder.get()), n, list, event);
      });
  if (free) {
    holder.release(); // the vendor's now (enqueueOn threw otherwise); a small leak if never called
    done->onComplete([free](cl_int status) {
      if (status >= 0) return;
      std::lock_guard lock(free->mutex);
      free->queue.reset(); // terminated: no call, and the queue is not kept alive for one
    });
  }
  if (!callback) // the vendor frees them; with a callback the application does (clSVMFree)
    for (void* p : pointers) context.svm().remove(p);
  return done;
}

} // namespace clsplit::icd::runtime
