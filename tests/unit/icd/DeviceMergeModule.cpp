// The private module of DeviceMergeModule.h: clsplit::icd::Device behind plain functions.
#include "tests/unit/icd/DeviceMergeModule.h"

#include "device/Error.h"
#include "icd/objects/Device.h"

#include <algorithm>

#define CLSPLIT_TEST_EXPORT extern "C" __attribute__((visibility("default")))

using clsplit::icd::Device;

CLSPLIT_TEST_EXPORT void* clsplitTestCreateDevice(const clsplit::device::RealDevice* const* devices, size_t count,
                                                  cl_device_type override, int openclVersion) {
  return new Device(std::vector<const clsplit::device::RealDevice*>(devices, devices + count), override, openclVersion);
}

CLSPLIT_TEST_EXPORT const char* clsplitTestKernelPrelude(const void* device) {
  return static_cast<const Device*>(device)->kernelPrelude().c_str();
}

CLSPLIT_TEST_EXPORT cl_int clsplitTestDeviceInfo(const void* device, cl_device_info param, size_t size, void* value,
                                                 size_t* sizeRet) {
  try {
    return static_cast<const Device*>(device)->info(param, size, value, sizeRet);
  } catch (const clsplit::Error& e) {
    return e.code();
  }
}

CLSPLIT_TEST_EXPORT void clsplitTestDeviceLimits(const void* device, clsplit::test::MergedLimits* out) {
  const auto* d = static_cast<const Device*>(device);
  out->maxWorkGroupSize = d->maxWorkGroupSize();
  out->memBaseAddrAlign = d->memBaseAddrAlign();
  out->maxMemAllocSize = d->maxMemAllocSize();
  out->type = d->type();
  auto sizes = d->maxWorkItemSizes();
  out->workItemDimensions = std::min<size_t>(sizes.size(), 8);
  for (size_t i = 0; i < out->workItemDimensions; ++i) out->maxWorkItemSizes[i] = sizes[i];
}

CLSPLIT_TEST_EXPORT void clsplitTestDestroyDevice(void* device) { delete static_cast<Device*>(device); }

CLSPLIT_TEST_EXPORT cl_device_type clsplitTestParseDeviceType(const char* text) {
  return clsplit::icd::parseDeviceType(text);
}
