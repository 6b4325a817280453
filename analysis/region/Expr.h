// Index expressions of the region language (thesis Definition 7, extended): the byte offset of
// an access, the operands of a guard, a loop's trip count, as immutable shared expression trees.
#pragma once

#include "analysis/region/ScalarType.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace clsplit::analysis {

class Expr;
using ExprRef = std::shared_ptr<const Expr>;

enum class ExprKind : uint8_t {
  // Leaves.
  Const,    // integer constant
  FConst,   // floating-point constant
  Arg,      // a scalar kernel argument (or one field/lane of a struct or vector argument)
  WorkItem, // get_global_id / get_local_id / get_group_id (d)
  Launch,   // get_global_size / get_local_size / get_num_groups / get_global_offset (d) of the
            // ORIGINAL NDRange, get_work_dim()
  Undef,    // unknown value (with the reason, shown to users)
  // Sets of values.
  Interval, // every integer in [op0, op1]
  Seq,      // op0 + op1*k for k in [0, op2) (a loop induction variable: first, step, count);
            // optional op3 = the last value (first + step*(count-1)), simplified by the analyzer
  Either,   // op0 or op1 (a merge of control-flow paths)
  Select,   // op2 if (op0 CMP op1) else op3, CMP = cmpOp() (a select on a comparison)
  Load,     // [[B, E, T]]: the element of type T at byte offset op0 of buffer argument B
  // Integer arithmetic, on `bits`-wide two's complement values.
  Add,
  Sub,
  Mul,
  SDiv,
  UDiv,
  SRem,
  URem,
  Shl,
  LShr,
  AShr,
  And,
  Or,
  Xor,
  SMin,
  SMax,
  UMin,
  UMax,
  // Floating-point arithmetic.
  FAdd,
  FSub,
  FMul,
  FDiv,
  FMin,
  FMax,
  // Conversions and unary functions.
  SExt,
  ZExt,
  Trunc,
  FPToSI,
  FPToUI,
  SIToFP,
  UIToFP,
  FPCast,
  FFloor,
  FCeil,
  Abs,
  FAbs,
};

enum class WorkItemFn : uint8_t { GlobalId, LocalId, GroupId };
enum class LaunchFn : uint8_t { GlobalSize, LocalSize, NumGroups, GlobalOffset, WorkDim };

// The type of an expression's value: an integer of `bits` bits (1..64) or a float/double.
struct ValueType {
  uint8_t bits = 64;
  bool isFloat = false;
  bool operator==(const ValueType&) const = default;
  static ValueType integer(unsigned bits) { return {static_cast<uint8_t>(bits), false}; }
  static ValueType floating(unsigned bits) { return {static_cast<uint8_t>(bits), true}; }
};

class Expr {
public:
  ExprKind kind() const { return kind_; }
  ValueType type() const { return type_; }
  const std::vector<ExprRef>& operands() const { return operands_; }
  const ExprRef& operand(size_t i) const { return operands_[i]; }

  int64_t constant() const { return ivalue_; }                              // Const
  double fconstant() const { return fvalue_; }                              // FConst
  unsigned arg() const { return arg_; }                                     // Arg, Load: kernel argument index
  uint32_t argByteOffset() const { return static_cast<uint32_t>(ivalue_); } // Arg
  ScalarType elementType() const { return element_; }                       // Arg, Load
  unsigned dim() const { return dim_; }                                     // WorkItem, Launch
  WorkItemFn workItemFn() const { return static_cast<WorkItemFn>(fn_); }
  LaunchFn launchFn() const { return static_cast<LaunchFn>(fn_); }
  const std::string& reason() const { return reason_; } // Undef
  uint8_t cmpOp() const { return fn_; }                 // Select: a CmpOp (Guard.h)
  uint32_t nodeCount() const { return nodes_; }         // size of the tree (saturating)

  bool isConst() const { return kind_ == ExprKind::Const; }
  bool isUndef() const { return kind_ == ExprKind::Undef; }
  // True when the tree contains an Undef / a Load / a WorkItem anywhere.
  bool containsUndef() const { return flags_ & kHasUndef; }
  bool containsLoad() const { return flags_ & kHasLoad; }
  bool containsWorkItem() const { return flags_ & kHasWorkItem; }

  // --- Factories (with light constant folding; Undef operands propagate) -------------------
  static ExprRef constant(int64_t value, unsigned bits = 64);
  static ExprRef fconstant(double value, unsigned bits = 32);
  static ExprRef argument(unsigned arg, ScalarType type, uint32_t byteOffset = 0);
  // An argument of an integer type with an explicit width (e.g. i1 or an LLVM type).
  static ExprRef argument(unsigned arg, ValueType type, ScalarType declared, uint32_t byteOffset);
  static ExprRef workItem(WorkItemFn fn, unsigned dim);
  static ExprRef launch(LaunchFn fn, unsigned dim);
  static ExprRef undef(std::string reason, ValueType type = ValueType::integer(64));
  static ExprRef interval(ExprRef lo, ExprRef hi);
  // An undef count is allowed when `last` is given: then the sequence covers [first, last]
  // provided its step is positive (loops whose trip count only their exit test bounds).
  static ExprRef seq(ExprRef first, ExprRef step, ExprRef count, ExprRef last = nullptr);
  static ExprRef either(ExprRef a, ExprRef b);
  // cmp is a CmpOp (Guard.h); an undef condition makes it an Either.
  static ExprRef select(uint8_t cmp, ExprRef lhs, ExprRef rhs, ExprRef ifTrue, ExprRef ifFalse);
  static ExprRef load(unsigned arg, ExprRef byteOffset, ScalarType element);
  static ExprRef binary(ExprKind op, ExprRef a, ExprRef b);
  static ExprRef unary(ExprKind op, ExprRef a, ValueType to);

  // Convenience wrappers.
  static ExprRef add(ExprRef a, ExprRef b) { return binary(ExprKind::Add, std::move(a), std::move(b)); }
  static ExprRef sub(ExprRef a, ExprRef b) { return binary(ExprKind::Sub, std::move(a), std::move(b)); }
  static ExprRef mul(ExprRef a, ExprRef b) { return binary(ExprKind::Mul, std::move(a), std::move(b)); }

  // Used by deserialisation only: builds a node exactly as described, no folding.
  struct Raw {
    ExprKind kind = ExprKind::Const;
    ValueType type;
    int64_t ivalue = 0;
    double fvalue = 0;
    unsigned arg = 0;
    unsigned dim = 0;
    uint8_t fn = 0;
    ScalarType element = ScalarType::Unknown;
    std::string reason;
    std::vector<ExprRef> operands;
  };
  static ExprRef fromRaw(Raw raw);
  Raw raw() const;

  // Expressions above this many nodes become Undef (keeps instantiation and caches bounded).
  static constexpr uint32_t kMaxNodes = 2048;

private:
  enum : uint8_t { kHasUndef = 1, kHasLoad = 2, kHasWorkItem = 4 };
  Expr() = default;
  static ExprRef make(Raw raw);

  ExprKind kind_ = ExprKind::Const;
  ValueType type_;
  uint8_t fn_ = 0;
  uint8_t dim_ = 0;
  uint8_t flags_ = 0;
  ScalarType element_ = ScalarType::Unknown;
  unsigned arg_ = 0;
  uint32_t nodes_ = 1;
  int64_t ivalue_ = 0;
  double fvalue_ = 0;
  std::string reason_;
  std::vector<ExprRef> operands_;
};

// Number of operands each kind takes (Seq: 3 or 4).
unsigned operandCount(ExprKind kind);
bool isBinary(ExprKind kind);
bool isUnary(ExprKind kind);
std::string_view name(ExprKind kind);
std::string_view name(WorkItemFn fn);
std::string_view name(LaunchFn fn);

// Names kernel arguments when printing (index -> name); the default prints "arg<i>".
using ArgNamer = std::function<std::string(unsigned)>;
std::string toString(const Expr& e, const ArgNamer& names = {});
inline std::string toString(const ExprRef& e, const ArgNamer& names = {}) {
  return e ? toString(*e, names) : std::string("<null>");
}

// Structural equality (same tree, same constants).
bool equal(const Expr& a, const Expr& b);

} // namespace clsplit::analysis
