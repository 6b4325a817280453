// The analyzer as a module of its own (libclsplit-analyzer.so), loaded by the ICD on its first
// analysis-cache miss: Clang and LLVM (~40 ms to load on the 2-core machine) stay out of every
// process whose programs' analyses are cached.
#pragma once

#include "analysis/Analysis.h"

namespace clsplit::analysis::module {

// An analyzer that loads the module on its first call (once per process, thread-safe) and runs
// it. The module is looked for in CLSPLIT_ANALYZER_MODULE if set, else next to the library or
// program holding this code and in its ../lib, else where the build tree put it. If it cannot be
// loaded, or comes from another build, each call throws with the reason (analyzeCached() turns
// that into "run whole", not cached).
UncachedAnalyzer loadingAnalyzer();

// Whether the module has been loaded in this process (tests; the run report).
bool loaded();

} // namespace clsplit::analysis::module
