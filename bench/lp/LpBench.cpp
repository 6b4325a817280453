// Micro-benchmark of the partitioner's decision costs: building and solving the sequence LP
// (fresh, and re-solved in place after a measurement update), with and without the active-set
// search, for 8 kernels on 4, 8 and 16 devices; and the cost of plan() per launch.
// Prints medians over repetitions of the thread's CPU time (the development machines are
// shared: wall-clock time there mostly measures the neighbours); a benchmark, not a test.
#include "partitioner/Partitioner.h"
#include "partitioner/SequenceLp.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

using namespace clsplit::partition;
namespace {

// Thread CPU time.
struct Clock {
  using time_point = double; // microseconds
  static double now() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e6 + double(t.tv_nsec) / 1e3;
  }
};
double us(double d) { return d; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// An iteration of `kernels` kernels, each reading what the previous one wrote (a cycle) with a
// halo, on `devices` heterogeneous devices of two platforms, with measured-looking numbers.
CostModel sequenceModel(unsigned kernels, unsigned devices, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.5, 2.0);
  CostModel m;
  m.devices = devices;
  m.hostOverheadNs = 5000;
  for (unsigned k = 0; k < kernels; ++k) {
    CostModel::Position p;
    p.kernel = k;
    p.groups = 4096;
    for (unsigned d = 0; d < devices; ++d) {
      double speed = d % 4 == 3 ? 40.0 : 1.0; // every fourth device is a slow CPU
      p.nsPerGroup.push_back(200 * speed * u(rng));
      p.launchNs.push_back(d % 4 == 3 ? 30'000 : 10'000);
    }
    p.allowed.assign(devices, true);
    m.positions.push_back(p);
    m.edges.push_back({k, (k + 1) % kernels, 64e6 * u(rng), 16384});
  }
  m.deviceLinks.assign(devices, std::vector<CostModel::Link>(devices));
  m.hostLinks.assign(devices, {0.1, 10'000});
  for (unsigned s = 0; s < devices; ++s)
    for (unsigned d = 0; d < devices; ++d)
      if (s != d)
        m.deviceLinks[s][d] = (s % 4 == 3 || d % 4 == 3) ? CostModel::Link{0.2, 20'000} : CostModel::Link{0.05, 10'000};
  return m;
}

void perturb(CostModel& m, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.97, 1.03);
  for (auto& p : m.positions)
    for (auto& f : p.nsPerGroup) f *= u(rng);
}

void benchLp(unsigned kernels, unsigned devices) {
  std::mt19937_64 rng(kernels * 100 + devices);
  const int reps = 30;
  std::vector<double> freshOne, freshSearch, warmOne, warmSearch;
  std::vector<double> searchRuns, freshOneRuns;
  for (int r = 0; r < reps; ++r) {
    CostModel m = sequenceModel(kernels, devices, rng);
    ActiveSet all(kernels, std::vector<bool>(devices, true));
    {
      SequenceLp lp;
      auto t0 = Clock::now();
      auto res = lp.solveFixed(m, all);
      freshOne.push_back(us(Clock::now() - t0));
      freshOneRuns.push_back(res.solves);
      if (!res.ok) std::printf("  (fresh LP failed)\n");
    }
    SequenceLp lp;
    auto t0 = Clock::now();
    auto res = lp.solve(m, {});
    freshSearch.push_back(us(Clock::now() - t0));
    searchRuns.push_back(res.solves);
    perturb(m, rng);
    t0 = Clock::now();
    lp.solveFixed(m, res.active);
    warmOne.push_back(us(Clock::now() - t0));
    perturb(m, rng);
    t0 = Clock::now();
    lp.solve(m, res.active);
    warmSearch.push_back(us(Clock::now() - t0));
  }
  std::printf("%3u kernels x %2u devices | one LP: build+solve %8.1f us (%.0f simplex runs), warm re-solve "
              "%7.1f us | with active-set search: fresh %8.1f us, warm %8.1f us (%.0f simplex runs)\n",
              kernels, devices, median(freshOne), median(freshOneRuns), median(warmOne), median(freshSearch),
              median(warmSearch), median(searchRuns));
}

void benchPlan(unsigned kernels, unsigned devices, const char* strategy) {
  std::vector<DeviceInfo> infos;
  for (unsigned d = 0; d < devices; ++d) {
    DeviceInfo i;
    i.name = "dev" + std::to_string(d);
    i.isGpu = true;
    i.computeUnits = 100;
    infos.push_back(i);
  }
  auto p = makePartitioner(infos, *StrategySpec::parse(strategy, nullptr));
  std::vector<LaunchRequest> seq;
  for (unsigned k = 0; k < kernels; ++k) {
    LaunchRequest r;
    r.kernel = "0123456789abcdef:kernel_" + std::to_string(k);
    r.groups = 4096;
    r.groupSize = 256;
    r.buffers = {{k, true, false, 1 << 24}, {(k + 1) % kernels, false, true, 1 << 24}};
    seq.push_back(r);
  }
  double planUs = 0, reportUs = 0;
  uint64_t launches = 0;
  const int iterations = 2000;
  for (int it = 0; it < iterations; ++it) {
    for (const auto& r : seq) {
      auto t0 = Clock::now();
      auto plan = p->plan(r);
      auto t1 = Clock::now();
      for (unsigned d = 0; d < devices; ++d)
        if (plan.groups[d])
          p->reportKernelTime(plan.launchId, d, plan.groups[d], uint64_t(20'000 + plan.groups[d] * 100 * (1 + d % 3)));
      auto t2 = Clock::now();
      if (it >= 10) { // steady state
        planUs += us(t1 - t0);
        reportUs += us(t2 - t1);
        ++launches;
      }
    }
  }
  std::printf("plan() %-14s %u kernels x %2u devices: %6.2f us per launch, reports %6.2f us per "
              "launch (all devices)\n",
              strategy, kernels, devices, planUs / double(launches), reportUs / double(launches));
}

} // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::printf("Sequence LP (GLPK), thread CPU time, medians of 30 runs:\n");
  if (argc > 1 && std::string(argv[1]) == "--quick") { // the case only: 8 kernels x 4 devices
    benchLp(8, 4);
    return 0;
  }
  for (unsigned devices : {2u, 4u, 8u, 16u}) benchLp(8, devices);
  benchLp(16, 4);
  std::printf("\nplan() on the enqueue path, thread CPU time, steady state (2000 iterations):\n");
  for (const char* s : {"uniform", "adaptive", "adaptive-comm"}) benchPlan(8, 4, s);
  benchPlan(8, 8, "adaptive-comm");
  return 0;
}
