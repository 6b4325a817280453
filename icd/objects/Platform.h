// The one platform the application sees ("clsplit"), OpenCL 3.0 (or 1.2 if asked).
#pragma once

#include "icd/objects/Object.h"

namespace clsplit::icd {

class Settings;

// The OpenCL version clsplit reports, 300 or 120, from CLSPLIT_OPENCL_VERSION (an unknown value
// is logged and reports 3.0).
int reportedOpenCLVersion(const Settings& settings);

class Platform final : public TypedObject<Platform, _cl_platform_id, ObjectKind::Platform, CL_INVALID_PLATFORM> {
public:
  static Platform& instance();
  cl_int info(cl_platform_info param, size_t size, void* value, size_t* sizeRet) const;
};

// A NULL platform means "the default platform" in several entry points.
Platform& platformOrDefault(cl_platform_id platform);

} // namespace clsplit::icd
