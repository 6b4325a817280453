// The ADAPTIVE w/ COMM linear program on synthetic measurements: known optima recovered,
// communication terms coupling dependent kernels (Jacobi) or not (2SpMV), fixed costs deciding
// whether splitting pays, in-place updates.
#include "partitioner/SequenceLp.h"

#include "partitioner/MemoryFit.h"

#include <catch2/catch.hpp>

#include <limits>

using namespace clsplit::partition;

namespace {

CostModel::Position position(double groups, std::vector<double> nsPerGroup, double launchNs = 0) {
  CostModel::Position p;
  p.groups = groups;
  p.nsPerGroup = std::move(nsPerGroup);
  p.launchNs.assign(p.nsPerGroup.size(), launchNs);
  p.allowed.assign(p.nsPerGroup.size(), true);
  return p;
}

CostModel model(unsigned devices, double perByteNs = 0.1, double latencyNs = 10'000, double hostOverheadNs = 0) {
  CostModel m;
  m.devices = devices;
  m.hostOverheadNs = hostOverheadNs;
  m.deviceLinks.assign(devices, std::vector<CostModel::Link>(devices, {perByteNs, latencyNs}));
  for (unsigned d = 0; d < devices; ++d) m.deviceLinks[d][d] = {0, 0};
  m.hostLinks.assign(devices, {perByteNs, latencyNs});
  return m;
}

} // namespace

TEST_CASE("one kernel: ratios proportional to device speed") {
  auto m = model(3);
  m.positions = {position(700, {4000, 2000, 1000})};
  SequenceLp lp;
  auto r = lp.solve(m, {});
  REQUIRE(r.ok);
  CHECK(r.ratios[0][0] == Approx(100 / 700.));
  CHECK(r.ratios[0][1] == Approx(200 / 700.));
  CHECK(r.ratios[0][2] == Approx(400 / 700.));
  CHECK(r.predictedNs == Approx(400 * 1000.));
}

TEST_CASE("a slow device with a large fixed cost is left out") {
  auto m = model(2);
  m.positions = {position(100, {1000, 3000})};
  m.positions[0].launchNs = {0, 120'000};
  SequenceLp lp;
  auto r = lp.solve(m, {});
  REQUIRE(r.ok);
  // Device 0 alone takes 100 us; device 1's fixed cost alone is 120 us.
  CHECK(r.ratios[0] == std::vector<double>{1, 0});
  CHECK(r.predictedNs == Approx(100'000));
  // With a fixed cost of 80 us a small share does pay: 5 groups there, both finish at 95 us.
  m.positions[0].launchNs = {0, 80'000};
  auto s = lp.solve(m, {});
  REQUIRE(s.ok);
  CHECK(s.ratios[0][1] == Approx(0.05));
  CHECK(s.predictedNs == Approx(95'000));
}

TEST_CASE("Jacobi: when transfers dominate, stencil and copy share one split") {
  // Device 0 is relatively better at the stencil, device 1 at the copy: alone, each kernel
  // would want a different split; every mismatch moves a share of a 64 MB buffer.
  auto m = model(2, 0.1, 10'000);
  m.positions = {position(1024, {1000, 2000}), position(1024, {400, 200})};
  const double buffer = 64e6;
  m.edges = {{0, 1, buffer, 8192}, {1, 0, buffer, 8192}};
  SequenceLp lp;
  auto r = lp.solve(m, {});
  REQUIRE(r.ok);
  INFO("stencil " << r.ratios[0][0] << " copy " << r.ratios[1][0]);
  CHECK(r.ratios[0][0] == Approx(r.ratios[1][0]).margin(1.5 / 1024));
  CHECK(r.ratios[0][0] > 0.5);
  CHECK(r.ratios[0][0] < 0.8);

  // Without the transfer terms the two kernels do split differently (the "adaptive" outcome).
  auto free = m;
  for (auto& e : free.edges) e.bytesPerMismatch = e.haloBytes = 0;
  auto f = lp.solve(free, {});
  REQUIRE(f.ok);
  CHECK(f.ratios[0][0] == Approx(2 / 3.).margin(0.01));
  CHECK(f.ratios[1][0] == Approx(1 / 3.).margin(0.01));
  // And that split is much worse once transfers are counted.
  CHECK(m.predict(f.ratios).total() > 1.5 * r.predictedNs);
}

TEST_CASE("2SpMV: cheap transfers let dependent kernels split differently") {
  // Irregular kernels: k1's rows are cheaper on device 0's side, k2's on device 1's (measured
  // as different per-group times at the current split); the vector is small.
  auto m = model(2, 0.1, 5'000);
  m.positions = {position(512, {1000, 3000}), position(512, {3000, 1000})};
  const double vector = 64 * 1024;
  m.edges = {{0, 1, vector, 0}, {1, 0, vector, 0}};
  SequenceLp lp;
  auto r = lp.solve(m, {});
  REQUIRE(r.ok);
  INFO("k1 " << r.ratios[0][0] << " k2 " << r.ratios[1][0]);
  CHECK(r.ratios[0][0] == Approx(0.75).margin(0.02));
  CHECK(r.ratios[1][0] == Approx(0.25).margin(0.02));
}

TEST_CASE("small launches run whole on the best device") {
  // 50 us of work on the faster device, 70 us fixed cost per launch, 10 us host overhead per
  // sub-launch and a halo exchange with 30 us latency once split: splitting cannot pay.
  auto m = model(2, 0.1, 30'000, 10'000);
  m.positions = {position(50, {1000, 1100}, 70'000)};
  m.edges = {{0, 0, 0, 4096}};
  SequenceLp lp;
  auto r = lp.solve(m, {});
  REQUIRE(r.ok);
  CHECK(r.ratios[0] == std::vector<double>{1, 0});
  // No split (in 1 % steps) is better according to the model.
  for (int i = 1; i < 100; ++i) {
    Ratios y{{i / 100.0, 1 - i / 100.0}};
    CHECK(m.predict(y).total() > r.predictedNs);
  }

  // The same kernel 1000 times larger is worth splitting.
  m.positions[0].groups = 100'000;
  auto big = lp.solve(m, {});
  REQUIRE(big.ok);
  CHECK(big.ratios[0][0] == Approx(1100 / 2100.).margin(0.01));
}

TEST_CASE("the search can bring back a device left out earlier") {
  auto m = model(3);
  m.positions = {position(300, {1000, 1000, 1000})};
  SequenceLp lp;
  ActiveSet onlyFirst{{true, false, false}};
  auto r = lp.solve(m, onlyFirst);
  REQUIRE(r.ok);
  CHECK(r.ratios[0][1] == Approx(1 / 3.));
  CHECK(r.ratios[0][2] == Approx(1 / 3.));
}

TEST_CASE("host input volumes favour the device with the cheaper link") {
  auto m = model(2, 0.1, 1000);
  m.hostLinks[1] = {1.0, 1000}; // device 1 behind a slow link
  m.positions = {position(1000, {1000, 1000})};
  m.positions[0].hostBytes = 4e6; // the whole input comes from the host every launch
  SequenceLp lp;
  auto r = lp.solve(m, {});
  REQUIRE(r.ok);
  CHECK(r.ratios[0][0] > 0.6);
  // Check against the model: no other split in 1 % steps is better.
  double best = m.predict(r.ratios).total();
  for (int i = 0; i <= 100; ++i) {
    Ratios y{{i / 100.0, 1 - i / 100.0}};
    CHECK(m.predict(y).total() >= best * (1 - 0.01));
  }
}

TEST_CASE("the program is updated in place between solves") {
  auto m = model(2);
  m.positions = {position(100, {1000, 1000}), position(100, {1000, 1000})};
  m.edges = {{0, 1, 1e5, 1024}};
  SequenceLp lp;
  auto a = lp.solve(m, {});
  REQUIRE(a.ok);
  m.positions[0].nsPerGroup = {1000, 3000};
  m.positions[1].nsPerGroup = {1000, 3000};
  auto b = lp.solve(m, a.active);
  REQUIRE(b.ok);
  CHECK(lp.rebuilds() == 1);
  CHECK(b.ratios[0][0] == Approx(0.75));
  m.edges.push_back({1, 0, 1e5, 1024}); // new structure: rebuilt
  REQUIRE(lp.solve(m, b.active).ok);
  CHECK(lp.rebuilds() == 2);
}

TEST_CASE("one device and degenerate inputs") {
  auto m = model(1);
  m.positions = {position(10, {5})};
  SequenceLp lp;
  auto r = lp.solve(m, {});
  REQUIRE(r.ok);
  CHECK(r.ratios[0] == std::vector<double>{1});

  auto bad = model(2);
  bad.positions = {position(10, {std::numeric_limits<double>::infinity(), 1e300})};
  bad.positions[0].launchNs = {std::numeric_limits<double>::quiet_NaN(), 0};
  auto s = lp.solve(bad, {});
  REQUIRE(s.ok); // GLPK must never see a non-finite number
  CHECK(s.ratios[0][0] + s.ratios[0][1] == Approx(1));

  CostModel empty;
  CHECK_FALSE(lp.solve(empty, {}).ok);
}

TEST_CASE("shares respect each device's memory; a launch no split fits is left to evictions") {
  auto m = model(2);
  m.positions = {position(1000, {1000, 4000})}; // device 0 four times as fast
  m.positions[0].bytes = 1000e6;
  SequenceLp lp;
  auto free = lp.solve(m, {});
  REQUIRE(free.ok);
  CHECK(free.ratios[0][0] == Approx(0.8)); // by speed alone

  // Device 0 holds 40 % of the launch's buffers: it gets that much, the rest goes to device 1
  // (not the even split of memory alone, and not one device).
  m.memoryBytes = {400e6, 0};
  CHECK(m.maxRatio(0, 0) == Approx(0.4));
  CHECK(m.maxRatio(0, 1) == 1.0);
  CHECK(m.fitsOn(0, {true, true}));
  CHECK_FALSE(m.fitsOn(0, {true, false}));
  auto bounded = lp.solve(m, {});
  REQUIRE(bounded.ok);
  CHECK(bounded.ratios[0][0] == Approx(0.4).margin(0.001));
  CHECK(bounded.ratios[0][1] == Approx(0.6).margin(0.001));
  CHECK(bounded.predictedNs == Approx(600 * 4000.));
  // The faster split does not fit: it loses to any that does, and so does device 1 alone.
  CHECK_FALSE(m.holds(0, free.ratios[0]));
  CHECK(m.predict(free.ratios).memoryNs == kUnfitNs);
  CHECK(m.holds(0, {0.4 + 1.0 / 1000, 0.6 - 1.0 / 1000})); // rounded to a work-group
  CHECK(m.holds(0, {0, 1}));
  m.positions[0].nsPerGroup = {1000, 100'000}; // device 1 far slower: still not device 0 alone
  auto slow = lp.solve(m, {});
  REQUIRE(slow.ok);
  CHECK(slow.ratios[0][0] == Approx(0.4).margin(0.001));
  m.positions[0].nsPerGroup = {1000, 4000};

  // Neither device holds more than 40 %: no split fits, the LP plans by speed alone (the
  // runtime splits such a launch by memory and evicts, docs/limitations.md).
  m.memoryBytes = {400e6, 400e6};
  CHECK_FALSE(m.fitsOn(0, {true, true}));
  CHECK(m.holds(0, {0.8, 0.2}));
  auto none = lp.solve(m, {});
  REQUIRE(none.ok);
  CHECK(none.ratios[0][0] == Approx(0.8).margin(0.001));
}

TEST_CASE("a share's window of the largest buffer fits the device's largest allocation") {
  auto m = model(2);
  m.positions = {position(1000, {1000, 4000})}; // device 0 four times as fast: 0.8 by speed
  m.positions[0].bytes = 1000e6;
  m.positions[0].largest = 500e6;
  // Plenty of memory on both, but device 0 allocates at most 320 MB at once (a 32nd left for
  // halos and alignment: 310 MB, 62 % of the largest buffer).
  m.memoryBytes = {4000e6, 4000e6};
  m.maxAllocBytes = {320e6, 0};
  CHECK(m.maxRatio(0, 0) == Approx(0.62));
  CHECK(m.maxRatio(0, 1) == 1.0);
  SequenceLp lp;
  auto bounded = lp.solve(m, {});
  REQUIRE(bounded.ok);
  CHECK(bounded.ratios[0][0] == Approx(0.62).margin(0.001));
  CHECK(bounded.ratios[0][1] == Approx(0.38).margin(0.001));
  // Memory is the tighter bound where it is: the smaller of the two.
  m.memoryBytes = {400e6, 4000e6};
  CHECK(m.maxRatio(0, 0) == Approx(0.4));
  // A largest allocation that holds the whole buffer bounds nothing.
  m.memoryBytes = {4000e6, 4000e6};
  m.maxAllocBytes = {600e6, 600e6};
  CHECK(m.maxRatio(0, 0) == 1.0);
}

TEST_CASE("the allocation bound stays where the devices' memory cannot hold the launch together") {
  auto m = model(2);
  m.positions = {position(1000, {1000, 4000})}; // device 0 four times as fast: 0.8 by speed
  m.positions[0].bytes = 1000e6;
  m.positions[0].largest = 500e6;
  // Each device holds 40 % of the launch: together they cannot, and the memory bounds are left
  // to evictions. Device 0's largest allocation still holds only 62 % of the largest buffer's
  // window, and no eviction changes that.
  m.memoryBytes = {400e6, 400e6};
  m.maxAllocBytes = {320e6, 0};
  CHECK_FALSE(m.fitsOn(0, {true, true}));
  SequenceLp lp;
  auto r = lp.solve(m, {});
  REQUIRE(r.ok);
  CHECK(r.ratios[0][0] == Approx(0.62).margin(0.001));
  CHECK(r.ratios[0][1] == Approx(0.38).margin(0.001));
  CHECK_FALSE(m.holds(0, {0.8, 0.2}));
  CHECK(m.predict({{0.8, 0.2}}).memoryNs == kUnfitNs);
  CHECK(m.holds(0, {0.62, 0.38}));
  CHECK(m.holds(0, {0.3, 0.7})); // beyond device 1's memory: left to evictions
  // Allocations that cannot hold the largest buffer together either (31 % each): no split fits,
  // the LP plans by speed alone, as for memory.
  m.maxAllocBytes = {160e6, 160e6};
  auto none = lp.solve(m, {});
  REQUIRE(none.ok);
  CHECK(none.ratios[0][0] == Approx(0.8).margin(0.001));
  CHECK(m.holds(0, {0.8, 0.2}));
}
