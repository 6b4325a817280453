// Kernel time smoothing, noise tracking and launch-latency estimation.
#include "partitioner/KernelTimeModel.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace clsplit::partition {

void LaunchLatency::observeTime(double ns) {
  if (!(ns >= 0)) return;
  minTime_ = minTime_ < 0 ? ns : std::min(minTime_, ns);
}

void LaunchLatency::observeIntercept(uint32_t kernel, double ns) {
  if (!std::isfinite(ns) || ns < 0) return;
  auto [it, added] = intercepts_.try_emplace(kernel, ns);
  if (!added && it->second == ns) return;
  it->second = ns;
  updateMedian();
}

void LaunchLatency::updateMedian() {
  // Median of the prior and one intercept per kernel: an intercept fitted on an irregular
  // kernel (where the per-group cost changes with the slice) can be wrong, so one kernel alone
  // only moves an untrusted prior half-way; several kernels agreeing decide.
  std::vector<double> votes(priorVotes_, prior_);
  for (const auto& [k, v] : intercepts_) votes.push_back(v);
  std::sort(votes.begin(), votes.end());
  const size_t n = votes.size();
  median_ = n % 2 ? votes[n / 2] : 0.5 * (votes[n / 2 - 1] + votes[n / 2]);
}

double LaunchLatency::estimate() const {
  double l = median_;
  if (minTime_ >= 0) l = std::min(l, 0.9 * minTime_);
  return std::max(0.0, l);
}

KernelDeviceTime::Observation KernelDeviceTime::observe(uint64_t groups, uint64_t offset, double ns, double smoothing,
                                                        double floorGroups) {
  Observation obs;
  if (groups == 0 || !std::isfinite(ns) || ns < 0) return obs;

  // Two samples at clearly different group counts separate latency from per-group time.
  if (lastGroups_ > 0) {
    // Below the floor a slice takes as long as the floor's worth of groups: two such samples
    // say nothing about the latency (their slope is noise).
    double g0 = std::max(double(lastGroups_), floorGroups), g1 = std::max(double(groups), floorGroups);
    if (std::max(g0, g1) >= 1.25 * std::min(g0, g1)) {
      double slope = (ns - lastTime_) / (g1 - g0);
      if (slope > 0) {
        obs.interceptValid = true;
        obs.interceptNs = std::clamp(ns - slope * g1, 0.0, std::min(ns, lastTime_));
      }
    }
  }
  lastGroups_ = groups;
  lastTime_ = ns;

  const bool sameSlice = samples_ > 0 && groups == groups_ && offset == offset_;
  if (sameSlice && time_ > 0) {
    double deviation = std::abs(ns - time_) / time_;
    // A jump far beyond the usual noise is a change of load, not noise: follow it at once (and
    // keep it out of the noise estimate, or the next plans would wait for it to fade).
    bool jump = stableSamples_ >= 2 && deviation > std::max(0.3, 5 * noise_);
    // Noise from second differences of raw samples at this slice: a load drifting linearly
    // does not count as noise (it must be followed, not filtered). For independent noise of
    // standard deviation s, E|t2 - 2 t1 + t0| is about 1.95 s.
    if (!jump && stableSamples_ >= 1 && ns > 0) {
      double d2 = std::abs(ns - 2 * raw1_ + raw2_) / ns / 1.95;
      noise_ = noiseSamples_ == 0 ? d2 : 0.8 * noise_ + 0.2 * d2;
      ++noiseSamples_;
    }
    if (jump) {
      time_ = ns;
      stableSamples_ = 0;
    } else {
      time_ += std::clamp(smoothing, 0.0, 1.0) * (ns - time_);
      ++stableSamples_;
    }
  } else {
    time_ = ns;
    groups_ = groups;
    offset_ = offset;
    stableSamples_ = 0;
  }
  raw2_ = sameSlice ? raw1_ : ns;
  raw1_ = ns;
  ++samples_;
  return obs;
}

double KernelDeviceTime::nsPerGroup(double launchNs, double concurrentGroups) const {
  if (groups_ == 0) return 0;
  // The latency estimate may be off: never let it eat more than 90 % of a measured time.
  double work = std::max(time_ - launchNs, 0.1 * time_);
  return work / std::max(double(groups_), concurrentGroups);
}

void KernelDeviceTime::regroup(double oldPerNew) {
  lastGroups_ = 0;
  if (samples_ == 0 || !(oldPerNew > 0) || oldPerNew == 1) return;
  auto scaled = [&](uint64_t g) { return std::max<uint64_t>(1, uint64_t(std::llround(double(g) * oldPerNew))); };
  groups_ = scaled(groups_);
  if (offset_ != UINT64_MAX) offset_ = offset_ ? scaled(offset_) : 0;
}

void KernelDeviceTime::seed(uint64_t groups, double timeNs) {
  if (groups == 0 || !(timeNs > 0)) return;
  groups_ = groups;
  offset_ = UINT64_MAX; // no real slice: the first real sample replaces it
  time_ = timeNs;
  samples_ = std::max(samples_, 1u);
}

} // namespace clsplit::partition
