// The partitioner driving a simulated machine: convergence on heterogeneous speeds, irregular and
// drifting loads, noise, small launches, communication-aware splits, sequence detection with
// ping-pong buffers, late reports, warm start, and the run report.
#include "Simulator.h"

#include "partitioner/GroupSplit.h"

#include <catch2/catch.hpp>

#include <chrono>

#include <cmath>
#include <numeric>

using namespace clsplit;
using namespace clsplit::partition;
using namespace clsplit::sim;

namespace {

struct Run {
  std::vector<double> times;                            // per iteration
  std::vector<std::vector<std::vector<double>>> ratios; // [iteration][kernel][device]
};

std::unique_ptr<Partitioner> make(Simulator& sim, const std::string& strategy, PartitionerOptions options = {},
                                  bool tellLatency = true) {
  std::string error;
  auto spec = StrategySpec::parse(strategy, &error);
  REQUIRE(spec);
  return makePartitioner(sim.deviceInfos(tellLatency), *spec, options);
}

Run run(Simulator& sim, Partitioner& p, const std::vector<SimKernel>& seq, int iterations, int first = 0) {
  Run r;
  for (int it = first; it < first + iterations; ++it) {
    std::vector<LaunchResult> results;
    r.times.push_back(sim.iterate(p, seq, uint64_t(it), &results));
    std::vector<std::vector<double>> ratios;
    for (const auto& l : results) ratios.push_back(groupsToRatios(l.groups));
    r.ratios.push_back(std::move(ratios));
  }
  sim.drain(p);
  return r;
}

double maxDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// Steady-state iteration time of a fixed split (noise-free, data already in place).
double fixedTime(std::vector<SimDevice> devices, std::vector<SimBuffer> buffers, const std::vector<SimKernel>& seq,
                 const std::string& strategy, int it = 0) {
  Simulator sim(std::move(devices), std::move(buffers));
  auto p = make(sim, strategy);
  auto r = run(sim, *p, seq, 4, it);
  return r.times.back();
}

// Best time of a single-kernel launch over every two-device split (noise-free).
double bestTwoDeviceSplit(Simulator& sim, const SimKernel& k, uint64_t it) {
  double best = INFINITY;
  for (uint64_t g0 = 0; g0 <= k.groups; ++g0) best = std::min(best, sim.costOf({g0, k.groups - g0}, k, it).timeNs);
  return best;
}

SimDevice device(const std::string& name, double nsPerWork, double launchNs = 10'000) {
  SimDevice d;
  d.name = name;
  d.nsPerWork = nsPerWork;
  d.launchNs = launchNs;
  return d;
}

// A Jacobi-like pair: each kernel reads one buffer with a halo of one row and writes the other;
// `groups` rows of `otherGroups` work-groups, each group `work` units.
std::vector<SimKernel> pingPongStencil(uint64_t groups, double work, uint64_t otherGroups = 1) {
  SimKernel ab, ba;
  ab.name = ba.name = "prog:stencil";
  ab.groups = ba.groups = groups;
  ab.otherGroups = ba.otherGroups = otherGroups;
  ab.work = ba.work = [work](uint64_t, uint64_t) { return work; };
  ab.reads = {{0, 1}};
  ab.writes = {{1}};
  ba.reads = {{1, 1}};
  ba.writes = {{0}};
  return {ab, ba};
}

// The simplest kernel: no inputs, writes its slice of one buffer.
SimKernel computeKernel(const std::string& name, uint64_t groups, double work) {
  SimKernel k;
  k.name = name;
  k.groups = groups;
  k.work = [work](uint64_t, uint64_t) { return work; };
  k.writes = {{0}};
  return k;
}

// Jacobi-1D: stencil A -> B (halo of one group) and copy B -> A; the copy runs relatively faster
// on device 1, so each kernel alone would want a different split.
std::vector<SimKernel> jacobi(uint64_t groups) {
  SimKernel stencil;
  stencil.name = "prog:jacobi_stencil";
  stencil.groups = groups;
  stencil.work = [](uint64_t, uint64_t) { return 100.0; };
  stencil.reads = {{0, 1}};
  stencil.writes = {{1}};
  SimKernel copy;
  copy.name = "prog:jacobi_copy";
  copy.groups = groups;
  copy.work = [](uint64_t, uint64_t) { return 20.0; };
  copy.reads = {{1}};
  copy.writes = {{0}};
  copy.deviceFactor = {1.0, 0.25};
  return {stencil, copy};
}

} // namespace

TEST_CASE("static heterogeneous speeds converge within 5 iterations") {
  std::vector<SimDevice> devs{device("slow", 4), device("mid", 2), device("fast", 1)};
  std::vector<SimBuffer> bufs{{4096, 700}};
  std::vector<SimKernel> seq{computeKernel("prog:ep", 700, 1000)};
  const std::vector<double> ideal{1 / 7., 2 / 7., 4 / 7.};
  const double reference = fixedTime(devs, bufs, seq, "static:1,2,4");

  for (const char* strategy : {"adaptive", "adaptive:broyden", "adaptive-comm"})
    for (bool tellLatency : {true, false}) {
      Simulator sim(devs, bufs);
      auto p = make(sim, strategy, {}, tellLatency);
      auto r = run(sim, *p, seq, 20);
      INFO(strategy << (tellLatency ? " (launch latency given)" : " (launch latency guessed)"));
      for (size_t it = 4; it < r.times.size(); ++it) {
        INFO("iteration " << it + 1 << " ratios " << r.ratios[it][0][0] << " " << r.ratios[it][0][1] << " "
                          << r.ratios[it][0][2] << " time " << r.times[it] << " vs " << reference);
        CHECK(maxDiff(r.ratios[it][0], ideal) < 0.02);
        CHECK(r.times[it] <= 1.03 * reference);
      }
      // Uniform start, so the first iteration is far from it: the convergence is real.
      CHECK(r.times[0] > 1.5 * reference);
    }
}

TEST_CASE("an irregular per-group cost converges within 5 iterations") {
  // Two devices (speeds 1:2), work per group rising along the index 1..9.
  std::vector<SimDevice> devs{device("a", 2), device("b", 1)};
  SimKernel k = computeKernel("prog:ramp", 256, 0);
  k.work = [](uint64_t g, uint64_t) { return 100 * (1 + 8 * double(g) / 256); };
  for (const char* strategy : {"adaptive", "adaptive:broyden", "adaptive-comm"}) {
    Simulator sim(devs, {{4096, 256}});
    auto p = make(sim, strategy);
    const double best = bestTwoDeviceSplit(sim, k, 0);
    auto r = run(sim, *p, {k}, 12);
    INFO(strategy);
    for (size_t it = 4; it < r.times.size(); ++it) {
      INFO("iteration " << it + 1 << " share0 " << r.ratios[it][0][0]);
      CHECK(r.times[it] <= 1.03 * best);
    }
  }
}

TEST_CASE("a drifting load is tracked") {
  // A hot spot of expensive groups moves across the index space over 60 iterations.
  std::vector<SimDevice> devs{device("a", 1), device("b", 1.5)};
  SimKernel k = computeKernel("prog:nbody", 256, 0);
  k.work = [](uint64_t g, uint64_t it) {
    double x = double(g) / 256, c = 0.15 + 0.7 * double(it) / 60;
    return 100 * (1 + 9 * std::exp(-std::pow((x - c) / 0.1, 2)));
  };
  for (const char* strategy : {"adaptive", "adaptive-comm"}) {
    Simulator sim(devs, {{4096, 256}});
    auto p = make(sim, strategy);
    auto r = run(sim, *p, {k}, 60);
    double worst = 0, sum = 0;
    for (size_t it = 5; it < r.times.size(); ++it) {
      double ratio = r.times[it] / bestTwoDeviceSplit(sim, k, it);
      worst = std::max(worst, ratio);
      sum += ratio;
    }
    double mean = sum / double(r.times.size() - 5);
    INFO(strategy << " time / per-iteration optimum: mean " << mean << " worst " << worst);
    // The optimum moves by about 1 % of the groups per iteration; the plan follows one
    // measurement behind.
    CHECK(mean < 1.05);
    CHECK(worst < 1.15);
  }
  // Tracking is needed: a split frozen at the first iteration's optimum falls far behind.
  Simulator sim(devs, {{4096, 256}});
  double frozenWorst = 0;
  uint64_t g0 = 0;
  double bestAt0 = INFINITY;
  for (uint64_t g = 0; g <= 256; ++g) {
    double t = sim.costOf({g, 256 - g}, k, 0).timeNs;
    if (t < bestAt0) {
      bestAt0 = t;
      g0 = g;
    }
  }
  for (uint64_t it = 5; it < 60; ++it)
    frozenWorst = std::max(frozenWorst, sim.costOf({g0, 256 - g0}, k, it).timeNs / bestTwoDeviceSplit(sim, k, it));
  CHECK(frozenWorst > 1.3);
}

TEST_CASE("an abrupt move of the load is followed") {
  // Expensive groups in the front half, then, from iteration 20, in the back half (30:1), on
  // two equal devices (tests/end-to-end/adaptive runs the same on PoCL).
  std::vector<SimDevice> devs{device("a", 1), device("b", 1)};
  SimKernel k = computeKernel("prog:moving", 128, 0);
  k.work = [](uint64_t g, uint64_t it) {
    bool front = g < 64;
    return (front == (it < 20)) ? 3000.0 : 100.0;
  };
  for (const char* strategy : {"adaptive", "adaptive-comm"})
    for (bool async : {false, true}) {
      Simulator sim(devs, {{4096, 128}});
      PartitionerOptions options;
      options.asyncSolve = async;
      auto p = make(sim, strategy, options);
      std::vector<double> share;
      std::vector<double> ratio;
      for (uint64_t it = 0; it < 40; ++it) {
        auto r = sim.launch(*p, k, it);
        p->quiesce();
        share.push_back(double(r.groups[0]) / 128);
        ratio.push_back(r.timeNs / bestTwoDeviceSplit(sim, k, it));
      }
      INFO(strategy << (async ? " (async)" : "") << ": share of device 0 at 19 " << share[19] << ", at 30 " << share[30]
                    << ", at 39 " << share[39] << "; time/optimum at 30 " << ratio[30] << ", at 39 " << ratio[39]);
      CHECK(share[19] < 0.4);
      for (size_t it = 28; it < 40; ++it) CHECK(ratio[it] < 1.1); // caught up within 8 iterations
    }
}

TEST_CASE("+-5 % noise does not make the ratios oscillate") {
  std::vector<SimDevice> devs{device("a", 3), device("b", 1)};
  std::vector<SimKernel> seq{computeKernel("prog:ep", 512, 1000)};
  auto count = [](const std::vector<std::vector<double>>& history) {
    unsigned n = 0;
    double far = 0;
    for (size_t it = 10; it < history.size(); ++it) {
      n += maxDiff(history[it], history[it - 1]) > 0.005;
      far = std::max(far, std::abs(history[it][0] - 0.25));
    }
    return std::pair{n, far};
  };
  for (const char* strategy : {"adaptive", "adaptive-comm"}) {
    Simulator sim(devs, {{4096, 512}}, /*noise=*/0.05, /*seed=*/11);
    auto p = make(sim, strategy);
    auto r = run(sim, *p, seq, 60);
    std::vector<std::vector<double>> history;
    for (const auto& it : r.ratios) history.push_back(it[0]);
    auto [changes, far] = count(history);
    INFO(strategy << ": plan changes after iteration 10: " << changes << ", max distance " << far);
    CHECK(changes <= 5);
    CHECK(far < 0.04);
  }
  // The premise: the raw fixed point x <- F(x) on the same noisy measurements does move the
  // split nearly every iteration.
  Simulator sim(devs, {{4096, 512}}, 0.05, 11);
  std::vector<uint64_t> groups{256, 256};
  std::vector<std::vector<double>> naive;
  for (int it = 0; it < 60; ++it) {
    auto res = sim.costOf(groups, seq[0], it); // noise-free cost ...
    std::vector<double> perGroup(2);
    std::uniform_real_distribution<double> jitter(0.95, 1.05);
    static std::mt19937_64 rng(5);
    for (int d = 0; d < 2; ++d) // ... with the simulator's +-5 % noise applied here
      perGroup[d] = (res.kernelNs[d] * jitter(rng) - 10'000) / double(groups[d]);
    std::vector<double> y{1 / perGroup[0], 1 / perGroup[1]};
    groups = ratiosToGroups(y, 512);
    naive.push_back(groupsToRatios(groups));
  }
  auto [naiveChanges, naiveFar] = count(naive);
  INFO("naive fixed point: changes " << naiveChanges << ", max distance " << naiveFar);
  CHECK(naiveChanges >= 15);
}

TEST_CASE("small launches run on one device; large ones split") {
  // Two equal GPUs of one platform; ping-pong stencil (a sequence of one kernel).
  std::vector<SimDevice> devs{device("gpu0", 1, 20'000), device("gpu1", 1, 20'000)};
  for (auto& d : devs) d.d2dLatency = 20'000;
  SECTION("16 us of work") {
    auto seq = pingPongStencil(16, 1000);
    Simulator sim(devs, {{4096, 16}, {4096, 16}});
    auto p = make(sim, "adaptive-comm");
    auto r = run(sim, *p, seq, 10);
    double single = fixedTime(devs, {{4096, 16}, {4096, 16}}, seq, "single");
    double split = fixedTime(devs, {{4096, 16}, {4096, 16}}, seq, "uniform");
    REQUIRE(split > single); // the premise: splitting does not pay here
    for (size_t it = 3; it < r.ratios.size(); ++it)
      for (const auto& k : r.ratios[it]) {
        INFO("iteration " << it << " share0 " << k[0]);
        CHECK(std::max(k[0], k[1]) == 1.0);
      }
    CHECK(r.times.back() <= 1.02 * single);
  }
  SECTION("16 ms of work") {
    auto seq = pingPongStencil(4096, 4000);
    Simulator sim(devs, {{4096, 4096}, {4096, 4096}});
    auto p = make(sim, "adaptive-comm");
    auto r = run(sim, *p, seq, 10);
    double single = fixedTime(devs, {{4096, 4096}, {4096, 4096}}, seq, "single");
    for (size_t it = 4; it < r.ratios.size(); ++it) CHECK(r.ratios[it][0][0] == Approx(0.5).margin(0.02));
    CHECK(r.times.back() < 0.6 * single);
  }
}

TEST_CASE("a launch with fewer groups than a device runs at once is not split for nothing") {
  // Two equal GPUs that each run 128 groups at once; a stencil of 64 long groups (1 ms each):
  // any split takes the same kernel time as one GPU alone, plus the halo exchange.
  std::vector<SimDevice> devs{device("gpu0", 1, 20'000), device("gpu1", 1, 20'000)};
  for (auto& d : devs) d.parallelGroups = 128, d.d2dLatency = 50'000;
  auto seq = pingPongStencil(64, 1e6);
  std::vector<SimBuffer> bufs{{65536, 64}, {65536, 64}};
  double single = fixedTime(devs, bufs, seq, "single");
  REQUIRE(fixedTime(devs, bufs, seq, "uniform") > 1.04 * single); // the premise
  for (const char* strategy : {"adaptive-comm", "adaptive"}) {
    Simulator sim(devs, bufs);
    auto p = make(sim, strategy);
    auto r = run(sim, *p, seq, 20);
    // Now and then the idle device is probed with one group (budgeted, see maybeProbe): such an
    // iteration pays a halo exchange; every other one runs on one device.
    double sum = 0;
    unsigned slower = 0;
    for (size_t it = 10; it < r.times.size(); ++it) {
      INFO(strategy << " iteration " << it << " shares " << r.ratios[it][0][0] << " / " << r.ratios[it][0][1]);
      CHECK(r.times[it] <= 1.1 * single);
      slower += r.times[it] > 1.02 * single;
      sum += r.times[it];
    }
    INFO(strategy);
    CHECK(slower <= 2);
    CHECK(sum / 10 <= 1.02 * single);
  }
}

TEST_CASE("a 2-D launch whose rows a device runs in several waves is split") {
  // Two equal GPUs that each run 128 work-groups at once; a 2-D stencil of 64 rows of 8 groups
  // (1 ms each): one GPU runs it in 4 waves of 16 rows, each half in 2. Counted in rows, the
  // concurrency floor is 16 rows, not 128: splitting halves the time.
  std::vector<SimDevice> devs{device("gpu0", 1, 20'000), device("gpu1", 1, 20'000)};
  for (auto& d : devs) d.parallelGroups = 128, d.d2dLatency = 50'000;
  auto seq = pingPongStencil(64, 1e6, /*otherGroups=*/8);
  std::vector<SimBuffer> bufs{{65536, 64}, {65536, 64}};
  double single = fixedTime(devs, bufs, seq, "single");
  REQUIRE(fixedTime(devs, bufs, seq, "uniform") < 0.6 * single); // the premise
  for (const char* strategy : {"adaptive-comm", "adaptive"}) {
    Simulator sim(devs, bufs);
    auto p = make(sim, strategy);
    auto r = run(sim, *p, seq, 15);
    double sum = 0;
    for (size_t it = 10; it < r.times.size(); ++it) sum += r.times[it];
    INFO(strategy << " shares " << r.ratios.back()[0][0] << " / " << r.ratios.back()[0][1]);
    CHECK(sum / 5 <= 0.6 * single);
  }
}

TEST_CASE("a 2-D kernel's first launch is judged by all of its work-items") {
  // No measurement yet: the priors' time per work-item times the work-items of a row of the split
  // dimension, which holds otherGroups work-groups. 64 rows of 4096 groups of 256 items (67M
  // items, ~0.2 ms on a GPU by the priors) are worth splitting over two GPUs; the same rows with
  // one group each (16K items) are not worth a second launch.
  Simulator sim({device("gpu0", 1), device("gpu1", 1)}, {{4096, 64}});
  auto firstPlan = [&](uint64_t otherGroups) {
    auto p = make(sim, "adaptive-comm");
    LaunchRequest req;
    req.kernel = "prog:wide";
    req.groups = 64;
    req.groupSize = 256;
    req.otherGroups = otherGroups;
    req.buffers = {{0, false, true, 4096 * 64}};
    return p->plan(req).groups;
  };
  auto wide = firstPlan(4096);
  INFO("wide: " << wide[0] << " / " << wide[1]);
  CHECK(wide[0] > 0);
  CHECK(wide[1] > 0);
  auto narrow = firstPlan(1);
  CHECK((narrow[0] == 0 || narrow[1] == 0));
}

namespace {
// A launch of `kernel` over `groups` work-groups of 64 items.
LaunchRequest launchOf(const char* kernel, uint64_t groups, bool splittable) {
  LaunchRequest req;
  req.kernel = kernel;
  req.groups = groups;
  req.groupSize = 64;
  req.splittable = splittable;
  return req;
}
} // namespace

TEST_CASE("a settled kernel on one device is timed ever more sparsely, at least once in 64 launches") {
  Simulator sim({device("gpu", 1), device("gpu2", 1)}, {{4096, 64}});
  PartitionerOptions options;
  options.minSampleIntervalNs = 0; // by count alone (the launches below take no real time)
  auto p = make(sim, "adaptive-comm", options);
  LaunchRequest req;
  req.kernel = "prog:serial";
  req.groups = 64;
  req.groupSize = 64;
  req.splittable = false; // runs whole on one device: only sampled once settled
  std::vector<uint64_t> measured;
  for (uint64_t i = 0; i < 3000; ++i) {
    auto plan = p->plan(req);
    if (!plan.measure) continue;
    measured.push_back(i);
    unsigned d = plan.groups[0] > 0 ? 0 : 1;
    p->reportKernelTime(plan.launchId, d, plan.groups[d], 100'000);
  }
  REQUIRE(measured.size() > 8);
  for (uint64_t i = 0; i < 7; ++i) CHECK(measured[i] == i); // until settled: every launch
  uint64_t longestGap = 0;
  for (size_t i = 1; i < measured.size(); ++i) longestGap = std::max(longestGap, measured[i] - measured[i - 1]);
  CHECK(longestGap <= 64);
  auto countIn = [&](uint64_t lo, uint64_t hi) {
    return std::count_if(measured.begin(), measured.end(), [&](uint64_t m) { return m >= lo && m < hi; });
  };
  CHECK(countIn(8, 136) >= 16);     // one in 8 at first
  CHECK(countIn(2000, 3000) <= 17); // one in 64 once settled for long
  CHECK(countIn(2000, 3000) >= 15);
}

TEST_CASE("a settled split is timed in every launch for a while, then sampled, and still follows a change of speed") {
  Simulator sim({device("gpu0", 1), device("gpu1", 1)}, {{4096, 64}});
  PartitionerOptions options;
  options.minSampleIntervalNs = 0; // by count alone (the launches below take no real time)
  auto p = make(sim, "adaptive-comm", options);
  LaunchRequest req = launchOf("prog:wide", 1 << 14, true);
  req.buffers = {{0, true, true, 1 << 20}};
  std::vector<uint64_t> measured;
  std::vector<double> share0; // device 0's share per launch
  double slow1 = 1.0;         // device 1's time per group, relative to device 0's
  for (uint64_t i = 0; i < 1200; ++i) {
    if (i == 800) slow1 = 3.0; // another process starts on device 1
    auto plan = p->plan(req);
    share0.push_back(double(plan.groups[0]) / double(plan.groups[0] + plan.groups[1]));
    if (!plan.measure) continue;
    measured.push_back(i);
    for (unsigned d = 0; d < 2; ++d)
      if (plan.groups[d])
        p->reportKernelTime(plan.launchId, d, plan.groups[d], uint64_t(plan.groups[d] * 1000 * (d ? slow1 : 1.0)));
  }
  auto countIn = [&](uint64_t lo, uint64_t hi) {
    return std::count_if(measured.begin(), measured.end(), [&](uint64_t m) { return m >= lo && m < hi; });
  };
  INFO(measured.size() << " of 1200 launches timed");
  REQUIRE(share0[100] > 0.4); // identical devices: an even split
  REQUIRE(share0[100] < 0.6);
  CHECK(countIn(0, 64) == 64);     // every split launch while the split is new
  CHECK(countIn(400, 800) <= 100); // sampled once it held (one in 8 or sparser)
  CHECK(countIn(400, 800) >= 6);
  // Device 1 three times slower from launch 800: the samples see it and the split follows.
  const double after = std::accumulate(share0.end() - 50, share0.end(), 0.0) / 50;
  CHECK(after > 0.65);
}

TEST_CASE("short settled launches are timed by time, not by count") {
  Simulator sim({device("gpu", 1), device("gpu2", 1)}, {{4096, 64}});
  PartitionerOptions options;
  options.minSampleIntervalNs = 50e6; // 50 ms: far longer than the loop below takes
  auto p = make(sim, "adaptive-comm", options);
  LaunchRequest req = launchOf("prog:serial", 64, false);
  const auto start = std::chrono::steady_clock::now();
  unsigned measured = 0, settledMeasured = 0;
  for (uint64_t i = 0; i < 3000; ++i) {
    auto plan = p->plan(req);
    if (!plan.measure) continue;
    ++measured;
    if (i >= 8) ++settledMeasured;
    unsigned d = plan.groups[0] > 0 ? 0 : 1;
    p->reportKernelTime(plan.launchId, d, plan.groups[d], 2'000);
  }
  const double elapsedMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  INFO("3000 plans in " << elapsedMs << " ms");
  CHECK(measured >= 7); // until settled, every launch
  // Settled: one sample per 50 ms at most (a count-based one in 64 would be ~46).
  CHECK(settledMeasured <= 1 + unsigned(elapsedMs / 50));
}

namespace {
// A launch of another kernel, `base` made large and splittable, which both devices share.
LaunchPlan planWideSplit(Partitioner& p, const LaunchRequest& base) {
  LaunchRequest wide = base;
  wide.kernel = "prog:wide";
  wide.groups = 1 << 16;
  wide.splittable = true;
  auto split = p.plan(wide);
  REQUIRE(split.groups[0] > 0);
  REQUIRE(split.groups[1] > 0);
  return split;
}
} // namespace

TEST_CASE("a kernel kept whole on one device gathers its buffers there while nothing is split") {
  Simulator sim({device("gpu", 1), device("gpu2", 1)}, {{4096, 64}});
  auto p = make(sim, "adaptive-comm");
  LaunchRequest whole;
  whole.kernel = "prog:serial";
  whole.groups = 64;
  whole.groupSize = 64;
  whole.splittable = false;
  std::vector<bool> gathered;
  for (int i = 0; i < 40; ++i) {
    auto plan = p->plan(whole);
    CHECK(std::count_if(plan.groups.begin(), plan.groups.end(), [](uint64_t g) { return g > 0; }) == 1);
    gathered.push_back(plan.gather);
  }
  CHECK_FALSE(gathered[2]);  // not yet a streak, nor quiet
  CHECK_FALSE(gathered[20]); // a streak, but only 21 launches since the start
  CHECK(gathered[39]);

  // A launch split over both devices: their layout is in use, nothing is gathered for a while.
  auto split = planWideSplit(*p, whole);
  CHECK_FALSE(split.gather);
  CHECK_FALSE(p->plan(whole).gather);
}

namespace {
uint64_t settledLaunches(const Partitioner& p) {
  const std::string json = p.reportJson();
  const auto at = json.find("\"settledLaunches\":");
  REQUIRE(at != std::string::npos);
  return std::stoull(json.substr(at + std::string("\"settledLaunches\":").size()));
}
} // namespace

TEST_CASE("an unsplittable kernel settled on one device takes the settled lane until the models change") {
  Simulator sim({device("gpu0", 1), device("gpu1", 1)}, {{4096, 64}});
  PartitionerOptions options;
  options.minSampleIntervalNs = 50e6; // no sample due by time during the loop
  auto p = make(sim, "adaptive-comm", options);
  LaunchRequest req = launchOf("prog:serial", 1, false);
  req.buffers = {{7, true, true, 4096}};
  std::vector<uint64_t> first;
  unsigned measured = 0;
  for (int i = 0; i < 400; ++i) {
    auto plan = p->plan(req);
    if (first.empty()) first = plan.groups;
    CHECK(plan.groups == first); // the same device throughout, settled lane or not
    if (plan.measure) {
      ++measured;
      const unsigned d = plan.groups[0] ? 0 : 1;
      p->reportKernelTime(plan.launchId, d, plan.groups[d], 3'000);
    }
  }
  const uint64_t settled = settledLaunches(*p);
  INFO(settled << " of 400 launches in the settled lane, " << measured << " measured");
  CHECK(settled >= 300);
  CHECK(settled <= 400 - measured); // a timed launch never takes it

  // A new transfer measurement changes the models: the next launch is planned in full, then the
  // lane is open again.
  p->reportTransfer(0, Direction::HostToDevice, 1 << 20, 100'000);
  auto full = p->plan(req);
  CHECK(full.groups == first);
  CHECK(settledLaunches(*p) == settled);
  auto again = p->plan(req);
  CHECK(again.groups == first);
  CHECK(settledLaunches(*p) == settled + 1);
  CHECK(again.gather); // nothing split: its buffers belong where it runs

  // A split launch of another kernel closes the lane for a while (the data may have moved).
  planWideSplit(*p, req);
  p->plan(req);
  CHECK(settledLaunches(*p) == settled + 1);
}

TEST_CASE("a kernel whose launches change shape does not keep the others off the settled lane") {
  // A k-loop: one kernel's rows shrink every launch (its model is regrouped each time), the
  // others keep their shape.
  Simulator sim({device("gpu0", 1), device("gpu1", 1)}, {{4096, 64}});
  PartitionerOptions options;
  options.minSampleIntervalNs = 50e6;
  auto p = make(sim, "adaptive-comm", options);
  LaunchRequest steady = launchOf("prog:norm", 1, false);
  steady.buffers = {{1, true, true, 4096}};
  LaunchRequest shrinking = launchOf("prog:project", 1, false);
  shrinking.buffers = {{1, true, true, 4096}};
  for (int i = 0; i < 400; ++i) {
    shrinking.otherGroups = 64 - i % 60;
    for (auto* req : {&steady, &shrinking}) {
      auto plan = p->plan(*req);
      const unsigned d = plan.groups[0] ? 0 : 1;
      if (plan.measure) p->reportKernelTime(plan.launchId, d, plan.groups[d], 3'000);
    }
  }
  // The steady kernel's launches, most of them; the shrinking one's never.
  CHECK(settledLaunches(*p) >= 250);
  CHECK(settledLaunches(*p) <= 400);
}

TEST_CASE("a short splittable kernel kept whole takes the settled lane") {
  Simulator sim({device("gpu0", 1), device("gpu1", 1)}, {{4096, 64}});
  PartitionerOptions options;
  options.minSampleIntervalNs = 50e6;
  auto p = make(sim, "adaptive-comm", options);
  LaunchRequest req = launchOf("prog:short", 16, true); // a split would cost more than it saves
  req.buffers = {{3, true, true, 1 << 16}};
  unsigned whole = 0;
  for (int i = 0; i < 600; ++i) {
    auto plan = p->plan(req);
    whole += plan.groups[0] == 0 || plan.groups[1] == 0;
    if (plan.measure)
      for (unsigned d = 0; d < 2; ++d)
        if (plan.groups[d]) p->reportKernelTime(plan.launchId, d, plan.groups[d], 2'000);
  }
  const uint64_t settled = settledLaunches(*p);
  INFO(whole << " of 600 launches whole, " << settled << " in the settled lane");
  REQUIRE(whole >= 550);
  CHECK(settled >= 300);
}

TEST_CASE("what a split costs the host, once measured, keeps launches whole that it would not repay") {
  // The wide launch of the test above (~0.2 ms by the priors) is split while a sub-launch is
  // assumed to cost the host 5 us; once split launches were measured to cost 2 ms each, no
  // longer (a split would save ~0.1 ms of device time).
  Simulator sim({device("gpu0", 1), device("gpu1", 1)}, {{4096, 64}});
  LaunchRequest req;
  req.kernel = "prog:wide";
  req.groups = 64;
  req.groupSize = 256;
  req.otherGroups = 4096;
  req.buffers = {{0, false, true, 4096 * 64}};
  auto p = make(sim, "adaptive-comm");
  auto before = p->plan(req).groups;
  CHECK((before[0] > 0 && before[1] > 0));
  auto q = make(sim, "adaptive-comm");
  for (int i = 0; i < 7; ++i) q->reportSplitHostTime(2, 4'000'000);
  auto early = q->plan(req).groups; // 7 samples: not yet trusted (first splits cost more)
  CHECK((early[0] > 0 && early[1] > 0));
  q->reportSplitHostTime(2, 4'000'000);
  req.kernel = "prog:wide2"; // a kernel with no split remembered
  auto after = q->plan(req).groups;
  CHECK((after[0] == 0 || after[1] == 0));
  const std::string json = q->reportJson();
  const auto key = json.find("\"hostOverheadPerSubLaunchNs\"");
  REQUIRE(key != std::string::npos);
  CHECK(json.compare(json.find(':', key) + 1, 5, "2e+06") == 0);
}

TEST_CASE("a much slower CPU does no harm") {
  // A GPU and a CPU 100x slower on another platform (staged transfers): a Jacobi step.
  auto cpu = device("cpu", 100, 30'000);
  cpu.gpu = false;
  cpu.platform = 1;
  std::vector<SimDevice> devs{device("gpu", 1), cpu};
  auto seq = jacobi(1024);
  std::vector<SimBuffer> bufs{{4096, 1024}, {4096, 1024}};
  Simulator sim(devs, bufs);
  auto p = make(sim, "adaptive-comm");
  auto r = run(sim, *p, seq, 12);
  double gpuAlone = fixedTime(devs, bufs, seq, "single");
  for (size_t it = 4; it < r.times.size(); ++it) {
    INFO("iteration " << it << " cpu share " << r.ratios[it][0][1]);
    CHECK(r.times[it] <= 1.02 * gpuAlone);
    CHECK(r.ratios[it][0][1] < 0.02);
  }
}

TEST_CASE("an idle device the priors underrate is probed, then used") {
  // A "CPU" as fast as the GPU: the priors make it 100x slower, so it gets no work (one group
  // would be 1.6 % of the launch) until a probe measures it.
  auto cpu = device("cpu", 1);
  cpu.gpu = false;
  std::vector<SimDevice> devs{device("gpu", 1), cpu};
  std::vector<SimKernel> seq{computeKernel("prog:long", 64, 10'000)}; // ~650 us launches
  for (const char* strategy : {"adaptive", "adaptive-comm"}) {
    Simulator sim(devs, {{4096, 64}});
    auto p = make(sim, strategy);
    auto r = run(sim, *p, seq, 100);
    INFO(strategy);
    if (std::string(strategy) == "adaptive-comm") {
      // The premise: the LP leaves the CPU out (its fixed costs outweigh 1 %) until the probe.
      CHECK(r.ratios[5][0][1] == 0.0);
      CHECK(r.times.back() < 0.7 * r.times[5]);
    }
    CHECK(r.ratios.back()[0][1] == Approx(0.5).margin(0.1));
  }
}

TEST_CASE("probes of a device that really is slow cost little, and only long launches probe") {
  auto cpu = device("cpu", 100, 30'000);
  cpu.gpu = false;
  std::vector<SimDevice> devs{device("gpu", 1), cpu};
  for (double work : {10'000.0, 500.0}) { // ~650 us launches (probed), ~40 us (never probed)
    std::vector<SimKernel> seq{computeKernel("prog:k", 64, work)};
    Simulator sim(devs, {{4096, 64}});
    auto p = make(sim, "adaptive-comm");
    auto r = run(sim, *p, seq, 300);
    const double gpuAlone = fixedTime(devs, {{4096, 64}}, seq, "single");
    unsigned probed = 0;
    double total = 0;
    for (size_t it = 0; it < r.ratios.size(); ++it) {
      probed += r.ratios[it][0][1] > 0;
      if (it >= 4) total += r.times[it];
    }
    INFO("work per group " << work << ": launches with CPU work " << probed);
    if (work > 1000) {
      CHECK(probed >= 1); // ~launch 50 (1 ms against 1/32 of the time so far), then 4x later
      CHECK(probed <= 3);
    } else {
      CHECK(probed == 0);
    }
    CHECK(total <= 1.02 * gpuAlone * double(r.times.size() - 4));
  }
}

TEST_CASE("Jacobi: adaptive-comm keeps stencil and copy on one split, adaptive does not") {
  std::vector<SimDevice> devs{device("a", 1), device("b", 2)};
  auto seq = jacobi(1024);
  std::vector<SimBuffer> bufs{{4096, 1024}, {4096, 1024}};
  Simulator commSim(devs, bufs), plainSim(devs, bufs);
  auto comm = make(commSim, "adaptive-comm");
  auto plain = make(plainSim, "adaptive");
  auto rc = run(commSim, *comm, seq, 15);
  auto rp = run(plainSim, *plain, seq, 15);
  const auto& c = rc.ratios.back();
  const auto& q = rp.ratios.back();
  INFO("adaptive-comm stencil " << c[0][0] << " copy " << c[1][0] << " time " << rc.times.back());
  INFO("adaptive      stencil " << q[0][0] << " copy " << q[1][0] << " time " << rp.times.back());
  CHECK(std::abs(c[0][0] - c[1][0]) <= 2.0 / 1024);
  CHECK(std::abs(q[0][0] - q[1][0]) > 0.1);
  CHECK(rc.times.back() < 0.8 * rp.times.back());
  // Converged within 5 iterations to (nearly) the best common split.
  double best = fixedTime(devs, bufs, seq, "static:2,1");
  for (size_t it = 4; it < rc.times.size(); ++it) CHECK(rc.times[it] <= 1.05 * best);
}

TEST_CASE("Jacobi with the LP solved on the solver thread converges as well") {
  std::vector<SimDevice> devs{device("a", 1), device("b", 2)};
  auto seq = jacobi(1024);
  std::vector<SimBuffer> bufs{{4096, 1024}, {4096, 1024}};
  Simulator sim(devs, bufs);
  PartitionerOptions options;
  options.asyncSolve = true;
  auto p = make(sim, "adaptive-comm", options);
  // Each launch plans with the ratios in use while a solve runs; waiting for the solver after
  // each launch makes the order of events, and so the test, deterministic.
  std::vector<double> times;
  std::vector<double> stencilShare, copyShare;
  for (int it = 0; it < 15; ++it) {
    double t = 0;
    for (size_t k = 0; k < seq.size(); ++k) {
      auto r = sim.launch(*p, seq[k], uint64_t(it));
      t += r.timeNs;
      double share = double(r.groups[0]) / double(seq[k].groups);
      (k == 0 ? stencilShare : copyShare).push_back(share);
      p->quiesce();
    }
    times.push_back(t);
  }
  double best = fixedTime(devs, bufs, seq, "static:2,1");
  INFO("stencil " << stencilShare.back() << " copy " << copyShare.back() << " time " << times.back());
  CHECK(std::abs(stencilShare.back() - copyShare.back()) <= 2.0 / 1024);
  for (size_t it = 5; it < times.size(); ++it) CHECK(times[it] <= 1.05 * best);
}

TEST_CASE("2SpMV: different splits when transfers are cheap") {
  // Two SpMV-like kernels with opposite row costs, exchanging a small vector (banded access).
  std::vector<SimDevice> devs{device("a", 1), device("b", 1)};
  SimKernel k1, k2;
  k1.name = "prog:spmv1";
  k2.name = "prog:spmv2";
  k1.groups = k2.groups = 256;
  k1.work = [](uint64_t g, uint64_t) { return 50 * (1 + 6 * double(g) / 256); };
  k2.work = [](uint64_t g, uint64_t) { return 50 * (7 - 6 * double(g) / 256); };
  k1.reads = {{0, 2}};
  k1.writes = {{1}};
  k2.reads = {{1, 2}};
  k2.writes = {{0}};
  std::vector<SimBuffer> bufs{{256, 256}, {256, 256}};
  Simulator sim(devs, bufs);
  auto p = make(sim, "adaptive-comm");
  auto r = run(sim, *p, {k1, k2}, 15);
  const auto& last = r.ratios.back();
  INFO("k1 share0 " << last[0][0] << " k2 share0 " << last[1][0]);
  CHECK(last[0][0] > last[1][0] + 0.2);
  // At least as good as the best common split (in 1/64 steps).
  double bestCommon = INFINITY;
  for (int i = 1; i < 64; ++i)
    bestCommon = std::min(
        bestCommon, fixedTime(devs, bufs, {k1, k2}, "static:" + std::to_string(i) + "," + std::to_string(64 - i)));
  CHECK(r.times.back() < 0.9 * bestCommon);
}

TEST_CASE("ping-pong buffers: one kernel is the whole sequence") {
  std::vector<SimDevice> devs{device("a", 3), device("b", 1)};
  SimKernel ab = computeKernel("prog:heat", 512, 200), ba = ab;
  ab.reads = {{0, 1}};
  ab.writes = {{1}};
  ba.reads = {{1, 1}};
  ba.writes = {{0}};
  Simulator sim(devs, {{4096, 512}, {4096, 512}});
  auto p = make(sim, "adaptive-comm");
  auto r = run(sim, *p, {ab, ba}, 10);
  std::string json = p->reportJson();
  INFO(json.substr(0, 600));
  CHECK(json.find("\"kernels\":[\"prog:heat\"]") != std::string::npos);
  CHECK(json.find("\"locked\":true") != std::string::npos);
  CHECK(r.ratios.back()[0][0] == Approx(0.25).margin(0.02));
}

TEST_CASE("late reports (three launches behind) still converge") {
  std::vector<SimDevice> devs{device("a", 1), device("b", 2)};
  auto seq = jacobi(1024);
  std::vector<SimBuffer> bufs{{4096, 1024}, {4096, 1024}};
  Simulator sim(devs, bufs);
  sim.setReportDelay(3);
  auto p = make(sim, "adaptive-comm");
  auto r = run(sim, *p, seq, 15);
  double best = fixedTime(devs, bufs, seq, "static:2,1");
  for (size_t it = 7; it < r.times.size(); ++it) CHECK(r.times[it] <= 1.05 * best);
}

TEST_CASE("a kernel seen once is split by throughput measured on earlier kernels") {
  std::vector<SimDevice> devs{device("a", 3), device("b", 1)};
  Simulator sim(devs, {{4096, 512}});
  auto p = make(sim, "adaptive-comm");
  run(sim, *p, {computeKernel("prog:first", 512, 1000)}, 3);
  auto once = sim.launch(*p, computeKernel("prog:other", 400, 500), 0);
  CHECK(groupsToRatios(once.groups)[0] == Approx(0.25).margin(0.03));
}

TEST_CASE("without any measurement, device priors favour the GPU") {
  auto cpu = device("cpu", 50);
  cpu.gpu = false;
  Simulator sim({device("gpu", 1), cpu}, {{4096, 4096}});
  auto p = make(sim, "adaptive-comm");
  auto first = sim.launch(*p, computeKernel("prog:new", 4096, 1000), 0);
  CHECK(groupsToRatios(first.groups)[0] > 0.9);
  auto tiny = sim.launch(*p, computeKernel("prog:tiny", 2, 1), 0);
  CHECK(std::max(tiny.groups[0], tiny.groups[1]) == 2);
}

TEST_CASE("without any measurement, a simulator claiming every device type gets nothing") {
  // Oclgrind reports GPU and CPU at once; a program that never waits plans every launch from
  // the priors, so they must not take it for a GPU.
  std::vector<DeviceInfo> devices(2);
  devices[0].name = "simulator";
  devices[0].simulator = true;
  devices[0].computeUnits = 8;
  devices[1].name = "cpu";
  devices[1].computeUnits = 1;
  for (const char* strategy : {"adaptive", "adaptive-comm"}) {
    auto spec = StrategySpec::parse(strategy, nullptr);
    auto p = makePartitioner(devices, *spec);
    LaunchRequest split;
    split.kernel = "prog:k";
    split.groups = 256;
    CHECK(p->plan(split).groups[0] <= 2); // (almost) nothing
    LaunchRequest whole = split;
    whole.kernel = "prog:unsplittable";
    whole.splittable = false;
    CHECK(p->plan(whole).groups[1] == 256);
    CHECK(p->homeDevice() == 1);
  }
}

TEST_CASE("a saved profile makes the next run start balanced") {
  std::vector<SimDevice> devs{device("slow", 4), device("fast", 1)};
  std::vector<SimKernel> seq{computeKernel("prog:ep", 500, 1000)};
  const std::string path = "partitioner_profile_test.tsv";
  {
    Simulator sim(devs, {{4096, 500}});
    auto p = make(sim, "adaptive-comm");
    run(sim, *p, seq, 8);
    REQUIRE(p->saveProfile(path));
  }
  Simulator sim(devs, {{4096, 500}});
  auto cold = make(sim, "adaptive-comm");
  auto warm = make(sim, "adaptive-comm");
  REQUIRE(warm->loadProfile(path));
  auto c = sim.launch(*cold, seq[0], 0), w = sim.launch(*warm, seq[0], 0);
  CHECK(groupsToRatios(w.groups)[0] == Approx(0.2).margin(0.01));
  CHECK(std::abs(groupsToRatios(c.groups)[0] - 0.2) > 0.2);
  CHECK_FALSE(warm->loadProfile("/nonexistent/profile.tsv"));
  std::remove(path.c_str());
}

TEST_CASE("run report: history, prediction and measurement, convergence") {
  std::vector<SimDevice> devs{device("a", 1), device("b", 2)};
  auto seq = jacobi(1024);
  std::vector<SimBuffer> bufs{{4096, 1024}, {4096, 1024}};
  Simulator sim(devs, bufs);
  auto p = make(sim, "adaptive-comm");
  run(sim, *p, seq, 12);
  std::string json = p->reportJson();
  for (const char* key : {"\"strategy\":\"adaptive-comm\"", "\"sequence\"", "\"history\"", "\"predictedNs\"",
                          "\"measuredKernelNs\"", "\"convergedAtIteration\"", "\"prog:jacobi_stencil\"", "\"solves\""})
    CHECK(json.find(key) != std::string::npos);
  auto at = json.find("\"convergedAtIteration\":");
  REQUIRE(at != std::string::npos);
  long converged = std::strtol(json.c_str() + at + 23, nullptr, 10);
  CHECK(converged >= 1);
  CHECK(converged <= 5);
}

TEST_CASE("identical devices that measure alike keep an even split: no rows move for noise") {
  // Two identical GPUs whose measured speeds differ by 10 % (warm-up, noise) on a stencil whose
  // rows are costly to move (through the host): balancing them would gain ~5 % of a kernel per
  // iteration and move rows at each change (fdtd2d over two H100 moved 20 MB in its first
  // iterations for a predicted gain of microseconds). One GPU loaded by another process (2x
  // slower) is another matter: the split follows it (where moving its rows repays).
  for (double slower : {1.1, 2.0}) {
    for (const char* strategy : {"adaptive", "adaptive-comm"}) {
      std::vector<SimDevice> devs{device("gpu", 1), device("gpu", 1)};
      // Rows move through the host (two vendors' contexts), slowly for the noise case.
      devs[1].platform = 1;
      for (auto& d : devs) d.h2dPerByte = d.d2hPerByte = slower < 1.5 ? 1.0 : 0.02;
      auto seq = pingPongStencil(512, 1000); // ~0.5 ms launches
      for (auto& k : seq) k.deviceFactor = {1.0, slower};
      Simulator sim(devs, {{1 << 16, 512}, {1 << 16, 512}});
      auto p = make(sim, strategy);
      auto r = run(sim, *p, seq, 40);
      unsigned uneven = 0;
      for (const auto& it : r.ratios)
        for (const auto& k : it) uneven += std::abs(k[0] - 0.5) > 1e-9;
      const double last = r.ratios.back()[0][1];
      INFO(strategy << ", device 1 " << slower << "x slower: " << uneven << " uneven launches, last share " << last);
      if (slower < 1.5)
        CHECK(uneven == 0);
      else
        CHECK(last == Approx(1.0 / 3).margin(0.06));
    }
  }
}

TEST_CASE("Jacobi: the fast device gets what its memory holds, the rest goes to the other") {
  std::vector<SimDevice> devs{device("a", 1), device("b", 2)};
  auto seq = jacobi(1024);
  std::vector<SimBuffer> bufs{{4096, 1024}, {4096, 1024}}; // each kernel uses both: 8 MiB
  Simulator sim(devs, bufs);
  auto infos = sim.deviceInfos();
  infos[0].memoryBytes = uint64_t(0.4 * 8 * 1024 * 1024);
  auto spec = StrategySpec::parse("adaptive-comm", nullptr);
  REQUIRE(spec);
  auto p = makePartitioner(infos, *spec, {});
  auto r = run(sim, *p, seq, 15);
  const auto& last = r.ratios.back();
  INFO("stencil " << last[0][0] << " copy " << last[1][0]);
  // By speed alone device a would take 2/3 (the test above); its memory holds 40 %.
  for (const auto& kernel : last) {
    CHECK(kernel[0] <= 0.4 + 1.0 / 1024);
    CHECK(kernel[0] >= 0.35);
  }
}

TEST_CASE("the fast device's share stays within its largest allocation (one buffer beyond it)") {
  std::vector<SimDevice> devs{device("a", 1), device("b", 4)}; // a four times as fast
  auto seq = jacobi(1024);
  std::vector<SimBuffer> bufs{{4096, 1024}, {4096, 1024}}; // 4 MiB each
  for (const char* strategy : {"adaptive-comm", "adaptive"}) {
    Simulator sim(devs, bufs);
    auto infos = sim.deviceInfos();
    for (auto& info : infos) info.memoryBytes = 64u << 20; // memory is no bound here
    // a allocates at most 2.5 MiB at once: 2.5 * 31/32 / 4 = 60.5 % of a buffer (MemoryFit.h).
    infos[0].maxAllocBytes = 5u << 19;
    auto spec = StrategySpec::parse(strategy, nullptr);
    REQUIRE(spec);
    auto p = makePartitioner(infos, *spec, {});
    auto r = run(sim, *p, seq, 15);
    INFO(strategy << ": stencil " << r.ratios.back()[0][0] << ", copy " << r.ratios.back()[1][0]);
    // (Without the bound: 0.8 for both under adaptive-comm, the stencil under adaptive, whose
    // copy kernel stays even.)
    for (const auto& kernel : r.ratios.back()) CHECK(kernel[0] <= 0.605 + 1.0 / 1024);
    CHECK(r.ratios.back()[0][0] >= 0.55);
  }
}

TEST_CASE("the largest allocation still bounds a share where the devices' memory cannot hold the launch") {
  std::vector<SimDevice> devs{device("a", 1), device("b", 4)}; // a four times as fast
  auto seq = jacobi(1024);
  std::vector<SimBuffer> bufs{{4096, 1024}, {4096, 1024}}; // 4 MiB each, 8 MiB a launch
  for (const char* strategy : {"adaptive-comm", "adaptive"}) {
    Simulator sim(devs, bufs);
    auto infos = sim.deviceInfos();
    // Each device holds 3 MiB, 37.5 % of a launch: together they cannot hold it, and the memory
    // bounds are left to evictions. No eviction makes a window larger than an allocation fit:
    // a's 2.5 MiB still bound its share to 60.5 % of a buffer.
    for (auto& info : infos) info.memoryBytes = 3u << 20;
    infos[0].maxAllocBytes = 5u << 19;
    auto spec = StrategySpec::parse(strategy, nullptr);
    REQUIRE(spec);
    auto p = makePartitioner(infos, *spec, {});
    auto r = run(sim, *p, seq, 15);
    INFO(strategy << ": stencil " << r.ratios.back()[0][0] << ", copy " << r.ratios.back()[1][0]);
    // (Before the two bounds were kept apart: 0.8 by speed, the allocation bound dropped too.)
    for (const auto& iteration : r.ratios)
      for (const auto& kernel : iteration) CHECK(kernel[0] <= 0.605 + 1.0 / 1024);
    CHECK(r.ratios.back()[0][0] >= 0.55);
  }
}

TEST_CASE("uniform and static keep each share within its device's largest allocation") {
  auto seq = jacobi(1024);
  std::vector<SimBuffer> bufs{{4096, 1024}, {4096, 1024}}; // 4 MiB each
  auto shares = [&](std::vector<SimDevice> devs, const char* strategy, std::vector<uint64_t> maxAlloc) {
    Simulator sim(std::move(devs), bufs);
    auto infos = sim.deviceInfos();
    for (size_t d = 0; d < infos.size(); ++d) {
      infos[d].memoryBytes = 64u << 20;
      infos[d].maxAllocBytes = maxAlloc[d];
    }
    auto spec = StrategySpec::parse(strategy, nullptr);
    REQUIRE(spec);
    auto p = makePartitioner(infos, *spec, {});
    auto r = run(sim, *p, seq, 3);
    for (const auto& iteration : r.ratios) // a fixed split: every launch alike
      for (const auto& kernel : iteration) CHECK(kernel == r.ratios.front().front());
    return r.ratios.back().front();
  };
  // Device 0 allocates at most 1 MiB at once: 1 * 31/32 / 4 = 24.2 % of a buffer (MemoryFit.h),
  // below its even third. Its excess goes to the others, evenly as their shares are.
  std::vector<SimDevice> three{device("a", 1), device("b", 1), device("c", 1)};
  auto u = shares(three, "uniform", {1u << 20, 0, 0});
  CHECK(u[0] <= 0.2421875 + 1.0 / 1024);
  CHECK(u[0] >= 0.2421875 - 1.0 / 1024);
  CHECK(u[1] == Approx(u[2]).margin(1.0 / 1024));
  // static: device 0's 75 % held to what 2.5 MiB hold (60.5 %), the rest to device 1; where a
  // device's ratio is 0 and the others are at their bounds, it takes the excess.
  std::vector<SimDevice> two{device("a", 1), device("b", 1)};
  auto s = shares(two, "static:3,1", {5u << 19, 0});
  CHECK(s[0] <= 0.60546875 + 1.0 / 1024);
  CHECK(s[0] >= 0.60546875 - 1.0 / 1024);
  s = shares(two, "static:1,0", {5u << 19, 0});
  CHECK(s[0] <= 0.60546875 + 1.0 / 1024);
  CHECK(s[1] >= 0.39453125 - 1.0 / 1024);
  // Allocations that cannot hold the launch's largest buffer together: the split is as asked
  // (the runtime plans such a launch again by memory when a window fails, docs/limitations.md).
  CHECK(shares(two, "uniform", {1u << 20, 1u << 20}) == std::vector<double>{0.5, 0.5});
  // Allocations that hold an even share: nothing changes.
  CHECK(shares(two, "uniform", {3u << 20, 3u << 20}) == std::vector<double>{0.5, 0.5});
}

TEST_CASE("a device whose profile is no clock gets nothing, or only what the others cannot hold") {
  std::vector<SimDevice> devs{device("a", 4), device("b", 1)}; // b is really the faster one
  auto seq = jacobi(1024);
  std::vector<SimBuffer> bufs{{4096, 1024}, {4096, 1024}}; // each kernel uses both: 8 MiB
  auto spec = StrategySpec::parse("adaptive-comm", nullptr);
  REQUIRE(spec);
  {
    Simulator sim(devs, bufs);
    auto p = makePartitioner(sim.deviceInfos(), *spec, {});
    p->reportUnmeasurable(1);
    auto r = run(sim, *p, seq, 10);
    for (const auto& iteration : r.ratios)
      for (const auto& kernel : iteration) CHECK(kernel[1] == 0);
  }
  {
    Simulator sim(devs, bufs);
    auto infos = sim.deviceInfos();
    infos[0].memoryBytes = uint64_t(0.6 * 8 * 1024 * 1024); // a holds 60 %: b must take the rest
    auto p = makePartitioner(infos, *spec, {});
    p->reportUnmeasurable(1);
    auto r = run(sim, *p, seq, 10);
    for (const auto& iteration : r.ratios)
      for (const auto& kernel : iteration) {
        CHECK(kernel[1] >= 0.4 - 2.0 / 1024);
        CHECK(kernel[1] <= 0.4 + 2.0 / 1024);
      }
  }
}
