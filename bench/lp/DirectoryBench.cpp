// Micro-benchmark of the buffer directory and transfer planner: cost per operation as the number
// of runs grows, to check the O(log n + k) behaviour (a sanity check, not a test).
#include "buffer-manager/TransferPlanner.h"

#include <chrono>
#include <cstdio>
#include <random>

using namespace clsplit;
using namespace clsplit::buffer;

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double nsPerOp(int ops, F&& f) {
  auto t0 = Clock::now();
  for (int i = 0; i < ops; ++i) f(i);
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / ops;
}

double cost(Holder from, Holder to, uint64_t bytes) {
  return (isDevice(from) && isDevice(to) ? 1.0 : 4.0) * double(bytes) + 1000.0;
}

// A directory fragmented into about `runs` runs: every other 64-byte block also on device 1.
Directory<int> fragmented(uint64_t runs) {
  Directory<int> dir(runs * 64, kHost, 0);
  for (uint64_t i = 0; i < runs; i += 2) dir.addCopy(RangeSet::of(i * 64, i * 64 + 64), 2, 1);
  return dir;
}

} // namespace

int main() {
  std::printf("%10s %12s %12s %12s %12s %14s\n", "runs", "addCopy_ns", "setOnly_ns", "missing_ns", "plan_ns",
              "stencil_it_ns");
  for (uint64_t runs : {16ull, 1024ull, 16384ull, 262144ull}) {
    auto dir = fragmented(runs);
    const uint64_t size = dir.size();
    const size_t runsBefore = dir.runCount();
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<uint64_t> pos(0, size - 256);
    const int ops = 20000;
    // Each operation touches a 256-byte window: k stays small while n grows.
    std::vector<uint64_t> at(ops);
    for (auto& a : at) a = pos(rng);

    double add = nsPerOp(ops, [&](int i) { dir.addCopy(RangeSet::of(at[i], at[i] + 256), 3, i); });
    double only = nsPerOp(ops, [&](int i) { dir.setOnly(RangeSet::of(at[i], at[i] + 100), 2, 7); });
    volatile uint64_t sink = 0;
    double miss = nsPerOp(ops, [&](int i) { sink = sink + dir.missing(RangeSet::of(at[i], at[i] + 256), 1).bytes(); });
    double plan = nsPerOp(
        ops, [&](int i) { sink = sink + planTransfers(dir, RangeSet::of(at[i], at[i] + 256), 1, cost).size(); });

    // One iteration of a 2-device Jacobi on a buffer of the same size (two buffers, halo 64 B).
    Directory<int> in(size, kHost, 0), out(size, kHost, 0);
    const uint64_t half = size / 2;
    double stencil = nsPerOp(2000, [&](int it) {
      for (unsigned d = 0; d < 2; ++d) {
        RangeSet need = d == 0 ? RangeSet::of(0, half + 64) : RangeSet::of(half - 64, size);
        for (const auto& t : planTransfers(in, need, deviceHolder(d), cost))
          in.addCopy(RangeSet{t.range}, deviceHolder(d), it);
      }
      out.setOnly(RangeSet::of(0, half), deviceHolder(0), it);
      out.setOnly(RangeSet::of(half, size), deviceHolder(1), it);
      in.setOnly(RangeSet::of(0, half), deviceHolder(0), it);
      in.setOnly(RangeSet::of(half, size), deviceHolder(1), it);
    });
    std::printf("%10zu %12.0f %12.0f %12.0f %12.0f %14.0f\n", runsBefore, add, only, miss, plan, stencil);
  }
  return 0;
}
