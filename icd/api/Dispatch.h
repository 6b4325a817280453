// The one dispatch table every clsplit handle points to.
#pragma once

#include "icd/api/Handles.h"

namespace clsplit::icd {

const cl_icd_dispatch* dispatchTable();

// Address of an entry point or extension function by name (clGetExtensionFunctionAddress).
void* entryPointAddress(const char* name);

} // namespace clsplit::icd
