// The entry points by name; the one dispatch table every clsplit handle points to
// (dispatchTable()) is declared with the handles (icd/objects/Handles.h).
#pragma once

#include "icd/objects/Handles.h"

namespace clsplit::icd {

// Address of an entry point or extension function by name (clGetExtensionFunctionAddress).
void* entryPointAddress(const char* name);

} // namespace clsplit::icd
