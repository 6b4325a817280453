// Planning one launch: the split dimension, the slices (memoised for launches that repeat), the
// bytes to move. One planner per kernel: it remembers the last few launches' slices, since an
// iterated launch repeats the same ones and instantiating strided regions costs O(rows).
// Thread-safe. Pure: no OpenCL objects (tests plan whole launches without a device).
#pragma once

#include "partitioner/Partitioner.h"
#include "planner/LaunchPlan.h"
#include "planner/RegionMemo.h"
#include "support/FunctionRef.h"

#include <mutex>
#include <span>
#include <string>

namespace clsplit::planner {

class LaunchPlanner {
public:
  // Identifies a launch: its range, its buffers (by id and window) and the values of the scalar
  // arguments its regions depend on (analysis::argumentsInRegions): a scalar the kernel only
  // computes with (a step, a coefficient) changing every launch keeps the memo's slices.
  std::string key(const LaunchInput& input) const;

  // The dimension whose work-groups the partitioner shares out for this launch: remembered for
  // its key once a launch of it was split, else the one chosen for a launch of the same shape
  // (range and buffers; a scalar that changes every launch, a k-loop's k, seldom changes the
  // best dimension, and choosing costs instantiations), else the default (the outermost with
  // two groups).
  uint32_t splitDimension(const LaunchInput& input, const std::string& key);

  // The plan for `groups[device]` work-groups along splitDimension() (the partitioner's choice,
  // or all on one device). At the first split of a key the dimension is chosen by comparing the
  // candidates (their slices' regions); if it differs, the same shares are mapped onto it.
  LaunchPlan plan(const LaunchInput& input, const std::string& key, std::vector<uint64_t> groups);

  // How often argument regions were reused or instantiated (tests, dry runs).
  RegionMemo::Stats regionStats() const { return regions_.stats(); }

  // The partitioner's request for a launch of this kernel on given buffers, remembered: a
  // launch on the same buffers asks with it (its groups updated when the range changed) and, kept
  // whole where its data is, runs without binding arguments, keying the launch or choosing a
  // dimension. Not locked: the caller serialises the kernel's launches (the planning lock).
  struct Repeatable {
    std::vector<uint64_t> buffers; // per argument: the buffer's id, 0 for none
    analysis::NDRange appRange;    // as the application gave it (local 0: left to us)
    analysis::NDRange range;       // local size resolved
    uint32_t dim = 0;
    partition::LaunchRequest request;
    bool splittable = false;             // the kernel's (one work-group launches aside)
    std::optional<std::string> fallback; // why the kernel cannot be split, if it cannot
    // The request's groups for `range` along `dim`.
    void retarget(const analysis::NDRange& range, uint32_t dim);
  };
  // The request remembered for these buffers, if `appRange` has as many dimensions; a range
  // that changed is counted in its groups (`resolveLocal` gives the local size of a range
  // without one).
  Repeatable* repeatable(std::span<const uint64_t> buffers, const analysis::NDRange& appRange,
                         FunctionRef<std::array<uint64_t, 3>(const analysis::NDRange&)> resolveLocal);
  // Remembers `launch` (the oldest of a few goes: ping-ponged buffers alternate between two).
  void remember(Repeatable launch);

private:
  static constexpr size_t kEntries = 4; // ping-ponged buffers alternate between a few launches
  struct Entry {
    std::string key;
    uint32_t dim = 0;
    std::vector<uint64_t> groups;
    std::shared_ptr<const Slicing> slicing;
    // Boundary-first: the halo the cut was made for, and the cut (null: none possible).
    std::vector<std::vector<RangeSet>> cutFor;
    std::shared_ptr<const Slicing> cut;
  };
  // `slicing` cut boundary-first for this launch's halo (BoundaryFirst.h), remembered with the
  // entry of `key`; `slicing` itself when nothing is to be cut.
  std::shared_ptr<const Slicing> boundaryFirst(const LaunchInput& input, const std::string& key, uint32_t dim,
                                               const std::vector<uint64_t>& groups,
                                               std::shared_ptr<const Slicing> slicing);
  // The key without scalar values.
  static std::string shapeKey(const LaunchInput& input);
  // argumentsInRegions of `analysis`, computed once (the kernel keeps its analysis alive).
  std::shared_ptr<const std::vector<bool>> argsInRegions(const analysis::KernelAnalysis* analysis) const;
  std::optional<uint32_t> rememberedDimension(const std::string& key, const std::string& shape) const;
  void rememberDimension(const std::string& key, const std::string& shape, uint32_t dim);

  mutable std::mutex mutex_;
  mutable std::vector<std::pair<const analysis::KernelAnalysis*, std::shared_ptr<const std::vector<bool>>>>
      argsInRegions_;
  std::vector<std::pair<std::string, uint32_t>> dims_, shapeDims_;
  std::vector<Entry> slicings_;
  // Below the slicing memo: a launch whose key changed re-instantiates only the arguments whose
  // regions depend on what changed.
  RegionMemo regions_;
  std::vector<Repeatable> repeatables_; // newest last
};

} // namespace clsplit::planner
