// Virtual contexts: creation of the real per-platform contexts and context queries.
#include "icd/objects/Context.h"

#include "buffer-manager/storage/BufferStorage.h"

#include "icd/objects/Device.h"
#include "icd/objects/Environment.h"
#include "icd/objects/InfoQuery.h"
#include "icd/objects/MemorySettings.h"
#include "support/Log.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace clsplit::icd {

namespace {
void CL_CALLBACK forwardNotify(const char* message, const void*, size_t, void* data) {
  // Some vendors (Oclgrind) call this with a NULL user_data: then the message is only logged.
  if (data)
    static_cast<Context*>(data)->notify(message ? message : "");
  else
    log().warn("context error reported by a device: {}", message ? message : "");
}
uint64_t mebibytes(const char* name, const std::string& mib, unsigned long long fallback) {
  char* end = nullptr;
  unsigned long long value = std::strtoull(mib.c_str(), &end, 10);
  if (mib.empty() || *end || mib[0] == '-') {
    log().warn("{}={} is not a number of MiB; using {}", name, mib, fallback);
    value = fallback;
  }
  return static_cast<uint64_t>(value) << 20;
}
// Device memory accounting and windows (buffer-manager/storage/DeviceMemory.h), for a selection
// of several devices.
std::shared_ptr<buffer::DeviceMemory> deviceMemoryFor(const std::vector<SlotContext>& slots, const Settings& settings) {
  const MemorySettings& memory = memorySettings(settings);
  // One device is held to a cap only when one is set (its copies are then whole or nothing).
  if ((slots.size() < 2 && !memory.cap) || memory.policy == buffer::WindowPolicy::Off) return nullptr;
  std::map<cl_device_id, buffer::DeviceMemory::Limits> limits;
  for (const auto& s : slots)
    limits[s.device] = {memory.cap.value_or(device::deviceValue<cl_ulong>(s.device, CL_DEVICE_GLOBAL_MEM_SIZE)),
                        device::deviceValue<cl_ulong>(s.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE)};
  return std::make_shared<buffer::DeviceMemory>(memory.policy, std::move(limits));
}
} // namespace

Context::Context(std::vector<cl_context_properties> properties, ContextNotify notify, void* userData)
    : properties_(std::move(properties)), notify_(notify), userData_(userData), device_(Device::instance()) {
  require(device_ != nullptr, CL_DEVICE_NOT_AVAILABLE, "no real device is selected");
  auto& env = environment();
  const bool forceStaging = !env.settings().value("CLSPLIT_TEST_FORCE_STAGING").empty();
  for (unsigned platform : env.platformsInUse()) {
    std::vector<cl_device_id> devices;
    for (const auto& s : env.slots()) // a device selected twice is in the real context once
      if (s.platform == platform && std::find(devices.begin(), devices.end(), s.device->handle) == devices.end())
        devices.push_back(s.device->handle);
    cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(env.vendors().platforms()[platform].handle), 0};
    cl_int err = CL_SUCCESS;
    cl_context real =
        device::invoke(devices.front(), &cl_icd_dispatch::clCreateContext, props, static_cast<cl_uint>(devices.size()),
                       devices.data(), &forwardNotify, static_cast<void*>(this), &err);
    device::check(err, "clCreateContext");
    realContexts_.push_back(device::RealContext::adopt(real));
    for (const auto& s : env.slots())
      if (s.platform == platform)
        slots_.push_back({s.slot, s.device->handle, real, platform,
                          forceStaging
                              ? false
                              : device::deviceValue<cl_bool>(s.device->handle, CL_DEVICE_HOST_UNIFIED_MEMORY) != 0});
  }
  std::sort(slots_.begin(), slots_.end(), [](auto& a, auto& b) { return a.slot < b.slot; });
  for (const auto& s : slots_) deviceTraits_.push_back({s.platform, s.hostUnified, env.slots()[s.slot].device->index});
  // Pinned through the first discrete device: its DMA gains most; other vendors read the same
  // memory as any host memory. A simulator (Oclgrind, which claims every device type at once)
  // is not one, and its runtime is not thread-safe: the pool's pinning thread corrupted its heap.
  const uint64_t pinnedBytes = mebibytes("CLSPLIT_PINNED_MB", env.settings().value("CLSPLIT_PINNED_MB"), 1024);
  const uint64_t stagingBytes =
      mebibytes("CLSPLIT_PINNED_STAGING_MB", env.settings().value("CLSPLIT_PINNED_STAGING_MB"), 8);
  auto discrete = [&](const SlotContext& s) {
    const cl_device_type type = env.slots()[s.slot].device->type;
    return !s.hostUnified && (forceStaging || !(type & CL_DEVICE_TYPE_CPU)); // tests stage as GPUs do
  };
  for (const auto& s : slots_)
    if (discrete(s) && pinnedBytes) {
      pinnedPool_ = std::make_shared<buffer::PinnedPool>(s.context, s.device, pinnedBytes, stagingBytes);
      // Bytes may move between devices through host memory: the first large move (a split
      // given up, a gather) finds the staging ring pinned (10-15 ms on NVIDIA, in the background).
      if (slots_.size() > 1) pinnedPool_->reserveRing();
      break;
    }
  deviceMemory_ = deviceMemoryFor(slots_, env.settings());
  // Halos overlap the interior where a device has copy engines of its own (a discrete GPU);
  // devices sharing the host's memory copy with the same cores that compute.
  const std::string& overlap = env.settings().value("CLSPLIT_OVERLAP");
  if (overlap != "auto" && overlap != "on" && overlap != "off")
    log().warn("CLSPLIT_OVERLAP={} is not auto, on or off; using auto", overlap);
  if (slots_.size() > 1 && overlap == "on")
    overlap_ = Overlap::On;
  else if (slots_.size() > 1 && overlap != "off" && std::any_of(slots_.begin(), slots_.end(), discrete))
    overlap_ = Overlap::Auto;
}

Context::~Context() {
  for (auto it = destructorCallbacks_.rbegin(); it != destructorCallbacks_.rend(); ++it)
    it->first(handle(), it->second);
}

void Context::addDestructorCallback(DestructorCallback fn, void* userData) {
  std::lock_guard lock(destructorMutex_);
  destructorCallbacks_.emplace_back(fn, userData);
}

void Context::addHostPtrBuffer(const std::shared_ptr<buffer::BufferStorage>& storage) {
  std::lock_guard lock(hostPtrMutex_);
  std::erase_if(hostPtrBuffers_, [](const auto& weak) { return weak.expired(); });
  hostPtrBuffers_.push_back(storage);
  hasHostPtrBuffers_.store(true, std::memory_order_relaxed);
}

void Context::addSvmBacked(const std::shared_ptr<buffer::BufferStorage>& storage) {
  std::lock_guard lock(svmBackedMutex_);
  std::erase_if(svmBacked_, [](const auto& weak) { return weak.expired(); });
  svmBacked_.push_back(storage);
  hasSvmBacked_.store(true, std::memory_order_relaxed);
}

void Context::retireSvmBacked(std::shared_ptr<buffer::BufferStorage> storage) {
  std::lock_guard lock(svmBackedMutex_);
  svmRetired_.push_back(std::move(storage));
  hasSvmBacked_.store(true, std::memory_order_relaxed);
}

void Context::forgetRetiredSvmBacked(const void* base, size_t size) {
  const auto lo = reinterpret_cast<uintptr_t>(base), hi = lo + size;
  std::lock_guard lock(svmBackedMutex_);
  std::erase_if(svmRetired_, [&](const auto& storage) {
    const auto home = reinterpret_cast<uintptr_t>(storage->useHostPtr());
    return home >= lo && home < hi;
  });
}

std::vector<std::shared_ptr<buffer::BufferStorage>> Context::svmBacked() {
  std::lock_guard lock(svmBackedMutex_);
  std::vector<std::shared_ptr<buffer::BufferStorage>> all(svmRetired_.begin(), svmRetired_.end());
  for (const auto& weak : svmBacked_)
    if (auto storage = weak.lock()) all.push_back(std::move(storage));
  std::erase_if(svmBacked_, [](const auto& weak) { return weak.expired(); });
  hasSvmBacked_.store(!svmBacked_.empty() || !svmRetired_.empty(), std::memory_order_relaxed);
  return all;
}

void Context::letGoRetired(const std::vector<const buffer::BufferStorage*>& storages) {
  std::lock_guard lock(svmBackedMutex_);
  std::erase_if(svmRetired_, [&](const auto& storage) {
    return std::find(storages.begin(), storages.end(), storage.get()) != storages.end();
  });
}

void Context::noteSvmHomeRead(const void* lo, size_t size, device::FenceRef read) {
  std::lock_guard lock(svmBackedMutex_);
  std::erase_if(svmHomeReads_, [](const HomeRead& r) { return r.read->status() <= CL_COMPLETE; });
  const auto at = reinterpret_cast<uintptr_t>(lo);
  svmHomeReads_.push_back({at, at + size, std::move(read)});
}

std::vector<device::FenceRef> Context::svmHomeReadsIn(const void* lo, size_t size) {
  const auto from = reinterpret_cast<uintptr_t>(lo), to = from + size;
  std::lock_guard lock(svmBackedMutex_);
  std::vector<device::FenceRef> reads;
  for (const auto& r : svmHomeReads_)
    if (r.lo < to && from < r.hi) reads.push_back(r.read);
  return reads;
}

std::vector<std::shared_ptr<buffer::BufferStorage>> Context::hostPtrBuffers() {
  std::lock_guard lock(hostPtrMutex_);
  std::vector<std::shared_ptr<buffer::BufferStorage>> live;
  for (const auto& weak : hostPtrBuffers_)
    if (auto storage = weak.lock()) live.push_back(std::move(storage));
  if (live.size() < hostPtrBuffers_.size()) {
    std::erase_if(hostPtrBuffers_, [](const auto& weak) { return weak.expired(); });
    hasHostPtrBuffers_.store(!hostPtrBuffers_.empty(), std::memory_order_relaxed);
  }
  return live;
}

void Context::notify(const std::string& message) const {
  log().warn("context error reported by a device: {}", message);
  if (notify_) notify_(message.c_str(), nullptr, 0, userData_);
}

cl_int Context::info(cl_context_info param, size_t size, void* value, size_t* sizeRet) const {
  static const InfoEntry<Context> table[] = {
      {CL_CONTEXT_REFERENCE_COUNT, [](const Context& c) { return InfoValue::of(c.referenceCount()); }},
      {CL_CONTEXT_NUM_DEVICES, [](const Context&) { return InfoValue::of(cl_uint(1)); }},
      {CL_CONTEXT_DEVICES, [](const Context& c) { return InfoValue::of(c.device().handle()); }},
      {CL_CONTEXT_PROPERTIES, [](const Context& c) { return InfoValue::array(c.properties()); }},
  };
  return answerInfo(table, *this, param, size, value, sizeRet);
}

std::vector<cl_image_format> Context::supportedImageFormats(cl_mem_flags flags, cl_mem_object_type type) {
  std::lock_guard lock(formatsMutex_);
  auto [it, fresh] = formats_.try_emplace({flags, type});
  if (!fresh) return it->second;
  auto same = [](const cl_image_format& a, const cl_image_format& b) {
    return a.image_channel_order == b.image_channel_order && a.image_channel_data_type == b.image_channel_data_type;
  };
  std::vector<cl_image_format> common;
  // Kernels write 3-D images only where every device can (cl_khr_3d_image_writes).
  if (type == CL_MEM_OBJECT_IMAGE3D &&
      (flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE | CL_MEM_KERNEL_READ_AND_WRITE)) && !device().imageWrites3d())
    return {};
  std::vector<cl_context> asked;
  for (const auto& s : slots_) {
    if (std::find(asked.begin(), asked.end(), s.context) != asked.end()) continue;
    asked.push_back(s.context);
    cl_uint n = 0;
    std::vector<cl_image_format> mine;
    if (device::call(&cl_icd_dispatch::clGetSupportedImageFormats, s.context, flags, type, cl_uint(0),
                     static_cast<cl_image_format*>(nullptr), &n) == CL_SUCCESS &&
        n) {
      mine.resize(n);
      if (device::call(&cl_icd_dispatch::clGetSupportedImageFormats, s.context, flags, type, n, mine.data(),
                       static_cast<cl_uint*>(nullptr)) != CL_SUCCESS)
        mine.clear();
    }
    if (asked.size() == 1)
      common = mine;
    else
      std::erase_if(common, [&](const cl_image_format& f) {
        return std::none_of(mine.begin(), mine.end(), [&](const cl_image_format& m) { return same(f, m); });
      });
  }
  it->second = common;
  return common;
}

bool Context::imageFormatSupported(cl_mem_flags flags, cl_mem_object_type type, const cl_image_format& format) {
  const auto formats = supportedImageFormats(flags, type);
  return std::any_of(formats.begin(), formats.end(), [&](const cl_image_format& f) {
    return f.image_channel_order == format.image_channel_order &&
           f.image_channel_data_type == format.image_channel_data_type;
  });
}

} // namespace clsplit::icd
