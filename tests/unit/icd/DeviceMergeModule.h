// The merge of the virtual device's info, reached through a private module: Device.cpp lives in
// the ICD core, which links Clang 16, and PoCL (loaded by the test) brings Clang 15 - unversioned
// libclang-cpp symbols of both in the global scope crash at exit. The module is loaded with
// dlopen(RTLD_LOCAL) and offers the Device through plain functions.
#pragma once

#include "device/OpenCL.h"
#include "device/Vendors.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace clsplit::test {

struct MergedLimits {
  size_t maxWorkGroupSize;
  cl_uint memBaseAddrAlign;
  cl_ulong maxMemAllocSize;
  cl_device_type type;
  size_t workItemDimensions;
  size_t maxWorkItemSizes[8];
};

struct DeviceMergeModule {
  // A clsplit::icd::Device merged from `count` real devices (override: CLSPLIT_DEVICE_TYPE's value).
  void* (*create)(const device::RealDevice* const* devices, size_t count, cl_device_type override, int openclVersion);
  const char* (*kernelPrelude)(const void* device);
  // Device::info; an Error it throws becomes its code.
  cl_int (*info)(const void* device, cl_device_info param, size_t size, void* value, size_t* sizeRet);
  void (*limits)(const void* device, MergedLimits* out);
  void (*destroy)(void* device);
  cl_device_type (*parseDeviceType)(const char* text);
};

#ifdef CLSPLIT_TEST_MERGE_MODULE // the test's side: loads the module
inline const DeviceMergeModule& deviceMergeModule() {
  static const DeviceMergeModule module = [] {
    void* library = dlopen(CLSPLIT_TEST_MERGE_MODULE, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      std::fprintf(stderr, "cannot load %s: %s\n", CLSPLIT_TEST_MERGE_MODULE, dlerror());
      std::abort();
    }
    DeviceMergeModule m{};
    auto get = [&](const char* name) {
      void* symbol = dlsym(library, name);
      if (!symbol) {
        std::fprintf(stderr, "%s lacks %s\n", CLSPLIT_TEST_MERGE_MODULE, name);
        std::abort();
      }
      return symbol;
    };
    m.create = reinterpret_cast<decltype(m.create)>(get("clsplitTestCreateDevice"));
    m.kernelPrelude = reinterpret_cast<decltype(m.kernelPrelude)>(get("clsplitTestKernelPrelude"));
    m.info = reinterpret_cast<decltype(m.info)>(get("clsplitTestDeviceInfo"));
    m.limits = reinterpret_cast<decltype(m.limits)>(get("clsplitTestDeviceLimits"));
    m.destroy = reinterpret_cast<decltype(m.destroy)>(get("clsplitTestDestroyDevice"));
    m.parseDeviceType = reinterpret_cast<decltype(m.parseDeviceType)>(get("clsplitTestParseDeviceType"));
    return m;
  }();
  return module;
}
#endif

} // namespace clsplit::test
