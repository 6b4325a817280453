// A command of a real in-order queue whose completion the test decides: stands for a device
// event in tests of fences and hazards that need no device.
#pragma once

#include "device/Fence.h"

#include <memory>

namespace clsplit::device::test {

struct QueuedFence final : HostFence {
  QueuedFence(int queue, uint64_t position)
      : queue_(reinterpret_cast<cl_command_queue>(static_cast<uintptr_t>(0x1000 + queue))), position_(position) {}
  cl_command_queue queue() const override { return queue_; }
  uint64_t positionInQueue() const override { return position_; }
  void appendWaitEvents(cl_context, std::vector<RealEvent>&) override {} // no real events here

  cl_command_queue queue_;
  uint64_t position_;
};

} // namespace clsplit::device::test
