// The virtual device's OpenCL C versions and features (icd/objects/LanguageFeatures.h): only
// what every device has and clsplit supports is offered, and kernels see exactly that.
#include "icd/objects/LanguageFeatures.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

using namespace clsplit::icd;

namespace {

cl_name_version nv(const char* name, cl_version version) {
  cl_name_version v{};
  v.version = version;
  std::strncpy(v.name, name, CL_NAME_VERSION_MAX_NAME_SIZE - 1);
  return v;
}

std::vector<std::string> names(const NameVersions& list) {
  std::vector<std::string> out;
  for (const auto& v : list) out.emplace_back(v.name);
  return out;
}

const cl_version k300 = CL_MAKE_VERSION(3, 0, 0);

} // namespace

TEST_CASE("features: those every device lists and clsplit supports, at the lowest version", "[features]") {
  NameVersions pocl = {nv("__opencl_c_int64", k300),
                       nv("__opencl_c_fp64", k300),
                       nv("__opencl_c_images", k300),
                       nv("__opencl_c_generic_address_space", k300),
                       nv("__opencl_c_atomic_scope_device", k300),
                       nv("__opencl_c_program_scope_global_variables", k300)};
  NameVersions gpu = {nv("__opencl_c_int64", CL_MAKE_VERSION(3, 0, 0)), nv("__opencl_c_images", k300),
                      nv("__opencl_c_generic_address_space", k300),
                      nv("__opencl_c_atomic_scope_device", CL_MAKE_VERSION(2, 9, 0)), nv("__opencl_c_subgroups", k300)};
  auto common = commonFeatures({pocl, gpu});
  CHECK(names(common) == std::vector<std::string>{"__opencl_c_int64", "__opencl_c_atomic_scope_device"});
  CHECK(common[1].version == CL_MAKE_VERSION(2, 9, 0));
  // One device alone: its supported features, never images, generic pointers or program globals.
  CHECK(names(commonFeatures({pocl})) ==
        std::vector<std::string>{"__opencl_c_int64", "__opencl_c_fp64", "__opencl_c_atomic_scope_device"});
  // An OpenCL 1.x device lists none: nothing is offered.
  CHECK(commonFeatures({pocl, {}}).empty());
  CHECK(commonFeatures({}).empty());
  CHECK(offersFeature("__opencl_c_work_group_collective_functions"));
  CHECK_FALSE(offersFeature("__opencl_c_pipes"));
  CHECK_FALSE(offersFeature("__opencl_c_device_enqueue"));
  // Image features follow the device's image support.
  CHECK_FALSE(offersFeature("__opencl_c_images"));
  CHECK(offersFeature("__opencl_c_images", true));
  CHECK(offersFeature("__opencl_c_read_write_images", true));
  const NameVersions withImages = {nv("__opencl_c_images", k300), nv("__opencl_c_int64", k300)};
  CHECK(names(commonFeatures({withImages, withImages})) == std::vector<std::string>{"__opencl_c_int64"});
  CHECK(names(commonFeatures({withImages, withImages}, true)) ==
        std::vector<std::string>{"__opencl_c_images", "__opencl_c_int64"});
  CHECK(names(commonFeatures({withImages, {nv("__opencl_c_int64", k300)}}, true)) ==
        std::vector<std::string>{"__opencl_c_int64"});
}

TEST_CASE("__IMAGE_SUPPORT__ agrees with the device's image support", "[features]") {
  CHECK(kernelPrelude(300, {}, {}, true).find("#define __IMAGE_SUPPORT__ 1\n") != std::string::npos);
  CHECK(kernelPrelude(120, {}, {}, true).find("#define __IMAGE_SUPPORT__ 1\n") != std::string::npos);
  CHECK(kernelPrelude(300, {}, {}, false).find("#define __IMAGE_SUPPORT__") == std::string::npos);
  CHECK(kernelPrelude(300, {}, {}, false).find("#undef __IMAGE_SUPPORT__\n") != std::string::npos);
}

TEST_CASE("OpenCL C versions: 1.x up to the common one, 3.0 where every device has it", "[features]") {
  NameVersions c30 = {nv("OpenCL C", CL_MAKE_VERSION(1, 0, 0)), nv("OpenCL C", CL_MAKE_VERSION(1, 2, 0)),
                      nv("OpenCL C", k300)};
  auto both = commonCVersions({c30, c30}, {1, 2});
  CHECK(both.size() == 4);
  CHECK(hasCVersion(both, 1, 1));
  CHECK(hasCVersion(both, 3, 0));
  CHECK_FALSE(hasCVersion(both, 2, 0));
  auto withOld = commonCVersions({c30, {}}, {1, 2});
  CHECK(hasCVersion(withOld, 1, 2));
  CHECK_FALSE(hasCVersion(withOld, 3, 0));
  auto c11 = commonCVersions({c30}, {1, 1});
  CHECK(hasCVersion(c11, 1, 1));
  CHECK_FALSE(hasCVersion(c11, 1, 2));
}

TEST_CASE("kernels see the reported device: version, no images, only reported features", "[features]") {
  NameVersions reported = {nv("__opencl_c_int64", k300)};
  const std::string prelude = kernelPrelude(300, reported, {"__opencl_c_vendor_thing", "__opencl_c_int64"});
  CHECK(prelude.find("#undef __IMAGE_SUPPORT__\n") != std::string::npos);
  CHECK(prelude.find("#define __OPENCL_VERSION__ 300\n") != std::string::npos);
  CHECK(prelude.find("#undef __opencl_c_images\n") != std::string::npos);
  CHECK(prelude.find("#undef __opencl_c_vendor_thing\n") != std::string::npos);
  CHECK(prelude.find("#undef __opencl_c_ext_fp32_global_atomic_add\n") != std::string::npos); // Clang's own
  // Reported features: taken back, then defined again for OpenCL C 3.0 only.
  const size_t again = prelude.find("#define __opencl_c_int64 1\n");
  REQUIRE(again != std::string::npos);
  CHECK(prelude.rfind("__OPENCL_C_VERSION__ >= 300", again) != std::string::npos);
  CHECK(prelude.find("#undef __opencl_c_int64\n") < again);
  CHECK(prelude.size() >= 9);
  CHECK(prelude.substr(prelude.size() - 8) == "#line 1\n"); // the program keeps its line numbers
  CHECK(kernelPrelude(120, {}, {}).find("#define __OPENCL_VERSION__ 120\n") != std::string::npos);
  CHECK(kernelPrelude(120, {}, {}).find("#define __opencl_c") == std::string::npos);
}

TEST_CASE("the macros the prelude makes the same everywhere", "[features]") {
  const auto pinned = pinnedMacroNames({"__opencl_c_vendor_thing", "not_a_feature"});
  auto has = [&](const char* n) { return std::find(pinned.begin(), pinned.end(), n) != pinned.end(); };
  CHECK(has("__OPENCL_VERSION__"));
  CHECK(has("__IMAGE_SUPPORT__"));
  CHECK(has("__opencl_c_vendor_thing"));
  CHECK(has("__opencl_c_fp64"));
  CHECK(has("__opencl_c_ext_fp32_global_atomic_add")); // Clang's own
  CHECK_FALSE(has("not_a_feature"));
  CHECK_FALSE(has("__OPENCL_C_VERSION__")); // each compiler's own, from -cl-std
}
