// Least squares of y = intercept + slope * x over a bounded window of recent samples, both
// coefficients kept non-negative (they are latencies and per-unit costs).
#pragma once

#include <cstddef>
#include <deque>

namespace clsplit::partition {

class LinearFit {
public:
  explicit LinearFit(size_t window = 64) : window_(window) {}

  void add(double x, double y);
  size_t samples() const { return samples_.size(); }
  // True when x varies enough (max/min >= spread) for the intercept to be identifiable.
  bool spread(double ratio = 2.0) const;

  struct Line {
    double intercept = 0;
    double slope = 0;
  };
  // The fit; with too little spread in x, the intercept is `priorIntercept` and the slope fits
  // the rest. Without samples, the prior line.
  Line fit(Line prior) const;

private:
  struct Sample {
    double x, y;
  };
  size_t window_;
  std::deque<Sample> samples_;
};

} // namespace clsplit::partition
