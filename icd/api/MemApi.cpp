// Entry points about memory objects. Images are not offered by the clsplit device
// (CL_DEVICE_IMAGE_SUPPORT is CL_FALSE), so image creation fails as the specification says.
#include "icd/api/Api.h"
#include "icd/objects/Device.h"
#include "icd/objects/Mem.h"

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

[[noreturn]] void noImages(cl_context context) {
  Context::from(context);
  throw Error(CL_INVALID_OPERATION, "the clsplit device does not support images");
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

cl_mem clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type,
                         const void* info, cl_int*) {
  auto parent = Mem::from(buffer);
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
  require(region->origin <= parent->size() && region->size <= parent->size() - region->origin,
          CL_INVALID_VALUE, "region is outside the buffer");
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

cl_mem clCreateImage(cl_context context, cl_mem_flags, const cl_image_format*, const cl_image_desc*,
                     void*, cl_int*) {
  noImages(context);
}

cl_mem clCreateImage2D(cl_context context, cl_mem_flags, const cl_image_format*, size_t, size_t,
                       size_t, void*, cl_int*) {
  noImages(context);
}

cl_mem clCreateImage3D(cl_context context, cl_mem_flags, const cl_image_format*, size_t, size_t,
                       size_t, size_t, size_t, void*, cl_int*) {
  noImages(context);
}

cl_int clGetSupportedImageFormats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                                  cl_uint num_entries, cl_image_format* formats, cl_uint* num_formats) {
  Context::from(context);
  checkFlags(flags & ~cl_mem_flags(CL_MEM_KERNEL_READ_AND_WRITE)); // OpenCL 2.0's read_write images
  require(type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
              type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D ||
              type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D,
          CL_INVALID_VALUE, "not an image type");
  require(!(num_entries == 0 && formats), CL_INVALID_VALUE, "num_entries is 0 with image_formats");
  if (num_formats) *num_formats = 0; // no image support: no format
  return CL_SUCCESS;
}

cl_int clGetImageInfo(cl_mem image, cl_image_info, size_t, void*, size_t*) {
  Mem::from(image);
  throw Error(CL_INVALID_MEM_OBJECT, "not an image (the clsplit device has no images)");
}

} // namespace clsplit::icd::api
