// Transfer cost fits per device and direction.
#include "partitioner/TransferModel.h"

namespace clsplit::partition {

TransferModel::TransferModel(std::vector<DeviceInfo> devices)
    : devices_(std::move(devices)), fits_(devices_.size()), priors_(devices_.size()) {
  for (size_t d = 0; d < devices_.size(); ++d)
    for (auto dir : {Direction::HostToDevice, Direction::DeviceToHost, Direction::DeviceToDevice})
      priors_[d][index(dir)] = priorTransfer(devices_[d], dir);
}

void TransferModel::report(unsigned device, Direction direction, uint64_t bytes, uint64_t nanoseconds) {
  if (device >= fits_.size() || bytes == 0) return;
  fits_[device][index(direction)].add(double(bytes), double(nanoseconds));
}

TransferPrior TransferModel::cost(unsigned device, Direction direction) const {
  if (device >= fits_.size()) return {0, 0};
  const auto& prior = priors_[device][index(direction)];
  auto line = fits_[device][index(direction)].fit({prior.latencyNs, prior.perByteNs});
  return {line.slope, line.intercept};
}

TransferPrior TransferModel::between(unsigned from, unsigned to) const {
  if (from == to || from >= devices_.size() || to >= devices_.size()) return {0, 0};
  if (devices_[from].platform == devices_[to].platform) return cost(to, Direction::DeviceToDevice);
  auto out = cost(from, Direction::DeviceToHost), in = cost(to, Direction::HostToDevice);
  return {out.perByteNs + in.perByteNs, out.latencyNs + in.latencyNs};
}

size_t TransferModel::samples(unsigned device, Direction direction) const {
  return device < fits_.size() ? fits_[device][index(direction)].samples() : 0;
}

void TransferModel::setPrior(unsigned device, Direction direction, TransferPrior prior) {
  if (device < priors_.size()) priors_[device][index(direction)] = prior;
}

} // namespace clsplit::partition
