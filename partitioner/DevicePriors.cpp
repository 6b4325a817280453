// Priors by device type. They only steer the first launches: measurements replace them.
#include "partitioner/DevicePriors.h"

#include <algorithm>

namespace clsplit::partition {

double priorLaunchLatencyNs(const DeviceInfo& device) {
  if (device.launchLatencyNs > 0) return double(device.launchLatencyNs);
  // Small on purpose: kernel times measured from the start of execution carry no launch cost,
  // and an overestimate makes every per-group time at a small slice wrong. Real fixed costs
  // come from DeviceInfo or from intercepts measured on several kernels.
  return device.isGpu ? 2'000.0 : 5'000.0;
}

TransferPrior priorTransfer(const DeviceInfo& device, Direction direction) {
  if (direction == Direction::DeviceToDevice)
    return device.isGpu ? TransferPrior{0.05, 10'000.0} : TransferPrior{0.1, 5'000.0};
  // PCIe-class for GPUs (about 10 GB/s), a memory copy for CPU devices.
  return device.isGpu ? TransferPrior{0.1, 10'000.0} : TransferPrior{0.1, 5'000.0};
}

double priorNsPerWorkItem(const DeviceInfo& device) {
  const double lanes = double(std::max(1u, device.computeUnits)) * (device.isGpu ? 64.0 : 4.0);
  const double simulated = device.simulator ? 1000.0 : 1.0;
  return simulated * 20.0 / lanes; // 20 ns of one lane per work-item
}

} // namespace clsplit::partition
