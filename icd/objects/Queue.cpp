// Virtual queues: lazy real queues, the in-order record of commands, flush and finish.
#include "icd/objects/Queue.h"

#include "device/Enqueue.h"
#include "device/Submission.h"
#include "icd/objects/Device.h"
#include "icd/objects/Environment.h"
#include "icd/objects/InfoQuery.h"

namespace clsplit::icd {

Queue::Queue(std::shared_ptr<Context> context, cl_command_queue_properties properties)
    : context_(std::move(context)), properties_(properties), realQueues_(2 * context_->slots().size()),
      madeQueues_(new std::atomic<cl_command_queue>[2 * context_->slots().size()]) {
  for (size_t s = 0; s < realQueues_.size(); ++s) madeQueues_[s].store(nullptr);
}

Queue::~Queue() = default;

cl_command_queue_properties Queue::setProperties(cl_command_queue_properties which, bool on) {
  std::lock_guard lock(mutex_);
  auto old = properties_;
  properties_ = on ? properties_ | which : properties_ & ~which;
  return old;
}

cl_command_queue Queue::madeQueue(unsigned s, bool transfer) {
  const size_t slots = realQueues_.size() / 2;
  const size_t index = transfer ? slots + s : s;
  if (s < slots)
    if (cl_command_queue made = madeQueues_[index].load(std::memory_order_acquire)) return made;
  std::lock_guard lock(mutex_);
  if (s >= slots) throw std::out_of_range("clsplit: no such device slot");
  auto& q = realQueues_[index];
  if (!q) {
    const auto& sc = context_->slot(s);
    // Device times are read where the partitioner measures kernels (several devices), where
    // the application profiles, and for the run report's timings. Otherwise the real queue does
    // without: NVIDIA's OpenCL took ~5 us more per evented command (markers) on a profiling queue.
    auto& env = environment();
    const bool timed =
        (properties_ & CL_QUEUE_PROFILING_ENABLE) || !env.partitioner().onlyDevice() || env.commandsTimed();
    cl_int err = CL_SUCCESS;
    cl_command_queue real = device::call(&cl_icd_dispatch::clCreateCommandQueue, sc.context, sc.device,
                                         cl_command_queue_properties(timed ? CL_QUEUE_PROFILING_ENABLE : 0), &err);
    device::check(err, "clCreateCommandQueue");
    q = device::RealQueue::adopt(real);
    // Adaptive strategies split by the devices' profiled times: a device whose profile is no
    // clock would look infinitely fast to them (asked once per device, before its first launch).
    if (timed && !transfer && env.partitioner().usesMeasurements() &&
        device::profilingClockIsReal(real, sc.device) == false)
      env.partitioner().reportUnmeasurable(s);
    madeQueues_[index].store(real, std::memory_order_release);
    // The submission thread's first call into a vendor costs it a one-time set-up (the driver's
    // per-thread state): made now, with the queue, so that the application's next call (which
    // waits for it) pays it rather than its first launches.
    if (device::submission::enabled() && !transfer)
      device::submission::defer([real] { device::call(&cl_icd_dispatch::clFlush, real); });
  }
  return q.get();
}

bool Queue::timesCommands() { return timedCommand_.load(std::memory_order_relaxed) || environment().commandsTimed(); }

void Queue::recordCommand(const device::FenceRef& done) {
  std::lock_guard lock(mutex_);
  addToFrontier(outstanding_, pruneOutstandingAbove_, done, profiling());
}

void Queue::addToFrontier(std::vector<device::FenceRef>& frontier, size_t& pruneAbove, const device::FenceRef& done,
                          bool keepEach) {
  // The real queues are in order: a command's completion implies that of every earlier command
  // of its real queue, so the record keeps the latest fence per real queue, and the fences
  // clsplit completes itself (host work, user events) until they are known complete. It stays
  // as long as the number of real queues plus pending host work, however many commands came.
  // A profiling queue keeps each command until it is known complete (up to kProfiledRecord):
  // there an event's END is no earlier than the END of every command before it, and the device
  // times of commands of one real queue, mapped onto the host clock one by one, need not be
  // monotonic.
  constexpr size_t kProfiledRecord = 1024;
  const bool latestOnly = !keepEach || frontier.size() >= kProfiledRecord;
  auto keep = [&frontier, latestOnly](const device::FenceRef& f) {
    if (!f || f->knownComplete()) return;
    for (auto& e : frontier) {
      if (e == f) return;
      if (cl_command_queue q = f->queue();
          latestOnly && q && e->queue() == q && f->positionInQueue() && e->positionInQueue()) {
        if (f->positionInQueue() > e->positionInQueue()) e = f; // else implied by e
        return;
      }
    }
    frontier.push_back(f);
  };
  if (!done) return;
  if (auto* parts = done->groupParts())
    for (const auto& part : *parts) keep(part); // parts are never groups
  else
    keep(done);
  device::pruneCompleted(frontier, pruneAbove, [](const device::FenceRef& f) { return f; });
}

void Queue::recordBackground(const device::FenceRef& done) {
  std::lock_guard lock(mutex_);
  addToFrontier(background_, pruneBackgroundAbove_, done, false);
}

device::FenceRef Queue::allRecorded() {
  std::lock_guard lock(mutex_);
  if (profiling() && outstanding_.size() > 1) // every part kept (see addToFrontier)
    return std::make_shared<device::FenceGroup>(outstanding_);
  return device::allOf(outstanding_);
}

void Queue::setGate(const device::FenceRef& gate) {
  std::lock_guard lock(mutex_);
  gate_ = gate;
  gated_.store(gate_ != nullptr, std::memory_order_release);
}

device::FenceRef Queue::gate() {
  if (!gated_.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard lock(mutex_);
  if (gate_ && gate_->knownComplete()) gate_.reset();
  gated_.store(gate_ != nullptr, std::memory_order_release);
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

void Queue::noteHostAccess(const void* ptr, size_t size, bool writesHost, const device::FenceRef& fence) {
  if (fence->knownComplete()) return;
  std::lock_guard lock(mutex_);
  auto lo = static_cast<const std::byte*>(ptr);
  hostAccesses_.push_back({lo, lo + size, writesHost, fence});
}

std::vector<cl_command_queue> Queue::madeRealQueues() {
  std::lock_guard lock(mutex_);
  std::vector<cl_command_queue> queues;
  for (auto& q : realQueues_)
    if (q) queues.push_back(q.get());
  return queues;
}

void Queue::flush() {
  for (auto q : madeRealQueues()) device::check(device::flushQueue(q), "clFlush");
}

void Queue::finish() {
  flush();
  cl_int status = CL_COMPLETE;
  {
    EnvironmentSpan span("finish: commands");
    status = allRecorded()->wait();
  }
  if (status < 0) {
    // A command terminated by a failed wait list ends at once, before the commands queued
    // ahead of it on its real queue: only the vendor's clFinish waits for those (PoCL 3.1 ran
    // them after the program had released their context, and aborted at exit).
    for (auto q : madeRealQueues()) device::call(&cl_icd_dispatch::clFinish, q);
  }
  std::vector<device::FenceRef> background;
  {
    std::lock_guard lock(mutex_);
    background.swap(background_);
  }
  EnvironmentSpan span("finish: eager uploads");
  device::allOf(std::move(background))->wait();
  // Let go of what has completed (a completed group still holds its parts' events).
  std::lock_guard lock(mutex_);
  std::erase_if(outstanding_, [](const device::FenceRef& f) { return f->status() == CL_COMPLETE; });
  std::erase_if(hostAccesses_, [](const HostAccess& a) { return a.fence->status() == CL_COMPLETE; });
  if (gate_ && gate_->status() == CL_COMPLETE) gate_.reset();
  gated_.store(gate_ != nullptr, std::memory_order_release);
}

cl_int Queue::info(cl_command_queue_info param, size_t size, void* value, size_t* sizeRet) const {
  static const InfoEntry<Queue> table[] = {
      {CL_QUEUE_CONTEXT, [](const Queue& q) { return InfoValue::of(q.context().handle()); }},
      {CL_QUEUE_DEVICE, [](const Queue& q) { return InfoValue::of(q.context().device().handle()); }},
      {CL_QUEUE_REFERENCE_COUNT, [](const Queue& q) { return InfoValue::of(q.referenceCount()); }},
      {CL_QUEUE_PROPERTIES, [](const Queue& q) { return InfoValue::of(q.properties()); }},
      {CL_QUEUE_PROPERTIES_ARRAY, [](const Queue& q) { return InfoValue::array(q.propertiesArray_); }},
      {CL_QUEUE_DEVICE_DEFAULT, [](const Queue&) { return InfoValue::of(static_cast<cl_command_queue>(nullptr)); }},
      {CL_QUEUE_SIZE,
       [](const Queue&) -> InfoValue {
         throw Error(CL_INVALID_COMMAND_QUEUE, "CL_QUEUE_SIZE is for device queues; this is a host queue");
       }},
  };
  return answerInfo(table, *this, param, size, value, sizeRet);
}

} // namespace clsplit::icd
