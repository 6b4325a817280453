// Walks from a block up its dominator tree. A step from a block to its immediate dominator is
// unconditional when the block post-dominates it; otherwise the dominator's branch edge that
// leads to the block is a necessary condition (and sufficient, when the block post-dominates
// that edge's target), which becomes a guard if it is a comparison of integers.
#include "analysis/analyzer/ControlConditions.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PatternMatch.h>

namespace clsplit::analysis::analyzer {

namespace {

std::optional<CmpOp> cmpOf(llvm::CmpInst::Predicate p) {
  switch (p) {
  case llvm::CmpInst::ICMP_EQ:
    return CmpOp::Eq;
  case llvm::CmpInst::ICMP_NE:
    return CmpOp::Ne;
  case llvm::CmpInst::ICMP_SLT:
    return CmpOp::SLt;
  case llvm::CmpInst::ICMP_SLE:
    return CmpOp::SLe;
  case llvm::CmpInst::ICMP_SGT:
    return CmpOp::SGt;
  case llvm::CmpInst::ICMP_SGE:
    return CmpOp::SGe;
  case llvm::CmpInst::ICMP_ULT:
    return CmpOp::ULt;
  case llvm::CmpInst::ICMP_ULE:
    return CmpOp::ULe;
  case llvm::CmpInst::ICMP_UGT:
    return CmpOp::UGt;
  case llvm::CmpInst::ICMP_UGE:
    return CmpOp::UGe;
  default:
    return std::nullopt;
  }
}

// Conditions in disjunctive normal form; nullopt: not expressible.
using Dnf = std::vector<Conjunction>;
constexpr size_t kMaxAlternatives = 16;

std::optional<Dnf> product(const Dnf& a, const Dnf& b) {
  if (a.size() * b.size() > kMaxAlternatives) return std::nullopt;
  Dnf out;
  for (const auto& x : a)
    for (const auto& y : b) {
      Conjunction c = x;
      c.insert(c.end(), y.begin(), y.end());
      out.push_back(std::move(c));
    }
  return out;
}

class ConditionBuilder {
public:
  ConditionBuilder(IRTranslator& t, ControlConditions& out) : t_(t), out_(out) {}

  // Adds "cond == holds" as a necessary and sufficient condition.
  void add(const llvm::Value* cond, bool holds, const llvm::BasicBlock* at) {
    auto d = dnf(cond, holds, at, 0);
    if (!d) return; // dropped (already noted)
    auto combined = product(out_.alternatives, *d);
    if (!combined) return drop(cond, "condition with too many alternatives");
    out_.alternatives = std::move(*combined);
  }

  std::optional<Dnf> dnf(const llvm::Value* cond, bool holds, const llvm::BasicBlock* at, unsigned depth) {
    using namespace llvm::PatternMatch;
    const llvm::Value *a = nullptr, *b = nullptr;
    if (depth > 16) {
      drop(cond, "condition too complex");
      return std::nullopt;
    }
    if (llvm::isa<llvm::ConstantInt>(cond)) return Dnf{Conjunction{}}; // a constant branch
    if (match(cond, m_Not(m_Value(a)))) return dnf(a, !holds, at, depth + 1);
    bool isAnd = match(cond, m_LogicalAnd(m_Value(a), m_Value(b)));
    bool isOr = !isAnd && match(cond, m_LogicalOr(m_Value(a), m_Value(b)));
    if (isAnd || isOr) {
      // and with holds / or without: both sides hold (a product); otherwise one of them (a union).
      bool both = isAnd == holds;
      auto x = dnf(a, holds, at, depth + 1);
      auto y = dnf(b, holds, at, depth + 1);
      if (both) {
        if (!x && !y) return std::nullopt;
        if (!x) return y; // dropping one side of a conjunction over-approximates
        if (!y) return x;
        auto p = product(*x, *y);
        if (!p) drop(cond, "condition with too many alternatives");
        return p;
      }
      if (!x || !y) return std::nullopt; // an unknown alternative may hold anywhere
      if (x->size() + y->size() > kMaxAlternatives) {
        drop(cond, "condition with too many alternatives");
        return std::nullopt;
      }
      Dnf u = *x;
      u.insert(u.end(), y->begin(), y->end());
      return u;
    }
    auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(cond);
    if (!cmp) {
      drop(cond, "condition that is not an integer comparison");
      return std::nullopt;
    }
    auto op = cmpOf(cmp->getPredicate());
    if (!op) {
      drop(cond, "comparison");
      return std::nullopt;
    }
    IRTranslator::Context ctx;
    ctx.at = at;
    ExprRef lhs, rhs;
    const llvm::Value* l = cmp->getOperand(0);
    const llvm::Value* r = cmp->getOperand(1);
    if (l->getType()->isPointerTy()) {
      auto base = t_.baseArgument(l);
      if (!base || base != t_.baseArgument(r)) {
        drop(cond, "comparison of pointers");
        return std::nullopt;
      }
      lhs = t_.offsetOf(l, *base, ctx);
      rhs = t_.offsetOf(r, *base, ctx);
    } else {
      lhs = t_.value(l, ctx);
      rhs = t_.value(r, ctx);
    }
    if (lhs->containsUndef() || rhs->containsUndef()) {
      const auto& reason = lhs->containsUndef() ? undefReason(*lhs) : undefReason(*rhs);
      drop(cond, "condition on " + reason);
      return std::nullopt;
    }
    if (!ctx.sequenceLoops.empty()) {
      drop(cond, "condition that changes with a loop's iterations");
      return std::nullopt;
    }
    if (ctx.inexact) {
      out_.exact = false;
      for (auto& w : ctx.why) note(w);
    }
    auto g = std::make_shared<Guard>();
    g->op = holds ? *op : negate(*op);
    g->lhs = std::move(lhs);
    g->rhs = std::move(rhs);
    return Dnf{Conjunction{std::move(g)}};
  }

  void addGuard(std::shared_ptr<const Guard> g) {
    for (auto& c : out_.alternatives) c.push_back(g);
  }

  void drop(const llvm::Value* cond, const std::string& what) {
    out_.exact = false;
    std::string line;
    if (auto* i = llvm::dyn_cast<llvm::Instruction>(cond); i && IRTranslator::lineOf(i))
      line = " at line " + std::to_string(IRTranslator::lineOf(i));
    note("a " + what + line + " was ignored");
  }

  void note(const std::string& s) {
    for (const auto& d : out_.dropped)
      if (d == s) return;
    out_.dropped.push_back(s);
  }

private:
  static const std::string& undefReason(const Expr& e) {
    if (e.isUndef()) return e.reason();
    for (const auto& op : e.operands())
      if (op->containsUndef()) return undefReason(*op);
    static const std::string none = "an unknown value";
    return none;
  }

  IRTranslator& t_;
  ControlConditions& out_;
};

} // namespace

ControlConditions controlConditions(const llvm::BasicBlock* block, IRTranslator& translator, llvm::DominatorTree& dt,
                                    llvm::PostDominatorTree& pdt, llvm::LoopInfo& li) {
  ControlConditions out;
  ConditionBuilder builder(translator, out);
  const llvm::BasicBlock* c = block;
  auto* node = dt.getNode(c);
  if (!node) {
    out.exact = false;
    return out;
  }
  for (auto* idom = node->getIDom(); idom; c = idom->getBlock(), idom = idom->getIDom()) {
    const llvm::BasicBlock* p = idom->getBlock();
    if (pdt.dominates(c, p)) continue; // p's execution implies c's
    const llvm::Instruction* term = p->getTerminator();
    if (auto* br = llvm::dyn_cast<llvm::BranchInst>(term); br && br->isConditional()) {
      const llvm::BasicBlock* t = br->getSuccessor(0);
      const llvm::BasicBlock* f = br->getSuccessor(1);
      if (t == f) continue;
      int taken = -1;
      if (dt.dominates(llvm::BasicBlockEdge(p, t), c))
        taken = 1;
      else if (dt.dominates(llvm::BasicBlockEdge(p, f), c))
        taken = 0;
      if (taken < 0) {
        builder.drop(br->getCondition(), "condition reached from both sides");
        continue;
      }
      const llvm::BasicBlock* s = taken ? t : f;
      const llvm::BasicBlock* other = taken ? f : t;
      if (!pdt.dominates(c, s)) {
        out.exact = false;
        builder.note("a branch between line " + std::to_string(IRTranslator::lineOf(term)) +
                     " and the access was not followed");
      }
      // The continuation test of a loop that contains the block: the trip count models it.
      const llvm::Loop* continued = nullptr;
      for (const llvm::Loop* l = li.getLoopFor(p); l; l = l->getParentLoop())
        if (l->contains(c) && !l->contains(other)) {
          continued = l;
          break;
        }
      if (continued) {
        if (continued->getExitingBlock() != p) {
          out.exact = false;
          builder.note("the loop at line " + std::to_string(IRTranslator::lineOf(term)) + " has several exits");
        }
        out.loopTests.push_back(continued);
        continue;
      }
      builder.add(br->getCondition(), taken == 1, p);
      continue;
    }
    if (auto* sw = llvm::dyn_cast<llvm::SwitchInst>(term)) {
      const llvm::BasicBlock* dest = nullptr;
      for (unsigned k = 0; k < sw->getNumSuccessors(); ++k)
        if (dt.dominates(llvm::BasicBlockEdge(p, sw->getSuccessor(k)), c)) dest = sw->getSuccessor(k);
      if (!dest) {
        builder.drop(sw->getCondition(), "switch reached from several cases");
        continue;
      }
      if (!pdt.dominates(c, dest)) out.exact = false;
      IRTranslator::Context ctx;
      ctx.at = p;
      ExprRef x = translator.value(sw->getCondition(), ctx);
      if (x->containsUndef() || !ctx.sequenceLoops.empty() || x->type().bits > 64) {
        builder.drop(sw->getCondition(), "switch on a value the analysis cannot follow");
        continue;
      }
      if (dest == sw->getDefaultDest()) {
        for (auto& cs : sw->cases()) {
          auto g = std::make_shared<Guard>();
          g->op = CmpOp::Ne;
          g->lhs = x;
          g->rhs = Expr::constant(cs.getCaseValue()->getSExtValue(), cs.getCaseValue()->getBitWidth());
          builder.addGuard(std::move(g));
        }
        continue;
      }
      const llvm::ConstantInt* only = nullptr;
      unsigned matches = 0;
      for (auto& cs : sw->cases())
        if (cs.getCaseSuccessor() == dest) {
          only = cs.getCaseValue();
          ++matches;
        }
      if (matches != 1) {
        builder.drop(sw->getCondition(), "switch with several cases leading to the access");
        continue;
      }
      auto g = std::make_shared<Guard>();
      g->op = CmpOp::Eq;
      g->lhs = x;
      g->rhs = Expr::constant(only->getSExtValue(), only->getBitWidth());
      builder.addGuard(std::move(g));
      continue;
    }
    out.exact = false;
    builder.note("control flow the analysis does not follow");
  }
  return out;
}

} // namespace clsplit::analysis::analyzer
