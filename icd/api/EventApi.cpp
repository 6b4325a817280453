// Entry points about events.
#include "icd/api/Api.h"
#include "icd/objects/Event.h"
#include "icd/objects/Queue.h"
#include "icd/runtime/HostPtrCoherence.h"
#include "icd/runtime/Runtime.h"

#include <algorithm>

namespace clsplit::icd::api {

cl_int clWaitForEvents(cl_uint num_events, const cl_event* events) {
  require(num_events > 0 && events, CL_INVALID_VALUE, "no events");
  std::vector<std::shared_ptr<Event>> list;
  for (cl_uint i = 0; i < num_events; ++i) {
    auto e = Event::tryFrom(events[i]);
    require(e != nullptr, CL_INVALID_EVENT, "invalid event");
    require(list.empty() || &e->context() == &list.front()->context(), CL_INVALID_CONTEXT,
            "events from different contexts");
    list.push_back(e);
  }
  // Commands of the queues these events belong to must be submitted before we wait on them.
  for (auto& e : list)
    if (e->queue()) e->queue()->flush();
  bool failed = false;
  for (auto& e : list) failed |= e->wait() < 0;
  if (failed) throw Error(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "an event failed");
  std::vector<Queue*> synced;
  for (auto& e : list)
    if (Queue* q = e->queue(); q && std::find(synced.begin(), synced.end(), q) == synced.end()) {
      std::vector<device::FenceRef> waited; // this queue's events, all complete now
      for (auto& other : list)
        if (other->queue() == q) waited.push_back(other->fence());
      runtime::bringHostPtrMemoryHome(*q, device::allOf(std::move(waited)));
      synced.push_back(q);
    }
  runtime::Runtime::get().harvestMeasurements(SIZE_MAX); // as after a blocking command
  return CL_SUCCESS;
}

cl_int clGetEventInfo(cl_event event, cl_event_info param, size_t size, void* value, size_t* size_ret) {
  return Event::from(event)->info(param, size, value, size_ret);
}

cl_int clRetainEvent(cl_event event) {
  Event::from(event)->retain();
  return CL_SUCCESS;
}

cl_int clReleaseEvent(cl_event event) {
  Event::from(event)->releaseHandle();
  return CL_SUCCESS;
}

cl_int clGetEventProfilingInfo(cl_event event, cl_profiling_info param, size_t size, void* value, size_t* size_ret) {
  return Event::from(event)->profilingInfo(param, size, value, size_ret);
}

cl_event clCreateUserEvent(cl_context context, cl_int*) {
  return std::make_shared<Event>(Context::from(context))->publishHandle();
}

cl_int clSetUserEventStatus(cl_event event, cl_int status) {
  Event::from(event)->setUserStatus(status);
  return CL_SUCCESS;
}

cl_int clSetEventCallback(cl_event event, cl_int type, void(CL_CALLBACK* fn)(cl_event, cl_int, void*), void* data) {
  Event::from(event)->addCallback(type, fn, data);
  return CL_SUCCESS;
}

} // namespace clsplit::icd::api
