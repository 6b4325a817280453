// On-disk cache of program analyses, keyed by programHash(): a program built again (the next
// run of the application) skips Clang entirely. One file per program, written atomically.
#pragma once

#include "analysis/Analysis.h"

#include <optional>
#include <string>
#include <string_view>

namespace clsplit::analysis::cache {

// Bumped whenever the encoding below changes; files of another version are ignored.
inline constexpr uint32_t kCacheFormatVersion =
    5; // 2: image arguments' access; 3: window shifts; 4: external calls; 5: included files

// $XDG_CACHE_HOME/clsplit, else $HOME/.cache/clsplit, else "" (no cache).
std::string defaultCacheDirectory();

// Self-describing, checksummed bytes of one analysis.
std::string encode(const ProgramAnalysis& analysis, std::string_view key);
// nullopt (with the reason) for anything truncated, corrupt, of another format version or
// region-format version, or stored under another key.
std::optional<ProgramAnalysis> decode(std::string_view bytes, std::string_view key, std::string* error = nullptr);

// Reads <directory>/<key>.analysis. A missing, unreadable or invalid file is a miss.
std::optional<ProgramAnalysis> load(const std::string& directory, std::string_view key, std::string* error = nullptr);
// Writes <directory>/<key>.analysis through a temporary file and a rename, creating the
// directory. Concurrent writers of the same key are harmless (the last rename wins).
bool store(const std::string& directory, std::string_view key, const ProgramAnalysis& analysis,
           std::string* error = nullptr);

std::string cacheFilePath(const std::string& directory, std::string_view key);

} // namespace clsplit::analysis::cache
