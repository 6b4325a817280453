// Declarations of clsplit's implementation of every supported entry point, generated from
// ApiTable.def with the exact signatures of the OpenCL headers (a mismatch fails to compile).
#pragma once

#include "icd/objects/Handles.h"

namespace clsplit::icd::api {

#define CLSPLIT_API(name) decltype(::name) name;
#define CLSPLIT_UNSUPPORTED(name, code)
#include "icd/api/ApiTable.def"
#undef CLSPLIT_API
#undef CLSPLIT_UNSUPPORTED

} // namespace clsplit::icd::api
