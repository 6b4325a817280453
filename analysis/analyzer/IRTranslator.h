// LLVM IR values -> region-language expressions, following use-def chains (thesis 3.1.2):
// work-item calls, scalar arguments, constants, arithmetic, casts, induction variables (as
// sequences with ScalarEvolution trip counts), indirections (loads from buffer arguments) and
// byte offsets of pointers relative to a buffer argument. Anything else becomes Undef with a
// reason users can read.
#pragma once

#include "analysis/region/Expr.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallPtrSet.h>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class Argument;
class BasicBlock;
class DataLayout;
class DominatorTree;
class Function;
class Instruction;
class Loop;
class LoopInfo;
class SCEV;
class SCEVAddRecExpr;
class ScalarEvolution;
class Value;
} // namespace llvm

namespace clsplit::analysis::analyzer {

class IRTranslator {
public:
  struct Context {
    const llvm::BasicBlock* at = nullptr;      // where the translated values are used
    bool pragma = false;                       // a pragma's expression: indirections through buffers
                                               // the kernel writes read their values before it runs
    bool inexact = false;                      // an over-approximation was made
    std::vector<std::string> why;              // ... and why, for diagnostics
    std::set<const llvm::Loop*> sequenceLoops; // loops whose induction sequences appear
    void approximate(std::string reason) {
      inexact = true;
      for (const auto& w : why)
        if (w == reason) return;
      why.push_back(std::move(reason));
    }
  };

  IRTranslator(llvm::Function& kernel, llvm::ScalarEvolution& se, llvm::LoopInfo& li, llvm::DominatorTree& dt);

  // Element type of each buffer argument as declared (kernel_arg_base_type), for indirections.
  void setDeclaredElementType(unsigned arg, ScalarType type);
  // Buffers the kernel writes: values loaded from them are not usable indirections.
  void setWrittenBuffers(std::set<unsigned> written) { written_ = std::move(written); }
  // Names for diagnostics.
  void setArgNamer(std::function<std::string(unsigned)> names) { names_ = std::move(names); }

  // Value of an integer or floating-point IR value at ctx.at.
  ExprRef value(const llvm::Value* v, Context& ctx);
  // Byte offset of pointer p from the start of buffer argument `arg`, or Undef.
  ExprRef offsetOf(const llvm::Value* p, unsigned arg, Context& ctx);
  // The buffer argument a pointer is derived from (through GEPs and casts), if unique.
  std::optional<unsigned> baseArgument(const llvm::Value* p) const;
  // Translation of a ScalarEvolution expression.
  ExprRef scev(const llvm::SCEV* s, Context& ctx);
  // Source line of an instruction (0 when unknown).
  static unsigned lineOf(const llvm::Instruction* i);

  llvm::ScalarEvolution& scalarEvolution() { return se_; }
  llvm::LoopInfo& loopInfo() { return li_; }

private:
  ExprRef valueImpl(const llvm::Value* v, Context& ctx, unsigned depth);
  ExprRef instruction(const llvm::Instruction* i, Context& ctx, unsigned depth);
  ExprRef call(const llvm::Instruction* i, Context& ctx, unsigned depth);
  ExprRef load(const llvm::Instruction* i, Context& ctx, unsigned depth);
  ExprRef addRec(const llvm::SCEVAddRecExpr* ar, Context& ctx, unsigned depth);
  ExprRef scevImpl(const llvm::SCEV* s, Context& ctx, unsigned depth);
  const llvm::SCEV* exitBound(const llvm::Loop* loop, const llvm::SCEVAddRecExpr* ar);
  ExprRef offsetImpl(const llvm::Value* p, unsigned arg, Context& ctx, unsigned depth);
  std::string where(const llvm::Instruction* i) const;
  std::string argName(unsigned arg) const;

  llvm::Function& kernel_;
  llvm::ScalarEvolution& se_;
  llvm::LoopInfo& li_;
  llvm::DominatorTree& dt_;
  const llvm::DataLayout& dl_;
  std::vector<ScalarType> declared_;
  std::set<unsigned> written_;
  std::function<std::string(unsigned)> names_;
};

} // namespace clsplit::analysis::analyzer
