// 2spmv: two CSR sparse products per iteration, y = A1 x then x = A2 y (the output of one is the
// input of the next), with irregular row lengths: A1's rows are heavier at low index, A2's at
// high index, so the two kernels want opposite splits. The matrices never change (thesis:
// broadcast once). Asks for a GPU, falls back to any device; explicit local size 128.
#include "bench/workloads/common/Csr.h"
#include "bench/workloads/common/Random.h"
#include "bench/workloads/common/Result.h"
#include "bench/workloads/common/Session.h"
#include "bench/workloads/common/SpmvCheck.h"
#include "bench/workloads/common/Stopwatch.h"

#include <cmath>

#include "2spmv_kernel.h"

using namespace clsplit::bench;

namespace {

constexpr size_t LocalSize = 128;
constexpr double MaxReferenceWork = 2e10; ///< nonzeros x iterations for the full trajectory

struct DeviceMatrix {
  Buffer RowPtr, Cols, Values;
};

DeviceMatrix upload(const Session& session, const CsrMatrix& m) {
  DeviceMatrix d{session.createBuffer(CL_MEM_READ_ONLY, m.RowPtr.size() * sizeof(cl_int)),
                 session.createBuffer(CL_MEM_READ_ONLY, m.Cols.size() * sizeof(cl_int)),
                 session.createBuffer(CL_MEM_READ_ONLY, m.Values.size() * sizeof(float))};
  session.write(d.RowPtr, m.RowPtr);
  session.write(d.Cols, m.Cols);
  session.write(d.Values, m.Values);
  return d;
}

int run(int argc, char** argv) {
  ArgParser args(argc, argv, "two chained CSR SpMV kernels, opposite irregularity; size = rows");
  CommonOptions options = parseCommonOptions(args, 1 << 18, 1, 1L << 26, 20);
  long minLength = args.integer("--min-row", 4, 1, 100000, "nonzeros of the lightest rows");
  long maxLength = args.integer("--max-row", 128, 1, 100000, "nonzeros of the heaviest rows");
  args.finish();
  const size_t n = static_cast<size_t>(options.Size);
  const int iterations = options.Iterations;

  // Row length falls (A1) or rises (A2) quadratically between the two extremes.
  auto profile = [&](double f) {
    return static_cast<size_t>(minLength + std::lround((maxLength - minLength) * f * f));
  };
  CsrMatrix a1 = makeCsr(
      n, [&](size_t i) { return profile(1.0 - double(i) / n); }, options.Seed);
  CsrMatrix a2 = makeCsr(
      n, [&](size_t i) { return profile(double(i) / n); }, options.Seed + 1);
  std::vector<float> x0(n);
  Rng rng(options.Seed + 2);
  for (float& v : x0) v = static_cast<float>(rng.uniform(-1.0, 1.0));

  Session session = Session::open(options, DevicePolicy::GpuThenAny);
  Program program = session.buildProgram(kKernelSource);
  // Two kernel objects of one function, each with its own fixed arguments.
  Kernel first = session.createKernel(program, "spmv");
  Kernel second = session.createKernel(program, "spmv");
  Buffer bufX = session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float));
  Buffer bufY = session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float));

  // Where the result is read back: allocated (and its pages touched) outside the timed region.
  std::vector<float> x(n);
  Stopwatch total;
  DeviceMatrix m1 = upload(session, a1), m2 = upload(session, a2);
  session.write(bufX, x0);
  session.finish();
  const cl_int rows = static_cast<cl_int>(n);
  setArgs(first, m1.RowPtr, m1.Cols, m1.Values, bufX, bufY, rows);
  setArgs(second, m2.RowPtr, m2.Cols, m2.Values, bufY, bufX, rows);
  Stopwatch timed;
  for (int t = 0; t < iterations; ++t) {
    session.run(first, {roundUp(n, LocalSize)}, {LocalSize});
    session.run(second, {roundUp(n, LocalSize)}, {LocalSize});
  }
  session.read(bufX, x);
  RunResult r;
  r.Seconds = timed.seconds();
  r.TotalSeconds = total.seconds();
  std::vector<float> y(n); // the last intermediate, for the last-step check
  session.read(bufY, y);

  record(r, checkProduct("2spmv last x = A2 y", a2, y, x));
  const double work = static_cast<double>(a1.nonZeros() + a2.nonZeros()) * iterations;
  const bool trajectory = options.FullVerification || work <= MaxReferenceWork;
  if (trajectory) {
    std::vector<double> xd(x0.begin(), x0.end()), yd(n);
    for (int t = 0; t < iterations; ++t) {
      multiply(a1, xd, yd);
      multiply(a2, yd, xd);
    }
    record(r, checkTrajectory("2spmv x trajectory", x, xd, 2L * iterations));
  }

  r.Workload = "2spmv";
  r.Size = options.Size;
  r.Iterations = iterations;
  r.Check = trajectory ? "full" : "last-step";
  r.Extra = {{"nnz", std::to_string(a1.nonZeros() + a2.nonZeros())}};
  return finishRun(r, session);
}

} // namespace

int main(int argc, char** argv) {
  return guardedMain([&] { return run(argc, argv); });
}
