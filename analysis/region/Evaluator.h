// Evaluation of index expressions for one slice: each expression becomes an affine form over
// independent integer variables (work-item ids, loop counters, dense derived values) plus an
// over-approximating residual interval. Internal to instantiation (not a public API).
#pragma once

#include "analysis/region/AffineValue.h"
#include "analysis/region/Instantiate.h"
#include "analysis/region/KernelRegions.h"

#include <cstdint>
#include <list>
#include <string>
#include <string_view>
#include <vector>

namespace clsplit::analysis::detail {

// Base variables: get_global_id(d) = G_d, get_local_id(d) = L_d, get_group_id(d) = P_d.
constexpr unsigned kGlobalVar = 0, kLocalVar = 3, kGroupVar = 6, kBaseVars = 9;
constexpr unsigned kMaxVars = 64;
// Above this many disjoint ranges a region becomes its hull (inexact). Writes keep more:
// a hull is harmless for reads (a few more bytes in one transfer) but costs a write region
// its exactness (must-write), which the directory needs.
constexpr uint64_t kMaxRangesPerStatement = 1024;
constexpr uint64_t kMaxWriteRanges = 16384;

// The bytes of one statement with a single strided dimension: `count` blocks of `len` bytes,
// `stride` apart, from `base` (not clipped). Kept symbolic so that the statements of one buffer
// can be merged period by period (mergeStrided) before any range is produced.
struct Strided {
  i128 base = 0, len = 0, stride = 0, count = 1;
};

// Appends the union of `sets` (clipped to [0, size)) to `out`. When that would take more than
// maxRanges ranges for one stride, that stride's hull is used instead (exact becomes false,
// with a note).
void mergeStrided(std::vector<Strided>& sets, uint64_t size, std::vector<ByteRange>& out, bool& exact,
                  std::string& note, uint64_t maxRanges = kMaxRangesPerStatement);

// Everything one instantiation call needs, reused across its statements.
class Evaluator {
public:
  Evaluator(const KernelRegions& regions, const NDRange& range, const Slice& slice, const LaunchValues& values);

  // Restores the base variables to the slice's ranges and forgets derived variables.
  void resetStatement();
  // The base variables as guards left them (statements with the same guards reuse it).
  struct GuardState {
    Variable vars[kBaseVars];
    uint16_t restricted = 0;
  };
  GuardState saveGuards() const;
  void restoreGuards(const GuardState& state);
  // Applies one guard: narrows base variables, or proves the statement never runs (returns
  // false). Sets `exact` false when the guard had to be (partly) ignored.
  bool applyGuard(const Guard& guard, bool& exact);
  Value evaluate(const Expr& e);
  // Rewrites get_global_id(d) as offset + group*local + local_id where the statement also
  // uses (or was guarded on) local or group ids of d, so that the combination stays exact.
  void normaliseWorkItems(Value& v);
  // Bytes of `width`-byte accesses at every value of v: as ranges clipped to [0, size) in
  // `out`, or, with one strided dimension, symbolically in `strided` (see mergeStrided).
  void appendRanges(const Value& v, uint32_t width, uint64_t size, std::vector<ByteRange>& out,
                    std::vector<Strided>& strided, bool& exact, std::string& note,
                    uint64_t maxRanges = kMaxRangesPerStatement);

  const Variable& var(unsigned i) const { return vars_[i]; }
  std::string_view keep(std::string s); // stores a dynamic reason for the call's lifetime

private:
  Value eval(const Expr& e);
  Value evalBinary(const Expr& e, Value a, Value b);
  Value evalUnary(const Expr& e, Value a);
  Value evalLoad(const Expr& e);
  Value evalSeq(const Expr& e);
  // One of two values (either operand of an Either, either arm of a Select): their hull.
  Value join(Value a, Value b, unsigned bits);
  Value evalArg(const Expr& e);
  Value derived(const Expr* key, i128 lo, i128 hi, uint16_t deps);
  bool interpret(Value& v, unsigned bits, bool isSigned);
  bool rangeOf(const Value& v, i128& lo, i128& hi) const;
  Value toResidual(const Value& v) const;
  uint16_t depsOf(const Value& v) const;
  bool restrictVar(unsigned var, CmpOp op, i128 coeff, i128 rhs, bool& exact);
  std::optional<ScalarValue> element(unsigned arg, uint64_t offset, ScalarType type);

  const KernelRegions& regions_;
  const NDRange& range_;
  const LaunchValues& values_;
  Variable base_[kBaseVars];
  Variable vars_[kMaxVars];
  unsigned nvars_ = kBaseVars;
  uint16_t restricted_ = 0; // base variables narrowed by guards in this statement
  struct Memo {
    const Expr* expr;
    uint8_t var;
  };
  std::vector<Memo> memo_;
  struct CachedElement {
    unsigned arg;
    uint64_t offset;
    ScalarType type;
    std::optional<ScalarValue> value;
  };
  std::vector<CachedElement> elements_;
  std::list<std::string> reasons_; // stable addresses; no allocation until used
};

} // namespace clsplit::analysis::detail
