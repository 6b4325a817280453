// Verification shared by the SpMV workloads: the device's last product against its own input
// vector (rigorous bound, always), and the whole iterated trajectory against a double
// reference (when affordable).
#pragma once

#include "bench/workloads/common/Csr.h"
#include "bench/workloads/common/Verify.h"

#include <algorithm>
#include <cmath>

namespace clsplit::bench {

/// y ?= m x for float vectors read back from the device; rigorous tolerance (rowErrorBounds).
inline ToleranceCheck checkProduct(const char* what, const CsrMatrix& m, const std::vector<float>& x,
                                   const std::vector<float>& y) {
  std::vector<double> xd(x.begin(), x.end()), expected(m.Rows), bound(m.Rows);
  multiply(m, xd, expected);
  rowErrorBounds(m, x, bound);
  ToleranceCheck check(what);
  for (size_t i = 0; i < m.Rows; ++i) check.compare(i, y[i], expected[i], bound[i]);
  return check;
}

/// Float vs double trajectories after \p products sparse products. Rows have unit 2-norm and
/// random signs, so the map roughly preserves magnitudes and rounding errors neither vanish
/// nor blow up: they accumulate like a random walk, ~sqrt(products) * u * sqrt(row length)
/// relative to the vector's scale. The tolerance, 2e-5 * sqrt(products) * max|x|, was
/// calibrated on PoCL (observed errors stay two orders of magnitude below it, see
/// docs/benchmarks.md); wrong or stale data is off by O(max|x|).
inline ToleranceCheck checkTrajectory(const char* what, const std::vector<float>& got,
                                      const std::vector<double>& expected, long products) {
  double scale = 0;
  for (double v : expected) scale = std::max(scale, std::fabs(v));
  const double tolerance = 2e-5 * std::sqrt(static_cast<double>(products)) * scale + 1e-30;
  ToleranceCheck check(what);
  for (size_t i = 0; i < got.size(); ++i) check.compare(i, got[i], expected[i], tolerance);
  return check;
}

} // namespace clsplit::bench
