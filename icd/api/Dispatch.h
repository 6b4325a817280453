// The entry points by name; the one dispatch table every clsplit handle points to
// (dispatchTable()) is declared with the handles (icd/objects/Handles.h).
#pragma once

#include "icd/objects/Handles.h"

namespace clsplit::icd {

// Address of one of clsplit's entry points by name (its clGetExtensionFunctionAddress).
void* entryPointAddress(const char* name);
// What the exported clGetExtensionFunctionAddress answers the loader: clsplit's entry points, or
// the vendor's where clsplit steps aside (icd/api/PassThrough.h). Never throws; null on failure.
void* loaderEntryPoint(const char* name) noexcept;

} // namespace clsplit::icd
