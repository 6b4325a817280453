// Use-def translation of LLVM values into index expressions. Induction variables go through
// ScalarEvolution (start, step, trip count, last value); everything else is translated
// structurally, so the affine evaluation at launch time sees the arithmetic as written.
#include "analysis/analyzer/IRTranslator.h"

#include "analysis/Analysis.h"
#include "analysis/analyzer/OpenCLBuiltins.h"
#include "analysis/region/Guard.h"

#include <llvm/ADT/MapVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

#include <map>

namespace clsplit::analysis::analyzer {

namespace {

constexpr unsigned kMaxDepth = 64;

ValueType typeOf(const llvm::Type* t) {
  if (t->isIntegerTy()) return ValueType::integer(t->getIntegerBitWidth());
  if (t->isDoubleTy()) return ValueType::floating(64);
  if (t->isFloatTy()) return ValueType::floating(32);
  if (t->isHalfTy()) return ValueType::floating(16);
  if (t->isPointerTy()) return ValueType::integer(64);
  return ValueType::integer(64);
}

bool isScalar(const llvm::Type* t) { return t->isIntegerTy() || t->isFloatingPointTy(); }

ScalarType scalarOf(const llvm::Type* t) {
  if (t->isFloatTy()) return ScalarType::F32;
  if (t->isDoubleTy()) return ScalarType::F64;
  if (t->isIntegerTy(8)) return ScalarType::I8;
  if (t->isIntegerTy(16)) return ScalarType::I16;
  if (t->isIntegerTy(32)) return ScalarType::I32;
  if (t->isIntegerTy(64)) return ScalarType::I64;
  return ScalarType::Unknown;
}

ExprRef to64(ExprRef e, bool isSigned) {
  if (e->type().isFloat || e->type().bits >= 64) return e;
  return Expr::unary(isSigned ? ExprKind::SExt : ExprKind::ZExt, std::move(e), ValueType::integer(64));
}

std::optional<ExprKind> binaryKind(unsigned opcode) {
  switch (opcode) {
  case llvm::Instruction::Add:
    return ExprKind::Add;
  case llvm::Instruction::Sub:
    return ExprKind::Sub;
  case llvm::Instruction::Mul:
    return ExprKind::Mul;
  case llvm::Instruction::SDiv:
    return ExprKind::SDiv;
  case llvm::Instruction::UDiv:
    return ExprKind::UDiv;
  case llvm::Instruction::SRem:
    return ExprKind::SRem;
  case llvm::Instruction::URem:
    return ExprKind::URem;
  case llvm::Instruction::Shl:
    return ExprKind::Shl;
  case llvm::Instruction::LShr:
    return ExprKind::LShr;
  case llvm::Instruction::AShr:
    return ExprKind::AShr;
  case llvm::Instruction::And:
    return ExprKind::And;
  case llvm::Instruction::Or:
    return ExprKind::Or;
  case llvm::Instruction::Xor:
    return ExprKind::Xor;
  case llvm::Instruction::FAdd:
    return ExprKind::FAdd;
  case llvm::Instruction::FSub:
    return ExprKind::FSub;
  case llvm::Instruction::FMul:
    return ExprKind::FMul;
  case llvm::Instruction::FDiv:
    return ExprKind::FDiv;
  default:
    return std::nullopt;
  }
}

bool containsForeignAddRec(const llvm::SCEV* s, const llvm::BasicBlock* at) {
  return llvm::SCEVExprContains(s, [&](const llvm::SCEV* x) {
    auto* ar = llvm::dyn_cast<llvm::SCEVAddRecExpr>(x);
    return ar && (!at || !ar->getLoop()->contains(at));
  });
}

// Smallest and largest element of a constant global array of `element`s (integers or floats).
std::optional<std::pair<double, double>> tableBounds(const llvm::GlobalVariable* g, const llvm::Type* element) {
  if (!g->isConstant() || !g->hasDefinitiveInitializer() || !isScalar(element)) return std::nullopt;
  const llvm::Constant* init = g->getInitializer();
  if (llvm::isa<llvm::ConstantAggregateZero>(init)) return std::pair<double, double>{0.0, 0.0};
  auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(init);
  if (!data || data->getElementType() != element || data->getNumElements() == 0) return std::nullopt;
  double lo = 0, hi = 0;
  for (unsigned k = 0; k < data->getNumElements(); ++k) {
    double v = element->isFloatingPointTy() ? data->getElementAsDouble(k)
                                            : static_cast<double>(static_cast<int64_t>(data->getElementAsInteger(k)));
    if (element->isIntegerTy() && element->getIntegerBitWidth() < 64)
      v = static_cast<double>(llvm::APInt(element->getIntegerBitWidth(), data->getElementAsInteger(k)).getSExtValue());
    lo = k ? std::min(lo, v) : v;
    hi = k ? std::max(hi, v) : v;
  }
  return std::pair<double, double>{lo, hi};
}

} // namespace

IRTranslator::IRTranslator(llvm::Function& kernel, llvm::ScalarEvolution& se, llvm::LoopInfo& li,
                           llvm::DominatorTree& dt)
    : kernel_(kernel), se_(se), li_(li), dt_(dt), dl_(kernel.getParent()->getDataLayout()),
      declared_(kernel.arg_size(), ScalarType::Unknown) {}

void IRTranslator::setDeclaredElementType(unsigned arg, ScalarType type) {
  if (arg < declared_.size()) declared_[arg] = type;
}

unsigned IRTranslator::lineOf(const llvm::Instruction* i) {
  if (!i) return 0;
  if (const auto& loc = i->getDebugLoc()) return loc.getLine();
  return 0;
}

std::string IRTranslator::where(const llvm::Instruction* i) const {
  unsigned line = lineOf(i);
  return line ? " (line " + std::to_string(line) + ")" : std::string();
}

std::string IRTranslator::argName(unsigned arg) const {
  return names_ ? names_(arg) : "argument " + std::to_string(arg);
}

ExprRef IRTranslator::value(const llvm::Value* v, Context& ctx) { return valueImpl(v, ctx, 0); }

ExprRef IRTranslator::scev(const llvm::SCEV* s, Context& ctx) { return scevImpl(s, ctx, 0); }

ExprRef IRTranslator::offsetOf(const llvm::Value* p, unsigned arg, Context& ctx) { return offsetImpl(p, arg, ctx, 0); }

ExprRef IRTranslator::valueImpl(const llvm::Value* v, Context& ctx, unsigned depth) {
  const llvm::Type* type = v->getType();
  if (depth > kMaxDepth) return Expr::undef("expression too deep", typeOf(type));
  if (!isScalar(type)) return Expr::undef("value of a non-scalar type", typeOf(type));
  if (auto* ci = llvm::dyn_cast<llvm::ConstantInt>(v)) {
    if (ci->getBitWidth() > 64) return Expr::undef("integer wider than 64 bits");
    return Expr::constant(ci->getSExtValue(), ci->getBitWidth());
  }
  if (auto* cf = llvm::dyn_cast<llvm::ConstantFP>(v)) {
    llvm::APFloat f = cf->getValueAPF();
    bool lost = false;
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return Expr::fconstant(f.convertToDouble(), typeOf(type).bits);
  }
  if (llvm::isa<llvm::UndefValue>(v)) return Expr::undef("undefined value", typeOf(type));
  if (auto* a = llvm::dyn_cast<llvm::Argument>(v))
    return Expr::argument(a->getArgNo(), typeOf(type), scalarOf(type), 0);
  if (auto* i = llvm::dyn_cast<llvm::Instruction>(v)) return instruction(i, ctx, depth + 1);
  return Expr::undef("constant expression", typeOf(type));
}

ExprRef IRTranslator::instruction(const llvm::Instruction* i, Context& ctx, unsigned depth) {
  const ValueType type = typeOf(i->getType());
  // A value computed in a loop that does not contain the use point: its exit value.
  if (const llvm::Loop* defLoop = li_.getLoopFor(i->getParent());
      defLoop && ctx.at && !defLoop->contains(ctx.at) && se_.isSCEVable(i->getType())) {
    const llvm::SCEV* s = se_.getSCEVAtScope(const_cast<llvm::Instruction*>(i), li_.getLoopFor(ctx.at));
    if (!llvm::isa<llvm::SCEVCouldNotCompute>(s) && !containsForeignAddRec(s, ctx.at)) return scevImpl(s, ctx, depth);
    ctx.approximate("a value computed in a loop is used after it" + where(i));
  }
  auto op = [&](unsigned k) { return valueImpl(i->getOperand(k), ctx, depth); };

  if (auto kind = binaryKind(i->getOpcode())) return Expr::binary(*kind, op(0), op(1));
  switch (i->getOpcode()) {
  case llvm::Instruction::FNeg:
    return Expr::binary(ExprKind::FSub, Expr::fconstant(0.0, type.bits), op(0));
  case llvm::Instruction::SExt:
    return Expr::unary(ExprKind::SExt, op(0), type);
  case llvm::Instruction::ZExt:
    return Expr::unary(ExprKind::ZExt, op(0), type);
  case llvm::Instruction::Trunc:
    return Expr::unary(ExprKind::Trunc, op(0), type);
  case llvm::Instruction::FPToSI:
    return Expr::unary(ExprKind::FPToSI, op(0), type);
  case llvm::Instruction::FPToUI:
    return Expr::unary(ExprKind::FPToUI, op(0), type);
  case llvm::Instruction::SIToFP:
    return Expr::unary(ExprKind::SIToFP, op(0), type);
  case llvm::Instruction::UIToFP:
    return Expr::unary(ExprKind::UIToFP, op(0), type);
  case llvm::Instruction::FPTrunc:
  case llvm::Instruction::FPExt:
    return Expr::unary(ExprKind::FPCast, op(0), type);
  case llvm::Instruction::Freeze:
    return op(0);
  case llvm::Instruction::Select: {
    const llvm::Value *l = nullptr, *r = nullptr;
    auto pattern = llvm::matchSelectPattern(i, l, r);
    if (l && r && !pattern.Ordered && l->getType() == i->getType() && r->getType() == i->getType()) {
      switch (pattern.Flavor) {
      case llvm::SPF_SMIN:
        return Expr::binary(ExprKind::SMin, valueImpl(l, ctx, depth), valueImpl(r, ctx, depth));
      case llvm::SPF_SMAX:
        return Expr::binary(ExprKind::SMax, valueImpl(l, ctx, depth), valueImpl(r, ctx, depth));
      case llvm::SPF_UMIN:
        return Expr::binary(ExprKind::UMin, valueImpl(l, ctx, depth), valueImpl(r, ctx, depth));
      case llvm::SPF_UMAX:
        return Expr::binary(ExprKind::UMax, valueImpl(l, ctx, depth), valueImpl(r, ctx, depth));
      default:
        break;
      }
    }
    if (auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(i->getOperand(0));
        cmp && cmp->getOperand(0)->getType()->isIntegerTy()) {
      static const std::map<llvm::CmpInst::Predicate, CmpOp> ops = {
          {llvm::CmpInst::ICMP_EQ, CmpOp::Eq},   {llvm::CmpInst::ICMP_NE, CmpOp::Ne},
          {llvm::CmpInst::ICMP_SLT, CmpOp::SLt}, {llvm::CmpInst::ICMP_SLE, CmpOp::SLe},
          {llvm::CmpInst::ICMP_SGT, CmpOp::SGt}, {llvm::CmpInst::ICMP_SGE, CmpOp::SGe},
          {llvm::CmpInst::ICMP_ULT, CmpOp::ULt}, {llvm::CmpInst::ICMP_ULE, CmpOp::ULe},
          {llvm::CmpInst::ICMP_UGT, CmpOp::UGt}, {llvm::CmpInst::ICMP_UGE, CmpOp::UGe}};
      auto it = ops.find(cmp->getPredicate());
      if (it != ops.end())
        return Expr::select(static_cast<uint8_t>(it->second), valueImpl(cmp->getOperand(0), ctx, depth),
                            valueImpl(cmp->getOperand(1), ctx, depth), op(1), op(2));
    }
    return Expr::either(op(1), op(2));
  }
  case llvm::Instruction::PHI: {
    auto* phi = llvm::cast<llvm::PHINode>(i);
    const llvm::Loop* loop = li_.getLoopFor(phi->getParent());
    if (loop && loop->getHeader() == phi->getParent()) {
      const llvm::SCEV* s = se_.getSCEV(const_cast<llvm::PHINode*>(phi));
      if (auto* ar = llvm::dyn_cast<llvm::SCEVAddRecExpr>(s); ar && ar->getLoop() == loop)
        return addRec(ar, ctx, depth);
      if (!llvm::isa<llvm::SCEVAddRecExpr>(s) && !llvm::isa<llvm::SCEVCouldNotCompute>(s) &&
          se_.isLoopInvariant(s, loop))
        return scevImpl(s, ctx, depth);
      return Expr::undef("a loop-carried value that is not an induction variable" + where(i), type);
    }
    if (phi->getNumIncomingValues() > 8) return Expr::undef("a merge of too many values" + where(i), type);
    ExprRef out;
    for (const llvm::Value* in : phi->incoming_values()) {
      ExprRef e = valueImpl(in, ctx, depth);
      out = out ? Expr::either(out, e) : e;
    }
    return out ? out : Expr::undef("empty phi", type);
  }
  case llvm::Instruction::Load:
    return load(i, ctx, depth);
  case llvm::Instruction::Call:
    return call(i, ctx, depth);
  case llvm::Instruction::ExtractElement: {
    auto* idx = llvm::dyn_cast<llvm::ConstantInt>(i->getOperand(1));
    const llvm::Value* vec = i->getOperand(0);
    if (!idx) return Expr::undef("vector lane chosen at run time" + where(i), type);
    uint64_t lane = idx->getZExtValue();
    uint64_t laneBytes = dl_.getTypeAllocSize(i->getType());
    if (auto* a = llvm::dyn_cast<llvm::Argument>(vec))
      return Expr::argument(a->getArgNo(), type, scalarOf(i->getType()), static_cast<uint32_t>(lane * laneBytes));
    if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(vec)) {
      auto arg = baseArgument(ld->getPointerOperand());
      if (arg && !written_.count(*arg)) {
        ExprRef off = Expr::add(offsetImpl(ld->getPointerOperand(), *arg, ctx, depth),
                                Expr::constant(static_cast<int64_t>(lane * laneBytes)));
        return Expr::load(*arg, off, scalarOf(i->getType()));
      }
    }
    return Expr::undef("element of a vector value" + where(i), type);
  }
  case llvm::Instruction::AtomicRMW:
  case llvm::Instruction::AtomicCmpXchg:
    return Expr::undef("result of an atomic operation" + where(i), type);
  case llvm::Instruction::ICmp:
  case llvm::Instruction::FCmp:
    return Expr::undef("comparison result used as a number" + where(i), type);
  default:
    break;
  }
  return Expr::undef(std::string("unsupported instruction '") + i->getOpcodeName() + "'" + where(i), type);
}

ExprRef IRTranslator::call(const llvm::Instruction* i, Context& ctx, unsigned depth) {
  auto* cb = llvm::cast<llvm::CallBase>(i);
  const ValueType type = typeOf(i->getType());
  auto arg = [&](unsigned k) { return valueImpl(cb->getArgOperand(k), ctx, depth); };
  if (auto* ii = llvm::dyn_cast<llvm::IntrinsicInst>(i)) {
    switch (ii->getIntrinsicID()) {
    case llvm::Intrinsic::smin:
      return Expr::binary(ExprKind::SMin, arg(0), arg(1));
    case llvm::Intrinsic::smax:
      return Expr::binary(ExprKind::SMax, arg(0), arg(1));
    case llvm::Intrinsic::umin:
      return Expr::binary(ExprKind::UMin, arg(0), arg(1));
    case llvm::Intrinsic::umax:
      return Expr::binary(ExprKind::UMax, arg(0), arg(1));
    case llvm::Intrinsic::abs:
      return Expr::unary(ExprKind::Abs, arg(0), type);
    case llvm::Intrinsic::fabs:
      return Expr::unary(ExprKind::FAbs, arg(0), type);
    case llvm::Intrinsic::floor:
      return Expr::unary(ExprKind::FFloor, arg(0), type);
    case llvm::Intrinsic::ceil:
      return Expr::unary(ExprKind::FCeil, arg(0), type);
    case llvm::Intrinsic::minnum:
    case llvm::Intrinsic::minimum:
      return Expr::binary(ExprKind::FMin, arg(0), arg(1));
    case llvm::Intrinsic::maxnum:
    case llvm::Intrinsic::maximum:
      return Expr::binary(ExprKind::FMax, arg(0), arg(1));
    case llvm::Intrinsic::fmuladd:
    case llvm::Intrinsic::fma:
      return Expr::binary(ExprKind::FAdd, Expr::binary(ExprKind::FMul, arg(0), arg(1)), arg(2));
    default:
      return Expr::undef(std::string("result of intrinsic ") + ii->getCalledFunction()->getName().str() + where(i),
                         type);
    }
  }
  const llvm::Function* callee = cb->getCalledFunction();
  if (!callee) return Expr::undef("result of an indirect call" + where(i), type);
  Builtin b = classifyBuiltin(callee->getName());
  const std::string& n = b.name.base;
  auto dimension = [&]() -> std::optional<unsigned> {
    if (cb->arg_size() < 1) return std::nullopt;
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(cb->getArgOperand(0));
    if (!c || c->getZExtValue() > 2) return std::nullopt;
    return static_cast<unsigned>(c->getZExtValue());
  };
  auto fit = [&](ExprRef e) { // built-ins return size_t; IR may declare i64 or i32
    if (e->type().bits == type.bits || type.isFloat) return e;
    return Expr::unary(e->type().bits > type.bits ? ExprKind::Trunc : ExprKind::ZExt, e, type);
  };
  // An image's size and format queries: values of the launch, like a scalar argument's, read
  // from the bytes the runtime gives for the image argument (analysis::imageQueryOffset).
  if (auto offset = imageQueryOffset(n); offset && cb->arg_size() == 1)
    if (auto* image = llvm::dyn_cast<llvm::Argument>(cb->getArgOperand(0)->stripPointerCasts()))
      return fit(Expr::argument(image->getArgNo(), ValueType::integer(32), ScalarType::I32, *offset));
  switch (b.kind) {
  case BuiltinKind::WorkItem: {
    auto d = dimension();
    if (!d) return Expr::undef(n + " with a dimension computed at run time" + where(i), type);
    WorkItemFn fn = n == "get_global_id"  ? WorkItemFn::GlobalId
                    : n == "get_local_id" ? WorkItemFn::LocalId
                                          : WorkItemFn::GroupId;
    return fit(Expr::workItem(fn, *d));
  }
  case BuiltinKind::Launch: {
    if (n == "get_work_dim") return fit(Expr::launch(LaunchFn::WorkDim, 0));
    auto d = dimension();
    if (!d) return Expr::undef(n + " with a dimension computed at run time" + where(i), type);
    LaunchFn fn = n == "get_global_size"     ? LaunchFn::GlobalSize
                  : n == "get_num_groups"    ? LaunchFn::NumGroups
                  : n == "get_global_offset" ? LaunchFn::GlobalOffset
                                             : LaunchFn::LocalSize;
    return fit(Expr::launch(fn, *d));
  }
  case BuiltinKind::IntMath: {
    if (!isScalar(i->getType())) return Expr::undef(n + " on vectors" + where(i), type);
    bool isF = i->getType()->isFloatingPointTy();
    bool sgn = !b.name.params.empty() ? isSigned(b.name.params[0].element) : true;
    ExprKind mn = isF ? ExprKind::FMin : sgn ? ExprKind::SMin : ExprKind::UMin;
    ExprKind mx = isF ? ExprKind::FMax : sgn ? ExprKind::SMax : ExprKind::UMax;
    if (n == "min" && cb->arg_size() == 2) return Expr::binary(mn, arg(0), arg(1));
    if (n == "max" && cb->arg_size() == 2) return Expr::binary(mx, arg(0), arg(1));
    if (n == "clamp" && cb->arg_size() == 3) return Expr::binary(mn, Expr::binary(mx, arg(0), arg(1)), arg(2));
    if (n == "abs" && cb->arg_size() == 1 && !isF) return Expr::unary(ExprKind::Abs, arg(0), type);
    // mul24/mad24 are exact for the 24-bit operands they are defined for.
    if (n == "mul24" && cb->arg_size() == 2) return Expr::mul(arg(0), arg(1));
    if (n == "mad24" && cb->arg_size() == 3) return Expr::add(Expr::mul(arg(0), arg(1)), arg(2));
    break;
  }
  case BuiltinKind::FloatMath: {
    if (!isScalar(i->getType())) return Expr::undef(n + " on vectors" + where(i), type);
    if (n == "floor") return Expr::unary(ExprKind::FFloor, arg(0), type);
    if (n == "ceil") return Expr::unary(ExprKind::FCeil, arg(0), type);
    if (n == "fabs") return Expr::unary(ExprKind::FAbs, arg(0), type);
    if (n == "fmin" && cb->arg_size() == 2) return Expr::binary(ExprKind::FMin, arg(0), arg(1));
    if (n == "fmax" && cb->arg_size() == 2) return Expr::binary(ExprKind::FMax, arg(0), arg(1));
    break;
  }
  case BuiltinKind::Convert: {
    if (!isScalar(i->getType()) || cb->arg_size() != 1 || !isScalar(cb->getArgOperand(0)->getType())) break;
    if (n.find("_sat") != std::string::npos) break; // saturation is not modelled
    bool toUnsigned = n.size() > 8 && n[8] == 'u';
    bool fromFloat = cb->getArgOperand(0)->getType()->isFloatingPointTy();
    bool toFloat = i->getType()->isFloatingPointTy();
    ExprRef x = arg(0);
    if (toFloat && fromFloat) return Expr::unary(ExprKind::FPCast, x, type);
    if (toFloat) {
      bool fromSigned = b.name.params.empty() || isSigned(b.name.params[0].element);
      return Expr::unary(fromSigned ? ExprKind::SIToFP : ExprKind::UIToFP, x, type);
    }
    if (fromFloat) {
      ExprKind conv = toUnsigned ? ExprKind::FPToUI : ExprKind::FPToSI;
      ValueType ft = x->type();
      if (n.find("_rtn") != std::string::npos)
        x = Expr::unary(ExprKind::FFloor, x, ft);
      else if (n.find("_rtp") != std::string::npos)
        x = Expr::unary(ExprKind::FCeil, x, ft);
      else if (n.find("_rte") != std::string::npos)
        return Expr::either(Expr::unary(conv, Expr::unary(ExprKind::FFloor, x, ft), type),
                            Expr::unary(conv, Expr::unary(ExprKind::FCeil, x, ft), type));
      return Expr::unary(conv, x, type);
    }
    unsigned from = x->type().bits, to = type.bits;
    if (to == from) return x;
    if (to < from) return Expr::unary(ExprKind::Trunc, x, type);
    bool fromSigned = b.name.params.empty() || isSigned(b.name.params[0].element);
    return Expr::unary(fromSigned ? ExprKind::SExt : ExprKind::ZExt, x, type);
  }
  case BuiltinKind::Atomic:
    return Expr::undef("result of " + n + where(i), type);
  default:
    break;
  }
  return Expr::undef("result of a call to " + n + where(i), type);
}

ExprRef IRTranslator::load(const llvm::Instruction* i, Context& ctx, unsigned depth) {
  auto* ld = llvm::cast<llvm::LoadInst>(i);
  const ValueType type = typeOf(i->getType());
  const llvm::Value* ptr = ld->getPointerOperand();
  // A field of a struct argument passed by value.
  llvm::APInt offset(64, 0);
  const llvm::Value* base = ptr->stripAndAccumulateConstantOffsets(dl_, offset, true);
  if (auto* a = llvm::dyn_cast<llvm::Argument>(base); a && a->hasByValAttr() && offset.isNonNegative())
    return Expr::argument(a->getArgNo(), type, scalarOf(i->getType()), static_cast<uint32_t>(offset.getZExtValue()));
  unsigned as = ptr->getType()->getPointerAddressSpace();
  if (auto arg = baseArgument(ptr)) {
    if (written_.count(*arg) && !ctx.pragma)
      return Expr::undef("a value read from " + argName(*arg) + ", which the kernel also writes" + where(i), type);
    ScalarType element = scalarOf(i->getType());
    ScalarType declared = *arg < declared_.size() ? declared_[*arg] : ScalarType::Unknown;
    if (declared != ScalarType::Unknown && scalarSize(declared) == scalarSize(element) &&
        isFloat(declared) == isFloat(element))
      element = declared;
    if (element == ScalarType::Unknown)
      return Expr::undef("a non-scalar value read from " + argName(*arg) + where(i), type);
    return Expr::load(*arg, offsetImpl(ptr, *arg, ctx, depth), element);
  }
  if (auto* table = llvm::dyn_cast<llvm::GlobalVariable>(llvm::getUnderlyingObject(ptr))) {
    // A program-scope __constant table: any of its values (the index is not a constant, or
    // InstCombine would have folded the load).
    if (auto bounds = tableBounds(table, i->getType())) {
      ctx.approximate("a value read from the constant table '" + table->getName().str() + "'" + where(i));
      if (i->getType()->isFloatingPointTy())
        return Expr::either(Expr::fconstant(bounds->first, type.bits), Expr::fconstant(bounds->second, type.bits));
      return Expr::interval(Expr::constant(static_cast<int64_t>(bounds->first), type.bits),
                            Expr::constant(static_cast<int64_t>(bounds->second), type.bits));
    }
  }
  if (as == 3) return Expr::undef("a value read from __local memory" + where(i), type);
  if (as == 0) return Expr::undef("a value read from private memory" + where(i), type);
  return Expr::undef("a value read through a pointer the analysis cannot follow" + where(i), type);
}

ExprRef IRTranslator::addRec(const llvm::SCEVAddRecExpr* ar, Context& ctx, unsigned depth) {
  const llvm::Loop* loop = ar->getLoop();
  const ValueType type = typeOf(ar->getType());
  const llvm::Instruction* header = &*loop->getHeader()->begin();
  if (!ar->isAffine()) return Expr::undef("a non-linear induction variable" + where(header), type);
  const bool inside = ctx.at && loop->contains(ctx.at);
  if (!inside) {
    const llvm::SCEV* exit = se_.getSCEVAtScope(ar, ctx.at ? li_.getLoopFor(ctx.at) : nullptr);
    if (!llvm::isa<llvm::SCEVCouldNotCompute>(exit) && !containsForeignAddRec(exit, ctx.at))
      return scevImpl(exit, ctx, depth);
    ctx.approximate("a loop's induction variable is used after the loop" + where(header));
  }
  // Inexact counts are recorded in ctx (the statement then over-approximates).
  const llvm::SCEV* btc = se_.getBackedgeTakenCount(loop);
  if (llvm::isa<llvm::SCEVCouldNotCompute>(btc)) {
    btc = se_.getSymbolicMaxBackedgeTakenCount(loop);
    if (llvm::isa<llvm::SCEVCouldNotCompute>(btc)) {
      // No trip count (e.g. a step only known at launch time): the exit test still bounds
      // the values, which the sequence covers if the step turns out to be positive.
      const llvm::SCEV* bound = exitBound(loop, ar);
      if (!bound) return Expr::undef("the trip count of the loop" + where(header) + " is unknown", type);
      ctx.approximate("the trip count of the loop" + where(header) + " is unknown: its exit test bounds it");
      ctx.sequenceLoops.insert(loop);
      return Expr::seq(scevImpl(ar->getStart(), ctx, depth + 1), scevImpl(ar->getStepRecurrence(se_), ctx, depth + 1),
                       Expr::undef("the trip count of the loop" + where(header) + " is unknown"),
                       scevImpl(bound, ctx, depth + 1));
    }
    ctx.approximate("only a bound of the trip count of the loop" + where(header) + " is known");
  }
  const llvm::BasicBlock* exiting = loop->getExitingBlock();
  const llvm::SCEV* one = se_.getOne(btc->getType());
  const llvm::SCEV* count = se_.getAddExpr(btc, one);
  const llvm::SCEV* lastIteration = btc;
  if (inside && exiting && exiting == loop->getLoopLatch()) {
    // Rotated loop: every block of the body runs in each of the btc + 1 iterations.
  } else if (inside && exiting && exiting == loop->getHeader()) {
    if (ctx.at != loop->getHeader()) { // the last header visit exits before the body
      count = btc;
      lastIteration = se_.getMinusSCEV(btc, one);
    }
  } else if (inside) {
    ctx.approximate("the loop" + where(header) + " has several exits");
  }
  ExprRef first = scevImpl(ar->getStart(), ctx, depth + 1);
  ExprRef step = scevImpl(ar->getStepRecurrence(se_), ctx, depth + 1);
  ExprRef last;
  if (ar->getNoWrapFlags(llvm::SCEV::FlagNSW) || ar->getNoWrapFlags(llvm::SCEV::FlagNUW)) {
    const llvm::SCEV* it = se_.getTruncateOrZeroExtend(lastIteration, ar->getType());
    last = scevImpl(ar->evaluateAtIteration(it, se_), ctx, depth + 1);
  }
  ctx.sequenceLoops.insert(loop);
  return Expr::seq(first, step, scevImpl(count, ctx, depth + 1), last);
}

const llvm::SCEV* IRTranslator::exitBound(const llvm::Loop* loop, const llvm::SCEVAddRecExpr* ar) {
  // The test of the latch (rotated loops) or of the header (while loops) that keeps the loop
  // going: `iv < B` or `iv + step < B` gives iv <= B - 1 after the first value.
  for (const llvm::BasicBlock* block : {loop->getLoopLatch(), loop->getHeader()}) {
    if (!block) continue;
    auto* br = llvm::dyn_cast<llvm::BranchInst>(block->getTerminator());
    if (!br || !br->isConditional()) continue;
    auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(br->getCondition());
    if (!cmp) continue;
    bool stayOnTrue = loop->contains(br->getSuccessor(0)) && !loop->contains(br->getSuccessor(1));
    bool stayOnFalse = loop->contains(br->getSuccessor(1)) && !loop->contains(br->getSuccessor(0));
    if (!stayOnTrue && !stayOnFalse) continue;
    llvm::CmpInst::Predicate pred = stayOnTrue ? cmp->getPredicate() : cmp->getInversePredicate();
    const llvm::SCEV* base = nullptr;
    auto norm = [&](const llvm::Value* v) -> const llvm::SCEV* {
      const llvm::SCEV* s = se_.getSCEV(const_cast<llvm::Value*>(v));
      if (!v->getType()->isPointerTy()) return s;
      const llvm::SCEV* b = se_.getPointerBase(s);
      if (base && b != base) return nullptr;
      base = b;
      return se_.removePointerBase(s);
    };
    const llvm::SCEV* lhs = norm(cmp->getOperand(0));
    const llvm::SCEV* rhs = norm(cmp->getOperand(1));
    if (!lhs || !rhs) continue;
    const llvm::SCEV* post = ar->getPostIncExpr(se_);
    auto same = [&](const llvm::SCEV* x, const llvm::SCEV* y) {
      return x == y || (x->getType() == y->getType() && se_.getMinusSCEV(x, y)->isZero());
    };
    auto isIV = [&](const llvm::SCEV* x) { return same(x, ar) || same(x, post); };
    if (isIV(rhs) && !isIV(lhs)) {
      std::swap(lhs, rhs);
      pred = llvm::CmpInst::getSwappedPredicate(pred);
    }
    if (!isIV(lhs) || lhs->getType() != ar->getType() || !se_.isLoopInvariant(rhs, loop)) continue;
    if (pred == llvm::CmpInst::ICMP_SLT || pred == llvm::CmpInst::ICMP_ULT)
      return se_.getMinusSCEV(rhs, se_.getOne(rhs->getType()));
    if (pred == llvm::CmpInst::ICMP_SLE || pred == llvm::CmpInst::ICMP_ULE) return rhs;
  }
  return nullptr;
}

ExprRef IRTranslator::scevImpl(const llvm::SCEV* s, Context& ctx, unsigned depth) {
  const ValueType type = typeOf(s->getType());
  if (depth > kMaxDepth) return Expr::undef("expression too deep", type);
  using namespace llvm;
  if (auto* c = dyn_cast<SCEVConstant>(s)) {
    const APInt& v = c->getAPInt();
    if (v.getBitWidth() > 64) return Expr::undef("integer wider than 64 bits");
    return Expr::constant(v.getSExtValue(), v.getBitWidth());
  }
  if (auto* u = dyn_cast<SCEVUnknown>(s)) return valueImpl(u->getValue(), ctx, depth + 1);
  if (auto* a = dyn_cast<SCEVAddExpr>(s)) {
    ExprRef out;
    for (const SCEV* op : a->operands()) {
      ExprRef e = scevImpl(op, ctx, depth + 1);
      out = out ? Expr::add(out, e) : e;
    }
    return out;
  }
  if (auto* m = dyn_cast<SCEVMulExpr>(s)) {
    ExprRef out;
    for (const SCEV* op : m->operands()) {
      ExprRef e = scevImpl(op, ctx, depth + 1);
      out = out ? Expr::mul(out, e) : e;
    }
    return out;
  }
  if (auto* d = dyn_cast<SCEVUDivExpr>(s))
    return Expr::binary(ExprKind::UDiv, scevImpl(d->getLHS(), ctx, depth + 1), scevImpl(d->getRHS(), ctx, depth + 1));
  if (auto* ar = dyn_cast<SCEVAddRecExpr>(s)) return addRec(ar, ctx, depth + 1);
  if (auto* t = dyn_cast<SCEVTruncateExpr>(s))
    return Expr::unary(ExprKind::Trunc, scevImpl(t->getOperand(), ctx, depth + 1), type);
  if (auto* z = dyn_cast<SCEVZeroExtendExpr>(s))
    return Expr::unary(ExprKind::ZExt, scevImpl(z->getOperand(), ctx, depth + 1), type);
  if (auto* x = dyn_cast<SCEVSignExtendExpr>(s))
    return Expr::unary(ExprKind::SExt, scevImpl(x->getOperand(), ctx, depth + 1), type);
  ExprKind fold;
  switch (s->getSCEVType()) {
  case scSMaxExpr:
    fold = ExprKind::SMax;
    break;
  case scUMaxExpr:
    fold = ExprKind::UMax;
    break;
  case scSMinExpr:
    fold = ExprKind::SMin;
    break;
  case scUMinExpr:
  case scSequentialUMinExpr:
    fold = ExprKind::UMin;
    break;
  default:
    return Expr::undef("a value the analysis cannot compute", type);
  }
  auto* nary = cast<SCEVNAryExpr>(s);
  ExprRef out;
  for (const SCEV* op : nary->operands()) {
    ExprRef e = scevImpl(op, ctx, depth + 1);
    out = out ? Expr::binary(fold, out, e) : e;
  }
  return out;
}

std::optional<unsigned> IRTranslator::baseArgument(const llvm::Value* p) const {
  llvm::SmallPtrSet<const llvm::Value*, 16> seen;
  std::vector<const llvm::Value*> work{p};
  std::optional<unsigned> found;
  while (!work.empty()) {
    const llvm::Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    if (auto* a = llvm::dyn_cast<llvm::Argument>(v)) {
      if (a->getParent() != &kernel_ || !a->getType()->isPointerTy()) return std::nullopt;
      if (found && *found != a->getArgNo()) return std::nullopt;
      found = a->getArgNo();
      continue;
    }
    if (auto* g = llvm::dyn_cast<llvm::GEPOperator>(v)) {
      work.push_back(g->getPointerOperand());
      continue;
    }
    if (auto* op = llvm::dyn_cast<llvm::Operator>(v);
        op && (op->getOpcode() == llvm::Instruction::BitCast || op->getOpcode() == llvm::Instruction::AddrSpaceCast ||
               op->getOpcode() == llvm::Instruction::Freeze)) {
      work.push_back(op->getOperand(0));
      continue;
    }
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(v)) {
      for (const llvm::Value* in : phi->incoming_values()) work.push_back(in);
      continue;
    }
    if (auto* sel = llvm::dyn_cast<llvm::SelectInst>(v)) {
      work.push_back(sel->getTrueValue());
      work.push_back(sel->getFalseValue());
      continue;
    }
    return std::nullopt;
  }
  return found;
}

ExprRef IRTranslator::offsetImpl(const llvm::Value* p, unsigned arg, Context& ctx, unsigned depth) {
  if (depth > kMaxDepth) return Expr::undef("pointer arithmetic too deep");
  if (auto* a = llvm::dyn_cast<llvm::Argument>(p)) {
    if (a->getParent() == &kernel_ && a->getArgNo() == arg) return Expr::constant(0);
    return Expr::undef("the pointer may point into another buffer than " + argName(arg));
  }
  const auto* inst = llvm::dyn_cast<llvm::Instruction>(p);
  if (auto* g = llvm::dyn_cast<llvm::GEPOperator>(p)) {
    llvm::MapVector<llvm::Value*, llvm::APInt> vars;
    llvm::APInt constant(64, 0);
    if (!g->collectOffset(dl_, 64, vars, constant))
      return Expr::undef("pointer arithmetic the analysis cannot follow" + where(inst));
    ExprRef out =
        Expr::add(offsetImpl(g->getPointerOperand(), arg, ctx, depth + 1), Expr::constant(constant.getSExtValue()));
    for (auto& [index, scale] : vars) {
      ExprRef e = to64(valueImpl(index, ctx, depth + 1), true);
      out = Expr::add(out, Expr::mul(e, Expr::constant(scale.getSExtValue())));
    }
    return out;
  }
  if (auto* op = llvm::dyn_cast<llvm::Operator>(p);
      op && (op->getOpcode() == llvm::Instruction::BitCast || op->getOpcode() == llvm::Instruction::AddrSpaceCast ||
             op->getOpcode() == llvm::Instruction::Freeze))
    return offsetImpl(op->getOperand(0), arg, ctx, depth + 1);
  if (auto* sel = llvm::dyn_cast<llvm::SelectInst>(p))
    return Expr::either(offsetImpl(sel->getTrueValue(), arg, ctx, depth + 1),
                        offsetImpl(sel->getFalseValue(), arg, ctx, depth + 1));
  if (auto* phi = llvm::dyn_cast<llvm::PHINode>(p)) {
    const llvm::Loop* loop = li_.getLoopFor(phi->getParent());
    if (loop && loop->getHeader() == phi->getParent()) { // a pointer induction variable
      const llvm::SCEV* s = se_.getSCEV(const_cast<llvm::PHINode*>(phi));
      const llvm::SCEV* base = se_.getPointerBase(s);
      auto* unknown = llvm::dyn_cast<llvm::SCEVUnknown>(base);
      if (!unknown || unknown->getValue() != kernel_.getArg(arg))
        return Expr::undef("a pointer induction variable the analysis cannot follow" + where(inst));
      return scevImpl(se_.removePointerBase(s), ctx, depth + 1);
    }
    ExprRef out;
    for (const llvm::Value* in : phi->incoming_values()) {
      ExprRef e = offsetImpl(in, arg, ctx, depth + 1);
      out = out ? Expr::either(out, e) : e;
    }
    return out ? out : Expr::undef("empty phi");
  }
  return Expr::undef("a pointer the analysis cannot follow" + where(inst));
}

} // namespace clsplit::analysis::analyzer
