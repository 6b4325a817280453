// The one platform the application sees ("clsplit").
#pragma once

#include "icd/objects/Object.h"

namespace clsplit::icd {

class Platform final : public TypedObject<Platform, _cl_platform_id, ObjectKind::Platform, CL_INVALID_PLATFORM> {
public:
  static Platform& instance();
  cl_int info(cl_platform_info param, size_t size, void* value, size_t* sizeRet) const;
};

// A NULL platform means "the default platform" in several entry points.
Platform& platformOrDefault(cl_platform_id platform);

} // namespace clsplit::icd
