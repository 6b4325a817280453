// Stepping aside for one device of a real platform that has several (passthrough::platform): the
// loader gets the real platform, whose dispatch table clsplit has replaced by a copy of the
// vendor's in which the calls that take the platform itself list and use that device alone.
// Every other call reaches the vendor straight from the real handles (device, context, queue)
// the program holds, which name the real platform, as directly.
//
// Why the real platform, changed, rather than a platform object of clsplit's: a device handle
// leads back to its platform (CL_DEVICE_PLATFORM, CL_CONTEXT_PROPERTIES), and the Khronos loader
// hands clCreateContext, platform property included, to the first device's vendor, which knows
// its own platform only.
#include "icd/api/PassThrough.h"

#include "device/RealCall.h"
#include "icd/runtime/Runtime.h"
#include "support/Log.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <mutex>

namespace clsplit::icd::passthrough {

namespace {

struct Target {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  const cl_icd_dispatch* vendor = nullptr; // the vendor's own table, as it was
};
Target one;

cl_int CL_API_CALL getPlatformInfo(cl_platform_id platform, cl_platform_info param, size_t size, void* value,
                                   size_t* sizeRet) {
  return one.vendor->clGetPlatformInfo(platform, param, size, value, sizeRet);
}

cl_int CL_API_CALL getDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint entries, cl_device_id* devices,
                                cl_uint* count) {
  if (platform && platform != one.platform) return CL_INVALID_PLATFORM;
  if ((entries == 0 && devices) || (!devices && !count)) return CL_INVALID_VALUE;
  constexpr cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                   CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  if (type != CL_DEVICE_TYPE_ALL && (type & ~known)) return CL_INVALID_DEVICE_TYPE;
  cl_device_type its = 0;
  cl_int err = one.vendor->clGetDeviceInfo(one.device, CL_DEVICE_TYPE, sizeof its, &its, nullptr);
  if (err != CL_SUCCESS) return err;
  // The one device is the platform's default device.
  if (type != CL_DEVICE_TYPE_ALL && !(type & CL_DEVICE_TYPE_DEFAULT) && !(type & its)) return CL_DEVICE_NOT_FOUND;
  if (devices) devices[0] = one.device;
  if (count) *count = 1;
  return CL_SUCCESS;
}

cl_context CL_API_CALL createContext(const cl_context_properties* properties, cl_uint count,
                                     const cl_device_id* devices,
                                     void(CL_CALLBACK* notify)(const char*, const void*, size_t, void*), void* user,
                                     cl_int* errcodeRet) {
  // Another of the vendor's devices cannot have come from this platform: as another platform's.
  if (devices && std::any_of(devices, devices + count, [](cl_device_id d) { return d && d != one.device; })) {
    if (errcodeRet) *errcodeRet = CL_INVALID_DEVICE;
    return nullptr;
  }
  return one.vendor->clCreateContext(properties, count, devices, notify, user, errcodeRet);
}

cl_context CL_API_CALL createContextFromType(const cl_context_properties* properties, cl_device_type type,
                                             void(CL_CALLBACK* notify)(const char*, const void*, size_t, void*),
                                             void* user, cl_int* errcodeRet) {
  // The vendor's own call would take every device of the type: the one, if it is of the type.
  cl_device_id device = nullptr;
  cl_int err = getDeviceIDs(one.platform, type, 1, &device, nullptr);
  if (err != CL_SUCCESS) {
    if (errcodeRet) *errcodeRet = err;
    return nullptr;
  }
  return one.vendor->clCreateContext(properties, 1, &device, notify, user, errcodeRet);
}

cl_icd_dispatch table;

// Whether `address` lies in a writable mapping of this process (a vendor could keep its
// platform object in read-only memory: clsplit then keeps its layer instead of faulting).
bool writable(const void* address) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return false;
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool found = false;
  unsigned long long from = 0, to = 0;
  char mode[8] = {};
  char line[512];
  while (!found && std::fgets(line, sizeof line, maps))
    if (std::sscanf(line, "%llx-%llx %7s", &from, &to, mode) == 3 && at >= from && at + sizeof(void*) <= to)
      found = mode[0] == 'r' && mode[1] == 'w';
  std::fclose(maps);
  return found;
}

} // namespace

bool listOneDevice(cl_platform_id platform, cl_device_id device) {
  static std::once_flag once;
  static bool done = false;
  std::call_once(once, [&] {
    auto** slot = reinterpret_cast<const cl_icd_dispatch**>(platform);
    if (!writable(slot)) {
      log().info("the vendor's platform object is not writable: clsplit keeps its layer");
      return;
    }
    one = {platform, device, *slot};
    table = *one.vendor;
    table.clGetPlatformInfo = &getPlatformInfo;
    table.clGetDeviceIDs = &getDeviceIDs;
    table.clCreateContext = &createContext;
    table.clCreateContextFromType = &createContextFromType;
    *slot = &table;
    // What a program asks first must still hold: the vendor answers for its platform through
    // the new table, and its device names that platform.
    char name[256] = {};
    cl_platform_id back = nullptr;
    cl_uint count = 0;
    if (table.clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, nullptr) != CL_SUCCESS ||
        table.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count != 1 ||
        one.vendor->clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof back, &back, nullptr) != CL_SUCCESS ||
        back != platform) {
      *slot = one.vendor;
      log().info("the vendor's platform does not answer through a table of clsplit's: clsplit keeps its layer");
      return;
    }
    done = true;
  });
  return done;
}

void* oneDevicePlatformEntry(const char* name) {
  if (!one.platform) return nullptr;
  struct Named {
    const char* name;
    void* address;
  };
  static const Named overridden[] = {
      {"clGetPlatformInfo", reinterpret_cast<void*>(&getPlatformInfo)},
      {"clGetDeviceIDs", reinterpret_cast<void*>(&getDeviceIDs)},
      {"clCreateContext", reinterpret_cast<void*>(&createContext)},
      {"clCreateContextFromType", reinterpret_cast<void*>(&createContextFromType)},
  };
  for (const auto& entry : overridden)
    if (std::string_view(entry.name) == name) return entry.address;
  return nullptr;
}

} // namespace clsplit::icd::passthrough
