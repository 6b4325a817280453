// Routes and costs between holders, the explicit local size, and small plan queries.
#include "planner/LaunchInput.h"

#include "planner/LaunchPlan.h"

#include <algorithm>

namespace clsplit::planner {

using buffer::deviceOf;
using buffer::kHost;

namespace {
// Devices sharing the host's memory in one context copy inside their driver. Discrete GPUs do
// not: a driver migrates a whole buffer to run a copy on another device (measured on NVIDIA:
// ~100 ms for a 4-byte halo of a 64 MiB buffer), so their bytes go through host memory.
// Two slots of one real device copy inside its memory.
bool inDriver(const std::vector<DeviceTraits>& devices, unsigned a, unsigned b) {
  if (devices[a].context != devices[b].context) return false;
  return devices[a].real == devices[b].real || (devices[a].hostUnified && devices[b].hostUnified);
}
} // namespace

Route routeBetween(const std::vector<DeviceTraits>& devices, Holder from, unsigned to) {
  if (from == kHost) return Route::FromHost;
  return inDriver(devices, deviceOf(from), to) ? Route::InDriver : Route::ThroughHost;
}

double moveCost(const std::vector<DeviceTraits>& devices, Holder from, Holder to, uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (from == kHost || to == kHost) return b;
  if (inDriver(devices, deviceOf(from), deviceOf(to))) return 0.5 * b;
  return 2.0 * b; // through host memory: two hops
}

std::array<uint64_t, 3> explicitLocalSize(const analysis::NDRange& range, size_t maxGroup,
                                          const std::array<size_t, 3>& required) {
  std::array<uint64_t, 3> local{1, 1, 1};
  if (required[0]) {
    for (int d = 0; d < 3; ++d) local[d] = std::max<size_t>(1, required[d]);
    return local;
  }
  auto largestDivisor = [](uint64_t n, uint64_t cap) {
    for (uint64_t c = std::min(n, cap); c > 1; --c)
      if (n % c == 0) return c;
    return uint64_t{1};
  };
  uint64_t budget = std::max<uint64_t>(1, std::min<uint64_t>(maxGroup, 256));
  // Groups of 64 split finely; a large 1-D range gets larger groups (up to 256, keeping at least
  // ~512 of them): an H200 ran 2^23 items of a stencil 1.5x slower in groups of 64 than in its
  // own choice, the cost of scheduling many small groups.
  uint64_t wanted = std::clamp<uint64_t>(range.global[0] / 512, 64, 256);
  // With more dimensions, the first keeps at least 4 groups: which dimension to split is then a
  // real choice (chooseSplitDimension). A 64 x 64 launch in groups of 64 x 4 could only be split
  // along y, which is strided when x is the row index (Rodinia's gaussian: a column per row).
  if (range.dims > 1) wanted = std::min<uint64_t>(wanted, std::max<uint64_t>(1, range.global[0] / 4));
  local[0] = largestDivisor(range.global[0], std::min<uint64_t>(budget, wanted));
  if (range.dims > 1)
    local[1] = largestDivisor(range.global[1], std::max<uint64_t>(1, std::min<uint64_t>(4, budget / local[0])));
  return local;
}

std::vector<uint64_t> LaunchPlan::groupsPerDevice(size_t devices) const {
  std::vector<uint64_t> out(devices, 0);
  for (const auto& sk : subKernels())
    if (sk.device < devices) out[sk.device] += sk.groups();
  return out;
}

bool LaunchPlan::boundaryFirst() const {
  for (const auto& sk : subKernels())
    if (!sk.pieces.empty()) return true;
  return false;
}

uint64_t LaunchPlan::movedBytes() const {
  uint64_t bytes = 0;
  for (const auto& s : staging) bytes += s.range.size();
  for (const auto& m : moves) bytes += m.range.size();
  return bytes;
}

} // namespace clsplit::planner
