// 2mm: Polybench's D = alpha*A*B*C + beta*D as two kernels, repeated (thesis Table 4.1): the
// intermediate tmp is produced by one kernel and consumed by the next. Creates its context with
// clCreateContextFromType(CL_DEVICE_TYPE_GPU), falling back to any type; NULL local size.
#include "bench/workloads/common/Parallel.h"
#include "bench/workloads/common/Random.h"
#include "bench/workloads/common/Result.h"
#include "bench/workloads/common/Sampling.h"
#include "bench/workloads/common/Session.h"
#include "bench/workloads/common/Stopwatch.h"
#include "bench/workloads/common/Verify.h"

#include <cmath>
#include <mutex>

#include "2mm_kernel.h"

using namespace clsplit::bench;

namespace {

constexpr size_t SampledLines = 8;    ///< rows and columns checked per matrix when sampling
constexpr size_t FullCheckMaxN = 512; ///< below this, every entry is checked

/// Checks got[i][j] against expected(i, j) with tolerance(i, j, expected) on \p entries.
template <typename Expected>
ToleranceCheck checkEntries(const char* what, const std::vector<std::pair<size_t, size_t>>& entries,
                            const std::vector<float>& got, size_t n, Expected expected) {
  ToleranceCheck check(what);
  std::mutex merge;
  parallelFor(0, entries.size(), [&](size_t begin, size_t end) {
    ToleranceCheck local(what);
    for (size_t e = begin; e < end; ++e) {
      auto [i, j] = entries[e];
      auto [value, tolerance] = expected(i, j);
      local.compare(i * n + j, got[i * n + j], value, tolerance);
    }
    std::lock_guard<std::mutex> lock(merge);
    check.merge(local);
  });
  return check;
}

int run(int argc, char** argv) {
  ArgParser args(argc, argv, "Polybench 2mm (two matrix-product kernels), repeated; size = n");
  CommonOptions options = parseCommonOptions(args, 1024, 1, 16384, 3);
  args.finish();
  const size_t n = static_cast<size_t>(options.Size);
  const int iterations = options.Iterations;

  std::vector<float> a(n * n), b(n * n), c(n * n), d0(n * n);
  fillUniform(a, options.Seed);
  fillUniform(b, options.Seed + 1);
  fillUniform(c, options.Seed + 2);
  fillUniform(d0, options.Seed + 3);
  // beta = 1: every iteration adds tmp*C to D, so an error in any iteration stays visible.
  const cl_float alpha = 1.0f / static_cast<float>(n), beta = 1.0f;

  Session session = Session::open(options, DevicePolicy::ContextFromType, CL_DEVICE_TYPE_GPU);
  Program program = session.buildProgram(kKernelSource);
  Kernel kernelTmp = session.createKernel(program, "mm2_tmp");
  Kernel kernelD = session.createKernel(program, "mm2_d");
  const size_t bytes = n * n * sizeof(float);
  Buffer bufA = session.createBuffer(CL_MEM_READ_ONLY, bytes);
  Buffer bufB = session.createBuffer(CL_MEM_READ_ONLY, bytes);
  Buffer bufC = session.createBuffer(CL_MEM_READ_ONLY, bytes);
  Buffer bufD = session.createBuffer(CL_MEM_READ_WRITE, bytes);
  Buffer bufTmp = session.createBuffer(CL_MEM_READ_WRITE, bytes);
  const cl_int dim = static_cast<cl_int>(n);
  setArgs(kernelTmp, bufA, bufB, bufTmp, alpha, dim, dim, dim);
  setArgs(kernelD, bufTmp, bufC, bufD, beta, dim, dim, dim);

  // Where the result is read back: allocated (and its pages touched) outside the timed region.
  std::vector<float> d(n * n);
  Stopwatch total;
  session.write(bufA, a);
  session.write(bufB, b);
  session.write(bufC, c);
  session.write(bufD, d0);
  session.finish();
  Stopwatch timed;
  for (int t = 0; t < iterations; ++t) {
    session.run(kernelTmp, {n, n});
    session.run(kernelD, {n, n});
  }
  session.read(bufD, d);
  RunResult r;
  r.Seconds = timed.seconds();
  r.TotalSeconds = total.seconds();
  std::vector<float> tmp(n * n); // read after timing, to verify the first kernel on its own
  session.read(bufTmp, tmp);

  // Error bounds (all inputs >= 0): a length-n dot product in any order, fma or not, is off by
  // at most gamma_n ~ (n+2) u times the exact dot product (u = 2^-24).
  //  - tmp = alpha * A B: checked against the exact product.
  //  - D_K = D_0 + K * tmp C: checked against the device's own tmp (read back), so the sample
  //    stays O(n^2); tmp may differ between iterations by its own bound (another device may
  //    have computed it), bounded by alpha (n+2) u n per entry.
  // A wrong or stale slice is off by O(1) relative, orders of magnitude above these bounds.
  const bool all = options.FullVerification || n <= FullCheckMaxN;
  const double u = 0x1.0p-24;
  const double tmpTolerance = alpha * (n + 2) * u * 1.01 * n;
  auto tmpCheck =
      checkEntries("2mm tmp", crossSample(n, SampledLines, all, options.Seed + 3), tmp, n, [&](size_t i, size_t j) {
        double dot = 0;
        for (size_t k = 0; k < n; ++k) dot += static_cast<double>(a[i * n + k]) * b[k * n + j];
        double value = alpha * dot;
        return std::pair{value, alpha * (n + 2) * u * 1.01 * dot + u * value + 1e-9};
      });
  auto dCheck =
      checkEntries("2mm D", crossSample(n, SampledLines, all, options.Seed + 5), d, n, [&](size_t i, size_t j) {
        double dot = 0, columnSum = 0;
        for (size_t k = 0; k < n; ++k) {
          dot += static_cast<double>(tmp[i * n + k]) * c[k * n + j];
          columnSum += c[k * n + j];
        }
        double value = d0[i * n + j] + iterations * dot;
        double perIteration = (n + 2) * u * 1.01 * dot + tmpTolerance * columnSum;
        return std::pair{value, iterations * (perIteration + 2 * u * std::fabs(value)) + 1e-7};
      });

  r.Workload = "2mm";
  r.Size = options.Size;
  r.Iterations = iterations;
  r.Check = all ? "full" : "sampled";
  record(r, tmpCheck);
  record(r, dCheck);
  return finishRun(r, session);
}

} // namespace

int main(int argc, char** argv) {
  return guardedMain([&] { return run(argc, argv); });
}
