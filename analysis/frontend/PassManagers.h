// The four LLVM analysis managers, registered and cross-wired once: what every pass pipeline of
// the analysis needs (the IR simplification, the analyzer's pipeline, the per-kernel analyses).
#pragma once

#include <llvm/Passes/PassBuilder.h>

namespace clsplit::analysis::frontend {

struct PassManagers {
  // Declared before the builder: the managers outlive what the builder registered in them.
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder;

  PassManagers() {
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(cgscc);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, cgscc, modules);
  }
  PassManagers(const PassManagers&) = delete;
  PassManagers& operator=(const PassManagers&) = delete;
};

} // namespace clsplit::analysis::frontend
