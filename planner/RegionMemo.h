// Instantiated regions remembered per buffer argument: a launch whose key changed because one
// argument's regions depend on a scalar that changes every launch (fdtd's `fict[t]`, a k-loop's
// pivot row) re-instantiates that argument's statements only, not the whole kernel's.
#pragma once

#include "analysis/Analysis.h"
#include "analysis/region/Instantiate.h"

#include <mutex>
#include <string>
#include <vector>

namespace clsplit::planner {

class RegionMemo {
public:
  // analysis::instantiate(kernel, range, slice, values), reusing each argument's regions from
  // an earlier call with the same range, slice, buffer size and values of the scalars its
  // statements use. Arguments whose regions read buffer contents are instantiated every time.
  std::vector<analysis::BufferRegions> instantiate(const analysis::KernelAnalysis& kernel,
                                                   const analysis::NDRange& range, const analysis::Slice& slice,
                                                   const analysis::LaunchValues& values);

  // Regions remembered per argument (each argument keeps its latest few).
  static constexpr size_t kPerArgument = 8;

  struct Stats {
    uint64_t reused = 0, instantiated = 0; // argument regions
  };
  Stats stats() const;

private:
  struct Remembered {
    std::string key;
    analysis::BufferRegions regions;
  };
  struct KernelState {
    const analysis::KernelAnalysis* kernel = nullptr;
    std::vector<analysis::ArgumentRegionInputs> inputs;
    std::vector<std::vector<Remembered>> perArgument; // newest last
    // Misses in a row per argument: an argument whose inputs change every launch (a plane
    // index in its own offset) is looked up and remembered one launch in kPerArgument only,
    // once it has missed kPerArgument times in a row (no key, search or copy the other times).
    std::vector<uint32_t> missesInARow;
  };
  KernelState& stateOf(const analysis::KernelAnalysis& kernel);

  mutable std::mutex mutex_;
  std::vector<KernelState> kernels_; // one planner may serve a few analyses of one kernel
  Stats stats_;
};

} // namespace clsplit::planner
