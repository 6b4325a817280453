// Buffers, sub-buffers and images: storage creation, mappings, destructor callbacks, queries.
#include "icd/objects/Mem.h"

#include "device/HostExecutor.h"
#include "icd/objects/InfoQuery.h"

#include <atomic>
#include <cstring>
#include <mutex>

namespace clsplit::icd {

namespace {
std::vector<buffer::StorageSlot> storageSlots(const Context& context) {
  std::vector<buffer::StorageSlot> slots;
  for (const auto& s : context.slots()) slots.push_back({s.context, s.device, s.hostUnified});
  return slots;
}
uint64_t nextBufferId() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}
} // namespace

Mem::Mem(std::shared_ptr<Context> context, cl_mem_flags flags, size_t size, void* hostPtr)
    : context_(std::move(context)), flags_(flags), size_(size),
      hostPtr_(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) ? hostPtr : nullptr), id_(nextBufferId()) {
  storage_ = std::make_shared<buffer::BufferStorage>(
      storageSlots(*context_), size, flags & CL_MEM_COPY_HOST_PTR ? hostPtr : nullptr,
      flags & CL_MEM_USE_HOST_PTR ? hostPtr : nullptr, context_->pinnedPool(), std::nullopt, context_->deviceMemory());
  if (flags & CL_MEM_USE_HOST_PTR) context_->addHostPtrBuffer(storage_);
  if ((flags & CL_MEM_USE_HOST_PTR) && context_->svm().contains(hostPtr, size)) {
    svmBacked_ = true;
    context_->addSvmBacked(storage_);
  }
}

namespace {
// The application's image bytes (rows `rowPitch` apart, slices `slicePitch` apart) packed.
std::vector<std::byte> packImage(const buffer::ImageLayout& layout, const void* src, size_t rowPitch,
                                 size_t slicePitch) {
  std::vector<std::byte> packed(layout.bytes());
  const auto* in = static_cast<const std::byte*>(src);
  for (size_t s = 0; s < layout.slices(); ++s)
    for (size_t r = 0; r < layout.rowsPerSlice(); ++r)
      std::memcpy(packed.data() + (s * layout.rowsPerSlice() + r) * layout.rowPitch(),
                  in + s * slicePitch + r * rowPitch, layout.rowPitch());
  return packed;
}
} // namespace

Mem::Mem(std::shared_ptr<Mem> buffer, cl_mem_flags flags, const buffer::ImageLayout& layout)
    : context_(buffer->context_), parent_(buffer), storage_(buffer->storage_), flags_(flags), size_(layout.bytes()),
      origin_(buffer->origin_), hostPtr_(buffer->flags_ & CL_MEM_USE_HOST_PTR ? buffer->hostPtr_ : nullptr),
      hostRowPitch_(layout.rowPitch()), image_(layout), bufferImages_(context_->slots().size()), id_(buffer->id_) {
  setImageQuery();
}

void Mem::setImageQuery() {
  const auto t = image_->type();
  const auto extent = image_->extent();
  const bool layers = t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  const uint32_t values[6] = {
      static_cast<uint32_t>(extent[0]),
      static_cast<uint32_t>(
          t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D ? extent[1] : 0),
      static_cast<uint32_t>(t == CL_MEM_OBJECT_IMAGE3D ? extent[2] : 0),
      static_cast<uint32_t>(layers ? image_->slices() : 0),
      static_cast<uint32_t>(image_->format().image_channel_data_type),
      static_cast<uint32_t>(image_->format().image_channel_order)};
  static_assert(sizeof values == sizeof imageQuery_);
  std::memcpy(imageQuery_.data(), values, sizeof values);
}

Mem::Mem(std::shared_ptr<Context> context, cl_mem_flags flags, const buffer::ImageLayout& layout, void* hostPtr,
         size_t hostRowPitch, size_t hostSlicePitch)
    : context_(std::move(context)), flags_(flags), size_(layout.bytes()),
      hostPtr_(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) ? hostPtr : nullptr), image_(layout),
      id_(nextBufferId()) {
  hostRowPitch_ = hostRowPitch ? hostRowPitch : layout.rowPitch();
  const bool layered = layout.slices() > 1 || layout.type() == CL_MEM_OBJECT_IMAGE3D ||
                       layout.type() == CL_MEM_OBJECT_IMAGE2D_ARRAY || layout.type() == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  hostSlicePitch_ = hostSlicePitch ? hostSlicePitch : layered ? hostRowPitch_ * layout.rowsPerSlice() : 0;
  // USE_HOST_PTR memory in the packed layout is the storage's home, as for buffers (coherent at
  // synchronisation points); in another layout its bytes are copied in, and maps go through it.
  const bool packedHost =
      hostRowPitch_ == layout.rowPitch() && (!layered || hostSlicePitch_ == layout.rowPitch() * layout.rowsPerSlice());
  std::vector<std::byte> packed;
  const void* initial = nullptr;
  void* home = nullptr;
  if ((flags & CL_MEM_USE_HOST_PTR) && packedHost)
    home = hostPtr;
  else if (flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR)) {
    packed = packImage(layout, hostPtr, hostRowPitch_, layered ? hostSlicePitch_ : 0);
    initial = packed.data();
  }
  storage_ = std::make_shared<buffer::BufferStorage>(storageSlots(*context_), size_, initial, home,
                                                     context_->pinnedPool(), layout, context_->deviceMemory());
  setImageQuery();
  if (home) context_->addHostPtrBuffer(storage_);
}

cl_int Mem::imageInfo(cl_image_info param, size_t size, void* value, size_t* sizeRet) const {
  const buffer::ImageLayout* l = image();
  require(l != nullptr, CL_INVALID_MEM_OBJECT, "not an image");
  const auto t = l->type();
  const bool usesHost = flags_ & CL_MEM_USE_HOST_PTR;
  switch (param) {
  case CL_IMAGE_FORMAT:
    return writeInfo(InfoValue::of(l->format()), size, value, sizeRet);
  case CL_IMAGE_ELEMENT_SIZE:
    return writeInfo(InfoValue::of(l->pixel()), size, value, sizeRet);
  case CL_IMAGE_ROW_PITCH:
    return writeInfo(InfoValue::of(usesHost ? hostRowPitch_ : l->rowPitch()), size, value, sizeRet);
  case CL_IMAGE_SLICE_PITCH:
    return writeInfo(InfoValue::of(usesHost ? hostSlicePitch_ : l->slicePitch()), size, value, sizeRet);
  case CL_IMAGE_WIDTH:
    return writeInfo(InfoValue::of(l->desc().image_width), size, value, sizeRet);
  case CL_IMAGE_HEIGHT:
    return writeInfo(
        InfoValue::of(t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D
                          ? l->desc().image_height
                          : size_t(0)),
        size, value, sizeRet);
  case CL_IMAGE_DEPTH:
    return writeInfo(InfoValue::of(t == CL_MEM_OBJECT_IMAGE3D ? l->desc().image_depth : size_t(0)), size, value,
                     sizeRet);
  case CL_IMAGE_ARRAY_SIZE:
    return writeInfo(InfoValue::of(t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY
                                       ? l->desc().image_array_size
                                       : size_t(0)),
                     size, value, sizeRet);
  case CL_IMAGE_BUFFER:
    return writeInfo(
        InfoValue::of(t == CL_MEM_OBJECT_IMAGE1D_BUFFER ? parent_->handle() : static_cast<cl_mem>(nullptr)), size,
        value, sizeRet);
  case CL_IMAGE_NUM_MIP_LEVELS:
  case CL_IMAGE_NUM_SAMPLES:
    return writeInfo(InfoValue::of(cl_uint(0)), size, value, sizeRet);
  default:
    throw Error(CL_INVALID_VALUE, "unknown image info");
  }
}

Mem::Mem(std::shared_ptr<Mem> parent, cl_mem_flags flags, size_t origin, size_t size)
    : context_(parent->context_), parent_(parent), storage_(parent->storage_), flags_(flags), size_(size),
      origin_(parent->origin_ + origin), hostPtr_(parent->hostPtr_ && (parent->flags_ & CL_MEM_USE_HOST_PTR)
                                                      ? static_cast<char*>(parent->hostPtr_) + origin
                                                      : nullptr),
      id_(parent->id_) {}

Mem::~Mem() {
  // Its last writes still go to the SVM memory, unless that was freed first.
  if (svmBacked_ && context_->svm().contains(hostPtr_, size_)) context_->retireSvmBacked(storage_);
  std::vector<std::pair<void(CL_CALLBACK*)(cl_mem, void*), void*>> callbacks;
  {
    std::lock_guard lock(mutex_);
    callbacks.swap(destructorCallbacks_);
  }
  // OpenCL deletes a released memory object only once the commands using it have finished:
  // the storage (host blocks that enqueued uploads still read, the real buffers) lives until
  // its pending work completes. The application may free host_ptr in the destructor callbacks,
  // so they run only then too. (The handle is no longer valid; it is only passed back.)
  std::vector<device::FenceRef> pending = storage_->pending();
  if (callbacks.empty() && pending.empty()) return;
  // A command terminated because its wait list failed may still be run by its vendor later
  // (PoCL runs it and reads the host block it was given: found by TSan), so after a failure the
  // storage is kept until exit rather than freed under it.
  device::allOf(pending)->onComplete([storage = storage_](cl_int status) {
    if (status >= 0) return;
    static std::mutex keptMutex;
    static auto* kept = new std::vector<std::shared_ptr<buffer::BufferStorage>>; // never freed
    std::lock_guard lock(keptMutex);
    kept->push_back(storage);
  });
  cl_mem h = handle();
  device::runAfter(std::move(pending), [callbacks, h, storage = storage_] {
    for (auto it = callbacks.rbegin(); it != callbacks.rend(); ++it) it->first(h, it->second);
  });
}

Mem::Bound Mem::boundFor(unsigned slot) {
  if (!bufferImages_.empty() || storage_->wholeOn(slot)) return {realFor(slot), 0};
  return {storage_->deviceBuffer(slot),
          static_cast<int64_t>(storage_->window(slot).lo) - static_cast<int64_t>(origin_)};
}

cl_mem Mem::realFor(unsigned slot) {
  if (bufferImages_.empty()) return storage_->deviceView(slot, origin_, size_, flags_);
  std::lock_guard lock(mutex_);
  auto& real = bufferImages_.at(slot);
  if (!real) {
    cl_image_desc desc = image_->desc();
    desc.buffer = storage_->deviceView(slot, origin_, parent_->size(), parent_->flags());
    cl_int err = CL_SUCCESS;
    cl_mem mem = device::call(&cl_icd_dispatch::clCreateImage, context_->slot(slot).context, image_->access(),
                              &image_->format(), &desc, static_cast<void*>(nullptr), &err);
    device::check(err, "clCreateImage (a 1-D image of a device's buffer)");
    real = device::RealMem::adopt(mem);
  }
  return real.get();
}

void Mem::addMapping(Mapping m) {
  std::lock_guard lock(mutex_);
  mappings_.push_back(std::move(m));
}

Mem::Mapping Mem::takeMapping(void* pointer) {
  std::lock_guard lock(mutex_);
  for (auto it = mappings_.begin(); it != mappings_.end(); ++it)
    if (it->pointer == pointer) {
      Mapping m = std::move(*it);
      mappings_.erase(it);
      return m;
    }
  throw Error(CL_INVALID_VALUE, "mapped_ptr was not returned by a map of this memory object");
}

cl_uint Mem::mapCount() const {
  std::lock_guard lock(mutex_);
  return static_cast<cl_uint>(mappings_.size());
}

void Mem::addDestructorCallback(void(CL_CALLBACK* fn)(cl_mem, void*), void* data) {
  require(fn != nullptr, CL_INVALID_VALUE, "pfn_notify is NULL");
  std::lock_guard lock(mutex_);
  destructorCallbacks_.emplace_back(fn, data);
}

cl_int Mem::info(cl_mem_info param, size_t size, void* value, size_t* sizeRet) const {
  static const InfoEntry<Mem> table[] = {
      {CL_MEM_TYPE,
       [](const Mem& m) {
         return InfoValue::of(m.image() ? m.image()->type() : cl_mem_object_type(CL_MEM_OBJECT_BUFFER));
       }},
      {CL_MEM_FLAGS, [](const Mem& m) { return InfoValue::of(m.flags()); }},
      {CL_MEM_SIZE, [](const Mem& m) { return InfoValue::of(m.size()); }},
      {CL_MEM_HOST_PTR,
       [](const Mem& m) { return InfoValue::of(m.flags() & CL_MEM_USE_HOST_PTR ? m.hostPtr() : nullptr); }},
      {CL_MEM_PROPERTIES, [](const Mem& m) { return InfoValue::array(m.propertiesArray_); }},
      {CL_MEM_USES_SVM_POINTER,
       [](const Mem& m) {
         const Mem* root = &m; // a sub-buffer answers for its buffer
         while (root->parent()) root = &*root->parent();
         const bool svm = (root->flags() & CL_MEM_USE_HOST_PTR) && root->context().svm().find(root->hostPtr());
         return InfoValue::of(cl_bool(svm ? CL_TRUE : CL_FALSE));
       }},
      {CL_MEM_MAP_COUNT, [](const Mem& m) { return InfoValue::of(m.mapCount()); }},
      {CL_MEM_REFERENCE_COUNT, [](const Mem& m) { return InfoValue::of(m.referenceCount()); }},
      {CL_MEM_CONTEXT, [](const Mem& m) { return InfoValue::of(m.context().handle()); }},
      {CL_MEM_ASSOCIATED_MEMOBJECT,
       [](const Mem& m) { return InfoValue::of(m.parent() ? m.parent()->handle() : nullptr); }},
      {CL_MEM_OFFSET,
       [](const Mem& m) { return InfoValue::of(m.parent() ? m.origin() - m.parent()->origin() : size_t(0)); }},
  };
  return answerInfo(table, *this, param, size, value, sizeRet);
}

std::optional<std::array<std::byte, 8>> Mem::rememberedElement(uint64_t offset, size_t width) const {
  if (flags_ & CL_MEM_USE_HOST_PTR) return std::nullopt;
  const uint64_t generation = storage_->directoryGeneration();
  for (const auto& r : remembered_)
    if (r.offset == offset && r.width == width && r.generation == generation) return r.bytes;
  return std::nullopt;
}

void Mem::rememberElement(uint64_t offset, size_t width, const std::array<std::byte, 8>& bytes) {
  if (flags_ & CL_MEM_USE_HOST_PTR) return;
  const uint64_t generation = storage_->directoryGeneration();
  std::erase_if(remembered_, [&](const RememberedElement& r) {
    return r.generation != generation || (r.offset == offset && r.width == width);
  });
  if (remembered_.size() >= kRememberedElements) remembered_.erase(remembered_.begin());
  remembered_.push_back({generation, offset, width, bytes});
}

} // namespace clsplit::icd
