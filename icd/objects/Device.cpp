// The merge rules of the virtual device's info, one row per query.
#include "icd/objects/Device.h"

#include "icd/objects/MemorySettings.h"

#include "device/Vendors.h"
#include "icd/objects/Environment.h"
#include "icd/objects/LanguageFeatures.h"
#include "icd/objects/Platform.h"
#include "support/Log.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#ifndef CLSPLIT_VERSION
#define CLSPLIT_VERSION "0.0.0"
#endif

namespace clsplit::icd {

namespace {

// A real device's OpenCL major version (0 if unreadable).
int openclMajor(const device::RealDevice& d) { return device::openclVersion(d.version).first; }

// NVIDIA's OpenCL (driver 580) crashes in clEnqueueSVMMap on a context holding two of its GPUs,
// directly as through clsplit (a 30-line program on two H200s): its SVM is not offered where
// clsplit's context for it (one per platform, Context.cpp) holds another NVIDIA device.
bool svmUnsafeInSharedContext(const device::RealDevice& d, const std::vector<const device::RealDevice*>& selected) {
  auto nvidia = [](const device::RealDevice& x) { return x.vendor.find("NVIDIA") != std::string::npos; };
  if (!nvidia(d)) return false;
  return std::any_of(selected.begin(), selected.end(), [&](const device::RealDevice* other) {
    return other->platform == d.platform && other->handle != d.handle && nvidia(*other);
  });
}

enum class Kind { U32, U64, Size, Bool, Bits };
enum class Merge { Min, Max, Sum, And, BitAnd };

struct Rule {
  cl_device_info param;
  Kind kind;
  Merge merge;
};

// Queries whose merged value follows from the real devices' values.
const Rule kRules[] = {
    {CL_DEVICE_MAX_COMPUTE_UNITS, Kind::U32, Merge::Sum},
    {CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, Kind::U32, Merge::Min},
    {CL_DEVICE_MAX_WORK_GROUP_SIZE, Kind::Size, Merge::Min},
    {CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, Kind::U32, Merge::Min},
    {CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, Kind::U32, Merge::Min},
    {CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, Kind::U32, Merge::Min},
    {CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, Kind::U32, Merge::Min},
    {CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, Kind::U32, Merge::Min},
    {CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, Kind::U32, Merge::Min},
    {CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, Kind::U32, Merge::Min},
    {CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, Kind::U32, Merge::Min},
    {CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, Kind::U32, Merge::Min},
    {CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, Kind::U32, Merge::Min},
    {CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, Kind::U32, Merge::Min},
    {CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, Kind::U32, Merge::Min},
    {CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, Kind::U32, Merge::Min},
    {CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, Kind::U32, Merge::Min},
    {CL_DEVICE_MAX_CLOCK_FREQUENCY, Kind::U32, Merge::Max},
    {CL_DEVICE_ADDRESS_BITS, Kind::U32, Merge::Max}, // equal by construction (Runtime)
    {CL_DEVICE_MAX_MEM_ALLOC_SIZE, Kind::U64, Merge::Min},
    {CL_DEVICE_MEM_BASE_ADDR_ALIGN, Kind::U32, Merge::Max},
    {CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, Kind::U32, Merge::Max},
    {CL_DEVICE_SINGLE_FP_CONFIG, Kind::Bits, Merge::BitAnd},
    {CL_DEVICE_DOUBLE_FP_CONFIG, Kind::Bits, Merge::BitAnd},
    {CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, Kind::U32, Merge::Min},
    {CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, Kind::U32, Merge::Min},
    {CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, Kind::U64, Merge::Min},
    {CL_DEVICE_GLOBAL_MEM_SIZE, Kind::U64, Merge::Min},
    {CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, Kind::U64, Merge::Min},
    {CL_DEVICE_MAX_CONSTANT_ARGS, Kind::U32, Merge::Min},
    {CL_DEVICE_LOCAL_MEM_TYPE, Kind::U32, Merge::Max}, // CL_GLOBAL (2) if any emulates it
    {CL_DEVICE_LOCAL_MEM_SIZE, Kind::U64, Merge::Min},
    {CL_DEVICE_ERROR_CORRECTION_SUPPORT, Kind::Bool, Merge::And},
    {CL_DEVICE_ENDIAN_LITTLE, Kind::Bool, Merge::And},
    {CL_DEVICE_AVAILABLE, Kind::Bool, Merge::And},
    {CL_DEVICE_COMPILER_AVAILABLE, Kind::Bool, Merge::And},
    {CL_DEVICE_LINKER_AVAILABLE, Kind::Bool, Merge::And},
    {CL_DEVICE_PRINTF_BUFFER_SIZE, Kind::Size, Merge::Min},
    {CL_DEVICE_MAX_PARAMETER_SIZE, Kind::Size, Merge::Min},
};

// Extensions of the OpenCL C language only (no API surface clsplit would have to implement).
const std::set<std::string> kKernelExtensions = {
    "cl_khr_fp64",
    "cl_khr_fp16",
    "cl_khr_byte_addressable_store",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_3d_image_writes", // (only with images)
};

uint64_t readValue(const std::vector<std::byte>& bytes, Kind kind) {
  uint64_t v = 0;
  size_t n = kind == Kind::U32 || kind == Kind::Bool ? 4 : 8;
  if (bytes.size() >= n) std::memcpy(&v, bytes.data(), n);
  return v;
}

InfoValue makeValue(uint64_t v, Kind kind) {
  switch (kind) {
  case Kind::U32:
    return InfoValue::of(static_cast<cl_uint>(v));
  case Kind::Bool:
    return InfoValue::of(static_cast<cl_bool>(v ? CL_TRUE : CL_FALSE));
  case Kind::U64:
    return InfoValue::of(static_cast<cl_ulong>(v));
  case Kind::Bits:
    return InfoValue::of(static_cast<cl_bitfield>(v));
  case Kind::Size:
    return InfoValue::of(static_cast<size_t>(v));
  }
  return {};
}

std::pair<int, int> openclCVersion(const std::string& s) { // "OpenCL C 1.2 ..." -> {1, 2}
  int major = 1, minor = 0;
  if (std::sscanf(s.c_str(), "OpenCL C %d.%d", &major, &minor) != 2) return {1, 0};
  return {major, minor};
}

// A cl_name_version[] query; empty where the device does not answer it (OpenCL 1.x).
NameVersions nameVersions(cl_device_id device, cl_device_info param) {
  auto bytes = device::deviceInfoBytes(device, param);
  NameVersions out(bytes.size() / sizeof(cl_name_version));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(cl_name_version));
  return out;
}

std::string deviceName(const std::vector<const device::RealDevice*>& devices) {
  std::vector<std::pair<std::string, int>> counts;
  for (auto* d : devices) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](auto& c) { return c.first == d->name; });
    if (it == counts.end())
      counts.emplace_back(d->name, 1);
    else
      ++it->second;
  }
  std::string name = "clsplit (";
  for (size_t i = 0; i < counts.size(); ++i) {
    if (i) name += " + ";
    if (counts[i].second > 1) name += std::to_string(counts[i].second) + "x ";
    name += counts[i].first;
  }
  return name + ")";
}

} // namespace

cl_device_type parseDeviceType(const std::string& text) {
  cl_device_type type = 0;
  std::string list = text;
  std::replace(list.begin(), list.end(), '|', ','); // "gpu,cpu" or "gpu|cpu"
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::transform(item.begin(), item.end(), item.begin(), ::tolower);
    if (item == "gpu")
      type |= CL_DEVICE_TYPE_GPU;
    else if (item == "cpu")
      type |= CL_DEVICE_TYPE_CPU;
    else if (item == "accelerator")
      type |= CL_DEVICE_TYPE_ACCELERATOR;
    else if (item == "custom")
      type |= CL_DEVICE_TYPE_CUSTOM;
    else if (!item.empty())
      return 0;
  }
  return type;
}

Device* Device::instance() {
  static Device* device = []() -> Device* {
    auto& env = environment();
    if (env.slots().empty()) return nullptr;
    std::vector<const device::RealDevice*> devices;
    for (const auto& s : env.slots()) devices.push_back(s.device);
    const std::string& override = env.settings().value("CLSPLIT_DEVICE_TYPE");
    cl_device_type type = parseDeviceType(override);
    if (!override.empty() && !type)
      log().warn("CLSPLIT_DEVICE_TYPE={} is not a device type; using the devices' types", override);
    auto d =
        std::make_shared<Device>(devices, type, reportedOpenCLVersion(env.settings()), &memorySettings(env.settings()),
                                 env.partitioner().onlyDevice(), env.partitioner().homeDevice());
    d->publishHandle();
    static std::shared_ptr<Device> keep = d; // root devices are never released
    return d.get();
  }();
  return device;
}

Device::Device(const std::vector<const device::RealDevice*>& devices, cl_device_type typeOverride, int openclVersion,
               const MemorySettings* memory, std::optional<unsigned> onlySlot, unsigned homeSlot)
    : devices_(devices), openclVersion_(openclVersion >= 300 ? 300 : 120), onlySlot_(onlySlot), homeSlot_(homeSlot) {
  using device::deviceInfoBytes;
  for (const auto& rule : kRules) {
    bool first = true;
    uint64_t merged = 0;
    for (auto* d : devices_) {
      uint64_t v = readValue(deviceInfoBytes(d->handle, rule.param), rule.kind);
      if (first)
        merged = v;
      else
        switch (rule.merge) {
        case Merge::Min:
          merged = std::min(merged, v);
          break;
        case Merge::Max:
          merged = std::max(merged, v);
          break;
        case Merge::Sum:
          merged += v;
          break;
        case Merge::And:
          merged = merged && v;
          break;
        case Merge::BitAnd:
          merged &= v;
          break;
        }
      first = false;
    }
    // Room for the two hidden ulong4 arguments, but never below the specification's minimum
    // (1024): a kernel that then exceeds a vendor's limit fails to build partition-ready and
    // runs unsplit from its original source.
    if (rule.param == CL_DEVICE_MAX_PARAMETER_SIZE)
      merged = std::max<uint64_t>(merged > 64 ? merged - 64 : merged, std::min<uint64_t>(merged, 1024));
    info_[rule.param] = makeValue(merged, rule.kind);
    if (rule.param == CL_DEVICE_MAX_WORK_GROUP_SIZE) maxWorkGroupSize_ = merged;
    if (rule.param == CL_DEVICE_MEM_BASE_ADDR_ALIGN) memBaseAddrAlign_ = static_cast<cl_uint>(merged);
    if (rule.param == CL_DEVICE_MAX_MEM_ALLOC_SIZE) maxMemAllocSize_ = merged;
  }

  // Several real devices hold a buffer's windows between them: what the selection can hold,
  // each device counted once (a device selected twice holds no more).
  std::vector<cl_device_id> distinct;
  for (auto* d : devices_)
    if (std::find(distinct.begin(), distinct.end(), d->handle) == distinct.end()) distinct.push_back(d->handle);
  if (memory && memory->policy != buffer::WindowPolicy::Off && distinct.size() > 1) {
    // Devices that share the host's memory (CPUs) share one memory: counted once, as the largest.
    uint64_t global = 0, largest = 0, sharedGlobal = 0, sharedLargest = 0;
    for (cl_device_id d : distinct) {
      const uint64_t own = device::deviceValue<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
      const uint64_t usable = std::min(own, memory->cap.value_or(own));
      const uint64_t one = std::min(usable, uint64_t(device::deviceValue<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE)));
      if (memory->cap || !device::deviceValue<cl_bool>(d, CL_DEVICE_HOST_UNIFIED_MEMORY)) {
        global += usable;
        largest += one;
      } else {
        sharedGlobal = std::max(sharedGlobal, usable);
        sharedLargest = std::max(sharedLargest, one);
      }
    }
    global += sharedGlobal;
    largest += sharedLargest;
    info_[CL_DEVICE_GLOBAL_MEM_SIZE] = makeValue(global, Kind::U64);
    info_[CL_DEVICE_MAX_MEM_ALLOC_SIZE] = makeValue(largest, Kind::U64);
    maxMemAllocSize_ = largest;
  }

  // Work-item sizes: element-wise minimum.
  cl_uint dims = 3;
  for (auto* d : devices_)
    dims = std::min(dims, device::deviceValue<cl_uint>(d->handle, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS));
  maxWorkItemSizes_.assign(dims, SIZE_MAX);
  for (auto* d : devices_) {
    auto bytes = deviceInfoBytes(d->handle, CL_DEVICE_MAX_WORK_ITEM_SIZES);
    for (cl_uint i = 0; i < dims && (i + 1) * sizeof(size_t) <= bytes.size(); ++i) {
      size_t v;
      std::memcpy(&v, bytes.data() + i * sizeof(size_t), sizeof v);
      maxWorkItemSizes_[i] = std::min(maxWorkItemSizes_[i], v);
    }
  }
  info_[CL_DEVICE_MAX_WORK_ITEM_SIZES] = InfoValue::array(maxWorkItemSizes_);

  // Type: the union of the real devices' types unless overridden.
  for (auto* d : devices_) type_ |= d->type & ~cl_device_type(CL_DEVICE_TYPE_DEFAULT);
  if (typeOverride) type_ = typeOverride;
  info_[CL_DEVICE_TYPE] = InfoValue::of(type_);

  // Common kernel-language extensions.
  std::set<std::string> common;
  bool first = true;
  for (auto* d : devices_) {
    std::set<std::string> mine;
    std::stringstream in(device::deviceString(d->handle, CL_DEVICE_EXTENSIONS));
    std::string ext;
    while (in >> ext)
      if (kKernelExtensions.count(ext)) mine.insert(ext);
    if (first)
      common = mine;
    else
      std::erase_if(common, [&](const std::string& e) { return !mine.count(e); });
    first = false;
  }
  std::string extensions;
  for (const auto& e : common) extensions += e + " ";
  info_[CL_DEVICE_EXTENSIONS] = InfoValue::string(extensions);

  std::pair<int, int> cVersion{1, 2};
  for (auto* d : devices_) cVersion = std::min(cVersion, openclCVersion(d->openclCVersion));
  cLanguageVersion_ = cVersion;
  info_[CL_DEVICE_OPENCL_C_VERSION] =
      InfoValue::string("OpenCL C " + std::to_string(cVersion.first) + "." + std::to_string(cVersion.second) + " ");

  info_[CL_DEVICE_NAME] = InfoValue::string(deviceName(devices_));
  info_[CL_DEVICE_VENDOR] = InfoValue::string("clsplit");
  info_[CL_DEVICE_VENDOR_ID] = InfoValue::of(cl_uint(0));
  info_[CL_DRIVER_VERSION] = InfoValue::string(CLSPLIT_VERSION);
  info_[CL_DEVICE_PROFILE] = InfoValue::string("FULL_PROFILE");
  info_[CL_DEVICE_VERSION] = InfoValue::string(openclVersion_ >= 300 ? "OpenCL 3.0 clsplit " CLSPLIT_VERSION
                                                                     : "OpenCL 1.2 clsplit " CLSPLIT_VERSION);
  info_[CL_DEVICE_PLATFORM] = InfoValue::of(Platform::instance().handle());
  info_[CL_DEVICE_QUEUE_PROPERTIES] =
      InfoValue::of(cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE));
  info_[CL_DEVICE_EXECUTION_CAPABILITIES] = InfoValue::of(cl_device_exec_capabilities(CL_EXEC_KERNEL));
  info_[CL_DEVICE_PROFILING_TIMER_RESOLUTION] = InfoValue::of(size_t(1));
  info_[CL_DEVICE_HOST_UNIFIED_MEMORY] = InfoValue::of(cl_bool(CL_FALSE));
  info_[CL_DEVICE_PREFERRED_INTEROP_USER_SYNC] = InfoValue::of(cl_bool(CL_TRUE));
  info_[CL_DEVICE_PARENT_DEVICE] = InfoValue::of(static_cast<cl_device_id>(nullptr));
  info_[CL_DEVICE_PARTITION_MAX_SUB_DEVICES] = InfoValue::of(cl_uint(0));
  info_[CL_DEVICE_PARTITION_PROPERTIES] = InfoValue::of(cl_device_partition_property(0));
  info_[CL_DEVICE_PARTITION_AFFINITY_DOMAIN] = InfoValue::of(cl_device_affinity_domain(0));
  info_[CL_DEVICE_PARTITION_TYPE] = InfoValue::raw({});
  info_[CL_DEVICE_REFERENCE_COUNT] = InfoValue::of(cl_uint(1));
  info_[CL_DEVICE_BUILT_IN_KERNELS] = InfoValue::string("");
  // Images and samplers where every device has them, within every device's limits (kernels
  // that use them run whole on one device; docs/limitations.md).
  imageSupport_ = !devices_.empty() && std::all_of(devices_.begin(), devices_.end(), [](auto* d) {
    return device::deviceValue<cl_bool>(d->handle, CL_DEVICE_IMAGE_SUPPORT) == CL_TRUE;
  });
  info_[CL_DEVICE_IMAGE_SUPPORT] = InfoValue::of(cl_bool(imageSupport_ ? CL_TRUE : CL_FALSE));
  imageWrites3d_ = imageSupport_ && common.count("cl_khr_3d_image_writes");
  if (imageSupport_ != imageWrites3d_ || !imageSupport_) {
    common.erase("cl_khr_3d_image_writes");
    std::string listed;
    for (const auto& e : common) listed += e + " ";
    info_[CL_DEVICE_EXTENSIONS] = InfoValue::string(listed);
  }
  auto smallest = [&](cl_device_info p, auto zero) {
    decltype(zero) v = std::numeric_limits<decltype(zero)>::max();
    for (auto* d : devices_) v = std::min(v, device::deviceValue<decltype(zero)>(d->handle, p));
    info_[p] = InfoValue::of(imageSupport_ ? v : zero);
    return imageSupport_ ? v : zero;
  };
  for (cl_device_info p : {CL_DEVICE_MAX_READ_IMAGE_ARGS, CL_DEVICE_MAX_WRITE_IMAGE_ARGS, CL_DEVICE_MAX_SAMPLERS})
    smallest(p, cl_uint(0));
  for (cl_device_info p : {CL_DEVICE_IMAGE2D_MAX_WIDTH, CL_DEVICE_IMAGE2D_MAX_HEIGHT, CL_DEVICE_IMAGE3D_MAX_WIDTH,
                           CL_DEVICE_IMAGE3D_MAX_HEIGHT, CL_DEVICE_IMAGE3D_MAX_DEPTH, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
                           CL_DEVICE_IMAGE_MAX_ARRAY_SIZE})
    imageLimits_[p] = smallest(p, size_t(0));
  info_[CL_DEVICE_HALF_FP_CONFIG] = InfoValue::of(cl_device_fp_config(0));
  if (openclVersion_ >= 300)
    addOpenCL30Info();
  else
    kernelPrelude_ = icd::kernelPrelude(120, {}, {}, imageSupport_);
}

void Device::addOpenCL30Info() {
  std::vector<NameVersions> features, cVersions;
  std::vector<std::string> known; // feature macros some real compiler may predefine
  for (auto* d : devices_) {
    // The OpenCL 3.0 queries, from a device of OpenCL 3.0: Oclgrind 21.10 (OpenCL 1.2) answers
    // them with OpenCL C 3.0 and its features, yet fails `-cl-std=CL3.0` builds.
    const bool answers30 = openclMajor(*d) >= 3;
    features.push_back(answers30 ? nameVersions(d->handle, CL_DEVICE_OPENCL_C_FEATURES) : NameVersions{});
    cVersions.push_back(answers30 ? nameVersions(d->handle, CL_DEVICE_OPENCL_C_ALL_VERSIONS) : NameVersions{});
    for (const auto& f : features.back()) known.emplace_back(f.name, strnlen(f.name, CL_NAME_VERSION_MAX_NAME_SIZE));
  }
  const NameVersions reported = commonFeatures(features, imageSupport_);
  kernelPrelude_ = icd::kernelPrelude(300, reported, known, imageSupport_);
  knownFeatures_ = known;
  auto has = [&](std::string_view name) {
    return std::any_of(reported.begin(), reported.end(), [&](const cl_name_version& v) { return name == v.name; });
  };
  info_[CL_DEVICE_NUMERIC_VERSION] = InfoValue::of(cl_version(CL_MAKE_VERSION(3, 0, 0)));
  info_[CL_DEVICE_OPENCL_C_ALL_VERSIONS] = InfoValue::array(commonCVersions(cVersions, cLanguageVersion_));
  info_[CL_DEVICE_OPENCL_C_FEATURES] = InfoValue::array(reported);
  info_[CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED] = InfoValue::string("v0000-01-01-00"); // never submitted

  // The common kernel extensions, each at the lowest version a device lists (1.0.0 if none does).
  NameVersions extensions;
  std::stringstream names(std::string(reinterpret_cast<const char*>(info_[CL_DEVICE_EXTENSIONS].bytes().data())));
  std::vector<NameVersions> listed;
  // OpenCL 3.0 queries asked of devices of 3.0 only: Oclgrind (1.2) answers them, not to be trusted.
  for (auto* d : devices_)
    listed.push_back(openclMajor(*d) >= 3 ? nameVersions(d->handle, CL_DEVICE_EXTENSIONS_WITH_VERSION)
                                          : NameVersions{});
  for (std::string name; names >> name;) {
    cl_name_version e{};
    std::memcpy(e.name, name.data(), std::min(name.size(), size_t(CL_NAME_VERSION_MAX_NAME_SIZE - 1)));
    e.version = CL_MAKE_VERSION(1, 0, 0);
    bool first = true;
    for (const auto& list : listed)
      for (const auto& v : list)
        if (name == v.name) {
          e.version = first ? v.version : std::min(e.version, v.version);
          first = false;
        }
    extensions.push_back(e);
  }
  info_[CL_DEVICE_EXTENSIONS_WITH_VERSION] = InfoValue::array(extensions);
  info_[CL_DEVICE_ILS_WITH_VERSION] = InfoValue::raw({});
  info_[CL_DEVICE_IL_VERSION] = InfoValue::string("");
  info_[CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION] = InfoValue::raw({});

  // Atomics and fences: the specification's minimum, and what the reported features add.
  cl_device_atomic_capabilities memory = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
  if (has("__opencl_c_atomic_order_acq_rel")) memory |= CL_DEVICE_ATOMIC_ORDER_ACQ_REL;
  if (has("__opencl_c_atomic_order_seq_cst")) memory |= CL_DEVICE_ATOMIC_ORDER_SEQ_CST;
  if (has("__opencl_c_atomic_scope_device")) memory |= CL_DEVICE_ATOMIC_SCOPE_DEVICE;
  if (has("__opencl_c_atomic_scope_all_devices")) memory |= CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;
  cl_device_atomic_capabilities fences = memory | CL_DEVICE_ATOMIC_ORDER_ACQ_REL;
  for (auto* d : devices_) {           // a device's fences may offer less than its atomics
    if (openclMajor(*d) < 3) continue; // a 3.0 query (see the extensions above)
    const auto bytes = device::deviceInfoBytes(d->handle, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
    if (bytes.size() == sizeof(cl_device_atomic_capabilities)) fences &= readValue(bytes, Kind::Bits);
  }
  fences |= CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
  info_[CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES] = InfoValue::of(memory);
  info_[CL_DEVICE_ATOMIC_FENCE_CAPABILITIES] = InfoValue::of(fences);

  // What goes with the optional features: collectives as reported, the others not offered
  // (LanguageFeatures.h says why), with the values the specification gives for that.
  info_[CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT] =
      InfoValue::of(cl_bool(has("__opencl_c_work_group_collective_functions") ? CL_TRUE : CL_FALSE));
  // Where every real device runs them: a launch with a partial last work-group runs whole on
  // one device (its regions assume whole groups), so any of them may be the one.
  nonUniformWorkGroups_ = std::all_of(devices_.begin(), devices_.end(), [](auto* d) {
    return device::deviceValue<cl_bool>(d->handle, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT) == CL_TRUE;
  });
  info_[CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT] = InfoValue::of(cl_bool(nonUniformWorkGroups_ ? CL_TRUE : CL_FALSE));
  info_[CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT] = InfoValue::of(cl_bool(CL_FALSE));
  info_[CL_DEVICE_PIPE_SUPPORT] = InfoValue::of(cl_bool(CL_FALSE));
  info_[CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS] = InfoValue::of(cl_bool(CL_FALSE));
  info_[CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES] = InfoValue::of(cl_device_device_enqueue_capabilities(0));
  // Shared virtual memory: one device's (svmSlot), as that device has it, less fine-grained
  // system sharing (any host pointer as a kernel argument: clsplit checks SVM pointers against
  // the context's allocations).
  cl_device_svm_capabilities svm = 0;
  for (unsigned i = 0; i < devices_.size() && !svmSlot_; ++i) {
    const unsigned s = static_cast<unsigned>((homeSlot_ + i) % devices_.size());
    if ((onlySlot_ && s != *onlySlot_) || openclMajor(*devices_[s]) < 2) continue; // SVM is OpenCL 2.0's
    if (svmUnsafeInSharedContext(*devices_[s], devices_)) continue;
    const auto bytes = device::deviceInfoBytes(devices_[s]->handle, CL_DEVICE_SVM_CAPABILITIES);
    if (bytes.size() != sizeof(cl_device_svm_capabilities)) continue;
    svm = readValue(bytes, Kind::Bits) &
          (CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS);
    if (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)
      svmSlot_ = s;
    else
      svm = 0;
  }
  info_[CL_DEVICE_SVM_CAPABILITIES] = InfoValue::of(svm);
  info_[CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES] = InfoValue::of(cl_command_queue_properties(0));
  for (cl_device_info p :
       {CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, CL_DEVICE_MAX_ON_DEVICE_QUEUES,
        CL_DEVICE_MAX_ON_DEVICE_EVENTS, CL_DEVICE_MAX_PIPE_ARGS, CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS,
        CL_DEVICE_PIPE_MAX_PACKET_SIZE, CL_DEVICE_MAX_NUM_SUB_GROUPS,
        // Images are never made from buffers (cl_khr_image2d_from_buffer).
        CL_DEVICE_IMAGE_PITCH_ALIGNMENT, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT,
        CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT,
        CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT})
    info_[p] = InfoValue::of(cl_uint(0));
  cl_uint readWrite = 0;
  if (has("__opencl_c_read_write_images")) {
    readWrite = std::numeric_limits<cl_uint>::max();
    for (auto* d : devices_)
      readWrite = std::min(readWrite, device::deviceValue<cl_uint>(d->handle, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS));
  }
  info_[CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS] = InfoValue::of(readWrite);
  for (cl_device_info p : {CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE})
    info_[p] = InfoValue::of(size_t(0));

  // A hint: the smallest multiple any device prefers (1 where a device does not say).
  size_t multiple = SIZE_MAX;
  for (auto* d : devices_) {
    const auto bytes = device::deviceInfoBytes(d->handle, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    size_t v = bytes.size() == sizeof(size_t) ? size_t(readValue(bytes, Kind::Size)) : 1;
    multiple = std::min(multiple, std::max<size_t>(v, 1));
  }
  info_[CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE] = InfoValue::of(multiple == SIZE_MAX ? size_t(1) : multiple);
}

std::vector<std::string> Device::pinnedMacros() const { return pinnedMacroNames(knownFeatures_); }

cl_int Device::info(cl_device_info param, size_t size, void* value, size_t* sizeRet) const {
  auto it = info_.find(param);
  if (it == info_.end()) throw Error(CL_INVALID_VALUE, "unknown device info " + std::to_string(param));
  return writeInfo(it->second, size, value, sizeRet);
}

} // namespace clsplit::icd
