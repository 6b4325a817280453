// The kernel analyzer's entry point: LLVM IR of a program (as the front end produces it) ->
// per kernel, the parametric read/write/atomic regions of every buffer argument, whether the
// kernel can be split safely, and where the analysis lost precision.
#pragma once

#include "analysis/Analysis.h"

#include <functional>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace clsplit::analysis {

struct ModuleAnalysis {
  // One entry per kernel (spir_kernel function), in module order. The analyzer fills
  // regions, unsplittableReason and imprecisions; name and args come from the IR and its
  // kernel-argument metadata (names need -cl-kernel-arg-info; otherwise "arg<i>");
  // partitionReady is left false for the transformer to decide.
  std::vector<KernelAnalysis> kernels;
  // Pragma misuse the analyzer detects (e.g. a region pragma on something that is not a
  // buffer argument): the program's build must fail.
  std::vector<Diagnostic> errors;
};

// Changes whenever the analyzer may produce different regions for the same IR: part of the
// on-disk cache key (with kRegionsFormatVersion), so stale results are not reused.
inline constexpr unsigned kAnalyzerRevision = 3;

struct AnalyzerOptions {
  // Parameter names of a kernel as written in the source (the front end knows them from the
  // AST); used in args and in diagnostics. Unset or short: kernel_arg_name metadata, "arg<i>".
  std::function<std::vector<std::string>(const std::string& kernel)> argumentNames;
};

// Never modifies `module` (the analyzer canonicalises its own copy) and never throws; a kernel
// it cannot analyse comes back unsplittable with the reason.
ModuleAnalysis analyzeModule(const llvm::Module& module, const AnalyzerOptions& options = {});

} // namespace clsplit::analysis
