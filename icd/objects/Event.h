// A virtual event: the completion of one application command (which may be many real
// commands on several devices, or host work), with in-order semantics, callbacks and profiling
// on the host clock. User events are host fences the application completes.
#pragma once

#include "device/Fence.h"
#include "icd/objects/Context.h"

#include <mutex>
#include <vector>

namespace clsplit::icd {

class Queue;

class Event final : public TypedObject<Event, _cl_event, ObjectKind::Event, CL_INVALID_EVENT> {
public:
  // A command event. `done`: the command's own work; `before`: the command and every earlier
  // command of its in-order queue (the event is complete only when both are).
  Event(std::shared_ptr<Context> context, std::shared_ptr<Queue> queue, cl_command_type type, device::FenceRef done,
        device::FenceRef before, uint64_t queuedNs, uint64_t submitNs);
  // A user event.
  explicit Event(std::shared_ptr<Context> context);

  Context& context() const { return *context_; }
  Queue* queue() const { return queue_.get(); }
  cl_command_type commandType() const { return type_; }
  bool isUserEvent() const { return type_ == CL_COMMAND_USER; }

  // What later commands wait on: the command's own work (the in-order chain is not needed for
  // data, which the directories order).
  const device::FenceRef& fence() const { return done_; }

  cl_int status();
  cl_int wait();
  void setUserStatus(cl_int status);
  void addCallback(cl_int type, void(CL_CALLBACK* fn)(cl_event, cl_int, void*), void* data);

  cl_int info(cl_event_info param, size_t size, void* value, size_t* sizeRet);
  cl_int profilingInfo(cl_profiling_info param, size_t size, void* value, size_t* sizeRet);

private:
  device::FenceRef whole(); // own work and everything before it

  std::shared_ptr<Context> context_;
  std::shared_ptr<Queue> queue_;
  cl_command_type type_;
  device::FenceRef done_;
  device::FenceRef before_;
  std::shared_ptr<device::HostFence> user_;
  uint64_t queuedNs_ = 0, submitNs_ = 0;
  std::mutex mutex_;
  device::FenceRef whole_;
  bool userStatusSet_ = false;
};

// Fences of an application wait list (validated: every event valid and in `context`).
std::vector<device::FenceRef> waitListFences(Context& context, cl_uint count, const cl_event* events);

} // namespace clsplit::icd
