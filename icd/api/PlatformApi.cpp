// Entry points about the platform and its one device.
#include "icd/api/Api.h"
#include "icd/api/Dispatch.h"
#include "icd/objects/Device.h"
#include "icd/objects/Platform.h"

namespace clsplit::icd::api {

cl_int clGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms, cl_uint* num_platforms) {
  require(!(num_entries == 0 && platforms), CL_INVALID_VALUE, "num_entries is 0 with platforms");
  require(platforms || num_platforms, CL_INVALID_VALUE, "platforms and num_platforms are NULL");
  if (platforms) platforms[0] = Platform::instance().handle();
  if (num_platforms) *num_platforms = 1;
  return CL_SUCCESS;
}

cl_int clGetPlatformInfo(cl_platform_id platform, cl_platform_info param, size_t size, void* value, size_t* size_ret) {
  return platformOrDefault(platform).info(param, size, value, size_ret);
}

cl_int clGetDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint num_entries, cl_device_id* devices,
                      cl_uint* num_devices) {
  platformOrDefault(platform);
  constexpr cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                   CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  require(type == CL_DEVICE_TYPE_ALL || (type && !(type & ~known)), CL_INVALID_DEVICE_TYPE, "invalid device_type");
  require(!(num_entries == 0 && devices), CL_INVALID_VALUE, "num_entries is 0 with devices");
  require(devices || num_devices, CL_INVALID_VALUE, "devices and num_devices are NULL");
  Device* device = Device::instance();
  bool matches = device && (type == CL_DEVICE_TYPE_ALL || (type & CL_DEVICE_TYPE_DEFAULT) || (type & device->type()));
  if (!matches) throw Error(CL_DEVICE_NOT_FOUND, "no device of the requested type");
  if (devices) devices[0] = device->handle();
  if (num_devices) *num_devices = 1;
  return CL_SUCCESS;
}

cl_int clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t size, void* value, size_t* size_ret) {
  return Device::from(device)->info(param, size, value, size_ret);
}

cl_int clCreateSubDevices(cl_device_id in_device, const cl_device_partition_property* properties, cl_uint,
                          cl_device_id*, cl_uint*) {
  Device::from(in_device);
  require(properties != nullptr, CL_INVALID_VALUE, "properties is NULL");
  throw Error(CL_INVALID_VALUE, "the clsplit device cannot be partitioned");
}

cl_int clRetainDevice(cl_device_id device) {
  Device::from(device); // root devices: reference counting has no effect
  return CL_SUCCESS;
}

cl_int clReleaseDevice(cl_device_id device) {
  Device::from(device);
  return CL_SUCCESS;
}

void* clGetExtensionFunctionAddress(const char* name) { return entryPointAddress(name); }

void* clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char* name) {
  if (!Platform::tryFrom(platform)) return nullptr;
  return entryPointAddress(name);
}

cl_int clUnloadCompiler() { return CL_SUCCESS; }

cl_int clUnloadPlatformCompiler(cl_platform_id platform) {
  Platform::from(platform);
  return CL_SUCCESS;
}

} // namespace clsplit::icd::api
