// Transfer costs per device and direction (time per byte and per-transfer latency), fitted from
// the runtime's reported transfers, and the cost of moving dependency bytes between holders.
#pragma once

#include "partitioner/DevicePriors.h"
#include "partitioner/LinearFit.h"

#include <array>
#include <vector>

namespace clsplit::partition {

class TransferModel {
public:
  explicit TransferModel(std::vector<DeviceInfo> devices);

  void report(unsigned device, Direction direction, uint64_t bytes, uint64_t nanoseconds);

  // Fitted (or prior) cost of one transfer of `direction` on `device`.
  TransferPrior cost(unsigned device, Direction direction) const;
  // Cost of moving bytes produced on device `from` to device `to`: a device copy inside one
  // platform, else staged through the host (read back, then write).
  TransferPrior between(unsigned from, unsigned to) const;
  // Cost of moving bytes from the host to device `to`.
  TransferPrior fromHost(unsigned to) const { return cost(to, Direction::HostToDevice); }

  size_t samples(unsigned device, Direction direction) const;
  // Replaces the prior of one device and direction (warm start from a saved profile).
  void setPrior(unsigned device, Direction direction, TransferPrior prior);

private:
  static size_t index(Direction d) { return static_cast<size_t>(d); }
  std::vector<DeviceInfo> devices_;
  std::vector<std::array<LinearFit, 3>> fits_;
  std::vector<std::array<TransferPrior, 3>> priors_;
};

} // namespace clsplit::partition
