// Affine evaluation of index expressions over one slice's variable box.
//
// Integers are tracked as their mathematical value, which is congruent (mod 2^bits) to the
// machine value: + - * need no care; every operation that interprets a value (sign/zero
// extension, division, comparison, min/max, shifts) first places the whole range inside one
// signed or unsigned window of its width, or gives up (the value may wrap around).
#include "analysis/region/Evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace clsplit::analysis::detail {

Evaluator::Evaluator(const KernelRegions& regions, const NDRange& range, const Slice& slice, const LaunchValues& values)
    : regions_(regions), range_(range), values_(values) {
  unsigned dims = std::clamp<unsigned>(range.dims, 1, 3);
  for (unsigned d = 0; d < 3; ++d) {
    i128 local = d < dims ? std::max<uint64_t>(range.local[d], 1) : 1;
    i128 groups = d < dims ? range.global[d] / local : 1;
    i128 offset = d < dims ? range.offset[d] : 0;
    i128 gBegin = 0, gEnd = groups;
    if (d == slice.dim && d < dims) {
      gBegin = std::min<i128>(slice.groupBegin, groups);
      gEnd = std::min<i128>(slice.groupEnd, groups);
    }
    base_[kGlobalVar + d] = {offset + gBegin * local, offset + gEnd * local - 1,
                             static_cast<uint16_t>(1u << (kGlobalVar + d))};
    base_[kLocalVar + d] = {0, local - 1, static_cast<uint16_t>(1u << (kLocalVar + d))};
    base_[kGroupVar + d] = {gBegin, gEnd - 1, static_cast<uint16_t>(1u << (kGroupVar + d))};
  }
  resetStatement();
}

void Evaluator::resetStatement() {
  std::copy(std::begin(base_), std::end(base_), vars_);
  nvars_ = kBaseVars;
  restricted_ = 0;
  memo_.clear();
}

Evaluator::GuardState Evaluator::saveGuards() const {
  GuardState s;
  std::copy(vars_, vars_ + kBaseVars, s.vars);
  s.restricted = restricted_;
  return s;
}

void Evaluator::restoreGuards(const GuardState& state) {
  std::copy(state.vars, state.vars + kBaseVars, vars_);
  nvars_ = kBaseVars;
  restricted_ = state.restricted;
  memo_.clear();
}

std::string_view Evaluator::keep(std::string s) {
  reasons_.push_back(std::move(s));
  return reasons_.back();
}

Value Evaluator::evaluate(const Expr& e) { return eval(e); }

bool Evaluator::rangeOf(const Value& v, i128& lo, i128& hi) const {
  lo = hi = v.c;
  for (unsigned i = 0; i < v.nterms; ++i) {
    const Variable& x = vars_[v.terms[i].var];
    i128 a, b;
    if (!mulOk(v.terms[i].coeff, x.lo, a) || !mulOk(v.terms[i].coeff, x.hi, b)) return false;
    lo += std::min(a, b);
    hi += std::max(a, b);
  }
  if (v.hasResidual) {
    lo += v.rlo;
    hi += v.rhi;
  }
  return inLimit(lo) && inLimit(hi);
}

uint16_t Evaluator::depsOf(const Value& v) const {
  uint16_t deps = 0;
  for (unsigned i = 0; i < v.nterms; ++i) deps |= vars_[v.terms[i].var].deps;
  return deps;
}

Value Evaluator::toResidual(const Value& v) const {
  i128 lo, hi;
  if (!rangeOf(v, lo, hi)) return Value::unknown("value out of range");
  return Value::within(lo, hi);
}

bool Evaluator::interpret(Value& v, unsigned bits, bool isSigned) {
  if (v.kind != Value::Kind::Int) return v.kind == Value::Kind::Empty;
  if (bits >= 64) bits = 64;
  i128 lo, hi;
  if (!rangeOf(v, lo, hi)) {
    v = Value::unknown("value out of range");
    return false;
  }
  const i128 span = static_cast<i128>(1) << bits;
  const i128 windowLo = isSigned ? -(span / 2) : 0;
  i128 j = floorDiv(lo - windowLo, span);
  if (hi >= windowLo + (j + 1) * span) {
    v = Value::unknown("index arithmetic may wrap around");
    return false;
  }
  v.c -= j * span;
  return true;
}

Value Evaluator::derived(const Expr* key, i128 lo, i128 hi, uint16_t deps) {
  if (hi < lo) return Value::empty();
  if (lo == hi) return Value::constant(lo);
  for (const auto& m : memo_) {
    if (m.expr == key) {
      Value v;
      v.nterms = 1;
      v.terms[0] = {m.var, 1};
      return v;
    }
  }
  if (nvars_ >= kMaxVars) {
    return Value::within(lo, hi);
  }
  uint8_t id = static_cast<uint8_t>(nvars_++);
  vars_[id] = {lo, hi, deps};
  if (key) memo_.push_back({key, id});
  Value v;
  v.nterms = 1;
  v.terms[0] = {id, 1};
  return v;
}

Value Evaluator::eval(const Expr& e) {
  switch (e.kind()) {
  case ExprKind::Const:
    return Value::constant(e.constant());
  case ExprKind::FConst:
    return Value::floating(e.fconstant(), e.fconstant());
  case ExprKind::Arg:
    return evalArg(e);
  case ExprKind::WorkItem: {
    if (e.dim() > 2) return Value::unknown("work-item function with a bad dimension");
    unsigned base = e.workItemFn() == WorkItemFn::GlobalId  ? kGlobalVar
                    : e.workItemFn() == WorkItemFn::LocalId ? kLocalVar
                                                            : kGroupVar;
    Value v;
    v.nterms = 1;
    v.terms[0] = {static_cast<uint8_t>(base + e.dim()), 1};
    return v;
  }
  case ExprKind::Launch: {
    unsigned dims = std::clamp<unsigned>(range_.dims, 1, 3);
    unsigned d = e.dim();
    bool in = d < dims;
    switch (e.launchFn()) {
    case LaunchFn::GlobalSize:
      return Value::constant(in ? range_.global[d] : 1);
    case LaunchFn::LocalSize:
      return Value::constant(in ? range_.local[d] : 1);
    case LaunchFn::NumGroups:
      return Value::constant(in ? range_.groups(d) : 1);
    case LaunchFn::GlobalOffset:
      return Value::constant(in ? range_.offset[d] : 0);
    case LaunchFn::WorkDim:
      return Value::constant(dims);
    }
    return Value::unknown("unknown launch function");
  }
  case ExprKind::Undef:
    return Value::unknown(e.reason());
  case ExprKind::Interval: {
    Value lo = eval(*e.operand(0)), hi = eval(*e.operand(1));
    for (Value* v : {&lo, &hi})
      if (v->kind == Value::Kind::Unknown || v->kind == Value::Kind::Empty) return *v;
    if (!lo.isInt() || !hi.isInt()) return Value::unknown("non-integer interval bounds");
    unsigned bits = e.operand(0)->type().bits;
    if (!interpret(lo, bits, true)) return lo;
    if (!interpret(hi, bits, true)) return hi;
    i128 llo, lhi, hlo, hhi;
    if (!rangeOf(lo, llo, lhi) || !rangeOf(hi, hlo, hhi)) return Value::unknown("value out of range");
    if (lo.isConstant() && hi.isConstant()) {
      Value v = derived(&e, llo, hhi, 0);
      v.exact = lo.exact && hi.exact;
      return v;
    }
    if (llo > hhi) return Value::empty();
    return Value::within(llo, hhi);
  }
  case ExprKind::Seq:
    return evalSeq(e);
  case ExprKind::Either:
    return join(eval(*e.operand(0)), eval(*e.operand(1)), e.type().bits);
  case ExprKind::Load:
    return evalLoad(e);
  case ExprKind::Select: {
    // Decided when the comparison has one outcome for the whole slice (e.g. on arguments).
    Value l = eval(*e.operand(0)), r = eval(*e.operand(1));
    if (l.isInt() && r.isInt()) {
      CmpOp op = static_cast<CmpOp>(e.cmpOp());
      bool uns = isUnsigned(op);
      unsigned bits = e.operand(0)->type().bits;
      if (interpret(l, bits, !uns) && interpret(r, bits, !uns) && addInto(l, r, -1, vars_)) {
        i128 lo, hi;
        if (rangeOf(l, lo, hi)) {
          CmpOp sop = toSigned(op);
          if (alwaysHolds(sop, lo, hi)) return eval(*e.operand(2));
          if (neverHolds(sop, lo, hi)) return eval(*e.operand(3));
        }
      }
    }
    return join(eval(*e.operand(2)), eval(*e.operand(3)), e.type().bits);
  }
  default:
    break;
  }
  if (isBinary(e.kind())) {
    Value a = eval(*e.operand(0));
    if (a.kind == Value::Kind::Unknown || a.kind == Value::Kind::Empty) return a;
    Value b = eval(*e.operand(1));
    if (b.kind == Value::Kind::Unknown || b.kind == Value::Kind::Empty) return b;
    return evalBinary(e, std::move(a), std::move(b));
  }
  if (isUnary(e.kind())) {
    Value a = eval(*e.operand(0));
    if (a.kind == Value::Kind::Unknown || a.kind == Value::Kind::Empty) return a;
    return evalUnary(e, std::move(a));
  }
  return Value::unknown("unsupported expression");
}

Value Evaluator::join(Value a, Value b, unsigned bits) {
  if (a.kind == Value::Kind::Unknown) return a;
  if (b.kind == Value::Kind::Unknown) return b;
  if (a.kind == Value::Kind::Empty) return b;
  if (b.kind == Value::Kind::Empty) return a;
  if (a.kind == Value::Kind::Float || b.kind == Value::Kind::Float) {
    if (a.kind != b.kind) return Value::unknown("mixed integer and floating-point values");
    Value f = Value::floating(std::min(a.flo, b.flo), std::max(a.fhi, b.fhi));
    f.exact = false;
    return f;
  }
  if (!interpret(a, bits, true)) return a;
  if (!interpret(b, bits, true)) return b;
  if (a.isConstant() && b.isConstant() && a.c == b.c) return a;
  i128 alo, ahi, blo, bhi;
  if (!rangeOf(a, alo, ahi) || !rangeOf(b, blo, bhi)) return Value::unknown("value out of range");
  return Value::within(std::min(alo, blo), std::max(ahi, bhi));
}

Value Evaluator::evalArg(const Expr& e) {
  auto bytes = values_.scalarBytes(e.arg());
  unsigned size = (e.type().bits + 7) / 8;
  uint64_t offset = e.argByteOffset();
  if (bytes.size() < offset + size)
    return Value::unknown(keep("value of argument " + std::to_string(e.arg()) + " is not set"));
  if (e.type().isFloat) {
    if (size == 4) {
      float f;
      std::memcpy(&f, bytes.data() + offset, 4);
      return Value::floating(f, f);
    }
    if (size == 8) {
      double f;
      std::memcpy(&f, bytes.data() + offset, 8);
      return Value::floating(f, f);
    }
    return Value::unknown("unsupported floating-point argument");
  }
  uint64_t u = 0;
  std::memcpy(&u, bytes.data() + offset, std::min<unsigned>(size, 8)); // little-endian hosts
  unsigned bits = e.type().bits;
  if (bits < 64) {
    uint64_t mask = (uint64_t{1} << bits) - 1;
    u &= mask;
    if (u >> (bits - 1)) u |= ~mask;
  }
  return Value::constant(static_cast<int64_t>(u));
}

Value Evaluator::evalSeq(const Expr& e) {
  Value first = eval(*e.operand(0));
  if (first.kind == Value::Kind::Unknown || first.kind == Value::Kind::Empty) return first;
  Value step = eval(*e.operand(1));
  if (step.kind == Value::Kind::Unknown || step.kind == Value::Kind::Empty) return step;
  const bool hasLast = e.operands().size() > 3;
  Value count = eval(*e.operand(2));
  if (count.kind == Value::Kind::Empty) return count;
  // Without a trip count, only the exit test bounds the sequence: by `last`, if it rises.
  const bool countUnknown = count.kind == Value::Kind::Unknown;
  if (countUnknown && !hasLast) return count;
  if (!first.isInt() || !step.isInt() || (!countUnknown && !count.isInt()))
    return Value::unknown("non-integer loop sequence");
  unsigned bits = e.type().bits;
  if (countUnknown) {
    if (!interpret(step, e.operand(1)->type().bits, true)) return step;
    i128 slo, shi;
    if (!rangeOf(step, slo, shi) || slo <= 0) return Value::unknown("loop trip count unknown and step not positive");
    count = Value::constant(0); // not used below: the hull of first and last
  }
  // With a known last value (the analyzer adds it only for sequences that cannot wrap), a
  // trip count that varies between work-items is not needed: its range is only a hint.
  Value countCopy = count;
  bool countKnown = !countUnknown && interpret(count, e.operand(2)->type().bits, false);
  if (!countKnown && !hasLast) return count;
  if (!countKnown) count = countCopy;
  if (!interpret(step, e.operand(1)->type().bits, true)) return step;
  i128 clo = 0, chi = 0;
  if (countKnown) {
    if (!rangeOf(count, clo, chi)) return Value::unknown("loop trip count out of range");
    if (chi <= 0) return Value::empty();
  }
  if (countKnown && count.isConstant() && step.isConstant()) {
    Value k = derived(&e, 0, count.c - 1, 0);
    if (k.kind == Value::Kind::Empty) return k;
    if (!scaleBy(k, step.c)) return Value::unknown("value out of range");
    bool exact = first.exact && count.exact && step.exact;
    if (!addInto(first, k, 1, vars_)) return Value::unknown("value out of range");
    first.exact = first.exact && exact;
    return first;
  }
  // The trip count varies between work-items: cover the first and last values.
  if (!interpret(first, bits, true)) return first;
  Value last;
  bool haveLast = false;
  if (hasLast) {
    last = eval(*e.operand(3));
    if (last.kind == Value::Kind::Empty) return last;
    haveLast = last.isInt() && interpret(last, bits, true);
    if (!haveLast && !countKnown) return Value::unknown("loop bounds the analysis cannot evaluate");
  }
  if (!haveLast) {
    // first + step * (count - 1), by intervals.
    i128 slo, shi;
    if (!rangeOf(step, slo, shi)) return Value::unknown("value out of range");
    i128 c1 = clo - 1 < 0 ? 0 : clo - 1, c2 = chi - 1, p[4];
    if (!mulOk(slo, c1, p[0]) || !mulOk(slo, c2, p[1]) || !mulOk(shi, c1, p[2]) || !mulOk(shi, c2, p[3]))
      return Value::unknown("value out of range");
    last = first;
    Value span;
    span.hasResidual = true;
    span.rlo = *std::min_element(p, p + 4);
    span.rhi = *std::max_element(p, p + 4);
    if (!addInto(last, span, 1, vars_)) return Value::unknown("value out of range");
  }
  i128 flo, fhi, llo, lhi;
  if (!rangeOf(first, flo, fhi) || !rangeOf(last, llo, lhi)) return Value::unknown("value out of range");
  if (countUnknown) {
    // Bounded only by its exit test: no value past `last` can be reached without the
    // increment wrapping around, which this launch's values rule out.
    i128 slo, shi;
    if (!rangeOf(step, slo, shi)) return Value::unknown("value out of range");
    const i128 top = (static_cast<i128>(1) << (std::min(bits, 64u) - 1)) - 1;
    if (std::max(lhi, fhi) + shi > top) return Value::unknown("loop induction may wrap around");
  }
  // With a constant step, first + step*k for k up to the widest span: a superset that keeps
  // the stride (a grid-stride loop's slices stay disjoint), unlike the hull.
  if (step.isConstant() && step.c != 0 && !first.hasResidual && first.nterms < kMaxTerms) {
    i128 span = step.c > 0 ? std::max(lhi, fhi) - flo : fhi - std::min(llo, flo);
    i128 kmax = span / (step.c > 0 ? step.c : -step.c);
    Value k = derived(&e, 0, kmax < 0 ? 0 : kmax, 0);
    if (k.isInt() && scaleBy(k, step.c) && addInto(first, k, 1, vars_)) {
      first.exact = false;
      return first;
    }
  }
  return Value::within(std::min(flo, llo), std::max(fhi, lhi));
}

std::optional<ScalarValue> Evaluator::element(unsigned arg, uint64_t offset, ScalarType type) {
  for (const auto& c : elements_)
    if (c.arg == arg && c.offset == offset && c.type == type) return c.value;
  auto v = values_.readElement(arg, offset, type);
  elements_.push_back({arg, offset, type, v});
  return v;
}

Value Evaluator::evalLoad(const Expr& e) {
  Value idx = eval(*e.operand(0));
  if (idx.kind == Value::Kind::Unknown || idx.kind == Value::Kind::Empty) return idx;
  if (!idx.isInt()) return Value::unknown("non-integer indirection index");
  if (!interpret(idx, 64, true)) return idx;
  i128 lo, hi;
  if (!rangeOf(idx, lo, hi)) return Value::unknown("indirection index out of range");
  unsigned size = scalarSize(e.elementType());
  unsigned arg = e.arg();
  if (size == 0) return Value::unknown("indirection through an element of unknown type");
  uint64_t bufferSize = values_.bufferSize(arg);
  if (lo < 0 || hi + size > static_cast<i128>(bufferSize))
    return Value::unknown(keep("indirection index outside buffer argument " + std::to_string(arg)));
  auto has = [](const std::vector<unsigned>& v, unsigned a) { return std::find(v.begin(), v.end(), a) != v.end(); };
  bool increasing = has(regions_.increasingBuffers, arg);
  bool decreasing = has(regions_.decreasingBuffers, arg);
  bool single = lo == hi;
  if (!single && !increasing && !decreasing)
    return Value::unknown(keep("indirection through buffer argument " + std::to_string(arg) +
                               ", which is not annotated increasing or decreasing"));
  auto first = element(arg, static_cast<uint64_t>(lo), e.elementType());
  auto last = single ? first : element(arg, static_cast<uint64_t>(hi), e.elementType());
  if (!first || !last)
    return Value::unknown(keep("element of buffer argument " + std::to_string(arg) + " could not be read"));
  bool isF = isFloat(e.elementType());
  double f1 = first->isFloat ? first->f : static_cast<double>(first->i);
  double f2 = last->isFloat ? last->f : static_cast<double>(last->i);
  i128 i1 = first->isFloat ? static_cast<i128>(first->f) : first->i;
  i128 i2 = last->isFloat ? static_cast<i128>(last->f) : last->i;
  if (single) {
    if (isF) {
      Value v = Value::floating(f1, f1);
      v.exact = idx.exact;
      return v;
    }
    Value v = Value::constant(i1);
    v.exact = idx.exact;
    return v;
  }
  bool ordered = isF ? (increasing ? f1 <= f2 : f1 >= f2) : (increasing ? i1 <= i2 : i1 >= i2);
  if (!ordered)
    return Value::unknown(keep("buffer argument " + std::to_string(arg) + " is not " +
                               (increasing ? "increasing" : "decreasing") + " as annotated"));
  if (isF) {
    Value v = Value::floating(std::min(f1, f2), std::max(f1, f2));
    v.exact = false;
    return v;
  }
  Value v;
  v.exact = false;
  v.hasResidual = true;
  v.rlo = std::min(i1, i2);
  v.rhi = std::max(i1, i2);
  return v;
}

Value Evaluator::evalBinary(const Expr& e, Value a, Value b) {
  const ExprKind k = e.kind();
  const unsigned bits = e.type().bits;
  if (k >= ExprKind::FAdd && k <= ExprKind::FMax) {
    if (a.kind != Value::Kind::Float || b.kind != Value::Kind::Float)
      return Value::unknown("floating-point operation on integers");
    double lo = 0, hi = 0;
    switch (k) {
    case ExprKind::FAdd:
      lo = a.flo + b.flo;
      hi = a.fhi + b.fhi;
      break;
    case ExprKind::FSub:
      lo = a.flo - b.fhi;
      hi = a.fhi - b.flo;
      break;
    case ExprKind::FMul:
    case ExprKind::FDiv: {
      if (k == ExprKind::FDiv && b.flo <= 0 && b.fhi >= 0)
        return Value::unknown("floating-point division by a value that may be zero");
      double p[4];
      auto f = [&](double x, double y) { return k == ExprKind::FMul ? x * y : x / y; };
      p[0] = f(a.flo, b.flo), p[1] = f(a.flo, b.fhi), p[2] = f(a.fhi, b.flo), p[3] = f(a.fhi, b.fhi);
      lo = *std::min_element(p, p + 4);
      hi = *std::max_element(p, p + 4);
      break;
    }
    case ExprKind::FMin:
      lo = std::min(a.flo, b.flo);
      hi = std::min(a.fhi, b.fhi);
      break;
    case ExprKind::FMax:
      lo = std::max(a.flo, b.flo);
      hi = std::max(a.fhi, b.fhi);
      break;
    default:
      break;
    }
    if (!finite(lo, hi)) return Value::unknown("floating-point value out of range");
    if (k != ExprKind::FMin && k != ExprKind::FMax) widen(lo, hi, bits);
    Value r = Value::floating(lo, hi);
    r.exact = false;
    return r;
  }
  if (!a.isInt() || !b.isInt()) return Value::unknown("integer operation on floating-point values");

  auto overflow = [] { return Value::unknown("value out of range"); };
  switch (k) {
  case ExprKind::Add:
  case ExprKind::Sub:
    if (!addInto(a, b, k == ExprKind::Add ? 1 : -1, vars_)) return overflow();
    return a;
  case ExprKind::Mul: {
    if (b.isConstant()) {
      bool exact = b.exact;
      if (!scaleBy(a, b.c)) return overflow();
      a.exact = a.exact && exact;
      return a;
    }
    if (a.isConstant()) {
      bool exact = a.exact;
      if (!scaleBy(b, a.c)) return overflow();
      b.exact = b.exact && exact;
      return b;
    }
    i128 alo, ahi, blo, bhi, p[4];
    if (!rangeOf(a, alo, ahi) || !rangeOf(b, blo, bhi)) return overflow();
    if (!mulOk(alo, blo, p[0]) || !mulOk(alo, bhi, p[1]) || !mulOk(ahi, blo, p[2]) || !mulOk(ahi, bhi, p[3]))
      return overflow();
    return Value::within(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
  }
  case ExprKind::Shl: {
    if (!interpret(b, bits, false)) return b;
    if (!b.isConstant() || b.c < 0 || b.c >= bits) return Value::unknown("shift by a variable amount");
    bool exact = b.exact;
    if (!scaleBy(a, static_cast<i128>(1) << static_cast<int>(b.c))) return overflow();
    a.exact = a.exact && exact;
    return a;
  }
  case ExprKind::Xor: {
    // x ^ ~0 == -1 - x modulo 2^bits: LLVM writes `n - 1 - i` as `(i ^ -1) + n`, and a reversed
    // index must stay affine (decreasing) for the slices' regions to stay disjoint.
    auto allOnes = [&](const Value& v) {
      return v.isConstant() && (v.c == -1 || v.c == (static_cast<i128>(1) << bits) - 1);
    };
    if (allOnes(a) && !allOnes(b)) std::swap(a, b);
    // Conditions (i1) and constants keep the bitwise evaluation below: a negated flag stays 0/1.
    if (bits < 8 || a.isConstant() || !allOnes(b)) break;
    Value r = Value::constant(-1);
    r.exact = b.exact;
    if (!addInto(r, a, -1, vars_)) return overflow();
    return r;
  }
  default:
    break;
  }

  // Operations that interpret their operands.
  const bool isSignedOp =
      k == ExprKind::SDiv || k == ExprKind::SRem || k == ExprKind::AShr || k == ExprKind::SMin || k == ExprKind::SMax;
  if (!interpret(a, bits, isSignedOp)) return a;
  if (!interpret(b, bits, isSignedOp)) return b;
  i128 alo, ahi, blo, bhi;
  if (!rangeOf(a, alo, ahi) || !rangeOf(b, blo, bhi)) return overflow();
  const bool bothExact = a.exact && b.exact;
  auto residual = [&](i128 lo, i128 hi) { return Value::within(lo, hi); };

  // Division by a constant (shifts are floor divisions by a power of two).
  auto divide = [&](Value x, i128 d, bool floorMode) -> Value {
    bool negate = false;
    if (d < 0) {
      d = -d;
      negate = true; // truncating division: x / -d == -(x / d)
    }
    i128 lo, hi;
    if (!rangeOf(x, lo, hi)) return overflow();
    auto q = [&](i128 n) { return floorMode ? floorDiv(n, d) : truncDiv(n, d); };
    Value r;
    bool asFloor = floorMode || lo >= 0, asCeil = !floorMode && hi <= 0;
    bool divisible = !x.hasResidual;
    for (unsigned i = 0; i < x.nterms && divisible; ++i) divisible = x.terms[i].coeff % d == 0;
    if (x.isConstant()) {
      r = Value::constant(q(x.c));
      r.exact = x.exact;
    } else if (divisible && (asFloor || asCeil)) {
      r = x;
      r.c = asFloor ? floorDiv(x.c, d) : ceilDiv(x.c, d);
      for (unsigned i = 0; i < r.nterms; ++i) r.terms[i].coeff /= d;
    } else if (x.nterms == 1 && !x.hasResidual && (x.terms[0].coeff <= d && x.terms[0].coeff >= -d)) {
      // Consecutive values move the quotient by at most one: the result is dense.
      r = derived(&e, q(lo), q(hi), depsOf(x));
      r.exact = r.exact && x.exact;
    } else {
      r = residual(q(lo), q(hi));
    }
    if (negate && !scaleBy(r, -1)) return overflow();
    return r;
  };

  // Remainder by a positive constant.
  auto remainder = [&](Value x, i128 d) -> Value {
    if (d < 0) d = -d;
    i128 lo, hi;
    if (!rangeOf(x, lo, hi)) return overflow();
    if (x.isConstant()) {
      Value r = Value::constant(x.c % d);
      r.exact = x.exact;
      return r;
    }
    if (lo >= 0) {
      bool divisible = !x.hasResidual;
      for (unsigned i = 0; i < x.nterms && divisible; ++i) divisible = x.terms[i].coeff % d == 0;
      if (divisible) {
        Value r = Value::constant(floorMod(x.c, d));
        r.exact = x.exact;
        return r;
      }
      if (x.nterms == 1 && !x.hasResidual && (x.terms[0].coeff == 1 || x.terms[0].coeff == -1)) {
        if (floorDiv(lo, d) == floorDiv(hi, d)) { // no wrap: x - d*q
          x.c -= d * floorDiv(lo, d);
          return x;
        }
        if (hi - lo + 1 >= d) {
          Value r = derived(&e, 0, d - 1, depsOf(x));
          r.exact = r.exact && x.exact;
          return r;
        }
      }
      return residual(0, std::min(d - 1, hi));
    }
    if (hi <= 0) return residual(std::max(-(d - 1), lo), 0);
    return residual(-(d - 1), d - 1);
  };

  switch (k) {
  case ExprKind::SDiv:
  case ExprKind::UDiv:
    if (b.isConstant()) {
      if (b.c == 0) return Value::unknown("division by zero");
      Value r = divide(a, b.c, k == ExprKind::UDiv);
      r.exact = r.exact && b.exact;
      return r;
    }
    if (blo <= 0 && bhi >= 0) return Value::unknown("division by a value that may be zero");
    {
      i128 p[4] = {truncDiv(alo, blo), truncDiv(alo, bhi), truncDiv(ahi, blo), truncDiv(ahi, bhi)};
      return residual(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
    }
  case ExprKind::SRem:
  case ExprKind::URem:
    if (b.isConstant()) {
      if (b.c == 0) return Value::unknown("remainder by zero");
      Value r = remainder(a, b.c);
      r.exact = r.exact && b.exact;
      return r;
    }
    if (blo <= 0 && bhi >= 0) return Value::unknown("remainder by a value that may be zero");
    {
      i128 m = std::max(blo < 0 ? -blo : blo, bhi < 0 ? -bhi : bhi) - 1;
      if (alo >= 0) return residual(0, std::min(m, ahi));
      return residual(-m, m);
    }
  case ExprKind::LShr:
  case ExprKind::AShr: {
    if (!b.isConstant() || b.c < 0 || b.c >= bits) return Value::unknown("shift by a variable amount");
    Value r = divide(a, static_cast<i128>(1) << static_cast<int>(b.c), true);
    r.exact = r.exact && b.exact;
    return r;
  }
  case ExprKind::And: {
    if (a.isConstant() && !b.isConstant()) std::swap(a, b), std::swap(alo, blo), std::swap(ahi, bhi);
    if (b.isConstant()) {
      i128 m = b.c;
      if (isPowerOfTwo(m + 1)) {
        Value r = remainder(a, m + 1);
        r.exact = r.exact && bothExact;
        return r;
      }
      i128 full = (static_cast<i128>(1) << bits) - 1;
      i128 low = full - m; // bits cleared by the mask
      if (isPowerOfTwo(low + 1)) {
        Value r = divide(a, low + 1, true);
        if (!scaleBy(r, low + 1)) return overflow();
        r.exact = r.exact && bothExact;
        return r;
      }
      if (a.isConstant()) return Value::constant(a.c & m);
      return residual(0, std::min(m, ahi));
    }
    return residual(0, std::min(ahi, bhi));
  }
  case ExprKind::Or:
  case ExprKind::Xor: {
    if (a.isConstant() && !b.isConstant()) std::swap(a, b), std::swap(alo, blo), std::swap(ahi, bhi);
    if (b.isConstant()) {
      if (b.c == 0) return a;
      if (a.isConstant()) return Value::constant(k == ExprKind::Or ? (a.c | b.c) : (a.c ^ b.c));
      // x | c == x + c when c only fills bits that x always has clear.
      i128 align = 1;
      while (align <= b.c) align <<= 1;
      bool aligned = !a.hasResidual && floorMod(a.c, align) == 0 && alo >= 0;
      for (unsigned i = 0; i < a.nterms && aligned; ++i) aligned = a.terms[i].coeff % align == 0;
      if (aligned) {
        a.c += b.c;
        a.exact = a.exact && b.exact;
        return a;
      }
    }
    return residual(k == ExprKind::Or ? std::max(alo, blo) : 0, ahi + bhi);
  }
  case ExprKind::SMin:
  case ExprKind::UMin:
  case ExprKind::SMax:
  case ExprKind::UMax: {
    bool isMin = k == ExprKind::SMin || k == ExprKind::UMin;
    if (ahi <= blo) return isMin ? a : b;
    if (bhi <= alo) return isMin ? b : a;
    if (a.isConstant() && !b.isConstant()) std::swap(a, b), std::swap(alo, blo), std::swap(ahi, bhi);
    if (b.isConstant() && a.nterms == 1 && !a.hasResidual && (a.terms[0].coeff == 1 || a.terms[0].coeff == -1)) {
      i128 lo = isMin ? std::min(alo, b.c) : std::max(alo, b.c);
      i128 hi = isMin ? std::min(ahi, b.c) : std::max(ahi, b.c);
      Value r = derived(&e, lo, hi, depsOf(a));
      r.exact = r.exact && bothExact;
      return r;
    }
    return isMin ? residual(std::min(alo, blo), std::min(ahi, bhi)) : residual(std::max(alo, blo), std::max(ahi, bhi));
  }
  default:
    break;
  }
  return Value::unknown("unsupported integer operation");
}

Value Evaluator::evalUnary(const Expr& e, Value a) {
  const ValueType to = e.type();
  const unsigned fromBits = e.operand(0)->type().bits;
  switch (e.kind()) {
  case ExprKind::SExt:
  case ExprKind::ZExt:
    if (!a.isInt()) return Value::unknown("integer extension of a floating-point value");
    interpret(a, fromBits, e.kind() == ExprKind::SExt);
    return a;
  case ExprKind::Trunc:
    if (!a.isInt()) return Value::unknown("truncation of a floating-point value");
    return a;
  case ExprKind::FPToSI:
  case ExprKind::FPToUI: {
    if (a.kind != Value::Kind::Float) return Value::unknown("conversion of a non-float value");
    double lo = std::trunc(a.flo), hi = std::trunc(a.fhi);
    double limit = std::ldexp(1.0, to.bits - (e.kind() == ExprKind::FPToSI ? 1 : 0));
    double lower = e.kind() == ExprKind::FPToSI ? -limit : 0;
    if (!(lo >= lower && hi < limit)) return Value::unknown("float-to-integer conversion out of range");
    if (lo == hi) {
      Value v = Value::constant(static_cast<i128>(lo));
      v.exact = a.exact;
      return v;
    }
    return Value::within(static_cast<i128>(lo), static_cast<i128>(hi));
  }
  case ExprKind::SIToFP:
  case ExprKind::UIToFP: {
    if (!a.isInt()) return Value::unknown("conversion of a non-integer value");
    if (!interpret(a, fromBits, e.kind() == ExprKind::SIToFP)) return a;
    i128 lo, hi;
    if (!rangeOf(a, lo, hi)) return Value::unknown("value out of range");
    double flo = static_cast<double>(lo), fhi = static_cast<double>(hi);
    double exactLimit = to.bits == 64 ? 0x1p53 : 0x1p24;
    bool exact = a.isConstant() && std::fabs(flo) <= exactLimit;
    if (!exact) widen(flo, fhi, to.bits);
    Value r = Value::floating(flo, fhi);
    r.exact = exact && a.exact;
    return r;
  }
  case ExprKind::FPCast:
  case ExprKind::FFloor:
  case ExprKind::FCeil:
  case ExprKind::FAbs: {
    if (a.kind != Value::Kind::Float) return Value::unknown("floating-point function of an integer");
    double lo = a.flo, hi = a.fhi;
    if (e.kind() == ExprKind::FPCast) {
      if (to.bits < fromBits) widen(lo, hi, to.bits);
    } else if (e.kind() == ExprKind::FFloor) {
      lo = std::floor(lo), hi = std::floor(hi);
    } else if (e.kind() == ExprKind::FCeil) {
      lo = std::ceil(lo), hi = std::ceil(hi);
    } else {
      double l = std::fabs(lo), h = std::fabs(hi);
      if (lo <= 0 && hi >= 0)
        lo = 0, hi = std::max(l, h);
      else
        lo = std::min(l, h), hi = std::max(l, h);
    }
    Value r = Value::floating(lo, hi);
    r.exact = a.exact && lo == hi;
    return r;
  }
  case ExprKind::Abs: {
    if (!a.isInt()) return Value::unknown("integer function of a floating-point value");
    if (!interpret(a, fromBits, true)) return a;
    i128 lo, hi;
    if (!rangeOf(a, lo, hi)) return Value::unknown("value out of range");
    if (lo >= 0) return a;
    if (hi <= 0) {
      if (!scaleBy(a, -1)) return Value::unknown("value out of range");
      return a;
    }
    return Value::within(0, std::max(-lo, hi));
  }
  default:
    break;
  }
  return Value::unknown("unsupported conversion");
}

} // namespace clsplit::analysis::detail
