// The pass pipeline that turns Clang's IR into the form the analyzer expects (Frontend.h).
#include "analysis/frontend/IRPipeline.h"

#include "analysis/frontend/PassManagers.h"

#include <llvm/IR/CallingConv.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/LCSSA.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>

namespace clsplit::analysis::frontend {

namespace {

bool isKernel(const llvm::Function& f) { return f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL; }

// Mangled like Clang mangles the overloadable declarations of PragmaMarkers.h, so a marker
// inserted here is the same function as one written in a kernel body.
std::string monotoneMarkerName(MarkerKind kind, unsigned addressSpace) {
  std::string base(kind == MarkerKind::Increasing ? kIncreasingMarker : kDecreasingMarker);
  return "_Z" + std::to_string(base.size()) + base + "PU3AS" + std::to_string(addressSpace) + "VKv";
}

} // namespace

void insertMonotoneMarkers(llvm::Module& module, const MonotoneArgs& args) {
  for (const auto& [kernelName, list] : args) {
    llvm::Function* kernel = module.getFunction(kernelName);
    if (!kernel || kernel->isDeclaration()) continue;
    llvm::IRBuilder<> builder(&*kernel->getEntryBlock().getFirstInsertionPt());
    for (auto [index, kind] : list) {
      if (index >= kernel->arg_size()) continue;
      llvm::Argument* arg = kernel->getArg(index);
      auto* ptrType = llvm::dyn_cast<llvm::PointerType>(arg->getType());
      if (!ptrType) continue;
      auto callee = module.getOrInsertFunction(monotoneMarkerName(kind, ptrType->getAddressSpace()),
                                               llvm::FunctionType::get(builder.getVoidTy(), {ptrType}, false));
      if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        fn->setCallingConv(llvm::CallingConv::SPIR_FUNC);
        fn->addFnAttr(llvm::Attribute::NoUnwind);
        fn->addFnAttr(llvm::Attribute::Convergent);
      }
      llvm::CallInst* call = builder.CreateCall(callee, {arg});
      call->setCallingConv(llvm::CallingConv::SPIR_FUNC);
      if (auto* sp = kernel->getSubprogram())
        call->setDebugLoc(llvm::DILocation::get(module.getContext(), sp->getLine(), 0, sp));
    }
  }
}

void simplifyForAnalysis(llvm::Module& module) {
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.removeFnAttr(llvm::Attribute::NoInline);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
    // Helpers are only reachable through kernels: once inlined they can go.
    if (!isKernel(f)) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }

  PassManagers managers;

  llvm::FunctionPassManager functionPasses;
  functionPasses.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  functionPasses.addPass(llvm::EarlyCSEPass());
  functionPasses.addPass(llvm::InstCombinePass());
  functionPasses.addPass(llvm::SimplifyCFGPass());
  functionPasses.addPass(llvm::LoopSimplifyPass());
  functionPasses.addPass(llvm::LCSSAPass());

  llvm::ModulePassManager passes;
  passes.addPass(llvm::AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
  passes.addPass(llvm::GlobalDCEPass());
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(functionPasses)));
  passes.run(module, managers.modules);
}

} // namespace clsplit::analysis::frontend
