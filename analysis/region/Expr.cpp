// Expression nodes: construction with constant folding, printing, structural equality.
#include "analysis/region/Expr.h"

#include <cstdio>

namespace clsplit::analysis {

std::string_view name(ScalarType t) {
  switch (t) {
  case ScalarType::I8:
    return "char";
  case ScalarType::U8:
    return "uchar";
  case ScalarType::I16:
    return "short";
  case ScalarType::U16:
    return "ushort";
  case ScalarType::I32:
    return "int";
  case ScalarType::U32:
    return "uint";
  case ScalarType::I64:
    return "long";
  case ScalarType::U64:
    return "ulong";
  case ScalarType::F32:
    return "float";
  case ScalarType::F64:
    return "double";
  case ScalarType::Unknown:
    return "?";
  }
  return "?";
}

std::string_view name(AtomicOp op) {
  switch (op) {
  case AtomicOp::None:
    return "none";
  case AtomicOp::Add:
    return "add";
  case AtomicOp::Sub:
    return "sub";
  case AtomicOp::Inc:
    return "inc";
  case AtomicOp::Dec:
    return "dec";
  case AtomicOp::Min:
    return "min";
  case AtomicOp::Max:
    return "max";
  case AtomicOp::And:
    return "and";
  case AtomicOp::Or:
    return "or";
  case AtomicOp::Xor:
    return "xor";
  }
  return "?";
}

namespace {

int64_t wrapTo(int64_t v, unsigned bits) {
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (u >> (bits - 1)) u |= ~mask; // sign-extend
  return static_cast<int64_t>(u);
}

uint32_t saturatingAdd(uint32_t a, uint32_t b) {
  uint64_t s = uint64_t{a} + b;
  return s > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(s);
}

ValueType valueTypeOf(ScalarType t) {
  if (isFloat(t)) return ValueType::floating(scalarSize(t) * 8);
  unsigned size = scalarSize(t);
  return ValueType::integer(size ? size * 8 : 64);
}

} // namespace

unsigned operandCount(ExprKind kind) {
  switch (kind) {
  case ExprKind::Const:
  case ExprKind::FConst:
  case ExprKind::Arg:
  case ExprKind::WorkItem:
  case ExprKind::Launch:
  case ExprKind::Undef:
    return 0;
  case ExprKind::Load:
    return 1;
  case ExprKind::Seq:
    return 3; // or 4
  case ExprKind::Interval:
  case ExprKind::Either:
    return 2;
  case ExprKind::Select:
    return 4;
  default:
    return isBinary(kind) ? 2 : 1;
  }
}

bool isBinary(ExprKind kind) {
  return (kind >= ExprKind::Add && kind <= ExprKind::UMax) || (kind >= ExprKind::FAdd && kind <= ExprKind::FMax);
}

bool isUnary(ExprKind kind) { return kind >= ExprKind::SExt && kind <= ExprKind::FAbs; }

std::string_view name(ExprKind kind) {
  switch (kind) {
  case ExprKind::Const:
    return "const";
  case ExprKind::FConst:
    return "fconst";
  case ExprKind::Arg:
    return "arg";
  case ExprKind::WorkItem:
    return "workitem";
  case ExprKind::Launch:
    return "launch";
  case ExprKind::Undef:
    return "undef";
  case ExprKind::Interval:
    return "interval";
  case ExprKind::Seq:
    return "seq";
  case ExprKind::Either:
    return "either";
  case ExprKind::Select:
    return "select";
  case ExprKind::Load:
    return "load";
  case ExprKind::Add:
    return "+";
  case ExprKind::Sub:
    return "-";
  case ExprKind::Mul:
    return "*";
  case ExprKind::SDiv:
    return "/s";
  case ExprKind::UDiv:
    return "/u";
  case ExprKind::SRem:
    return "%s";
  case ExprKind::URem:
    return "%u";
  case ExprKind::Shl:
    return "<<";
  case ExprKind::LShr:
    return ">>u";
  case ExprKind::AShr:
    return ">>s";
  case ExprKind::And:
    return "&";
  case ExprKind::Or:
    return "|";
  case ExprKind::Xor:
    return "^";
  case ExprKind::SMin:
    return "smin";
  case ExprKind::SMax:
    return "smax";
  case ExprKind::UMin:
    return "umin";
  case ExprKind::UMax:
    return "umax";
  case ExprKind::FAdd:
    return "+.";
  case ExprKind::FSub:
    return "-.";
  case ExprKind::FMul:
    return "*.";
  case ExprKind::FDiv:
    return "/.";
  case ExprKind::FMin:
    return "fmin";
  case ExprKind::FMax:
    return "fmax";
  case ExprKind::SExt:
    return "sext";
  case ExprKind::ZExt:
    return "zext";
  case ExprKind::Trunc:
    return "trunc";
  case ExprKind::FPToSI:
    return "fptosi";
  case ExprKind::FPToUI:
    return "fptoui";
  case ExprKind::SIToFP:
    return "sitofp";
  case ExprKind::UIToFP:
    return "uitofp";
  case ExprKind::FPCast:
    return "fpcast";
  case ExprKind::FFloor:
    return "floor";
  case ExprKind::FCeil:
    return "ceil";
  case ExprKind::Abs:
    return "abs";
  case ExprKind::FAbs:
    return "fabs";
  }
  return "?";
}

std::string_view name(WorkItemFn fn) {
  switch (fn) {
  case WorkItemFn::GlobalId:
    return "get_global_id";
  case WorkItemFn::LocalId:
    return "get_local_id";
  case WorkItemFn::GroupId:
    return "get_group_id";
  }
  return "?";
}

std::string_view name(LaunchFn fn) {
  switch (fn) {
  case LaunchFn::GlobalSize:
    return "get_global_size";
  case LaunchFn::LocalSize:
    return "get_local_size";
  case LaunchFn::NumGroups:
    return "get_num_groups";
  case LaunchFn::GlobalOffset:
    return "get_global_offset";
  case LaunchFn::WorkDim:
    return "get_work_dim";
  }
  return "?";
}

ExprRef Expr::make(Raw raw) {
  auto e = std::shared_ptr<Expr>(new Expr());
  e->kind_ = raw.kind;
  e->type_ = raw.type;
  e->ivalue_ = raw.ivalue;
  e->fvalue_ = raw.fvalue;
  e->arg_ = raw.arg;
  e->dim_ = static_cast<uint8_t>(raw.dim);
  e->fn_ = raw.fn;
  e->element_ = raw.element;
  e->reason_ = std::move(raw.reason);
  e->operands_ = std::move(raw.operands);
  uint32_t nodes = 1;
  uint8_t flags = 0;
  if (e->kind_ == ExprKind::Undef) flags |= kHasUndef;
  if (e->kind_ == ExprKind::Load) flags |= kHasLoad;
  if (e->kind_ == ExprKind::WorkItem) flags |= kHasWorkItem;
  for (const auto& op : e->operands_) {
    nodes = saturatingAdd(nodes, op->nodes_);
    flags |= op->flags_;
  }
  e->nodes_ = nodes;
  e->flags_ = flags;
  if (nodes > kMaxNodes) return undef("expression too complex", raw.type);
  return e;
}

ExprRef Expr::fromRaw(Raw raw) { return make(std::move(raw)); }

Expr::Raw Expr::raw() const {
  Raw r;
  r.kind = kind_;
  r.type = type_;
  r.ivalue = ivalue_;
  r.fvalue = fvalue_;
  r.arg = arg_;
  r.dim = dim_;
  r.fn = fn_;
  r.element = element_;
  r.reason = reason_;
  r.operands = operands_;
  return r;
}

ExprRef Expr::constant(int64_t value, unsigned bits) {
  Raw r;
  r.kind = ExprKind::Const;
  r.type = ValueType::integer(bits);
  r.ivalue = wrapTo(value, bits);
  return make(std::move(r));
}

ExprRef Expr::fconstant(double value, unsigned bits) {
  Raw r;
  r.kind = ExprKind::FConst;
  r.type = ValueType::floating(bits);
  r.fvalue = value;
  return make(std::move(r));
}

ExprRef Expr::argument(unsigned arg, ScalarType type, uint32_t byteOffset) {
  return argument(arg, valueTypeOf(type), type, byteOffset);
}

ExprRef Expr::argument(unsigned arg, ValueType type, ScalarType declared, uint32_t byteOffset) {
  Raw r;
  r.kind = ExprKind::Arg;
  r.type = type;
  r.arg = arg;
  r.ivalue = byteOffset;
  r.element = declared;
  return make(std::move(r));
}

ExprRef Expr::workItem(WorkItemFn fn, unsigned dim) {
  Raw r;
  r.kind = ExprKind::WorkItem;
  r.type = ValueType::integer(64);
  r.fn = static_cast<uint8_t>(fn);
  r.dim = dim;
  return make(std::move(r));
}

ExprRef Expr::launch(LaunchFn fn, unsigned dim) {
  Raw r;
  r.kind = ExprKind::Launch;
  r.type = ValueType::integer(fn == LaunchFn::WorkDim ? 32 : 64);
  r.fn = static_cast<uint8_t>(fn);
  r.dim = fn == LaunchFn::WorkDim ? 0 : dim;
  return make(std::move(r));
}

ExprRef Expr::undef(std::string reason, ValueType type) {
  Raw r;
  r.kind = ExprKind::Undef;
  r.type = type;
  r.reason = std::move(reason);
  return make(std::move(r));
}

namespace {
const ExprRef* firstUndef(std::initializer_list<const ExprRef*> ops) {
  for (auto* op : ops)
    if (*op && (*op)->isUndef()) return op;
  return nullptr;
}
} // namespace

ExprRef Expr::interval(ExprRef lo, ExprRef hi) {
  if (auto* u = firstUndef({&lo, &hi})) return *u;
  Raw r;
  r.kind = ExprKind::Interval;
  r.type = lo->type();
  r.operands = {std::move(lo), std::move(hi)};
  return make(std::move(r));
}

ExprRef Expr::seq(ExprRef first, ExprRef step, ExprRef count, ExprRef last) {
  if (auto* u = firstUndef({&first, &step})) return *u;
  if (count->isUndef() && (!last || last->isUndef())) return count;
  if (count->isConst() && count->constant() == 1) return first;
  Raw r;
  r.kind = ExprKind::Seq;
  r.type = first->type();
  r.operands = {std::move(first), std::move(step), std::move(count)};
  if (last && !last->isUndef()) r.operands.push_back(std::move(last));
  return make(std::move(r));
}

ExprRef Expr::either(ExprRef a, ExprRef b) {
  if (auto* u = firstUndef({&a, &b})) return *u;
  if (equal(*a, *b)) return a;
  Raw r;
  r.kind = ExprKind::Either;
  r.type = a->type();
  r.operands = {std::move(a), std::move(b)};
  return make(std::move(r));
}

ExprRef Expr::select(uint8_t cmp, ExprRef lhs, ExprRef rhs, ExprRef ifTrue, ExprRef ifFalse) {
  if (auto* u = firstUndef({&ifTrue, &ifFalse})) return *u;
  if (lhs->isUndef() || rhs->isUndef() || cmp > 9) return either(std::move(ifTrue), std::move(ifFalse));
  if (equal(*ifTrue, *ifFalse)) return ifTrue;
  Raw r;
  r.kind = ExprKind::Select;
  r.type = ifTrue->type();
  r.fn = cmp;
  r.operands = {std::move(lhs), std::move(rhs), std::move(ifTrue), std::move(ifFalse)};
  return make(std::move(r));
}

ExprRef Expr::load(unsigned arg, ExprRef byteOffset, ScalarType element) {
  ValueType type = valueTypeOf(element);
  if (byteOffset->isUndef()) return undef(byteOffset->reason(), type);
  Raw r;
  r.kind = ExprKind::Load;
  r.type = type;
  r.arg = arg;
  r.element = element;
  r.operands = {std::move(byteOffset)};
  return make(std::move(r));
}

ExprRef Expr::binary(ExprKind op, ExprRef a, ExprRef b) {
  ValueType type = a->type();
  if (auto* u = firstUndef({&a, &b})) return undef((*u)->reason(), type);
  if (a->isConst() && b->isConst()) {
    int64_t x = a->constant(), y = b->constant();
    // Two's complement wrap-around is what the hardware does; fold through unsigned maths.
    auto ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    switch (op) {
    case ExprKind::Add:
      return constant(static_cast<int64_t>(ux + uy), type.bits);
    case ExprKind::Sub:
      return constant(static_cast<int64_t>(ux - uy), type.bits);
    case ExprKind::Mul:
      return constant(static_cast<int64_t>(ux * uy), type.bits);
    default:
      break;
    }
  }
  if (op == ExprKind::Add) {
    if (b->isConst() && b->constant() == 0) return a;
    if (a->isConst() && a->constant() == 0) return b;
  }
  if (op == ExprKind::Sub && b->isConst() && b->constant() == 0) return a;
  if (op == ExprKind::Mul) {
    if (b->isConst() && b->constant() == 1) return a;
    if (a->isConst() && a->constant() == 1) return b;
    if ((a->isConst() && a->constant() == 0) || (b->isConst() && b->constant() == 0)) return constant(0, type.bits);
  }
  Raw r;
  r.kind = op;
  r.type = type;
  r.operands = {std::move(a), std::move(b)};
  return make(std::move(r));
}

ExprRef Expr::unary(ExprKind op, ExprRef a, ValueType to) {
  if (a->isUndef()) return undef(a->reason(), to);
  if (a->isConst() && !to.isFloat) {
    int64_t v = a->constant();
    unsigned from = a->type().bits;
    if (op == ExprKind::SExt || op == ExprKind::Trunc)
      return constant(wrapTo(v, std::min<unsigned>(from, to.bits)), to.bits);
    if (op == ExprKind::ZExt) {
      uint64_t u = static_cast<uint64_t>(v);
      if (from < 64) u &= (uint64_t{1} << from) - 1;
      return constant(static_cast<int64_t>(u), to.bits);
    }
  }
  Raw r;
  r.kind = op;
  r.type = to;
  r.operands = {std::move(a)};
  return make(std::move(r));
}

bool equal(const Expr& a, const Expr& b) {
  if (&a == &b) return true;
  if (a.kind() != b.kind() || !(a.type() == b.type())) return false;
  switch (a.kind()) {
  case ExprKind::Const:
    if (a.constant() != b.constant()) return false;
    break;
  case ExprKind::FConst:
    if (a.fconstant() != b.fconstant()) return false;
    break;
  case ExprKind::Arg:
    if (a.arg() != b.arg() || a.argByteOffset() != b.argByteOffset()) return false;
    break;
  case ExprKind::WorkItem:
    if (a.workItemFn() != b.workItemFn() || a.dim() != b.dim()) return false;
    break;
  case ExprKind::Launch:
    if (a.launchFn() != b.launchFn() || a.dim() != b.dim()) return false;
    break;
  case ExprKind::Undef:
    if (a.reason() != b.reason()) return false;
    break;
  case ExprKind::Load:
    if (a.arg() != b.arg() || a.elementType() != b.elementType()) return false;
    break;
  case ExprKind::Select:
    if (a.cmpOp() != b.cmpOp()) return false;
    break;
  default:
    break;
  }
  if (a.operands().size() != b.operands().size()) return false;
  for (size_t i = 0; i < a.operands().size(); ++i)
    if (!equal(*a.operand(i), *b.operand(i))) return false;
  return true;
}

namespace {

void print(const Expr& e, const ArgNamer& names, std::string& out) {
  auto argName = [&](unsigned i) { return names ? names(i) : "arg" + std::to_string(i); };
  auto op = [&](size_t i) { print(*e.operand(i), names, out); };
  switch (e.kind()) {
  case ExprKind::Const:
    out += std::to_string(e.constant());
    return;
  case ExprKind::FConst: {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%gf", e.fconstant());
    out += buf;
    return;
  }
  case ExprKind::Arg:
    out += argName(e.arg());
    if (e.argByteOffset()) out += "@" + std::to_string(e.argByteOffset());
    return;
  case ExprKind::WorkItem:
  case ExprKind::Launch:
    out += e.kind() == ExprKind::WorkItem ? name(e.workItemFn()) : name(e.launchFn());
    if (e.kind() == ExprKind::Launch && e.launchFn() == LaunchFn::WorkDim) {
      out += "()";
      return;
    }
    out += "(" + std::to_string(e.dim()) + ")";
    return;
  case ExprKind::Undef:
    out += "undef(\"" + e.reason() + "\")";
    return;
  case ExprKind::Interval:
    out += "[";
    op(0);
    out += " .. ";
    op(1);
    out += "]";
    return;
  case ExprKind::Seq:
    out += "seq(";
    op(0);
    out += ", +";
    op(1);
    out += ", count ";
    op(2);
    if (e.operands().size() > 3) {
      out += ", last ";
      op(3);
    }
    out += ")";
    return;
  case ExprKind::Either:
    out += "either(";
    op(0);
    out += ", ";
    op(1);
    out += ")";
    return;
  case ExprKind::Select: {
    static const char* ops[] = {"==", "!=", "<", "<=", ">", ">=", "<u", "<=u", ">u", ">=u"};
    out += "(";
    op(0);
    out += std::string(" ") + ops[e.cmpOp() % 10] + " ";
    op(1);
    out += " ? ";
    op(2);
    out += " : ";
    op(3);
    out += ")";
    return;
  }
  case ExprKind::Load:
    out += "[[" + argName(e.arg()) + ", ";
    op(0);
    out += ", " + std::string(name(e.elementType())) + "]]";
    return;
  case ExprKind::SMin:
  case ExprKind::SMax:
  case ExprKind::UMin:
  case ExprKind::UMax:
  case ExprKind::FMin:
  case ExprKind::FMax:
    out += std::string(name(e.kind())) + "(";
    op(0);
    out += ", ";
    op(1);
    out += ")";
    return;
  default:
    break;
  }
  if (isBinary(e.kind())) {
    out += "(";
    op(0);
    out += " " + std::string(name(e.kind())) + " ";
    op(1);
    out += ")";
    return;
  }
  out += name(e.kind());
  if (e.kind() != ExprKind::FFloor && e.kind() != ExprKind::FCeil && e.kind() != ExprKind::Abs &&
      e.kind() != ExprKind::FAbs)
    out += std::to_string(e.type().bits);
  out += "(";
  op(0);
  out += ")";
}

} // namespace

std::string toString(const Expr& e, const ArgNamer& names) {
  std::string out;
  print(e, names, out);
  return out;
}

} // namespace clsplit::analysis
