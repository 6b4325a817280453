// Commands without events: a queue's tail of such commands, the marker that stands in for
// their events once something waits on one of them, and their fences.
#include "device/Enqueue.h"

#include "device/Clock.h"
#include "support/Log.h"

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace clsplit::device {

namespace {

std::atomic<bool> eventlessAllowed{true};

// Positions of commands in their queues: one counter for all queues, so that they keep growing
// even when a queue's tail is made anew (taken under the tail's lock: in enqueue order).
uint64_t nextPosition() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

// Commands enqueued without an event since the queue's last marker or evented command: the
// first fence of them that is waited on gets the marker, which every one of them then shares.
struct Batch {
  std::atomic<bool> closed{false};
  FenceRef marker; // set once, before `closed`
};

// One real in-order queue as seen by its eventless commands (kept alive by their fences; it
// holds a reference to the queue so that the handle is not reused meanwhile).
class QueueTail : public std::enable_shared_from_this<QueueTail> {
public:
  QueueTail(cl_command_queue queue, cl_context context) : queue_(RealQueue::retainOf(queue)), context_(context) {}

  static std::shared_ptr<QueueTail> of(cl_command_queue queue, cl_context context) {
    // Every enqueue asks: a thread's last queue is answered without the registry's lock (a live
    // tail holds its queue, so the handle cannot have been reused meanwhile).
    thread_local cl_command_queue lastQueue = nullptr;
    thread_local std::weak_ptr<QueueTail> lastTail;
    if (queue == lastQueue)
      if (auto tail = lastTail.lock()) return tail;
    auto tail = lookUp(queue, context);
    lastQueue = queue;
    lastTail = tail;
    return tail;
  }

  static std::mutex& registryMutex() {
    static std::mutex mutex;
    return mutex;
  }
  static std::unordered_map<cl_command_queue, std::weak_ptr<QueueTail>>& registry() {
    static auto* map = new std::unordered_map<cl_command_queue, std::weak_ptr<QueueTail>>;
    return *map;
  }
  // The live tail of `queue`, if any (not made).
  static std::shared_ptr<QueueTail> find(cl_command_queue queue) {
    std::lock_guard lock(registryMutex());
    auto it = registry().find(queue);
    return it == registry().end() ? nullptr : it->second.lock();
  }

  static std::shared_ptr<QueueTail> lookUp(cl_command_queue queue, cl_context context) {
    auto* registry = &QueueTail::registry();
    std::lock_guard lock(registryMutex());
    auto& entry = (*registry)[queue];
    if (auto tail = entry.lock()) return tail;
    if (registry->size() > 256) std::erase_if(*registry, [](const auto& e) { return e.second.expired(); });
    auto tail = std::make_shared<QueueTail>(queue, context);
    (*registry)[queue] = tail;
    return tail;
  }

  cl_command_queue queue() const { return queue_.get(); }
  cl_context context() const { return context_; }

  // clFlush unless everything enqueued here was flushed already.
  cl_int flush() {
    const uint64_t upTo = lastEnqueued_.load(std::memory_order_acquire);
    if (upTo && flushedThrough_.load(std::memory_order_acquire) >= upTo) return CL_SUCCESS;
    cl_int err = call(&cl_icd_dispatch::clFlush, queue_.get());
    if (err != CL_SUCCESS) return err;
    uint64_t seen = flushedThrough_.load();
    while (seen < upTo && !flushedThrough_.compare_exchange_weak(seen, upTo)) {}
    return CL_SUCCESS;
  }

  cl_int enqueue(cl_uint waitCount, const cl_event* waitList, bool timed, bool waitsOnUserEvents, EnqueueCall call,
                 FenceRef& fence, FunctionRef<void(const FenceRef&)>* published);

  // The marker standing for `batch` (enqueued now if it has none yet).
  // Whoever asks waits for it, and may have flushed the queue before the marker existed (an
  // unflushed marker stalled a halo exchange between two NVIDIA GPUs for milliseconds, until
  // the driver flushed on its own): a marker made here is flushed at once.
  FenceRef markerFor(const std::shared_ptr<Batch>& batch) {
    if (batch->closed.load(std::memory_order_acquire)) return batch->marker;
    bool made = false;
    {
      std::lock_guard lock(mutex_);
      if (!batch->closed.load()) {
        closeWithMarker();
        made = true;
      }
    }
    if (made) flush();
    return batch->marker;
  }

private:
  // Ends the open batch with a marker enqueued now: it completes after every command before it.
  void closeWithMarker(bool guardsFailures = false) {
    cl_event event = nullptr;
    uint64_t at = hostNowNs();
    cl_int err = CL_INVALID_OPERATION;
    try {
      err = call(&cl_icd_dispatch::clEnqueueMarkerWithWaitList, queue_.get(), 0u, static_cast<const cl_event*>(nullptr),
                 &event);
    } catch (const Error&) { // an OpenCL 1.1 vendor
    }
    if (err != CL_SUCCESS) err = call(&cl_icd_dispatch::clEnqueueMarker, queue_.get(), &event);
    FenceRef marker;
    if (err == CL_SUCCESS) {
      const uint64_t position = nextPosition();
      lastEnqueued_.store(position, std::memory_order_release);
      RealEvent markerEvent = RealEvent::adopt(event);
      if (guardsFailures) guard_ = markerEvent;
      marker = std::make_shared<RealEventFence>(std::move(markerEvent), context_, queue_.get(), at, position,
                                                shared_from_this(), progress_);
    } else { // no marker: wait for the queue instead (correct, only slower)
      log().warn("clEnqueueMarker failed ({}): waiting for the queue instead", errorName(err));
      call(&cl_icd_dispatch::clFinish, queue_.get());
      marker = completedFence();
    }
    close(marker);
  }

  void close(const FenceRef& marker) {
    if (!open_) return;
    open_->marker = marker;
    open_->closed.store(true, std::memory_order_release);
    open_.reset();
  }

  RealQueue queue_;
  cl_context context_;
  std::mutex mutex_;
  std::shared_ptr<Batch> open_;             // eventless commands not yet covered by a marker
  // The last marker made ahead of a command waiting on user events (settleBeforeFailures()).
  RealEvent guard_;

public:
  RealEvent takeGuard() {
    std::lock_guard lock(mutex_);
    return std::exchange(guard_, RealEvent());
  }
  static std::vector<std::shared_ptr<QueueTail>> live() {
    std::lock_guard lock(registryMutex());
    std::vector<std::shared_ptr<QueueTail>> tails;
    for (auto& [queue, weak] : registry())
      if (auto tail = weak.lock()) tails.push_back(std::move(tail));
    return tails;
  }

private:
  std::atomic<uint64_t> lastEnqueued_{0};   // position of the last command enqueued here
  std::atomic<uint64_t> flushedThrough_{0}; // every command up to this position was flushed

public:
  const std::shared_ptr<QueueProgress> progress_ = std::make_shared<QueueProgress>();
};

// The fence of a command enqueued without an event.
class EventlessFence final : public Fence {
public:
  EventlessFence(std::shared_ptr<QueueTail> tail, std::shared_ptr<Batch> batch, uint64_t position)
      : tail_(std::move(tail)), batch_(std::move(batch)), position_(position) {}

  cl_int status() override { return marker()->status(); }
  bool knownComplete() override {
    return (batch_->closed.load(std::memory_order_acquire) && batch_->marker->knownComplete()) ||
           tail_->progress_->covers(position_);
  }
  void appendWaitEvents(cl_context context, std::vector<RealEvent>& out) override {
    marker()->appendWaitEvents(context, out);
  }
  cl_event ownEventIn(cl_context context) override { return marker()->ownEventIn(context); } // the batch holds it
  void onComplete(std::function<void(cl_int)> fn) override { marker()->onComplete(std::move(fn)); }
  cl_command_queue queue() const override { return tail_->queue(); }
  uint64_t positionInQueue() const override { return position_; }
  void flush() override { tail_->flush(); } // its marker, if made, is on the same queue
  cl_int wait() override { return marker()->wait(); }
  bool commandEventsIn(cl_context context) const override;
  // The marker's times are not the command's: an eventless command has no profile.

private:
  FenceRef marker() { return tail_->markerFor(batch_); }

  std::shared_ptr<QueueTail> tail_;
  std::shared_ptr<Batch> batch_;
  uint64_t position_;
};

bool EventlessFence::commandEventsIn(cl_context context) const { return context == tail_->context(); }

cl_int QueueTail::enqueue(cl_uint waitCount, const cl_event* waitList, bool timed, bool waitsOnUserEvents,
                          EnqueueCall enqueue, FenceRef& fence, FunctionRef<void(const FenceRef&)>* published) {
  std::lock_guard lock(mutex_);
  // A marker enqueued later waits for every command before it. Were one of those to wait on
  // another queue, a user event or host work, a marker asked for by what that waits for would
  // never complete: the open batch gets its marker before such a command.
  if (waitCount > 0 && open_) closeWithMarker(/*guardsFailures=*/waitsOnUserEvents);
  const bool evented = timed || waitsOnUserEvents || !eventlessAllowed.load(std::memory_order_relaxed);
  cl_event event = nullptr;
  const uint64_t at = evented ? hostNowNs() : 0; // the fence's mapping of device times (evented only)
  cl_int err = enqueue(waitCount, waitList, evented ? &event : nullptr);
  if (err != CL_SUCCESS) return err;
  const uint64_t position = nextPosition();
  lastEnqueued_.store(position, std::memory_order_release);
  if (evented) {
    fence = std::make_shared<RealEventFence>(RealEvent::adopt(event), context_, queue_.get(), at, position,
                                             shared_from_this(), progress_);
    close(fence); // in order: this command completes after the open batch's
  } else {
    if (!open_) open_ = std::make_shared<Batch>();
    fence = std::make_shared<EventlessFence>(shared_from_this(), open_, position);
  }
  if (published) (*published)(fence);
  return CL_SUCCESS;
}

} // namespace

cl_int enqueueCommand(cl_command_queue queue, cl_context context, const WaitList& waits, bool timed,
                      EnqueueCall enqueue, FenceRef& fence) {
  // The wait list gathers its events (which may enqueue markers on other queues) before this
  // queue's tail is locked: two threads enqueueing on two queues that wait on each other's
  // commands would otherwise take the two tails' locks in opposite orders.
  const cl_uint count = waits.size();
  const cl_event* list = waits.data();
  const bool userEvents = count > 0 && waits.waitsOnUserEvents();
  return QueueTail::of(queue, context)->enqueue(count, list, timed, userEvents, enqueue, fence, nullptr);
}

cl_int enqueueCommand(cl_command_queue queue, cl_context context, const WaitList& waits, bool timed,
                      EnqueueCall enqueue, FenceRef& fence, FunctionRef<void(const FenceRef&)> published) {
  const cl_uint count = waits.size();
  const cl_event* list = waits.data();
  const bool userEvents = count > 0 && waits.waitsOnUserEvents();
  return QueueTail::of(queue, context)->enqueue(count, list, timed, userEvents, enqueue, fence, &published);
}

void settleBeforeFailures() {
  const uint64_t until = hostNowNs() + 20'000'000;
  for (auto& tail : QueueTail::live()) {
    RealEvent marker = tail->takeGuard();
    if (!marker) continue;
    tail->flush();
    for (;;) {
      cl_int s = CL_QUEUED;
      if (call(&cl_icd_dispatch::clGetEventInfo, marker.get(), cl_event_info(CL_EVENT_COMMAND_EXECUTION_STATUS),
               sizeof s, static_cast<void*>(&s), static_cast<size_t*>(nullptr)) != CL_SUCCESS ||
          s <= CL_COMPLETE || hostNowNs() >= until)
        break;
      std::this_thread::yield();
    }
  }
}

void setEventlessCommands(bool allowed) { eventlessAllowed.store(allowed); }

cl_int flushQueue(cl_command_queue queue) {
  if (auto tail = QueueTail::find(queue)) return tail->flush();
  return call(&cl_icd_dispatch::clFlush, queue);
}

std::optional<bool> profilingClockIsReal(cl_command_queue queue, cl_device_id device) {
  static std::mutex mutex;
  static std::map<cl_device_id, std::optional<bool>> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(device); it != known.end()) return it->second;
  std::optional<bool> real;
  cl_event event = nullptr;
  if (call(&cl_icd_dispatch::clEnqueueMarkerWithWaitList, queue, 0u, static_cast<const cl_event*>(nullptr), &event) ==
          CL_SUCCESS &&
      invoke(event, &cl_icd_dispatch::clWaitForEvents, 1u, static_cast<const cl_event*>(&event)) == CL_SUCCESS) {
    cl_ulong stamps[4] = {};
    const cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                       CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    bool all = true;
    for (int i = 0; i < 4 && all; ++i)
      all = call(&cl_icd_dispatch::clGetEventProfilingInfo, event, what[i], sizeof(cl_ulong),
                 static_cast<void*>(&stamps[i]), static_cast<size_t*>(nullptr)) == CL_SUCCESS;
    // A clock that read under a microsecond when the command was queued started with it: no
    // clock at all (a context takes far longer than that to make).
    if (all) real = stamps[3] >= 1000;
  }
  if (event) call(&cl_icd_dispatch::clReleaseEvent, event);
  known[device] = real;
  return real;
}

} // namespace clsplit::device
