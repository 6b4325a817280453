// Discovery of the real OpenCL implementations clsplit drives: reads CLSPLIT_VENDORS (a
// vendors directory, or a colon-separated list of .icd files and libraries), dlopens each ICD
// library itself (skipping clsplit and loaders), and lists every real platform and device with
// a stable index.
#pragma once

#include "device/OpenCL.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace clsplit::device {

struct RealPlatform {
  unsigned index = 0;
  cl_platform_id handle = nullptr;
  std::string library; // the ICD library it came from
  // The library's exported clGetExtensionFunctionAddress (null if it has none): what a loader
  // that loaded the library itself would ask for names (clsplit's pass-through answers so).
  void* (*exportedLookup)(const char*) = nullptr;
  std::string name, vendor, version;
  std::vector<unsigned> devices; // global device indices
};

// "OpenCL <major>.<minor> ..." (CL_PLATFORM_VERSION, CL_DEVICE_VERSION) as {major, minor};
// {0, 0} if it does not read so.
std::pair<int, int> openclVersion(const std::string& version);

struct RealDevice {
  unsigned index = 0;    // stable global index: vendor order, platform order, device order
  unsigned platform = 0; // index into Vendors::platforms()
  unsigned indexInPlatform = 0;
  cl_device_id handle = nullptr;
  std::string name, vendor, version, openclCVersion;
  cl_device_type type = 0;
  cl_uint computeUnits = 0;
  cl_ulong globalMemory = 0;
  cl_ulong maxAlloc = 0; // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  cl_uint addressBits = 0;
};

// The libraries a vendors specification names, in order: a vendors directory (its .icd files,
// sorted), or a colon-separated list of .icd files and libraries (as CLSPLIT_VENDORS, and the
// loaders' OCL_ICD_VENDORS and OCL_ICD_FILENAMES, give them).
std::vector<std::string> icdLibraries(const std::string& spec);

class Vendors {
public:
  // Loads the ICDs named by `spec` (the CLSPLIT_VENDORS syntax). Problems with one entry are
  // logged and skipped; they never abort the others.
  static Vendors load(const std::string& spec);

  const std::vector<RealPlatform>& platforms() const { return platforms_; }
  const std::vector<RealDevice>& devices() const { return devices_; }

private:
  void addLibrary(const std::string& library);
  std::vector<RealPlatform> platforms_;
  std::vector<RealDevice> devices_;
  std::vector<std::string> loaded_; // resolved library paths, to load each once
};

// "GPU", "CPU", "ACCELERATOR", "GPU|CPU", ...
std::string deviceTypeName(cl_device_type type);

// Real device/platform info as a string or as a trivially copyable value.
std::string deviceString(cl_device_id device, cl_device_info param);
std::string platformString(cl_platform_id platform, cl_platform_info param);
std::vector<std::byte> deviceInfoBytes(cl_device_id device, cl_device_info param);
template <class T>
T deviceValue(cl_device_id device, cl_device_info param) {
  T value{};
  auto bytes = deviceInfoBytes(device, param);
  if (bytes.size() >= sizeof(T)) std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

} // namespace clsplit::device
