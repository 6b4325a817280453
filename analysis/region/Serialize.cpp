// Versioned text encoding of KernelRegions for the on-disk cache. Expressions are written as a
// node table in post-order (operands refer to earlier nodes), so shared sub-trees stay shared
// and the size is linear in the DAG.
#include "analysis/region/KernelRegions.h"

#include <charconv>
#include <cstring>
#include <unordered_map>

namespace clsplit::analysis {

namespace {

constexpr std::string_view kMagic = "clsplit-regions";
constexpr unsigned kLastExprKind = static_cast<unsigned>(ExprKind::FAbs);
constexpr unsigned kLastScalarType = static_cast<unsigned>(ScalarType::F64);
constexpr unsigned kLastAtomicOp = static_cast<unsigned>(AtomicOp::Xor);
constexpr unsigned kLastCmpOp = static_cast<unsigned>(CmpOp::UGe);

class Writer {
public:
  std::string out;

  void word(std::string_view w) {
    out += w;
    out += ' ';
  }
  void num(int64_t v) { word(std::to_string(v)); }
  void unum(uint64_t v) { word(std::to_string(v)); }
  void text(const std::string& s) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
    out += ' ';
  }
  void newline() {
    if (!out.empty() && out.back() == ' ')
      out.back() = '\n';
    else
      out += '\n';
  }

  // Returns the node index of e, emitting it (and its operands) first if needed.
  size_t node(const ExprRef& e) {
    auto it = index_.find(e.get());
    if (it != index_.end()) return it->second;
    std::vector<size_t> ops;
    for (const auto& op : e->operands()) ops.push_back(node(op));
    nodes_ += std::to_string(static_cast<unsigned>(e->kind())) + ' ' + std::to_string(e->type().bits) + ' ' +
              (e->type().isFloat ? "1 " : "0 ");
    switch (e->kind()) {
    case ExprKind::Const:
      nodes_ += std::to_string(e->constant()) + ' ';
      break;
    case ExprKind::FConst: {
      uint64_t bits;
      double v = e->fconstant();
      std::memcpy(&bits, &v, sizeof bits);
      nodes_ += std::to_string(bits) + ' ';
      break;
    }
    case ExprKind::Arg:
      nodes_ += std::to_string(e->arg()) + ' ' + std::to_string(e->argByteOffset()) + ' ' +
                std::to_string(static_cast<unsigned>(e->elementType())) + ' ';
      break;
    case ExprKind::WorkItem:
      nodes_ += std::to_string(static_cast<unsigned>(e->workItemFn())) + ' ' + std::to_string(e->dim()) + ' ';
      break;
    case ExprKind::Launch:
      nodes_ += std::to_string(static_cast<unsigned>(e->launchFn())) + ' ' + std::to_string(e->dim()) + ' ';
      break;
    case ExprKind::Undef:
      nodes_ += std::to_string(e->reason().size()) + ':' + e->reason() + ' ';
      break;
    case ExprKind::Load:
      nodes_ += std::to_string(e->arg()) + ' ' + std::to_string(static_cast<unsigned>(e->elementType())) + ' ';
      break;
    case ExprKind::Select:
      nodes_ += std::to_string(e->cmpOp()) + ' ';
      break;
    default:
      break;
    }
    nodes_ += std::to_string(ops.size());
    for (size_t op : ops) nodes_ += ' ' + std::to_string(op);
    nodes_ += '\n';
    size_t id = count_++;
    index_.emplace(e.get(), id);
    return id;
  }

  std::string takeNodes(size_t& count) {
    count = count_;
    return std::move(nodes_);
  }

private:
  std::unordered_map<const Expr*, size_t> index_;
  std::string nodes_;
  size_t count_ = 0;
};

class Reader {
public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why) + " (at byte " + std::to_string(pos_) + ")";
  }

  std::string_view word() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < in_.size() && in_[pos_] != ' ' && in_[pos_] != '\n') ++pos_;
    if (start == pos_) fail("unexpected end of input");
    return in_.substr(start, pos_ - start);
  }
  int64_t num() {
    auto w = word();
    int64_t v = 0;
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || p != w.data() + w.size()) fail("expected an integer");
    return v;
  }
  uint64_t unum() {
    auto w = word();
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || p != w.data() + w.size()) fail("expected an unsigned integer");
    return v;
  }
  uint64_t bounded(uint64_t max, const char* what) {
    uint64_t v = unum();
    if (!failed() && v > max) fail(std::string("out-of-range ") + what);
    return v;
  }
  std::string text() {
    skipSpace();
    size_t colon = in_.find(':', pos_);
    if (colon == std::string_view::npos) {
      fail("expected a string");
      return {};
    }
    uint64_t len = 0;
    auto [p, ec] = std::from_chars(in_.data() + pos_, in_.data() + colon, len);
    if (ec != std::errc() || p != in_.data() + colon || len > in_.size() - colon - 1) {
      fail("bad string length");
      return {};
    }
    std::string s(in_.substr(colon + 1, len));
    pos_ = colon + 1 + len;
    return s;
  }
  void expect(std::string_view w) {
    if (word() != w && !failed()) fail("expected '" + std::string(w) + "'");
  }
  bool atEnd() {
    skipSpace();
    return pos_ >= in_.size();
  }

private:
  void skipSpace() {
    while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\n')) ++pos_;
  }
  std::string_view in_;
  size_t pos_ = 0;
  std::string error_;
};

bool validOperandCount(ExprKind kind, size_t n) {
  if (kind == ExprKind::Seq) return n == 3 || n == 4;
  return n == operandCount(kind);
}

} // namespace

std::string serialize(const KernelRegions& regions) {
  Writer w;
  // Nodes first (into their own buffer), then the statements that refer to them.
  std::string statements;
  {
    Writer s;
    for (const auto& st : regions.statements) {
      s.unum(static_cast<unsigned>(st.kind));
      s.unum(st.arg);
      s.unum(w.node(st.offset));
      s.unum(st.width);
      s.unum((st.fromPragma ? 1u : 0u) | (st.exact ? 2u : 0u));
      s.unum(static_cast<unsigned>(st.atomicOp));
      s.unum(static_cast<unsigned>(st.atomicType));
      s.unum(st.line);
      s.unum(st.guards.size());
      for (const auto& g : st.guards) {
        s.unum(static_cast<unsigned>(g->op));
        s.unum(w.node(g->lhs));
        s.unum(w.node(g->rhs));
      }
      s.newline();
    }
    statements = std::move(s.out);
  }
  size_t nodeCount = 0;
  std::string nodes = w.takeNodes(nodeCount);

  Writer out;
  out.word(kMagic);
  out.unum(kRegionsFormatVersion);
  out.newline();
  out.word("nodes");
  out.unum(nodeCount);
  out.newline();
  out.out += nodes;
  out.word("statements");
  out.unum(regions.statements.size());
  out.newline();
  out.out += statements;
  out.word("monotone");
  out.unum(regions.increasingBuffers.size());
  for (unsigned b : regions.increasingBuffers) out.unum(b);
  out.unum(regions.decreasingBuffers.size());
  for (unsigned b : regions.decreasingBuffers) out.unum(b);
  out.newline();
  out.word("end"); // a truncated encoding is rejected, never read as a shorter valid one
  out.newline();
  return std::move(out.out);
}

std::optional<KernelRegions> deserialize(std::string_view bytes, std::string* error) {
  Reader r(bytes);
  auto failWith = [&]() -> std::optional<KernelRegions> {
    if (error) *error = r.error();
    return std::nullopt;
  };
  r.expect(kMagic);
  uint64_t version = r.unum();
  if (r.failed()) return failWith();
  if (version != kRegionsFormatVersion) {
    r.fail("format version " + std::to_string(version) + ", expected " + std::to_string(kRegionsFormatVersion));
    return failWith();
  }
  r.expect("nodes");
  uint64_t nodeCount = r.bounded(1u << 24, "node count");
  std::vector<ExprRef> nodes;
  nodes.reserve(r.failed() ? 0 : nodeCount);
  for (uint64_t i = 0; i < nodeCount && !r.failed(); ++i) {
    Expr::Raw raw;
    raw.kind = static_cast<ExprKind>(r.bounded(kLastExprKind, "expression kind"));
    uint64_t bits = r.bounded(64, "bit width");
    bool isFloat = r.bounded(1, "float flag") != 0;
    if (!r.failed() && (bits == 0 || (isFloat && bits != 32 && bits != 64 && bits != 16))) r.fail("bad value type");
    raw.type = ValueType{static_cast<uint8_t>(bits), isFloat};
    switch (raw.kind) {
    case ExprKind::Const:
      raw.ivalue = r.num();
      break;
    case ExprKind::FConst: {
      uint64_t b = r.unum();
      std::memcpy(&raw.fvalue, &b, sizeof b);
      break;
    }
    case ExprKind::Arg:
      raw.arg = static_cast<unsigned>(r.bounded(UINT16_MAX, "argument index"));
      raw.ivalue = static_cast<int64_t>(r.bounded(UINT32_MAX, "argument offset"));
      raw.element = static_cast<ScalarType>(r.bounded(kLastScalarType, "scalar type"));
      break;
    case ExprKind::WorkItem:
      raw.fn = static_cast<uint8_t>(r.bounded(static_cast<unsigned>(WorkItemFn::GroupId), "work-item function"));
      raw.dim = static_cast<unsigned>(r.bounded(2, "dimension"));
      break;
    case ExprKind::Launch:
      raw.fn = static_cast<uint8_t>(r.bounded(static_cast<unsigned>(LaunchFn::WorkDim), "launch function"));
      raw.dim = static_cast<unsigned>(r.bounded(2, "dimension"));
      break;
    case ExprKind::Undef:
      raw.reason = r.text();
      break;
    case ExprKind::Load:
      raw.arg = static_cast<unsigned>(r.bounded(UINT16_MAX, "argument index"));
      raw.element = static_cast<ScalarType>(r.bounded(kLastScalarType, "scalar type"));
      break;
    case ExprKind::Select:
      raw.fn = static_cast<uint8_t>(r.bounded(kLastCmpOp, "comparison"));
      break;
    default:
      break;
    }
    uint64_t nops = r.bounded(4, "operand count");
    if (!r.failed() && !validOperandCount(raw.kind, nops)) r.fail("wrong operand count");
    for (uint64_t k = 0; k < nops && !r.failed(); ++k) {
      uint64_t idx = r.unum();
      if (!r.failed() && idx >= nodes.size()) r.fail("operand refers to a later node");
      if (!r.failed()) raw.operands.push_back(nodes[idx]);
    }
    if (r.failed()) return failWith();
    nodes.push_back(Expr::fromRaw(std::move(raw)));
  }
  auto nodeAt = [&](uint64_t idx) -> ExprRef {
    if (idx >= nodes.size()) {
      r.fail("node index out of range");
      return nullptr;
    }
    return nodes[idx];
  };

  KernelRegions regions;
  r.expect("statements");
  uint64_t statementCount = r.bounded(1u << 24, "statement count");
  for (uint64_t i = 0; i < statementCount && !r.failed(); ++i) {
    StatementRegion s;
    s.kind = static_cast<AccessKind>(r.bounded(static_cast<unsigned>(AccessKind::Atomic), "access kind"));
    s.arg = static_cast<unsigned>(r.bounded(UINT16_MAX, "argument index"));
    s.offset = nodeAt(r.unum());
    s.width = static_cast<uint32_t>(r.bounded(UINT32_MAX, "width"));
    uint64_t flags = r.bounded(3, "flags");
    s.fromPragma = flags & 1;
    s.exact = flags & 2;
    s.atomicOp = static_cast<AtomicOp>(r.bounded(kLastAtomicOp, "atomic op"));
    s.atomicType = static_cast<ScalarType>(r.bounded(kLastScalarType, "scalar type"));
    s.line = static_cast<unsigned>(r.bounded(UINT32_MAX, "line"));
    uint64_t guards = r.bounded(1024, "guard count");
    for (uint64_t g = 0; g < guards && !r.failed(); ++g) {
      auto guard = std::make_shared<Guard>();
      guard->op = static_cast<CmpOp>(r.bounded(kLastCmpOp, "comparison"));
      guard->lhs = nodeAt(r.unum());
      guard->rhs = nodeAt(r.unum());
      s.guards.push_back(std::move(guard));
    }
    if (!r.failed() && s.width == 0) r.fail("zero access width");
    regions.statements.push_back(std::move(s));
  }
  r.expect("monotone");
  for (auto* list : {&regions.increasingBuffers, &regions.decreasingBuffers}) {
    uint64_t n = r.bounded(UINT16_MAX, "buffer count");
    for (uint64_t i = 0; i < n && !r.failed(); ++i)
      list->push_back(static_cast<unsigned>(r.bounded(UINT16_MAX, "argument index")));
  }
  r.expect("end");
  if (!r.failed() && !r.atEnd()) r.fail("trailing data");
  if (r.failed()) return failWith();
  return regions;
}

} // namespace clsplit::analysis
