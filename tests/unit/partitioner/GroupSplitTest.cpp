// Ratios to work-groups: exact sums, no negatives, zero ratios get nothing.
#include "partitioner/GroupSplit.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>

using namespace clsplit::partition;

TEST_CASE("largest remainder rounding") {
  CHECK(ratiosToGroups({1, 1, 1}, 10) == std::vector<uint64_t>{4, 3, 3});
  CHECK(ratiosToGroups({0.25, 0.75}, 4) == std::vector<uint64_t>{1, 3});
  CHECK(ratiosToGroups({1, 0, 3}, 8) == std::vector<uint64_t>{2, 0, 6});
  CHECK(ratiosToGroups({0.1, 0.9}, 0) == std::vector<uint64_t>{0, 0});
  CHECK(ratiosToGroups({0.5, 0.5}, 1) == std::vector<uint64_t>{1, 0});
  CHECK(ratiosToGroups({0.4, 0.6}, 1) == std::vector<uint64_t>{0, 1});
}

TEST_CASE("degenerate ratios never give negative or lost groups") {
  double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  CHECK(ratiosToGroups({0, 0}, 7) == std::vector<uint64_t>{7, 0});
  CHECK(ratiosToGroups({-1, 2}, 7) == std::vector<uint64_t>{0, 7});
  CHECK(ratiosToGroups({nan, 1}, 7) == std::vector<uint64_t>{0, 7});
  CHECK(ratiosToGroups({inf, 1}, 7) == std::vector<uint64_t>{0, 7});
  CHECK(ratiosToGroups({}, 7).empty());
  auto big = ratiosToGroups({1, 1e-300}, UINT64_MAX);
  CHECK(big[0] + big[1] == UINT64_MAX);
}

TEST_CASE("random ratios: exact sum, close to exact shares, any device count") {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    // Up to 40 devices: past the 16 whose scratch lives on the stack.
    size_t n = std::uniform_int_distribution<size_t>(1, i % 4 == 0 ? 40 : 8)(rng);
    uint64_t groups = std::uniform_int_distribution<uint64_t>(0, 5000)(rng);
    std::vector<double> r(n);
    for (auto& x : r)
      x = std::uniform_real_distribution<double>(0, 1)(rng) < 0.2 ? 0
                                                                  : std::uniform_real_distribution<double>(0, 1)(rng);
    double sum = std::accumulate(r.begin(), r.end(), 0.0);
    auto g = ratiosToGroups(r, groups);
    REQUIRE(std::accumulate(g.begin(), g.end(), uint64_t(0)) == groups);
    for (size_t d = 0; d < n; ++d) {
      if (sum > 0) {
        REQUIRE(std::abs(double(g[d]) - r[d] / sum * double(groups)) < 1.0);
        if (r[d] == 0) REQUIRE(g[d] == 0);
      }
    }
    auto back = groupsToRatios(g);
    if (groups > 0) REQUIRE(std::abs(std::accumulate(back.begin(), back.end(), 0.0) - 1) < 1e-9);
  }
}
