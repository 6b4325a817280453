// Command plans: reads, writes, copies, fills.
#include "planner/CommandPlans.h"

#include <algorithm>
#include <bit>

namespace clsplit::planner {

using buffer::bit;
using buffer::deviceHolder;
using buffer::deviceOf;
using buffer::HolderMask;
using buffer::isDevice;
using buffer::kHost;

std::vector<ReadPiece> planRead(const buffer::HolderView& holders, ByteRange range, uint64_t extendBytes) {
  std::vector<ReadPiece> pieces;
  holders.visit(RangeSet{range}, [&](ByteRange r, HolderMask valid) {
    if (!pieces.empty() && pieces.back().range.hi == r.lo) {
      auto& last = pieces.back();
      if (isDevice(last.from) && (valid & bit(last.from)) && (r.size() <= extendBytes || !(valid & bit(kHost)))) {
        last.range.hi = r.hi; // the same device reads on
        return;
      }
    }
    const Holder from = (valid & bit(kHost)) ? kHost : static_cast<Holder>(std::countr_zero(valid));
    if (!pieces.empty() && pieces.back().range.hi == r.lo && pieces.back().from == from) {
      pieces.back().range.hi = r.hi;
      return;
    }
    pieces.push_back(ReadPiece{r, from});
  });
  return pieces;
}

std::optional<unsigned> deviceHoldingMost(const buffer::HolderView& holders, const RangeSet& ranges, unsigned devices) {
  std::vector<uint64_t> bytes(devices, 0);
  holders.visit(ranges, [&](ByteRange piece, HolderMask valid) {
    for (unsigned d = 0; d < devices; ++d)
      if (valid & bit(deviceHolder(d))) bytes[d] += piece.size();
  });
  auto best = std::max_element(bytes.begin(), bytes.end());
  if (best == bytes.end() || *best == 0) return std::nullopt;
  return static_cast<unsigned>(best - bytes.begin());
}

WritePlan planWrite(const WriteInput& input, ByteRange range) {
  WritePlan plan;
  const bool noDeviceHeld =
      std::all_of(input.heldBefore.begin(), input.heldBefore.end(), [](const RangeSet& h) { return h.empty(); });
  bool direct = !input.hostMemoryPending && !input.useHostPtr && input.eagerUploads;
  // One device runs everything: the bytes go where they will be used.
  if (direct && input.onlyDevice) {
    plan.direct = input.onlyDevice;
    return plan;
  }
  direct = direct && !input.windowsOnly;
  // Bytes no device holds yet (a program's initial data) go to the home device, as on a single
  // device: a host version would cost a copy of every byte before the upload (on the H200
  // machine two 16 MiB writes took 12-13 ms that way against 4.5-5 ms direct), and a device that
  // later runs a slice of them fetches only that slice from the home device.
  if (direct && noDeviceHeld && input.homeDevice < input.devices) {
    plan.direct = input.homeDevice;
    // Inputs are transferred once (thesis §4.1.3): to every device that may run a slice of
    // them and would fetch it through host memory, while the application's bytes are at hand.
    for (unsigned d = 0; d < input.traits.size() && d < input.devices; ++d)
      if (d != input.homeDevice && d < input.mayRun.size() && input.mayRun[d] &&
          routeBetween(input.traits, buffer::deviceHolder(input.homeDevice), d) == Route::ThroughHost)
        plan.alsoTo.push_back(d);
    return plan;
  }
  if (!input.eagerUploads) return plan;
  for (unsigned d = 0; d < input.heldBefore.size(); ++d)
    if (!input.heldBefore[d].empty()) plan.uploads.emplace_back(d, input.heldBefore[d]);
  plan.uploadHome = noDeviceHeld && input.homeDevice < input.devices && !input.windowsOnly;
  (void)range;
  return plan;
}

std::vector<unsigned> planFill(const std::vector<bool>& allocated, unsigned fallback) {
  std::vector<unsigned> devices;
  for (unsigned d = 0; d < allocated.size(); ++d)
    if (allocated[d]) devices.push_back(d);
  if (devices.empty()) devices.push_back(fallback);
  return devices;
}

} // namespace clsplit::planner
