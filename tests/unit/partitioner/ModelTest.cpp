// The measurement models: least squares, kernel time smoothing, launch latency, dependency
// volumes (thesis Figure 4.5's S_d), transfer costs, and the iteration cost model.
#include "partitioner/CostModel.h"
#include "partitioner/DependencyModel.h"
#include "partitioner/KernelTimeModel.h"
#include "partitioner/LinearFit.h"
#include "partitioner/TransferModel.h"

#include <catch2/catch.hpp>

#include <random>

using namespace clsplit::partition;

TEST_CASE("S_d reproduces the thesis examples (Figure 4.5b and 4.5e)") {
  // 4.5b: h = 3/9 each, k = 2/9, 3/9, 4/9: one element must move to device 2 (index 1).
  std::vector<double> h{3 / 9., 3 / 9., 3 / 9.}, k{2 / 9., 3 / 9., 4 / 9.};
  CHECK(splitMismatch(h, k, 1) * 9 == Approx(1));
  // 4.5e: regions do not overlap (3 elements move); S over-approximates with 4.
  std::vector<double> h2{1 / 9., 2 / 9., 6 / 9.}, k2{4 / 9., 3 / 9., 2 / 9.};
  CHECK(splitMismatch(h2, k2, 1) * 9 == Approx(4));
  // Equal splits move nothing; a device without a share of k receives nothing.
  CHECK(splitMismatch(h, h, 0) == 0);
  CHECK(splitMismatch(h, h, 2) == 0);
  CHECK(splitMismatch(h, {0.5, 0, 0.5}, 1) == 0);
  // Everything of k on a device that produced nothing of h: its whole share.
  CHECK(splitMismatch({1, 0}, {0, 1}, 1) == Approx(1));
}

TEST_CASE("a plan change costs the rows it moves once, over the link between the devices") {
  // A stencil updating a 100 MB grid in place (its own previous iteration is its producer) on
  // two devices 1 ns per byte apart: moving a fifth of the grid costs ~20 ms, once.
  CostModel model;
  model.devices = 2;
  model.positions.resize(1);
  model.edges.push_back({0, 0, 1e8, 0});
  model.deviceLinks.assign(2, std::vector<CostModel::Link>(2, CostModel::Link{1.0, 10'000}));
  const Ratios even{{0.5, 0.5}}, shifted{{0.3, 0.7}};
  CHECK(model.transitionNs(even, even) == 0);
  CHECK(model.transitionNs(even, shifted) == Approx(2e7 + 10'000));
  CHECK(model.transitionNs(shifted, even) == Approx(2e7 + 10'000));
  // A producer earlier in the sequence already runs with the new split: nothing extra moves.
  model.positions.resize(2);
  model.edges = {{0, 1, 1e8, 0}};
  const Ratios evenBoth{{0.5, 0.5}, {0.5, 0.5}}, shiftedBoth{{0.3, 0.7}, {0.3, 0.7}};
  CHECK(model.transitionNs(evenBoth, shiftedBoth) == 0);
  // The previous iteration's consumer feeds the next producer: that edge pays.
  model.edges = {{1, 0, 1e8, 0}};
  CHECK(model.transitionNs(evenBoth, shiftedBoth) == Approx(2e7 + 10'000));
}

TEST_CASE("shared boundaries count neighbouring active slices") {
  CHECK(sharedBoundaries({0.5, 0.5}, 0) == 1);
  CHECK(sharedBoundaries({0.3, 0.3, 0.4}, 1) == 2);
  CHECK(sharedBoundaries({0.3, 0, 0.7}, 0) == 1);
  CHECK(sharedBoundaries({1, 0, 0}, 0) == 0);
  CHECK(sharedBoundaries({1, 0, 0}, 1) == 0);
}

TEST_CASE("dependency volume fit separates halos from mismatch") {
  DependencyVolume v(1e6);
  // Before any measurement: the prior per unit mismatch, no halo.
  CHECK(v.fit().bytesPerMismatch == Approx(1e6));
  CHECK(v.fit().haloBytes == 0);
  // A stencil: 4 KiB per shared boundary, equal splits (S = 0).
  for (uint64_t i = 0; i < 10; ++i) {
    v.observe(i * 2, 0, 1, 4096);
    v.observe(i * 2 + 1, 0, 1, 4096);
  }
  CHECK(v.fit().haloBytes == Approx(4096).epsilon(0.01));
  // Mismatched splits reveal the real bytes per unit mismatch (80 000, not the prior).
  for (uint64_t i = 100; i < 140; ++i) {
    double s = 0.05 * double(i % 5 + 1);
    v.observe(i, s, 1, 4096 + 80000 * s);
  }
  auto fit = v.fit();
  CHECK(fit.bytesPerMismatch == Approx(80000).epsilon(0.05));
  CHECK(fit.haloBytes == Approx(4096).epsilon(0.1));
}

TEST_CASE("dependency volume: repeated keys add, 'nothing' does not overwrite") {
  DependencyVolume v(0);
  v.observeNothing(1, 0.5, 0);
  v.observe(1, 0.5, 0, 100); // late report: same launch and device
  v.observe(1, 0.5, 0, 100); // a second buffer
  v.observeNothing(1, 0.5, 0);
  CHECK(v.samples() == 1);
  // 200 B at a mismatch of 0.5: 400 B per unit (enough evidence to retire the prior of 0).
  CHECK(v.fit().bytesPerMismatch == Approx(400));
}

TEST_CASE("linear fit: latency and per-byte cost, non-negative") {
  LinearFit f;
  for (double bytes : {1e3, 1e4, 1e5, 1e6}) f.add(bytes, 5000 + 0.2 * bytes);
  auto line = f.fit({0, 0});
  CHECK(line.intercept == Approx(5000).epsilon(1e-6));
  CHECK(line.slope == Approx(0.2).epsilon(1e-6));

  LinearFit same;
  same.add(1000, 3000);
  same.add(1000, 3000);
  auto l = same.fit({1000, 1});
  CHECK(l.intercept == Approx(1000)); // no spread: the prior latency
  CHECK(l.slope == Approx(2.0));

  LinearFit negative;
  negative.add(10, 100);
  negative.add(1000, 50);
  CHECK(negative.fit({0, 0}).slope == 0);
  CHECK(negative.fit({0, 0}).intercept == Approx(75));
}

TEST_CASE("transfer model: fitted costs, staged cross-platform moves") {
  std::vector<DeviceInfo> devs(3);
  devs[0].isGpu = devs[1].isGpu = true;
  devs[2].platform = 1;
  TransferModel t(devs);
  for (double b : {1e4, 1e5, 1e6}) {
    t.report(0, Direction::DeviceToHost, uint64_t(b), uint64_t(2000 + 0.5 * b));
    t.report(2, Direction::HostToDevice, uint64_t(b), uint64_t(1000 + 0.25 * b));
    t.report(1, Direction::DeviceToDevice, uint64_t(b), uint64_t(3000 + 0.01 * b));
  }
  auto staged = t.between(0, 2);
  CHECK(staged.perByteNs == Approx(0.75).epsilon(1e-3));
  CHECK(staged.latencyNs == Approx(3000).epsilon(1e-3));
  auto peer = t.between(0, 1); // same platform: a device copy, measured on the destination
  CHECK(peer.perByteNs == Approx(0.01).epsilon(1e-3));
  CHECK(t.between(1, 1).perByteNs == 0);
  // Unmeasured: the prior.
  CHECK(t.cost(1, Direction::HostToDevice).latencyNs > 0);
}

TEST_CASE("kernel time: smoothing at a fixed slice, following changes") {
  KernelDeviceTime k;
  k.observe(100, 0, 1000, 0.5);
  CHECK(k.timeNs() == 1000);
  k.observe(100, 0, 1100, 0.5);
  CHECK(k.timeNs() == Approx(1050));
  k.observe(100, 0, 1000, 0.5);
  CHECK(k.timeNs() == Approx(1025));
  // Noise from the second difference |1000 - 2 * 1100 + 1000| / 1000 / 1.95.
  CHECK(k.noise() == Approx(0.2 / 1.95));
  // A new slice is a new operating point: taken as is.
  k.observe(150, 0, 2000, 0.5);
  CHECK(k.timeNs() == 2000);
  CHECK(k.nsPerGroup(500) == Approx(10));
  // A latency estimate larger than the time cannot make the per-group time vanish.
  CHECK(k.nsPerGroup(5000) == Approx(200 / 150.0));
}

TEST_CASE("kernel time: a steady drift is not noise") {
  KernelDeviceTime k;
  for (int i = 0; i < 20; ++i) k.observe(10, 0, 1000 + 50 * i, 0.5);
  CHECK(k.noise() < 0.001);
  // The smoothed time lags a linear drift by about one step.
  CHECK(k.timeNs() > 1950 - 100);
}

TEST_CASE("kernel time: a jump well above the noise is followed at once") {
  KernelDeviceTime k;
  for (int i = 0; i < 10; ++i) k.observe(10, 0, 1000 + (i % 2) * 20, 0.5);
  k.observe(10, 0, 3000, 0.5);
  CHECK(k.timeNs() == 3000);
}

TEST_CASE("kernel time with a concurrency floor: slices below it count as the floor") {
  // A device running 16 groups at once: 4 and 8 groups both take one wave (100 us after a 10 us
  // latency); 32 groups take two.
  KernelDeviceTime k;
  CHECK_FALSE(k.observe(4, 0, 110'000, 0.5, 16).interceptValid);
  auto below = k.observe(8, 0, 110'500, 0.5, 16); // noise, not a slope (it would say 109.5 us)
  CHECK_FALSE(below.interceptValid);
  CHECK(k.nsPerGroup(10'000, 16) == Approx(100'500.0 / 16));                      // per group at full occupancy
  CHECK(shareTimeNs(10'000, k.nsPerGroup(10'000, 16), 8, 16) == Approx(110'500)); // any share <= 16
  auto above = k.observe(32, 0, 211'000, 0.5, 16);
  REQUIRE(above.interceptValid); // 8 groups count as 16: slope 100.5 us / 16 groups
  CHECK(above.interceptNs == Approx(10'000).epsilon(0.01));
  // A fractional floor (rows holding more work-groups than the device runs at once).
  KernelDeviceTime rows;
  rows.observe(3, 0, 40'000, 0.5, 0.5);
  CHECK(rows.nsPerGroup(10'000, 0.5) == Approx(10'000)); // 3 rows above the floor: linear
}

TEST_CASE("kernel time: another group size rescales the operating point, and no latency is inferred across it") {
  KernelDeviceTime k;
  k.observe(1024, 0, 110'000, 0.5); // groups of 64 work-items
  k.regroup(64.0 / 256);            // now groups of 256: the same work is 256 groups
  CHECK(k.groups() == 256);
  CHECK(k.timeNs() == 110'000);
  CHECK(k.nsPerGroup(10'000) == Approx(100'000.0 / 256));
  // The same launch in the new groups: no slope between 1024 old and 256 new groups.
  CHECK_FALSE(k.observe(256, 0, 110'000, 0.5).interceptValid);
  CHECK(k.timeNs() == Approx(110'000)); // the same slice: smoothed, not a new point
  KernelDeviceTime unmeasured;
  unmeasured.regroup(4);
  CHECK_FALSE(unmeasured.known());
}

TEST_CASE("launch latency: intercepts from two group counts, bounded by the fastest launch") {
  KernelDeviceTime k;
  auto first = k.observe(100, 0, 50'000 + 100 * 300, 0.5);
  CHECK_FALSE(first.interceptValid);
  auto second = k.observe(200, 0, 50'000 + 200 * 300, 0.5);
  REQUIRE(second.interceptValid);
  CHECK(second.interceptNs == Approx(50'000));

  LaunchLatency l(10'000);
  CHECK(l.estimate() == 10'000);
  l.observeIntercept(1, 50'000);
  CHECK(l.estimate() == Approx(30'000)); // one kernel moves a guessed prior half-way
  l.observeIntercept(2, 52'000);
  CHECK(l.estimate() == Approx(50'000)); // two kernels agreeing win
  l.observeIntercept(2, 48'000);         // the latest intercept of a kernel replaces its older one
  CHECK(l.estimate() == Approx(48'000));
  l.observeTime(20'000); // a launch that took 20 us: latency below that
  CHECK(l.estimate() == Approx(18'000));

  // A prior the runtime measured outweighs a few fitted intercepts.
  LaunchLatency measured(10'000, /*trusted=*/true);
  for (uint32_t k = 0; k < 3; ++k) measured.observeIntercept(k, 50'000);
  CHECK(measured.estimate() == 10'000);
  measured.setPrior(60'000); // a new measured prior counts at once
  CHECK(measured.estimate() == 60'000);
  measured.setPrior(60'000, /*trusted=*/false); // untrusted: three kernels' 50 us outvote it
  CHECK(measured.estimate() == 50'000);
}

TEST_CASE("cost model: compute, transfers and host overhead of a split") {
  CostModel m;
  m.devices = 2;
  m.hostOverheadNs = 1000;
  CostModel::Position p;
  p.groups = 100;
  p.nsPerGroup = {10, 20};
  p.launchNs = {500, 500};
  p.allowed = {true, true};
  m.positions = {p, p};
  m.edges = {{0, 1, 1e6, 0}, {1, 0, 0, 4096}};
  m.deviceLinks = {{{0, 0}, {0.1, 2000}}, {{0.1, 2000}, {0, 0}}};
  m.hostLinks = {{0.2, 1000}, {0.2, 1000}};

  Ratios same{{0.5, 0.5}, {0.5, 0.5}};
  auto b = m.predict(same);
  CHECK(b.computeNs == Approx(2 * (500 + 20 * 50)));
  CHECK(b.hostNs == Approx(4 * 1000));
  // Only the halo edge into position 0 moves data: 4096 B at 0.1 ns/B + 2 us latency.
  CHECK(b.transferNs == Approx(2000 + 409.6));

  Ratios differ{{0.5, 0.5}, {0.7, 0.3}};
  auto c = m.predict(differ);
  // Position 1 on device 0 needs 0.2 of the index space from device 1: 2e5 B.
  CHECK(c.transferNs == Approx(2000 + 409.6 + 2000 + 0.1 * 2e5));

  Ratios alone{{1, 0}, {1, 0}};
  auto a = m.predict(alone);
  CHECK(a.transferNs == 0);
  CHECK(a.hostNs == 2000);
  CHECK(a.computeNs == Approx(2 * (500 + 1000)));
}
