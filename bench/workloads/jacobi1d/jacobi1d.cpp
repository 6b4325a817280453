// jacobi1d: Polybench's 1-D Jacobi stencil iterated as two kernels (stencil, copy). An ordinary
// single-device program: first platform, its CL_DEVICE_TYPE_DEFAULT device, NULL local size.
#include "bench/workloads/common/Parallel.h"
#include "bench/workloads/common/Random.h"
#include "bench/workloads/common/Result.h"
#include "bench/workloads/common/Session.h"
#include "bench/workloads/common/Stopwatch.h"
#include "bench/workloads/common/Verify.h"

#include "jacobi1d_kernel.h"

using namespace clsplit::bench;

namespace {

/// The same float operations in the same order as the kernels, one time step at a time.
void reference(std::vector<float>& a, std::vector<float>& b, int iterations) {
  const size_t n = a.size();
  for (int t = 0; t < iterations; ++t) {
    parallelFor(1, n - 1, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) b[i] = 0.33333f * (a[i - 1] + a[i] + a[i + 1]);
    });
    parallelFor(1, n - 1, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) a[i] = b[i];
    });
  }
}

int run(int argc, char** argv) {
  ArgParser args(argc, argv, "Polybench jacobi-1d (stencil + copy kernels); size = number of points");
  CommonOptions options = parseCommonOptions(args, 1 << 20, 3, 1L << 30, 100);
  args.finish();
  const size_t n = static_cast<size_t>(options.Size);

  // Random rather than Polybench's linear ramp: a ramp is a fixed point of the averaging, so a
  // stale halo value would go unnoticed.
  std::vector<float> a(n);
  fillUniform(a, options.Seed);
  std::vector<float> b = a;

  Session session = Session::open(options, DevicePolicy::FirstPlatformDefault);
  Program program = session.buildProgram(kKernelSource);
  Kernel stencil = session.createKernel(program, "jacobi1d_stencil");
  Kernel copy = session.createKernel(program, "jacobi1d_copy");
  Buffer bufA = session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float));
  Buffer bufB = session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float));
  const cl_int count = static_cast<cl_int>(n);
  setArgs(stencil, bufA, bufB, count);
  setArgs(copy, bufA, bufB, count);

  // Where the result is read back: allocated (and its pages touched) outside the timed region.
  std::vector<float> result(n);
  Stopwatch total;
  session.write(bufA, a);
  session.write(bufB, b);
  session.finish();
  Stopwatch timed;
  // The enqueue loop alone, with this thread's scheduler statistics: how much of its wall-clock
  // time the thread ran, and how long it was runnable but preempted (the host-costs experiment,
  // bench/harness/experiments/host_costs.py).
  const ThreadSchedStat before = ThreadSchedStat::now();
  for (int t = 0; t < options.Iterations; ++t) {
    session.run(stencil, {n});
    session.run(copy, {n});
  }
  const double enqueueSeconds = timed.seconds();
  const ThreadSchedStat enqueue = ThreadSchedStat::now() - before;
  session.read(bufA, result);
  RunResult r;
  r.Extra = {{"enqueue_ms", std::to_string(enqueueSeconds * 1e3)},
             {"enqueue_cpu_ms", std::to_string(enqueue.RunNs / 1e6)},
             {"enqueue_preempted_ms", std::to_string(enqueue.WaitNs / 1e6)},
             {"enqueue_timeslices", std::to_string(enqueue.Slices)}};
  r.Seconds = timed.seconds();
  r.TotalSeconds = total.seconds();

  reference(a, b, options.Iterations);
  // The reference performs the kernel's float operations in the kernel's order, so results are
  // normally bit-identical; 1e-5 (~100 ulp of the values, which stay in [0, 1]) only absorbs a
  // compiler evaluating the sum differently, and is far below the error of any stale or
  // missing value (random inputs differ by O(0.1) between neighbours and time steps).
  ToleranceCheck check("jacobi1d A");
  for (size_t i = 0; i < n; ++i) check.compare(i, result[i], a[i], 1e-5);

  r.Workload = "jacobi1d";
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
