// The process-wide logger: created lazily so that any component can log before configuration.
#include "support/Log.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>

namespace clsplit {

namespace {
spdlog::level::level_enum parseLevel(const char* text) {
  if (!text || !*text) return spdlog::level::warn;
  auto level = spdlog::level::from_str(text);
  // from_str maps unknown names to "off"; accept the spelled-out "warning" too.
  if (std::string(text) == "warning") level = spdlog::level::warn;
  return level;
}
} // namespace

spdlog::logger& log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto l = std::make_shared<spdlog::logger>("clsplit", sink);
    l->set_pattern("[clsplit %L] %v");
    l->set_level(parseLevel(std::getenv("CLSPLIT_LOG")));
    l->flush_on(spdlog::level::warn);
    return l;
  }();
  return *logger;
}

void setLogLevel(const std::string& level) { log().set_level(parseLevel(level.c_str())); }

} // namespace clsplit
