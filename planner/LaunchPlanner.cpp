// LaunchPlanner: split dimension, memoised slicing, moves.
#include "planner/LaunchPlanner.h"

#include "analysis/Analysis.h"
#include "partitioner/GroupSplit.h"
#include "planner/BoundaryFirst.h"
#include "planner/Moves.h"
#include "planner/SliceRegions.h"

#include <algorithm>

namespace clsplit::planner {

namespace {
// The bytes identifying a launch; scalar values only `withScalars`, and then those of the
// arguments `relevant` marks (all when null).
std::string launchKey(const LaunchInput& input, bool withScalars, const std::vector<bool>* relevant = nullptr) {
  const auto& range = input.range;
  std::string k;
  k.reserve(sizeof range + input.args.size() * 32);
  auto put = [&k](const void* p, size_t n) { k.append(static_cast<const char*>(p), n); };
  put(&input.analysis, sizeof input.analysis); // the kernel: one planner may serve several
  put(&range.dims, sizeof range.dims);
  put(range.offset.data(), sizeof range.offset);
  put(range.global.data(), sizeof range.global);
  put(range.local.data(), sizeof range.local);
  for (size_t i = 0; i < input.args.size(); ++i) {
    const auto& a = input.args[i];
    put(&a.kind, sizeof a.kind);
    switch (a.kind) {
    case ArgInput::Kind::Scalar: {
      if (!withScalars || (relevant && i < relevant->size() && !(*relevant)[i])) break;
      uint64_t n = a.scalar.size();
      put(&n, sizeof n);
      put(a.scalar.data(), a.scalar.size());
      break;
    }
    case ArgInput::Kind::Buffer: {
      uint64_t window[3] = {input.buffers[a.buffer].id, a.origin, a.size};
      put(window, sizeof window);
      break;
    }
    case ArgInput::Kind::Local:
      put(&a.size, sizeof a.size);
      break;
    case ArgInput::Kind::NullBuffer:
      break;
    }
  }
  return k;
}
} // namespace

std::string LaunchPlanner::key(const LaunchInput& input) const {
  const auto relevant = argsInRegions(input.analysis);
  return launchKey(input, true, relevant.get());
}

std::shared_ptr<const std::vector<bool>> LaunchPlanner::argsInRegions(const analysis::KernelAnalysis* analysis) const {
  // Regions not trusted (incomplete analysis): every argument counts.
  if (!analysis || analysis->unsplittableReason) return nullptr;
  std::lock_guard lock(mutex_);
  for (const auto& [a, mask] : argsInRegions_)
    if (a == analysis) return mask;
  if (argsInRegions_.size() >= kEntries) argsInRegions_.erase(argsInRegions_.begin());
  auto mask =
      std::make_shared<const std::vector<bool>>(analysis::argumentsInRegions(analysis->regions, analysis->args.size()));
  argsInRegions_.emplace_back(analysis, mask);
  return mask;
}
std::string LaunchPlanner::shapeKey(const LaunchInput& input) { return launchKey(input, false); }

std::optional<uint32_t> LaunchPlanner::rememberedDimension(const std::string& key, const std::string& shape) const {
  std::lock_guard lock(mutex_);
  for (const auto& [k, dim] : dims_)
    if (k == key) return dim;
  for (const auto& [k, dim] : shapeDims_)
    if (k == shape) return dim;
  return std::nullopt;
}

void LaunchPlanner::rememberDimension(const std::string& key, const std::string& shape, uint32_t dim) {
  std::lock_guard lock(mutex_);
  auto remember = [](std::vector<std::pair<std::string, uint32_t>>& memo, const std::string& k, uint32_t d) {
    for (auto& [known, value] : memo)
      if (known == k) {
        value = d;
        return;
      }
    if (memo.size() >= kEntries) memo.erase(memo.begin());
    memo.emplace_back(k, d);
  };
  remember(dims_, key, dim);
  remember(shapeDims_, shape, dim);
}

uint32_t LaunchPlanner::splitDimension(const LaunchInput& input, const std::string& key) {
  {
    // Every launch asks, most of them of a remembered key: the shape key (a second pass over the
    // arguments) only for the others.
    std::lock_guard lock(mutex_);
    for (const auto& [k, dim] : dims_)
      if (k == key) return dim;
  }
  if (auto known = rememberedDimension(key, shapeKey(input))) return *known;
  return analysis::defaultSplitDimension(input.range);
}

void LaunchPlanner::Repeatable::retarget(const analysis::NDRange& to, uint32_t toDim) {
  range = to;
  dim = toDim;
  request.groups = to.groups(dim);
  request.groupSize = to.local[0] * to.local[1] * to.local[2];
  request.otherGroups = 1;
  for (unsigned d = 0; d < to.dims; ++d)
    if (d != dim) request.otherGroups *= to.groups(d);
  request.splittable = splittable && request.groups > 1;
}

LaunchPlanner::Repeatable*
LaunchPlanner::repeatable(std::span<const uint64_t> buffers, const analysis::NDRange& appRange,
                          FunctionRef<std::array<uint64_t, 3>(const analysis::NDRange&)> resolveLocal) {
  auto it = std::find_if(repeatables_.rbegin(), repeatables_.rend(), [&](const Repeatable& r) {
    return std::equal(r.buffers.begin(), r.buffers.end(), buffers.begin(), buffers.end());
  });
  if (it == repeatables_.rend()) return nullptr;
  Repeatable& r = *it;
  if (r.appRange.dims != appRange.dims) return nullptr;
  if (r.appRange.global == appRange.global && r.appRange.local == appRange.local)
    return &r; // offsets do not change the request
  // Whether a launch may be split depends on its range there (non-uniform ones run whole).
  if (!r.appRange.uniform() || !appRange.uniform()) return nullptr;
  analysis::NDRange range = appRange;
  if (!range.local[0]) range.local = resolveLocal(range);
  // Another range (a k-loop's shrinking one): its groups along the dimension chosen before (a
  // launch kept whole runs all of them wherever they are counted; one split is planned along
  // the dimension chosen for it, and the request follows).
  // Along the dimension chosen before, unless it has one work-group now and another has more
  // (Rodinia's nw: its first launch is one group in every dimension, so the remembered
  // dimension was the last one, and the diagonals that follow grow along the first).
  r.appRange = appRange;
  r.retarget(range, range.groups(r.dim) < 2 ? analysis::defaultSplitDimension(range) : r.dim);
  return &r;
}

void LaunchPlanner::remember(Repeatable launch) {
  auto same = std::find_if(repeatables_.begin(), repeatables_.end(),
                           [&](const Repeatable& r) { return r.buffers == launch.buffers; });
  if (same != repeatables_.end())
    repeatables_.erase(same);
  else if (repeatables_.size() >= kEntries)
    repeatables_.erase(repeatables_.begin());
  repeatables_.push_back(std::move(launch));
}

LaunchPlan LaunchPlanner::plan(const LaunchInput& input, const std::string& key, std::vector<uint64_t> groups) {
  LaunchPlan plan;
  groups.resize(input.devices.size(), 0);
  const auto devicesWithWork = [](const std::vector<uint64_t>& g) {
    return std::count_if(g.begin(), g.end(), [](uint64_t x) { return x > 0; });
  };
  const bool whole = devicesWithWork(groups) <= 1;
  const std::string shape = shapeKey(input);
  std::optional<uint32_t> known = rememberedDimension(key, shape);
  uint32_t dim = known ? *known : analysis::defaultSplitDimension(input.range);
  if (!whole && !known) {
    // The first split launch of this key: now the dimension is worth choosing (it instantiates
    // trial splits: ~0.2-0.3 ms per kernel on a 2048^2 grid), without resolving indirections
    // (their values would make the enqueue wait for a device).
    uint32_t best = dim;
    if (analysis::splitDimensionIsAChoice(input.range) && input.analysis && !input.analysis->unsplittableReason &&
        !input.unsplittable)
      best = analysis::chooseSplitDimension(*input.analysis, input.range, InputValues(input, false));
    rememberDimension(key, shape, best);
    if (best != dim) {
      // The same shares along the chosen dimension; the partitioner counted them in groups of
      // the other, so this launch's times are not reported.
      groups = partition::ratiosToGroups(partition::groupsToRatios(groups), input.range.groups(best));
      plan.remapped = true;
      dim = best;
    }
  }
  plan.dim = dim;
  plan.groups = groups;

  {
    std::lock_guard lock(mutex_);
    for (const auto& e : slicings_)
      if (e.dim == dim && e.groups == groups && e.key == key) plan.slicing = e.slicing;
  }
  // Boundary-first cuts are made for launches that repeat (a memo hit: their slices were computed
  // without reading buffer contents), once per halo; a one-off launch is not worth the cut.
  const bool repeated = plan.slicing != nullptr;
  if (!plan.slicing) {
    // A launch that runs whole on one device needs no exact indirection regions: whole buffers
    // are right for it (the device then holds all of them) and spare the enqueue a wait.
    InputValues values(input, !whole);
    auto slicing = std::make_shared<const Slicing>(sliceLaunch(input, values, dim, groups, &regions_));
    if (!values.readBuffers()) {
      std::lock_guard lock(mutex_);
      if (slicings_.size() >= kEntries) slicings_.erase(slicings_.begin());
      slicings_.push_back({key, dim, groups, slicing, {}, nullptr});
    }
    plan.slicing = std::move(slicing);
  }
  plan.fallback = plan.slicing->problem;
  if (input.overlap && plan.split()) {
    if (repeated) plan.slicing = boundaryFirst(input, key, dim, groups, plan.slicing);
    plan.overlap = true;
  }
  planMoves(input, plan);
  return plan;
}

std::shared_ptr<const Slicing> LaunchPlanner::boundaryFirst(const LaunchInput& input, const std::string& key,
                                                            uint32_t dim, const std::vector<uint64_t>& groups,
                                                            std::shared_ptr<const Slicing> slicing) {
  auto halo = haloOf(input, *slicing);
  if (halo.empty()) return slicing;
  auto sameEntry = [&](const Entry& e) { return e.dim == dim && e.groups == groups && e.key == key; };
  {
    std::lock_guard lock(mutex_);
    for (const auto& e : slicings_)
      if (sameEntry(e) && e.slicing == slicing && e.cutFor == halo) return e.cut ? e.cut : slicing;
  }
  // Regions of edge pieces, once per halo (a few instantiations); indirections are not read.
  auto cut = cutBoundaries(input, InputValues(input, false), *slicing, halo);
  std::lock_guard lock(mutex_);
  for (auto& e : slicings_)
    if (sameEntry(e) && e.slicing == slicing) {
      e.cutFor = halo;
      e.cut = cut;
    }
  return cut ? cut : slicing;
}

} // namespace clsplit::planner
