// LLVM IR preparation for the analyzer: file-scope monotone pragmas turned into marker calls,
// then inlining and SSA simplification (the IR contract of Frontend.h).
#pragma once

#include "analysis/frontend/PragmaMarkers.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class Module;
}

namespace clsplit::analysis::frontend {

// kernel name -> (argument index, Increasing|Decreasing) for each file-scope monotone pragma.
using MonotoneArgs = std::map<std::string, std::vector<std::pair<unsigned, MarkerKind>>>;

// Inserts a call to the monotone marker for each listed argument at the entry of its kernel.
void insertMonotoneMarkers(llvm::Module& module, const MonotoneArgs& args);

// Always-inlines every non-kernel function (and every kernel called from another kernel),
// deletes the non-kernel ones, and simplifies each kernel into SSA.
void simplifyForAnalysis(llvm::Module& module);

} // namespace clsplit::analysis::frontend
