// A virtual context: one real context per real platform holding all of its selected devices
// (so device-to-device copies stay inside one driver), plus the lock that orders the planning
// of commands touching this context's buffers.
#pragma once

#include "buffer-manager/storage/DeviceMemory.h"
#include "buffer-manager/storage/PinnedPool.h"
#include "device/Fence.h"
#include "device/Real.h"
#include "icd/objects/Object.h"
#include "icd/objects/SvmAllocations.h"
#include "planner/LaunchInput.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace clsplit::buffer {
class BufferStorage;
}

namespace clsplit::icd {

class Device;

// One selected real device as seen from this context.
struct SlotContext {
  unsigned slot = 0;
  cl_device_id device = nullptr;
  cl_context context = nullptr; // the real context of the device's platform
  unsigned platform = 0;
  bool hostUnified = false; // CL_DEVICE_HOST_UNIFIED_MEMORY
};

using ContextNotify = void(CL_CALLBACK*)(const char*, const void*, size_t, void*);

class Context final : public TypedObject<Context, _cl_context, ObjectKind::Context, CL_INVALID_CONTEXT> {
public:
  Context(std::vector<cl_context_properties> properties, ContextNotify notify, void* userData);
  ~Context() override;

  Device& device() const { return *device_; }
  const std::vector<SlotContext>& slots() const { return slots_; }
  const SlotContext& slot(unsigned s) const { return slots_[s]; }
  // The slots as the planner sees them (by slot: real context, host-unified memory).
  const std::vector<planner::DeviceTraits>& deviceTraits() const { return deviceTraits_; }
  // Whether a split launch whose slowest share is predicted to take `predictedNs` (0: not
  // known) runs boundary-first (CLSPLIT_OVERLAP; planner/BoundaryFirst.h).
  bool boundaryFirst(double predictedNs) const {
    return overlap_ == Overlap::On || (overlap_ == Overlap::Auto && predictedNs >= kOverlapMinNs);
  }
  // Under `auto`, shares predicted to take at least this long: the boundary launch, its event and
  // the cross-queue waits cost tens of microseconds of host time per launch on NVIDIA, which
  // launches of shorter kernels feel (fdtd2d 4096 over two H100, ~50 us kernels: 0.61x).
  static constexpr double kOverlapMinNs = 1e6;
  const std::vector<cl_context_properties>& properties() const { return properties_; }
  // Where host copies of this context's buffers are pinned (null: no discrete device, or off).
  const std::shared_ptr<buffer::PinnedPool>& pinnedPool() const { return pinnedPool_; }
  // What buffers' device copies take on each real device (null: one device, or windows off:
  // every copy is whole and unaccounted).
  const std::shared_ptr<buffer::DeviceMemory>& deviceMemory() const { return deviceMemory_; }

  // Serialises the planning of commands (directory updates, transfer decisions) in this
  // context; held only while planning, never while waiting for devices.
  std::mutex& planMutex() { return planMutex_; }

  // The image formats every real context supports for `flags` (kernel access) and `type`, in
  // the order the first lists them (asked of the vendors once per flags and type).
  std::vector<cl_image_format> supportedImageFormats(cl_mem_flags flags, cl_mem_object_type type);
  bool imageFormatSupported(cl_mem_flags flags, cl_mem_object_type type, const cl_image_format& format);

  // The storages of this context's CL_MEM_USE_HOST_PTR buffers, whose application memory is
  // brought up to date at synchronisation points (runtime/HostPtrCoherence.h).
  void addHostPtrBuffer(const std::shared_ptr<buffer::BufferStorage>& storage);
  bool hasHostPtrBuffers() const { return hasHostPtrBuffers_.load(std::memory_order_relaxed); }
  std::vector<std::shared_ptr<buffer::BufferStorage>> hostPtrBuffers();

  // The shared virtual memory allocated in this context (on the device's svmSlot).
  SvmAllocations& svm() { return svm_; }
  const SvmAllocations& svm() const { return svm_; }
  // Buffers made on SVM memory (CL_MEM_USE_HOST_PTR of an SVM pointer): SVM commands and kernels
  // reach their bytes directly, so their device copies are brought into that memory first
  // (runtime/SvmCommands.h). A released one is kept until then (`retire`): its last writes
  // must still reach the memory, which the application reads through SVM.
  void addSvmBacked(const std::shared_ptr<buffer::BufferStorage>& storage);
  void retireSvmBacked(std::shared_ptr<buffer::BufferStorage> storage);
  bool hasSvmBacked() const { return hasSvmBacked_.load(std::memory_order_relaxed); }
  // The live ones and the retired ones.
  std::vector<std::shared_ptr<buffer::BufferStorage>> svmBacked();
  // Retired ones whose bytes went home (or whose memory was freed): let go.
  void letGoRetired(const std::vector<const buffer::BufferStorage*>& storages);
  // SVM [base, base + size) is freed: released buffers on it are let go unread (their bytes
  // would go to freed memory).
  void forgetRetiredSvmBacked(const void* base, size_t size);
  // Reads bringing such buffers' bytes into SVM memory, still running: a free of that memory
  // waits for them (they are clsplit's, not commands the application could have waited for).
  void noteSvmHomeRead(const void* lo, size_t size, device::FenceRef read);
  std::vector<device::FenceRef> svmHomeReadsIn(const void* lo, size_t size);

  // clSetContextDestructorCallback: called in reverse order of registration when the context
  // is destroyed (its last reference gone, the objects made in it included).
  using DestructorCallback = void(CL_CALLBACK*)(cl_context, void*);
  void addDestructorCallback(DestructorCallback fn, void* userData);

  // Reports an asynchronous error to the application's pfn_notify, if any.
  void notify(const std::string& message) const;

  cl_int info(cl_context_info param, size_t size, void* value, size_t* sizeRet) const;

private:
  std::vector<cl_context_properties> properties_;
  ContextNotify notify_;
  void* userData_;
  Device* device_;
  std::vector<device::RealContext> realContexts_;
  std::vector<SlotContext> slots_;
  std::vector<planner::DeviceTraits> deviceTraits_;
  std::shared_ptr<buffer::PinnedPool> pinnedPool_;
  std::shared_ptr<buffer::DeviceMemory> deviceMemory_;
  std::mutex formatsMutex_;
  std::map<std::pair<cl_mem_flags, cl_mem_object_type>, std::vector<cl_image_format>> formats_;
  enum class Overlap { Off, Auto, On } overlap_ = Overlap::Off;
  std::mutex planMutex_;
  std::mutex hostPtrMutex_;
  std::vector<std::weak_ptr<buffer::BufferStorage>> hostPtrBuffers_;
  std::atomic<bool> hasHostPtrBuffers_{false};
  SvmAllocations svm_;
  std::mutex svmBackedMutex_;
  std::vector<std::weak_ptr<buffer::BufferStorage>> svmBacked_;
  std::vector<std::shared_ptr<buffer::BufferStorage>> svmRetired_;
  struct HomeRead {
    uintptr_t lo, hi;
    device::FenceRef read;
  };
  std::vector<HomeRead> svmHomeReads_; // under svmBackedMutex_
  std::atomic<bool> hasSvmBacked_{false};
  std::mutex destructorMutex_;
  std::vector<std::pair<DestructorCallback, void*>> destructorCallbacks_;
};

} // namespace clsplit::icd
