// Region language values: folding, printing, structural equality, serialisation round trips
// and rejection of malformed encodings.
#include "analysis/region/KernelRegions.h"

#include <catch2/catch.hpp>

using namespace clsplit::analysis;

namespace {
ExprRef C(int64_t v, unsigned bits = 64) { return Expr::constant(v, bits); }
ExprRef gid(unsigned d) { return Expr::workItem(WorkItemFn::GlobalId, d); }

KernelRegions sample() {
  KernelRegions r;
  ExprRef i = Expr::unary(ExprKind::Trunc, gid(0), ValueType::integer(32));
  ExprRef shared = Expr::mul(C(4), Expr::unary(ExprKind::SExt, i, ValueType::integer(64)));
  auto g = std::make_shared<Guard>();
  g->op = CmpOp::SLt;
  g->lhs = i;
  g->rhs = Expr::argument(3, ScalarType::I32);
  StatementRegion read;
  read.kind = AccessKind::Read;
  read.arg = 0;
  read.offset =
      Expr::add(shared, Expr::seq(C(0), C(16), Expr::launch(LaunchFn::NumGroups, 1), Expr::add(C(-16), C(0))));
  read.width = 16;
  read.guards = {g};
  read.line = 12;
  StatementRegion atomic;
  atomic.kind = AccessKind::Atomic;
  atomic.arg = 1;
  atomic.offset = Expr::load(2, shared, ScalarType::F32);
  atomic.atomicOp = AtomicOp::Max;
  atomic.atomicType = ScalarType::U32;
  atomic.exact = false;
  atomic.width = 4;
  StatementRegion undef;
  undef.kind = AccessKind::Write;
  undef.arg = 4;
  undef.offset = Expr::undef("value from \"local\" memory:\n with spaces 12:34");
  undef.fromPragma = true;
  undef.width = 8;
  StatementRegion mixed;
  mixed.arg = 5;
  mixed.offset = Expr::either(Expr::interval(C(1), Expr::binary(ExprKind::UDiv, gid(1), C(3))),
                              Expr::unary(ExprKind::FPToSI,
                                          Expr::binary(ExprKind::FDiv, Expr::fconstant(2.5), Expr::fconstant(0.1)),
                                          ValueType::integer(32)));
  StatementRegion selected;
  selected.arg = 6;
  selected.offset = Expr::select(static_cast<uint8_t>(CmpOp::SGt), Expr::argument(3, ScalarType::I32), C(0, 32),
                                 Expr::seq(gid(0), Expr::launch(LaunchFn::GlobalSize, 0),
                                           Expr::undef("unknown trip count"), Expr::argument(4, ScalarType::I64)),
                                 C(7));
  r.statements = {read, atomic, undef, mixed, selected};
  r.increasingBuffers = {2};
  r.decreasingBuffers = {6, 7};
  return r;
}
} // namespace

TEST_CASE("constant folding wraps like the hardware") {
  CHECK(Expr::add(C(2147483647, 32), C(1, 32))->constant() == -2147483648LL);
  CHECK(Expr::mul(C(3), C(-4))->constant() == -12);
  auto x = gid(0);
  CHECK(Expr::add(x, C(0)) == x);
  CHECK(Expr::mul(C(1), x) == x);
  CHECK(Expr::mul(C(0), x)->isConst());
  CHECK(Expr::unary(ExprKind::ZExt, C(-1, 32), ValueType::integer(64))->constant() == 4294967295LL);
  CHECK(Expr::unary(ExprKind::Trunc, C(0x1ffff), ValueType::integer(16))->constant() == -1);
  // Undef operands propagate, keeping the first reason.
  auto u = Expr::add(x, Expr::undef("because"));
  CHECK(u->isUndef());
  CHECK(u->reason() == "because");
}

TEST_CASE("printing names arguments and functions") {
  auto names = [](unsigned i) { return std::string(1, static_cast<char>('A' + i)); };
  auto e = Expr::add(Expr::mul(C(4), gid(1)), Expr::load(2, Expr::argument(3, ScalarType::I32), ScalarType::F32));
  CHECK(toString(e, names) == "((4 * get_global_id(1)) + [[C, D, float]])");
  KernelRegions r = sample();
  std::string text = toString(r, names);
  CHECK(text.find("increasing C") != std::string::npos);
  CHECK(text.find("read   A bytes [") != std::string::npos);
  CHECK(text.find("if trunc32(get_global_id(0)) < D") != std::string::npos);
  CHECK(text.find("atomic B") != std::string::npos);
  CHECK(text.find("max uint") != std::string::npos);
  CHECK(text.find("(line 12)") != std::string::npos);
}

TEST_CASE("serialisation round-trips and keeps sharing") {
  KernelRegions r = sample();
  std::string bytes = serialize(r);
  std::string error;
  auto back = deserialize(bytes, &error);
  REQUIRE(back);
  CHECK(error.empty());
  REQUIRE(back->statements.size() == r.statements.size());
  for (size_t i = 0; i < r.statements.size(); ++i) {
    const auto& a = r.statements[i];
    const auto& b = back->statements[i];
    CHECK(a.kind == b.kind);
    CHECK(a.arg == b.arg);
    CHECK(a.width == b.width);
    CHECK(a.exact == b.exact);
    CHECK(a.fromPragma == b.fromPragma);
    CHECK(a.atomicOp == b.atomicOp);
    CHECK(a.atomicType == b.atomicType);
    CHECK(a.line == b.line);
    CHECK(equal(*a.offset, *b.offset));
    REQUIRE(a.guards.size() == b.guards.size());
    for (size_t g = 0; g < a.guards.size(); ++g) {
      CHECK(a.guards[g]->op == b.guards[g]->op);
      CHECK(equal(*a.guards[g]->lhs, *b.guards[g]->lhs));
      CHECK(equal(*a.guards[g]->rhs, *b.guards[g]->rhs));
    }
  }
  CHECK(back->increasingBuffers == r.increasingBuffers);
  CHECK(back->decreasingBuffers == r.decreasingBuffers);
  CHECK(serialize(*back) == bytes); // stable
  // The guard's lhs and the shared offset sub-tree are one node each in the encoding.
  CHECK(back->statements[0].guards[0]->lhs.get() ==
        back->statements[0].offset->operand(0)->operand(1)->operand(0).get());
}

TEST_CASE("deserialisation rejects malformed input without crashing") {
  std::string good = serialize(sample());
  std::string error;
  CHECK_FALSE(deserialize("", &error));
  CHECK_FALSE(error.empty());
  CHECK_FALSE(deserialize("clsplit-regions 999\nnodes 0\nstatements 0\nmonotone 0 0\n", &error));
  CHECK(error.find("version") != std::string::npos);
  const std::string v = "clsplit-regions " + std::to_string(kRegionsFormatVersion) + "\n";
  CHECK(deserialize(v + "nodes 0\nstatements 0\nmonotone 0 0\nend\n"));
  CHECK_FALSE(deserialize(v + "nodes 0\nstatements 0\nmonotone 0 0\n"));                     // truncated
  CHECK_FALSE(deserialize("clsplit-regions 1\nnodes 0\nstatements 0\nmonotone 0 0\nend\n")); // old version
  // Operand referring forward, bad kind, truncated input, trailing garbage.
  CHECK_FALSE(deserialize(v + "nodes 1\n10 64 0 2 0 1\nstatements 0\nmonotone 0 0\n"));
  CHECK_FALSE(deserialize(v + "nodes 1\n250 64 0 0\nstatements 0\nmonotone 0 0\n"));
  CHECK_FALSE(deserialize(v + "nodes 1\n5 64 0 999999:abc 0\nstatements 0\nmonotone 0 0\n"));
  CHECK_FALSE(deserialize(good + "x"));
  for (size_t cut = 0; cut + 1 < good.size(); cut += 7) CHECK_FALSE(deserialize(good.substr(0, cut)));
  CHECK_FALSE(deserialize(good.substr(0, good.size() - 2)));
  // Random byte flips never crash (they may still decode to something valid).
  for (size_t i = 0; i < good.size(); i += 3) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    (void)deserialize(bad);
  }
}
