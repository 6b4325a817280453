// RegionMemo: per-argument reuse of instantiated regions.
#include "planner/RegionMemo.h"

#include <algorithm>

namespace clsplit::planner {

namespace {

// The inputs of one argument's regions besides the kernel: range, slice, its buffer's size and
// the values of the scalars its statements use.
std::string argumentKey(const analysis::NDRange& range, const analysis::Slice& slice,
                        const analysis::LaunchValues& values, unsigned arg, const std::vector<bool>& scalars) {
  std::string k;
  k.reserve(sizeof range + sizeof slice + 64);
  auto put = [&k](const void* p, size_t n) { k.append(static_cast<const char*>(p), n); };
  put(&range.dims, sizeof range.dims);
  put(range.offset.data(), sizeof range.offset);
  put(range.global.data(), sizeof range.global);
  put(range.local.data(), sizeof range.local);
  put(&slice.dim, sizeof slice.dim);
  put(&slice.groupBegin, sizeof slice.groupBegin);
  put(&slice.groupEnd, sizeof slice.groupEnd);
  const uint64_t size = values.bufferSize(arg);
  put(&size, sizeof size);
  for (unsigned i = 0; i < scalars.size(); ++i) {
    if (!scalars[i]) continue;
    auto bytes = values.scalarBytes(i);
    const uint64_t n = bytes.size();
    put(&i, sizeof i);
    put(&n, sizeof n);
    put(bytes.data(), bytes.size());
  }
  return k;
}

} // namespace

RegionMemo::KernelState& RegionMemo::stateOf(const analysis::KernelAnalysis& kernel) {
  for (auto& s : kernels_)
    if (s.kernel == &kernel) return s;
  if (kernels_.size() >= 4) kernels_.erase(kernels_.begin());
  KernelState state;
  state.kernel = &kernel;
  state.inputs = analysis::regionInputsPerArgument(kernel.regions, kernel.args.size());
  state.perArgument.resize(state.inputs.size());
  state.missesInARow.assign(state.inputs.size(), 0);
  kernels_.push_back(std::move(state));
  return kernels_.back();
}

std::vector<analysis::BufferRegions> RegionMemo::instantiate(const analysis::KernelAnalysis& kernel,
                                                             const analysis::NDRange& range,
                                                             const analysis::Slice& slice,
                                                             const analysis::LaunchValues& values) {
  std::vector<std::string> keys;
  std::vector<bool> missing;
  std::vector<analysis::BufferRegions> out;
  size_t toInstantiate = 0;
  {
    std::lock_guard lock(mutex_);
    KernelState& state = stateOf(kernel);
    const size_t n = state.inputs.size();
    out.resize(n);
    keys.resize(n);
    missing.assign(n, false);
    for (unsigned arg = 0; arg < n; ++arg) {
      const auto& in = state.inputs[arg];
      if (!in.hasStatements) continue;
      // Regions read from buffer contents, and (seven times in eight) those of an argument
      // that missed kPerArgument times in a row, are instantiated without a look-up.
      const uint32_t misses = state.missesInARow[arg];
      if (in.readsContents || (misses >= kPerArgument && misses % kPerArgument != 0)) {
        missing[arg] = true;
        ++toInstantiate;
        continue;
      }
      keys[arg] = argumentKey(range, slice, values, arg, in.scalars);
      const auto& remembered = state.perArgument[arg];
      auto hit =
          std::find_if(remembered.rbegin(), remembered.rend(), [&](const Remembered& r) { return r.key == keys[arg]; });
      if (hit != remembered.rend()) {
        out[arg] = hit->regions;
        state.missesInARow[arg] = 0;
        ++stats_.reused;
      } else {
        missing[arg] = true;
        ++toInstantiate;
      }
    }
  }
  if (!toInstantiate) return out;
  // Outside the lock: an indirection may wait for a device to produce what it reads.
  auto fresh = analysis::instantiate(kernel, range, slice, values, &missing);
  std::lock_guard lock(mutex_);
  KernelState& state = stateOf(kernel);
  for (unsigned arg = 0; arg < missing.size() && arg < fresh.size(); ++arg) {
    if (!missing[arg]) continue;
    ++stats_.instantiated;
    // After kPerArgument misses in a row, one miss in kPerArgument is remembered.
    const uint32_t misses = arg < state.missesInARow.size() ? state.missesInARow[arg]++ : 0;
    if (misses >= kPerArgument && misses % kPerArgument != 0) keys[arg].clear();
    if (!keys[arg].empty() && arg < state.perArgument.size()) {
      auto& remembered = state.perArgument[arg];
      if (remembered.size() >= kPerArgument) remembered.erase(remembered.begin());
      remembered.push_back({std::move(keys[arg]), fresh[arg]});
    }
    out[arg] = std::move(fresh[arg]);
  }
  return out;
}

RegionMemo::Stats RegionMemo::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

} // namespace clsplit::planner
