// Platform queries: a fixed OpenCL 3.0 (or 1.2) platform that advertises cl_khr_icd.
#include "icd/objects/Platform.h"

#include "icd/config/Settings.h"
#include "icd/objects/Environment.h"
#include "icd/objects/InfoQuery.h"
#include "support/Log.h"

#ifndef CLSPLIT_VERSION
#define CLSPLIT_VERSION "0.0.0"
#endif

namespace clsplit::icd {

int reportedOpenCLVersion(const Settings& settings) {
  const std::string& value = settings.value("CLSPLIT_OPENCL_VERSION");
  if (value == "1.2") return 120;
  if (value != "3.0") log().warn("CLSPLIT_OPENCL_VERSION={} is not 3.0 or 1.2; reporting OpenCL 3.0", value);
  return 300;
}

Platform& Platform::instance() {
  static Platform* platform = [] {
    auto p = std::make_shared<Platform>();
    p->publishHandle();
    static std::shared_ptr<Platform> keep = p; // never released
    return p.get();
  }();
  return *platform;
}

Platform& platformOrDefault(cl_platform_id platform) {
  if (!platform) return Platform::instance();
  return *Platform::from(platform);
}

cl_int Platform::info(cl_platform_info param, size_t size, void* value, size_t* sizeRet) const {
  static const bool v30 = reportedOpenCLVersion(environment().settings()) >= 300;
  static const InfoEntry<Platform> table[] = {
      {CL_PLATFORM_PROFILE, [](const Platform&) { return InfoValue::string("FULL_PROFILE"); }},
      {CL_PLATFORM_VERSION,
       [](const Platform&) {
         return InfoValue::string(v30 ? "OpenCL 3.0 clsplit " CLSPLIT_VERSION : "OpenCL 1.2 clsplit " CLSPLIT_VERSION);
       }},
      {CL_PLATFORM_NAME, [](const Platform&) { return InfoValue::string("clsplit"); }},
      {CL_PLATFORM_VENDOR, [](const Platform&) { return InfoValue::string("clsplit"); }},
      {CL_PLATFORM_EXTENSIONS, [](const Platform&) { return InfoValue::string("cl_khr_icd"); }},
      {CL_PLATFORM_ICD_SUFFIX_KHR, [](const Platform&) { return InfoValue::string("clsplit"); }},
  };
  // OpenCL 3.0's queries; 0 host timer resolution: clGetDeviceAndHostTimer is not offered.
  static const InfoEntry<Platform> table30[] = {
      {CL_PLATFORM_NUMERIC_VERSION,
       [](const Platform&) { return InfoValue::of(cl_version(CL_MAKE_VERSION(3, 0, 0))); }},
      {CL_PLATFORM_EXTENSIONS_WITH_VERSION,
       [](const Platform&) {
         cl_name_version icd{CL_MAKE_VERSION(1, 0, 0), "cl_khr_icd"};
         return InfoValue::of(icd);
       }},
      {CL_PLATFORM_HOST_TIMER_RESOLUTION, [](const Platform&) { return InfoValue::of(cl_ulong(0)); }},
  };
  if (v30)
    for (const auto& entry : table30)
      if (entry.param == param) return writeInfo(entry.get(*this), size, value, sizeRet);
  return answerInfo(table, *this, param, size, value, sizeRet);
}

} // namespace clsplit::icd
