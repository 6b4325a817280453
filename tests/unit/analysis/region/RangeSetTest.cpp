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
