// The conditions under which a basic block executes (the guards of its statement regions):
// the branch conditions along its dominator-tree path, each kept when it is a comparison the
// region language can express (thesis 3.1.2: iterated post-dominance frontier).
#pragma once

#include "analysis/analyzer/IRTranslator.h"
#include "analysis/region/Guard.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class DominatorTree;
class LoopInfo;
class Loop;
class PostDominatorTree;
} // namespace llvm

namespace clsplit::analysis::analyzer {

using Conjunction = std::vector<std::shared_ptr<const Guard>>;

struct ControlConditions {
  // The block runs when one of these conjunctions holds (disjunctive normal form: a
  // condition `a || b` gives two alternatives, each its own statement region, whose union is
  // exact). Never empty; {{}} means "always".
  std::vector<Conjunction> alternatives{Conjunction{}};
  // Every condition was captured: the block runs exactly when an alternative holds (given
  // that each enclosing loop runs the iterations its trip count says).
  bool exact = true;
  std::vector<std::string> dropped; // conditions that could not be expressed, for diagnostics
  // Loops whose continuation test lies on the path: the block's execution count depends on
  // the trip count, which only the induction sequences of those loops capture.
  std::vector<const llvm::Loop*> loopTests;
};

ControlConditions controlConditions(const llvm::BasicBlock* block, IRTranslator& translator, llvm::DominatorTree& dt,
                                    llvm::PostDominatorTree& pdt, llvm::LoopInfo& li);

} // namespace clsplit::analysis::analyzer
