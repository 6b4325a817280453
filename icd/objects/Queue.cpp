// Virtual queues: lazy real queues, the in-order record of commands, flush and finish.
#include "icd/objects/Queue.h"

#include "icd/api/InfoQuery.h"
#include "icd/objects/Device.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"

namespace clsplit::icd {

Queue::Queue(std::shared_ptr<Context> context, cl_command_queue_properties properties)
    : context_(std::move(context)), properties_(properties),
      realQueues_(context_->slots().size()) {}

Queue::~Queue() = default;

cl_command_queue_properties Queue::setProperties(cl_command_queue_properties which, bool on) {
  std::lock_guard lock(mutex_);
  auto old = properties_;
  properties_ = on ? properties_ | which : properties_ & ~which;
  return old;
}

cl_command_queue Queue::realQueue(unsigned s) {
  std::lock_guard lock(mutex_);
  auto& q = realQueues_.at(s);
  if (!q) {
    const auto& sc = context_->slot(s);
    cl_int err = CL_SUCCESS;
    cl_command_queue real = device::call(&cl_icd_dispatch::clCreateCommandQueue, sc.context,
                                         sc.device, cl_command_queue_properties(CL_QUEUE_PROFILING_ENABLE), &err);
    device::check(err, "clCreateCommandQueue");
    q = device::RealQueue::adopt(real);
  }
  return q.get();
}

bool Queue::timesCommands() {
  return timedCommand_.load(std::memory_order_relaxed) || runtime::Runtime::get().commandsTimed();
}

void Queue::recordCommand(const device::FenceRef& done) {
  std::lock_guard lock(mutex_);
  // The real queues are in order: a command's completion implies that of every earlier command
  // of its real queue, so the record keeps the latest fence per real queue (and the others).
  // Not on a profiling queue: there an event's END is no earlier than the END of every command
  // before it, and the device times of commands of one real queue, mapped onto the host clock
  // one by one, need not be monotonic.
  const bool latestOnly = !profiling();
  auto keep = [this, latestOnly](const device::FenceRef& f) {
    if (!f) return;
    if (cl_command_queue q = f->queue(); latestOnly && q && f->positionInQueue())
      for (auto& e : outstanding_)
        if (e->queue() == q && e->positionInQueue()) {
          if (f->positionInQueue() > e->positionInQueue()) e = f; // else implied by e
          return;
        }
    outstanding_.push_back(f);
  };
  if (auto* group = dynamic_cast<device::FenceGroup*>(done.get()))
    for (const auto& part : group->parts()) keep(part);
  else
    keep(done);
  // Keep the record short without asking drivers: drop what is known to have completed, and
  // fold a long tail into one group (whose parts report their own completion).
  if (outstanding_.size() >= 32) {
    std::erase_if(outstanding_, [](const device::FenceRef& f) { return f->knownComplete(); });
    if (outstanding_.size() >= 32) {
      // The folded group learns of its completion (callbacks; one marker for eventless
      // commands), so that a later fold drops it: the record stays short in programs that
      // never wait.
      outstanding_.assign(1, device::allOf(std::move(outstanding_)));
      outstanding_.front()->onComplete([](cl_int) {});
    }
  }
}

void Queue::recordBackground(const device::FenceRef& done) {
  std::lock_guard lock(mutex_);
  std::erase_if(background_, [](const device::FenceRef& f) { return f->knownComplete(); });
  background_.push_back(done);
}

device::FenceRef Queue::allRecorded() {
  std::lock_guard lock(mutex_);
  auto all = device::allOf(outstanding_);
  outstanding_.assign(1, all);
  return all;
}

void Queue::setGate(const device::FenceRef& gate) {
  std::lock_guard lock(mutex_);
  gate_ = gate;
}

device::FenceRef Queue::gate() {
  std::lock_guard lock(mutex_);
  if (gate_ && gate_->knownComplete()) gate_.reset();
  return gate_;
}

std::vector<device::FenceRef> Queue::hostHazards(const void* ptr, size_t size, bool writesHost) {
  std::lock_guard lock(mutex_);
  device::pruneCompleted(hostAccesses_, pruneHostAccessesAbove_, [](const HostAccess& a) { return a.fence; });
  auto lo = static_cast<const std::byte*>(ptr), hi = lo + size;
  std::vector<device::FenceRef> fences;
  for (const auto& a : hostAccesses_)
    if (a.lo < hi && lo < a.hi && (writesHost || a.writesHost)) fences.push_back(a.fence);
  return fences;
}

void Queue::noteHostAccess(const void* ptr, size_t size, bool writesHost,
                           const device::FenceRef& fence) {
  if (fence->knownComplete()) return;
  std::lock_guard lock(mutex_);
  auto lo = static_cast<const std::byte*>(ptr);
  hostAccesses_.push_back({lo, lo + size, writesHost, fence});
}

void Queue::flush() {
  std::vector<cl_command_queue> queues;
  {
    std::lock_guard lock(mutex_);
    for (auto& q : realQueues_)
      if (q) queues.push_back(q.get());
  }
  for (auto q : queues) device::check(device::call(&cl_icd_dispatch::clFlush, q), "clFlush");
}

void Queue::finish() {
  flush();
  {
    runtime::HostSpan span("finish: commands");
    allRecorded()->wait();
  }
  std::vector<device::FenceRef> background;
  {
    std::lock_guard lock(mutex_);
    background.swap(background_);
  }
  runtime::HostSpan span("finish: eager uploads");
  device::allOf(std::move(background))->wait();
  // Let go of what has completed (a completed group still holds its parts' events).
  std::lock_guard lock(mutex_);
  std::erase_if(outstanding_, [](const device::FenceRef& f) { return f->status() == CL_COMPLETE; });
  std::erase_if(hostAccesses_, [](const HostAccess& a) { return a.fence->status() == CL_COMPLETE; });
  if (gate_ && gate_->status() == CL_COMPLETE) gate_.reset();
}

cl_int Queue::info(cl_command_queue_info param, size_t size, void* value, size_t* sizeRet) const {
  static const InfoEntry<Queue> table[] = {
      {CL_QUEUE_CONTEXT,
       [](const Queue& q) { return InfoValue::of(q.context().handle()); }},
      {CL_QUEUE_DEVICE, [](const Queue& q) { return InfoValue::of(q.context().device().handle()); }},
      {CL_QUEUE_REFERENCE_COUNT, [](const Queue& q) { return InfoValue::of(q.referenceCount()); }},
      {CL_QUEUE_PROPERTIES, [](const Queue& q) { return InfoValue::of(q.properties()); }},
  };
  return answerInfo(table, *this, param, size, value, sizeRet);
}

} // namespace clsplit::icd
