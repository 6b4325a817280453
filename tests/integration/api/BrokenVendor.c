/* A broken vendor ICD for tests: its platform's dispatch table is all null, so clsplit's start-up
   fails on it. Loaders must then find no platform of clsplit's, never a crash. */
#include <CL/cl_icd.h>
#include <string.h>

static struct _cl_icd_dispatch table; /* every slot null */
struct _cl_platform_id {
  struct _cl_icd_dispatch* dispatch;
};
static struct _cl_platform_id platform = {&table};

__attribute__((visibility("default"))) cl_int clIcdGetPlatformIDsKHR(cl_uint n, cl_platform_id* p, cl_uint* np) {
  if (p && n) p[0] = &platform;
  if (np) *np = 1;
  return CL_SUCCESS;
}

__attribute__((visibility("default"))) void* clGetExtensionFunctionAddress(const char* name) {
  return strcmp(name, "clIcdGetPlatformIDsKHR") == 0 ? (void*)&clIcdGetPlatformIDsKHR : 0;
}
