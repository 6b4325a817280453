// Clone + pass pipeline. Works on the front end's simplified IR as well as on Clang's raw -O0
// output (everything gets inlined into the kernels first).
#include "analysis/analyzer/AnalysisPipeline.h"

#include "analysis/analyzer/OpenCLBuiltins.h"
#include "analysis/frontend/PassManagers.h"
#include "support/Log.h"

#include <llvm/IR/CallingConv.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cstdlib>

namespace clsplit::analysis::analyzer {

namespace {
// No sinking/hoisting of common instructions: merging the stores of two branches into one
// store to a selected address would turn two exact regions into one over-approximation.
constexpr const char* kPipeline = "always-inline,"
                                  "function(sroa<modify-cfg>,early-cse<memssa>,instcombine,"
                                  "simplifycfg<no-sink-common-insts;no-hoist-common-insts>,loop-simplify,lcssa,"
                                  "loop(loop-rotate),loop-mssa(licm),gvn,instcombine,"
                                  "simplifycfg<no-sink-common-insts;no-hoist-common-insts>,loop-simplify,lcssa,"
                                  "loop(indvars),loop-simplify,lcssa)";
} // namespace

std::unique_ptr<llvm::Module> prepareForAnalysis(const llvm::Module& module) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  for (llvm::Function& f : *copy) {
    if (f.isDeclaration()) {
      // Work-item functions are constant for a work-item: let LICM/GVN treat them as such
      // (Clang marks them convergent, which forbids hoisting them out of loops, and then the
      // step of `i += get_global_size(0)` is not loop-invariant for ScalarEvolution).
      auto kind = classifyBuiltin(f.getName()).kind;
      if (kind == BuiltinKind::WorkItem || kind == BuiltinKind::Launch) {
        f.removeFnAttr(llvm::Attribute::Convergent);
        f.setDoesNotAccessMemory();
        f.setDoesNotThrow();
        f.setWillReturn();
        f.addFnAttr(llvm::Attribute::Speculatable);
        for (llvm::User* u : f.users())
          if (auto* call = llvm::dyn_cast<llvm::CallBase>(u)) call->removeFnAttr(llvm::Attribute::Convergent);
      }
      continue;
    }
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.removeFnAttr(llvm::Attribute::NoInline);
    if (f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL) f.addFnAttr(llvm::Attribute::AlwaysInline);
  }
  frontend::PassManagers managers;
  llvm::ModulePassManager passes;
  if (auto err = managers.builder.parsePassPipeline(passes, kPipeline)) {
    // A build of LLVM without one of these passes: analyse the unsimplified copy.
    log().warn("analysis pipeline unavailable: {}", llvm::toString(std::move(err)));
    return copy;
  }
  passes.run(*copy, managers.modules);
  // Debugging aid: the IR the analyzer works on.
  if (const char* dump = std::getenv("CLSPLIT_DUMP_ANALYSIS_IR"); dump && *dump == '1')
    copy->print(llvm::errs(), nullptr);
  return copy;
}

} // namespace clsplit::analysis::analyzer
