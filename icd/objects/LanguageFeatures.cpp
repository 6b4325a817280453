// The virtual device's OpenCL C versions and features (LanguageFeatures.h).
#include "icd/objects/LanguageFeatures.h"

#include <algorithm>
#include <cstring>

namespace clsplit::icd {

namespace {

std::string_view nameOf(const cl_name_version& v) {
  return std::string_view(v.name, strnlen(v.name, CL_NAME_VERSION_MAX_NAME_SIZE));
}

cl_name_version make(std::string_view name, cl_version version) {
  cl_name_version v{};
  v.version = version;
  std::memcpy(v.name, name.data(), std::min(name.size(), size_t(CL_NAME_VERSION_MAX_NAME_SIZE - 1)));
  return v;
}

const cl_name_version* find(const NameVersions& list, std::string_view name) {
  auto it = std::find_if(list.begin(), list.end(), [&](const cl_name_version& v) { return nameOf(v) == name; });
  return it == list.end() ? nullptr : &*it;
}

} // namespace

bool offersFeature(std::string_view name, bool images) {
  // Kernels that use images run whole on one device (the analysis cannot bound their pixels).
  if (name == "__opencl_c_images" || name == "__opencl_c_read_write_images" || name == "__opencl_c_3d_image_writes")
    return images;
  static const std::string_view offered[] = {
      "__opencl_c_int64",
      "__opencl_c_fp64",
      // Atomics are read by the analysis (AccessCollector: results unused merge per device,
      // others are writes); their orders and scopes add no communication between work-groups
      // that a device-wide atomic without them did not already have.
      "__opencl_c_atomic_order_acq_rel",
      "__opencl_c_atomic_order_seq_cst",
      "__opencl_c_atomic_scope_device",
      "__opencl_c_atomic_scope_all_devices",
      "__opencl_c_work_group_collective_functions",
      "__opencl_c_integer_dot_product_input_4x8bit",
      "__opencl_c_integer_dot_product_input_4x8bit_packed",
  };
  return std::find(std::begin(offered), std::end(offered), name) != std::end(offered);
}

std::vector<std::string> featureMacroNames(const std::vector<std::string>& known) {
  static const char* const fixed[] = {
      // The specification's (OpenCL C 3.0, section 6.2.1).
      "__opencl_c_3d_image_writes",
      "__opencl_c_atomic_order_acq_rel",
      "__opencl_c_atomic_order_seq_cst",
      "__opencl_c_atomic_scope_device",
      "__opencl_c_atomic_scope_all_devices",
      "__opencl_c_device_enqueue",
      "__opencl_c_fp64",
      "__opencl_c_generic_address_space",
      "__opencl_c_images",
      "__opencl_c_int64",
      "__opencl_c_pipes",
      "__opencl_c_program_scope_global_variables",
      "__opencl_c_read_write_images",
      "__opencl_c_subgroups",
      "__opencl_c_work_group_collective_functions",
      "__opencl_c_integer_dot_product_input_4x8bit",
      "__opencl_c_integer_dot_product_input_4x8bit_packed",
      // Clang 16's besides (`clang -x cl -cl-std=CL3.0 -target spir64 -dM -E`), but for
      // __opencl_c_named_address_space_builtins: not a feature, it keeps the global/local
      // overloads of built-ins (atomics) that clsplit's compiler declares where they are used.
      "__opencl_c_ext_fp16_global_atomic_add",
      "__opencl_c_ext_fp16_global_atomic_load_store",
      "__opencl_c_ext_fp16_global_atomic_min_max",
      "__opencl_c_ext_fp16_local_atomic_add",
      "__opencl_c_ext_fp16_local_atomic_load_store",
      "__opencl_c_ext_fp16_local_atomic_min_max",
      "__opencl_c_ext_fp32_global_atomic_add",
      "__opencl_c_ext_fp32_global_atomic_min_max",
      "__opencl_c_ext_fp32_local_atomic_add",
      "__opencl_c_ext_fp32_local_atomic_min_max",
      "__opencl_c_ext_fp64_global_atomic_add",
      "__opencl_c_ext_fp64_global_atomic_min_max",
      "__opencl_c_ext_fp64_local_atomic_add",
      "__opencl_c_ext_fp64_local_atomic_min_max",
  };
  std::vector<std::string> names(std::begin(fixed), std::end(fixed));
  for (const auto& k : known)
    if (k.rfind("__opencl_c_", 0) == 0) names.push_back(k);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::vector<std::string> pinnedMacroNames(const std::vector<std::string>& known) {
  std::vector<std::string> names = featureMacroNames(known);
  names.insert(names.begin(), {"__IMAGE_SUPPORT__", "__OPENCL_VERSION__"});
  return names;
}

NameVersions commonFeatures(const std::vector<NameVersions>& perDevice, bool images) {
  NameVersions common;
  if (perDevice.empty()) return common;
  for (const auto& f : perDevice.front()) {
    if (!offersFeature(nameOf(f), images) || find(common, nameOf(f))) continue;
    cl_version version = f.version;
    bool everywhere = true;
    for (const auto& other : perDevice) {
      const cl_name_version* mine = find(other, nameOf(f));
      if (!mine) {
        everywhere = false;
        break;
      }
      version = std::min(version, mine->version);
    }
    if (everywhere) common.push_back(make(nameOf(f), version));
  }
  return common;
}

bool hasCVersion(const NameVersions& versions, int major, int minor) {
  return std::any_of(versions.begin(), versions.end(), [&](const cl_name_version& v) {
    return CL_VERSION_MAJOR(v.version) == cl_version(major) && CL_VERSION_MINOR(v.version) == cl_version(minor);
  });
}

NameVersions commonCVersions(const std::vector<NameVersions>& perDevice, std::pair<int, int> common1x) {
  NameVersions versions;
  for (int minor = 0; minor <= 2; ++minor)
    if (std::pair{1, minor} <= common1x) versions.push_back(make("OpenCL C", CL_MAKE_VERSION(1, minor, 0)));
  for (int major : {2, 3}) {
    const bool everywhere =
        !perDevice.empty() && std::all_of(perDevice.begin(), perDevice.end(),
                                          [&](const NameVersions& d) { return hasCVersion(d, major, 0); });
    if (everywhere) versions.push_back(make("OpenCL C", CL_MAKE_VERSION(major, 0, 0)));
  }
  return versions;
}

std::string kernelPrelude(int openclVersion, const NameVersions& reported, const std::vector<std::string>& known,
                          bool images) {
  std::string prelude =
      std::string(images ? "#undef __IMAGE_SUPPORT__\n#define __IMAGE_SUPPORT__ 1\n" : "#undef __IMAGE_SUPPORT__\n") +
      "#undef __OPENCL_VERSION__\n#define __OPENCL_VERSION__ " + std::to_string(openclVersion) + "\n";
  for (const auto& name : featureMacroNames(known)) prelude += "#undef " + name + "\n";
  if (!reported.empty()) {
    prelude += "#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 300\n";
    for (const auto& f : reported) prelude += "#define " + std::string(nameOf(f)) + " 1\n";
    prelude += "#endif\n";
  }
  return prelude + "#line 1\n";
}

} // namespace clsplit::icd
