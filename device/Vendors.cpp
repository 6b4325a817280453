// Vendor discovery: parse CLSPLIT_VENDORS, dlopen ICD libraries, enumerate platforms/devices.
#include "device/Vendors.h"

#include "device/RealCall.h"
#include "support/Log.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <sstream>

// Weak: defined in libclsplit.so (so clsplit skips itself), absent from the launcher.
extern "C" __attribute__((weak)) cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint, cl_platform_id*, cl_uint*);

namespace clsplit::device {

std::pair<int, int> openclVersion(const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "OpenCL %d.%d", &major, &minor) != 2) return {0, 0};
  return {major, minor};
}

namespace fs = std::filesystem;

namespace {

using IcdGetPlatformIDs = cl_int(CL_API_CALL*)(cl_uint, cl_platform_id*, cl_uint*);
using GetExtensionFunctionAddress = void*(CL_API_CALL*)(const char*);

std::string trim(std::string s) {
  auto notSpace = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
  s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
  return s;
}

// The library named by an .icd file (its first non-empty line).
std::string readIcdFile(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (!line.empty()) return line;
  }
  return {};
}

} // namespace

std::vector<std::string> icdLibraries(const std::string& spec) {
  std::vector<std::string> libraries;
  auto addEntry = [&](const std::string& entry) {
    std::error_code ec;
    if (fs::is_directory(entry, ec)) {
      std::vector<fs::path> icds;
      for (const auto& e : fs::directory_iterator(entry, ec))
        if (e.path().extension() == ".icd") icds.push_back(e.path());
      std::sort(icds.begin(), icds.end());
      for (const auto& icd : icds)
        if (auto lib = readIcdFile(icd); !lib.empty()) libraries.push_back(lib);
    } else if (fs::path(entry).extension() == ".icd") {
      if (auto lib = readIcdFile(entry); !lib.empty())
        libraries.push_back(lib);
      else
        log().warn("cannot read ICD file {}", entry);
    } else if (!entry.empty()) {
      libraries.push_back(entry);
    }
  };
  std::stringstream in(spec);
  std::string entry;
  while (std::getline(in, entry, ':')) addEntry(trim(entry));
  return libraries;
}

Vendors Vendors::load(const std::string& spec) {
  Vendors v;
  for (const auto& library : icdLibraries(spec)) v.addLibrary(library);
  if (v.devices_.empty()) log().warn("no real OpenCL device found (CLSPLIT_VENDORS={})", spec);
  return v;
}

void Vendors::addLibrary(const std::string& library) {
  if (fs::path(library).filename().string().rfind("libOpenCL", 0) == 0) {
    log().warn("skipping {}: an OpenCL loader, not an ICD", library);
    return;
  }
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    log().warn("cannot load ICD {}: {}", library, dlerror());
    return;
  }
  auto getPlatforms = reinterpret_cast<IcdGetPlatformIDs>(dlsym(lib, "clIcdGetPlatformIDsKHR"));
  auto gefa = reinterpret_cast<GetExtensionFunctionAddress>(dlsym(lib, "clGetExtensionFunctionAddress"));
  if (!getPlatforms && gefa) getPlatforms = reinterpret_cast<IcdGetPlatformIDs>(gefa("clIcdGetPlatformIDsKHR"));
  if (!getPlatforms) {
    log().warn("skipping {}: not an OpenCL ICD (no clIcdGetPlatformIDsKHR)", library);
    return;
  }
  if (&clIcdGetPlatformIDsKHR && getPlatforms == &clIcdGetPlatformIDsKHR) return; // clsplit itself
  Dl_info info{};
  std::string resolved = library;
  if (dladdr(reinterpret_cast<void*>(getPlatforms), &info) && info.dli_fname) resolved = info.dli_fname;
  if (std::find(loaded_.begin(), loaded_.end(), resolved) != loaded_.end()) return;
  loaded_.push_back(resolved);

  cl_uint count = 0;
  if (getPlatforms(0, nullptr, &count) != CL_SUCCESS || count == 0) {
    log().info("ICD {} reports no platform", library);
    return;
  }
  std::vector<cl_platform_id> handles(count);
  if (getPlatforms(count, handles.data(), nullptr) != CL_SUCCESS) return;

  for (cl_platform_id handle : handles) {
    RealPlatform p;
    p.index = static_cast<unsigned>(platforms_.size());
    p.handle = handle;
    p.library = resolved;
    p.exportedLookup = gefa;
    p.name = platformString(handle, CL_PLATFORM_NAME);
    p.vendor = platformString(handle, CL_PLATFORM_VENDOR);
    p.version = platformString(handle, CL_PLATFORM_VERSION);

    cl_uint n = 0;
    cl_int status = call(&cl_icd_dispatch::clGetDeviceIDs, handle, cl_device_type(CL_DEVICE_TYPE_ALL), 0u,
                         static_cast<cl_device_id*>(nullptr), &n);
    std::vector<cl_device_id> ids(n);
    if (status == CL_SUCCESS && n)
      status = call(&cl_icd_dispatch::clGetDeviceIDs, handle, cl_device_type(CL_DEVICE_TYPE_ALL), n, ids.data(),
                    static_cast<cl_uint*>(nullptr));
    if (status == CL_DEVICE_NOT_FOUND) {
      // A platform without devices here is normal (Mesa's Clover and rusticl on a machine without
      // their GPUs, or rusticl without RUSTICL_ENABLE): nothing to warn about.
      log().debug("platform {} of {}: no devices", p.name, library);
      ids.clear();
    } else if (status != CL_SUCCESS) {
      log().warn("platform {} of {}: clGetDeviceIDs failed ({})", p.name, library, errorName(status));
      ids.clear();
    }
    for (unsigned i = 0; i < ids.size(); ++i) {
      RealDevice d;
      d.index = static_cast<unsigned>(devices_.size());
      d.platform = p.index;
      d.indexInPlatform = i;
      d.handle = ids[i];
      d.name = deviceString(ids[i], CL_DEVICE_NAME);
      d.vendor = deviceString(ids[i], CL_DEVICE_VENDOR);
      d.version = deviceString(ids[i], CL_DEVICE_VERSION);
      d.openclCVersion = deviceString(ids[i], CL_DEVICE_OPENCL_C_VERSION);
      d.type = deviceValue<cl_device_type>(ids[i], CL_DEVICE_TYPE);
      d.computeUnits = deviceValue<cl_uint>(ids[i], CL_DEVICE_MAX_COMPUTE_UNITS);
      d.globalMemory = deviceValue<cl_ulong>(ids[i], CL_DEVICE_GLOBAL_MEM_SIZE);
      d.maxAlloc = deviceValue<cl_ulong>(ids[i], CL_DEVICE_MAX_MEM_ALLOC_SIZE);
      d.addressBits = deviceValue<cl_uint>(ids[i], CL_DEVICE_ADDRESS_BITS);
      p.devices.push_back(d.index);
      devices_.push_back(std::move(d));
    }
    platforms_.push_back(std::move(p));
  }
}

std::string deviceTypeName(cl_device_type type) {
  std::string s;
  auto add = [&](cl_device_type bit, const char* name) {
    if (type & bit) s += (s.empty() ? "" : "|") + std::string(name);
  };
  add(CL_DEVICE_TYPE_GPU, "GPU");
  add(CL_DEVICE_TYPE_CPU, "CPU");
  add(CL_DEVICE_TYPE_ACCELERATOR, "ACCELERATOR");
  add(CL_DEVICE_TYPE_CUSTOM, "CUSTOM");
  add(CL_DEVICE_TYPE_DEFAULT, "DEFAULT");
  return s.empty() ? "NONE" : s;
}

std::vector<std::byte> deviceInfoBytes(cl_device_id device, cl_device_info param) {
  size_t size = 0;
  if (call(&cl_icd_dispatch::clGetDeviceInfo, device, param, size_t(0), static_cast<void*>(nullptr), &size) !=
      CL_SUCCESS)
    return {};
  std::vector<std::byte> bytes(size);
  if (size && call(&cl_icd_dispatch::clGetDeviceInfo, device, param, size, static_cast<void*>(bytes.data()),
                   static_cast<size_t*>(nullptr)) != CL_SUCCESS)
    return {};
  return bytes;
}

std::string deviceString(cl_device_id device, cl_device_info param) {
  auto bytes = deviceInfoBytes(device, param);
  std::string s(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string platformString(cl_platform_id platform, cl_platform_info param) {
  size_t size = 0;
  if (call(&cl_icd_dispatch::clGetPlatformInfo, platform, param, size_t(0), static_cast<void*>(nullptr), &size) !=
      CL_SUCCESS)
    return {};
  std::string s(size, '\0');
  if (call(&cl_icd_dispatch::clGetPlatformInfo, platform, param, size, static_cast<void*>(s.data()),
           static_cast<size_t*>(nullptr)) != CL_SUCCESS)
    return {};
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

} // namespace clsplit::device
