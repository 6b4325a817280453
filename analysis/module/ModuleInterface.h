// What libclsplit-analyzer.so exports: one C symbol returning a table that the ICD's loader
// checks before use. Both sides are built from one tree, so C++ types may cross; the build id
// makes sure they really were.
#pragma once

#include "analysis/Analysis.h"

#include <cstdint>

namespace clsplit::analysis::module {

inline constexpr uint32_t kInterfaceVersion = 1;
inline constexpr const char* kEntrySymbol = "clsplit_analyzer_module";
inline constexpr const char* kFileName = "libclsplit-analyzer.so";

struct ModuleTable {
  uint32_t interfaceVersion;
  const char* buildId;                    // analysisBuildId() of the module's build
  void (*setLogLevel)(const char* level); // the module's logger follows the ICD's (CLSPLIT_LOG or config)
  UncachedAnalyzer analyze;               // never throws: failures come back as runsWhole()
};

using EntryFunction = const ModuleTable* (*)();

} // namespace clsplit::analysis::module
