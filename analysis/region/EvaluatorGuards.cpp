// Guards of a statement (if conditions around an access): narrowing the base variables to the
// values for which the statement runs, or proving that it never does.
#include "analysis/region/Evaluator.h"

#include <algorithm>

namespace clsplit::analysis::detail {

bool Evaluator::restrictVar(unsigned var, CmpOp op, i128 a, i128 k, bool& exact) {
  // Narrows var to the values x with a*x OP k (OP in <=, >=, ==, !=; a != 0).
  Variable& x = vars_[var];
  i128 lo = x.lo, hi = x.hi;
  switch (op) {
  case CmpOp::SLe:
    if (a > 0)
      hi = std::min(hi, floorDiv(k, a));
    else
      lo = std::max(lo, ceilDiv(k, a));
    break;
  case CmpOp::SGe:
    if (a > 0)
      lo = std::max(lo, ceilDiv(k, a));
    else
      hi = std::min(hi, floorDiv(k, a));
    break;
  case CmpOp::Eq:
    if (k % a != 0) return false;
    lo = std::max(lo, k / a);
    hi = std::min(hi, k / a);
    break;
  case CmpOp::Ne:
    if (k % a == 0) {
      i128 v = k / a;
      if (v == lo)
        ++lo;
      else if (v == hi)
        --hi;
      else if (v > lo && v < hi)
        exact = false; // a hole we cannot represent
    }
    break;
  default:
    exact = false;
    break;
  }
  if (lo != x.lo || hi != x.hi) restricted_ |= x.deps;
  x.lo = lo;
  x.hi = hi;
  return lo <= hi;
}

bool Evaluator::applyGuard(const Guard& guard, bool& exact) {
  struct Cleanup {
    Evaluator& self;
    ~Cleanup() {
      self.nvars_ = kBaseVars;
      self.memo_.clear();
    }
  } cleanup{*this};
  Value l = eval(*guard.lhs), r = eval(*guard.rhs);
  if (!l.isInt() || !r.isInt()) { // unknown, empty or floating point: cannot use it
    exact = false;
    return true;
  }
  bool uns = isUnsigned(guard.op);
  unsigned bits = guard.lhs->type().bits;
  if (!interpret(l, bits, !uns) || !interpret(r, bits, !uns)) {
    exact = false;
    return true;
  }
  Value d = l;
  if (!addInto(d, r, -1, vars_)) {
    exact = false;
    return true;
  }
  CmpOp op = toSigned(guard.op);
  i128 lo, hi;
  if (!rangeOf(d, lo, hi)) {
    exact = false;
    return true;
  }
  if (alwaysHolds(op, lo, hi)) return true;
  if (neverHolds(op, lo, hi)) return false;
  // d = c + sum(a_i x_i) + residual OP 0. Each base variable gets the bound that holds for
  // some value of the rest: exact when it is the only variable.
  bool single = d.nterms == 1 && !d.hasResidual && d.exact && d.terms[0].var < kBaseVars;
  if (!single) exact = false;
  for (unsigned i = 0; i < d.nterms; ++i) {
    Term t = d.terms[i];
    if (t.var >= kBaseVars) continue;
    Value rest = d;
    rest.terms[i].coeff = 0;
    i128 rlo, rhi;
    if (!rangeOf(rest, rlo, rhi)) continue;
    bool ok = true;
    switch (op) {
    case CmpOp::SLt:
      ok = restrictVar(t.var, CmpOp::SLe, t.coeff, -rlo - 1, exact);
      break;
    case CmpOp::SLe:
      ok = restrictVar(t.var, CmpOp::SLe, t.coeff, -rlo, exact);
      break;
    case CmpOp::SGt:
      ok = restrictVar(t.var, CmpOp::SGe, t.coeff, -rhi + 1, exact);
      break;
    case CmpOp::SGe:
      ok = restrictVar(t.var, CmpOp::SGe, t.coeff, -rhi, exact);
      break;
    case CmpOp::Eq:
      if (rlo == rhi)
        ok = restrictVar(t.var, CmpOp::Eq, t.coeff, -rlo, exact);
      else
        ok = restrictVar(t.var, CmpOp::SGe, t.coeff, -rhi, exact) &&
             restrictVar(t.var, CmpOp::SLe, t.coeff, -rlo, exact);
      break;
    case CmpOp::Ne:
      if (rlo == rhi)
        ok = restrictVar(t.var, CmpOp::Ne, t.coeff, -rlo, exact);
      else
        exact = false;
      break;
    default:
      exact = false;
      break;
    }
    if (!ok) return false;
  }
  return true;
}

} // namespace clsplit::analysis::detail
