// The ICD core linked into the in-process API tests: they call clsplit's entry points through
// its dispatch table, without an ICD loader in between, so invalid handles reach clsplit itself
// (a loader would dereference them first); and they count what clsplit holds.
#pragma once

#include "buffer-manager/storage/HostBlock.h"
#include "device/OpenCL.h" // the ICD's own view: every dispatch slot with its function type
#include "device/Real.h"
#include "icd/api/Dispatch.h"
#include "icd/objects/Object.h"

namespace clsplit::test {

struct IcdCore {
  const cl_icd_dispatch* dispatch = icd::dispatchTable();
  size_t liveHandles() const { return icd::liveHandleCount(); }
  // References to vendor objects clsplit holds.
  long liveRealReferences() const { return device::liveRealReferences.load(); }
  // Host memory clsplit owns (staging, host versions).
  size_t liveHostBytes() const { return buffer::liveHostBytes.load(); }
};

inline const IcdCore& icdCore() {
  static const IcdCore core;
  return core;
}

} // namespace clsplit::test
