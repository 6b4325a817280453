// Steps shared by the non-kernel commands (Commands.cpp for buffers, ImageCommands.cpp for
// images): one real command on a slot's queue, the queue's barrier in a wait list, and the
// record of the transfers a command made.
#pragma once

#include "buffer-manager/storage/BufferStorage.h"
#include "device/Enqueue.h"
#include "icd/objects/Queue.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"

#include <vector>

namespace clsplit::icd::runtime::steps {

using device::FenceRef;

// Enqueues one real command on `slot`'s queue after `waits`, through
// enqueue(real queue, wait count, wait list, &event or null); returns its fence.
template <class Enqueue>
FenceRef enqueueOn(Queue& q, unsigned slot, const std::vector<FenceRef>& waits, const char* what, Enqueue&& enqueue) {
  cl_command_queue real = q.realQueue(slot);
  device::WaitList wl(q.slot(slot).context, real);
  wl.add(waits);
  FenceRef fence;
  device::check(device::enqueueCommand(
                    real, q.slot(slot).context, wl, q.timesCommands(),
                    [&](cl_uint n, const cl_event* list, cl_event* event) { return enqueue(real, n, list, event); },
                    fence),
                what);
  return fence;
}

inline void append(std::vector<FenceRef>& to, const std::vector<FenceRef>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

// Barriers of the queue come first in every wait list.
inline std::vector<FenceRef> withGate(Queue& q, std::vector<FenceRef> waits) {
  if (auto gate = q.gate()) waits.push_back(gate);
  return waits;
}

// The transfers a command made, for the run report and the trace.
inline void record(const buffer::TransferLog& log) {
  if (log.empty()) return;
  Runtime::get().report().noteTransfers(log);
  if (auto* trace = Trace::active()) trace->transfers(log);
}

} // namespace clsplit::icd::runtime::steps
