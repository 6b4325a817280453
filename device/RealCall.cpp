// Vendor error reporting.
#include "device/RealCall.h"

#include "support/Log.h"

namespace clsplit::device {

void check(cl_int status, const char* what) {
  if (status == CL_SUCCESS) return;
  log().warn("vendor call failed: {} -> {}", what, errorName(status));
  throw Error(status, std::string("vendor call failed: ") + what);
}

} // namespace clsplit::device
