// reportJson(): what the partitioner decided and why, for the run report: the detected sequence,
// per-kernel ratio history and convergence, per-iteration predicted vs measured times, LP costs.
#include "partitioner/DynamicPartitioner.h"

#include "support/Json.h"

namespace clsplit::partition {

std::string DynamicPartitioner::reportJson() const {
  std::lock_guard lock(mutex_);
  JsonWriter j;
  j.beginObject();
  j.key("strategy").value(spec_.str());
  j.key("devices").beginArray();
  for (unsigned d = 0; d < n_; ++d) {
    j.beginObject();
    j.key("name").value(devices_[d].name);
    j.key("gpu").value(devices_[d].isGpu);
    j.key("platform").value(devices_[d].platform);
    j.key("concurrentGroups").value(devices_[d].concurrentGroups);
    j.key("launchLatencyNs").value(latency(d));
    // How far this device's sub-kernels ran at the same time as each other device's (1: fully,
    // 0: taking turns; -1: not measured).
    j.key("concurrency").beginArray();
    for (unsigned o = 0; o < n_; ++o)
      j.value(o == d || !concurrency_[d][o].samples ? -1.0 : concurrency_[d][o].overlap);
    j.endArray();
    j.endObject();
  }
  j.endArray();

  j.key("sequence").beginObject();
  j.key("locked").value(sequence_.locked());
  j.key("kernels").beginArray();
  for (auto k : seq_.kernels) j.value(kernels_[k].name);
  j.endArray();
  j.key("iterations").value(uint64_t(sequence_.locked() ? sequence_.iterations() : 0));
  j.key("detections").value(sequence_.generation());
  j.key("breaks").value(sequence_.breaks());
  // The sequence has converged once none of its kernels changes its ratios any more.
  int64_t converged = -1;
  if (sequence_.locked()) {
    converged = 0;
    for (auto k : seq_.kernels) {
      const auto& ks = kernels_[k];
      for (const auto& h : ks.history)
        if (h.launch == ks.settledAfter) converged = std::max(converged, h.iteration);
    }
  }
  j.key("convergedAtIteration").value(converged);
  j.endObject();

  j.key("hostOverheadPerSubLaunchNs").value(hostOverheadNs_);
  j.key("settledLaunches").value(settledLaunches_); // planned by the settled lane (planSettledWhole)
  j.key("planLockWaits").value(planLockWaits_);
  j.key("planLockWaitNs").value(planLockWaitNs_);
  j.key("lp").beginObject();
  j.key("solves").value(solves_);
  j.key("skippedUnchanged").value(skippedSolves_);
  j.key("simplexRuns").value(simplexRuns_);
  j.key("rebuilds").value(lp_ ? lp_->rebuilds() : 0u);
  j.key("meanSolveUs").value(solves_ ? solveNsTotal_ / double(solves_) / 1e3 : 0.0);
  j.key("maxSolveUs").value(solveNsMax_ / 1e3);
  j.key("planChanges").value(planChanges_);
  j.key("changesNotRepaid").value(changesNotRepaid_);
  j.endObject();

  j.key("kernels").beginArray();
  for (const auto& ks : kernels_) {
    j.beginObject();
    j.key("kernel").value(ks.name);
    j.key("launches").value(ks.launches);
    j.key("settledAfterLaunches").value(ks.settledAfter);
    j.key("probes").value(ks.probes);
    j.key("nsPerGroup").beginArray();
    for (unsigned d = 0; d < n_; ++d) {
      if (ks.devices[d].known())
        j.value(measuredNsPerGroup(ks, d));
      else
        j.null();
    }
    j.endArray();
    j.key("history").beginArray();
    for (const auto& h : ks.history) {
      j.beginObject();
      j.key("launch").value(h.launch);
      if (h.iteration >= 0) j.key("iteration").value(h.iteration);
      j.key("ratios").numbers(h.ratios);
      j.endObject();
    }
    j.endArray();
    j.endObject();
  }
  j.endArray();

  j.key("iterations").beginArray();
  for (const auto& [i, it] : seq_.iterations) {
    j.beginObject();
    j.key("iteration").value(i);
    if (it.predictedNs >= 0) j.key("predictedNs").value(it.predictedNs);
    if (it.predictedComputeNs >= 0) j.key("predictedComputeNs").value(it.predictedComputeNs);
    if (it.measuredLaunches == seq_.kernels.size()) j.key("measuredKernelNs").value(it.measuredKernelNs);
    if (it.hostIntervalNs >= 0) j.key("hostIntervalNs").value(it.hostIntervalNs);
    j.key("resolvedBefore").value(it.solved);
    j.endObject();
  }
  j.endArray();
  j.endObject();
  return j.str();
}

} // namespace clsplit::partition
