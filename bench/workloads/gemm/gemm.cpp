// gemm: Polybench's C = alpha*A*B + beta*C, repeated (thesis Table 4.1: "repeated"): each
// iteration updates C in place, inputs written once and C read once. A benchmark-suite program:
// it asks for a GPU and falls back to any device; explicit 32x8 local size.
#include "bench/workloads/common/Parallel.h"
#include "bench/workloads/common/Random.h"
#include "bench/workloads/common/Result.h"
#include "bench/workloads/common/Sampling.h"
#include "bench/workloads/common/Session.h"
#include "bench/workloads/common/Stopwatch.h"
#include "bench/workloads/common/Verify.h"

#include <cmath>
#include <mutex>

#include "gemm_kernel.h"

using namespace clsplit::bench;

namespace {

constexpr size_t LocalX = 32, LocalY = 8;
constexpr size_t SampledLines = 8;    ///< rows and columns checked when sampling
constexpr size_t FullCheckMaxN = 512; ///< below this, every entry is checked (n^3 cheap)

int run(int argc, char** argv) {
  ArgParser args(argc, argv, "Polybench gemm, repeated; size = n of n x n matrices");
  CommonOptions options = parseCommonOptions(args, 1024, 1, 16384, 5);
  args.finish();
  const size_t n = static_cast<size_t>(options.Size);
  const int iterations = options.Iterations;

  std::vector<float> a(n * n), b(n * n), c0(n * n);
  fillUniform(a, options.Seed);
  fillUniform(b, options.Seed + 1);
  fillUniform(c0, options.Seed + 2);
  // beta = 1 so that every iteration's result stays visible in C (no damping of an error made
  // in an early iteration); alpha = 1/n keeps the entries O(iterations).
  const cl_float alpha = 1.0f / static_cast<float>(n), beta = 1.0f;

  Session session = Session::open(options, DevicePolicy::GpuThenAny);
  Program program = session.buildProgram(kKernelSource);
  Kernel gemm = session.createKernel(program, "gemm");
  const size_t bytes = n * n * sizeof(float);
  Buffer bufA = session.createBuffer(CL_MEM_READ_ONLY, bytes);
  Buffer bufB = session.createBuffer(CL_MEM_READ_ONLY, bytes);
  Buffer bufC = session.createBuffer(CL_MEM_READ_WRITE, bytes);
  const cl_int dim = static_cast<cl_int>(n);
  setArgs(gemm, bufA, bufB, bufC, alpha, beta, dim, dim, dim);

  // Where the result is read back: allocated (and its pages touched) outside the timed region.
  std::vector<float> c(n * n);
  Stopwatch total;
  session.write(bufA, a);
  session.write(bufB, b);
  session.write(bufC, c0);
  session.finish();
  Stopwatch timed;
  for (int t = 0; t < iterations; ++t) session.run(gemm, {roundUp(n, LocalX), roundUp(n, LocalY)}, {LocalX, LocalY});
  session.read(bufC, c);
  RunResult r;
  r.Seconds = timed.seconds();
  r.TotalSeconds = total.seconds();

  // With beta = 1, C_K = C_0 + K * alpha * (A B) exactly. Error bound (all inputs >= 0, so
  // |A||B| = A B): each iteration's dot product is off by at most gamma_n * (A B)_ij with
  // gamma_n ~ n u (u = 2^-24, any summation order, fma or not), scaled by alpha, plus two
  // roundings of |C|; errors add over K iterations. A wrong or stale input is off by O(1).
  const bool all = options.FullVerification || n <= FullCheckMaxN;
  auto entries = crossSample(n, SampledLines, all, options.Seed + 7);
  const double u = 0x1.0p-24;
  ToleranceCheck check("gemm C");
  std::mutex merge;
  parallelFor(0, entries.size(), [&](size_t begin, size_t end) {
    ToleranceCheck local("gemm C");
    for (size_t e = begin; e < end; ++e) {
      auto [i, j] = entries[e];
      double dot = 0;
      for (size_t k = 0; k < n; ++k) dot += static_cast<double>(a[i * n + k]) * b[k * n + j];
      double expected = c0[i * n + j] + iterations * static_cast<double>(alpha) * dot;
      double tolerance = iterations * (alpha * (n + 2) * u * 1.01 * dot + 2 * u * std::fabs(expected)) + 1e-7;
      local.compare(i * n + j, c[i * n + j], expected, tolerance);
    }
    std::lock_guard<std::mutex> lock(merge);
    check.merge(local);
  });

  r.Workload = "gemm";
  r.Size = options.Size;
  r.Iterations = iterations;
  r.Check = all ? "full" : "sampled";
  record(r, check);
  return finishRun(r, session);
}

} // namespace

int main(int argc, char** argv) {
  return guardedMain([&] { return run(argc, argv); });
}
