// The clsplit ICD core as a private module for in-process API tests: the test loads it with
// dlopen(RTLD_LOCAL), because the core links Clang 16 and PoCL (which the core loads) brings
// Clang 15, whose unversioned symbols must not meet in the global scope. Exports only the
// dispatch table and the counts of live handles, real references and owned host memory.
#include "buffer-manager/storage/HostBlock.h"
#include "device/Real.h"
#include "icd/api/Dispatch.h"
#include "icd/objects/Object.h"

#define CLSPLIT_TEST_EXPORT extern "C" __attribute__((visibility("default")))

CLSPLIT_TEST_EXPORT const cl_icd_dispatch* clsplitTestDispatch() { return clsplit::icd::dispatchTable(); }

CLSPLIT_TEST_EXPORT size_t clsplitTestLiveHandles() { return clsplit::icd::liveHandleCount(); }

CLSPLIT_TEST_EXPORT long clsplitTestLiveRealReferences() { return clsplit::device::liveRealReferences.load(); }

CLSPLIT_TEST_EXPORT size_t clsplitTestLiveHostBytes() { return clsplit::buffer::liveHostBytes.load(); }
