// Virtual events: status, waiting, callbacks, profiling.
#include "icd/objects/Event.h"

#include "device/Clock.h"
#include "icd/objects/InfoQuery.h"
#include "icd/objects/Queue.h"

namespace clsplit::icd {

Event::Event(std::shared_ptr<Context> context, std::shared_ptr<Queue> queue, cl_command_type type,
             device::FenceRef done, device::FenceRef before, uint64_t queuedNs, uint64_t submitNs)
    : context_(std::move(context)), queue_(std::move(queue)), type_(type), done_(std::move(done)),
      before_(std::move(before)), queuedNs_(queuedNs), submitNs_(submitNs) {}

Event::Event(std::shared_ptr<Context> context)
    : context_(std::move(context)), type_(CL_COMMAND_USER), user_(std::make_shared<device::HostFence>()) {
  done_ = user_;
  queuedNs_ = submitNs_ = device::hostNowNs();
}

device::FenceRef Event::whole() {
  std::lock_guard lock(mutex_);
  if (!whole_) whole_ = before_ ? device::allOf({done_, before_}) : done_;
  return whole_;
}

cl_int Event::status() {
  cl_int own = done_->status();
  if (user_) return own > CL_SUBMITTED ? CL_SUBMITTED : own; // a user event starts CL_SUBMITTED
  if (own < 0 || !before_) return own;
  cl_int prior = before_->status();
  if (prior < 0) return prior;
  return std::max(own, prior > CL_COMPLETE ? CL_SUBMITTED : own);
}

cl_int Event::wait() {
  auto fence = whole();
  const cl_int status = fence->wait();
  if (status < 0) device::settleAfterFailure(fence);
  return status;
}

void Event::setUserStatus(cl_int status) {
  require(user_ != nullptr, CL_INVALID_EVENT, "not a user event");
  require(status == CL_COMPLETE || status < 0, CL_INVALID_VALUE, "execution_status must be CL_COMPLETE or negative");
  {
    std::lock_guard lock(mutex_);
    require(!userStatusSet_, CL_INVALID_OPERATION, "user event status already set");
    userStatusSet_ = true;
  }
  user_->complete(status);
}

void Event::addCallback(cl_int type, void(CL_CALLBACK* fn)(cl_event, cl_int, void*), void* data) {
  require(fn != nullptr, CL_INVALID_VALUE, "pfn_notify is NULL");
  require(type == CL_COMPLETE || type == CL_SUBMITTED || type == CL_RUNNING, CL_INVALID_VALUE,
          "invalid command_exec_callback_type");
  auto self = std::static_pointer_cast<Event>(shared_from_this());
  cl_event h = handle();
  if (type != CL_COMPLETE && status() <= type) { // already reached that state
    fn(h, type, data);
    return;
  }
  // The callback keeps the event alive (as the specification requires of an implementation).
  // It comes only once the command has run: submit it (commands returning events are not
  // flushed when enqueued).
  whole()->flush();
  whole()->onComplete([self, h, fn, data, type](cl_int s) { fn(h, s < 0 ? s : type, data); });
}

cl_int Event::info(cl_event_info param, size_t size, void* value, size_t* sizeRet) {
  switch (param) {
  case CL_EVENT_COMMAND_QUEUE:
    return writeInfo(InfoValue::of(queue_ ? queue_->handle() : nullptr), size, value, sizeRet);
  case CL_EVENT_CONTEXT:
    return writeInfo(InfoValue::of(context_->handle()), size, value, sizeRet);
  case CL_EVENT_COMMAND_TYPE:
    return writeInfo(InfoValue::of(type_), size, value, sizeRet);
  case CL_EVENT_COMMAND_EXECUTION_STATUS:
    // A program polling the status must see it change: submit what it waits for.
    if (!user_) whole()->flush();
    return writeInfo(InfoValue::of(status()), size, value, sizeRet);
  case CL_EVENT_REFERENCE_COUNT:
    return writeInfo(InfoValue::of(referenceCount()), size, value, sizeRet);
  default:
    throw Error(CL_INVALID_VALUE, "unknown event info");
  }
}

cl_int Event::profilingInfo(cl_profiling_info param, size_t size, void* value, size_t* sizeRet) {
  require(!isUserEvent() && queue_ && queue_->profiling(), CL_PROFILING_INFO_NOT_AVAILABLE,
          "profiling is not enabled on the event's queue (or it is a user event)");
  require(status() == CL_COMPLETE, CL_PROFILING_INFO_NOT_AVAILABLE, "the command is not complete");
  cl_ulong v = 0;
  switch (param) {
  case CL_PROFILING_COMMAND_QUEUED:
    v = queuedNs_;
    break;
  case CL_PROFILING_COMMAND_SUBMIT:
    v = submitNs_;
    break;
  case CL_PROFILING_COMMAND_START:
  case CL_PROFILING_COMMAND_END:
  case CL_PROFILING_COMMAND_COMPLETE: { // no child commands (no device-side enqueue): its END
    uint64_t start = UINT64_MAX, end = 0;
    if (!done_->profile(start, end)) start = end = submitNs_; // no work was needed
    start = std::max<uint64_t>(start, submitNs_);
    end = std::max(end, start);
    // In order, the command ends (its event completes) no earlier than the commands before it.
    uint64_t priorStart = UINT64_MAX, priorEnd = 0;
    if (before_ && before_->profile(priorStart, priorEnd)) end = std::max(end, priorEnd);
    v = param == CL_PROFILING_COMMAND_START ? start : end;
    break;
  }
  default:
    throw Error(CL_INVALID_VALUE, "unknown profiling info");
  }
  return writeInfo(InfoValue::of(v), size, value, sizeRet);
}

std::vector<device::FenceRef> waitListFences(Context& context, cl_uint count, const cl_event* events) {
  require((count == 0) == (events == nullptr), CL_INVALID_EVENT_WAIT_LIST,
          "num_events_in_wait_list and event_wait_list disagree");
  std::vector<device::FenceRef> fences;
  fences.reserve(count);
  for (cl_uint i = 0; i < count; ++i) {
    auto e = Event::tryFrom(events[i]);
    require(e != nullptr, CL_INVALID_EVENT_WAIT_LIST, "invalid event in the wait list");
    require(&e->context() == &context, CL_INVALID_CONTEXT, "wait-list event from another context");
    fences.push_back(e->fence());
  }
  return fences;
}

} // namespace clsplit::icd
