// The only symbols libclsplit.so exports: what ICD loaders (ocl-icd, the Khronos loader) look
// up by name. Every other entry point is reached through the dispatch table.
#include "icd/api/Dispatch.h"
#include "icd/api/PassThrough.h"
#include "icd/objects/Platform.h"
#include "icd/runtime/Runtime.h"

#define CLSPLIT_EXPORT extern "C" __attribute__((visibility("default")))

CLSPLIT_EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id* platforms,
                                                         cl_uint* num_platforms) {
  if ((num_entries == 0 && platforms) || (!platforms && !num_platforms)) return CL_INVALID_VALUE;
  try {
    clsplit::icd::runtime::Runtime::get(); // settings, logging and vendors, once
    cl_platform_id platform = nullptr;
    if (const auto* direct = clsplit::icd::passthrough::target())
      platform = clsplit::icd::passthrough::platform(*direct); // clsplit steps aside
    else
      platform = clsplit::icd::Platform::instance().handle();
    if (platforms && num_entries > 0) platforms[0] = platform;
    if (num_platforms) *num_platforms = 1;
    return CL_SUCCESS;
  } catch (...) {
    return CL_OUT_OF_HOST_MEMORY;
  }
}

CLSPLIT_EXPORT void* CL_API_CALL clGetExtensionFunctionAddress(const char* name) {
  return clsplit::icd::loaderEntryPoint(name);
}
