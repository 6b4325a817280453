// What is assumed about a device before anything was measured on it: launch latency, transfer
// speeds and work-item throughput, by device type (GPUs far above CPUs).
#pragma once

#include "partitioner/Partitioner.h"

namespace clsplit::partition {

struct TransferPrior {
  double perByteNs;
  double latencyNs;
};

double priorLaunchLatencyNs(const DeviceInfo& device);
TransferPrior priorTransfer(const DeviceInfo& device, Direction direction);
// Time one work-item of an unknown kernel takes, spread over the whole device, in ns. Only the
// ratios between devices matter much: a GPU compute unit counts as 64 lanes, a CPU core as 4.
double priorNsPerWorkItem(const DeviceInfo& device);

} // namespace clsplit::partition
