// Whole launches planned without any device: real kernels analysed by Clang, buffers as
// simulated directories. A Jacobi stencil over three devices moves exactly its halos; slices
// whose writes overlap are replicated or run whole; commutative atomics are merged; a plan made
// again without a failed device brings the other device what it lacks; repeated launches reuse
// their slices.
#include "analysis/Analysis.h"
#include "planner/BoundaryFirst.h"
#include "planner/LaunchPlanner.h"
#include "planner/PlanPrinter.h"
#include "planner/Simulation.h"
#include "planner/SliceRegions.h"
#include "tests/unit/planner/StencilKernels.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace clsplit;
using namespace clsplit::planner;
using buffer::bit;
using buffer::deviceHolder;
using buffer::kHost;

namespace Catch {
template <>
struct StringMaker<RangeSet> {
  static std::string convert(const RangeSet& s) { return s.str(); }
};
} // namespace Catch

namespace {

const std::string kSource = std::string(clsplit::planner::test::kStencilKernels) + R"CLC(
kernel void histogram(global const int* in, global int* bins, int nbins) {
  int v = in[get_global_id(0)];
  atomic_add(&bins[((v % nbins) + nbins) % nbins], 1);
}
// Reverses every block of 4: the analysis bounds the written index by [i-3, i+3], so slices'
// write regions overlap by a few elements though each element has one writer.
kernel void reverseBlocks(global const int* in, global int* out) {
  int i = get_global_id(0);
  out[i - i % 4 + 3 - i % 4] = in[i];
}
// alpha is only computed with; n guards the accesses; k selects the element read.
kernel void scaleInto(global const float* in, global float* out, float alpha, int n, int k) {
  int i = get_global_id(0);
  if (i < n) out[i] = alpha * in[i] + in[k];
}
// Every work-item writes element 0: no slicing can own it.
kernel void sumInto(global const int* in, global int* out) {
  out[0] = in[get_global_id(0)];
}
)CLC";

const analysis::ProgramAnalysis& program() {
  static const analysis::ProgramAnalysis analysis = analysis::analyzeProgram(kSource, "", {});
  return analysis;
}

const analysis::KernelAnalysis& kernel(const char* name) {
  const auto* k = program().find(name);
  REQUIRE(k != nullptr);
  REQUIRE_FALSE(k->unsplittableReason);
  return *k;
}

// A launch of a 1-D kernel over `n` items in groups of `local`, with arguments in order.
struct Launch {
  LaunchInput input;
  std::vector<std::vector<std::byte>> scalars; // storage for scalar bytes (spans point here)

  Launch(const analysis::KernelAnalysis& k, uint64_t n, uint64_t local, std::vector<DeviceTraits> devices) {
    input.analysis = &k;
    input.range.dims = 1;
    input.range.global = {n, 1, 1};
    input.range.local = {local, 1, 1};
    input.devices = std::move(devices);
    scalars.reserve(16);
  }
  Launch& buffer(const SimulatedBuffers& sim, unsigned b) {
    while (input.buffers.size() < sim.count())
      input.buffers.push_back(sim.input(static_cast<unsigned>(input.buffers.size())));
    ArgInput a;
    a.kind = ArgInput::Kind::Buffer;
    a.buffer = b;
    a.size = sim.holders(b).size();
    input.args.push_back(a);
    return *this;
  }
  template <class T>
  Launch& scalar(T v) {
    scalars.emplace_back(sizeof v);
    std::memcpy(scalars.back().data(), &v, sizeof v);
    ArgInput a;
    a.kind = ArgInput::Kind::Scalar;
    a.scalar = scalars.back();
    input.args.push_back(a);
    return *this;
  }
  Launch& integer(int32_t v) { return scalar(v); }
};

// Three discrete devices (each its own context): their bytes travel through host memory.
std::vector<DeviceTraits> discrete(unsigned n) {
  std::vector<DeviceTraits> d(n);
  for (unsigned i = 0; i < n; ++i) d[i].context = d[i].real = i;
  return d;
}

// Devices sharing the host's memory in one context (PoCL's CPU devices): in-driver copies.
std::vector<DeviceTraits> unified(unsigned n) {
  std::vector<DeviceTraits> d(n, DeviceTraits{0, true});
  for (unsigned i = 0; i < n; ++i) d[i].real = i;
  return d;
}

// One discrete device selected twice: two slots, one real device and context.
std::vector<DeviceTraits> sameDeviceTwice() { return std::vector<DeviceTraits>(2, DeviceTraits{0, false, 0}); }

RangeSet floats(uint64_t lo, uint64_t hi) { return RangeSet::of(lo * 4, hi * 4); }

} // namespace

TEST_CASE("Jacobi over three devices moves exactly its halos", "[planner]") {
  const uint64_t n = 3 * 64;
  SimulatedBuffers sim;
  const unsigned a = sim.add(n * 4), b = sim.add(n * 4);
  LaunchPlanner planner;
  auto launch = [&](const char* name, unsigned first, unsigned second) {
    Launch l(kernel(name), n, 16, discrete(3));
    l.buffer(sim, first).buffer(sim, second).integer(static_cast<int32_t>(n));
    LaunchPlan plan = planner.plan(l.input, planner.key(l.input), {4, 4, 4});
    sim.apply(plan);
    return plan;
  };

  // First stencil: each device gets its slice of `a` and the halo beyond it, from the host.
  LaunchPlan first = launch("stencil", a, b);
  REQUIRE(first.subKernels().size() == 3);
  CHECK(first.staging.empty());
  for (const auto& m : first.moves) CHECK(m.route == Route::FromHost);
  CHECK(first.subKernels()[1].offset[0] == 64);
  CHECK(first.subKernels()[1].global[0] == 64);

  // The copy reads only its own slice of `b`: nothing moves.
  LaunchPlan copy = launch("copy", a, b);
  INFO(describe(copy, {"a", "b"}));
  CHECK(copy.moves.empty());
  CHECK(copy.staging.empty());

  // Second stencil: each inner boundary exchanges one float each way, through host memory.
  LaunchPlan second = launch("stencil", a, b);
  INFO(describe(second, {"a", "b"}));
  REQUIRE(second.staging.size() == 4);
  REQUIRE(second.moves.size() == 4);
  CHECK(second.movedBytes() == 2 * 4 * 4);                      // four floats staged out, four written in
  std::vector<std::tuple<unsigned, unsigned, ByteRange>> halos; // (from, to, range)
  for (const auto& m : second.moves) {
    CHECK(m.buffer == a);
    CHECK(m.route == Route::ThroughHost);
    halos.emplace_back(buffer::deviceOf(m.from), m.to, m.range);
  }
  std::sort(halos.begin(), halos.end(),
            [](const auto& x, const auto& y) { return std::get<2>(x).lo < std::get<2>(y).lo; });
  CHECK(halos[0] == std::make_tuple(0u, 1u, ByteRange{63 * 4, 64 * 4}));   // a[63] to device 1
  CHECK(halos[1] == std::make_tuple(1u, 0u, ByteRange{64 * 4, 65 * 4}));   // a[64] to device 0
  CHECK(halos[2] == std::make_tuple(1u, 2u, ByteRange{127 * 4, 128 * 4})); // a[127] to device 2
  CHECK(halos[3] == std::make_tuple(2u, 1u, ByteRange{128 * 4, 129 * 4})); // a[128] to device 1
  // After it, each device holds its slice of `b` alone.
  CHECK(second.subKernels()[2].uses[1].published == floats(128, n - 1));
}

TEST_CASE("devices sharing the host's memory copy halos inside their driver", "[planner]") {
  const uint64_t n = 128;
  SimulatedBuffers sim;
  const unsigned a = sim.add(n * 4), b = sim.add(n * 4);
  LaunchPlanner planner;
  for (int round = 0; round < 3; ++round) {
    for (const char* name : {"stencil", "copy"}) {
      Launch l(kernel(name), n, 16, unified(2));
      l.buffer(sim, a).buffer(sim, b).integer(static_cast<int32_t>(n));
      LaunchPlan plan = planner.plan(l.input, planner.key(l.input), {4, 4});
      if (round > 0 && std::string(name) == "stencil") {
        CHECK(plan.staging.empty());
        REQUIRE(plan.moves.size() == 2);
        for (const auto& m : plan.moves) CHECK(m.route == Route::InDriver);
      }
      sim.apply(plan);
    }
  }
}

TEST_CASE("one device selected twice exchanges halos inside its own memory", "[planner]") {
  const uint64_t n = 128;
  SimulatedBuffers sim;
  const unsigned a = sim.add(n * 4), b = sim.add(n * 4);
  LaunchPlanner planner;
  for (int round = 0; round < 2; ++round)
    for (const char* name : {"stencil", "copy"}) {
      Launch l(kernel(name), n, 16, sameDeviceTwice());
      l.buffer(sim, a).buffer(sim, b).integer(static_cast<int32_t>(n));
      LaunchPlan plan = planner.plan(l.input, planner.key(l.input), {4, 4});
      if (round == 1 && std::string(name) == "stencil") {
        CHECK(plan.staging.empty());
        REQUIRE(plan.moves.size() == 2);
        for (const auto& m : plan.moves) CHECK(m.route == Route::InDriver);
      }
      sim.apply(plan);
    }
}

TEST_CASE("bytes two devices need from a third are staged out once", "[planner]") {
  SimulatedBuffers sim;
  const unsigned x = sim.add(256 * 4), y = sim.add(256 * 4), z = sim.add(256 * 4);
  LaunchPlanner planner;
  {
    Launch l(kernel("copy"), 256, 16, discrete(3)); // x[i] = y[i] on device 2: it holds x[1, 255) alone
    l.buffer(sim, x).buffer(sim, y).integer(256);
    sim.apply(planner.plan(l.input, planner.key(l.input), {0, 0, 16}));
  }
  Launch l(kernel("stencil"), 256, 16, discrete(3)); // reads x, writes z, on devices 0 and 1
  l.buffer(sim, x).buffer(sim, z).integer(256);
  LaunchPlan plan = planner.plan(l.input, planner.key(l.input), {8, 8, 0});
  INFO(describe(plan, {"x", "y", "z"}));
  // Device 0 needs x[0, 129), device 1 x[127, 256): what device 2 holds of both is staged out of
  // it once, and both write their part from the host.
  RangeSet staged;
  for (const auto& s : plan.staging) {
    CHECK_FALSE(staged.intersects(RangeSet{s.range}));
    staged.add(s.range);
    CHECK(s.from == 2);
    CHECK(s.buffer == x);
  }
  CHECK(staged == floats(1, 255));
  RangeSet toDevice1;
  for (const auto& m : plan.moves)
    if (m.to == 1) toDevice1.add(m.range);
  CHECK(toDevice1.contains(floats(127, 256)));
}

TEST_CASE("overlapping may-writes are replicated so that every byte has one owner", "[planner]") {
  SimulatedBuffers sim;
  const unsigned in = sim.add(256 * 4), out = sim.add(256 * 4);
  Launch l(kernel("reverseBlocks"), 256, 2, discrete(2)); // groups of 2 items: a block spans two groups
  l.buffer(sim, in).buffer(sim, out);
  LaunchPlanner planner;
  LaunchPlan plan = planner.plan(l.input, planner.key(l.input), {64, 64});
  INFO(describe(plan, {"in", "out"}));
  REQUIRE(plan.subKernels().size() == 2);
  CHECK(plan.slicing->replicated);
  CHECK_FALSE(plan.fallback);
  const auto& s0 = plan.subKernels()[0];
  const auto& s1 = plan.subKernels()[1];
  CHECK(s0.slice.groupEnd > s1.slice.groupBegin); // some work-groups run on both devices
  RangeSet p0 = s0.uses[1].published, p1 = s1.uses[1].published;
  CHECK_FALSE(p0.intersects(p1));
  CHECK(p0.united(p1) == RangeSet::of(0, 256 * 4));
}

TEST_CASE("writes no slicing can own run whole on the device with the most groups", "[planner]") {
  SimulatedBuffers sim;
  const unsigned in = sim.add(64 * 4), out = sim.add(4);
  Launch l(kernel("sumInto"), 64, 8, discrete(2));
  l.buffer(sim, in).buffer(sim, out);
  LaunchPlanner planner;
  LaunchPlan plan = planner.plan(l.input, planner.key(l.input), {3, 5});
  REQUIRE(plan.subKernels().size() == 1);
  CHECK(plan.subKernels()[0].device == 1);
  CHECK(plan.subKernels()[0].groups() == 8);
  REQUIRE(plan.fallback);
  CHECK(plan.fallback->find("overlap") != std::string::npos);
}

TEST_CASE("commutative atomics of several slices are merged on the host", "[planner]") {
  SimulatedBuffers sim;
  const unsigned in = sim.add(256 * 4), bins = sim.add(16 * 4);
  Launch l(kernel("histogram"), 256, 16, discrete(2));
  l.buffer(sim, in).buffer(sim, bins).integer(16);
  LaunchPlanner planner;
  LaunchPlan plan = planner.plan(l.input, planner.key(l.input), {8, 8});
  INFO(describe(plan, {"in", "bins"}));
  REQUIRE(plan.subKernels().size() == 2);
  REQUIRE(plan.merges().size() == 1);
  CHECK(plan.merges()[0].buffer == bins);
  CHECK(plan.merges()[0].op == analysis::AtomicOp::Add);
  // Each device starts from the bins' values (it needs them) and owns none of them after.
  for (const auto& sk : plan.subKernels()) {
    CHECK(sk.uses[1].need.contains(plan.merges()[0].region));
    CHECK_FALSE(sk.uses[1].published.intersects(plan.merges()[0].region));
  }
  sim.apply(plan);
  CHECK(sim.holders(bins).holdersOfAll(plan.merges()[0].region) == bit(kHost));
}

TEST_CASE("a plan made again without a failed device brings the other one what it lacks", "[planner]") {
  const uint64_t n = 256;
  SimulatedBuffers sim;
  const unsigned a = sim.add(n * 4), b = sim.add(n * 4);
  LaunchPlanner planner;
  auto input = [&](const char* name) {
    Launch l(kernel(name), n, 16, discrete(2));
    l.buffer(sim, a).buffer(sim, b).integer(static_cast<int32_t>(n));
    return l;
  };
  {
    auto l = input("stencil");
    sim.apply(planner.plan(l.input, planner.key(l.input), {8, 8}));
  }
  // The copy was to be split, and device 1 failed: planned again, whole on device 0, which must
  // fetch the half of `b` that device 1 wrote.
  auto l = input("copy");
  LaunchPlan again = planner.plan(l.input, planner.key(l.input), {16, 0});
  REQUIRE(again.subKernels().size() == 1);
  CHECK(again.subKernels()[0].device == 0);
  RangeSet fetched;
  for (const auto& m : again.moves) {
    CHECK(m.to == 0);
    if (m.buffer == b) fetched.add(m.range);
  }
  CHECK(fetched.contains(floats(128, n - 1)));
  CHECK_FALSE(fetched.intersects(floats(1, 128))); // device 0 wrote those itself
}

TEST_CASE("a repeated launch reuses its slices; another scalar value does not", "[planner]") {
  SimulatedBuffers sim;
  const unsigned a = sim.add(256 * 4), b = sim.add(256 * 4);
  LaunchPlanner planner;
  auto plan = [&](int32_t n) {
    Launch l(kernel("stencil"), 256, 16, discrete(2));
    l.buffer(sim, a).buffer(sim, b).integer(n);
    return planner.plan(l.input, planner.key(l.input), {8, 8});
  };
  LaunchPlan p1 = plan(256), p2 = plan(256), p3 = plan(200);
  CHECK(p1.slicing == p2.slicing);
  CHECK(p1.slicing != p3.slicing);
}

TEST_CASE("a launch on one device plans whole buffers without exact regions of indirections", "[planner]") {
  SimulatedBuffers sim;
  const unsigned a = sim.add(64 * 4), b = sim.add(64 * 4);
  Launch l(kernel("stencil"), 64, 16, discrete(2));
  l.buffer(sim, a).buffer(sim, b).integer(64);
  bool read = false;
  l.input.readElement = [&](unsigned, uint64_t, analysis::ScalarType) {
    read = true;
    return std::optional<analysis::ScalarValue>{};
  };
  LaunchPlanner planner;
  LaunchPlan plan = planner.plan(l.input, planner.key(l.input), {0, 4});
  REQUIRE(plan.subKernels().size() == 1);
  CHECK_FALSE(plan.split());
  CHECK_FALSE(read);
  CHECK(describe(plan).find("(whole)") != std::string::npos);
}

TEST_CASE("boundary-first: the halo other devices fetched last time is computed first", "[planner][overlap]") {
  const uint64_t n = 3 * 1024; // 192 groups of 16: 64 per device
  SimulatedBuffers sim;
  const unsigned a = sim.add(n * 4), b = sim.add(n * 4);
  LaunchPlanner planner;
  auto launch = [&](const char* name, bool overlap) {
    Launch l(kernel(name), n, 16, discrete(3));
    l.buffer(sim, a).buffer(sim, b).integer(static_cast<int32_t>(n));
    l.input.overlap = overlap;
    for (unsigned buf = 0; buf < l.input.buffers.size(); ++buf) l.input.buffers[buf] = sim.input(buf, 3);
    LaunchPlan plan = planner.plan(l.input, planner.key(l.input), {64, 64, 64});
    sim.apply(plan);
    return plan;
  };

  // Nothing was fetched yet: no pieces, but the moves already go on the transfer queues.
  LaunchPlan stencil0 = launch("stencil", true);
  CHECK(stencil0.overlap);
  CHECK_FALSE(stencil0.boundaryFirst());
  LaunchPlan copy0 = launch("copy", true);
  CHECK_FALSE(copy0.boundaryFirst());
  // The second stencil fetches each device's edge elements of `a`, which the copy wrote.
  LaunchPlan stencil1 = launch("stencil", true);
  REQUIRE(stencil1.staging.size() == 4);
  // So the next copy writes them first: one group at each inner edge.
  LaunchPlan copy1 = launch("copy", true);
  INFO(describe(copy1, {"a", "b"}));
  REQUIRE(copy1.boundaryFirst());
  const auto& subs = copy1.subKernels();
  REQUIRE(subs.size() == 3);
  REQUIRE(subs[0].pieces.size() == 2); // its high edge, then the interior
  REQUIRE(subs[1].pieces.size() == 3); // both edges, then the interior
  REQUIRE(subs[2].pieces.size() == 2);
  CHECK(subs[0].pieces[0].boundary);
  CHECK(subs[0].pieces[0].slice.groupBegin == 63);
  CHECK(subs[0].pieces[0].slice.groupEnd == 64);
  CHECK(subs[1].pieces[0].slice.groupBegin == 64);
  CHECK(subs[1].pieces[0].slice.groupEnd == 65);
  CHECK(subs[1].pieces[1].slice.groupBegin == 127);
  CHECK(subs[1].pieces[2].slice.groupBegin == 65);
  CHECK(subs[1].pieces[2].slice.groupEnd == 127);
  CHECK_FALSE(subs[1].pieces[2].boundary);
  // The pieces run every group of the slice once, and the boundary pieces write the halo.
  for (const auto& sk : subs) {
    uint64_t groups = 0;
    for (const auto& p : sk.pieces) groups += p.slice.groupEnd - p.slice.groupBegin;
    CHECK(groups == sk.groups());
    CHECK(sk.pieces.back().offset[0] == sk.pieces.back().slice.groupBegin * 16);
  }
  for (const auto& leg : stencil1.staging) {
    bool written = false;
    for (const auto& p : subs[leg.from].pieces)
      for (const auto& u : p.uses)
        if (p.boundary && u.buffer == a && u.write.contains(leg.range)) written = true;
    CHECK(written);
  }
  // The stencil's own writes (`b`) are fetched by nobody: never cut.
  LaunchPlan stencil2 = launch("stencil", true);
  CHECK_FALSE(stencil2.boundaryFirst());
  // The cut is remembered with the launch's slices.
  LaunchPlan copy2 = launch("copy", true);
  CHECK(copy2.slicing == copy1.slicing);
  // Off: the same launch is not cut and its moves stay behind the kernels.
  launch("stencil", false);
  LaunchPlan copyOff = launch("copy", false);
  CHECK_FALSE(copyOff.boundaryFirst());
  CHECK_FALSE(copyOff.overlap);
}

TEST_CASE("boundary-first: halos that interior groups write, and short slices, are not cut", "[planner][overlap]") {
  const uint64_t n = 3 * 1024;
  SimulatedBuffers sim;
  const unsigned a = sim.add(n * 4), b = sim.add(n * 4);
  Launch l(kernel("copy"), n, 16, discrete(3));
  l.buffer(sim, a).buffer(sim, b).integer(static_cast<int32_t>(n));
  l.input.overlap = true;
  for (unsigned buf = 0; buf < 2; ++buf) l.input.buffers[buf] = sim.input(buf, 3);
  const Slicing slicing = sliceLaunch(l.input, InputValues(l.input, false), 0, {64, 64, 64});
  // Device 1 was fetched from in the middle of its slice: nothing to launch first.
  l.input.buffers[a].pulled[1] = floats(1500, 1501);
  auto halo = haloOf(l.input, slicing);
  REQUIRE_FALSE(halo.empty());
  CHECK(cutBoundaries(l.input, InputValues(l.input, false), slicing, halo) == nullptr);
  // At its edge: cut.
  l.input.buffers[a].pulled[1] = floats(1024, 1025);
  halo = haloOf(l.input, slicing);
  auto cut = cutBoundaries(l.input, InputValues(l.input, false), slicing, halo);
  REQUIRE(cut != nullptr);
  CHECK(cut->subKernels[1].pieces.size() == 2);
  CHECK(cut->subKernels[0].pieces.empty());
  // Slices shorter than the rule's minimum are not cut.
  CHECK(cutBoundaries(l.input, InputValues(l.input, false), slicing, halo, BoundaryRules{8, 65}) == nullptr);
  // Nothing fetched: no halo at all.
  l.input.buffers[a].pulled[1] = {};
  CHECK(haloOf(l.input, slicing).empty());
}

TEST_CASE("the memo keys on the scalars the regions depend on, not on the others", "[planner]") {
  const auto& k = kernel("scaleInto");
  const auto used = analysis::argumentsInRegions(k.regions, k.args.size());
  REQUIRE(used.size() == 5);
  CHECK_FALSE(used[2]); // alpha: a value only
  CHECK(used[3]);       // n: in the guard
  CHECK(used[4]);       // k: in an offset
  SimulatedBuffers sim;
  const unsigned in = sim.add(1024 * 4), out = sim.add(1024 * 4);
  LaunchPlanner planner;
  auto launch = [&](float alpha, int32_t n, int32_t at) {
    Launch l(k, 1024, 64, discrete(2));
    l.buffer(sim, in).buffer(sim, out).scalar(alpha).integer(n).integer(at);
    return std::make_pair(planner.key(l.input), planner.plan(l.input, planner.key(l.input), {8, 8}));
  };
  auto [key1, plan1] = launch(0.5f, 1024, 3);
  auto [key2, plan2] = launch(0.25f, 1024, 3); // another alpha: the same slices
  CHECK(key1 == key2);
  CHECK(plan1.slicing == plan2.slicing);
  auto [key3, plan3] = launch(0.5f, 1024, 700); // another element read: other regions
  CHECK(key3 != key1);
  CHECK(plan3.subKernels()[0].uses[0].read.contains(RangeSet::of(700 * 4, 701 * 4)));
  CHECK_FALSE(plan1.subKernels()[0].uses[0].read.contains(RangeSet::of(700 * 4, 701 * 4)));
}

TEST_CASE("a changed scalar re-instantiates only the arguments whose regions use it", "[planner]") {
  const auto& k = kernel("scaleInto");
  const auto inputs = analysis::regionInputsPerArgument(k.regions, k.args.size());
  REQUIRE(inputs.size() >= 5);
  CHECK(inputs[0].scalars[4]);       // in[k]: `in` depends on k
  CHECK_FALSE(inputs[1].scalars[4]); // out[i] (i < n): `out` does not
  CHECK(inputs[1].scalars[3]);
  CHECK_FALSE(inputs[2].hasStatements); // alpha is no buffer

  SimulatedBuffers sim;
  const unsigned in = sim.add(1024 * 4), out = sim.add(1024 * 4);
  LaunchPlanner planner;
  auto launch = [&](int32_t n, int32_t at) {
    Launch l(k, 1024, 64, discrete(2));
    l.buffer(sim, in).buffer(sim, out).scalar(2.0f).integer(n).integer(at);
    LaunchPlan plan = planner.plan(l.input, planner.key(l.input), {8, 8});
    // What a planner without memos computes for the same launch.
    const Slicing fresh = sliceLaunch(l.input, InputValues(l.input, false), plan.dim, {8, 8});
    REQUIRE(fresh.subKernels.size() == plan.subKernels().size());
    for (size_t s = 0; s < fresh.subKernels.size(); ++s)
      for (size_t u = 0; u < fresh.subKernels[s].uses.size(); ++u) {
        CHECK(plan.subKernels()[s].uses[u].read == fresh.subKernels[s].uses[u].read);
        CHECK(plan.subKernels()[s].uses[u].write == fresh.subKernels[s].uses[u].write);
        CHECK(plan.subKernels()[s].uses[u].need == fresh.subKernels[s].uses[u].need);
      }
    return plan;
  };
  launch(1024, 3);
  const auto first = planner.regionStats();
  CHECK(first.instantiated == 4); // two slices x two buffers
  CHECK(first.reused == 0);
  // k changes every launch (a pivot, a time step): `out`'s regions are reused, `in`'s are not.
  for (int32_t at = 4; at < 40; ++at) launch(1024, at);
  const auto later = planner.regionStats();
  CHECK(later.reused - first.reused == 2 * 36);
  CHECK(later.instantiated - first.instantiated == 2 * 36);
  // n changes: both buffers' regions depend on it.
  launch(1000, 39);
  CHECK(planner.regionStats().instantiated - later.instantiated == 4);
  // Back to n = 1024 with a k seen long ago: `out`'s regions for n = 1024 are found again
  // (each argument keeps its latest few), `in`'s for k = 10 were dropped since.
  const auto before = planner.regionStats();
  launch(1024, 10);
  CHECK(planner.regionStats().reused - before.reused == 2);
  CHECK(planner.regionStats().instantiated - before.instantiated == 2);
}

TEST_CASE("a launch on remembered buffers gets their request, counted in its own groups", "[planner]") {
  LaunchPlanner planner;
  analysis::NDRange range;
  range.global = {1024, 1, 1};
  range.local = {64, 1, 1};
  LaunchPlanner::Repeatable known;
  known.buffers = {7, 0, 9};
  known.appRange = range;
  known.range = range;
  known.splittable = true;
  known.request.kernel = "k";
  known.request.buffers = {{7, true, false, 4096}, {9, false, true, 4096}};
  known.retarget(range, 0);
  planner.remember(known);
  int resolved = 0;
  auto resolve = [&](const analysis::NDRange&) {
    ++resolved;
    return std::array<uint64_t, 3>{32, 1, 1};
  };
  const std::vector<uint64_t> same{7, 0, 9}, swapped{9, 0, 7};
  REQUIRE(planner.repeatable(swapped, range, resolve) == nullptr); // other buffers: not known

  auto* hit = planner.repeatable(same, range, resolve);
  REQUIRE(hit != nullptr);
  CHECK(hit->request.groups == 16);
  CHECK(hit->request.groupSize == 64);
  CHECK(hit->request.splittable);
  CHECK(resolved == 0); // an unchanged range needs nothing resolved

  // A shrinking range left to the implementation: resolved once, and counted in its groups.
  analysis::NDRange smaller = range;
  smaller.global = {32, 1, 1};
  smaller.local = {0, 0, 0};
  hit = planner.repeatable(same, smaller, resolve);
  REQUIRE(hit != nullptr);
  CHECK(resolved == 1);
  CHECK(hit->request.groups == 1);
  CHECK(hit->request.groupSize == 32);
  CHECK_FALSE(hit->request.splittable); // one group: nothing to divide
  CHECK(hit->request.buffers.size() == 2);

  analysis::NDRange twoD = range;
  twoD.dims = 2;
  CHECK(planner.repeatable(same, twoD, resolve) == nullptr);

  // Remembered along a dimension that has one work-group in a later range while another has
  // more: counted along that other one, so the launch can be split.
  LaunchPlanner::Repeatable diagonal = known;
  diagonal.buffers = {21};
  diagonal.appRange.dims = diagonal.range.dims = 2;
  diagonal.appRange.global = diagonal.range.global = {16, 1, 1};
  diagonal.appRange.local = diagonal.range.local = {16, 1, 1};
  diagonal.retarget(diagonal.range, 1); // one group in every dimension: the last one
  planner.remember(diagonal);
  struct Step {
    std::array<uint64_t, 3> global;
    uint32_t dim;
    uint64_t groups;
  };
  const Step steps[] = {
      {{1024, 1, 1}, 0, 64}, // grown along dimension 0: counted there, so it can be split
      {{16, 64, 1}, 1, 64},  // dimension 0 down to one group, dimension 1 with many: the default
      {{2048, 2, 1}, 1, 2},  // a dimension that still has several groups is kept, though another has more
  };
  for (const Step& step : steps) {
    analysis::NDRange next = diagonal.appRange;
    next.global = step.global;
    hit = planner.repeatable(std::vector<uint64_t>{21}, next, resolve);
    REQUIRE(hit != nullptr);
    CHECK(hit->dim == step.dim);
    CHECK(hit->request.groups == step.groups);
    CHECK(hit->request.splittable);
  }

  // Ping-pong: both orders are remembered; a fifth set of buffers pushes out the oldest.
  LaunchPlanner::Repeatable other = known;
  other.buffers = swapped;
  planner.remember(other);
  CHECK(planner.repeatable(same, range, resolve) != nullptr);
  CHECK(planner.repeatable(swapped, range, resolve) != nullptr);
  for (uint64_t id = 100; id < 103; ++id) {
    LaunchPlanner::Repeatable more = known;
    more.buffers = {id};
    planner.remember(more);
  }
  CHECK(planner.repeatable(same, range, resolve) == nullptr);
  CHECK(planner.repeatable(swapped, range, resolve) != nullptr);
}

TEST_CASE("a range whose last work-group is partial: counted, sliced and never repeated across", "[planner]") {
  analysis::NDRange range;
  range.global = {1000, 1, 1};
  range.local = {64, 1, 1};
  CHECK(range.groups(0) == 16); // 15 whole groups and one of 40 work-items
  CHECK_FALSE(range.uniform());
  analysis::NDRange whole = range;
  whole.global = {1024, 1, 1};
  CHECK(whole.uniform());
  whole.local = {0, 0, 0}; // left to the implementation
  CHECK(whole.uniform());

  std::array<uint64_t, 3> offset{}, global{};
  range.offset = {8, 0, 0};
  sliceRange(range, analysis::Slice{0, 0, 10}, offset, global);
  CHECK(offset[0] == 8);
  CHECK(global[0] == 640);
  sliceRange(range, analysis::Slice{0, 10, 16}, offset, global); // ends where the range does
  CHECK(offset[0] == 8 + 640);
  CHECK(global[0] == 360);
  sliceRange(range, analysis::Slice{0, 0, 16}, offset, global);
  CHECK(global[0] == 1000);

  // Whether a launch may be split depends on its range: a remembered request is not carried
  // over between uniform and non-uniform ranges (the same range still is).
  LaunchPlanner planner;
  LaunchPlanner::Repeatable known;
  known.buffers = {3};
  known.appRange = known.range = whole;
  known.appRange.local = known.range.local = {64, 1, 1};
  known.splittable = true;
  known.retarget(known.range, 0);
  planner.remember(known);
  auto resolve = [](const analysis::NDRange&) { return std::array<uint64_t, 3>{64, 1, 1}; };
  const std::vector<uint64_t> buffers{3};
  CHECK(planner.repeatable(buffers, range, resolve) == nullptr);
  known.appRange = known.range = range;
  known.splittable = false;
  known.retarget(known.range, 0);
  planner.remember(known);
  CHECK(planner.repeatable(buffers, range, resolve) != nullptr);
  analysis::NDRange uniform = range;
  uniform.global = {1024, 1, 1};
  CHECK(planner.repeatable(buffers, uniform, resolve) == nullptr);
}
