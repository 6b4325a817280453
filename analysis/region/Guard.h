// Guards of a statement region (thesis Definition 6): a comparison that must hold for a
// work-item to perform the access; usually affine in the work-item ids.
#pragma once

#include "analysis/region/Expr.h"

namespace clsplit::analysis {

// Signed/unsigned comparisons, on the operands' integer type.
enum class CmpOp : uint8_t { Eq, Ne, SLt, SLe, SGt, SGe, ULt, ULe, UGt, UGe };

struct Guard {
  CmpOp op = CmpOp::Eq;
  ExprRef lhs;
  ExprRef rhs;
};

std::string_view name(CmpOp op); // "==", "<s", ...
CmpOp negate(CmpOp op);          // !(a < b)  ==  a >= b
CmpOp swapOperands(CmpOp op);    // a < b  ==  b > a
bool isUnsigned(CmpOp op);

std::string toString(const Guard& g, const ArgNamer& names = {});

} // namespace clsplit::analysis
