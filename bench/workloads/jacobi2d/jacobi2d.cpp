// jacobi2d: Polybench's 2-D Jacobi stencil iterated as two kernels (stencil, copy). Picks its
// device by type (--device-type, else $OCL_DEVICE_TYPE, else any) and launches with an explicit
// 16x16 local size over a global size rounded up to it (the kernels guard the edges).
#include "bench/workloads/common/Parallel.h"
#include "bench/workloads/common/Random.h"
#include "bench/workloads/common/Result.h"
#include "bench/workloads/common/Session.h"
#include "bench/workloads/common/Stopwatch.h"
#include "bench/workloads/common/Verify.h"

#include "jacobi2d_kernel.h"

using namespace clsplit::bench;

namespace {

constexpr size_t LocalSize = 16;

/// The kernels' float operations in the kernels' order, one time step at a time.
void reference(std::vector<float>& a, std::vector<float>& b, size_t n, int iterations) {
  for (int t = 0; t < iterations; ++t) {
    parallelFor(1, n - 1, [&](size_t rowBegin, size_t rowEnd) {
      for (size_t i = rowBegin; i < rowEnd; ++i)
        for (size_t j = 1; j < n - 1; ++j)
          b[i * n + j] =
              0.2f * (a[i * n + j] + a[i * n + (j - 1)] + a[i * n + (j + 1)] + a[(i + 1) * n + j] + a[(i - 1) * n + j]);
    });
    parallelFor(1, n - 1, [&](size_t rowBegin, size_t rowEnd) {
      for (size_t i = rowBegin; i < rowEnd; ++i)
        for (size_t j = 1; j < n - 1; ++j) a[i * n + j] = b[i * n + j];
    });
  }
}

int run(int argc, char** argv) {
  ArgParser args(argc, argv, "Polybench jacobi-2d (stencil + copy kernels); size = n of n x n");
  CommonOptions options = parseCommonOptions(args, 1024, 3, 46000, 20);
  args.finish();
  const size_t n = static_cast<size_t>(options.Size);

  // Random inputs: Polybench's smooth initialisation is nearly a fixed point of the averaging,
  // which would hide stale halo rows.
  std::vector<float> a(n * n);
  fillUniform(a, options.Seed);
  std::vector<float> b = a;

  Session session = Session::open(options, DevicePolicy::TypeFromEnvOrFlag);
  Program program = session.buildProgram(kKernelSource);
  Kernel stencil = session.createKernel(program, "jacobi2d_stencil");
  Kernel copy = session.createKernel(program, "jacobi2d_copy");
  Buffer bufA = session.createBuffer(CL_MEM_READ_WRITE, n * n * sizeof(float));
  Buffer bufB = session.createBuffer(CL_MEM_READ_WRITE, n * n * sizeof(float));
  const cl_int size = static_cast<cl_int>(n);
  setArgs(stencil, bufA, bufB, size);
  setArgs(copy, bufA, bufB, size);
  const std::vector<size_t> global = {roundUp(n, LocalSize), roundUp(n, LocalSize)};
  const std::vector<size_t> local = {LocalSize, LocalSize};

  // Where the result is read back: allocated (and its pages touched) outside the timed region.
  std::vector<float> result(n * n);
  Stopwatch total;
  session.write(bufA, a);
  session.write(bufB, b);
  session.finish();
  Stopwatch timed;
  for (int t = 0; t < options.Iterations; ++t) {
    session.run(stencil, global, local);
    session.run(copy, global, local);
  }
  session.read(bufA, result);
  RunResult r;
  r.Seconds = timed.seconds();
  r.TotalSeconds = total.seconds();

  reference(a, b, n, options.Iterations);
  // Same operations in the same order as the kernel: normally bit-identical. 1e-5 on values in
  // [0, 1] tolerates a different evaluation order yet catches any stale or missing value.
  ToleranceCheck check("jacobi2d A");
  for (size_t k = 0; k < n * n; ++k) check.compare(k, result[k], a[k], 1e-5);

  r.Workload = "jacobi2d";
  r.Size = options.Size;
  r.Iterations = options.Iterations;
  r.Check = "full";
  record(r, check);
  return finishRun(r, session);
}

} // namespace

int main(int argc, char** argv) {
  return guardedMain([&] { return run(argc, argv); });
}
