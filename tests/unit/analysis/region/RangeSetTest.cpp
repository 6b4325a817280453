// RangeSet algebra, checked against a byte-array model.
#include "analysis/region/RangeSet.h"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

using clsplit::ByteRange;
using clsplit::RangeSet;

namespace {
std::vector<bool> model(const RangeSet& s, size_t n) {
  std::vector<bool> m(n, false);
  for (const auto& r : s)
    for (uint64_t i = r.lo; i < r.hi && i < n; ++i) m[i] = true;
  return m;
}
bool wellFormed(const RangeSet& s) {
  const auto& v = s.ranges();
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].empty()) return false;
    if (i && v[i - 1].hi >= v[i].lo) return false; // sorted, disjoint, not adjacent
  }
  return true;
}
} // namespace

TEST_CASE("adjacent and overlapping ranges merge") {
  RangeSet s{{0, 4}, {4, 8}, {10, 12}, {11, 20}};
  CHECK(s.str() == "[0,8) [10,20)");
  CHECK(s.bytes() == 18);
  CHECK(s.hull() == ByteRange{0, 20});
  CHECK(s.contains(ByteRange{2, 7}));
  CHECK_FALSE(s.contains(ByteRange{7, 11}));
}

TEST_CASE("subtract splits ranges") {
  RangeSet s = RangeSet::of(0, 100);
  s.subtract(ByteRange{10, 20});
  s.subtract(ByteRange{90, 200});
  CHECK(s.str() == "[0,10) [20,90)");
  CHECK(s.minus(RangeSet::of(0, 100)).empty());
}

TEST_CASE("set algebra agrees with a byte model") {
  std::mt19937 rng(42);
  const size_t n = 200;
  auto randomSet = [&] {
    RangeSet s;
    int k = rng() % 6;
    for (int i = 0; i < k; ++i) {
      uint64_t lo = rng() % n, len = rng() % 40;
      s.add(ByteRange{lo, std::min<uint64_t>(n, lo + len)});
    }
    return s;
  };
  for (int iter = 0; iter < 2000; ++iter) {
    RangeSet a = randomSet(), b = randomSet();
    auto ma = model(a, n), mb = model(b, n);
    auto u = a.united(b), x = a.intersected(b), d = a.minus(b);
    REQUIRE(wellFormed(u));
    REQUIRE(wellFormed(x));
    REQUIRE(wellFormed(d));
    auto mu = model(u, n), mx = model(x, n), md = model(d, n);
    for (size_t i = 0; i < n; ++i) {
      REQUIRE(mu[i] == (ma[i] || mb[i]));
      REQUIRE(mx[i] == (ma[i] && mb[i]));
      REQUIRE(md[i] == (ma[i] && !mb[i]));
    }
    REQUIRE(a.intersects(b) == !x.empty());
    REQUIRE(a.contains(x));
    REQUIRE(u.bytes() == a.bytes() + b.bytes() - x.bytes());
  }
}

TEST_CASE("intersects agrees with intersected on many-range sets (rows, halos, interleavings)") {
  std::mt19937 rng(7);
  // Rows of a 2-D grid: `count` ranges of `width` bytes every `pitch` bytes from `first`.
  auto rows = [](uint64_t first, uint64_t count, uint64_t width, uint64_t pitch) {
    RangeSet s;
    for (uint64_t r = 0; r < count; ++r) s.add(ByteRange{first + r * pitch, first + r * pitch + width});
    return s;
  };
  for (int iter = 0; iter < 3000; ++iter) {
    const uint64_t pitch = 8 + rng() % 64, width = 1 + rng() % pitch;
    RangeSet a = rows(rng() % 512, 1 + rng() % 80, width, pitch);
    RangeSet b = (iter % 3 == 0) ? rows(rng() % 4096, 1 + rng() % 80, 1 + rng() % pitch, pitch)
                                 : RangeSet{ByteRange{rng() % 4096, 0}};
    if (iter % 3 != 0) { // one halo-like range
      const uint64_t lo = rng() % 4096;
      b = RangeSet{ByteRange{lo, lo + 1 + rng() % 64}};
    }
    const bool expected = !a.intersected(b).empty();
    REQUIRE(a.intersects(b) == expected);
    REQUIRE(b.intersects(a) == expected);
  }
  // Interleaved rows that never touch: every jump lands between two ranges.
  CHECK_FALSE(rows(0, 100, 4, 16).intersects(rows(8, 100, 4, 16)));
  CHECK(rows(0, 100, 4, 16).intersects(rows(8, 100, 4, 16).united(RangeSet{ByteRange{1203, 1204}})));
  CHECK_FALSE(RangeSet{}.intersects(rows(0, 3, 4, 8)));
}
