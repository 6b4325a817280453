// Instantiation of hand-built parametric regions: affine accesses in 1-3 dimensions, guards,
// strided ranges, loops, indirections, atomics, undef fallbacks; checked against brute force.
#include "analysis/region/Instantiate.h"
#include "analysis/Analysis.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <random>

namespace Catch {
template <>
struct StringMaker<clsplit::RangeSet> {
  static std::string convert(const clsplit::RangeSet& s) { return s.str(); }
};
} // namespace Catch

using namespace clsplit;
using namespace clsplit::analysis;

namespace {

ExprRef C(int64_t v, unsigned bits = 64) { return Expr::constant(v, bits); }
ExprRef gid(unsigned d) { return Expr::workItem(WorkItemFn::GlobalId, d); }
ExprRef lid(unsigned d) { return Expr::workItem(WorkItemFn::LocalId, d); }
ExprRef grp(unsigned d) { return Expr::workItem(WorkItemFn::GroupId, d); }
ExprRef add(ExprRef a, ExprRef b) { return Expr::add(std::move(a), std::move(b)); }
ExprRef sub(ExprRef a, ExprRef b) { return Expr::sub(std::move(a), std::move(b)); }
ExprRef mul(ExprRef a, ExprRef b) { return Expr::mul(std::move(a), std::move(b)); }
ExprRef i32arg(unsigned i) { return Expr::argument(i, ScalarType::I32); }
ExprRef sext(ExprRef a) { return Expr::unary(ExprKind::SExt, std::move(a), ValueType::integer(64)); }
ExprRef trunc32(ExprRef a) { return Expr::unary(ExprKind::Trunc, std::move(a), ValueType::integer(32)); }

std::shared_ptr<const Guard> guard(ExprRef l, CmpOp op, ExprRef r) {
  auto g = std::make_shared<Guard>();
  g->lhs = std::move(l);
  g->op = op;
  g->rhs = std::move(r);
  return g;
}

StatementRegion stmt(AccessKind kind, unsigned arg, ExprRef offset, uint32_t width,
                     std::vector<std::shared_ptr<const Guard>> guards = {}) {
  StatementRegion s;
  s.kind = kind;
  s.arg = arg;
  s.offset = std::move(offset);
  s.width = width;
  s.guards = std::move(guards);
  return s;
}

class Values : public LaunchValues {
public:
  std::map<unsigned, std::vector<std::byte>> scalars;
  std::map<unsigned, uint64_t> sizes;
  std::map<unsigned, std::vector<int32_t>> ints; // buffer contents for indirections
  mutable int reads = 0;

  void setInt(unsigned arg, int32_t v) {
    std::vector<std::byte> b(4);
    std::memcpy(b.data(), &v, 4);
    scalars[arg] = b;
  }
  std::span<const std::byte> scalarBytes(unsigned arg) const override {
    auto it = scalars.find(arg);
    if (it == scalars.end()) return {};
    return it->second;
  }
  uint64_t bufferSize(unsigned arg) const override {
    auto it = sizes.find(arg);
    return it == sizes.end() ? 0 : it->second;
  }
  std::optional<ScalarValue> readElement(unsigned arg, uint64_t offset, ScalarType) const override {
    ++reads;
    auto it = ints.find(arg);
    if (it == ints.end() || offset % 4 || offset / 4 >= it->second.size()) return std::nullopt;
    ScalarValue v;
    v.i = it->second[offset / 4];
    return v;
  }
};

KernelAnalysis kernelOf(std::vector<StatementRegion> statements, unsigned nargs) {
  KernelAnalysis k;
  k.name = "k";
  k.args.resize(nargs);
  for (auto& a : k.args) a.kind = ArgKind::GlobalBuffer;
  k.regions.statements = std::move(statements);
  return k;
}

NDRange range1(uint64_t global, uint64_t local) {
  NDRange r;
  r.dims = 1;
  r.global = {global, 1, 1};
  r.local = {local, 1, 1};
  return r;
}

NDRange range2(uint64_t g0, uint64_t g1, uint64_t l0, uint64_t l1) {
  NDRange r;
  r.dims = 2;
  r.global = {g0, g1, 1};
  r.local = {l0, l1, 1};
  return r;
}

// Brute force: enumerate every work-item of the slice and every value of f.
RangeSet
bruteForce(const NDRange& r, const Slice& s, uint64_t size, uint32_t width,
           const std::function<void(uint64_t g0, uint64_t g1, uint64_t g2, std::vector<int64_t>& offsets)>& f) {
  std::vector<ByteRange> out;
  std::array<uint64_t, 3> lo{0, 0, 0}, hi{1, 1, 1};
  for (unsigned d = 0; d < r.dims; ++d) {
    lo[d] = r.offset[d];
    hi[d] = r.offset[d] + r.global[d];
  }
  lo[s.dim] = r.offset[s.dim] + s.groupBegin * r.local[s.dim];
  hi[s.dim] = r.offset[s.dim] + s.groupEnd * r.local[s.dim];
  std::vector<int64_t> offsets;
  for (uint64_t z = lo[2]; z < hi[2]; ++z)
    for (uint64_t y = lo[1]; y < hi[1]; ++y)
      for (uint64_t x = lo[0]; x < hi[0]; ++x) {
        offsets.clear();
        f(x, y, z, offsets);
        for (int64_t o : offsets) {
          int64_t a = std::max<int64_t>(o, 0), b = std::min<int64_t>(o + width, size);
          if (a < b) out.push_back({static_cast<uint64_t>(a), static_cast<uint64_t>(b)});
        }
      }
  return RangeSet::fromRanges(std::move(out));
}

} // namespace

TEST_CASE("1-D stencil: guarded neighbours, exact regions") {
  // if (i >= 1 && i < n-1) B[i] = A[i-1] + A[i] + A[i+1]
  ExprRef i = trunc32(gid(0));
  std::vector<std::shared_ptr<const Guard>> g = {guard(i, CmpOp::SGe, C(1, 32)),
                                                 guard(i, CmpOp::SLt, sub(i32arg(2), C(1, 32)))};
  auto at = [&](int64_t delta) { return mul(C(4), sext(add(i, C(delta, 32)))); };
  auto k = kernelOf({stmt(AccessKind::Read, 0, at(-1), 4, g), stmt(AccessKind::Read, 0, at(0), 4, g),
                     stmt(AccessKind::Read, 0, at(1), 4, g), stmt(AccessKind::Write, 1, at(0), 4, g)},
                    3);
  Values v;
  v.sizes = {{0, 400}, {1, 400}};
  v.setInt(2, 100);
  NDRange r = range1(100, 10);

  auto first = instantiate(k, r, Slice{0, 0, 5}, v);
  CHECK(first[0].read == RangeSet::of(0, 204));  // i in [1, 49]: A[0..50]
  CHECK(first[1].write == RangeSet::of(4, 200)); // B[1..49]
  CHECK(first[0].readExact);
  CHECK(first[1].writeExact);
  auto last = instantiate(k, r, Slice{0, 5, 10}, v);
  CHECK(last[0].read == RangeSet::of(196, 400)); // i in [50, 98]: A[49..99]
  CHECK(last[1].write == RangeSet::of(200, 396));
  CHECK_FALSE(first[1].write.intersects(last[1].write));
  CHECK(first[2].read.empty()); // scalar argument: no regions
}

TEST_CASE("2-D row-major access: rows split is contiguous, columns split is strided") {
  // B[y*n + x] with x = gid(0), y = gid(1); n = 64 columns, 32 rows.
  ExprRef x = trunc32(gid(0)), y = trunc32(gid(1));
  ExprRef off = mul(C(4), sext(add(Expr::binary(ExprKind::Mul, y, i32arg(1)), x)));
  auto k = kernelOf({stmt(AccessKind::Write, 0, off, 4)}, 2);
  Values v;
  v.sizes = {{0, 64 * 32 * 4}};
  v.setInt(1, 64);
  NDRange r = range2(64, 32, 8, 4);

  auto rows = instantiate(k, r, Slice{1, 2, 4}, v); // rows 8..15
  CHECK(rows[0].write == RangeSet::of(8 * 256, 16 * 256));
  CHECK(rows[0].write.count() == 1);
  CHECK(rows[0].writeExact);

  auto cols = instantiate(k, r, Slice{0, 1, 3}, v); // columns 8..23 of every row
  CHECK(cols[0].write.count() == 32);
  CHECK(cols[0].write.bytes() == 32 * 16 * 4);
  CHECK(cols[0].write.ranges().front() == ByteRange{32, 96});
  CHECK(cols[0].writeExact);
  CHECK(chooseSplitDimension(k, r, v) == 1);
}

TEST_CASE("write regions keep up to 16384 ranges, reads 1024") {
  ExprRef off = mul(C(4), add(mul(gid(1), C(4096)), gid(0)));
  auto k = kernelOf({stmt(AccessKind::Write, 0, off, 4)}, 1);
  Values v;
  v.sizes = {{0, 4096ull * 4096 * 4}};
  auto cols = instantiate(k, range2(4096, 4096, 16, 1), Slice{0, 0, 1}, v); // 4096 rows x 16 columns
  CHECK(cols[0].write.count() == 4096);
  CHECK(cols[0].writeExact);
}

TEST_CASE("too many strided ranges fall back to the hull, marked inexact") {
  ExprRef x = gid(0), y = gid(1);
  ExprRef off = mul(C(4), add(mul(y, C(4096)), x));
  auto k = kernelOf({stmt(AccessKind::Read, 0, off, 4)}, 1);
  Values v;
  v.sizes = {{0, 4096ull * 2048 * 4}};
  NDRange r = range2(4096, 2048, 16, 1);
  auto cols = instantiate(k, r, Slice{0, 0, 1}, v); // 2048 rows x 16 columns
  CHECK(cols[0].read.count() == 1);
  CHECK_FALSE(cols[0].readExact);
  CHECK(cols[0].note.find("hull") != std::string::npos);
  auto some = instantiate(k, range2(4096, 512, 16, 1), Slice{0, 0, 1}, v);
  CHECK(some[0].read.count() == 512);
  CHECK(some[0].readExact);
}

TEST_CASE("3-D access split along each dimension matches brute force") {
  // A[(z*ny + y)*nx + x] with width 8 (double).
  const uint64_t nx = 12, ny = 6, nz = 4;
  ExprRef off = mul(C(8), add(mul(add(mul(gid(2), C(ny)), gid(1)), C(nx)), gid(0)));
  auto k = kernelOf({stmt(AccessKind::Read, 0, off, 8)}, 1);
  Values v;
  v.sizes = {{0, nx * ny * nz * 8}};
  NDRange r;
  r.dims = 3;
  r.global = {nx, ny, nz};
  r.local = {3, 2, 1};
  for (unsigned dim = 0; dim < 3; ++dim) {
    uint64_t groups = r.groups(dim);
    for (uint64_t b = 0; b < groups; ++b)
      for (uint64_t e = b + 1; e <= groups; ++e) {
        Slice s{dim, b, e};
        auto got = instantiate(k, r, s, v);
        auto want = bruteForce(r, s, nx * ny * nz * 8, 8, [&](uint64_t x, uint64_t y, uint64_t z, auto& o) {
          o.push_back(static_cast<int64_t>(8 * ((z * ny + y) * nx + x)));
        });
        INFO("dim " << dim << " groups " << b << ".." << e);
        CHECK(got[0].read == want);
        CHECK(got[0].readExact);
      }
  }
}

TEST_CASE("group and local ids combine exactly; guards on local ids") {
  // out[get_group_id(0)] written by local id 0 only; in[grp*16 + lid] read.
  ExprRef off = mul(C(4), add(mul(grp(0), C(16)), lid(0)));
  auto k = kernelOf({stmt(AccessKind::Read, 0, off, 4),
                     stmt(AccessKind::Write, 1, mul(C(4), grp(0)), 4, {guard(lid(0), CmpOp::Eq, C(0))}),
                     // global id with a local-id guard: strided
                     stmt(AccessKind::Write, 2, mul(C(4), gid(0)), 4, {guard(lid(0), CmpOp::Eq, C(0))})},
                    3);
  Values v;
  v.sizes = {{0, 1024}, {1, 64}, {2, 1024}};
  NDRange r = range1(256, 16);
  auto got = instantiate(k, r, Slice{0, 3, 7}, v);
  CHECK(got[0].read == RangeSet::of(48 * 4, 112 * 4));
  CHECK(got[0].readExact);
  CHECK(got[1].write == RangeSet::of(12, 28));
  CHECK(got[1].writeExact);
  CHECK(got[2].write == RangeSet({{192, 196}, {256, 260}, {320, 324}, {384, 388}}));
  CHECK(got[2].writeExact);
}

TEST_CASE("a guard on global ids with an access by group id is exact") {
  // if (gid < 20) out[get_group_id(0)]: groups 0 and 1 (the second one partly) write.
  auto k = kernelOf({stmt(AccessKind::Write, 0, mul(C(4), grp(0)), 4, {guard(gid(0), CmpOp::SLt, C(20))})}, 1);
  Values v;
  v.sizes = {{0, 64}};
  auto got = instantiate(k, range1(64, 16), Slice{0, 0, 4}, v);
  CHECK(got[0].write == RangeSet::of(0, 8));
  CHECK(got[0].writeExact);
}

TEST_CASE("a guard mixing global and local ids keeps soundness") {
  // if (gid >= 20) A[lid] : the guard cuts inside a group
  auto k =
      kernelOf({stmt(AccessKind::Write, 0, mul(C(4), add(gid(0), lid(0))), 4, {guard(gid(0), CmpOp::SGe, C(20))})}, 1);
  Values v;
  v.sizes = {{0, 4096}};
  NDRange r = range1(64, 16);
  for (uint64_t b = 0; b < 4; ++b) {
    Slice s{0, b, b + 1};
    auto got = instantiate(k, r, s, v);
    auto want = bruteForce(r, s, 4096, 4, [](uint64_t x, uint64_t, uint64_t, auto& o) {
      if (x >= 20) o.push_back(static_cast<int64_t>(4 * (x + x % 16)));
    });
    CHECK(got[0].write.contains(want));
  }
}

TEST_CASE("loops: sequences with constant and varying trip counts") {
  // for (j = 0; j < m; j++) A[i*m + j]   (a row per work-item)
  ExprRef i = gid(0);
  ExprRef row = Expr::seq(mul(i, Expr::argument(1, ScalarType::I64)), C(1), Expr::argument(1, ScalarType::I64));
  auto k = kernelOf({stmt(AccessKind::Read, 0, mul(C(4), row), 4)}, 2);
  Values v;
  v.sizes = {{0, 4 * 64 * 10}};
  int64_t m = 10;
  std::vector<std::byte> b(8);
  std::memcpy(b.data(), &m, 8);
  v.scalars[1] = b;
  auto got = instantiate(k, range1(64, 8), Slice{0, 1, 3}, v);
  CHECK(got[0].read == RangeSet::of(4 * 8 * 10, 4 * 24 * 10));
  CHECK(got[0].readExact);

  // Strided loop: for (j = 0; j < 4; j++) A[j*64 + i] -> 4 blocks per slice.
  ExprRef strided = add(Expr::seq(C(0), C(64), C(4)), i);
  auto k2 = kernelOf({stmt(AccessKind::Read, 0, mul(C(4), strided), 4)}, 1);
  v.sizes = {{0, 4 * 256}};
  auto got2 = instantiate(k2, range1(64, 8), Slice{0, 2, 4}, v);
  CHECK(got2[0].read.count() == 4);
  CHECK(got2[0].read.bytes() == 4 * 16 * 4);

  // Triangular: for (j = 0; j <= i; j++) A[j] : count = i + 1 varies -> hull, inexact.
  ExprRef tri = Expr::seq(C(0), C(1), add(i, C(1)), i);
  auto k3 = kernelOf({stmt(AccessKind::Read, 0, mul(C(4), tri), 4)}, 1);
  auto got3 = instantiate(k3, range1(64, 8), Slice{0, 1, 2}, v);
  CHECK(got3[0].read == RangeSet::of(0, 4 * 16));
  CHECK_FALSE(got3[0].readExact);
}

TEST_CASE("monotone indirection reads two elements (spatial binning)") {
  // for (j = IA[id]; j < IA[id+1]; j++) A[j]; guarded by id < n.
  ExprRef id = trunc32(gid(0));
  ExprRef start = Expr::load(1, mul(C(4), sext(id)), ScalarType::I32);
  ExprRef end = Expr::load(1, mul(C(4), sext(add(id, C(1, 32)))), ScalarType::I32);
  ExprRef count = sub(Expr::binary(ExprKind::SMax, start, end), start);
  ExprRef last = sub(Expr::binary(ExprKind::SMax, start, end), C(1, 32));
  ExprRef j = Expr::seq(start, C(1, 32), count, last);
  auto k = kernelOf({stmt(AccessKind::Read, 0, mul(C(4), sext(j)), 4, {guard(id, CmpOp::SLt, i32arg(3))})}, 4);
  Values v;
  std::vector<int32_t> ia(129);
  for (int x = 0; x <= 128; ++x) ia[x] = x * 7 + (x > 64 ? 3 : 0);
  v.ints[1] = ia;
  v.sizes = {{0, 4 * 2000}, {1, 4 * 129}};
  v.setInt(3, 100);
  k.regions.increasingBuffers = {1};
  auto got = instantiate(k, range1(128, 16), Slice{0, 4, 8}, v); // ids 64..127, guard -> 64..99
  CHECK(got[0].read == RangeSet::of(4 * ia[64], 4 * ia[100]));
  CHECK(v.reads <= 4);

  // Without the monotone annotation: whole buffer, with a note saying why.
  k.regions.increasingBuffers.clear();
  auto whole = instantiate(k, range1(128, 16), Slice{0, 4, 8}, v);
  CHECK(whole[0].read == RangeSet::of(0, 4 * 2000));
  CHECK_FALSE(whole[0].readExact);
  CHECK(whole[0].note.find("not annotated") != std::string::npos);
}

TEST_CASE("undef offsets fall back to the whole buffer with the reason") {
  auto k = kernelOf({stmt(AccessKind::Write, 0, Expr::undef("value loaded from local memory"), 4)}, 1);
  Values v;
  v.sizes = {{0, 1000}};
  auto got = instantiate(k, range1(64, 8), Slice{0, 0, 4}, v);
  CHECK(got[0].write == RangeSet::of(0, 1000));
  CHECK_FALSE(got[0].writeExact);
  CHECK(got[0].note.find("local memory") != std::string::npos);
}

TEST_CASE("atomics: commutative regions, mixed kinds become writes") {
  StatementRegion hist = stmt(AccessKind::Atomic, 0, Expr::interval(C(0), C(60)), 4);
  hist.atomicOp = AtomicOp::Inc;
  hist.atomicType = ScalarType::U32;
  StatementRegion more = hist;
  more.atomicOp = AtomicOp::Add;
  auto k = kernelOf({hist, more}, 1);
  Values v;
  v.sizes = {{0, 64}};
  auto got = instantiate(k, range1(64, 8), Slice{0, 0, 4}, v);
  CHECK(got[0].atomic == RangeSet::of(0, 64));
  CHECK(got[0].atomicOp == AtomicOp::Add); // additive operations merge the same way
  CHECK(got[0].write.empty());

  StatementRegion mx = hist;
  mx.atomicOp = AtomicOp::Max;
  auto k2 = kernelOf({hist, mx}, 1);
  auto got2 = instantiate(k2, range1(64, 8), Slice{0, 0, 4}, v);
  CHECK(got2[0].atomic.empty());
  CHECK(got2[0].write == RangeSet::of(0, 64));
  CHECK_FALSE(got2[0].writeExact);
}

TEST_CASE("wrap-around and out-of-range values are not trusted") {
  // (uint)(gid - 1) for gid = 0 wraps: the whole buffer, not a bogus range.
  ExprRef wrapped = Expr::unary(ExprKind::ZExt, sub(trunc32(gid(0)), C(1, 32)), ValueType::integer(64));
  auto k = kernelOf({stmt(AccessKind::Read, 0, mul(C(4), wrapped), 4)}, 1);
  Values v;
  v.sizes = {{0, 256}};
  auto got = instantiate(k, range1(64, 8), Slice{0, 0, 1}, v);
  CHECK(got[0].read == RangeSet::of(0, 256));
  CHECK(got[0].note.find("wrap") != std::string::npos);
  auto fine = instantiate(k, range1(64, 8), Slice{0, 1, 2}, v);
  CHECK(fine[0].read == RangeSet::of(28, 60));
}

TEST_CASE("division, remainder and min/max keep dense sets exact") {
  Values v;
  v.sizes = {{0, 4096}};
  NDRange r = range1(256, 16);
  auto check = [&](ExprRef index, std::function<int64_t(uint64_t)> f, bool expectExact) {
    auto k = kernelOf({stmt(AccessKind::Read, 0, mul(C(4), index), 4)}, 1);
    for (uint64_t b = 0; b < 16; b += 5) {
      Slice s{0, b, std::min<uint64_t>(b + 3, 16)};
      auto got = instantiate(k, r, s, v);
      auto want = bruteForce(r, s, 4096, 4, [&](uint64_t x, uint64_t, uint64_t, auto& o) { o.push_back(4 * f(x)); });
      INFO(toString(index));
      CHECK(got[0].read.contains(want));
      if (expectExact) {
        CHECK(got[0].read == want);
        CHECK(got[0].readExact);
      }
    }
  };
  check(
      Expr::binary(ExprKind::UDiv, gid(0), C(4)), [](uint64_t x) { return x / 4; }, true);
  check(
      Expr::binary(ExprKind::URem, gid(0), C(8)), [](uint64_t x) { return x % 8; }, true);
  check(
      Expr::binary(ExprKind::LShr, mul(gid(0), C(8)), C(1)), [](uint64_t x) { return x * 4; }, true);
  check(
      Expr::binary(ExprKind::SMin, gid(0), C(100)), [](uint64_t x) { return std::min<uint64_t>(x, 100); }, true);
  check(
      Expr::binary(ExprKind::And, gid(0), C(~int64_t{3})), [](uint64_t x) { return x & ~uint64_t{3}; }, false);
  check(
      add(mul(Expr::binary(ExprKind::UDiv, gid(0), C(4)), C(8)), Expr::binary(ExprKind::URem, gid(0), C(4))),
      [](uint64_t x) { return (x / 4) * 8 + x % 4; }, false);
  check(
      Expr::either(gid(0), add(gid(0), C(300))), [](uint64_t x) { return x; }, false);
}

TEST_CASE("random affine forms agree with brute force (soundness and exactness)") {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 300; ++iter) {
    NDRange r = range2(8 * pick(1, 4), 4 * pick(1, 4), 8, 4);
    int64_t a = pick(-3, 5), b = pick(-40, 40), c = pick(-20, 60);
    unsigned width = static_cast<unsigned>(pick(1, 8));
    ExprRef off = add(add(mul(C(a), gid(0)), mul(C(b), gid(1))), C(c));
    std::vector<std::shared_ptr<const Guard>> g;
    int64_t bound = pick(0, 30);
    if (pick(0, 1)) g.push_back(guard(gid(0), CmpOp::SGe, C(pick(0, 10))));
    if (pick(0, 1)) g.push_back(guard(gid(1), CmpOp::SLt, C(bound)));
    auto k = kernelOf({stmt(AccessKind::Write, 0, off, width, g)}, 1);
    Values v;
    v.sizes = {{0, 2048}};
    unsigned dim = static_cast<unsigned>(pick(0, 1));
    uint64_t groups = r.groups(dim);
    uint64_t begin = static_cast<uint64_t>(pick(0, static_cast<int>(groups) - 1));
    uint64_t end = static_cast<uint64_t>(pick(static_cast<int>(begin) + 1, static_cast<int>(groups)));
    Slice s{dim, begin, end};
    auto got = instantiate(k, r, s, v);
    auto want = bruteForce(r, s, 2048, width, [&](uint64_t x, uint64_t y, uint64_t, auto& o) {
      for (const auto& gg : g) {
        int64_t lhs = static_cast<int64_t>(toString(gg->lhs).find("(0)") != std::string::npos ? x : y);
        int64_t rhs = gg->rhs->constant();
        if (gg->op == CmpOp::SGe && !(lhs >= rhs)) return;
        if (gg->op == CmpOp::SLt && !(lhs < rhs)) return;
      }
      o.push_back(a * static_cast<int64_t>(x) + b * static_cast<int64_t>(y) + c);
    });
    INFO(toString(off) << " width " << width << " dim " << dim << " " << begin << ".." << end);
    CHECK(got[0].write == want);
    CHECK(got[0].writeExact);
  }
}

TEST_CASE("chooseSplitDimension: disjoint writes first, then shared reads and fragmentation") {
  // out[y][x] = in[y][x-1] + in[y][x+1] with x = gid(0): splitting rows (dim 1) shares nothing;
  // splitting columns shares a column per row and fragments every region.
  ExprRef x = gid(0), y = gid(1);
  auto at = [&](int64_t dx) { return mul(C(4), add(mul(y, C(64)), add(x, C(dx)))); };
  auto rows = kernelOf(
      {stmt(AccessKind::Read, 0, at(-1), 4), stmt(AccessKind::Read, 0, at(1), 4), stmt(AccessKind::Write, 1, at(0), 4)},
      2);
  Values v;
  v.sizes = {{0, 64 * 64 * 4}, {1, 64 * 64 * 4}};
  NDRange r = range2(64, 64, 8, 8);
  CHECK(chooseSplitDimension(rows, r, v) == 1);
  // Vertical neighbours instead: splitting rows shares two rows, splitting columns shares two
  // columns (same bytes) but fragments: rows still win.
  auto vert = [&](int64_t dy) { return mul(C(4), add(mul(add(y, C(dy)), C(64)), x)); };
  auto cols = kernelOf({stmt(AccessKind::Read, 0, vert(-1), 4), stmt(AccessKind::Read, 0, vert(1), 4),
                        stmt(AccessKind::Write, 1, vert(0), 4)},
                       2);
  CHECK(chooseSplitDimension(cols, r, v) == 1);
  // A write that overlaps when split along dim 1 (every row writes row 0): dim 0 it is.
  auto overlap = kernelOf({stmt(AccessKind::Write, 1, mul(C(4), x), 4)}, 2);
  CHECK(chooseSplitDimension(overlap, r, v) == 0);
  // 1-D launches and launches with a single group per dimension.
  CHECK(chooseSplitDimension(overlap, range1(64, 8), v) == 0);
  CHECK(chooseSplitDimension(rows, range2(8, 8, 8, 8), v) == 1);
}

TEST_CASE(
    "chooseSplitDimension on a large grid: halves of more than kChoiceMaxRanges ranges are scored by their hulls") {
  // 1024 x 1024 (4 MiB per buffer): a column half has a range per row (1024), so the choice
  // compares its hull instead of enumerating the rows.
  ExprRef x = gid(0), y = gid(1);
  constexpr int64_t n = 1024;
  Values v;
  v.sizes = {{0, n * n * 4}, {1, n * n * 4}};
  NDRange r = range2(n, n, 16, 16);
  auto at = [&](ExprRef row, ExprRef col) { return mul(C(4), add(mul(row, C(n)), col)); };
  // A 5-point stencil: row blocks (a column half's hull overlaps its neighbour's).
  auto interior =
      kernelOf({stmt(AccessKind::Read, 0, at(y, add(x, C(-1))), 4), stmt(AccessKind::Read, 0, at(y, add(x, C(1))), 4),
                stmt(AccessKind::Read, 0, at(add(y, C(-1)), x), 4), stmt(AccessKind::Read, 0, at(add(y, C(1)), x), 4),
                stmt(AccessKind::Write, 1, at(y, x), 4)},
               2);
  CHECK(chooseSplitDimension(interior, r, v) == 1);
  // A transpose, out[x][y] = in[y][x]: splitting rows (dim 1) writes a strided column band
  // whose hulls overlap; splitting columns (dim 0) writes contiguous rows of `out`.
  auto transpose = kernelOf({stmt(AccessKind::Read, 0, at(y, x), 4), stmt(AccessKind::Write, 1, at(x, y), 4)}, 2);
  CHECK(chooseSplitDimension(transpose, r, v) == 0);
  // The regions the chosen split then gets are exact (the budget is the choice's only).
  auto lower = instantiate(transpose, r, Slice{0, 0, r.groups(0) / 2}, v);
  CHECK(lower[1].writeExact);
  CHECK(lower[1].write.count() == 1);
}

TEST_CASE("loops bounded only by their exit test: grid-stride slices stay disjoint") {
  // for (i = gid; i < n; i += get_global_size(0)) out[i] : trip count unknown, last = n - 1.
  ExprRef n = Expr::argument(1, ScalarType::I64);
  ExprRef i = Expr::seq(gid(0), Expr::launch(LaunchFn::GlobalSize, 0), Expr::undef("trip count unknown"), sub(n, C(1)));
  auto k = kernelOf({stmt(AccessKind::Write, 0, mul(C(4), i), 4, {guard(gid(0), CmpOp::SLt, n)})}, 2);
  Values v;
  v.sizes = {{0, 4096}};
  int64_t nv = 200;
  v.scalars[1].resize(8);
  std::memcpy(v.scalars[1].data(), &nv, 8);
  NDRange r = range1(32, 8);
  RangeSet all;
  for (uint64_t g = 0; g < 4; ++g) {
    auto got = instantiate(k, r, Slice{0, g, g + 1}, v);
    auto want = bruteForce(r, Slice{0, g, g + 1}, 4096, 4, [&](uint64_t x, uint64_t, uint64_t, auto& o) {
      for (uint64_t j = x; j < 200; j += 32) o.push_back(static_cast<int64_t>(4 * j));
    });
    CHECK(got[0].write.contains(want));
    CHECK_FALSE(got[0].write.intersects(all)); // disjoint from the other slices
    CHECK_FALSE(got[0].writeExact);
    all.add(got[0].write);
  }
  // A negative step cannot be bounded by an upper exit test: whole buffer.
  ExprRef down = Expr::seq(gid(0), C(-1), Expr::undef("trip count unknown"), C(0));
  auto k2 = kernelOf({stmt(AccessKind::Read, 0, mul(C(4), down), 4)}, 2);
  CHECK(instantiate(k2, r, Slice{0, 0, 1}, v)[0].read == RangeSet::of(0, 4096));
}

TEST_CASE("intervals, floating-point indirections and selects on arguments") {
  Values v;
  v.sizes = {{0, 1024}, {1, 1024}};
  // [2*gid, 2*gid + 3] elements: overlapping intervals of consecutive work-items.
  ExprRef iv = Expr::interval(mul(gid(0), C(8)), add(mul(gid(0), C(8)), C(12)));
  auto k = kernelOf({stmt(AccessKind::Read, 0, iv, 4)}, 2);
  auto got = instantiate(k, range1(64, 8), Slice{0, 1, 2}, v);
  CHECK(got[0].read == RangeSet::of(64, 64 + 7 * 8 + 16));
  CHECK_FALSE(got[0].readExact); // an interval of varying ends over-approximates

  // cell = (int)(pos[gid] / 1.0f) with pos increasing floats: [pos[L], pos[U]] widened.
  class Floats : public Values {
  public:
    std::optional<ScalarValue> readElement(unsigned, uint64_t offset, ScalarType) const override {
      ScalarValue s;
      s.isFloat = true;
      s.f = 3.5 + static_cast<double>(offset / 4) * 0.25; // increasing
      return s;
    }
  } f;
  f.sizes = v.sizes;
  ExprRef pos = Expr::load(1, mul(C(4), gid(0)), ScalarType::F32);
  ExprRef cell =
      Expr::unary(ExprKind::FPToSI, Expr::binary(ExprKind::FDiv, pos, Expr::fconstant(1.0)), ValueType::integer(32));
  auto k2 = kernelOf({stmt(AccessKind::Atomic, 0, mul(C(4), sext(cell)), 4)}, 2);
  k2.regions.statements[0].atomicOp = AtomicOp::Inc;
  k2.regions.statements[0].atomicType = ScalarType::I32;
  k2.regions.increasingBuffers = {1};
  auto got2 = instantiate(k2, range1(64, 8), Slice{0, 1, 2}, f); // pos 5.5 .. 7.25 -> cells 5..7
  CHECK(got2[0].atomic.contains(RangeSet::of(20, 32)));
  CHECK(got2[0].atomic.bytes() <= 20);
  CHECK(got2[0].atomicOp == AtomicOp::Inc);

  // A select on an argument is decided per launch; on a work-item id it is both sides.
  ExprRef sel = Expr::select(static_cast<uint8_t>(CmpOp::Ne), i32arg(1), C(0, 32), mul(C(4), gid(0)),
                             add(C(512), mul(C(4), gid(0))));
  auto k3 = kernelOf({stmt(AccessKind::Read, 0, sel, 4)}, 2);
  v.setInt(1, 0);
  auto off = instantiate(k3, range1(64, 8), Slice{0, 0, 1}, v);
  CHECK(off[0].read == RangeSet::of(512, 544));
  CHECK(off[0].readExact);
  v.setInt(1, 7);
  CHECK(instantiate(k3, range1(64, 8), Slice{0, 0, 1}, v)[0].read == RangeSet::of(0, 32));
  ExprRef byId = Expr::select(static_cast<uint8_t>(CmpOp::SLt), gid(0), C(4), mul(C(4), gid(0)), C(900));
  auto k4 = kernelOf({stmt(AccessKind::Read, 0, byId, 4)}, 2);
  auto both = instantiate(k4, range1(64, 8), Slice{0, 0, 1}, v);
  CHECK(both[0].read.contains(RangeSet({{0, 16}, {900, 904}})));
  CHECK_FALSE(both[0].readExact);
}

TEST_CASE("random multi-statement kernels: merged strided regions equal brute force") {
  // Several statements of one buffer, each affine in two ids with guards: the per-period
  // merge of their strided sets must give exactly the brute-force union.
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 300; ++iter) {
    NDRange r = range2(8 * pick(1, 6), 4 * pick(1, 8), 8, 4);
    const int64_t rowBytes = 4 * pick(8, 64);
    struct S {
      int64_t dx, dy, width, xlo, xhi;
    };
    std::vector<S> specs;
    std::vector<StatementRegion> statements;
    for (int n = pick(1, 5); n > 0; --n) {
      S sp{pick(-3, 3), pick(-2, 2), 4 * pick(1, 3), pick(0, 3), pick(20, 60)};
      specs.push_back(sp);
      ExprRef off = add(add(mul(C(4), gid(0)), mul(C(rowBytes), gid(1))), C(4 * sp.dx + rowBytes * sp.dy));
      statements.push_back(stmt(AccessKind::Write, 0, off, static_cast<uint32_t>(sp.width),
                                {guard(gid(0), CmpOp::SGe, C(sp.xlo)), guard(gid(0), CmpOp::SLt, C(sp.xhi))}));
    }
    auto k = kernelOf(statements, 1);
    Values v;
    const uint64_t size = static_cast<uint64_t>(rowBytes) * 40;
    v.sizes = {{0, size}};
    unsigned dim = static_cast<unsigned>(pick(0, 1));
    uint64_t groups = r.groups(dim);
    uint64_t begin = static_cast<uint64_t>(pick(0, static_cast<int>(groups) - 1));
    uint64_t end = static_cast<uint64_t>(pick(static_cast<int>(begin) + 1, static_cast<int>(groups)));
    auto got = instantiate(k, r, Slice{dim, begin, end}, v);
    std::vector<ByteRange> all;
    for (const auto& sp : specs) {
      auto part = bruteForce(r, Slice{dim, begin, end}, size, static_cast<uint32_t>(sp.width),
                             [&](uint64_t x, uint64_t y, uint64_t, auto& o) {
                               if (static_cast<int64_t>(x) < sp.xlo || static_cast<int64_t>(x) >= sp.xhi) return;
                               o.push_back(4 * (static_cast<int64_t>(x) + sp.dx) +
                                           rowBytes * (static_cast<int64_t>(y) + sp.dy));
                             });
      for (const auto& br : part) all.push_back(br);
    }
    RangeSet want = RangeSet::fromRanges(all);
    INFO("iteration " << iter << " dim " << dim << " groups " << begin << ".." << end);
    CHECK(got[0].write == want);
    if (got[0].note.empty()) CHECK(got[0].writeExact);
  }
}

TEST_CASE("the default split dimension: the outermost with two groups, a choice only among several") {
  NDRange r;
  r.dims = 3;
  r.global = {64, 64, 1};
  r.local = {8, 8, 1};
  CHECK(defaultSplitDimension(r) == 1); // dimension 2 has one group
  CHECK(splitDimensionIsAChoice(r));
  r.global = {64, 8, 1};
  CHECK(defaultSplitDimension(r) == 0);
  CHECK_FALSE(splitDimensionIsAChoice(r));
  r.global = {8, 8, 8};
  CHECK(defaultSplitDimension(r) == 2); // nothing to split: the last dimension
  CHECK_FALSE(splitDimensionIsAChoice(r));
  r.dims = 2;
  r.global = {64, 64, 1};
  CHECK(defaultSplitDimension(r) == 1);
}
