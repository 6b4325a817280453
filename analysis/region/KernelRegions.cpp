// Printing of guards, statement regions and parametric regions.
#include "analysis/region/KernelRegions.h"

#include <algorithm>

namespace clsplit::analysis {

std::string_view name(CmpOp op) {
  switch (op) {
  case CmpOp::Eq:
    return "==";
  case CmpOp::Ne:
    return "!=";
  case CmpOp::SLt:
    return "<";
  case CmpOp::SLe:
    return "<=";
  case CmpOp::SGt:
    return ">";
  case CmpOp::SGe:
    return ">=";
  case CmpOp::ULt:
    return "<u";
  case CmpOp::ULe:
    return "<=u";
  case CmpOp::UGt:
    return ">u";
  case CmpOp::UGe:
    return ">=u";
  }
  return "?";
}

CmpOp negate(CmpOp op) {
  switch (op) {
  case CmpOp::Eq:
    return CmpOp::Ne;
  case CmpOp::Ne:
    return CmpOp::Eq;
  case CmpOp::SLt:
    return CmpOp::SGe;
  case CmpOp::SLe:
    return CmpOp::SGt;
  case CmpOp::SGt:
    return CmpOp::SLe;
  case CmpOp::SGe:
    return CmpOp::SLt;
  case CmpOp::ULt:
    return CmpOp::UGe;
  case CmpOp::ULe:
    return CmpOp::UGt;
  case CmpOp::UGt:
    return CmpOp::ULe;
  case CmpOp::UGe:
    return CmpOp::ULt;
  }
  return op;
}

CmpOp swapOperands(CmpOp op) {
  switch (op) {
  case CmpOp::SLt:
    return CmpOp::SGt;
  case CmpOp::SLe:
    return CmpOp::SGe;
  case CmpOp::SGt:
    return CmpOp::SLt;
  case CmpOp::SGe:
    return CmpOp::SLe;
  case CmpOp::ULt:
    return CmpOp::UGt;
  case CmpOp::ULe:
    return CmpOp::UGe;
  case CmpOp::UGt:
    return CmpOp::ULt;
  case CmpOp::UGe:
    return CmpOp::ULe;
  default:
    return op;
  }
}

bool isUnsigned(CmpOp op) { return op == CmpOp::ULt || op == CmpOp::ULe || op == CmpOp::UGt || op == CmpOp::UGe; }

std::string toString(const Guard& g, const ArgNamer& names) {
  return toString(g.lhs, names) + " " + std::string(name(g.op)) + " " + toString(g.rhs, names);
}

std::string toString(const StatementRegion& s, const ArgNamer& names) {
  std::string out;
  switch (s.kind) {
  case AccessKind::Read:
    out += "read   ";
    break;
  case AccessKind::Write:
    out += "write  ";
    break;
  case AccessKind::Atomic:
    out += "atomic ";
    break;
  }
  out += names ? names(s.arg) : "arg" + std::to_string(s.arg);
  out += " bytes [" + toString(s.offset, names) + ", +" + std::to_string(s.width) + ")";
  if (s.kind == AccessKind::Atomic) out += " " + std::string(name(s.atomicOp)) + " " + std::string(name(s.atomicType));
  if (!s.guards.empty()) {
    out += " if ";
    for (size_t i = 0; i < s.guards.size(); ++i) {
      if (i) out += " && ";
      out += toString(*s.guards[i], names);
    }
  }
  if (s.fromPragma) out += " [pragma]";
  if (!s.exact) out += " [may]";
  if (s.line) out += " (line " + std::to_string(s.line) + ")";
  return out;
}

std::string toString(const KernelRegions& regions, const ArgNamer& names) {
  std::string out;
  auto argName = [&](unsigned i) { return names ? names(i) : "arg" + std::to_string(i); };
  for (unsigned b : regions.increasingBuffers) out += "increasing " + argName(b) + "\n";
  for (unsigned b : regions.decreasingBuffers) out += "decreasing " + argName(b) + "\n";
  for (const auto& s : regions.statements) out += toString(s, names) + "\n";
  return out;
}

namespace {
// Calls leaf(expr) for every Arg or Load leaf of the statement's offset and guards.
template <class Leaf>
void forEachArgumentLeaf(const StatementRegion& s, Leaf&& leaf) {
  std::vector<const Expr*> stack;
  auto walk = [&](const ExprRef& root) {
    if (root) stack.push_back(root.get());
    while (!stack.empty()) {
      const Expr* e = stack.back();
      stack.pop_back();
      if (e->kind() == ExprKind::Arg || e->kind() == ExprKind::Load) leaf(*e);
      for (const auto& op : e->operands())
        if (op) stack.push_back(op.get());
    }
  };
  walk(s.offset);
  for (const auto& g : s.guards)
    if (g) {
      walk(g->lhs);
      walk(g->rhs);
    }
}
} // namespace

std::vector<bool> argumentsInRegions(const KernelRegions& regions, size_t argCount) {
  std::vector<bool> used(argCount, false);
  for (const auto& s : regions.statements)
    forEachArgumentLeaf(s, [&](const Expr& e) {
      if (e.arg() < argCount)
        used[e.arg()] = true;
      else
        used.assign(argCount, true); // out of range: trust nothing
    });
  return used;
}

std::vector<ArgumentRegionInputs> regionInputsPerArgument(const KernelRegions& regions, size_t argCount) {
  size_t n = argCount;
  for (const auto& s : regions.statements) n = std::max<size_t>(n, s.arg + 1);
  std::vector<ArgumentRegionInputs> inputs(n);
  for (auto& in : inputs) in.scalars.assign(n, false);
  for (const auto& s : regions.statements) {
    ArgumentRegionInputs& in = inputs[s.arg];
    in.hasStatements = true;
    forEachArgumentLeaf(s, [&](const Expr& e) {
      if (e.kind() == ExprKind::Load) in.readsContents = true;
      if (e.arg() < n)
        in.scalars[e.arg()] = true;
      else
        in.readsContents = true; // out of range: never reuse
    });
  }
  return inputs;
}

} // namespace clsplit::analysis
