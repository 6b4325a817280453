// ADAPTIVE w/o COMM (thesis section 4.1) for one kernel: ratios that make every device finish at
// the same time given measured per-group times f_d and launch latencies L_d, the set of devices
// chosen so that fixed costs are only paid where they pay off; and the two ways of iterating it,
// the fixed point x <- F(x) and Broyden's secant update.
#pragma once

#include <vector>

namespace clsplit::partition {

struct KernelCosts {
  double groups = 1;
  std::vector<double> nsPerGroup;       // f_d at the current operating point
  std::vector<double> launchNs;         // L_d
  std::vector<double> concurrentGroups; // per device, see shareTimeNs (empty: none)
  std::vector<bool> allowed;
  double hostOverheadNs = 0; // serial cost per sub-launch
  // Per device (empty: no limit), the largest share its memory and its largest allocation hold,
  std::vector<double> maxRatio;
  // and the largest share its largest allocation alone holds (a share's window of the launch's
  // largest buffer is one allocation): where the devices' memory cannot hold the launch together
  // (left to evictions) this bound stays (MemoryFit.h, boundsThatHold).
  std::vector<double> allocRatio;
};

// The bounds the shares are held to (boundsThatHold; empty: none).
std::vector<double> shareBounds(const KernelCosts& costs);
// Whether shares `y` fit those bounds (to a work-group), or no split of the allowed devices
// could (then memory is left to evictions).
bool sharesFit(const KernelCosts& costs, const std::vector<double>& y);
// `y` with what exceeds a device's bound moved to the devices with room, in proportion to
// their speed (unchanged where no split fits).
std::vector<double> capShares(const KernelCosts& costs, std::vector<double> y);

// max_d (L_d + f_d * groups * y_d) + hostOverhead * (devices used); kUnfitNs (MemoryFit.h) more
// when the shares do not fit their bounds (sharesFit).
double predictKernel(const KernelCosts& costs, const std::vector<double>& ratios);

// F(x): equal finish times over the best device subset (greedy removal, best single included).
std::vector<double> balanceKernel(const KernelCosts& costs);

// Broyden's method on G(x) = x - F(x) with an inverse-Jacobian estimate, started at the identity
// (so its first step is the fixed point). Steps that leave the simplex or blow up fall back to
// the fixed point and restart the estimate.
// Under-relaxation for the fixed point: x <- x + beta (F(x) - x), beta halved when two successive
// steps point in opposite directions (the iteration oscillates, as it does when a hot spot of
// expensive groups crosses a slice boundary) and doubled back towards 1 while they agree (a
// drifting load is followed at full speed).
class Relaxation {
public:
  // `current` and `target` are flattened ratios of equal length; returns the relaxed point.
  std::vector<double> step(const std::vector<double>& current, const std::vector<double>& target);
  void reset() {
    beta_ = 1;
    lastStep_.clear();
  }
  double beta() const { return beta_; }

private:
  double beta_ = 1;
  std::vector<double> lastStep_;
};

class BroydenSolver {
public:
  std::vector<double> next(const std::vector<double>& x, const std::vector<double>& fx);
  void reset();

private:
  std::vector<double> prevX_, prevG_;
  std::vector<std::vector<double>> inverseJacobian_;
};

} // namespace clsplit::partition
