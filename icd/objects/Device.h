// The one virtual device the application sees: its info is a conservative merge of the
// selected real devices (minimum of limits, common extensions, minimum OpenCL C version), as an
// OpenCL 3.0 device with the optional features all of them have and clsplit supports (or 1.2).
#pragma once

#include "icd/objects/InfoQuery.h"
#include "icd/objects/Object.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clsplit::device {
struct RealDevice;
}

namespace clsplit::icd {

struct MemorySettings;

class Device final : public TypedObject<Device, _cl_device_id, ObjectKind::Device, CL_INVALID_DEVICE> {
public:
  // The device merged from the runtime's selected devices (nullptr when none is selected).
  static Device* instance();
  // Builds the merged info from `devices` (exposed for unit tests). With `memory`, and windows
  // possible (several real devices), the global memory and largest allocation are those the
  // selection can hold together (docs/configuration.md: CLSPLIT_WINDOWS). `onlySlot`: the one
  // device that runs every launch (partition::Partitioner::onlyDevice), if any; `homeSlot`: the
  // one that runs what is not split (partition::Partitioner::homeDevice).
  explicit Device(const std::vector<const device::RealDevice*>& devices, cl_device_type typeOverride = 0,
                  int openclVersion = 300, const MemorySettings* memory = nullptr,
                  std::optional<unsigned> onlySlot = std::nullopt, unsigned homeSlot = 0);

  cl_int info(cl_device_info param, size_t size, void* value, size_t* sizeRet) const;
  cl_device_type type() const { return type_; }
  const std::vector<const device::RealDevice*>& realDevices() const { return devices_; }

  // Merged values the runtime itself checks against (validation of launches, sub-buffers).
  size_t maxWorkGroupSize() const { return maxWorkGroupSize_; }
  std::vector<size_t> maxWorkItemSizes() const { return maxWorkItemSizes_; }
  cl_uint memBaseAddrAlign() const { return memBaseAddrAlign_; } // bits
  cl_ulong maxMemAllocSize() const { return maxMemAllocSize_; }
  // CL_DEVICE_IMAGE_SUPPORT (every real device has images), and an image size limit
  // (CL_DEVICE_IMAGE2D_MAX_WIDTH, ...; 0 without images).
  bool imageSupport() const { return imageSupport_; }
  // CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: OpenCL 3.0 reported and every real device has it.
  bool nonUniformWorkGroups() const { return nonUniformWorkGroups_; }
  // Kernels may write 3-D images (cl_khr_3d_image_writes on every device).
  bool imageWrites3d() const { return imageWrites3d_; }
  size_t imageLimit(cl_device_info param) const {
    auto it = imageLimits_.find(param);
    return it == imageLimits_.end() ? 0 : it->second;
  }
  // The slot whose device's shared virtual memory the clsplit device offers (the one running
  // every launch, else the home device if it has SVM, else the next that has; never an NVIDIA
  // GPU sharing its context with another): clSVMAlloc allocates there, and kernels given SVM
  // pointers run whole there (an SVM pointer is one vendor's). None: no SVM reported.
  std::optional<unsigned> svmSlot() const { return svmSlot_; }
  // CL_DEVICE_OPENCL_C_VERSION as {major, minor}.
  std::pair<int, int> cLanguageVersion() const { return cLanguageVersion_; }
  // The OpenCL version reported: 300 or 120 (CLSPLIT_OPENCL_VERSION).
  int openclVersion() const { return openclVersion_; }
  // What precedes a program's source in the real builds, so that its kernels see this device
  // (LanguageFeatures.h: kernelPrelude).
  const std::string& kernelPrelude() const { return kernelPrelude_; }
  // The macros that prelude makes the same for every vendor (and for clsplit's analysis, which
  // includes the same text).
  std::vector<std::string> pinnedMacros() const;

private:
  std::vector<const device::RealDevice*> devices_;
  std::map<cl_device_info, InfoValue> info_;
  cl_device_type type_ = 0;
  size_t maxWorkGroupSize_ = 0;
  std::vector<size_t> maxWorkItemSizes_;
  cl_uint memBaseAddrAlign_ = 0;
  cl_ulong maxMemAllocSize_ = 0;
  bool imageSupport_ = false, imageWrites3d_ = false;
  std::map<cl_device_info, size_t> imageLimits_;
  std::pair<int, int> cLanguageVersion_{1, 2};
  int openclVersion_ = 300;
  bool nonUniformWorkGroups_ = false;
  std::optional<unsigned> svmSlot_;
  std::optional<unsigned> onlySlot_;
  unsigned homeSlot_ = 0;
  std::string kernelPrelude_;
  std::vector<std::string> knownFeatures_; // every feature a real device lists
  void addOpenCL30Info();                  // the queries OpenCL 2.x/3.0 added
};

// Parses CLSPLIT_DEVICE_TYPE ("gpu", "cpu,gpu" or "cpu|gpu", ...); 0 when empty or invalid.
cl_device_type parseDeviceType(const std::string& text);

} // namespace clsplit::icd
