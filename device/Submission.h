// The submission thread: vendor calls that the application's call need not wait for (the
// enqueue of a launch that runs whole where its data already is), made in order on a thread of
// their own. NVIDIA's clEnqueueNDRangeKernel takes ~4 us of host time; clsplit's own work per
// launch ~1 us: made one after the other they cost a launch-bound program ~25 %, side by side
// the program's thread is back before the vendor is done and the two overlap.
//
// Ordering is the whole contract: everything deferred runs in the order it was deferred, and
// whoever makes any other vendor call for the application first drains (icd/api/Entry.h does
// it for every entry point but the few that defer), so the vendors see the calls in program
// order.
#pragma once

#include "device/Fence.h"

#include <functional>

namespace clsplit::device::submission {

// Whether deferring is on (CLSPLIT_SUBMIT_THREAD; the runtime decides at start).
void setEnabled(bool enabled);
bool enabled();

// Whether deferring pays now: not while most deferred launches are drained soon after by the
// program's next call (a blocking read after every launch), which then waits for the thread to
// hand the launch to the vendor instead of enqueueing it itself; the program's pattern is
// looked at again after a while.
bool worthwhile();

// Runs `work` on the submission thread after everything deferred before it. Blocks while more
// than a bounded number of items wait (memory stays bounded when the vendor is the bottleneck).
void defer(std::function<void()> work);

// Returns once everything deferred so far has run: at once (one atomic load) when nothing is
// pending, and at once on the submission thread itself.
void drain();

// Whether items deferred so far have not all run yet.
bool pending();
// How many items were deferred in this process (the run report's deferred_launches).
uint64_t deferredCount();

// The first vendor error a deferred command met since the last call (0 if none); clFinish
// reports it, as a vendor reports a launch that failed after its enqueue returned.
cl_int takeError();
void noteError(cl_int error);

// Waits for the deferred items, then stops the thread (process exit; tests).
void shutdown();

// The fence of a command deferred to the submission thread: CL_QUEUED until the thread has
// enqueued it, then the real command's fence (or a failed one). What needs the real command
// (its events, a callback, a wait) first drains.
class DeferredFence final : public Fence {
public:
  DeferredFence(cl_command_queue queue, cl_context context);

  // On the submission thread: the command's fence, once enqueued.
  void resolve(FenceRef command);

  cl_int status() override { return ready() ? inner_->status() : CL_QUEUED; }
  bool knownComplete() override { return ready() && inner_->knownComplete(); }
  void appendWaitEvents(cl_context context, std::vector<RealEvent>& out) override {
    resolved()->appendWaitEvents(context, out);
  }
  void onComplete(std::function<void(cl_int)> fn) override { resolved()->onComplete(std::move(fn)); }
  cl_command_queue queue() const override { return queue_; }
  // Positions are handed out when a command is enqueued (in the real queue's order, markers
  // made meanwhile by other threads included). Until then, a deferred command is later than
  // every command enqueued on its queue so far, and than those deferred before it: what it
  // stands for then is a position past every real one, in deferral order. Fences of one queue
  // therefore still collapse to the latest while their commands wait for the thread.
  uint64_t positionInQueue() const override { return ready() ? inner_->positionInQueue() : pendingPosition_; }
  void flush() override { resolved()->flush(); }
  cl_int wait() override { return resolved()->wait(); }
  bool profile(uint64_t& start, uint64_t& end) override { return ready() && inner_->profile(start, end); }
  // A command that the vendor refused resolves to a failed host fence: bridges (user events).
  bool commandEventsIn(cl_context context) const override {
    return ready() ? inner_->commandEventsIn(context) : context == context_;
  }

private:
  bool ready() const { return ready_.load(std::memory_order_acquire); }
  const FenceRef& resolved();

  cl_command_queue queue_;
  cl_context context_;
  uint64_t pendingPosition_;
  FenceRef inner_; // set once, before ready_
  std::atomic<bool> ready_{false};
};

} // namespace clsplit::device::submission
