// fdtd2d: Polybench's 2-D finite-difference time-domain kernels (three stencils per step; the
// step number is a kernel argument that changes every launch). Creates its context with
// clCreateContextFromType(CL_DEVICE_TYPE_ALL) on the first platform and uses that context's
// first device; explicit 32x8 local size (Polybench-ACC's), global size rounded up to it.
#include "bench/workloads/common/Parallel.h"
#include "bench/workloads/common/Random.h"
#include "bench/workloads/common/Result.h"
#include "bench/workloads/common/Session.h"
#include "bench/workloads/common/Stopwatch.h"
#include "bench/workloads/common/Verify.h"

#include <algorithm>
#include <cmath>

#include "fdtd2d_kernel.h"

using namespace clsplit::bench;

namespace {

constexpr size_t LocalX = 32, LocalY = 8;

struct Fields {
  std::vector<float> Ex, Ey, Hz;
};

/// The kernels' float operations in the kernels' order, one kernel (one sweep) at a time.
void reference(Fields& f, const std::vector<float>& fict, size_t n, int steps) {
  float *ex = f.Ex.data(), *ey = f.Ey.data(), *hz = f.Hz.data();
  for (int t = 0; t < steps; ++t) {
    parallelFor(0, n, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i)
        for (size_t j = 0; j < n; ++j)
          ey[i * n + j] = i == 0 ? fict[t] : ey[i * n + j] - 0.5f * (hz[i * n + j] - hz[(i - 1) * n + j]);
    });
    parallelFor(0, n, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i)
        for (size_t j = 1; j < n; ++j) ex[i * n + j] = ex[i * n + j] - 0.5f * (hz[i * n + j] - hz[i * n + (j - 1)]);
    });
    parallelFor(0, n - 1, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i)
        for (size_t j = 0; j < n - 1; ++j)
          hz[i * n + j] =
              hz[i * n + j] - 0.7f * (ex[i * n + (j + 1)] - ex[i * n + j] + ey[(i + 1) * n + j] - ey[i * n + j]);
    });
  }
}

void compareField(RunResult& r, const char* name, const std::vector<float>& got, const std::vector<float>& expected,
                  int steps) {
  // The scheme is stable (it neither damps nor amplifies errors), so per-step rounding
  // differences (a device contracting a*b+c into an fma: <= 2 ulp of the field's magnitude per
  // step) add up at most linearly: 8 * steps * 2^-24 * max|field|. A stale or missing value is
  // off by the field's change per step, O(1) here (the source term grows by 1 per step).
  float magnitude = 1.0f;
  for (float v : expected) magnitude = std::max(magnitude, std::fabs(v));
  const double tolerance = 8.0 * steps * 0x1.0p-24 * magnitude + 1e-6;
  ToleranceCheck check(std::string("fdtd2d ") + name);
  for (size_t k = 0; k < got.size(); ++k) check.compare(k, got[k], expected[k], tolerance);
  record(r, check);
}

int run(int argc, char** argv) {
  ArgParser args(argc, argv, "Polybench fdtd-2d (3 stencil kernels); size = n of n x n fields");
  CommonOptions options = parseCommonOptions(args, 1024, 2, 32768, 20);
  args.finish();
  const size_t n = static_cast<size_t>(options.Size);
  const int steps = options.Iterations;

  Fields fields{std::vector<float>(n * n), std::vector<float>(n * n), std::vector<float>(n * n)};
  fillUniform(fields.Ex, options.Seed);
  fillUniform(fields.Ey, options.Seed + 1);
  fillUniform(fields.Hz, options.Seed + 2);
  std::vector<float> fict(steps);
  for (int t = 0; t < steps; ++t) fict[t] = static_cast<float>(t);

  Session session = Session::open(options, DevicePolicy::ContextFromType, CL_DEVICE_TYPE_ALL);
  Program program = session.buildProgram(kKernelSource);
  Kernel kernelEy = session.createKernel(program, "fdtd_ey");
  Kernel kernelEx = session.createKernel(program, "fdtd_ex");
  Kernel kernelHz = session.createKernel(program, "fdtd_hz");
  const size_t bytes = n * n * sizeof(float);
  Buffer bufFict = session.createBuffer(CL_MEM_READ_ONLY, steps * sizeof(float));
  Buffer bufEx = session.createBuffer(CL_MEM_READ_WRITE, bytes);
  Buffer bufEy = session.createBuffer(CL_MEM_READ_WRITE, bytes);
  Buffer bufHz = session.createBuffer(CL_MEM_READ_WRITE, bytes);
  const cl_int nx = static_cast<cl_int>(n), ny = static_cast<cl_int>(n);
  setArgs(kernelEx, bufEx, bufEy, bufHz, nx, ny);
  setArgs(kernelHz, bufEx, bufEy, bufHz, nx, ny);

  // Where the results are read back: allocated (and their pages touched) outside the timed region.
  Fields result{std::vector<float>(n * n), std::vector<float>(n * n), std::vector<float>(n * n)};
  Stopwatch total;
  session.write(bufFict, fict);
  session.write(bufEx, fields.Ex);
  session.write(bufEy, fields.Ey);
  session.write(bufHz, fields.Hz);
  session.finish();
  Stopwatch timed;
  const std::vector<size_t> global = {roundUp(n, LocalX), roundUp(n, LocalY)};
  const std::vector<size_t> local = {LocalX, LocalY};
  for (cl_int t = 0; t < steps; ++t) {
    setArgs(kernelEy, bufFict, bufEx, bufEy, bufHz, t, nx, ny);
    session.run(kernelEy, global, local);
    session.run(kernelEx, global, local);
    session.run(kernelHz, global, local);
  }
  session.read(bufHz, result.Hz);
  RunResult r;
  r.Seconds = timed.seconds();
  r.TotalSeconds = total.seconds();
  // hz is the program's output; ex and ey are read after timing, for verification only.
  session.read(bufEx, result.Ex);
  session.read(bufEy, result.Ey);

  reference(fields, fict, n, steps);
  compareField(r, "hz", result.Hz, fields.Hz, steps);
  compareField(r, "ex", result.Ex, fields.Ex, steps);
  compareField(r, "ey", result.Ey, fields.Ey, steps);

  r.Workload = "fdtd2d";
  r.Size = options.Size;
  r.Iterations = steps;
  r.Check = "full";
  return finishRun(r, session);
}

} // namespace

int main(int argc, char** argv) {
  return guardedMain([&] { return run(argc, argv); });
}
