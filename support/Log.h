// The one logger every clsplit component writes to (spdlog, stderr, level from CLSPLIT_LOG).
#pragma once

#include <spdlog/spdlog.h>

namespace clsplit {

// Returns the process-wide "clsplit" logger, created on first use at the level named by
// CLSPLIT_LOG (off|error|warn|info|debug|trace; default warn).
spdlog::logger& log();

// Re-reads the level (used once configuration, which may come from a file, is known).
void setLogLevel(const std::string& level);

} // namespace clsplit
