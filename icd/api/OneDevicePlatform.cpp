// The platform clsplit hands out when it steps aside for one device of a real platform that has
// several (passthrough::platform): the vendor's dispatch table, with the calls that take the
// platform itself answered here so that the program sees that device alone. Every other call
// reaches the vendor straight from the real handles (device, context, queue) the program holds.
#include "icd/api/PassThrough.h"

#include "device/RealCall.h"
#include "icd/runtime/Runtime.h"

#include <algorithm>
#include <vector>

namespace clsplit::icd::passthrough {

namespace {

// What the loader holds: by the ICD convention, the dispatch table first.
struct OneDevicePlatform {
  const cl_icd_dispatch* dispatch;
};

struct Target {
  cl_platform_id real = nullptr;
  cl_device_id device = nullptr;
  const cl_icd_dispatch* vendor = nullptr;
};

const Target& target() {
  static const Target t = [] {
    Target made;
    const DeviceSlot* slot = passthrough::target();
    if (!slot) return made;
    made.real = runtime::Runtime::get().vendors().platforms()[slot->platform].handle;
    made.device = slot->device->handle;
    made.vendor = &device::dispatchOf(made.real);
    return made;
  }();
  return t;
}

OneDevicePlatform& instance();

bool isOurs(cl_platform_id platform) { return platform == reinterpret_cast<cl_platform_id>(&instance()); }

// The properties with our platform replaced by the real one (the vendor knows only its own).
std::vector<cl_context_properties> realProperties(const cl_context_properties* properties) {
  std::vector<cl_context_properties> out;
  if (!properties) return out;
  for (const cl_context_properties* p = properties; *p; p += 2) {
    out.push_back(p[0]);
    out.push_back(p[0] == CL_CONTEXT_PLATFORM && isOurs(reinterpret_cast<cl_platform_id>(p[1]))
                      ? reinterpret_cast<cl_context_properties>(target().real)
                      : p[1]);
  }
  out.push_back(0);
  return out;
}

cl_int CL_API_CALL getPlatformInfo(cl_platform_id platform, cl_platform_info param, size_t size, void* value,
                                   size_t* sizeRet) {
  if (!isOurs(platform)) return CL_INVALID_PLATFORM;
  return target().vendor->clGetPlatformInfo(target().real, param, size, value, sizeRet);
}

cl_int CL_API_CALL getDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint entries, cl_device_id* devices,
                                cl_uint* count) {
  if (platform && !isOurs(platform)) return CL_INVALID_PLATFORM;
  if ((entries == 0 && devices) || (!devices && !count)) return CL_INVALID_VALUE;
  constexpr cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                   CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  if (type != CL_DEVICE_TYPE_ALL && (type & ~known)) return CL_INVALID_DEVICE_TYPE;
  cl_device_type its = 0;
  cl_int err = target().vendor->clGetDeviceInfo(target().device, CL_DEVICE_TYPE, sizeof its, &its, nullptr);
  if (err != CL_SUCCESS) return err;
  // The one device is the platform's default device.
  if (type != CL_DEVICE_TYPE_ALL && !(type & CL_DEVICE_TYPE_DEFAULT) && !(type & its)) return CL_DEVICE_NOT_FOUND;
  if (devices) devices[0] = target().device;
  if (count) *count = 1;
  return CL_SUCCESS;
}

cl_context CL_API_CALL createContext(const cl_context_properties* properties, cl_uint count,
                                     const cl_device_id* devices,
                                     void(CL_CALLBACK* notify)(const char*, const void*, size_t, void*), void* user,
                                     cl_int* errcodeRet) {
  // A device the program cannot have been given (another of the vendor's): as another
  // platform's device would be.
  if (devices && std::any_of(devices, devices + count, [](cl_device_id d) { return d && d != target().device; })) {
    if (errcodeRet) *errcodeRet = CL_INVALID_DEVICE;
    return nullptr;
  }
  auto real = realProperties(properties);
  return target().vendor->clCreateContext(properties ? real.data() : nullptr, count, devices, notify, user,
                                          errcodeRet);
}

cl_context CL_API_CALL createContextFromType(const cl_context_properties* properties, cl_device_type type,
                                             void(CL_CALLBACK* notify)(const char*, const void*, size_t, void*),
                                             void* user, cl_int* errcodeRet) {
  // Of this platform's devices: the one (the vendor's own call would take all of its type).
  cl_device_id device = nullptr;
  cl_int err = getDeviceIDs(reinterpret_cast<cl_platform_id>(&instance()), type, 1, &device, nullptr);
  if (err != CL_SUCCESS) {
    if (errcodeRet) *errcodeRet = err;
    return nullptr;
  }
  auto real = realProperties(properties);
  return target().vendor->clCreateContext(properties ? real.data() : nullptr, 1, &device, notify, user, errcodeRet);
}

void* CL_API_CALL extensionFunctionAddressForPlatform(cl_platform_id platform, const char* name) {
  if (!isOurs(platform)) return nullptr;
  return target().vendor->clGetExtensionFunctionAddressForPlatform(target().real, name);
}

cl_int CL_API_CALL unloadPlatformCompiler(cl_platform_id platform) {
  if (!isOurs(platform)) return CL_INVALID_PLATFORM;
  return target().vendor->clUnloadPlatformCompiler(target().real);
}

const cl_icd_dispatch* table() {
  static const cl_icd_dispatch made = [] {
    cl_icd_dispatch t = *target().vendor;
    t.clGetPlatformInfo = &getPlatformInfo;
    t.clGetDeviceIDs = &getDeviceIDs;
    t.clCreateContext = &createContext;
    t.clCreateContextFromType = &createContextFromType;
    t.clGetExtensionFunctionAddressForPlatform = &extensionFunctionAddressForPlatform;
    t.clUnloadPlatformCompiler = &unloadPlatformCompiler;
    return t;
  }();
  return &made;
}

OneDevicePlatform& instance() {
  static OneDevicePlatform platform{table()};
  return platform;
}

} // namespace

cl_platform_id oneDevicePlatform() { return reinterpret_cast<cl_platform_id>(&instance()); }

void* oneDevicePlatformEntry(const char* name) {
  struct Named {
    const char* name;
    void* address;
  };
  static const Named overridden[] = {
      {"clGetPlatformInfo", reinterpret_cast<void*>(&getPlatformInfo)},
      {"clGetDeviceIDs", reinterpret_cast<void*>(&getDeviceIDs)},
      {"clCreateContext", reinterpret_cast<void*>(&createContext)},
      {"clCreateContextFromType", reinterpret_cast<void*>(&createContextFromType)},
      {"clGetExtensionFunctionAddressForPlatform", reinterpret_cast<void*>(&extensionFunctionAddressForPlatform)},
      {"clUnloadPlatformCompiler", reinterpret_cast<void*>(&unloadPlatformCompiler)},
  };
  for (const auto& entry : overridden)
    if (std::string_view(entry.name) == name) return entry.address;
  return nullptr;
}

} // namespace clsplit::icd::passthrough
