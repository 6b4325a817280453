// A virtual memory object: a buffer (owning a BufferStorage: per-device copies + directory), a
// sub-buffer (a window of its parent's storage), or an image (a storage of its packed bytes
// whose device copies are real images: buffer-manager/storage/ImageLayout.h).
#pragma once

#include "buffer-manager/storage/BufferStorage.h"
#include "icd/objects/Context.h"

#include <array>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

namespace clsplit::icd {

class Mem final : public TypedObject<Mem, _cl_mem, ObjectKind::Mem, CL_INVALID_MEM_OBJECT> {
public:
  // A buffer.
  Mem(std::shared_ptr<Context> context, cl_mem_flags flags, size_t size, void* hostPtr);
  // A sub-buffer of `parent` covering [origin, origin + size).
  Mem(std::shared_ptr<Mem> parent, cl_mem_flags flags, size_t origin, size_t size);
  // An image (validated by the caller); `hostRowPitch`/`hostSlicePitch`: the layout of
  // `hostPtr` (0: packed).
  Mem(std::shared_ptr<Context> context, cl_mem_flags flags, const buffer::ImageLayout& layout, void* hostPtr,
      size_t hostRowPitch, size_t hostSlicePitch);
  // A 1-D image over (the start of) `buffer`'s bytes: a window of its storage, like a
  // sub-buffer, whose device copies are real images made from the buffer's real ones.
  Mem(std::shared_ptr<Mem> buffer, cl_mem_flags flags, const buffer::ImageLayout& layout);
  ~Mem() override;

  Context& context() const { return *context_; }
  cl_mem_flags flags() const { return flags_; }
  // The list given to clCreateBufferWithProperties (CL_MEM_PROPERTIES).
  void setPropertiesArray(std::vector<cl_mem_properties> list) { propertiesArray_ = std::move(list); }
  size_t size() const { return size_; }
  void* hostPtr() const { return hostPtr_; }
  size_t origin() const { return origin_; } // offset in the root buffer
  Mem* parent() const { return parent_.get(); }
  buffer::BufferStorage& storage() const { return *storage_; }
  const std::shared_ptr<buffer::BufferStorage>& storageRef() const { return storage_; }
  uint64_t id() const { return id_; } // stable id of the root buffer (partitioner)
  // The image's layout, or null for a buffer.
  const buffer::ImageLayout* image() const { return image_ ? &*image_ : nullptr; }
  // An image's host memory layout (CL_MEM_USE_HOST_PTR): row and slice pitch of hostPtr().
  size_t hostRowPitch() const { return hostRowPitch_; }
  size_t hostSlicePitch() const { return hostSlicePitch_; }
  cl_int imageInfo(cl_image_info param, size_t size, void* value, size_t* sizeRet) const;
  // An image's query values as the analysis reads them (analysis::kImageQueryBytes); empty for
  // a buffer.
  std::span<const std::byte> imageQueryBytes() const {
    return image_ ? std::span<const std::byte>(imageQuery_) : std::span<const std::byte>{};
  }

  // Byte ranges of this object, expressed in the root buffer's offsets.
  RangeSet toRoot(const RangeSet& ranges) const { return ranges.shifted(static_cast<int64_t>(origin_)); }
  ByteRange toRoot(ByteRange r) const { return {r.lo + origin_, r.hi + origin_}; }
  // The real buffer (or image) to bind as a kernel argument on `slot` (its copy there must be
  // whole: BufferStorage::reserveWhole).
  cl_mem realFor(unsigned slot);
  // What a partition-ready kernel is given for this buffer on `slot`: the real buffer, and the
  // window shift to subtract from it (the copy's window start minus this object's origin), so
  // that the kernel addresses this object's bytes where `slot` holds only a window of them.
  struct Bound {
    cl_mem mem = nullptr;
    int64_t shift = 0;
  };
  Bound boundFor(unsigned slot);

  // Mappings: the application's view of [offset, offset+size) at `pointer`.
  struct Mapping {
    void* pointer;
    size_t offset; // within this object
    size_t size;
    cl_map_flags flags;
    std::shared_ptr<buffer::HostBlock> block; // memory clsplit allocated (null for host_ptr)
    // An image's mapping: the box mapped and the pitches of the memory at `pointer`.
    buffer::ImageBox box;
    size_t rowPitch = 0, slicePitch = 0;
  };
  void addMapping(Mapping m);
  // Removes and returns the mapping at `pointer` (CL_INVALID_VALUE if none).
  Mapping takeMapping(void* pointer);
  cl_uint mapCount() const;

  // Up to 8 bytes at `offset` of this buffer as read earlier for the planner's indirection
  // hints (a read waits for the device: a launch that reads them every time cannot run ahead of
  // the device), if the storage has not changed since; `remember` keeps them. Call with the
  // context's planning lock held. Never for CL_MEM_USE_HOST_PTR buffers.
  std::optional<std::array<std::byte, 8>> rememberedElement(uint64_t offset, size_t width) const;
  void rememberElement(uint64_t offset, size_t width, const std::array<std::byte, 8>& bytes);

  void addDestructorCallback(void(CL_CALLBACK* fn)(cl_mem, void*), void* data);
  cl_int info(cl_mem_info param, size_t size, void* value, size_t* sizeRet) const;

private:
  std::shared_ptr<Context> context_;
  std::shared_ptr<Mem> parent_;
  std::shared_ptr<buffer::BufferStorage> storage_;
  cl_mem_flags flags_;
  std::vector<cl_mem_properties> propertiesArray_;
  size_t size_;
  size_t origin_ = 0;
  void* hostPtr_;
  bool svmBacked_ = false; // a buffer on SVM memory (Context::addSvmBacked)
  size_t hostRowPitch_ = 0, hostSlicePitch_ = 0;
  std::optional<buffer::ImageLayout> image_;
  std::array<std::byte, 24> imageQuery_{};
  void setImageQuery();                       // from image_
  std::vector<device::RealMem> bufferImages_; // a 1-D buffer image's real images, per slot
  uint64_t id_;
  mutable std::mutex mutex_;
  std::vector<Mapping> mappings_;
  struct RememberedElement {
    uint64_t generation, offset;
    size_t width;
    std::array<std::byte, 8> bytes;
  };
  std::vector<RememberedElement> remembered_; // at most kRememberedElements, newest last
  static constexpr size_t kRememberedElements = 64;
  std::vector<std::pair<void(CL_CALLBACK*)(cl_mem, void*), void*>> destructorCallbacks_;
};

} // namespace clsplit::icd
