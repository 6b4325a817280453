// Per kernel: collect accesses, translate each into a statement region (offset + guards),
// apply the user's pragmas, decide whether splitting is safe, explain imprecisions.
#include "analysis/analyzer/KernelAnalyzer.h"

#include "analysis/analyzer/AccessCollector.h"
#include "analysis/analyzer/AnalysisPipeline.h"
#include "analysis/analyzer/ControlConditions.h"
#include "analysis/analyzer/IRTranslator.h"
#include "analysis/frontend/PassManagers.h"
#include "support/Log.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/IR/CallingConv.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include <map>
#include <set>
#include <unordered_set>

namespace clsplit::analysis {

namespace {

using analyzer::ControlConditions;
using analyzer::IRTranslator;
using analyzer::MarkerKind;
using analyzer::RawAccess;

std::string metadataString(const llvm::Function& f, const char* kind, unsigned i) {
  const llvm::MDNode* md = f.getMetadata(kind);
  if (!md || i >= md->getNumOperands()) return {};
  if (auto* s = llvm::dyn_cast_or_null<llvm::MDString>(md->getOperand(i).get())) return s->getString().str();
  return {};
}

std::optional<unsigned> metadataInt(const llvm::Function& f, const char* kind, unsigned i) {
  const llvm::MDNode* md = f.getMetadata(kind);
  if (!md || i >= md->getNumOperands()) return std::nullopt;
  if (auto* c = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(md->getOperand(i)))
    return static_cast<unsigned>(c->getZExtValue());
  return std::nullopt;
}

ScalarType scalarTypeNamed(std::string name) {
  while (!name.empty() && (name.back() == '*' || name.back() == ' ')) name.pop_back();
  for (const char* q : {"const ", "volatile ", "restrict ", "__global ", "__constant ", "global ", "constant "})
    while (name.rfind(q, 0) == 0) name.erase(0, std::string_view(q).size());
  static const std::map<std::string, ScalarType> names = {{"char", ScalarType::I8},
                                                          {"signed char", ScalarType::I8},
                                                          {"uchar", ScalarType::U8},
                                                          {"unsigned char", ScalarType::U8},
                                                          {"short", ScalarType::I16},
                                                          {"ushort", ScalarType::U16},
                                                          {"unsigned short", ScalarType::U16},
                                                          {"int", ScalarType::I32},
                                                          {"uint", ScalarType::U32},
                                                          {"unsigned int", ScalarType::U32},
                                                          {"long", ScalarType::I64},
                                                          {"ulong", ScalarType::U64},
                                                          {"unsigned long", ScalarType::U64},
                                                          {"float", ScalarType::F32},
                                                          {"double", ScalarType::F64},
                                                          {"bool", ScalarType::U8}};
  auto it = names.find(name);
  return it == names.end() ? ScalarType::Unknown : it->second;
}

std::vector<KernelArg> kernelArgs(const llvm::Function& f) {
  std::vector<KernelArg> args;
  for (const llvm::Argument& a : f.args()) {
    unsigned i = a.getArgNo();
    KernelArg k;
    k.readOnlyImage = false;
    k.name = metadataString(f, "kernel_arg_name", i);
    if (k.name.empty()) k.name = "arg" + std::to_string(i);
    std::string type = metadataString(f, "kernel_arg_base_type", i);
    if (type.empty()) type = metadataString(f, "kernel_arg_type", i);
    const std::string access = metadataString(f, "kernel_arg_access_qual", i);
    if (a.getType()->isPointerTy()) {
      unsigned as = metadataInt(f, "kernel_arg_addr_space", i).value_or(a.getType()->getPointerAddressSpace());
      if (isImageTypeName(type))
        k.kind = ArgKind::Image;
      else if (as == 1)
        k.kind = ArgKind::GlobalBuffer;
      else if (as == 2)
        k.kind = ArgKind::ConstantBuffer;
      else if (as == 3)
        k.kind = ArgKind::LocalBuffer;
      else
        k.kind = ArgKind::Scalar; // a struct passed by value (byval pointer)
      if (type.find('*') != std::string::npos) k.scalarType = scalarTypeNamed(type);
    } else if (type == "sampler_t") {
      k.kind = ArgKind::Sampler;
    } else if (isImageTypeName(type)) {
      k.kind = ArgKind::Image;
    } else {
      k.kind = ArgKind::Scalar;
      k.scalarType = scalarTypeNamed(type);
    }
    if (k.kind == ArgKind::Image) k.readOnlyImage = access.empty() || access == "read_only";
    args.push_back(std::move(k));
  }
  return args;
}

// A load whose index varies between work-items, from a buffer without a monotone pragma:
// instantiation will not be able to bound it.
const Expr* unboundedIndirection(const Expr& e, const KernelRegions& r) {
  auto varies = [](const Expr& x, auto& self) -> bool {
    if (x.kind() == ExprKind::WorkItem || x.kind() == ExprKind::Seq || x.kind() == ExprKind::Interval ||
        x.kind() == ExprKind::Either || x.kind() == ExprKind::Load)
      return true;
    for (const auto& op : x.operands())
      if (self(*op, self)) return true;
    return false;
  };
  if (e.kind() == ExprKind::Load) {
    auto has = [](const std::vector<unsigned>& v, unsigned a) { return std::find(v.begin(), v.end(), a) != v.end(); };
    bool monotone = has(r.increasingBuffers, e.arg()) || has(r.decreasingBuffers, e.arg());
    if (!monotone && varies(*e.operand(0), varies)) return &e;
  }
  for (const auto& op : e.operands())
    if (auto* found = unboundedIndirection(*op, r)) return found;
  return nullptr;
}

// The reason of an Undef that makes the region unknown (an undef trip count of a sequence
// bounded by its last value does not).
const std::string* firstUndefReason(const Expr& e) {
  if (e.isUndef()) return &e.reason();
  for (size_t i = 0; i < e.operands().size(); ++i) {
    if (e.kind() == ExprKind::Seq && i == 2 && e.operands().size() > 3) continue;
    const auto& op = e.operand(i);
    if (op->containsUndef())
      if (auto* r = firstUndefReason(*op)) return r;
  }
  return nullptr;
}

// Replaces every occurrence of `target` (one value: a shared node) in e by `with`.
ExprRef replaceNode(const ExprRef& e, const Expr* target, const ExprRef& with) {
  if (e.get() == target) return with;
  bool changed = false;
  std::vector<ExprRef> ops;
  for (const auto& op : e->operands()) {
    ops.push_back(replaceNode(op, target, with));
    changed = changed || ops.back() != op;
  }
  if (!changed) return e;
  Expr::Raw raw = e->raw();
  raw.operands = std::move(ops);
  return Expr::fromRaw(std::move(raw));
}

const Expr* firstEither(const Expr& e) {
  if (e.kind() == ExprKind::Either) return &e;
  for (const auto& op : e.operands())
    if (auto* found = firstEither(*op)) return found;
  return nullptr;
}

// Every way of picking one side of each either(a, b) in e (a value merged from control-flow
// paths): their union is much tighter than the hull of the merged value. {e} when there are
// more than `limit`.
std::vector<ExprRef> expandEither(const ExprRef& e, size_t limit) {
  const Expr* either = firstEither(*e);
  if (!either) return {e};
  std::vector<ExprRef> out;
  for (const auto& side : either->operands()) {
    for (auto& alt : expandEither(replaceNode(e, either, side), limit)) out.push_back(std::move(alt));
    if (out.size() > limit) return {e};
  }
  return out;
}

std::string_view kindWord(AccessKind k) {
  return k == AccessKind::Read ? "read" : k == AccessKind::Write ? "write" : "atomic";
}

// Analysis state of one kernel.
class KernelJob {
public:
  KernelJob(llvm::Function& f, llvm::FunctionAnalysisManager& fam, std::vector<Diagnostic>& errors,
            const AnalyzerOptions& options)
      : f_(f), errors_(errors), options_(options), dt_(fam.getResult<llvm::DominatorTreeAnalysis>(f)),
        pdt_(fam.getResult<llvm::PostDominatorTreeAnalysis>(f)), li_(fam.getResult<llvm::LoopAnalysis>(f)),
        se_(fam.getResult<llvm::ScalarEvolutionAnalysis>(f)), translator_(f, se_, li_, dt_) {}

  KernelAnalysis run() {
    KernelAnalysis k;
    k.name = f_.getName().str();
    k.args = kernelArgs(f_);
    if (options_.argumentNames) {
      auto names = options_.argumentNames(k.name);
      for (size_t i = 0; i < k.args.size() && i < names.size(); ++i)
        if (!names[i].empty()) k.args[i].name = names[i];
    }
    args_ = &k.args;
    translator_.setArgNamer([this](unsigned i) { return name(i); });
    std::vector<unsigned> buffers;
    for (unsigned i = 0; i < k.args.size(); ++i) {
      if (k.args[i].kind != ArgKind::GlobalBuffer && k.args[i].kind != ArgKind::ConstantBuffer) continue;
      if (!f_.getArg(i)->getType()->isPointerTy()) continue;
      buffers.push_back(i);
      translator_.setDeclaredElementType(i, k.args[i].scalarType);
    }
    auto collected = analyzer::collectAccesses(f_, buffers);
    std::set<unsigned> written;
    for (const auto& a : collected.accesses)
      if (a.kind != AccessKind::Read) written.insert(a.arg);
    translator_.setWrittenBuffers(written);

    // Monotone annotations first: they decide which indirections are usable.
    for (const auto& m : collected.markers) {
      if (m.kind != MarkerKind::Increasing && m.kind != MarkerKind::Decreasing) continue;
      auto arg = markerBuffer(m, buffers);
      if (!arg) continue;
      auto& list = m.kind == MarkerKind::Increasing ? regions_.increasingBuffers : regions_.decreasingBuffers;
      if (std::find(list.begin(), list.end(), *arg) == list.end()) list.push_back(*arg);
    }
    for (const auto& a : collected.accesses) analysed(a);
    for (const auto& m : collected.markers)
      if (m.kind != MarkerKind::Increasing && m.kind != MarkerKind::Decreasing) pragma(m, buffers);
    applyPragmas();
    dedupe();
    judge(k);
    k.regions = std::move(regions_);
    return k;
  }

private:
  struct Meta {
    bool fromAtomic = false;
    std::string what;
    std::vector<std::string> why;
    unsigned column = 0;
  };

  std::string name(unsigned i) const {
    return args_ && i < args_->size() ? (*args_)[i].name : "arg" + std::to_string(i);
  }

  const ControlConditions& conditions(const llvm::BasicBlock* b) {
    auto it = conditions_.find(b);
    if (it != conditions_.end()) return it->second;
    return conditions_.emplace(b, analyzer::controlConditions(b, translator_, dt_, pdt_, li_)).first->second;
  }

  static unsigned columnOf(const llvm::Instruction* i) {
    if (!i) return 0;
    if (const auto& loc = i->getDebugLoc()) return loc.getCol();
    return 0;
  }

  void push(StatementRegion s, Meta meta) {
    regions_.statements.push_back(std::move(s));
    meta_.push_back(std::move(meta));
  }

  void analysed(const RawAccess& a) {
    StatementRegion s;
    s.kind = a.kind;
    s.arg = a.arg;
    s.width = a.width;
    s.line = IRTranslator::lineOf(a.inst);
    s.atomicOp = a.kind == AccessKind::Atomic ? a.atomicOp : AtomicOp::None;
    s.atomicType = a.kind == AccessKind::Atomic ? a.atomicType : ScalarType::Unknown;
    Meta meta;
    meta.fromAtomic = a.fromAtomic;
    meta.what = a.what;
    meta.column = columnOf(a.inst);
    if (!a.unknownWhy.empty() || !a.inst) {
      s.offset = Expr::undef(a.unknownWhy.empty() ? "unknown access" : a.unknownWhy);
      s.exact = false;
      return push(std::move(s), std::move(meta));
    }
    IRTranslator::Context ctx;
    ctx.at = a.inst->getParent();
    ExprRef off = translator_.offsetOf(a.pointer, a.arg, ctx);
    if (a.index) {
      ExprRef idx = translator_.value(a.index, ctx);
      if (!idx->type().isFloat && idx->type().bits < 64) idx = Expr::unary(ExprKind::SExt, idx, ValueType::integer(64));
      off = Expr::add(off, Expr::mul(idx, Expr::constant(static_cast<int64_t>(a.indexScale))));
    }
    if (a.count) {
      ExprRef count = translator_.value(a.count, ctx);
      if (!count->type().isFloat && count->type().bits < 64)
        count = Expr::unary(ExprKind::ZExt, count, ValueType::integer(64));
      ExprRef stride = Expr::constant(static_cast<int64_t>(a.elementBytes));
      if (a.stride) {
        ExprRef st = translator_.value(a.stride, ctx);
        if (!st->type().isFloat && st->type().bits < 64) st = Expr::unary(ExprKind::ZExt, st, ValueType::integer(64));
        stride = Expr::mul(st, stride);
      }
      off = Expr::seq(off, stride, count);
    }
    const ControlConditions& cc = conditions(ctx.at);
    bool exact = cc.exact && !ctx.inexact;
    meta.why = cc.dropped;
    for (auto& w : ctx.why) meta.why.push_back(w);
    for (const llvm::Loop* l : cc.loopTests)
      if (!ctx.sequenceLoops.count(l)) {
        exact = false;
        meta.why.push_back("the access runs only if its loop runs at least once");
      }
    s.exact = exact && !firstUndefReason(*off);
    auto offsets = expandEither(off, 8);
    if (offsets.size() > 1) {
      s.exact = false; // each work-item takes one of the paths
      meta.why.push_back("the index merges several control-flow paths");
    }
    for (auto& o : offsets) {
      s.offset = std::move(o);
      pushAlternatives(s, meta, cc);
    }
  }

  // One statement per alternative of the conditions: their union is the access's region.
  void pushAlternatives(StatementRegion s, Meta meta, const ControlConditions& cc) {
    for (size_t i = 0; i + 1 < cc.alternatives.size(); ++i) {
      StatementRegion copy = s;
      copy.guards = cc.alternatives[i];
      push(std::move(copy), meta);
    }
    s.guards = cc.alternatives.back();
    push(std::move(s), std::move(meta));
  }

  std::optional<unsigned> markerBuffer(const analyzer::PragmaMarkerCall& m, const std::vector<unsigned>& buffers) {
    unsigned line = IRTranslator::lineOf(m.call);
    if (m.call->arg_size() < 1) return std::nullopt;
    auto arg = translator_.baseArgument(m.call->getArgOperand(0));
    if (!arg || std::find(buffers.begin(), buffers.end(), *arg) == buffers.end()) {
      errors_.push_back({{"", line, columnOf(m.call)},
                         "clsplit pragma in kernel '" + f_.getName().str() +
                             "' does not name a __global or __constant buffer argument"});
      return std::nullopt;
    }
    return arg;
  }

  void pragma(const analyzer::PragmaMarkerCall& m, const std::vector<unsigned>& buffers) {
    auto arg = markerBuffer(m, buffers);
    if (!arg) return;
    const llvm::CallInst* call = m.call;
    if (call->arg_size() < 4) {
      errors_.push_back({{"", IRTranslator::lineOf(call), columnOf(call)}, "malformed clsplit pragma marker"});
      return;
    }
    IRTranslator::Context ctx;
    ctx.at = call->getParent();
    ctx.pragma = true;
    auto to64 = [](ExprRef e) {
      if (!e->type().isFloat && e->type().bits < 64) return Expr::unary(ExprKind::SExt, e, ValueType::integer(64));
      return e;
    };
    ExprRef base = translator_.offsetOf(call->getArgOperand(0), *arg, ctx);
    ExprRef first = to64(translator_.value(call->getArgOperand(1), ctx));
    ExprRef last = to64(translator_.value(call->getArgOperand(2), ctx));
    uint64_t size = 1;
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(3))) size = c->getZExtValue();
    if (size == 0 || size > (1u << 20)) size = 1;
    ExprRef sizeExpr = Expr::constant(static_cast<int64_t>(size));
    StatementRegion s;
    s.kind = m.kind == MarkerKind::Read    ? AccessKind::Read
             : m.kind == MarkerKind::Write ? AccessKind::Write
                                           : AccessKind::Atomic;
    s.arg = *arg;
    s.width = static_cast<uint32_t>(size);
    s.offset = Expr::add(base, Expr::interval(Expr::mul(first, sizeExpr), Expr::mul(last, sizeExpr)));
    s.fromPragma = true;
    s.exact = false;
    s.line = IRTranslator::lineOf(call);
    Meta meta;
    meta.what = "pragma";
    meta.column = columnOf(call);
    pushAlternatives(std::move(s), std::move(meta), conditions(ctx.at));
  }

  void applyPragmas() {
    // Atomic pragmas replace the analysed atomics of their buffer; read/write pragmas replace
    // the analysed plain reads/writes.
    std::set<unsigned> atomicPragma;
    std::set<std::pair<unsigned, AccessKind>> given;
    std::vector<std::pair<StatementRegion, Meta>> extraReads;
    for (size_t i = 0; i < regions_.statements.size(); ++i) {
      auto& s = regions_.statements[i];
      if (!s.fromPragma) continue;
      if (s.kind != AccessKind::Atomic) {
        given.insert({s.arg, s.kind});
        continue;
      }
      atomicPragma.insert(s.arg);
      // A reduction only if every atomic it replaces is a commutative update whose result
      // is unused (thesis 3.1.4); otherwise the region is written.
      std::set<std::pair<AtomicOp, ScalarType>> ops;
      bool asWrite = false;
      for (size_t j = 0; j < regions_.statements.size(); ++j) {
        const auto& t = regions_.statements[j];
        if (t.fromPragma || t.arg != s.arg || !meta_[j].fromAtomic) continue;
        if (t.kind == AccessKind::Atomic)
          ops.insert({t.atomicOp, t.atomicType});
        else
          asWrite = true;
      }
      if (asWrite || ops.size() != 1) {
        if (ops.empty() && !asWrite)
          meta_[i].why.push_back(
              "no commutative atomic update of this buffer was found: the pragma region is treated as written");
        s.kind = AccessKind::Write;
        s.atomicOp = AtomicOp::None;
        s.atomicType = ScalarType::Unknown;
        // The replaced atomics' old values are used: the region is read as well.
        StatementRegion read = s;
        read.kind = AccessKind::Read;
        extraReads.push_back({std::move(read), meta_[i]});
      } else {
        s.atomicOp = ops.begin()->first;
        s.atomicType = ops.begin()->second;
      }
    }
    if (atomicPragma.empty() && given.empty()) return;
    std::vector<StatementRegion> kept;
    std::vector<Meta> keptMeta;
    for (auto& [st, m] : extraReads) {
      kept.push_back(std::move(st));
      keptMeta.push_back(std::move(m));
    }
    for (size_t i = 0; i < regions_.statements.size(); ++i) {
      const auto& s = regions_.statements[i];
      if (!s.fromPragma) {
        bool replaced = meta_[i].fromAtomic ? atomicPragma.count(s.arg) > 0 : given.count({s.arg, s.kind}) > 0;
        if (replaced) continue;
      }
      kept.push_back(s);
      keptMeta.push_back(meta_[i]);
    }
    regions_.statements = std::move(kept);
    meta_ = std::move(keptMeta);
  }

  void dedupe() {
    // Identical statements (same access reached through different instructions, or the same
    // alternative twice): keep one. Keyed by their printed form, linear in their size.
    std::unordered_set<std::string> seen;
    std::vector<StatementRegion> out;
    std::vector<Meta> outMeta;
    for (size_t i = 0; i < regions_.statements.size(); ++i) {
      const auto& s = regions_.statements[i];
      StatementRegion unlined = s;
      unlined.line = 0; // the same region reached from two lines is one statement
      std::string key = toString(unlined) + "|" + std::to_string(static_cast<int>(s.atomicType));
      if (!seen.insert(std::move(key)).second) continue;
      out.push_back(s);
      outMeta.push_back(meta_[i]);
    }
    regions_.statements = std::move(out);
    meta_ = std::move(outMeta);
  }

  void judge(KernelAnalysis& k) {
    std::set<std::pair<unsigned, std::string>> said;
    auto diag = [&](unsigned line, unsigned column, std::string message) {
      if (!said.insert({line, message}).second) return;
      k.imprecisions.push_back({{"", line, column}, std::move(message)});
    };
    for (size_t i = 0; i < regions_.statements.size(); ++i) {
      const auto& s = regions_.statements[i];
      const Meta& meta = meta_[i];
      std::string what = std::string(kindWord(s.kind)) + " of " + name(s.arg) +
                         (s.line ? " at line " + std::to_string(s.line) : std::string());
      std::string fix = "'#pragma " +
                        std::string(s.kind == AccessKind::Read    ? "read"
                                    : s.kind == AccessKind::Write ? "write"
                                                                  : "atomic") +
                        " " + name(s.arg) + "[first, last]' (inclusive element indices)";
      if (const std::string* reason = firstUndefReason(*s.offset)) {
        diag(s.line, meta.column,
             what + ": " + *reason + "; the whole buffer is assumed. Give the region with " + fix + ".");
        if (s.kind == AccessKind::Write && !k.unsplittableReason)
          k.unsplittableReason =
              "the region of the " + what + " is unknown (" + *reason + "); add " + fix + " to split this kernel";
        continue;
      }
      if (const Expr* load = unboundedIndirection(*s.offset, regions_)) {
        std::string buffer = name(load->arg());
        diag(s.line, meta.column,
             what + ": the index depends on values of " + buffer + "; if " + buffer +
                 " is sorted add '#pragma opencl_increasing_buffer " + buffer +
                 "' (or opencl_decreasing_buffer), otherwise give the region with " + fix + ".");
        if (s.kind == AccessKind::Write && !k.unsplittableReason)
          k.unsplittableReason =
              "the " + what + " goes through values of " + buffer +
              ", which is not annotated increasing or decreasing; add '#pragma opencl_increasing_buffer " + buffer +
              "' or " + fix + " to split this kernel";
        continue;
      }
      if (!s.exact && !s.fromPragma) {
        std::string why;
        for (const auto& w : meta.why) why += (why.empty() ? "" : "; ") + w;
        diag(s.line, meta.column, what + " may be over-approximated" + (why.empty() ? std::string() : ": " + why));
      }
      for (const auto& w : meta.why)
        if (s.fromPragma) diag(s.line, meta.column, "pragma on " + name(s.arg) + ": " + w);
    }
  }

  llvm::Function& f_;
  std::vector<Diagnostic>& errors_;
  const AnalyzerOptions& options_;
  llvm::DominatorTree& dt_;
  llvm::PostDominatorTree& pdt_;
  llvm::LoopInfo& li_;
  llvm::ScalarEvolution& se_;
  IRTranslator translator_;
  const std::vector<KernelArg>* args_ = nullptr;
  KernelRegions regions_;
  std::vector<Meta> meta_;
  std::map<const llvm::BasicBlock*, ControlConditions> conditions_;
};

} // namespace

ModuleAnalysis analyzeModule(const llvm::Module& module, const AnalyzerOptions& options) {
  ModuleAnalysis out;
  std::unique_ptr<llvm::Module> m = analyzer::prepareForAnalysis(module);
  frontend::PassManagers managers;
  for (llvm::Function& f : *m) {
    if (f.isDeclaration() || f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL) continue;
    KernelJob job(f, managers.functions, out.errors, options);
    out.kernels.push_back(job.run());
    log().debug("analyzed kernel {}: {} statement regions", f.getName().str(),
                out.kernels.back().regions.statements.size());
  }
  return out;
}

} // namespace clsplit::analysis
