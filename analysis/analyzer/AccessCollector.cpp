// Forward walk over the uses of each buffer argument.
#include "analysis/analyzer/AccessCollector.h"

#include "analysis/analyzer/IRTranslator.h"
#include "analysis/analyzer/OpenCLBuiltins.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

#include <set>

namespace clsplit::analysis::analyzer {

namespace {

std::string lineSuffix(const llvm::Instruction* i) {
  unsigned line = IRTranslator::lineOf(i);
  return line ? " at line " + std::to_string(line) : std::string();
}

// Values that only feed pragma markers (user "hint" code, thesis 3.1.5): the vendor copy has
// no markers, so its compiler drops them; they are not accesses of the kernel.
std::set<const llvm::Instruction*> annotationOnly(const llvm::Function& f) {
  std::set<const llvm::Instruction*> only;
  auto isMarker = [](const llvm::User* u) {
    auto* call = llvm::dyn_cast<llvm::CallInst>(u);
    auto* callee = call ? call->getCalledFunction() : nullptr;
    return callee && frontend::markerKind(callee->getName()).has_value();
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (const llvm::Instruction& i : llvm::instructions(f)) {
      if (only.count(&i) || i.use_empty() || isMarker(&i)) continue;
      if (i.mayHaveSideEffects() || i.isTerminator() || llvm::isa<llvm::PHINode>(i)) continue;
      if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&i); ld && ld->isVolatile()) continue;
      bool all = true;
      for (const llvm::User* u : i.users()) {
        auto* ui = llvm::dyn_cast<llvm::Instruction>(u);
        if (!ui || !(isMarker(ui) || only.count(ui))) {
          all = false;
          break;
        }
      }
      if (all) {
        only.insert(&i);
        changed = true;
      }
    }
  }
  return only;
}

std::optional<AtomicOp> atomicOpOf(llvm::AtomicRMWInst::BinOp op, bool& isSignedOp) {
  isSignedOp = true;
  switch (op) {
  case llvm::AtomicRMWInst::Add:
  case llvm::AtomicRMWInst::FAdd:
    return AtomicOp::Add;
  case llvm::AtomicRMWInst::Sub:
  case llvm::AtomicRMWInst::FSub:
    return AtomicOp::Sub;
  case llvm::AtomicRMWInst::And:
    return AtomicOp::And;
  case llvm::AtomicRMWInst::Or:
    return AtomicOp::Or;
  case llvm::AtomicRMWInst::Xor:
    return AtomicOp::Xor;
  case llvm::AtomicRMWInst::Min:
    return AtomicOp::Min;
  case llvm::AtomicRMWInst::Max:
    return AtomicOp::Max;
  case llvm::AtomicRMWInst::UMin:
    isSignedOp = false;
    return AtomicOp::Min;
  case llvm::AtomicRMWInst::UMax:
    isSignedOp = false;
    return AtomicOp::Max;
  default:
    return std::nullopt; // xchg, nand, ...: not a commutative reduction
  }
}

ScalarType typeFor(const llvm::Type* t, bool isSignedOp) {
  if (t->isFloatTy()) return ScalarType::F32;
  if (t->isDoubleTy()) return ScalarType::F64;
  if (t->isIntegerTy(32)) return isSignedOp ? ScalarType::I32 : ScalarType::U32;
  if (t->isIntegerTy(64)) return isSignedOp ? ScalarType::I64 : ScalarType::U64;
  return ScalarType::Unknown;
}

// OpenCL 1.x atomic_<op> / atom_<op> and OpenCL 2.0 atomic_fetch_<op>[_explicit].
std::optional<AtomicOp> builtinAtomicOp(std::string_view name) {
  auto strip = [&](std::string_view prefix) {
    if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
  };
  strip("atomic_fetch_");
  strip("atomic_");
  strip("atom_");
  if (name.size() > 9 && name.substr(name.size() - 9) == "_explicit") name.remove_suffix(9);
  if (name == "add") return AtomicOp::Add;
  if (name == "sub") return AtomicOp::Sub;
  if (name == "inc") return AtomicOp::Inc;
  if (name == "dec") return AtomicOp::Dec;
  if (name == "min") return AtomicOp::Min;
  if (name == "max") return AtomicOp::Max;
  if (name == "and") return AtomicOp::And;
  if (name == "or") return AtomicOp::Or;
  if (name == "xor") return AtomicOp::Xor;
  return std::nullopt;
}

class Collector {
public:
  Collector(const llvm::Function& f, CollectedAccesses& out)
      : f_(f), dl_(f.getParent()->getDataLayout()), out_(out), annotation_(annotationOnly(f)) {}

  void walk(unsigned arg) {
    const llvm::Argument* a = f_.getArg(arg);
    bool constant = a->getType()->getPointerAddressSpace() == 2;
    llvm::SmallPtrSet<const llvm::Value*, 32> seen;
    std::vector<const llvm::Value*> work{a};
    while (!work.empty()) {
      const llvm::Value* v = work.back();
      work.pop_back();
      if (!seen.insert(v).second) continue;
      for (const llvm::Use& use : v->uses()) {
        auto* user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
        if (!user) {
          escape(arg, constant, nullptr, "a constant expression");
          continue;
        }
        visit(arg, constant, v, use, user, work);
      }
    }
  }

private:
  bool resultUsed(const llvm::Instruction* i) const {
    for (const llvm::User* u : i->users())
      if (auto* ui = llvm::dyn_cast<llvm::Instruction>(u); !ui || !annotation_.count(ui)) return true;
    return false;
  }

  void escape(unsigned arg, bool constant, const llvm::Instruction* at, const std::string& how) {
    for (AccessKind kind : {AccessKind::Read, AccessKind::Write}) {
      if (constant && kind == AccessKind::Write) continue;
      RawAccess r = access(kind, arg, at, nullptr, 1, "use");
      r.unknownWhy = "the pointer escapes into " + how + lineSuffix(at);
      out_.accesses.push_back(std::move(r));
    }
  }

  // An access of argument `arg` at `pointer` by `inst` (`what` names it in diagnostics).
  static RawAccess access(AccessKind kind, unsigned arg, const llvm::Instruction* inst, const llvm::Value* pointer,
                          uint32_t width, std::string what) {
    RawAccess r;
    r.kind = kind;
    r.arg = arg;
    r.inst = inst;
    r.pointer = pointer;
    r.width = width;
    r.what = std::move(what);
    return r;
  }

  void add(RawAccess r) { out_.accesses.push_back(std::move(r)); }

  // An atomic whose old value the kernel uses also reads the location: the device needs its
  // current contents (an unused result of a commutative update is merged by reduction).
  void addAtomic(RawAccess r) {
    if (r.kind == AccessKind::Write && r.atomicResultUsed) {
      RawAccess read = r;
      read.kind = AccessKind::Read;
      read.atomicOp = AtomicOp::None;
      out_.accesses.push_back(std::move(read));
    }
    out_.accesses.push_back(std::move(r));
  }

  void visit(unsigned arg, bool constant, const llvm::Value* v, const llvm::Use& use, const llvm::Instruction* user,
             std::vector<const llvm::Value*>& work) {
    const unsigned operand = use.getOperandNo();
    if (llvm::isa<llvm::GetElementPtrInst>(user)) {
      if (operand == 0)
        work.push_back(user);
      else
        escape(arg, constant, user, "an index computation");
      return;
    }
    if (llvm::isa<llvm::BitCastInst>(user) || llvm::isa<llvm::AddrSpaceCastInst>(user) ||
        llvm::isa<llvm::PHINode>(user) || llvm::isa<llvm::FreezeInst>(user)) {
      work.push_back(user);
      return;
    }
    if (auto* sel = llvm::dyn_cast<llvm::SelectInst>(user)) {
      if (sel->getCondition() != v) work.push_back(user);
      return;
    }
    if (llvm::isa<llvm::ICmpInst>(user)) return;
    if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(user)) {
      if (annotation_.count(ld)) return;
      add(access(AccessKind::Read, arg, ld, v, static_cast<uint32_t>(dl_.getTypeStoreSize(ld->getType())), "load"));
      return;
    }
    if (auto* st = llvm::dyn_cast<llvm::StoreInst>(user)) {
      if (operand != st->getPointerOperandIndex()) return escape(arg, constant, user, "memory (a stored pointer)");
      add(access(AccessKind::Write, arg, st, v,
                 static_cast<uint32_t>(dl_.getTypeStoreSize(st->getValueOperand()->getType())), "store"));
      return;
    }
    if (auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(user)) {
      if (operand != rmw->getPointerOperandIndex()) return escape(arg, constant, user, "an atomic operation's value");
      bool sgn = true;
      auto op = atomicOpOf(rmw->getOperation(), sgn);
      RawAccess r = access(AccessKind::Write, arg, rmw, v,
                           static_cast<uint32_t>(dl_.getTypeStoreSize(rmw->getValOperand()->getType())), "atomicrmw");
      r.fromAtomic = true;
      r.atomicResultUsed = resultUsed(rmw);
      r.atomicOp = op.value_or(AtomicOp::None);
      r.atomicType = typeFor(rmw->getValOperand()->getType(), sgn);
      if (op && !r.atomicResultUsed) r.kind = AccessKind::Atomic;
      addAtomic(std::move(r));
      return;
    }
    if (auto* cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(user)) {
      if (operand != cx->getPointerOperandIndex()) return escape(arg, constant, user, "a compare-exchange's value");
      RawAccess r = access(AccessKind::Write, arg, cx, v,
                           static_cast<uint32_t>(dl_.getTypeStoreSize(cx->getCompareOperand()->getType())), "cmpxchg");
      r.fromAtomic = true;
      r.atomicResultUsed = true;
      addAtomic(std::move(r));
      return;
    }
    if (auto* call = llvm::dyn_cast<llvm::CallBase>(user)) return visitCall(arg, constant, v, operand, call);
    escape(arg, constant, user, std::string("'") + user->getOpcodeName() + "'");
  }

  void visitCall(unsigned arg, bool constant, const llvm::Value* v, unsigned operand, const llvm::CallBase* call) {
    const llvm::Function* callee = call->getCalledFunction();
    if (!callee) return escape(arg, constant, call, "an indirect call");
    if (frontend::markerKind(callee->getName())) return; // collected separately
    if (auto* ii = llvm::dyn_cast<llvm::IntrinsicInst>(call)) {
      switch (ii->getIntrinsicID()) {
      case llvm::Intrinsic::memcpy:
      case llvm::Intrinsic::memmove:
      case llvm::Intrinsic::memcpy_inline:
      case llvm::Intrinsic::memset: {
        if (operand > 1 || (operand == 1 && ii->getIntrinsicID() == llvm::Intrinsic::memset))
          return escape(arg, constant, call, "a memory intrinsic's value");
        RawAccess r =
            access(operand == 0 ? AccessKind::Write : AccessKind::Read, arg, call, v, 1, callee->getName().str());
        r.count = call->getArgOperand(2);
        r.elementBytes = 1;
        add(std::move(r));
        return;
      }
      case llvm::Intrinsic::lifetime_start:
      case llvm::Intrinsic::lifetime_end:
      case llvm::Intrinsic::prefetch:
      case llvm::Intrinsic::assume:
      case llvm::Intrinsic::dbg_value:
      case llvm::Intrinsic::dbg_declare:
      case llvm::Intrinsic::invariant_start:
      case llvm::Intrinsic::invariant_end:
        return;
      default:
        return escape(arg, constant, call, "intrinsic " + callee->getName().str());
      }
    }
    Builtin b = classifyBuiltin(callee->getName());
    const std::string& n = b.name.base;
    switch (b.kind) {
    case BuiltinKind::NoMemoryEffect:
      return;
    case BuiltinKind::VLoad:
    case BuiltinKind::VStore: {
      bool isLoad = b.kind == BuiltinKind::VLoad;
      unsigned ptrIdx = isLoad ? 1 : 2, offIdx = isLoad ? 0 : 1;
      if (call->arg_size() <= ptrIdx || operand != ptrIdx) return escape(arg, constant, call, n);
      uint64_t elem = 0;
      if (b.halfElements) {
        elem = 2;
      } else {
        const llvm::Type* t = isLoad ? call->getType() : call->getArgOperand(0)->getType();
        if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t)) t = vt->getElementType();
        elem = dl_.getTypeStoreSize(const_cast<llvm::Type*>(t));
      }
      if (elem == 0) return escape(arg, constant, call, n);
      RawAccess r = access(isLoad ? AccessKind::Read : AccessKind::Write, arg, call, v,
                           static_cast<uint32_t>(elem * b.vectorCount), n);
      r.index = call->getArgOperand(offIdx);
      r.indexScale = elem * b.vectorStride;
      add(std::move(r));
      return;
    }
    case BuiltinKind::Atomic: {
      if (operand != 0) return escape(arg, constant, call, n + "'s value");
      RawAccess r = access(AccessKind::Write, arg, call, v, 0, n);
      r.fromAtomic = true;
      const llvm::Type* valueType =
          call->getType()->isVoidTy() && call->arg_size() > 1 ? call->getArgOperand(1)->getType() : call->getType();
      ScalarType pointee = b.name.params.empty() ? ScalarType::Unknown : b.name.params[0].element;
      r.atomicType = pointee != ScalarType::Unknown ? pointee : typeFor(valueType, true);
      r.width = scalarSize(r.atomicType)
                    ? scalarSize(r.atomicType)
                    : static_cast<uint32_t>(dl_.getTypeStoreSize(const_cast<llvm::Type*>(valueType)));
      if (n == "atomic_load" || n == "atomic_load_explicit") {
        r.kind = AccessKind::Read;
        r.fromAtomic = false;
        add(std::move(r));
        return;
      }
      r.atomicResultUsed = !call->getType()->isVoidTy() && resultUsed(call);
      auto op = builtinAtomicOp(n);
      if (op && !r.atomicResultUsed && !isFloat(r.atomicType)) {
        r.kind = AccessKind::Atomic;
        r.atomicOp = *op;
      } else {
        r.kind = AccessKind::Write; // result used, exchange, compare-exchange, store, ...
        r.atomicOp = op.value_or(AtomicOp::None);
      }
      addAtomic(std::move(r));
      return;
    }
    case BuiltinKind::AsyncCopy: {
      bool strided = n == "async_work_group_strided_copy";
      if (operand > 1 || call->arg_size() < (strided ? 5u : 4u)) return escape(arg, constant, call, n);
      const auto& params = b.name.params;
      uint64_t elem = params.size() > operand ? params[operand].elementBytes() * params[operand].vectorWidth : 0;
      if (elem == 0) return escape(arg, constant, call, n + " (element type not understood)");
      RawAccess r =
          access(operand == 0 ? AccessKind::Write : AccessKind::Read, arg, call, v, static_cast<uint32_t>(elem), n);
      r.count = call->getArgOperand(2);
      r.stride = strided ? call->getArgOperand(3) : nullptr;
      r.elementBytes = elem;
      add(std::move(r));
      return;
    }
    default:
      break;
    }
    escape(arg, constant, call, "a call to " + (n.empty() ? callee->getName().str() : n));
  }

  const llvm::Function& f_;
  const llvm::DataLayout& dl_;
  CollectedAccesses& out_;
  std::set<const llvm::Instruction*> annotation_;
};

} // namespace

CollectedAccesses collectAccesses(const llvm::Function& kernel, const std::vector<unsigned>& bufferArgs) {
  CollectedAccesses out;
  Collector collector(kernel, out);
  for (unsigned arg : bufferArgs) collector.walk(arg);
  for (const llvm::Instruction& i : llvm::instructions(kernel)) {
    auto* call = llvm::dyn_cast<llvm::CallInst>(&i);
    const llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
    if (!callee) continue;
    if (auto kind = frontend::markerKind(callee->getName())) out.markers.push_back({*kind, call});
  }
  return out;
}

} // namespace clsplit::analysis::analyzer
