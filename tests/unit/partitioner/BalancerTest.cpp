// ADAPTIVE w/o COMM for one kernel: equal finish times, fixed costs, fixed point and Broyden.
#include "partitioner/KernelBalancer.h"
#include "partitioner/MemoryFit.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace clsplit::partition;

namespace {
KernelCosts costs(double groups, std::vector<double> f, std::vector<double> l, double host = 0) {
  KernelCosts c;
  c.groups = groups;
  c.nsPerGroup = std::move(f);
  c.launchNs = std::move(l);
  c.allowed.assign(c.nsPerGroup.size(), true);
  c.hostOverheadNs = host;
  return c;
}
} // namespace

TEST_CASE("equal finish times, latencies included") {
  auto y = balanceKernel(costs(700, {4, 2, 1}, {0, 0, 0}));
  CHECK(y[0] == Approx(1 / 7.));
  CHECK(y[2] == Approx(4 / 7.));
  // Device 0 starts 100 ns late: it gets less, and all finish together.
  auto c = costs(1000, {1, 1}, {100, 0});
  auto z = balanceKernel(c);
  CHECK(100 + 1000 * z[0] == Approx(1000 * z[1]));
}

TEST_CASE("devices whose fixed cost exceeds the gain get nothing") {
  auto c = costs(100, {100, 100}, {0, 0}, /*host=*/6000);
  // Splitting saves 5000 ns of compute but costs 6000 ns of host overhead.
  CHECK(balanceKernel(c) == std::vector<double>{1, 0});
  c.groups = 1000;
  auto y = balanceKernel(c);
  CHECK(y[0] == Approx(0.5));
  // A device that is not allowed never gets work.
  c.allowed = {false, true};
  CHECK(balanceKernel(c) == std::vector<double>{0, 1});
}

TEST_CASE("fixed point and Broyden converge on an irregular kernel") {
  // Two equal devices, per-group work rising along the index (1 + 4x): the balanced split is
  // at s with s + 2 s^2 = 1.5, s = (sqrt(13) - 1) / 4.
  const double optimum = (std::sqrt(13.0) - 1) / 4;
  auto measure = [](const std::vector<double>& x) {
    // Mean per-group cost of each device's slice [0,s) and [s,1): f = 1 + 2(a + b).
    double s = x[0];
    return costs(1000, {1 + 2 * s, 1 + 2 * (s + 1)}, {0, 0});
  };
  for (bool broyden : {false, true}) {
    BroydenSolver solver;
    std::vector<double> x{0.5, 0.5};
    int steps = 0;
    while (std::abs(x[0] - optimum) > 1e-3 && steps < 50) {
      auto fx = balanceKernel(measure(x));
      x = broyden ? solver.next(x, fx) : fx;
      ++steps;
    }
    INFO((broyden ? "broyden" : "fixed point") << " steps " << steps);
    CHECK(std::abs(x[0] - optimum) <= 1e-3);
    CHECK(steps <= (broyden ? 4 : 8));
  }
}

TEST_CASE("Broyden falls back to the fixed point on a bad step") {
  BroydenSolver s;
  auto a = s.next({0.5, 0.5}, {0.9, 0.1});
  CHECK(a[0] == Approx(0.9)); // first step: the fixed point
  CHECK(a[1] == Approx(0.1));
  // A wildly inconsistent second evaluation must not leave the simplex.
  auto b = s.next({0.9, 0.1}, {0.0, 1.0});
  CHECK(b[0] >= 0);
  CHECK(b[1] >= 0);
  CHECK(b[0] + b[1] == Approx(1));
}

TEST_CASE("shares respect each device's memory before the LP has a plan") {
  auto c = costs(1000, {1, 2, 4}, {0, 0, 0});
  auto free = balanceKernel(c);
  CHECK(free[0] == Approx(4 / 7.));
  // Device 0 holds 30 % of the launch's buffers: its excess goes to the others by speed.
  c.maxRatio = {0.3, 1, 1};
  CHECK_FALSE(sharesFit(c, free));
  auto capped = balanceKernel(c);
  CHECK(capped[0] == Approx(0.3));
  CHECK(capped[1] == Approx(0.7 * 2 / 3.));
  CHECK(capped[2] == Approx(0.7 / 3.));
  CHECK(sharesFit(c, capped));
  CHECK(predictKernel(c, free) > 1e12); // an unfit split loses to any other
  // One device alone (the best by speed) is no way out when it cannot hold the launch: here
  // the other one alone is better than a split that pays the host twice.
  auto d = costs(100, {1, 100}, {0, 0}, /*host=*/50'000);
  CHECK(balanceKernel(d) == std::vector<double>{1, 0});
  d.maxRatio = {0.6, 1};
  CHECK(balanceKernel(d) == std::vector<double>{0, 1});
  d.hostOverheadNs = 0; // a split costs nothing more: the fast device takes what it holds
  CHECK(balanceKernel(d)[0] == Approx(0.6));
  // No split fits at all: memory is left to evictions, the split is by speed.
  c.maxRatio = {0.3, 0.3, 0.3};
  CHECK(balanceKernel(c) == free);
  CHECK(capShares(c, {1, 0, 0}) == std::vector<double>{1, 0, 0});
}

TEST_CASE("shares held to each device's bound, the excess moved to the devices with room") {
  // By memory 0.5 / 0.3 / 0.2; device 0's largest allocation holds 40 % of the buffer.
  auto r = withinShares({0.5, 0.3, 0.2}, {0.4, 1, 1});
  CHECK(r[0] == Approx(0.4));
  CHECK(r[1] == Approx(0.3 + 0.1 * 0.6));
  CHECK(r[2] == Approx(0.2 + 0.1 * 0.4));
  // Moving the excess may put another device over its bound: capped in turn.
  r = withinShares({0.5, 0.3, 0.2}, {0.4, 0.32, 1});
  CHECK(r[0] == Approx(0.4));
  CHECK(r[1] == Approx(0.32));
  CHECK(r[2] == Approx(0.28));
  // The devices with room had no share: they take the excess evenly.
  r = withinShares({1, 0, 0}, {0.5, 1, 1});
  CHECK(r == std::vector<double>{0.5, 0.25, 0.25});
  // Within bounds: unchanged; bounds that cannot hold the launch together: unchanged.
  CHECK(withinShares({0.5, 0.5}, {0.6, 0.6}) == std::vector<double>{0.5, 0.5});
  CHECK(withinShares({0.5, 0.5}, {0.3, 0.3}) == std::vector<double>{0.5, 0.5});
}

TEST_CASE("the largest allocation still bounds a share where memory is left to evictions") {
  auto c = costs(1000, {1, 2, 4}, {0, 0, 0});
  auto free = balanceKernel(c);
  // No device holds more than 30 % of the launch's buffers: together they cannot hold it, and
  // memory is left to evictions. Device 0's largest allocation holds 40 % of the largest
  // buffer's window, whatever is evicted: that bound stays, its excess goes to the others.
  c.maxRatio = {0.3, 0.3, 0.3};
  c.allocRatio = {0.4, 1, 1};
  CHECK(shareBounds(c) == std::vector<double>{0.4, 1, 1});
  CHECK_FALSE(sharesFit(c, free));
  auto y = balanceKernel(c);
  CHECK(y[0] == Approx(0.4));
  CHECK(y[1] == Approx(0.6 * 2 / 3.));
  CHECK(y[2] == Approx(0.6 / 3.));
  CHECK(sharesFit(c, y));
  CHECK(predictKernel(c, free) > 1e12);
  CHECK(capShares(c, {1, 0, 0})[0] == Approx(0.4));
  // Where the memory bounds hold the launch, both apply (the smaller of the two).
  c.maxRatio = {0.5, 1, 1};
  c.allocRatio = {0.4, 1, 1};
  CHECK(shareBounds(c) == std::vector<double>{0.4, 1, 1});
  // Allocations that cannot hold the largest buffer together either: by speed, as without bounds.
  c.maxRatio = {0.3, 0.3, 0.3};
  c.allocRatio = {0.3, 0.3, 0.3};
  CHECK(shareBounds(c).empty());
  CHECK(balanceKernel(c) == free);
}

TEST_CASE("the bounds shares are held to: both, else the allocations', else none") {
  const std::vector<bool> both{true, true};
  CHECK(boundsThatHold({}, {}, both).empty());
  CHECK(boundsThatHold({0.6, 0.7}, {}, both) == std::vector<double>{0.6, 0.7});
  CHECK(boundsThatHold({}, {0.6, 0.7}, both) == std::vector<double>{0.6, 0.7});
  CHECK(boundsThatHold({0.6, 0.6}, {0.5, 1}, both) == std::vector<double>{0.5, 0.6});
  // Memory cannot hold the launch (0.3 + 0.3): the allocation bounds alone, which can.
  CHECK(boundsThatHold({0.3, 0.3}, {0.5, 1}, both) == std::vector<double>{0.5, 1});
  // Only the allowed devices count: device 1 left out, device 0 alone cannot hold it.
  CHECK(boundsThatHold({0.3, 0.3}, {0.5, 1}, {true, false}).empty());
  CHECK(boundsThatHold({0.3, 0.3}, {0.3, 0.3}, both).empty());
}
