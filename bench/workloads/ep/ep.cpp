// ep: an EP-like compute-bound Monte-Carlo (NPB EP: Gaussian pairs by the polar method,
// counted per annulus), iterated: each iteration draws fresh pairs and accumulates into
// per-work-group slots. Uses get_group_id/get_global_size and local memory with barriers.
// Creates its context with clCreateContextFromType(CL_DEVICE_TYPE_DEFAULT); local size 128.
#include "bench/workloads/common/Parallel.h"
#include "bench/workloads/common/Random.h"
#include "bench/workloads/common/Result.h"
#include "bench/workloads/common/Sampling.h"
#include "bench/workloads/common/Session.h"
#include "bench/workloads/common/Stopwatch.h"
#include "bench/workloads/common/Verify.h"

#include <cmath>
#include <mutex>

#include "ep_kernel.h"

using namespace clsplit::bench;

namespace {

constexpr size_t LocalSize = 128;
constexpr int Annuli = 10;
constexpr double MaxReferencePairs = 3e8; ///< pairs the CPU recomputes when sampling groups

struct GroupTotals {
  double Sx = 0, Sy = 0, AbsSum = 0;
  unsigned Counts[Annuli] = {};
};

/// One work-group over all iterations, with the kernel's arithmetic and the kernel's
/// summation order (per item, then the same pairwise tree across the group's items).
GroupTotals referenceGroup(size_t group, uint64_t seed, int pairsPerItem, int iterations, size_t globalSize) {
  GroupTotals totals;
  for (int it = 0; it < iterations; ++it) {
    double sx[LocalSize], sy[LocalSize];
    unsigned q[Annuli][LocalSize] = {};
    for (size_t lid = 0; lid < LocalSize; ++lid) {
      uint64_t gid = group * LocalSize + lid;
      uint64_t first = (static_cast<uint64_t>(it) * globalSize + gid) * pairsPerItem;
      double itemX = 0, itemY = 0;
      for (int k = 0; k < pairsPerItem; ++k) {
        uint64_t counter = (first + k) * 2;
        double x = 2.0 * unitInterval(splitmix64(seed + counter)) - 1.0;
        double y = 2.0 * unitInterval(splitmix64(seed + counter + 1)) - 1.0;
        double t = x * x + y * y;
        if (t <= 1.0 && t > 0.0) {
          double f = std::sqrt(-2.0 * std::log(t) / t);
          double gx = x * f, gy = y * f;
          int l = static_cast<int>(std::fmax(std::fabs(gx), std::fabs(gy)));
          if (l < Annuli) ++q[l][lid];
          itemX += gx;
          itemY += gy;
          totals.AbsSum += std::fabs(gx) + std::fabs(gy);
        }
      }
      sx[lid] = itemX;
      sy[lid] = itemY;
    }
    for (size_t stride = LocalSize / 2; stride > 0; stride /= 2)
      for (size_t lid = 0; lid < stride; ++lid) {
        sx[lid] += sx[lid + stride];
        sy[lid] += sy[lid + stride];
        for (int l = 0; l < Annuli; ++l) q[l][lid] += q[l][lid + stride];
      }
    totals.Sx += sx[0];
    totals.Sy += sy[0];
    for (int l = 0; l < Annuli; ++l) totals.Counts[l] += q[l][0];
  }
  return totals;
}

int run(int argc, char** argv) {
  ArgParser args(argc, argv, "EP-like Monte-Carlo; size = work-items per iteration (multiple of 128)");
  CommonOptions options = parseCommonOptions(args, 1 << 16, 128, 1L << 28, 10);
  const int pairsPerItem =
      static_cast<int>(args.integer("--pairs", 256, 1, 1 << 20, "pairs drawn per work-item and iteration"));
  args.finish();
  if (options.Size % LocalSize != 0) throw UsageError("--size must be a multiple of 128 (the work-group size)");
  const size_t global = static_cast<size_t>(options.Size);
  const size_t groups = global / LocalSize;
  const int iterations = options.Iterations;
  const cl_ulong seed = splitmix64(options.Seed);

  Session session = Session::open(options, DevicePolicy::ContextFromType, CL_DEVICE_TYPE_DEFAULT);
  if (!session.deviceSupportsDouble())
    throw std::runtime_error("ep needs double precision (cl_khr_fp64) on " + session.deviceName());
  Program program = session.buildProgram(kKernelSource);
  Kernel ep = session.createKernel(program, "ep");
  Buffer sums = session.createBuffer(CL_MEM_READ_WRITE, groups * 2 * sizeof(double));
  Buffer counts = session.createBuffer(CL_MEM_READ_WRITE, groups * Annuli * sizeof(cl_uint));

  // Where the result is read back: allocated (and its pages touched) outside the timed region.
  std::vector<double> gotSums(groups * 2);
  std::vector<cl_uint> gotCounts(groups * Annuli);
  Stopwatch total;
  session.write(sums, std::vector<double>(groups * 2, 0.0));
  session.write(counts, std::vector<cl_uint>(groups * Annuli, 0));
  session.finish();
  Stopwatch timed;
  for (cl_int it = 0; it < iterations; ++it) {
    setArgs(ep, sums, counts, seed, static_cast<cl_int>(pairsPerItem), it, LocalBytes{LocalSize * sizeof(double)},
            LocalBytes{LocalSize * sizeof(double)}, LocalBytes{LocalSize * Annuli * sizeof(cl_uint)});
    session.run(ep, {global}, {LocalSize});
  }
  session.read(sums, gotSums);
  session.read(counts, gotCounts);
  RunResult r;
  r.Seconds = timed.seconds();
  r.TotalSeconds = total.seconds();

  // Recompute whole work-groups (all of them when affordable, else a spread sample: a slice
  // of a split NDRange is a range of groups, so every slice is touched). Counts must match
  // exactly; sums differ only by the device's log/sqrt (a few ulp per pair, OpenCL allows 3
  // ulp for log) and evaluation-order effects: 1e-12 of the sum of |terms| bounds that with a
  // wide margin, while a single missing or duplicated pair changes a sum by O(1).
  const double pairsPerGroup = double(LocalSize) * pairsPerItem * iterations;
  size_t sampleCount = groups;
  if (!options.FullVerification && pairsPerGroup * groups > MaxReferencePairs)
    sampleCount = std::max<size_t>(2, static_cast<size_t>(MaxReferencePairs / pairsPerGroup));
  auto sampled = spreadIndices(groups, sampleCount, options.Seed + 11);
  ToleranceCheck check("ep group totals");
  std::mutex merge;
  parallelFor(0, sampled.size(), [&](size_t begin, size_t end) {
    ToleranceCheck local("ep group totals");
    for (size_t s = begin; s < end; ++s) {
      size_t g = sampled[s];
      GroupTotals expected = referenceGroup(g, seed, pairsPerItem, iterations, global);
      double tolerance = 1e-12 * expected.AbsSum + 1e-12;
      local.compare(2 * g, gotSums[2 * g], expected.Sx, tolerance);
      local.compare(2 * g + 1, gotSums[2 * g + 1], expected.Sy, tolerance);
      for (int l = 0; l < Annuli; ++l) local.exact(Annuli * g + l, gotCounts[Annuli * g + l], expected.Counts[l]);
    }
    std::lock_guard<std::mutex> lock(merge);
    check.merge(local);
  });

  double sx = 0, sy = 0;
  unsigned long long accepted = 0;
  for (size_t g = 0; g < groups; ++g) {
    sx += gotSums[2 * g];
    sy += gotSums[2 * g + 1];
    for (int l = 0; l < Annuli; ++l) accepted += gotCounts[Annuli * g + l];
  }
  r.Workload = "ep";
  r.Size = options.Size;
  r.Iterations = iterations;
  r.Check = sampled.size() == groups ? "full" : "sampled";
  r.Extra = {{"pairs", std::to_string(static_cast<unsigned long long>(global) * pairsPerItem * iterations)},
             {"accepted", std::to_string(accepted)},
             {"sx", std::to_string(sx)},
             {"sy", std::to_string(sy)}};
  record(r, check);
  return finishRun(r, session);
}

} // namespace

int main(int argc, char** argv) {
  return guardedMain([&] { return run(argc, argv); });
}
