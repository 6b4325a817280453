// Enqueueing one real command and getting its fence. A command that nothing needs to time is
// enqueued without an event (an event costs the host several microseconds per command on some
// drivers: 4 us vs. 11 us per launch on NVIDIA's); its fence asks for a marker on the queue only
// when something first waits on it, and one marker stands for every such command before it.
#pragma once

#include <optional>

#include "device/Fence.h"
#include "support/FunctionRef.h"

namespace clsplit::device {

// The real call: enqueue(wait count, wait list, &event or null); called before enqueueCommand
// returns, never kept.
using EnqueueCall = FunctionRef<cl_int(cl_uint, const cl_event*, cl_event*)>;

// Enqueues one command on the in-order real queue `queue` of `context`, after `waits`. With
// `timed`, the command gets an event of its own (profiling, measurements); otherwise it may
// not. Returns the vendor's status; on success `fence` is the command's.
cl_int enqueueCommand(cl_command_queue queue, cl_context context, const WaitList& waits, bool timed,
                      EnqueueCall enqueue, FenceRef& fence);
// The same, calling `published(fence)` while no other command can be enqueued on `queue` yet:
// whoever publishes the command's fence there (a deferred launch's, device/Submission.h) does
// so before any later command of the queue exists.
cl_int enqueueCommand(cl_command_queue queue, cl_context context, const WaitList& waits, bool timed,
                      EnqueueCall enqueue, FenceRef& fence, FunctionRef<void(const FenceRef&)> published);

// Called before clsplit fails the bridges of a user event: gives each marker that clsplit put
// ahead of a command waiting on user events up to 20 ms (in all) to complete. PoCL 3.1 frees a
// command terminated by a failed wait list while a marker ahead of it in its queue is pending,
// and its worker then runs the freed command (direct PoCL programs with such markers meet it
// too; docs/limitations.md). Not a cure: a marker behind blocked commands stays pending.
void settleBeforeFailures();

// Whether commands may be enqueued without events at all (CLSPLIT_EVENTLESS; default on).
void setEventlessCommands(bool allowed);

// Submits what was enqueued on `queue` (clFlush), unless nothing was enqueued through
// enqueueCommand since the last flush made here: a flush costs microseconds on some drivers
// (NVIDIA: ~1.5 us), and the waiters of one command often ask for the same queue in turn.
cl_int flushQueue(cl_command_queue queue);

// Whether the device behind `queue` (made with CL_QUEUE_PROFILING_ENABLE) stamps its commands
// with a real clock, asked once per device with a marker and a wait: false where the stamps
// are no times (Mesa 22's rusticl gives every command 0, 1, 2 and 3 ns), nullopt where the
// marker has no profile to ask (inconclusive).
std::optional<bool> profilingClockIsReal(cl_command_queue queue, cl_device_id device);

} // namespace clsplit::device
