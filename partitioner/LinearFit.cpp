// Non-negative two-parameter least squares over a sliding window.
#include "partitioner/LinearFit.h"

#include <algorithm>
#include <cmath>

namespace clsplit::partition {

void LinearFit::add(double x, double y) {
  if (!std::isfinite(x) || !std::isfinite(y) || x < 0 || y < 0) return;
  samples_.push_back({x, y});
  while (samples_.size() > window_) samples_.pop_front();
}

bool LinearFit::spread(double ratio) const {
  if (samples_.size() < 2) return false;
  double lo = samples_.front().x, hi = lo;
  for (const auto& s : samples_) {
    lo = std::min(lo, s.x);
    hi = std::max(hi, s.x);
  }
  return hi > 0 && hi >= ratio * std::max(lo, 1e-300) && hi - lo > 0;
}

LinearFit::Line LinearFit::fit(Line prior) const {
  if (samples_.empty()) return prior;
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& s : samples_) {
    n += 1;
    sx += s.x;
    sy += s.y;
    sxx += s.x * s.x;
    sxy += s.x * s.y;
  }
  auto slopeThroughPoint = [&](double intercept) {
    // Least squares slope with a fixed intercept.
    double num = sxy - intercept * sx;
    return sxx > 0 ? std::max(0.0, num / sxx) : 0.0;
  };
  if (!spread()) {
    double intercept = std::max(0.0, std::min(prior.intercept, sy / n));
    return {intercept, slopeThroughPoint(intercept)};
  }
  double det = n * sxx - sx * sx;
  double slope = (n * sxy - sx * sy) / det;
  double intercept = (sy - slope * sx) / n;
  if (slope < 0) return {std::max(0.0, sy / n), 0.0};
  if (intercept < 0) return {0.0, slopeThroughPoint(0.0)};
  return {intercept, slope};
}

} // namespace clsplit::partition
