// The pass-through decision: settings that only shape how work is split do not matter with one
// device; every other setting that differs from its default keeps clsplit's layer, so a new
// setting keeps it too until it is listed here.
#include "icd/config/PassThrough.h"

#include <algorithm>
#include <cctype>
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
    "CLSPLIT_REPORT_TIMING",   "CLSPLIT_TEST_CONCURRENT_DEVICES", "CLSPLIT_EAGER_UPLOAD",
    "CLSPLIT_EVENTLESS",       "CLSPLIT_TEST_FORCE_STAGING",
};

std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Whether a setting that differs from its default still asks nothing of clsplit on one device.
bool irrelevantOnOneDevice(std::string_view name, const std::string& value) {
  if (std::find(std::begin(kIrrelevantOnOneDevice), std::end(kIrrelevantOnOneDevice), name) !=
      std::end(kIrrelevantOnOneDevice))
    return true;
  // No host-pointer coherence of clsplit's own: what the vendor does when clsplit steps aside.
  return name == "CLSPLIT_HOST_PTR_SYNC" && value == "0";
}

} // namespace

PassThroughChoice choosePassThrough(const Settings& settings, size_t runningDevices) {
  const std::string& given = settings.value("CLSPLIT_PASSTHROUGH");
  const std::string mode = lowered(given);
  if (mode == "off" || mode == "0" || mode == "false" || mode == "no") return {false, "CLSPLIT_PASSTHROUGH=" + given, ""};
  if (mode != "auto" && mode != "on" && mode != "1" && mode != "true" && mode != "yes" && !mode.empty()) {
    std::string why = "CLSPLIT_PASSTHROUGH=" + given + " is not auto or off: clsplit keeps its layer";
    return {false, why, why};
  }
  if (runningDevices != 1)
    return {false,
            runningDevices == 0 ? "no device selected" : "kernels run on " + std::to_string(runningDevices) + " devices",
            ""};
  for (const auto& spec : settingSpecs()) {
    const std::string_view name = spec.name;
    if (!settings.isSet(name) || irrelevantOnOneDevice(name, settings.value(name))) continue;
    return {false, std::string(name) + " is set", ""};
  }
  // Coherent CL_MEM_USE_HOST_PTR memory is the default level, which stepping aside leaves to the
  // vendor (NVIDIA does not keep it coherent without a map): asking for it by name keeps it.
  if (settings.origin("CLSPLIT_HOST_PTR_SYNC") != "default" && settings.value("CLSPLIT_HOST_PTR_SYNC") != "0")
    return {false, "CLSPLIT_HOST_PTR_SYNC is given", ""};
  return {true, "one device runs every kernel", ""};
}

} // namespace clsplit::icd
