// Fences: "something that completes" - a real event of one vendor's context, host work done by
// clsplit, or an application user event - with the one operation the scheduler needs: the real
// events a command in a given real context must wait on. Waiting across vendors is bridged by a
// user event in the waiting context, completed from the producer's completion callback.
#pragma once

#include "device/Real.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace clsplit::device {

using FenceRef = std::shared_ptr<class Fence>;

class Fence : public std::enable_shared_from_this<Fence> {
public:
  virtual ~Fence() = default;

  // CL_QUEUED/CL_SUBMITTED/CL_RUNNING, CL_COMPLETE (0), or a negative error status.
  virtual cl_int status() = 0;
  bool done() { return status() <= CL_COMPLETE; }
  // Whether completion is already known without asking a driver (a cached final status, set
  // when a completion callback ran or status() saw it). Hot paths prune with this: a driver
  // query per fence per command costs microseconds on some vendors (NVIDIA).
  virtual bool knownComplete() { return status() == CL_COMPLETE; }

  // Appends real events of `context` whose completion implies this fence's completion.
  virtual void appendWaitEvents(cl_context context, std::vector<RealEvent>& out) = 0;
  // The one real event of `context` standing for this fence, where it lives as long as the
  // fence does: a wait list holding the fence may use it without a reference of its own (a
  // retain and a release per cross-queue wait cost microseconds on NVIDIA). nullptr otherwise.
  virtual cl_event ownEventIn(cl_context) { return nullptr; }

  // Calls fn(final status) once, when complete (at once if already complete). fn may run on a
  // driver thread: it must not block.
  virtual void onComplete(std::function<void(cl_int)> fn) = 0;

  // The real queue this fence's command runs on (commands on the same in-order queue need not
  // wait on it), or nullptr.
  virtual cl_command_queue queue() const { return nullptr; }
  // The command's position in its queue (increasing with enqueue order; 0: unknown). Of two
  // fences of one queue, the later one's completion implies the earlier one's.
  virtual uint64_t positionInQueue() const { return 0; }

  // Submits the real commands this fence waits for (clFlush of their queues). Commands are not
  // flushed one by one (a flush costs microseconds on NVIDIA): whoever makes progress depend on
  // this fence from elsewhere - another queue's wait list, host work, a host wait - calls this.
  virtual void flush() {}

  // Blocks until complete (flushing first); returns the final status.
  virtual cl_int wait();

  // Widens [start, end] (host-clock ns) to cover the execution of this fence's work, if known.
  // Returns whether anything was known.
  virtual bool profile(uint64_t& start, uint64_t& end) { return false; }

  // A group's parts (never groups themselves), or null for any other fence.
  virtual const std::vector<FenceRef>* groupParts() const { return nullptr; }

  // Whether the events this fence gives a command of `context` to wait on are real commands'
  // (false: user events clsplit completes - host work, application user events, bridges from
  // another vendor).
  virtual bool commandEventsIn(cl_context context) const { return false; }
};

// How far a real in-order queue is known to have completed: every command at or before this
// position has, whatever its own event says yet (rusticl reported an earlier command still
// running after a later one of its queue had ended). Errors do not advance it: a command
// terminated by a failed wait list ends before the commands queued ahead of it.
class QueueProgress {
public:
  void completed(uint64_t position) {
    uint64_t seen = through_.load(std::memory_order_relaxed);
    while (seen < position && !through_.compare_exchange_weak(seen, position, std::memory_order_release)) {}
  }
  // A command of the queue failed: a later command's completion no longer implies that the
  // commands queued ahead of the failed one have completed (it ends before them), so nothing is
  // inferred for this queue from then on.
  void failed() { poisoned_.store(true, std::memory_order_release); }
  bool covers(uint64_t position) const {
    return position && !poisoned_.load(std::memory_order_acquire) &&
           position <= through_.load(std::memory_order_acquire);
  }

private:
  std::atomic<uint64_t> through_{0};
  std::atomic<bool> poisoned_{false};
};

// A command running on a real queue.
class RealEventFence final : public Fence {
public:
  // `enqueuedAtNs`: host time taken just before the real enqueue; it maps the device's
  // profiling clock onto the host clock (the device stamps CL_PROFILING_COMMAND_QUEUED then).
  // `queueState`: what the enqueuing side keeps per real queue (device/Enqueue.cpp), kept alive
  // as long as a fence of the queue is (rebuilding it costs a retain and release of the queue).
  // `progress`: the queue's (positions of its commands known complete), if it keeps one.
  RealEventFence(RealEvent event, cl_context context, cl_command_queue queue, uint64_t enqueuedAtNs,
                 uint64_t position = 0, std::shared_ptr<const void> queueState = {},
                 std::shared_ptr<QueueProgress> progress = {})
      : event_(std::move(event)), context_(context), queue_(queue), enqueuedAtNs_(enqueuedAtNs), position_(position),
        queueState_(std::move(queueState)), progress_(std::move(progress)) {}

  cl_int status() override;
  bool knownComplete() override {
    const cl_int cached = finalStatus_.load(std::memory_order_acquire);
    return cached == CL_COMPLETE || (cached > CL_COMPLETE && progress_ && progress_->covers(position_));
  }
  void appendWaitEvents(cl_context context, std::vector<RealEvent>& out) override;
  cl_event ownEventIn(cl_context context) override { return context == context_ ? event_.get() : nullptr; }
  // One driver callback per event, however many functions wait for it.
  void onComplete(std::function<void(cl_int)> fn) override;
  cl_command_queue queue() const override { return queue_; }
  uint64_t positionInQueue() const override { return position_; }
  void flush() override;
  cl_int wait() override;
  bool profile(uint64_t& start, uint64_t& end) override;
  bool commandEventsIn(cl_context context) const override { return context == context_; }
  // Device execution time of the command in ns (0 if unknown).
  uint64_t durationNs();

  cl_event event() const { return event_.get(); }
  cl_context context() const { return context_; }
  uint64_t enqueuedAtNs() const { return enqueuedAtNs_; } // host clock, just before the enqueue

private:
  RealEvent event_;
  cl_context context_;
  cl_command_queue queue_;
  uint64_t enqueuedAtNs_;
  uint64_t position_;
  std::shared_ptr<const void> queueState_;
  std::shared_ptr<QueueProgress> progress_;
  std::atomic<cl_int> finalStatus_{CL_QUEUED}; // cached once <= CL_COMPLETE
  void cache(cl_int finalStatus);              // finalStatus_, and the queue's progress when complete
  std::mutex mutex_;
  std::vector<std::pair<cl_context, RealEvent>> bridges_;
  std::vector<std::function<void(cl_int)>> callbacks_; // waiting for the driver's callback
  std::atomic<bool> callbackRegistered_{false};

  friend void CL_CALLBACK realEventCompleted(cl_event, cl_int, void*);
  void fire(cl_int finalStatus);
};

// Completed by clsplit itself (host work, user events, groups of fences).
class HostFence : public Fence {
public:
  cl_int status() override { return status_.load(); }
  bool knownComplete() override { return status_.load() == CL_COMPLETE; }
  void appendWaitEvents(cl_context context, std::vector<RealEvent>& out) override;
  void onComplete(std::function<void(cl_int)> fn) override;
  cl_int wait() override;
  bool profile(uint64_t& start, uint64_t& end) override;

  // Moves to a final status (CL_COMPLETE or an error); runs callbacks, completes bridges.
  void complete(cl_int finalStatus);
  // Moves to CL_SUBMITTED/CL_RUNNING (reporting only).
  void advance(cl_int status);

private:
  std::atomic<cl_int> status_{CL_QUEUED};
  std::atomic<uint64_t> startNs_{0}, endNs_{0};
  std::mutex mutex_;
  std::vector<std::function<void(cl_int)>> callbacks_;
  std::vector<std::pair<cl_context, RealEvent>> bridges_; // released when complete
};

// Completes when all parts have completed (with the first error status if any failed). Waiting
// on it in some context waits directly on the parts' own events there (no bridging needed when
// they live in that context). A group is flat: its parts are never groups (nested groups are
// expanded when it is made), so nothing that walks a group recurses, however long the chain of
// commands that made it.
class FenceGroup final : public HostFence {
public:
  explicit FenceGroup(std::vector<FenceRef> parts);
  // Also looks at the parts: the group's own completion runs from the parts' callbacks, which
  // may come after another group on the same parts was already seen complete.
  cl_int status() override;
  void appendWaitEvents(cl_context context, std::vector<RealEvent>& out) override;
  // The parts' callbacks are registered when something first waits for the group, not when it
  // is made: a callback costs microseconds, and an eventless part would need a marker for it.
  void onComplete(std::function<void(cl_int)> fn) override;
  cl_int wait() override;
  void flush() override;
  bool profile(uint64_t& start, uint64_t& end) override;
  const std::vector<FenceRef>& parts() const { return parts_; }
  const std::vector<FenceRef>* groupParts() const override { return &parts_; }

private:
  void arm();
  std::vector<FenceRef> parts_;
  std::once_flag armed_;
};

// The fences that stand for "all of these": groups expanded into their parts, nulls and fences
// known to be complete dropped, duplicates removed. With more than `keepAllUpTo` left, fences
// of one real in-order queue are reduced to the latest (its completion implies the others'), so
// the result holds at most one fence per real queue plus the host fences.
void flattenFences(std::vector<FenceRef>& fences, size_t keepAllUpTo = 16);

// A fence that is already complete.
FenceRef completedFence();

// Adds `fence` to `fences`, which keep the latest fence per real in-order queue (its completion
// implies the earlier ones') and each other fence once: a fence of a queue already there
// replaces it if later, else is dropped.
void keepLatestPerQueue(std::vector<FenceRef>& fences, const FenceRef& fence);

// `fence` as seen from the host: a fence completed by clsplit when `fence` completes (or
// `fence` itself if clsplit completes it already; null if it is done). Commands that read host
// memory filled by a device command must wait on this rather than on the device event: a driver
// may read pageable source memory when it submits the command, which an in-stream wait on
// another queue's event does not delay (seen on NVIDIA: stale halos), while a user event does.
FenceRef hostOrdered(const FenceRef& fence);
// A group of fences, or the single fence, or a completed fence when `parts` is empty.
FenceRef allOf(std::vector<FenceRef> parts);

// The real commands behind `fence`: itself, or a group's parts, when each is a command with an
// event of its own (a sub-kernel launched in pieces is a group of them); empty otherwise.
std::vector<RealEventFence*> realCommandsOf(const FenceRef& fence);

// After `fence` failed: waits until the vendors have settled each real command of it. A group
// fails at its first failed part (a user event set to an error), while a vendor may still be
// terminating - or running - the commands behind it; a program that then releases their kernels
// and programs crashed PoCL 3.1 (its worker still used the freed program).
void settleAfterFailure(const FenceRef& fence);

// Collects the wait events of a command on `queue` in `context`: skips fences already done and
// fences on the same in-order queue, keeps one fence per other real queue (the latest: in-order
// queues make it imply the others) and each host fence once. Events are gathered when the list
// is first read (size(), data()), with the other queues flushed once each after their events are
// known (an eventless command's marker may be made by that very gathering).
class WaitList {
public:
  WaitList(cl_context context, cl_command_queue queue) : context_(context), queue_(queue) {}
  void add(const FenceRef& fence);
  void add(const std::vector<FenceRef>& fences) {
    for (auto& f : fences) add(f);
  }
  // Whether waiting for `fence` is already implied: it runs on the waiting queue itself, is
  // known complete, or the list holds a fence of its queue at the same or a later position.
  // Lets callers skip working out whether they need to add it at all.
  bool implies(const FenceRef& fence) const;
  // The same for a command known by its real queue and position there (no fence to ask).
  bool implies(cl_command_queue queue, uint64_t position) const;
  cl_uint size() const {
    gather();
    return static_cast<cl_uint>(events_.size());
  }
  const cl_event* data() const {
    gather();
    return events_.empty() ? nullptr : events_.data();
  }
  // Whether some of the events are user events (see Fence::commandEventsIn). A command waiting
  // on one gets an event of its own: PoCL 3.1 and 5 abort (pocl_update_event_failed) when a user
  // event fails under a command enqueued without an event that another command follows.
  bool waitsOnUserEvents() const {
    gather();
    return userEvents_;
  }
  // Fences kept so far (before gathering), for tests: at most one per real queue.
  size_t fenceCount() const { return fences_.size(); }

private:
  void addLeaf(const FenceRef& fence);
  void gather() const;
  cl_context context_;
  cl_command_queue queue_;
  std::vector<FenceRef> fences_;
  // Our own references: a fence may complete, and drop its bridge events, on a driver thread
  // before the command using this list is enqueued (host fences release theirs then).
  mutable std::vector<RealEvent> held_;
  mutable std::vector<cl_event> events_; // the handles of held_, for the enqueue call
  mutable bool gathered_ = false;
  mutable bool userEvents_ = false;
};

// Drops the items whose fence has completed from a list that grows with every command, at an
// amortised constant cost per item: a pass runs only once the list has doubled since the last
// one (`pruneAbove` carries that size between calls; start it at 16). Completion known without the drivers is
// used first; past `askAbove` items the drivers are asked (a query costs microseconds on some
// vendors, and with work enqueued far ahead none of them may have completed: a pass on every
// call made enqueueing quadratic, ~700 status queries per launch after 2000 iterations).
template <class T, class FenceOf>
void pruneCompleted(std::vector<T>& items, size_t& pruneAbove, FenceOf fenceOf, size_t askAbove = 64) {
  if (items.size() <= pruneAbove) return;
  std::erase_if(items, [&](const T& x) { return fenceOf(x)->knownComplete(); });
  if (items.size() > askAbove) std::erase_if(items, [&](const T& x) { return fenceOf(x)->status() == CL_COMPLETE; });
  pruneAbove = std::max<size_t>(16, 2 * items.size());
}

// Drops the items whose fence the drivers say has completed, asking oldest first and about the
// first incomplete command of each real queue only (in-order queues: the later ones have not
// completed either; asking an eventless command even enqueues a marker). A failed command does
// not hold up its queue's later ones (it ends before the commands queued ahead of it), and is
// kept. Fences of no queue are always asked.
template <class T, class FenceOf>
void eraseCompletedInOrder(std::vector<T>& items, FenceOf fenceOf) {
  std::vector<cl_command_queue> running;
  std::erase_if(items, [&](const T& x) {
    const FenceRef& f = fenceOf(x);
    const cl_command_queue q = f->queue();
    if (q && std::find(running.begin(), running.end(), q) != running.end()) return false;
    const cl_int status = f->status();
    if (status == CL_COMPLETE) return true;
    if (q && status > CL_COMPLETE) running.push_back(q);
    return false;
  });
}

} // namespace clsplit::device
