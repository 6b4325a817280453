// spmv-skewed: iterated CSR sparse product x <- A x with a skewed row-length profile: most rows
// are light and the last ones very heavy (thesis Table 4.1 SpMV: "rows with a high index have
// more non-zero elements"), so equal slices of rows carry very unequal work. Ping-pongs two
// vectors by resetting the kernel's arguments every iteration. First platform, first device of
// any type; NULL local size.
#include "bench/workloads/common/Csr.h"
#include "bench/workloads/common/Random.h"
#include "bench/workloads/common/Result.h"
#include "bench/workloads/common/Session.h"
#include "bench/workloads/common/SpmvCheck.h"
#include "bench/workloads/common/Stopwatch.h"

#include <cmath>

#include "spmv-skewed_kernel.h"

using namespace clsplit::bench;

namespace {

constexpr double MaxReferenceWork = 2e10; ///< nonzeros x iterations for the full trajectory

int run(int argc, char** argv) {
  ArgParser args(argc, argv, "iterated CSR SpMV, row lengths skewed to high rows; size = rows");
  CommonOptions options = parseCommonOptions(args, 1 << 18, 1, 1L << 26, 20);
  long minLength = args.integer("--min-row", 2, 1, 100000, "nonzeros of the lightest rows");
  long maxLength = args.integer("--max-row", 256, 1, 100000, "nonzeros of the heaviest rows");
  args.finish();
  const size_t n = static_cast<size_t>(options.Size);
  const int iterations = options.Iterations;

  // Length grows as (i/n)^8: the first half of the rows holds < 1% of the extra nonzeros.
  CsrMatrix a = makeCsr(
      n,
      [&](size_t i) {
        return static_cast<size_t>(minLength + std::lround((maxLength - minLength) * std::pow(double(i) / n, 8)));
      },
      options.Seed);
  std::vector<float> x0(n);
  Rng rng(options.Seed + 2);
  for (float& v : x0) v = static_cast<float>(rng.uniform(-1.0, 1.0));

  Session session = Session::open(options, DevicePolicy::FirstPlatformAll);
  Program program = session.buildProgram(kKernelSource);
  Kernel spmv = session.createKernel(program, "spmv");
  Buffer rowPtr = session.createBuffer(CL_MEM_READ_ONLY, a.RowPtr.size() * sizeof(cl_int));
  Buffer cols = session.createBuffer(CL_MEM_READ_ONLY, a.Cols.size() * sizeof(cl_int));
  Buffer vals = session.createBuffer(CL_MEM_READ_ONLY, a.Values.size() * sizeof(float));
  Buffer vectors[2] = {session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float)),
                       session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float))};

  // Where the result is read back: allocated (and its pages touched) outside the timed region.
  std::vector<float> x(n);
  Stopwatch total;
  session.write(rowPtr, a.RowPtr);
  session.write(cols, a.Cols);
  session.write(vals, a.Values);
  session.write(vectors[0], x0);
  session.finish();
  const cl_int rows = static_cast<cl_int>(n);
  Stopwatch timed;
  for (int t = 0; t < iterations; ++t) {
    setArgs(spmv, rowPtr, cols, vals, vectors[t % 2], vectors[(t + 1) % 2], rows);
    session.run(spmv, {n});
  }
  session.read(vectors[iterations % 2], x);
  RunResult r;
  r.Seconds = timed.seconds();
  r.TotalSeconds = total.seconds();
  std::vector<float> previous(n); // the last product's input, for the last-step check
  session.read(vectors[(iterations + 1) % 2], previous);

  record(r, checkProduct("spmv-skewed last x = A x_prev", a, previous, x));
  const double work = static_cast<double>(a.nonZeros()) * iterations;
  const bool trajectory = options.FullVerification || work <= MaxReferenceWork;
  if (trajectory) {
    std::vector<double> xd(x0.begin(), x0.end()), yd(n);
    for (int t = 0; t < iterations; ++t) {
      multiply(a, xd, yd);
      xd.swap(yd);
    }
    record(r, checkTrajectory("spmv-skewed x trajectory", x, xd, iterations));
  }

  r.Workload = "spmv-skewed";
  r.Size = options.Size;
  r.Iterations = iterations;
  r.Check = trajectory ? "full" : "last-step";
  r.Extra = {{"nnz", std::to_string(a.nonZeros())}};
  return finishRun(r, session);
}

} // namespace

int main(int argc, char** argv) {
  return guardedMain([&] { return run(argc, argv); });
}
