// The pass-through decision: settings that only shape how work is split do not matter with one
// device; every other setting that differs from its default keeps clsplit's layer, so a new
// setting keeps it too until it is listed here.
#include "icd/config/PassThrough.h"

#include <algorithm>
#include <string_view>

namespace clsplit::icd {

namespace {

// Settings without effect when one device runs everything (or read before the choice).
constexpr std::string_view kIrrelevantOnOneDevice[] = {
    "CLSPLIT_PASSTHROUGH",     "CLSPLIT_DEVICES",       "CLSPLIT_STRATEGY",
    "CLSPLIT_SINGLE_DEVICE",   "CLSPLIT_VENDORS",       "CLSPLIT_LOG",
    "CLSPLIT_CONFIG",          "CLSPLIT_CACHE_DIR",     "CLSPLIT_HINTS",
    "CLSPLIT_WINDOWS",         "CLSPLIT_OVERLAP",       "CLSPLIT_SAMPLE_MS",
    "CLSPLIT_PINNED_MB",       "CLSPLIT_PINNED_STAGING_MB", "CLSPLIT_REPORT_LAUNCHES",
    "CLSPLIT_REPORT_TIMING",   "CLSPLIT_TEST_CONCURRENT_DEVICES",
};

} // namespace

PassThroughChoice choosePassThrough(const Settings& settings, size_t runningDevices, size_t devicesOfItsPlatform) {
  const std::string& mode = settings.value("CLSPLIT_PASSTHROUGH");
  if (mode == "off") return {false, "CLSPLIT_PASSTHROUGH=off"};
  if (runningDevices != 1)
    return {false, runningDevices == 0 ? "no device selected" : std::to_string(runningDevices) + " devices run kernels"};
  if (devicesOfItsPlatform != 1)
    return {false, "its platform has " + std::to_string(devicesOfItsPlatform) +
                       " devices, which the program would see"};
  for (const auto& spec : settingSpecs()) {
    const std::string_view name = spec.name;
    if (!settings.isSet(name)) continue;
    if (std::find(std::begin(kIrrelevantOnOneDevice), std::end(kIrrelevantOnOneDevice), name) !=
        std::end(kIrrelevantOnOneDevice))
      continue;
    return {false, std::string(name) + " is set"};
  }
  std::string reason = "one device runs every kernel";
  if (mode != "auto") reason += " (CLSPLIT_PASSTHROUGH=" + mode + " is not auto or off: auto)";
  return {true, reason};
}

} // namespace clsplit::icd
