// Clone + pass pipeline. Works on the front end's simplified IR as well as on Clang's raw -O0
// output (everything gets inlined into the kernels first).
#include "analysis/analyzer/AnalysisPipeline.h"

#include "support/Log.h"

#include <llvm/IR/CallingConv.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Transforms/Utils/Cloning.h>

namespace clsplit::analysis::analyzer {

namespace {
// No sinking/hoisting of common instructions: merging the stores of two branches into one
// store to a selected address would turn two exact regions into one over-approximation.
constexpr const char* kPipeline =
    "always-inline,"
    "function(sroa<modify-cfg>,early-cse<memssa>,instcombine,"
    "simplifycfg<no-sink-common-insts;no-hoist-common-insts>,loop-simplify,lcssa,"
    "loop(loop-rotate),loop-mssa(licm),gvn,instcombine,"
    "simplifycfg<no-sink-common-insts;no-hoist-common-insts>,loop-simplify,lcssa,"
    "loop(indvars),loop-simplify,lcssa)";
} // namespace

std::unique_ptr<llvm::Module> prepareForAnalysis(const llvm::Module& module) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  for (llvm::Function& f : *copy) {
    if (f.isDeclaration()) continue;
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.removeFnAttr(llvm::Attribute::NoInline);
    if (f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL) f.addFnAttr(llvm::Attribute::AlwaysInline);
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes;
  if (auto err = builder.parsePassPipeline(passes, kPipeline)) {
    // A build of LLVM without one of these passes: analyse the unsimplified copy.
    log().warn("analysis pipeline unavailable: {}", llvm::toString(std::move(err)));
    return copy;
  }
  passes.run(*copy, mam);
  return copy;
}

} // namespace clsplit::analysis::analyzer
