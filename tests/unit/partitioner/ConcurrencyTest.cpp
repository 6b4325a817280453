// plan() on the application's thread while measurements arrive from other threads (event
// callbacks), late and out of order: every plan stays well formed and nothing is lost or torn.
#include "partitioner/Partitioner.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

using namespace clsplit::partition;

namespace {
// Plans 20 launches of a 1000-group kernel, 10 ms apart on the host clock, reporting each with
// report(plan, clock); returns the smaller share of each launch.
template <class Report>
std::vector<uint64_t> stencilSplits(Partitioner& p, Report&& report) {
  std::vector<uint64_t> split;
  uint64_t clock = 1'000'000'000;
  for (int i = 0; i < 20; ++i) {
    LaunchRequest req;
    req.kernel = "k:stencil";
    req.groups = 1000;
    auto plan = p.plan(req);
    report(plan, clock);
    clock += 10'000'000;
    split.push_back(std::min(plan.groups[0], plan.groups[1]));
  }
  return split;
}
} // namespace

TEST_CASE("concurrent plan() and reports keep plans well formed") {
  std::vector<DeviceInfo> devices(3);
  for (unsigned d = 0; d < 3; ++d) devices[d].name = "dev" + std::to_string(d);
  PartitionerOptions options;
  options.asyncSolve = GENERATE(false, true); // solves inline, or on the solver thread
  auto p = makePartitioner(devices, StrategySpec{}, options);

  struct Pending {
    uint64_t launch;
    std::vector<uint64_t> groups;
  };
  std::mutex m;
  std::condition_variable cv;
  std::deque<Pending> queue;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> reported{0};

  auto reporter = [&](unsigned seed) {
    std::mt19937 rng(seed);
    while (true) {
      Pending job;
      {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return !queue.empty() || done; });
        if (queue.empty()) return;
        // Out of order: take from either end.
        if (rng() % 2) {
          job = queue.front();
          queue.pop_front();
        } else {
          job = queue.back();
          queue.pop_back();
        }
      }
      for (unsigned d = 0; d < 3; ++d) {
        if (!job.groups[d]) continue;
        p->reportKernelTime(job.launch, d, job.groups[d], 10'000 + job.groups[d] * 100 * (d + 1));
        p->reportTransfer(d, Direction::HostToDevice, 4096 * (d + 1), 20'000);
        p->reportDependencyVolume(job.launch, d, job.launch > 2 ? job.launch - 2 : 0, 4096);
      }
      ++reported;
    }
  };
  std::thread a(reporter, 1), b(reporter, 2);

  const char* kernels[] = {"k:stencil", "k:copy"};
  bool wellFormed = true;
  for (int i = 0; i < 4000; ++i) {
    LaunchRequest req;
    req.kernel = kernels[i % 2];
    req.groups = 300 + (i % 7);
    req.buffers = {{uint64_t(i % 2), true, false, 1 << 20}, {uint64_t(1 - i % 2), false, true, 1 << 20}};
    auto plan = p->plan(req);
    wellFormed &=
        plan.groups.size() == 3 && std::accumulate(plan.groups.begin(), plan.groups.end(), uint64_t(0)) == req.groups;
    {
      std::lock_guard lock(m);
      queue.push_back({plan.launchId, plan.groups});
    }
    cv.notify_one();
    if (i % 500 == 0) CHECK_FALSE(p->reportJson().empty()); // readers too
  }
  {
    std::lock_guard lock(m);
    done = true;
  }
  cv.notify_all();
  a.join();
  b.join();
  CHECK(wellFormed);
  CHECK(reported == 4000);
  p->quiesce();
  // It still learned: device 0 is measured fastest, so it gets the largest share.
  LaunchRequest req;
  req.kernel = "k:stencil";
  req.groups = 300;
  auto plan = p->plan(req);
  CHECK(plan.groups[0] > plan.groups[2]);
}

TEST_CASE("a launch that cannot be split runs whole, the sequence around it still balances") {
  std::vector<DeviceInfo> devices(2);
  devices[0].name = "a";
  devices[1].name = "b";
  auto p = makePartitioner(devices, StrategySpec{});
  for (int it = 0; it < 10; ++it) {
    LaunchRequest split, whole;
    split.kernel = "k:split";
    split.groups = 400;
    whole.kernel = "k:whole";
    whole.groups = 400;
    whole.splittable = false;
    auto ps = p->plan(split);
    auto pw = p->plan(whole);
    CHECK(std::count(pw.groups.begin(), pw.groups.end(), 0u) == 1);
    for (unsigned d = 0; d < 2; ++d) {
      if (ps.groups[d]) p->reportKernelTime(ps.launchId, d, ps.groups[d], 5'000 + ps.groups[d] * (d ? 300 : 100));
      if (pw.groups[d]) p->reportKernelTime(pw.launchId, d, pw.groups[d], 5'000 + pw.groups[d] * (d ? 300 : 100));
    }
    if (it == 9) CHECK(ps.groups[0] == Approx(300).margin(8));
  }
}

TEST_CASE("a launch that cannot be split stays where its inputs are, and does not take turns") {
  // A producer, then a kernel that cannot be split reading its 64 MiB, both slow wherever they
  // run (5 ms): the device not yet measured looks faster by its priors, but moving the 64 MiB
  // there would cost more than any gain, so the reader stays with the data, launch after launch.
  std::vector<DeviceInfo> devices(2);
  devices[0].name = devices[1].name = "same";
  auto p = makePartitioner(devices, StrategySpec{});
  std::vector<std::pair<unsigned, unsigned>> placed; // (producer, consumer)
  for (int it = 0; it < 30; ++it) {
    LaunchRequest produce, consume;
    produce.kernel = "k:produce";
    produce.groups = 64;
    produce.splittable = false;
    produce.buffers = {BufferUse{7, false, true, 64u << 20}};
    consume.kernel = "k:wavefront";
    consume.groups = 64;
    consume.splittable = false;
    consume.buffers = {BufferUse{7, true, false, 64u << 20}};
    auto pp = p->plan(produce);
    auto pc = p->plan(consume);
    for (auto* plan : {&pp, &pc})
      for (unsigned d = 0; d < 2; ++d)
        if (plan->groups[d]) p->reportKernelTime(plan->launchId, d, plan->groups[d], 5'000'000 + d * 1'000);
    placed.emplace_back(pp.groups[0] ? 0u : 1u, pc.groups[0] ? 0u : 1u);
  }
  for (const auto& [producer, consumer] : placed) CHECK(consumer == producer);
}

TEST_CASE("devices whose sub-kernels take turns stop sharing launches; devices that overlap keep on") {
  for (bool takeTurns : {true, false}) {
    std::vector<DeviceInfo> devices(2); // CPU devices of two vendors: not known to share a CPU
    devices[0].name = devices[1].name = "cpu half";
    devices[0].isCpu = devices[1].isCpu = true;
    devices[1].platform = 1;
    auto p = makePartitioner(devices, StrategySpec{});
    const auto split = stencilSplits(*p, [&](const LaunchPlan& plan, uint64_t clock) {
      // Each device's share takes 1 us per group; taking turns, the second starts when the
      // first ends (the launch takes as long as the two shares together).
      uint64_t start = clock;
      for (unsigned d = 0; d < 2; ++d) {
        if (!plan.groups[d]) continue;
        const uint64_t ns = plan.groups[d] * 1'000;
        p->reportKernelTime(plan.launchId, d, plan.groups[d], ns, start, start + ns);
        if (takeTurns) start += ns;
      }
    });
    INFO((takeTurns ? "taking turns" : "overlapping"));
    CHECK(*std::max_element(split.begin(), split.begin() + 6) > 0); // equal devices: split early on
    if (takeTurns)
      CHECK(split.back() == 0u); // then one device runs it whole
    else
      CHECK(split.back() > 400u); // still about even
  }
}

TEST_CASE("sub-kernels the host enqueued late do not make two devices count as taking turns") {
  // Two CPU devices of two vendors (PoCL and rusticl on one CPU) and a host-bound split launch:
  // the second share is enqueued when the first is nearly done, so they barely overlap, though
  // the devices could run at once. Enqueued together and still one after the other, they do take
  // turns. Two distinct GPUs whose shares never overlap (each waits for the other's halo) are
  // not taken to take turns at all.
  for (bool enqueuedLate : {true, false}) {
    std::vector<DeviceInfo> devices(2);
    devices[0].name = devices[1].name = "cpu";
    devices[0].isCpu = devices[1].isCpu = true;
    devices[1].platform = 1;
    auto p = makePartitioner(devices, StrategySpec{});
    const auto split = stencilSplits(*p, [&](const LaunchPlan& plan, uint64_t clock) {
      const uint64_t enqueued0 = clock, start0 = clock + 5'000;
      const uint64_t ns0 = plan.groups[0] * 1'000, ns1 = plan.groups[1] * 1'000;
      // Late: the host enqueues the second share as the first ends; it starts at once then.
      // Not late: enqueued together, the second waits for the first (taking turns).
      const uint64_t enqueued1 = enqueuedLate ? start0 + ns0 : enqueued0 + 1'000;
      const uint64_t start1 = start0 + ns0 + 2'000;
      if (plan.groups[0]) p->reportKernelTime(plan.launchId, 0, plan.groups[0], ns0, start0, start0 + ns0, enqueued0);
      if (plan.groups[1]) p->reportKernelTime(plan.launchId, 1, plan.groups[1], ns1, start1, start1 + ns1, enqueued1);
    });
    INFO((enqueuedLate ? "enqueued late" : "enqueued together"));
    if (enqueuedLate)
      CHECK(split.back() > 400u); // still about even
    else
      CHECK(split.back() == 0u); // one device runs it whole
  }
  std::vector<DeviceInfo> gpus(2);
  gpus[0].name = gpus[1].name = "gpu";
  gpus[0].realDevice = 0;
  gpus[1].realDevice = 1;
  auto p = makePartitioner(gpus, StrategySpec{});
  const auto split = stencilSplits(*p, [&](const LaunchPlan& plan, uint64_t clock) {
    const uint64_t ns0 = plan.groups[0] * 1'000, ns1 = plan.groups[1] * 1'000;
    const uint64_t start1 = clock + ns0 + 2'000; // after the other's share, enqueued together
    if (plan.groups[0]) p->reportKernelTime(plan.launchId, 0, plan.groups[0], ns0, clock, clock + ns0, clock);
    if (plan.groups[1]) p->reportKernelTime(plan.launchId, 1, plan.groups[1], ns1, start1, start1 + ns1, clock);
  });
  CHECK(split.back() > 400u);
}

TEST_CASE("a launch that cannot be split does not move to a device that takes turns with its data's") {
  // NAS LU's wavefront over PoCL's two pthread devices: one real CPU. The device without the
  // data measures (or is assumed) faster now and then, yet running there cannot be sooner: the
  // devices share their cores. Measured faster by half, it is still not chosen; two devices that
  // run at once are (the gain is larger than the move).
  for (bool sameHardware : {true, false}) {
    std::vector<DeviceInfo> devices(2);
    devices[0].name = devices[1].name = "cpu half";
    devices[0].isCpu = devices[1].isCpu = true;
    devices[0].realDevice = 0;
    devices[1].realDevice = sameHardware ? 0 : 1;
    auto p = makePartitioner(devices, StrategySpec{});
    unsigned moved = 0;
    for (int it = 0; it < 40; ++it) {
      LaunchRequest produce, sweep;
      produce.kernel = "k:rhs";
      produce.groups = 64;
      produce.splittable = false;
      produce.buffers = {BufferUse{7, false, true, 4096}};
      sweep.kernel = "k:blts";
      sweep.groups = 1;
      sweep.splittable = false;
      sweep.buffers = {BufferUse{7, true, true, 4096}};
      auto pp = p->plan(produce);
      auto ps = p->plan(sweep);
      // Device 1 measures twice as fast on both kernels (5 ms against 10 ms).
      for (auto* plan : {&pp, &ps})
        for (unsigned d = 0; d < 2; ++d)
          if (plan->groups[d]) p->reportKernelTime(plan->launchId, d, plan->groups[d], d ? 5'000'000 : 10'000'000);
      if ((pp.groups[0] != 0) != (ps.groups[0] != 0)) ++moved;
    }
    INFO((sameHardware ? "one real device" : "two devices"));
    if (sameHardware) CHECK(moved == 0);
  }
}

TEST_CASE("of two devices that take turns, the one holding a launch's data runs it") {
  // Two kernels, each reading what the other wrote, measured faster on opposite devices that are
  // measured to take turns (re-checked by a split every so often). Going by speed alone, each
  // would run on its faster device and every launch would move the other's output across; the
  // devices do not run at once, so neither is really faster: both stay where the data is.
  std::vector<DeviceInfo> devices(2);
  devices[0].name = devices[1].name = "two devices sharing something";
  devices[0].realDevice = 0;
  devices[1].realDevice = 1;
  auto p = makePartitioner(devices, StrategySpec{});
  unsigned apart = 0, measured = 0;
  uint64_t clock = 1'000'000'000;
  for (int it = 0; it < 1200; ++it) {
    LaunchRequest a, b;
    a.kernel = "k:a";
    a.groups = b.groups = 100;
    a.buffers = {BufferUse{7, true, false, 1 << 20}, BufferUse{8, false, true, 1 << 20}};
    b.kernel = "k:b";
    b.buffers = {BufferUse{8, true, false, 1 << 20}, BufferUse{7, false, true, 1 << 20}};
    auto pa = p->plan(a);
    auto pb = p->plan(b);
    for (auto [plan, fast] : {std::pair{&pa, 1u}, std::pair{&pb, 0u}}) {
      uint64_t start = clock;
      for (unsigned d = 0; d < 2; ++d) {
        if (!plan->groups[d]) continue;
        const uint64_t ns = plan->groups[d] * (d == fast ? 10'000 : 20'000);
        p->reportKernelTime(plan->launchId, d, plan->groups[d], ns, start, start + ns);
        start += ns; // taking turns
      }
      measured += plan->groups[0] && plan->groups[1];
      clock += 10'000'000;
    }
    const bool whole = !(pa.groups[0] && pa.groups[1]) && !(pb.groups[0] && pb.groups[1]);
    if (it >= 300 && whole && (pa.groups[0] != 0) != (pb.groups[0] != 0)) ++apart;
  }
  CHECK(measured > 0); // the re-checks did measure both halves
  CHECK(apart == 0);
}

TEST_CASE("a probe whose inputs took long to move makes the next probe of that kernel wait longer") {
  // A kernel running whole on device 0 (10 ms a launch); device 1 is probed with one group now
  // and then. When a probe had to move 1 GB to device 1 (a kernel reading whole buffers), the
  // next one waits until the kernel's time so far is 32 times that cost.
  for (bool heavy : {false, true}) {
    std::vector<DeviceInfo> devices(2);
    devices[0].name = "gpu";
    devices[1].name = "other gpu";
    devices[0].isGpu = devices[1].isGpu = true;
    devices[0].realDevice = 0;
    devices[1].realDevice = 1;
    auto p = makePartitioner(devices, StrategySpec{});
    // Transfers between them: 1 GB/s.
    for (uint64_t i = 1; i <= 20; ++i) p->reportTransfer(1, Direction::DeviceToDevice, i << 20, i * 1'048'576);
    unsigned probes = 0;
    for (int it = 0; it < 2000; ++it) {
      LaunchRequest req;
      req.kernel = "k:force";
      req.groups = 1000;
      auto plan = p->plan(req);
      for (unsigned d = 0; d < 2; ++d)
        if (plan.groups[d]) p->reportKernelTime(plan.launchId, d, plan.groups[d], d ? 50'000'000 : 10'000'000);
      if (plan.groups[1] == 1 && plan.groups[0]) { // a probe: one group on the idle device
        ++probes;
        UNSCOPED_INFO("probe at launch " << it);
        p->reportDependencyVolume(plan.launchId, 1, 0, heavy ? (1ull << 30) : 4096);
      }
    }
    INFO((heavy ? "1 GB per probe" : "4 KiB per probe") << ": " << probes << " probes");
    if (heavy)
      CHECK(probes <= 1);
    else
      CHECK(probes >= 3);
  }
}

TEST_CASE("identical devices share a kernel evenly before it is measured, if its launches are large") {
  // A program that enqueues all its launches before the first completes is planned from the
  // priors alone, which cannot tell a 2 us kernel from a 2 ms one. Two identical GPUs are
  // interchangeable: an even split is right whatever the kernel costs (ep over two H100 had run
  // every launch on one GPU). Launches too small to keep both busy, different devices and one
  // device selected twice keep the priors' choice.
  auto firstPlans = [](std::vector<DeviceInfo> devices, uint64_t groups) {
    auto p = makePartitioner(devices, StrategySpec{});
    std::vector<std::vector<uint64_t>> plans;
    for (int it = 0; it < 20; ++it) { // no measurement arrives
      LaunchRequest req;
      req.kernel = "k:ep";
      req.groups = groups;
      plans.push_back(p->plan(req).groups);
    }
    return plans;
  };
  std::vector<DeviceInfo> gpus(2);
  for (unsigned d = 0; d < 2; ++d) {
    gpus[d].name = "NVIDIA H100";
    gpus[d].isGpu = true;
    gpus[d].computeUnits = 132;
    gpus[d].concurrentGroups = 132;
    gpus[d].realDevice = int(d);
  }
  for (const auto& g : firstPlans(gpus, 8192)) CHECK(g == std::vector<uint64_t>{4096, 4096});
  for (const auto& g : firstPlans(gpus, 512)) CHECK((g[0] == 0 || g[1] == 0)); // under 4 waves each
  auto twice = gpus;
  twice[1].realDevice = 0; // one GPU selected twice: its halves take turns
  for (const auto& g : firstPlans(twice, 8192)) CHECK((g[0] == 0 || g[1] == 0));
  auto mixed = gpus;
  mixed[1].name = "another GPU";
  for (const auto& g : firstPlans(mixed, 8192)) CHECK((g[0] == 0 || g[1] == 0));
}

TEST_CASE("adaptive strategies over devices that are one piece of hardware run everything on one") {
  // One GPU selected twice, or PoCL's two CPU devices of one platform (one pool of threads):
  // splitting could not be faster, so the partitioner names one device, as `single` does (the
  // runtime then takes its one-device path); uniform and static still split as asked.
  std::vector<DeviceInfo> twice(2);
  twice[0].name = twice[1].name = "GPU";
  twice[0].isGpu = twice[1].isGpu = true;
  twice[0].realDevice = twice[1].realDevice = 3;
  auto adaptive = makePartitioner(twice, StrategySpec{});
  REQUIRE(adaptive->onlyDevice().has_value());
  CHECK_FALSE(adaptive->usesMeasurements());
  LaunchRequest req;
  req.kernel = "k";
  req.groups = 1000;
  CHECK(adaptive->plan(req).groups[*adaptive->onlyDevice()] == 1000u);
  auto uniform = makePartitioner(twice, *StrategySpec::parse("uniform", nullptr));
  CHECK_FALSE(uniform->onlyDevice().has_value());
  std::vector<DeviceInfo> cpus(2);
  cpus[0].name = cpus[1].name = "pthread";
  cpus[0].isCpu = cpus[1].isCpu = true;
  cpus[0].realDevice = 0;
  cpus[1].realDevice = 1;
  CHECK(makePartitioner(cpus, StrategySpec{})->onlyDevice().has_value());
  PartitionerOptions measureTurns;
  measureTurns.detectTakingTurns = false; // CLSPLIT_TEST_CONCURRENT_DEVICES
  CHECK_FALSE(makePartitioner(cpus, StrategySpec{}, measureTurns)->onlyDevice().has_value());
  auto mixed = cpus;
  mixed.push_back(twice[0]);
  CHECK_FALSE(makePartitioner(mixed, StrategySpec{})->onlyDevice().has_value());
  // Memory the user capped: one of them may not hold a launch, so they are not collapsed, and a
  // launch whose buffers one cannot hold stays split while they take turns.
  auto capped = cpus;
  for (auto& d : capped) {
    d.memoryBytes = 1000;
    d.memoryCapped = true;
  }
  auto p = makePartitioner(capped, StrategySpec{});
  CHECK_FALSE(p->onlyDevice().has_value());
  req.buffers = {{1, true, false, 900}, {2, false, true, 900}}; // 1800 bytes: neither holds them
  for (int i = 0; i < 40; ++i) {
    auto plan = p->plan(req);
    CHECK(plan.groups[0] > 0);
    CHECK(plan.groups[1] > 0);
  }
}
