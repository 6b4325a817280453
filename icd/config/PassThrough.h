// When clsplit steps aside: with one real device running every kernel there is nothing to split,
// so the program is handed that device's own platform and runs exactly as directly.
#pragma once

#include "icd/config/Settings.h"

#include <cstddef>
#include <string>

namespace clsplit::icd {

struct PassThroughChoice {
  bool passThrough = false;
  std::string reason;  // why (not): for the log
  std::string warning; // a setting not understood (the layer is then kept)
};

// `runningDevices`: how many selected devices may run kernels (1 under the single strategy).
// Passes through when it is one, CLSPLIT_PASSTHROUGH is auto, and no setting asks for work of
// clsplit's own (a report, a trace, a device type, a memory limit, a test setting...).
PassThroughChoice choosePassThrough(const Settings& settings, size_t runningDevices);

} // namespace clsplit::icd
