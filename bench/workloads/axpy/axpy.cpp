// axpy: y = s_t * y + x for t = 0 .. iters-1, one launch per step with the step's scalar, over
// two vectors of `size` floats (64-bit indices, sizes beyond 2^32). An ordinary single-device
// program: first platform, its default device, NULL local size. Its inputs are a function of
// the index, so the check recomputes any element without keeping the inputs: 2 x 40 GB vectors
// need 80 GB of host memory, not 160. `--x-period P` makes x a table of P elements read at
// i mod P: one large vector (the GPU + CPU run beyond one allocation, docs/benchmarks.md).
#include "bench/workloads/common/Parallel.h"
#include "bench/workloads/common/Random.h"
#include "bench/workloads/common/Result.h"
#include "bench/workloads/common/Session.h"
#include "bench/workloads/common/Stopwatch.h"
#include "bench/workloads/common/Verify.h"

#include "axpy_kernel.h"

#include <cmath>
#include <optional>
#include <stdexcept>

using namespace clsplit::bench;

namespace {

float inputX(uint64_t seed, size_t i) { return static_cast<float>(unitInterval(splitmix64(seed * 2 + 0) ^ i)); }
float inputY(uint64_t seed, size_t i) { return static_cast<float>(unitInterval(splitmix64(seed * 2 + 1) ^ i)); }
float step(int t) { return 1.0f - 0.0625f * static_cast<float>(t % 8); }

// The kernel's operations for element i (a compiler may contract them to an fma: the tolerance).
float expected(uint64_t seed, size_t i, size_t mask, int iterations) {
  const float x = inputX(seed, i & mask);
  float y = inputY(seed, i);
  for (int t = 0; t < iterations; ++t) y = step(t) * y + x;
  return y;
}

int run(int argc, char** argv) {
  ArgParser args(argc, argv, "y = s*y + x iterated (one launch per step); size = elements per vector");
  CommonOptions options = parseCommonOptions(args, 1 << 24, 1, 1L << 36, 10);
  const std::optional<long> period = args.optionalInteger("--x-period", 1, 1L << 36,
                                                          "x as a table of this many elements (a power of two) read at "
                                                          "i mod period (default: x as long as y)");
  args.finish();
  const size_t n = static_cast<size_t>(options.Size);
  const uint64_t seed = options.Seed;
  if (period && (*period & (*period - 1)) != 0) throw std::runtime_error("--x-period must be a power of two");
  const size_t xLength = period ? static_cast<size_t>(*period) : n;
  const size_t mask = period ? xLength - 1 : ~size_t(0);

  std::vector<float> x(xLength), y(n);
  parallelFor(0, n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      if (i < xLength) x[i] = inputX(seed, i);
      y[i] = inputY(seed, i);
    }
  });

  Session session = Session::open(options, DevicePolicy::FirstPlatformDefault);
  Program program = session.buildProgram(kKernelSource);
  Kernel axpy = session.createKernel(program, period ? "axpy_periodic" : "axpy");
  Buffer bufX = session.createBuffer(CL_MEM_READ_ONLY, xLength * sizeof(float));
  Buffer bufY = session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float));

  Stopwatch total;
  session.write(bufX, x);
  session.write(bufY, y);
  session.finish();
  Stopwatch timed;
  for (int t = 0; t < options.Iterations; ++t) {
    if (period)
      setArgs(axpy, bufX, bufY, step(t), static_cast<cl_ulong>(n), static_cast<cl_ulong>(mask));
    else
      setArgs(axpy, bufX, bufY, step(t), static_cast<cl_ulong>(n));
    session.run(axpy, {n});
  }
  session.read(bufY, y); // the result replaces the input (recomputed for the check)
  RunResult r;
  r.Seconds = timed.seconds();
  r.TotalSeconds = total.seconds();

  // Every element up to 2^24 of them, else 2^24 spread evenly plus both ends: a slice at a wrong
  // offset or a missing window corrupts a contiguous range, never a few isolated elements.
  ToleranceCheck check("axpy y");
  const bool all = options.FullVerification || n <= (size_t(1) << 24);
  const size_t stride = all ? 1 : n / (size_t(1) << 24);
  auto compare = [&](size_t i) {
    const float want = expected(seed, i, mask, options.Iterations);
    check.compare(i, y[i], want, 1e-5 * std::max(1.0f, std::fabs(want)));
  };
  for (size_t i = 0; i < n; i += stride) compare(i);
  if (!all)
    for (size_t i = 0; i < 4096 && i < n; ++i) compare(n - 1 - i);

  r.Workload = "axpy";
  if (period) {
    r.Variant = "periodic";
    r.Extra.emplace_back("x_period", std::to_string(xLength));
  }
  r.Size = options.Size;
  r.Iterations = options.Iterations;
  r.Check = all ? "full" : "sampled";
  record(r, check);
  return finishRun(r, session);
}

} // namespace

int main(int argc, char** argv) {
  return guardedMain([&] { return run(argc, argv); });
}
