// Measured kernel times: per (kernel, device) the time at the current operating point, smoothed
// against noise, and per device the fixed per-launch cost, so that time = latency + f * groups.
#pragma once

#include <cstdint>
#include <map>

namespace clsplit::partition {

// Time of `groups` work-groups on a device: its launch latency plus the per-group time, where a
// device that runs `concurrentGroups` at once takes as long for fewer as for that many (0: no
// such floor). Every prediction of a device's share goes through this.
inline double shareTimeNs(double launchNs, double nsPerGroup, double groups, double concurrentGroups) {
  return launchNs + nsPerGroup * (groups > concurrentGroups ? groups : concurrentGroups);
}

// The fixed cost of one launch on a device: a prior, refined by intercepts fitted on kernels
// measured at several group counts, and never above what the fastest launch actually took.
class LaunchLatency {
public:
  // `trusted`: the prior was measured by the runtime (it then outweighs three kernels' fits).
  explicit LaunchLatency(double priorNs = 0, bool trusted = false)
      : prior_(priorNs), priorVotes_(trusted ? 4 : 1), median_(priorNs) {}

  void observeTime(double ns);
  void observeIntercept(uint32_t kernel, double ns);
  double estimate() const;
  double prior() const { return prior_; }
  void setPrior(double ns, bool trusted = true) {
    prior_ = ns;
    priorVotes_ = trusted ? 4 : 1;
    updateMedian();
  }

private:
  // The vote (see estimate()), kept up to date as votes change: the partitioner asks for the
  // estimate several times per launch.
  void updateMedian();

  double prior_;
  unsigned priorVotes_;
  double median_;
  double minTime_ = -1;
  std::map<uint32_t, double> intercepts_; // latest intercept per kernel
};

// One kernel on one device.
class KernelDeviceTime {
public:
  // `groups` groups starting at group `offset` took `ns`; `smoothing` weighs a new sample when
  // the slice did not move. Returns an intercept estimate when this sample and the previous one
  // have group counts different enough to separate latency from per-group time.
  struct Observation {
    bool interceptValid = false;
    double interceptNs = 0;
  };
  // `floorGroups`: the groups the device runs at once (see shareTimeNs): slices of fewer count
  // as that many when separating latency from per-group time.
  Observation observe(uint64_t groups, uint64_t offset, double ns, double smoothing, double floorGroups = 0);

  bool known() const { return samples_ > 0; }
  // Time per work-group at the last operating point, given the device's launch latency and the
  // groups it runs at once (a slice of fewer took as long as that many would have).
  double nsPerGroup(double launchNs, double concurrentGroups = 0) const;
  double timeNs() const { return time_; } // smoothed time at the operating point
  uint64_t groups() const { return groups_; }
  // Relative noise (about one standard deviation) of samples at a fixed slice, from second
  // differences so that a steady drift is not mistaken for noise.
  double noise() const { return noise_; }
  unsigned samples() const { return samples_; }
  // Sets the operating point directly (warm start from a profile).
  void seed(uint64_t groups, double timeNs);
  // The kernel's groups of the split dimension now hold `oldPerNew` times fewer work-items than
  // before (another work-group size, or another count of work-groups per row): the operating
  // point is kept, counted in the new groups, and no latency is inferred across the change.
  void regroup(double oldPerNew);

private:
  double time_ = 0;
  uint64_t groups_ = 0, offset_ = 0;
  double noise_ = 0;
  unsigned samples_ = 0, stableSamples_ = 0, noiseSamples_ = 0;
  // The last raw sample, for intercept estimates.
  double lastTime_ = 0;
  // The last two raw samples at the current slice (noise estimate).
  double raw1_ = 0, raw2_ = 0;
  uint64_t lastGroups_ = 0;
};

} // namespace clsplit::partition
