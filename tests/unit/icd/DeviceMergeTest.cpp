// The virtual device's info merged from real devices (PoCL's, and Oclgrind's when installed):
// every merge rule is recomputed here from the real devices' own answers, and the merged
// answers must still satisfy the OpenCL 1.2 minimums and agree with each other; the OpenCL 3.0
// queries offer only what every device has.
#include "device/Error.h"
#include "device/Vendors.h"
#include "icd/objects/Device.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

using clsplit::device::RealDevice;
using clsplit::device::Vendors;

namespace {

// A clsplit::icd::Device merged from real devices; an Error its info() throws becomes its code.
class Device {
public:
  explicit Device(const std::vector<const RealDevice*>& devices, cl_device_type override = 0, int openclVersion = 300)
      : device_(devices, override, openclVersion) {}

  std::string kernelPrelude() const { return device_.kernelPrelude(); }
  std::optional<unsigned> svmSlot() const { return device_.svmSlot(); }
  cl_int info(cl_device_info param, size_t size, void* value, size_t* sizeRet) const {
    try {
      return device_.info(param, size, value, sizeRet);
    } catch (const clsplit::Error& e) {
      return e.code();
    }
  }
  cl_device_type type() const { return device_.type(); }
  size_t maxWorkGroupSize() const { return device_.maxWorkGroupSize(); }
  cl_uint memBaseAddrAlign() const { return device_.memBaseAddrAlign(); }
  cl_ulong maxMemAllocSize() const { return device_.maxMemAllocSize(); }
  std::vector<size_t> maxWorkItemSizes() const { return device_.maxWorkItemSizes(); }

private:
  clsplit::icd::Device device_;
};

const char* kPoclIcd = "/etc/OpenCL/vendors/pocl.icd";
const char* kOclgrind = "/usr/lib/oclgrind/liboclgrind-rt-icd.so";

// Real devices, loaded once: PoCL (POCL_DEVICES is set by the test's environment), then
// Oclgrind if installed.
const Vendors& vendors() {
  static const Vendors v = [] {
    std::string spec = kPoclIcd;
    if (std::filesystem::exists(kOclgrind)) spec += std::string(":") + kOclgrind;
    return Vendors::load(spec);
  }();
  return v;
}

std::vector<const RealDevice*> devicesOf(const std::string& platformSubstring) {
  std::vector<const RealDevice*> out;
  for (const auto& d : vendors().devices())
    if (vendors().platforms()[d.platform].name.find(platformSubstring) != std::string::npos) out.push_back(&d);
  return out;
}

template <class T>
T merged(const Device& d, cl_device_info param) {
  T v{};
  size_t size = 0;
  REQUIRE(d.info(param, sizeof v, &v, &size) == CL_SUCCESS);
  CHECK(size == sizeof v);
  return v;
}

std::string mergedString(const Device& d, cl_device_info param) {
  size_t size = 0;
  REQUIRE(d.info(param, 0, nullptr, &size) == CL_SUCCESS);
  std::string s(size, '\0');
  REQUIRE(d.info(param, size, s.data(), nullptr) == CL_SUCCESS);
  REQUIRE(!s.empty());
  CHECK(s.back() == '\0');
  s.pop_back();
  return s;
}

template <class T>
T real(const RealDevice* d, cl_device_info param) {
  return clsplit::device::deviceValue<T>(d->handle, param);
}

std::set<std::string> words(const std::string& s) {
  std::set<std::string> out;
  std::stringstream in(s);
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

enum class Rule { Min, Max, Sum, And };

template <class T>
void checkRule(const Device& d, const std::vector<const RealDevice*>& devices, cl_device_info param, Rule rule,
               const char* name) {
  T expected = real<T>(devices[0], param);
  for (size_t i = 1; i < devices.size(); ++i) {
    T v = real<T>(devices[i], param);
    switch (rule) {
    case Rule::Min:
      expected = std::min(expected, v);
      break;
    case Rule::Max:
      expected = std::max(expected, v);
      break;
    case Rule::Sum:
      expected = expected + v;
      break;
    case Rule::And:
      expected = expected & v;
      break;
    }
  }
  INFO(name);
  CHECK(merged<T>(d, param) == expected);
}

#define RULE(T, param, rule) checkRule<T>(device, devices, param, Rule::rule, #param)

// The merge rules of every numeric query with a rule.
void checkMergeRules(const Device& device, const std::vector<const RealDevice*>& devices) {
  RULE(cl_uint, CL_DEVICE_MAX_COMPUTE_UNITS, Sum);
  RULE(cl_uint, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, Min);
  RULE(size_t, CL_DEVICE_MAX_WORK_GROUP_SIZE, Min);
  RULE(cl_uint, CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, Min);
  RULE(cl_uint, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, Min);
  RULE(cl_uint, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, Min);
  RULE(cl_uint, CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, Min);
  RULE(cl_uint, CL_DEVICE_ADDRESS_BITS, Max);
  RULE(cl_ulong, CL_DEVICE_MAX_MEM_ALLOC_SIZE, Min);
  RULE(cl_uint, CL_DEVICE_MEM_BASE_ADDR_ALIGN, Max);
  RULE(cl_uint, CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, Max);
  RULE(cl_device_fp_config, CL_DEVICE_SINGLE_FP_CONFIG, And);
  RULE(cl_device_fp_config, CL_DEVICE_DOUBLE_FP_CONFIG, And);
  RULE(cl_ulong, CL_DEVICE_GLOBAL_MEM_SIZE, Min);
  RULE(cl_ulong, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, Min);
  RULE(cl_uint, CL_DEVICE_MAX_CONSTANT_ARGS, Min);
  RULE(cl_ulong, CL_DEVICE_LOCAL_MEM_SIZE, Min);
  RULE(cl_bool, CL_DEVICE_ENDIAN_LITTLE, And);
  RULE(cl_bool, CL_DEVICE_COMPILER_AVAILABLE, And);
  RULE(size_t, CL_DEVICE_PRINTF_BUFFER_SIZE, Min);

  // Work-item sizes: element-wise minimum over the common dimensions.
  size_t size = 0;
  REQUIRE(device.info(CL_DEVICE_MAX_WORK_ITEM_SIZES, 0, nullptr, &size) == CL_SUCCESS);
  std::vector<size_t> items(size / sizeof(size_t));
  REQUIRE(device.info(CL_DEVICE_MAX_WORK_ITEM_SIZES, size, items.data(), nullptr) == CL_SUCCESS);
  CHECK(items.size() == merged<cl_uint>(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS));
  for (size_t i = 0; i < items.size(); ++i) {
    size_t expected = SIZE_MAX;
    for (auto* d : devices) {
      auto bytes = clsplit::device::deviceInfoBytes(d->handle, CL_DEVICE_MAX_WORK_ITEM_SIZES);
      size_t v = 0;
      std::memcpy(&v, bytes.data() + i * sizeof(size_t), sizeof v);
      expected = std::min(expected, v);
    }
    CHECK(items[i] == expected);
  }
  CHECK(device.maxWorkItemSizes() == items);
  CHECK(device.maxWorkGroupSize() == merged<size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  CHECK(device.memBaseAddrAlign() == merged<cl_uint>(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN));
  CHECK(device.maxMemAllocSize() == merged<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE));

  // Images: where every device has them, within every device's limits.
  bool images = true;
  for (auto* d : devices) images = images && clsplit::device::deviceValue<cl_bool>(d->handle, CL_DEVICE_IMAGE_SUPPORT);
  CHECK(merged<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT) == (images ? CL_TRUE : CL_FALSE));
  for (cl_device_info p : {CL_DEVICE_IMAGE2D_MAX_WIDTH, CL_DEVICE_IMAGE2D_MAX_HEIGHT, CL_DEVICE_IMAGE3D_MAX_DEPTH,
                           CL_DEVICE_IMAGE_MAX_ARRAY_SIZE}) {
    size_t expected = images ? SIZE_MAX : 0;
    for (auto* d : devices)
      if (images) expected = std::min(expected, clsplit::device::deviceValue<size_t>(d->handle, p));
    INFO("image limit 0x" << std::hex << p);
    CHECK(merged<size_t>(device, p) == expected);
  }
  cl_uint samplers = images ? UINT32_MAX : 0;
  for (auto* d : devices)
    if (images) samplers = std::min(samplers, clsplit::device::deviceValue<cl_uint>(d->handle, CL_DEVICE_MAX_SAMPLERS));
  CHECK(merged<cl_uint>(device, CL_DEVICE_MAX_SAMPLERS) == samplers);

  // Type: the union of the real types (without DEFAULT).
  cl_device_type type = 0;
  for (auto* d : devices) type |= d->type & ~cl_device_type(CL_DEVICE_TYPE_DEFAULT);
  CHECK(merged<cl_device_type>(device, CL_DEVICE_TYPE) == type);
  CHECK(device.type() == type);

  // Extensions: only those every device has, and only kernel-language ones.
  auto mine = words(mergedString(device, CL_DEVICE_EXTENSIONS));
  for (const auto& e : mine)
    for (auto* d : devices) {
      INFO(e << " on " << d->name);
      CHECK(words(clsplit::device::deviceString(d->handle, CL_DEVICE_EXTENSIONS)).count(e) == 1);
    }
  CHECK(mine.count("cl_khr_icd") == 0);
}

// What the OpenCL 1.2 specification requires of any FULL_PROFILE device, on the merged answers.
void checkConformance(const Device& device) {
  auto extensions = words(mergedString(device, CL_DEVICE_EXTENSIONS));
  bool fp64 = extensions.count("cl_khr_fp64"), fp16 = extensions.count("cl_khr_fp16");
  CHECK(merged<cl_uint>(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS) >= 3);
  CHECK(merged<size_t>(device, CL_DEVICE_MAX_PARAMETER_SIZE) >= 1024);
  CHECK(merged<cl_uint>(device, CL_DEVICE_MAX_CONSTANT_ARGS) >= 8);
  CHECK(merged<cl_ulong>(device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) >= 64 * 1024);
  CHECK(merged<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE) >= 32 * 1024);
  CHECK(merged<cl_uint>(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) >= 1024);
  auto alloc = merged<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  auto global = merged<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  CHECK(alloc <= global);
  CHECK(alloc >= std::min<cl_ulong>(global / 4, 128u << 20));
  auto dbl = merged<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG);
  const cl_device_fp_config minDouble =
      CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
  CHECK((fp64 ? (dbl & minDouble) == minDouble : dbl == 0));
  CHECK(fp64 == (merged<cl_uint>(device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE) != 0));
  CHECK(fp64 == (merged<cl_uint>(device, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE) != 0));
  CHECK(fp16 == (merged<cl_device_fp_config>(device, CL_DEVICE_HALF_FP_CONFIG) != 0));
  CHECK(fp16 == (merged<cl_uint>(device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF) != 0));
  CHECK(mergedString(device, CL_DEVICE_PROFILE) == "FULL_PROFILE");
  CHECK(mergedString(device, CL_DEVICE_VERSION).rfind("OpenCL 3.0 ", 0) == 0);
  CHECK(mergedString(device, CL_DEVICE_OPENCL_C_VERSION).rfind("OpenCL C 1.", 0) == 0);
  CHECK(mergedString(device, CL_DEVICE_VENDOR) == "clsplit");
  CHECK(merged<cl_command_queue_properties>(device, CL_DEVICE_QUEUE_PROPERTIES) & CL_QUEUE_PROFILING_ENABLE);
}

std::vector<cl_name_version> mergedVersions(const Device& d, cl_device_info param) {
  size_t size = 0;
  REQUIRE(d.info(param, 0, nullptr, &size) == CL_SUCCESS);
  std::vector<cl_name_version> v(size / sizeof(cl_name_version));
  if (size) REQUIRE(d.info(param, size, v.data(), nullptr) == CL_SUCCESS);
  return v;
}

std::vector<cl_name_version> realVersions(const RealDevice* d, cl_device_info param) {
  auto bytes = clsplit::device::deviceInfoBytes(d->handle, param);
  std::vector<cl_name_version> v(bytes.size() / sizeof(cl_name_version));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(cl_name_version));
  return v;
}

bool lists(const std::vector<cl_name_version>& list, const std::string& name, cl_version version = 0) {
  for (const auto& v : list)
    if (name == v.name && (!version || v.version == version)) return true;
  return false;
}

// OpenCL 3.0: every query has an answer; a feature or OpenCL C version is offered only where
// every device has it; what goes with an optional feature agrees with it.
void checkOpenCL30(const Device& device, const std::vector<const RealDevice*>& devices) {
  for (cl_device_info param : {CL_DEVICE_NUMERIC_VERSION,
                               CL_DEVICE_OPENCL_C_ALL_VERSIONS,
                               CL_DEVICE_OPENCL_C_FEATURES,
                               CL_DEVICE_EXTENSIONS_WITH_VERSION,
                               CL_DEVICE_ILS_WITH_VERSION,
                               CL_DEVICE_IL_VERSION,
                               CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION,
                               CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
                               CL_DEVICE_ATOMIC_FENCE_CAPABILITIES,
                               CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT,
                               CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
                               CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
                               CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES,
                               CL_DEVICE_PIPE_SUPPORT,
                               CL_DEVICE_SVM_CAPABILITIES,
                               CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                               CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED,
                               CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE,
                               CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE,
                               CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES,
                               CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE,
                               CL_DEVICE_MAX_ON_DEVICE_QUEUES,
                               CL_DEVICE_MAX_PIPE_ARGS,
                               CL_DEVICE_MAX_NUM_SUB_GROUPS,
                               CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS,
                               CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT}) {
    size_t size = 0;
    INFO("param 0x" << std::hex << param);
    CHECK(device.info(param, 0, nullptr, &size) == CL_SUCCESS);
  }
  CHECK(merged<cl_version>(device, CL_DEVICE_NUMERIC_VERSION) == CL_MAKE_VERSION(3, 0, 0));
  const auto features = mergedVersions(device, CL_DEVICE_OPENCL_C_FEATURES);
  for (const auto& f : features)
    for (const auto* d : devices) {
      INFO(f.name << " on " << d->name);
      CHECK(lists(realVersions(d, CL_DEVICE_OPENCL_C_FEATURES), f.name));
    }
  // Image features only where the device offers images (and every device lists them).
  if (!merged<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT)) CHECK(!lists(features, "__opencl_c_images"));
  for (const char* never :
       {"__opencl_c_pipes", "__opencl_c_device_enqueue", "__opencl_c_program_scope_global_variables",
        "__opencl_c_generic_address_space", "__opencl_c_subgroups"}) {
    INFO(never);
    CHECK(!lists(features, never));
  }
  const auto versions = mergedVersions(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS);
  CHECK(lists(versions, "OpenCL C", CL_MAKE_VERSION(1, 2, 0)));
  // Every device's OpenCL C 3.0, as an OpenCL 3.0 device says (Oclgrind 21.10, OpenCL 1.2,
  // answers the query with 3.0 but cannot build it: not counted).
  bool everyC30 = true;
  for (const auto* d : devices)
    everyC30 = everyC30 && d->version.rfind("OpenCL 3", 0) == 0 &&
               lists(realVersions(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS), "OpenCL C", CL_MAKE_VERSION(3, 0, 0));
  CHECK(lists(versions, "OpenCL C", CL_MAKE_VERSION(3, 0, 0)) == everyC30);
  const auto atomics = merged<cl_device_atomic_capabilities>(device, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
  CHECK((atomics & (CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP)) ==
        (CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP));
  CHECK(bool(atomics & CL_DEVICE_ATOMIC_ORDER_SEQ_CST) == lists(features, "__opencl_c_atomic_order_seq_cst"));
  CHECK(bool(atomics & CL_DEVICE_ATOMIC_SCOPE_DEVICE) == lists(features, "__opencl_c_atomic_scope_device"));
  CHECK(merged<cl_bool>(device, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT) ==
        (lists(features, "__opencl_c_work_group_collective_functions") ? CL_TRUE : CL_FALSE));
  // SVM: one device's (the first of OpenCL 2.0 or later that has it, home being slot 0 here),
  // never fine-grained system.
  cl_device_svm_capabilities svm = 0;
  for (const auto* d : devices) {
    if (d->version.rfind("OpenCL 1.", 0) == 0) continue;
    const auto bytes = clsplit::device::deviceInfoBytes(d->handle, CL_DEVICE_SVM_CAPABILITIES);
    cl_device_svm_capabilities own = 0;
    if (bytes.size() == sizeof own) std::memcpy(&own, bytes.data(), sizeof own);
    if (own & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
      svm = own & (CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS);
      break;
    }
  }
  CHECK(merged<cl_device_svm_capabilities>(device, CL_DEVICE_SVM_CAPABILITIES) == svm);
  CHECK(device.svmSlot().has_value() == (svm != 0));
  CHECK(merged<cl_bool>(device, CL_DEVICE_PIPE_SUPPORT) == CL_FALSE);
  CHECK(mergedVersions(device, CL_DEVICE_ILS_WITH_VERSION).empty());
  // Extensions with versions: the same names as CL_DEVICE_EXTENSIONS.
  auto names = words(mergedString(device, CL_DEVICE_EXTENSIONS));
  std::set<std::string> versioned;
  for (const auto& e : mergedVersions(device, CL_DEVICE_EXTENSIONS_WITH_VERSION)) versioned.insert(e.name);
  CHECK(versioned == names);
}

} // namespace

TEST_CASE("one real device: the merge is that device's own answers", "[device_merge]") {
  auto pocl = devicesOf("Portable Computing Language");
  REQUIRE(!pocl.empty());
  std::vector<const RealDevice*> one{pocl[0]};
  Device device(one);
  checkMergeRules(device, one);
  checkConformance(device);
  checkOpenCL30(device, one);
  CHECK(mergedString(device, CL_DEVICE_NAME) == "clsplit (" + pocl[0]->name + ")");
  CHECK(merged<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS) == pocl[0]->computeUnits);
}

TEST_CASE("two identical devices: compute units add up, limits stay", "[device_merge]") {
  auto pocl = devicesOf("Portable Computing Language");
  REQUIRE(pocl.size() >= 2); // the test sets POCL_DEVICES="pthread pthread"
  std::vector<const RealDevice*> two{pocl[0], pocl[1]};
  Device device(two);
  checkMergeRules(device, two);
  checkConformance(device);
  checkOpenCL30(device, two);
  CHECK(mergedString(device, CL_DEVICE_NAME) == "clsplit (2x " + pocl[0]->name + ")");
  Device single(std::vector<const RealDevice*>{pocl[0]});
  CHECK(merged<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE) == merged<cl_ulong>(single, CL_DEVICE_GLOBAL_MEM_SIZE));
}

TEST_CASE("NVIDIA's SVM is not offered from a context it shares with another of its GPUs", "[device_merge]") {
  // NVIDIA's OpenCL (driver 580) crashes in clEnqueueSVMMap on a context of two of its GPUs: PoCL's
  // devices stand in for two GPUs of one NVIDIA platform (their vendor string is what the rule reads).
  auto pocl = devicesOf("Portable Computing Language");
  REQUIRE(pocl.size() >= 2);
  const auto own = clsplit::device::deviceInfoBytes(pocl[0]->handle, CL_DEVICE_SVM_CAPABILITIES);
  cl_device_svm_capabilities caps = 0;
  if (own.size() == sizeof caps) std::memcpy(&caps, own.data(), sizeof caps);
  if (pocl[0]->version.rfind("OpenCL 1.", 0) == 0 || !(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) {
    WARN("PoCL offers no coarse-grained SVM here: nothing to check");
    return;
  }
  RealDevice a = *pocl[0], b = *pocl[1];
  a.vendor = b.vendor = "NVIDIA Corporation";
  CHECK_FALSE(Device(std::vector<const RealDevice*>{&a, &b}).svmSlot().has_value());
  CHECK(merged<cl_device_svm_capabilities>(Device(std::vector<const RealDevice*>{&a, &b}),
                                           CL_DEVICE_SVM_CAPABILITIES) == 0);
  // Alone in its context (also when selected twice: one device), or beside a device of another
  // platform: offered.
  CHECK(Device(std::vector<const RealDevice*>{&a}).svmSlot() == 0u);
  RealDevice again = a;
  CHECK(Device(std::vector<const RealDevice*>{&a, &again}).svmSlot() == 0u);
  RealDevice other = *pocl[0];
  other.platform = a.platform + 1;
  CHECK(Device(std::vector<const RealDevice*>{&a, &other}).svmSlot() == 0u);
  // Two NVIDIA GPUs sharing a context and a device of another platform: the other's SVM.
  CHECK(Device(std::vector<const RealDevice*>{&a, &b, &other}).svmSlot() == 2u);
  // Beside another vendor's device of its platform (PoCL's CPU and its CUDA device): offered.
  b.vendor = pocl[1]->vendor;
  CHECK(Device(std::vector<const RealDevice*>{&a, &b}).svmSlot() == 0u);
  // Another vendor's two devices in one context keep theirs.
  CHECK(Device(std::vector<const RealDevice*>{pocl[0], pocl[1]}).svmSlot().has_value());
}

TEST_CASE("two vendors (PoCL and Oclgrind): every rule holds on unlike devices", "[device_merge]") {
  auto pocl = devicesOf("Portable Computing Language");
  auto oclgrind = devicesOf("Oclgrind");
  if (oclgrind.empty()) {
    WARN("Oclgrind is not installed: the two-vendor merge is not checked");
    return;
  }
  REQUIRE(!pocl.empty());
  std::vector<const RealDevice*> both{pocl[0], oclgrind[0]};
  Device device(both);
  checkMergeRules(device, both);
  checkConformance(device);
  checkOpenCL30(device, both);
  // Oclgrind is an OpenCL 1.2 device: no OpenCL C 3.0 and no optional feature with it.
  CHECK(mergedVersions(device, CL_DEVICE_OPENCL_C_FEATURES).empty());
  CHECK(mergedString(device, CL_DEVICE_NAME) == "clsplit (" + pocl[0]->name + " + " + oclgrind[0]->name + ")");
}

TEST_CASE("CLSPLIT_OPENCL_VERSION=1.2: an OpenCL 1.2 device, and kernels see 1.2", "[device_merge]") {
  auto pocl = devicesOf("Portable Computing Language");
  REQUIRE(!pocl.empty());
  Device device(std::vector<const RealDevice*>{pocl[0]}, 0, 120);
  CHECK(mergedString(device, CL_DEVICE_VERSION).rfind("OpenCL 1.2 ", 0) == 0);
  size_t size = 0;
  for (cl_device_info param :
       {CL_DEVICE_NUMERIC_VERSION, CL_DEVICE_OPENCL_C_FEATURES, CL_DEVICE_OPENCL_C_ALL_VERSIONS}) {
    INFO("param 0x" << std::hex << param);
    CHECK(device.info(param, 0, nullptr, &size) == CL_INVALID_VALUE); // not a 1.2 query
  }
  CHECK(device.kernelPrelude().find("#define __OPENCL_VERSION__ 120\n") != std::string::npos);
  CHECK(device.kernelPrelude().find("#define __opencl_c") == std::string::npos);
  Device v30(std::vector<const RealDevice*>{pocl[0]});
  CHECK(v30.kernelPrelude().find("#define __OPENCL_VERSION__ 300\n") != std::string::npos);
}

TEST_CASE("CLSPLIT_DEVICE_TYPE overrides the reported type", "[device_merge]") {
  auto parseDeviceType = clsplit::icd::parseDeviceType;
  CHECK(parseDeviceType("gpu") == CL_DEVICE_TYPE_GPU);
  CHECK(parseDeviceType("GPU") == CL_DEVICE_TYPE_GPU);
  CHECK(parseDeviceType("cpu|accelerator") == (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_ACCELERATOR));
  CHECK(parseDeviceType("custom") == CL_DEVICE_TYPE_CUSTOM);
  CHECK(parseDeviceType("") == 0);
  CHECK(parseDeviceType("gpu|fpga") == 0);
  auto pocl = devicesOf("Portable Computing Language");
  REQUIRE(!pocl.empty());
  Device device(std::vector<const RealDevice*>{pocl[0]}, CL_DEVICE_TYPE_GPU);
  CHECK(merged<cl_device_type>(device, CL_DEVICE_TYPE) == CL_DEVICE_TYPE_GPU);
  CHECK(device.type() == CL_DEVICE_TYPE_GPU);
}

TEST_CASE("device queries follow the clGetDeviceInfo protocol", "[device_merge]") {
  auto pocl = devicesOf("Portable Computing Language");
  REQUIRE(!pocl.empty());
  Device device(std::vector<const RealDevice*>{pocl[0]});
  cl_uint units = 0;
  size_t size = 0;
  CHECK(device.info(CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, &size) == CL_SUCCESS);
  CHECK(size == sizeof units);
  CHECK(device.info(CL_DEVICE_MAX_COMPUTE_UNITS, 0, nullptr, &size) == CL_SUCCESS);
  char small[2];
  CHECK(device.info(CL_DEVICE_NAME, sizeof small, small, nullptr) == CL_INVALID_VALUE);
  CHECK(device.info(CL_DEVICE_MAX_COMPUTE_UNITS, 2, small, nullptr) == CL_INVALID_VALUE);
  CHECK(device.info(0x7777, sizeof units, &units, nullptr) == CL_INVALID_VALUE);
  // Every OpenCL 1.2 device query (0x1000 to 0x1049, CL_DRIVER_VERSION included) has an answer.
  for (cl_device_info param = CL_DEVICE_TYPE; param <= CL_DEVICE_PRINTF_BUFFER_SIZE; ++param) {
    INFO("param 0x" << std::hex << param);
    CHECK(device.info(param, 0, nullptr, &size) == CL_SUCCESS);
  }
}
