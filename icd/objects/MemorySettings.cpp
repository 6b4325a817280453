// MemorySettings: parsing of the two device-memory settings.
#include "icd/objects/MemorySettings.h"

#include "icd/config/Settings.h"
#include "support/Log.h"

#include <charconv>
#include <mutex>
#include <string>

namespace clsplit::icd {

std::optional<uint64_t> parseByteSize(std::string_view text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  const std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
  unsigned shift = 0;
  if (unit == "K" || unit == "k")
    shift = 10;
  else if (unit == "M" || unit == "m")
    shift = 20;
  else if (unit == "G" || unit == "g")
    shift = 30;
  else if (!unit.empty())
    return std::nullopt;
  if (shift && value > (UINT64_MAX >> shift)) return std::nullopt;
  return value << shift;
}

const MemorySettings& memorySettings(const Settings& settings) {
  static std::once_flag once;
  static MemorySettings parsed;
  std::call_once(once, [&] {
    const std::string& mode = settings.value("CLSPLIT_WINDOWS");
    if (mode == "off")
      parsed.policy = buffer::WindowPolicy::Off;
    else if (mode == "always")
      parsed.policy = buffer::WindowPolicy::Always;
    else if (mode != "auto")
      log().warn("CLSPLIT_WINDOWS={} is not auto, always or off; using auto", mode);
    const std::string& cap = settings.value("CLSPLIT_DEVICE_MEMORY");
    if (!cap.empty()) {
      parsed.cap = parseByteSize(cap);
      if (!parsed.cap || *parsed.cap == 0) {
        log().warn("CLSPLIT_DEVICE_MEMORY={} is not a size (bytes, or with K, M or G); using each device's memory",
                   cap);
        parsed.cap.reset();
      }
    }
  });
  return parsed;
}

} // namespace clsplit::icd
