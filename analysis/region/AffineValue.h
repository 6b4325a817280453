// The value domain of region evaluation: an integer expression over a slice's variable box as
// an affine form (constant + coefficients x variables) plus an over-approximating residual
// interval, floating-point intervals, and the exact 128-bit arithmetic on them (a value that
// would leave +-2^100 is given up rather than wrapped). Internal to instantiation.
#pragma once

#include "analysis/region/Guard.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace clsplit::analysis::detail {

using i128 = __int128;

constexpr unsigned kMaxTerms = 8;

struct Variable {
  i128 lo = 0, hi = 0; // inclusive
  uint16_t deps = 0;   // base variables it is a function of (a base variable: itself)
};

struct Term {
  uint8_t var = 0;
  i128 coeff = 0;
};

// c + sum(coeff * var) + [rlo, rhi]: the set of values of an integer expression over the
// variables' box. `exact` is false once the set over-approximates the real one.
struct Value {
  enum class Kind : uint8_t { Int, Float, Unknown, Empty };
  Kind kind = Kind::Int;
  bool exact = true;
  uint8_t nterms = 0;
  bool hasResidual = false;
  i128 c = 0;
  i128 rlo = 0, rhi = 0;
  double flo = 0, fhi = 0;
  std::string_view reason; // Unknown: why
  Term terms[kMaxTerms];

  static Value constant(i128 v) {
    Value x;
    x.c = v;
    return x;
  }
  static Value unknown(std::string_view why) {
    Value x;
    x.kind = Kind::Unknown;
    x.exact = false;
    x.reason = why;
    return x;
  }
  static Value empty() {
    Value x;
    x.kind = Kind::Empty;
    return x;
  }
  static Value floating(double lo, double hi) {
    Value x;
    x.kind = Kind::Float;
    x.flo = lo;
    x.fhi = hi;
    return x;
  }
  // Some integer in [lo, hi] (an inexact residual, no terms).
  static Value within(i128 lo, i128 hi) {
    Value x;
    x.exact = false;
    x.hasResidual = true;
    x.rlo = lo;
    x.rhi = hi;
    return x;
  }
  bool isInt() const { return kind == Kind::Int; }
  bool isConstant() const { return kind == Kind::Int && nterms == 0 && !hasResidual; }
};

inline constexpr i128 kLimit = static_cast<i128>(1) << 100;
inline bool inLimit(i128 v) { return v > -kLimit && v < kLimit; }

inline i128 floorDiv(i128 n, i128 d) {
  i128 q = n / d;
  if ((n % d != 0) && ((n < 0) != (d < 0))) --q;
  return q;
}
inline i128 ceilDiv(i128 n, i128 d) { return -floorDiv(-n, d); }
inline i128 truncDiv(i128 n, i128 d) { return n / d; }
inline i128 floorMod(i128 n, i128 d) { return n - floorDiv(n, d) * d; }

inline bool mulOk(i128 a, i128 b, i128& r) { return !__builtin_mul_overflow(a, b, &r) && inLimit(r); }

inline bool isPowerOfTwo(i128 v) { return v > 0 && (v & (v - 1)) == 0; }

// Widens a floating-point interval outwards: OpenCL allows several ulps of error (division,
// relaxed maths, contraction), so computed bounds are never trusted to the last bit.
inline void widen(double& lo, double& hi, unsigned bits) {
  double rel = bits == 64 ? 0x1p-40 : 0x1p-18;
  lo -= std::fabs(lo) * rel + 1e-300;
  hi += std::fabs(hi) * rel + 1e-300;
}

inline bool finite(double a, double b) { return std::isfinite(a) && std::isfinite(b); }

inline CmpOp toSigned(CmpOp op) {
  switch (op) {
  case CmpOp::ULt:
    return CmpOp::SLt;
  case CmpOp::ULe:
    return CmpOp::SLe;
  case CmpOp::UGt:
    return CmpOp::SGt;
  case CmpOp::UGe:
    return CmpOp::SGe;
  default:
    return op;
  }
}

// a + sign*b, merging terms of the same variable.
inline bool addInto(Value& a, const Value& b, int sign, const Variable* vars) {
  a.c += sign * b.c;
  a.exact = a.exact && b.exact;
  for (unsigned i = 0; i < b.nterms; ++i) {
    Term t = b.terms[i];
    t.coeff *= sign;
    bool merged = false;
    for (unsigned k = 0; k < a.nterms; ++k) {
      if (a.terms[k].var == t.var) {
        a.terms[k].coeff += t.coeff;
        merged = true;
        break;
      }
    }
    if (merged) continue;
    if (a.nterms < kMaxTerms) {
      a.terms[a.nterms++] = t;
      continue;
    }
    // Too many variables: fold this term into the residual.
    const Variable& x = vars[t.var];
    i128 p = t.coeff * x.lo, q = t.coeff * x.hi;
    a.hasResidual = true;
    a.rlo += std::min(p, q);
    a.rhi += std::max(p, q);
    a.exact = false;
  }
  if (b.hasResidual) {
    a.hasResidual = true;
    if (sign > 0) {
      a.rlo += b.rlo;
      a.rhi += b.rhi;
    } else {
      a.rlo -= b.rhi;
      a.rhi -= b.rlo;
    }
  }
  // Drop cancelled terms.
  unsigned n = 0;
  for (unsigned k = 0; k < a.nterms; ++k)
    if (a.terms[k].coeff != 0) a.terms[n++] = a.terms[k];
  a.nterms = static_cast<uint8_t>(n);
  if (!inLimit(a.c) || !inLimit(a.rlo) || !inLimit(a.rhi)) return false;
  return true;
}

inline bool scaleBy(Value& v, i128 k) {
  if (k == 0) {
    bool exact = v.exact;
    v = Value::constant(0);
    v.exact = exact;
    return true;
  }
  if (!mulOk(v.c, k, v.c)) return false;
  for (unsigned i = 0; i < v.nterms; ++i)
    if (!mulOk(v.terms[i].coeff, k, v.terms[i].coeff)) return false;
  if (v.hasResidual) {
    i128 a, b;
    if (!mulOk(v.rlo, k, a) || !mulOk(v.rhi, k, b)) return false;
    v.rlo = std::min(a, b);
    v.rhi = std::max(a, b);
  }
  return true;
}

inline bool alwaysHolds(CmpOp op, i128 lo, i128 hi) { // d OP 0 for every d in [lo, hi]
  switch (op) {
  case CmpOp::Eq:
    return lo == 0 && hi == 0;
  case CmpOp::Ne:
    return lo > 0 || hi < 0;
  case CmpOp::SLt:
    return hi < 0;
  case CmpOp::SLe:
    return hi <= 0;
  case CmpOp::SGt:
    return lo > 0;
  case CmpOp::SGe:
    return lo >= 0;
  default:
    return false;
  }
}

inline bool neverHolds(CmpOp op, i128 lo, i128 hi) {
  switch (op) {
  case CmpOp::Eq:
    return lo > 0 || hi < 0;
  case CmpOp::Ne:
    return lo == 0 && hi == 0;
  case CmpOp::SLt:
    return lo >= 0;
  case CmpOp::SLe:
    return lo > 0;
  case CmpOp::SGt:
    return hi <= 0;
  case CmpOp::SGe:
    return hi < 0;
  default:
    return false;
  }
}

} // namespace clsplit::analysis::detail
