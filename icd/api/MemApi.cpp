// Entry points about memory objects: buffers, sub-buffers and images (where every device has
// images: CL_DEVICE_IMAGE_SUPPORT), and shared virtual memory (one device's: Device::svmSlot).
#include "icd/api/Api.h"
#include "icd/objects/Device.h"
#include "icd/objects/Mem.h"
#include "support/Log.h"

#include <string>

namespace clsplit::icd::api {

namespace {

constexpr cl_mem_flags kAccess = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
constexpr cl_mem_flags kHost = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
constexpr cl_mem_flags kHostAccess = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;

bool atMostOne(cl_mem_flags flags, cl_mem_flags group) {
  cl_mem_flags f = flags & group;
  return (f & (f - 1)) == 0;
}

void checkFlags(cl_mem_flags flags) {
  require(!(flags & ~(kAccess | kHost | kHostAccess)), CL_INVALID_VALUE, "unknown memory flags");
  require(atMostOne(flags, kAccess), CL_INVALID_VALUE, "conflicting access flags");
  require(atMostOne(flags, kHostAccess), CL_INVALID_VALUE, "conflicting host access flags");
  require(!((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR))),
          CL_INVALID_VALUE, "CL_MEM_USE_HOST_PTR with ALLOC/COPY_HOST_PTR");
}

} // namespace

cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host_ptr, cl_int*) {
  auto c = Context::from(context);
  if (!(flags & kAccess)) flags |= CL_MEM_READ_WRITE;
  checkFlags(flags);
  require(size > 0 && size <= c->device().maxMemAllocSize(), CL_INVALID_BUFFER_SIZE,
          "size is 0 or larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  bool needsPtr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  require(needsPtr == (host_ptr != nullptr), CL_INVALID_HOST_PTR,
          "host_ptr must be given exactly with USE_HOST_PTR or COPY_HOST_PTR");
  return std::make_shared<Mem>(c, flags, size, host_ptr)->publishHandle();
}

cl_mem clCreateBufferWithProperties(cl_context context, const cl_mem_properties* properties, cl_mem_flags flags,
                                    size_t size, void* host_ptr, cl_int* errcode_ret) {
  Context::from(context);
  // OpenCL 3.0 defines no buffer property (extensions do, none of which the device offers).
  require(!properties || properties[0] == 0, CL_INVALID_PROPERTY, "unknown buffer property");
  cl_mem mem = api::clCreateBuffer(context, flags, size, host_ptr, errcode_ret);
  if (properties) Mem::from(mem)->setPropertiesArray({0});
  return mem;
}

cl_mem clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type, const void* info, cl_int*) {
  auto parent = Mem::from(buffer);
  require(parent->image() == nullptr, CL_INVALID_MEM_OBJECT, "buffer is an image");
  require(parent->parent() == nullptr, CL_INVALID_MEM_OBJECT, "buffer is itself a sub-buffer");
  require(type == CL_BUFFER_CREATE_TYPE_REGION, CL_INVALID_VALUE, "unknown buffer_create_type");
  require(info != nullptr, CL_INVALID_VALUE, "buffer_create_info is NULL");
  require(!(flags & kHost), CL_INVALID_VALUE, "host pointer flags are not allowed for sub-buffers");
  checkFlags(flags);
  // Access flags are inherited, and may not widen the parent's.
  cl_mem_flags pf = parent->flags();
  if (!(flags & kAccess)) flags |= pf & kAccess;
  require(!((pf & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) &&
              !((pf & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))),
          CL_INVALID_VALUE, "sub-buffer access flags conflict with the buffer's");
  if (!(flags & kHostAccess)) flags |= pf & kHostAccess;
  require(!((pf & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY)) &&
              !((pf & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY)) &&
              !((pf & CL_MEM_HOST_NO_ACCESS) && (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))),
          CL_INVALID_VALUE, "sub-buffer host access flags conflict with the buffer's");
  flags |= pf & kHost;
  const auto* region = static_cast<const cl_buffer_region*>(info);
  require(region->size > 0, CL_INVALID_BUFFER_SIZE, "region size is 0");
  require(region->origin <= parent->size() && region->size <= parent->size() - region->origin, CL_INVALID_VALUE,
          "region is outside the buffer");
  cl_uint alignBytes = parent->context().device().memBaseAddrAlign() / 8;
  require(alignBytes == 0 || region->origin % alignBytes == 0, CL_MISALIGNED_SUB_BUFFER_OFFSET,
          "origin is not aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN");
  return std::make_shared<Mem>(parent, flags, region->origin, region->size)->publishHandle();
}

cl_int clRetainMemObject(cl_mem mem) {
  Mem::from(mem)->retain();
  return CL_SUCCESS;
}

cl_int clReleaseMemObject(cl_mem mem) {
  Mem::from(mem)->releaseHandle();
  return CL_SUCCESS;
}

cl_int clGetMemObjectInfo(cl_mem mem, cl_mem_info param, size_t size, void* value, size_t* size_ret) {
  return Mem::from(mem)->info(param, size, value, size_ret);
}

cl_int clSetMemObjectDestructorCallback(cl_mem mem, void(CL_CALLBACK* fn)(cl_mem, void*), void* data) {
  Mem::from(mem)->addDestructorCallback(fn, data);
  return CL_SUCCESS;
}

cl_mem clCreateImage(cl_context context, cl_mem_flags flags, const cl_image_format* format, const cl_image_desc* desc,
                     void* host_ptr, cl_int*) {
  auto c = Context::from(context);
  const Device& device = c->device();
  require(device.imageSupport(), CL_INVALID_OPERATION, "the clsplit device does not support images");
  // A 1-D buffer image takes its buffer's access unless it names its own.
  std::shared_ptr<Mem> buffer;
  if (desc && desc->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    buffer = Mem::tryFrom(desc->buffer);
    require(buffer && !buffer->image() && &buffer->context() == c.get(), CL_INVALID_IMAGE_DESCRIPTOR,
            "a 1-D buffer image needs a buffer of this context");
    require(!(flags & kHost), CL_INVALID_VALUE, "host pointer flags are not allowed for a 1-D buffer image");
    const cl_mem_flags bf = buffer->flags();
    if (!(flags & kAccess)) flags |= bf & kAccess;
    require(!((bf & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) &&
                !((bf & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))),
            CL_INVALID_VALUE, "the image's access flags conflict with its buffer's");
    if (!(flags & kHostAccess)) flags |= bf & kHostAccess;
  }
  if (!(flags & kAccess)) flags |= CL_MEM_READ_WRITE;
  checkFlags(flags & ~cl_mem_flags(CL_MEM_KERNEL_READ_AND_WRITE));
  require(format != nullptr, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "image_format is NULL");
  const size_t pixel = buffer::pixelSize(*format);
  require(pixel != 0, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
          "unknown channel order or data type, or a pair OpenCL does not allow");
  require(desc != nullptr, CL_INVALID_IMAGE_DESCRIPTOR, "image_desc is NULL");
  const cl_mem_object_type type = desc->image_type;
  require(type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
              type == CL_MEM_OBJECT_IMAGE1D_BUFFER || type == CL_MEM_OBJECT_IMAGE2D ||
              type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D,
          CL_INVALID_IMAGE_DESCRIPTOR, "image_type is not an image type");
  require(desc->num_mip_levels == 0 && desc->num_samples == 0, CL_INVALID_IMAGE_DESCRIPTOR,
          "num_mip_levels and num_samples must be 0");
  // 2-D images of buffers (cl_khr_image2d_from_buffer, CL_DEVICE_IMAGE_PITCH_ALIGNMENT 0) are not
  // offered.
  require(desc->mem_object == nullptr || type == CL_MEM_OBJECT_IMAGE1D_BUFFER || type == CL_MEM_OBJECT_IMAGE2D,
          CL_INVALID_IMAGE_DESCRIPTOR, "mem_object is given for an image type not made from a buffer");
  require(!(type == CL_MEM_OBJECT_IMAGE2D && desc->mem_object), CL_INVALID_OPERATION,
          "2-D images made from buffers are not supported by the clsplit device");
  auto within = [&](size_t v, cl_device_info limit, const char* what) {
    if (v == 0 || v > device.imageLimit(limit))
      throw Error(CL_INVALID_IMAGE_SIZE, std::string(what) + " is 0 or larger than the device allows");
  };
  const bool is3d = type == CL_MEM_OBJECT_IMAGE3D;
  within(desc->image_width,
         is3d     ? CL_DEVICE_IMAGE3D_MAX_WIDTH
         : buffer ? CL_DEVICE_IMAGE_MAX_BUFFER_SIZE
                  : CL_DEVICE_IMAGE2D_MAX_WIDTH,
         "image_width");
  if (type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || is3d)
    within(desc->image_height, is3d ? CL_DEVICE_IMAGE3D_MAX_HEIGHT : CL_DEVICE_IMAGE2D_MAX_HEIGHT, "image_height");
  if (is3d) within(desc->image_depth, CL_DEVICE_IMAGE3D_MAX_DEPTH, "image_depth");
  if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
    within(desc->image_array_size, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, "image_array_size");
  const bool needsPtr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  require(needsPtr == (host_ptr != nullptr), CL_INVALID_HOST_PTR,
          "host_ptr must be given exactly with USE_HOST_PTR or COPY_HOST_PTR");
  const buffer::ImageLayout layout(*format, *desc, flags & (kAccess | CL_MEM_KERNEL_READ_AND_WRITE));
  const bool layered = type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || is3d;
  if (!host_ptr)
    require(desc->image_row_pitch == 0 && desc->image_slice_pitch == 0, CL_INVALID_IMAGE_DESCRIPTOR,
            "row and slice pitch must be 0 without host_ptr");
  const size_t rowPitch = desc->image_row_pitch ? desc->image_row_pitch : layout.rowPitch();
  require(rowPitch >= layout.rowPitch() && rowPitch % pixel == 0, CL_INVALID_IMAGE_DESCRIPTOR,
          "image_row_pitch is smaller than a row or not a multiple of the element size");
  if (layered && desc->image_slice_pitch) {
    const size_t rows = type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : desc->image_height;
    require(desc->image_slice_pitch >= rowPitch * rows && desc->image_slice_pitch % rowPitch == 0,
            CL_INVALID_IMAGE_DESCRIPTOR,
            "image_slice_pitch is smaller than a slice or not a multiple of the row pitch");
  }
  require(layout.bytes() <= device.maxMemAllocSize(), CL_INVALID_IMAGE_SIZE,
          "the image is larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  require(c->imageFormatSupported(flags & (kAccess | CL_MEM_KERNEL_READ_AND_WRITE), type, *format),
          CL_IMAGE_FORMAT_NOT_SUPPORTED, "the image format is not supported by every device for these flags");
  if (buffer) {
    require(layout.bytes() <= buffer->size(), CL_INVALID_IMAGE_SIZE, "the image is larger than its buffer");
    return std::make_shared<Mem>(buffer, flags, layout)->publishHandle();
  }
  return std::make_shared<Mem>(c, flags, layout, host_ptr, host_ptr ? rowPitch : 0,
                               host_ptr && layered ? desc->image_slice_pitch : 0)
      ->publishHandle();
}

cl_mem clCreateImageWithProperties(cl_context context, const cl_mem_properties* properties, cl_mem_flags flags,
                                   const cl_image_format* format, const cl_image_desc* desc, void* host_ptr,
                                   cl_int* errcode_ret) {
  Context::from(context);
  require(!properties || properties[0] == 0, CL_INVALID_PROPERTY, "unknown image property");
  cl_mem mem = api::clCreateImage(context, flags, format, desc, host_ptr, errcode_ret);
  if (properties) Mem::from(mem)->setPropertiesArray({0});
  return mem;
}

cl_mem clCreateImage2D(cl_context context, cl_mem_flags flags, const cl_image_format* format, size_t width,
                       size_t height, size_t rowPitch, void* host_ptr, cl_int* errcode_ret) {
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = width;
  desc.image_height = height;
  desc.image_row_pitch = rowPitch;
  return api::clCreateImage(context, flags, format, &desc, host_ptr, errcode_ret);
}

cl_mem clCreateImage3D(cl_context context, cl_mem_flags flags, const cl_image_format* format, size_t width,
                       size_t height, size_t depth, size_t rowPitch, size_t slicePitch, void* host_ptr,
                       cl_int* errcode_ret) {
  // OpenCL 1.1's 3-D images have at least two slices.
  require(depth > 1, CL_INVALID_IMAGE_SIZE, "image_depth must be at least 2");
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE3D;
  desc.image_width = width;
  desc.image_height = height;
  desc.image_depth = depth;
  desc.image_row_pitch = rowPitch;
  desc.image_slice_pitch = slicePitch;
  return api::clCreateImage(context, flags, format, &desc, host_ptr, errcode_ret);
}

cl_int clGetSupportedImageFormats(cl_context context, cl_mem_flags flags, cl_mem_object_type type, cl_uint num_entries,
                                  cl_image_format* formats, cl_uint* num_formats) {
  auto c = Context::from(context);
  checkFlags(flags & ~cl_mem_flags(CL_MEM_KERNEL_READ_AND_WRITE)); // OpenCL 2.0's read_write images
  require(type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
              type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D ||
              type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D,
          CL_INVALID_VALUE, "not an image type");
  require(!(num_entries == 0 && formats), CL_INVALID_VALUE, "num_entries is 0 with image_formats");
  if (!(flags & (kAccess | CL_MEM_KERNEL_READ_AND_WRITE))) flags |= CL_MEM_READ_WRITE;
  const std::vector<cl_image_format> common =
      c->device().imageSupport() ? c->supportedImageFormats(flags & (kAccess | CL_MEM_KERNEL_READ_AND_WRITE), type)
                                 : std::vector<cl_image_format>{};
  if (formats)
    for (size_t i = 0; i < common.size() && i < num_entries; ++i) formats[i] = common[i];
  if (num_formats) *num_formats = static_cast<cl_uint>(common.size());
  return CL_SUCCESS;
}

cl_int clGetImageInfo(cl_mem image, cl_image_info param, size_t size, void* value, size_t* size_ret) {
  auto mem = Mem::from(image);
  require(mem->image() != nullptr, CL_INVALID_MEM_OBJECT, "not an image");
  return mem->imageInfo(param, size, value, size_ret);
}

// --- Shared virtual memory ----------------------------------------------------------------------

void* clSVMAlloc(cl_context context, cl_svm_mem_flags flags, size_t size, cl_uint alignment) {
  auto c = Context::from(context);
  const auto slot = c->device().svmSlot();
  require(slot.has_value(), CL_INVALID_OPERATION, "no device of the context offers shared virtual memory");
  // The vendor checks flags, size and alignment against its device, whose capabilities these are.
  void* pointer = device::call(&cl_icd_dispatch::clSVMAlloc, c->slot(*slot).context, flags, size, alignment);
  if (!pointer) {
    log().debug("clSVMAlloc: the device of slot {} allocated nothing ({} bytes, flags {:#x}, alignment {})", *slot,
                size, flags, alignment);
    return nullptr;
  }
  c->svm().add(pointer, size, flags);
  return pointer;
}

void clSVMFree(cl_context context, void* pointer) {
  auto c = Context::from(context);
  if (!pointer) return;
  const auto slot = c->device().svmSlot();
  const auto allocation = c->svm().find(pointer);
  if (!slot || !allocation || allocation->base != pointer || !c->svm().remove(pointer)) {
    log().warn("clSVMFree: {} is not an SVM allocation of this context; nothing freed", pointer);
    return;
  }
  c->forgetRetiredSvmBacked(allocation->base, allocation->size);
  // Not waiting for the application's commands that use it (the specification's rule: the
  // application waits), but for clsplit's own reads into it (buffers made on it brought home).
  if (auto reads = c->svmHomeReadsIn(allocation->base, allocation->size); !reads.empty())
    device::allOf(std::move(reads))->wait();
  device::call(&cl_icd_dispatch::clSVMFree, c->slot(*slot).context, pointer);
}

} // namespace clsplit::icd::api
