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
#include "device/Vendors.h"
#include "icd/runtime/Runtime.h"
#include "support/Log.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>

namespace clsplit::icd::passthrough {

namespace {

struct Target {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  const cl_icd_dispatch* vendor = nullptr; // the vendor's own table, as it was
};
Target one;

cl_int CL_API_CALL getDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint entries, cl_device_id* devices,
                                cl_uint* count) {
  if (platform && platform != one.platform) return CL_INVALID_PLATFORM;
  if ((entries == 0 && devices) || (!devices && !count)) return CL_INVALID_VALUE;
  constexpr cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                   CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  if (!type || (type != CL_DEVICE_TYPE_ALL && (type & ~known))) return CL_INVALID_DEVICE_TYPE;
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

// cl_khr_icd 2 marks a vendor's table so, in its clGetPlatformIDs slot.
#if INTPTR_MAX == INT32_MAX
constexpr intptr_t kIcd2Tag = 0x434C3331;
#else
constexpr intptr_t kIcd2Tag = 0x4F50454E434C3331;
#endif

// Whether [address, address + size) lies in one mapping of this process that is readable (and
// writable, with `write`): a vendor could keep its platform object in read-only memory, or its
// dispatch table could end before clsplit's header's does; clsplit then keeps its layer.
bool mapped(const void* address, size_t size, bool write) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return false;
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool found = false;
  unsigned long long from = 0, to = 0;
  char mode[8] = {};
  char line[512];
  while (!found && std::fgets(line, sizeof line, maps))
    if (std::sscanf(line, "%llx-%llx %7s", &from, &to, mode) == 3 && at >= from && at + size <= to)
      found = mode[0] == 'r' && (!write || mode[1] == 'w');
  std::fclose(maps);
  return found;
}

// Whether the loader lists clsplit's library alone: the vendor's own entry would otherwise show
// the same (changed) platform object a second time, its other devices out of reach. The launcher
// sets OCL_ICD_VENDORS (and OCL_ICD_FILENAMES) so; /etc/OpenCL/vendors usually lists vendors.
bool loaderSeesClsplitAlone() {
  Dl_info self{};
  if (!dladdr(reinterpret_cast<void*>(&mapped), &self) || !self.dli_fname) return false;
  const std::filesystem::path ours = std::filesystem::weakly_canonical(self.dli_fname);
  auto onlyOurs = [&](const std::string& spec) {
    for (const std::string& library : device::icdLibraries(spec)) {
      std::error_code ec;
      if (std::filesystem::weakly_canonical(library, ec) != ours) return false;
    }
    return true;
  };
  // The Khronos loader reads OCL_ICD_FILENAMES too, ocl-icd does not; which one loaded clsplit
  // is not known (ocl-icd 2.3.1 has no cl_icdl query), so both are assumed.
  if (const char* files = std::getenv("OCL_ICD_FILENAMES"); files && *files && !onlyOurs(files)) return false;
  const char* vendors = std::getenv("OCL_ICD_VENDORS");
  return onlyOurs(vendors && *vendors ? vendors : "/etc/OpenCL/vendors");
}

} // namespace

bool listOneDevice(cl_platform_id platform, cl_device_id device) {
  static std::once_flag once;
  static bool done = false;
  std::call_once(once, [&] {
    auto** slot = reinterpret_cast<const cl_icd_dispatch**>(platform);
    const cl_icd_dispatch* vendor = *slot;
    const char* refused = nullptr;
    cl_uint devices = 0;
    if (!mapped(slot, sizeof *slot, true))
      refused = "the vendor's platform object is not writable";
    else if (!mapped(vendor, sizeof *vendor, false))
      refused = "the vendor's dispatch table is shorter than clsplit's";
    else if (reinterpret_cast<intptr_t>(vendor->clGetPlatformIDs) == kIcd2Tag)
      refused = "the vendor's platform uses cl_khr_icd 2's loader-managed dispatch";
    else if (!loaderSeesClsplitAlone())
      refused = "the loader also lists other libraries (OCL_ICD_FILENAMES, OCL_ICD_VENDORS or /etc/OpenCL/vendors)";
    else if (vendor->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &devices) != CL_SUCCESS)
      refused = "the vendor does not list its devices";
    if (refused) {
      log().info("{}: clsplit keeps its layer for one device of a platform that has others", refused);
      return;
    }
    one = {platform, device, vendor};
    table = *vendor;
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
        vendor->clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof back, &back, nullptr) != CL_SUCCESS ||
        back != platform) {
      *slot = vendor;
      one = {};
      log().info("the vendor's platform does not answer through a table of clsplit's: clsplit keeps its layer");
      return;
    }
    log().info("the platform {} lists that device alone of its {}", name, devices);
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
      {"clGetDeviceIDs", reinterpret_cast<void*>(&getDeviceIDs)},
      {"clCreateContext", reinterpret_cast<void*>(&createContext)},
      {"clCreateContextFromType", reinterpret_cast<void*>(&createContextFromType)},
  };
  for (const auto& entry : overridden)
    if (std::string_view(entry.name) == name) return entry.address;
  return nullptr;
}

} // namespace clsplit::icd::passthrough
