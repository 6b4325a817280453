// Fence implementations: real-event fences with lazy cross-context bridges, host fences, groups.
#include "device/Fence.h"

#include "device/Clock.h"
#include "device/DriverClock.h"
#include "device/Enqueue.h"
#include "device/HostExecutor.h"
#include "support/Log.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <thread>

namespace clsplit::device {

namespace {

// How long a host wait polls a command's status before it blocks in the driver.
constexpr uint64_t kPollBeforeWaitNs = 100'000;

// Completes a bridge user event when the real event it mirrors completes.
void CL_CALLBACK completeBridge(cl_event, cl_int status, void* data) {
  DriverClock::CallbackTimer timer;
  auto* bridge = static_cast<RealEvent*>(data);
  call(&cl_icd_dispatch::clSetUserEventStatus, bridge->get(), status < 0 ? status : CL_COMPLETE);
  delete bridge;
}

RealEvent newUserEvent(cl_context context) {
  cl_int err = CL_SUCCESS;
  cl_event e = call(&cl_icd_dispatch::clCreateUserEvent, context, &err);
  check(err, "clCreateUserEvent (cross-device bridge)");
  return RealEvent::adopt(e);
}

} // namespace

cl_int Fence::wait() {
  flush();
  std::mutex m;
  std::condition_variable cv;
  bool finished = false;
  cl_int result = CL_COMPLETE;
  onComplete([&](cl_int s) {
    std::lock_guard lock(m);
    result = s;
    finished = true;
    cv.notify_all();
  });
  std::unique_lock lock(m);
  cv.wait(lock, [&] { return finished; });
  return result;
}

// --- RealEventFence ----------------------------------------------------------------------------

cl_int RealEventFence::status() {
  cl_int cached = finalStatus_.load(std::memory_order_acquire);
  if (cached <= CL_COMPLETE) return cached;
  cl_int s = CL_QUEUED;
  if (call(&cl_icd_dispatch::clGetEventInfo, event_.get(), cl_event_info(CL_EVENT_COMMAND_EXECUTION_STATUS), sizeof s,
           static_cast<void*>(&s), static_cast<size_t*>(nullptr)) != CL_SUCCESS)
    return CL_QUEUED;
  if (s <= CL_COMPLETE) cache(s);
  return s;
}

void RealEventFence::cache(cl_int finalStatus) {
  finalStatus_.store(finalStatus, std::memory_order_release);
  if (!progress_) return;
  if (finalStatus == CL_COMPLETE)
    progress_->completed(position_);
  else if (finalStatus < 0)
    progress_->failed();
}

void RealEventFence::appendWaitEvents(cl_context context, std::vector<RealEvent>& out) {
  if (context == context_) {
    out.push_back(event_);
    return;
  }
  if (status() <= CL_COMPLETE) {
    if (status() < 0) { // propagate the failure into the other context
      RealEvent failed = newUserEvent(context);
      call(&cl_icd_dispatch::clSetUserEventStatus, failed.get(), status());
      std::lock_guard lock(mutex_);
      bridges_.emplace_back(context, failed);
      out.push_back(failed);
    }
    return;
  }
  std::lock_guard lock(mutex_);
  for (auto& [c, bridge] : bridges_)
    if (c == context) {
      out.push_back(bridge);
      return;
    }
  RealEvent bridge = newUserEvent(context);
  auto* keep = new RealEvent(bridge);
  if (call(&cl_icd_dispatch::clSetEventCallback, event_.get(), cl_int(CL_COMPLETE), &completeBridge,
           static_cast<void*>(keep)) != CL_SUCCESS) {
    delete keep;
    // No callback: complete the bridge by waiting (only reached with broken drivers).
    cl_event e = event_.get();
    invoke(e, &cl_icd_dispatch::clWaitForEvents, 1u, &e);
    call(&cl_icd_dispatch::clSetUserEventStatus, bridge.get(), cl_int(CL_COMPLETE));
  }
  bridges_.emplace_back(context, bridge);
  out.push_back(bridge);
}

void CL_CALLBACK realEventCompleted(cl_event, cl_int status, void* data) {
  DriverClock::CallbackTimer timer;
  std::unique_ptr<FenceRef> self(static_cast<FenceRef*>(data)); // kept alive until now
  static_cast<RealEventFence*>(self->get())->fire(status < 0 ? status : CL_COMPLETE);
}

void RealEventFence::fire(cl_int finalStatus) {
  std::vector<std::function<void(cl_int)>> callbacks;
  {
    std::lock_guard lock(mutex_);
    if (finalStatus_.load() > CL_COMPLETE) cache(finalStatus);
    callbacks.swap(callbacks_);
  }
  for (auto& fn : callbacks) fn(finalStatus_.load());
}

void RealEventFence::onComplete(std::function<void(cl_int)> fn) {
  // Asks the driver once before registering: some (Oclgrind) never call back for an event that
  // completed before the callback was set.
  cl_int cached = callbackRegistered_.load() ? finalStatus_.load(std::memory_order_acquire) : status();
  if (cached <= CL_COMPLETE) {
    fn(cached);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    cached = finalStatus_.load();
    if (cached > CL_COMPLETE) {
      callbacks_.push_back(std::move(fn));
      if (callbackRegistered_) return;
      callbackRegistered_ = true;
    }
  }
  if (cached <= CL_COMPLETE) { // completed meanwhile (fire() already ran the others)
    fn(cached);
    return;
  }
  auto* self = new FenceRef(shared_from_this());
  if (call(&cl_icd_dispatch::clSetEventCallback, event_.get(), cl_int(CL_COMPLETE), &realEventCompleted,
           static_cast<void*>(self)) != CL_SUCCESS) {
    delete self;
    fire(wait());
  }
}

void RealEventFence::flush() {
  if (queue_ && !knownComplete()) flushQueue(queue_);
}

cl_int RealEventFence::wait() {
  cl_int s = status();
  if (s <= CL_COMPLETE) return s;
  flush();
  // A short command ends within microseconds: polling its status (yielding the CPU between
  // polls) answers sooner than clWaitForEvents, which on NVIDIA's OpenCL added ~8 us to every
  // blocking read of a small result.
  const uint64_t pollUntil = hostNowNs() + kPollBeforeWaitNs;
  while (hostNowNs() < pollUntil) {
    s = status();
    if (s <= CL_COMPLETE) return s;
    std::this_thread::yield();
  }
  cl_event e = event_.get();
  const cl_int waited = invoke(e, &cl_icd_dispatch::clWaitForEvents, 1u, &e);
  s = status();
  if (s > CL_COMPLETE && waited == CL_SUCCESS) { // the wait says complete where the status lags
    cache(CL_COMPLETE);
    s = CL_COMPLETE;
  }
  return s <= CL_COMPLETE ? s : CL_COMPLETE;
}

namespace {
bool profilingInfo(cl_event e, cl_profiling_info what, cl_ulong& v) {
  return call(&cl_icd_dispatch::clGetEventProfilingInfo, e, what, sizeof v, static_cast<void*>(&v),
              static_cast<size_t*>(nullptr)) == CL_SUCCESS;
}
} // namespace

bool RealEventFence::profile(uint64_t& start, uint64_t& end) {
  cl_ulong queued = 0, s = 0, e = 0;
  if (status() != CL_COMPLETE || !profilingInfo(event_.get(), CL_PROFILING_COMMAND_QUEUED, queued) ||
      !profilingInfo(event_.get(), CL_PROFILING_COMMAND_START, s) ||
      !profilingInfo(event_.get(), CL_PROFILING_COMMAND_END, e))
    return false;
  int64_t offset = static_cast<int64_t>(enqueuedAtNs_) - static_cast<int64_t>(queued);
  start = std::min<uint64_t>(start, s + offset);
  end = std::max<uint64_t>(end, e + offset);
  return true;
}

uint64_t RealEventFence::durationNs() {
  cl_ulong s = 0, e = 0;
  if (status() != CL_COMPLETE || !profilingInfo(event_.get(), CL_PROFILING_COMMAND_START, s) ||
      !profilingInfo(event_.get(), CL_PROFILING_COMMAND_END, e) || e < s)
    return 0;
  return e - s;
}

// --- HostFence ---------------------------------------------------------------------------------

void HostFence::appendWaitEvents(cl_context context, std::vector<RealEvent>& out) {
  std::lock_guard lock(mutex_);
  cl_int s = status_.load();
  if (s == CL_COMPLETE) return;
  for (auto& [c, bridge] : bridges_)
    if (c == context) {
      out.push_back(bridge);
      return;
    }
  RealEvent bridge = newUserEvent(context);
  if (s < 0) call(&cl_icd_dispatch::clSetUserEventStatus, bridge.get(), s);
  bridges_.emplace_back(context, bridge);
  out.push_back(bridge);
}

void HostFence::onComplete(std::function<void(cl_int)> fn) {
  {
    std::lock_guard lock(mutex_);
    if (status_.load() > CL_COMPLETE) {
      callbacks_.push_back(std::move(fn));
      return;
    }
  }
  fn(status_.load());
}

bool HostFence::profile(uint64_t& start, uint64_t& end) {
  uint64_t s = startNs_.load(), e = endNs_.load();
  if (status_.load() != CL_COMPLETE || !e) return false;
  start = std::min(start, s ? s : e);
  end = std::max(end, e);
  return true;
}

cl_int HostFence::wait() {
  if (status_.load() <= CL_COMPLETE) return status_.load();
  return Fence::wait();
}

void HostFence::advance(cl_int s) {
  if (s == CL_RUNNING) startNs_.store(hostNowNs());
  cl_int current = status_.load();
  while (current > s && current > CL_COMPLETE && !status_.compare_exchange_weak(current, s)) {}
}

void HostFence::complete(cl_int finalStatus) {
  std::vector<std::function<void(cl_int)>> callbacks;
  // Released once set: PoCL 3.1, given a failed user event that lives on (the application's
  // user event released later), ran a command it had freed (kernel name null; 1 in 160 runs of
  // itest_events under load when bridges were kept with their fence).
  std::vector<std::pair<cl_context, RealEvent>> bridges;
  {
    std::lock_guard lock(mutex_);
    if (status_.load() <= CL_COMPLETE) return;
    endNs_.store(hostNowNs());
    status_.store(finalStatus);
    callbacks.swap(callbacks_);
    bridges.swap(bridges_);
  }
  if (finalStatus < 0 && !bridges.empty()) settleBeforeFailures();
  for (auto& [context, bridge] : bridges) call(&cl_icd_dispatch::clSetUserEventStatus, bridge.get(), finalStatus);
  for (auto& fn : callbacks) fn(finalStatus);
}

// --- FenceGroup --------------------------------------------------------------------------------

FenceGroup::FenceGroup(std::vector<FenceRef> parts) : parts_(std::move(parts)) { flattenFences(parts_, SIZE_MAX); }

cl_int FenceGroup::status() {
  cl_int own = HostFence::status();
  if (own <= CL_COMPLETE) return own;
  // Asks the driver up to the first part still running, and remembers a final status, so that
  // asking again costs nothing. Host parts after it are still looked at (no driver call): a
  // failed user event fails the group at once, also where the vendor has not yet failed (or
  // never fails: rusticl) the commands that wait for it.
  bool running = false;
  for (auto& p : parts_) {
    if (running && p->queue()) continue;
    cl_int s = p->status();
    if (s < 0) {
      complete(s);
      return s;
    }
    running |= s != CL_COMPLETE;
  }
  if (running) return own;
  complete(CL_COMPLETE);
  return CL_COMPLETE;
}

bool FenceGroup::profile(uint64_t& start, uint64_t& end) {
  bool any = false;
  for (auto& p : parts_) any |= p->profile(start, end);
  return any;
}

void FenceGroup::flush() {
  if (knownComplete()) return;
  std::vector<cl_command_queue> flushed; // each queue once
  for (auto& p : parts_) {
    cl_command_queue q = p->queue();
    if (q && std::find(flushed.begin(), flushed.end(), q) != flushed.end()) continue;
    if (q) flushed.push_back(q);
    p->flush();
  }
}

void FenceGroup::appendWaitEvents(cl_context context, std::vector<RealEvent>& out) {
  for (auto& p : parts_) p->appendWaitEvents(context, out);
}

void FenceGroup::arm() {
  std::call_once(armed_, [this] {
    // Count completions; the group completes when all parts have, or at the first error: after
    // a failure some vendors never finish the commands queued behind it (PoCL in-order queues).
    struct Counter {
      std::atomic<size_t> pending;
      std::atomic<cl_int> error{CL_COMPLETE};
    };
    auto counter = std::make_shared<Counter>();
    counter->pending = parts_.size();
    std::weak_ptr<FenceGroup> weak = std::static_pointer_cast<FenceGroup>(shared_from_this());
    for (auto& p : parts_)
      p->onComplete([counter, weak](cl_int s) {
        if (s < 0) {
          cl_int expected = CL_COMPLETE;
          if (counter->error.compare_exchange_strong(expected, s))
            if (auto g = weak.lock()) g->complete(s);
        }
        if (counter->pending.fetch_sub(1) == 1)
          if (auto g = weak.lock()) g->complete(counter->error.load());
      });
  });
}

void FenceGroup::onComplete(std::function<void(cl_int)> fn) {
  arm();
  HostFence::onComplete(std::move(fn));
}

cl_int FenceGroup::wait() {
  arm();
  if (HostFence::status() <= CL_COMPLETE) return HostFence::status();
  flush();
  // The parts' callbacks complete the group, but a vendor may call back long after its command
  // ended (NVIDIA: ~15 ms for a clFinish waiting on two uploads that took 2.4 ms): between
  // waits, ask the parts themselves, less and less often. The waiter's state outlives this call
  // (the callback may come after it returned).
  struct Waiter {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
  };
  auto waiter = std::make_shared<Waiter>();
  onComplete([waiter](cl_int) {
    std::lock_guard lock(waiter->mutex);
    waiter->done = true;
    waiter->cv.notify_all();
  });
  auto interval = std::chrono::microseconds(20);
  const uint64_t began = hostNowNs();
  // At debug level, when each part was first seen complete (host clock; polled at least every
  // 200 us then), for the line below.
  const bool debug = log().should_log(spdlog::level::debug);
  std::vector<uint64_t> seen(debug ? parts_.size() : 0, 0);
  auto look = [&] {
    for (size_t i = 0; i < seen.size(); ++i)
      if (!seen[i] && parts_[i]->status() <= CL_COMPLETE) seen[i] = hostNowNs();
  };
  std::unique_lock lock(waiter->mutex);
  while (!waiter->cv.wait_for(lock, interval, [&] { return waiter->done; })) {
    lock.unlock();
    look();
    const bool final = status() <= CL_COMPLETE; // completes the group (and runs the callback)
    lock.lock();
    if (final) break;
    interval = std::min(interval * 2, std::chrono::microseconds(debug ? 200 : 2000));
  }
  lock.unlock();
  look();
  // A long wait, at debug level: per part, when its work ended by its profile (mapped onto the
  // host clock) and when it was seen complete, both from the wait's start, so that a part whose
  // completion is reported late shows.
  if (const uint64_t waited = hostNowNs() - began; waited > 1'000'000 && debug) {
    std::string parts;
    auto us = [began](uint64_t t) { return (double(t) - double(began)) / 1e3; };
    for (size_t i = 0; i < parts_.size(); ++i) {
      const auto& p = parts_[i];
      uint64_t start = UINT64_MAX, end = 0;
      const bool known = p->profile(start, end);
      const char* kind = dynamic_cast<RealEventFence*>(p.get()) ? "command" : p->groupParts() ? "group" : "host";
      parts +=
          known ? fmt::format(" {} ran {:+.0f}..{:+.0f}us", kind, us(start), us(end)) : fmt::format(" {} ran ?", kind);
      parts += seen[i] ? fmt::format(" seen done {:+.0f}us;", us(seen[i])) : std::string(" not seen done;");
    }
    log().debug("waited {:.0f} us for {} fences:{}", waited / 1e3, parts_.size(), parts);
  }
  return HostFence::status();
}

FenceRef completedFence() {
  static FenceRef done = [] {
    auto f = std::make_shared<HostFence>();
    f->complete(CL_COMPLETE);
    return f;
  }();
  return done;
}

FenceRef hostOrdered(const FenceRef& fence) {
  if (!fence || fence->knownComplete()) return nullptr;
  // A group is a HostFence too, but a wait list takes its parts' own events (device commands):
  // it needs a fence of clsplit's like any device command.
  if (dynamic_cast<HostFence*>(fence.get()) && !fence->groupParts()) return fence;
  // Completed from clsplit's worker thread, not inside the driver's callback, so the user
  // events it completes are never set re-entrantly from the same vendor's callback thread.
  return runAfter({fence}, [] {});
}

void flattenFences(std::vector<FenceRef>& fences, size_t keepAllUpTo) {
  bool nested = false;
  for (const auto& f : fences) nested |= f && f->groupParts() != nullptr;
  if (nested) {
    std::vector<FenceRef> flat;
    flat.reserve(fences.size());
    for (auto& f : fences) {
      if (auto* parts = f ? f->groupParts() : nullptr) // parts are leaves
        flat.insert(flat.end(), parts->begin(), parts->end());
      else
        flat.push_back(std::move(f));
    }
    fences.swap(flat);
  }
  std::erase_if(fences, [](const FenceRef& f) { return !f || f->knownComplete(); });
  if (fences.size() < 2) return;
  const bool perQueue = fences.size() > keepAllUpTo;
  size_t kept = 0;
  for (size_t i = 0; i < fences.size(); ++i) {
    FenceRef& f = fences[i];
    bool dropped = false;
    for (size_t j = 0; j < kept && !dropped; ++j) {
      FenceRef& k = fences[j];
      if (k == f)
        dropped = true;
      else if (perQueue && f->queue() && k->queue() == f->queue() && f->positionInQueue() && k->positionInQueue()) {
        if (f->positionInQueue() > k->positionInQueue()) k = f;
        dropped = true;
      }
    }
    if (!dropped) fences[kept++] = std::move(f);
  }
  fences.resize(kept);
}

std::vector<RealEventFence*> realCommandsOf(const FenceRef& fence) {
  std::vector<RealEventFence*> out;
  if (!fence) return out;
  if (const auto* parts = fence->groupParts()) {
    for (const auto& part : *parts) {
      auto* real = dynamic_cast<RealEventFence*>(part.get());
      if (!real) return {};
      out.push_back(real);
    }
  } else if (auto* real = dynamic_cast<RealEventFence*>(fence.get())) {
    out.push_back(real);
  }
  return out;
}

void settleAfterFailure(const FenceRef& fence) {
  if (!fence) return;
  if (const auto* parts = fence->groupParts()) {
    for (const auto& part : *parts)
      if (part->queue()) part->wait();
  } else if (fence->queue()) {
    fence->wait();
  }
}

FenceRef allOf(std::vector<FenceRef> parts) {
  flattenFences(parts);
  if (parts.empty()) return completedFence();
  if (parts.size() == 1) return parts.front();
  return std::make_shared<FenceGroup>(std::move(parts));
}

// --- WaitList ----------------------------------------------------------------------------------

void WaitList::add(const FenceRef& fence) {
  if (!fence) return;
  if (auto* parts = fence->groupParts()) { // flat: each part as itself
    if (fence->knownComplete()) return;
    for (const auto& part : *parts) addLeaf(part);
    return;
  }
  addLeaf(fence);
}

void WaitList::addLeaf(const FenceRef& fence) {
  if (!fence) return;
  if (fence->queue() && fence->queue() == queue_) return; // in-order queue: implied
  if (fence->knownComplete()) return;
  gathered_ = false;
  keepLatestPerQueue(fences_, fence);
}

bool WaitList::implies(cl_command_queue queue, uint64_t position) const {
  if (queue && queue == queue_) return true;
  if (!queue || !position) return false;
  return std::any_of(fences_.begin(), fences_.end(), [&](const FenceRef& kept) {
    return kept->queue() == queue && kept->positionInQueue() >= position;
  });
}

bool WaitList::implies(const FenceRef& fence) const {
  if (!fence) return true;
  if (fence->groupParts()) return fence->knownComplete();
  cl_command_queue q = fence->queue();
  if (q && q == queue_) return true;
  if (fence->knownComplete()) return true;
  const uint64_t at = fence->positionInQueue();
  if (!q || !at) return false;
  return std::any_of(fences_.begin(), fences_.end(), [&](const FenceRef& kept) {
    return kept == fence || (kept->queue() == q && kept->positionInQueue() >= at);
  });
}

void keepLatestPerQueue(std::vector<FenceRef>& fences, const FenceRef& fence) {
  for (auto& kept : fences) {
    if (kept == fence) return;
    if (fence->queue() && kept->queue() == fence->queue() && fence->positionInQueue() && kept->positionInQueue()) {
      if (fence->positionInQueue() > kept->positionInQueue()) kept = fence;
      return;
    }
  }
  fences.push_back(fence);
}

void WaitList::gather() const {
  if (gathered_) return;
  gathered_ = true;
  held_.clear();
  events_.clear();
  userEvents_ = false;
  for (const auto& fence : fences_) {
    if (cl_event own = fence->ownEventIn(context_)) { // fences_ keeps it alive
      fence->flush();
      if (std::find(events_.begin(), events_.end(), own) == events_.end()) events_.push_back(own);
      continue;
    }
    size_t before = held_.size();
    fence->appendWaitEvents(context_, held_);
    if (held_.size() > before && !fence->commandEventsIn(context_)) userEvents_ = true;
    // Commands of another queue (one fence per queue here): submitted before this one waits on
    // them, flushed after their events are known (a marker may have been enqueued just now).
    fence->flush();
    // Deduplicate what was appended (wait lists may not repeat events on some drivers).
    for (size_t i = before; i < held_.size();) {
      if (std::find(events_.begin(), events_.end(), held_[i].get()) != events_.end()) {
        held_.erase(held_.begin() + i);
      } else {
        events_.push_back(held_[i].get());
        ++i;
      }
    }
  }
}

} // namespace clsplit::device
