// Platform queries: a fixed OpenCL 1.2 platform that advertises cl_khr_icd.
#include "icd/objects/Platform.h"

#include "icd/api/InfoQuery.h"

#ifndef CLSPLIT_VERSION
#define CLSPLIT_VERSION "0.0.0"
#endif

namespace clsplit::icd {

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
  static const InfoEntry<Platform> table[] = {
      {CL_PLATFORM_PROFILE, [](const Platform&) { return InfoValue::string("FULL_PROFILE"); }},
      {CL_PLATFORM_VERSION,
       [](const Platform&) { return InfoValue::string("OpenCL 1.2 clsplit " CLSPLIT_VERSION); }},
      {CL_PLATFORM_NAME, [](const Platform&) { return InfoValue::string("clsplit"); }},
      {CL_PLATFORM_VENDOR, [](const Platform&) { return InfoValue::string("clsplit"); }},
      {CL_PLATFORM_EXTENSIONS, [](const Platform&) { return InfoValue::string("cl_khr_icd"); }},
      {CL_PLATFORM_ICD_SUFFIX_KHR, [](const Platform&) { return InfoValue::string("clsplit"); }},
  };
  return answerInfo(table, *this, param, size, value, sizeRet);
}

} // namespace clsplit::icd
