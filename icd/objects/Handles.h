// The handle structures of clsplit's own (virtual) objects, on top of the OpenCL headers.
#pragma once

#include "device/OpenCL.h"

// The handle structures of clsplit's own (virtual) objects. The ICD loader only reads
// `dispatch`; `object` leads back to the C++ object that owns the handle.
namespace clsplit::icd {
class Object;
}
#define CLSPLIT_HANDLE(type)                                                                                           \
  struct _##type {                                                                                                     \
    const cl_icd_dispatch* dispatch;                                                                                   \
    clsplit::icd::Object* object;                                                                                      \
  };
CLSPLIT_HANDLE(cl_platform_id)
CLSPLIT_HANDLE(cl_device_id)
CLSPLIT_HANDLE(cl_context)
CLSPLIT_HANDLE(cl_command_queue)
CLSPLIT_HANDLE(cl_mem)
CLSPLIT_HANDLE(cl_program)
CLSPLIT_HANDLE(cl_kernel)
CLSPLIT_HANDLE(cl_event)
CLSPLIT_HANDLE(cl_sampler)
#undef CLSPLIT_HANDLE

namespace clsplit::icd {
// The one dispatch table every handle points to: the entry points of icd/api/, which defines it
// (objects name it here so that they need not include the layer above them).
const cl_icd_dispatch* dispatchTable();
} // namespace clsplit::icd
