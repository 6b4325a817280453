// Entry points about command queues.
#include "device/Submission.h"
#include "icd/api/Api.h"
#include "icd/objects/Device.h"
#include "icd/objects/Queue.h"
#include "icd/runtime/HostPtrCoherence.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"

namespace clsplit::icd::api {

cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device, cl_command_queue_properties properties,
                                      cl_int*) {
  auto c = Context::from(context);
  require(Device::tryFrom(device).get() == &c->device(), CL_INVALID_DEVICE, "the device is not the context's device");
  require(
      !(properties & ~cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)),
      CL_INVALID_VALUE, "unknown queue properties");
  return std::make_shared<Queue>(c, properties)->publishHandle();
}

cl_command_queue clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                                    const cl_queue_properties* properties, cl_int*) {
  auto c = Context::from(context);
  require(Device::tryFrom(device).get() == &c->device(), CL_INVALID_DEVICE, "the device is not the context's device");
  cl_command_queue_properties bits = 0;
  std::vector<cl_queue_properties> list;
  bool seen = false;
  for (const cl_queue_properties* p = properties; p && *p; p += 2) {
    const cl_queue_properties name = p[0], value = p[1];
    list.insert(list.end(), {name, value});
    if (name == CL_QUEUE_PROPERTIES) {
      require(!seen, CL_INVALID_VALUE, "CL_QUEUE_PROPERTIES given twice");
      seen = true;
      bits = value;
    } else if (name == CL_QUEUE_SIZE) {
      // Only for device queues, which the device does not offer (CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE 0).
      throw Error(CL_INVALID_QUEUE_PROPERTIES,
                  "CL_QUEUE_SIZE needs a device queue, which the clsplit device does not offer");
    } else {
      throw Error(CL_INVALID_VALUE, "unknown queue property " + std::to_string(name));
    }
  }
  if (!list.empty()) list.push_back(0);
  constexpr cl_command_queue_properties host = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
  constexpr cl_command_queue_properties onDevice = CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT;
  require(!(bits & ~(host | onDevice)), CL_INVALID_VALUE, "unknown queue properties");
  require(!(bits & CL_QUEUE_ON_DEVICE_DEFAULT) || (bits & CL_QUEUE_ON_DEVICE), CL_INVALID_VALUE,
          "CL_QUEUE_ON_DEVICE_DEFAULT without CL_QUEUE_ON_DEVICE");
  require(!(bits & onDevice), CL_INVALID_QUEUE_PROPERTIES, "the clsplit device offers no device queues");
  auto q = std::make_shared<Queue>(c, bits);
  q->setPropertiesArray(std::move(list));
  return q->publishHandle();
}

cl_int clRetainCommandQueue(cl_command_queue queue) {
  Queue::from(queue)->retain();
  return CL_SUCCESS;
}

cl_int clReleaseCommandQueue(cl_command_queue queue) {
  auto q = Queue::from(queue);
  if (q->referenceCount() == 1) q->flush(); // the specification asks for an implicit flush
  q->releaseHandle();
  return CL_SUCCESS;
}

cl_int clGetCommandQueueInfo(cl_command_queue queue, cl_command_queue_info param, size_t size, void* value,
                             size_t* size_ret) {
  return Queue::from(queue)->info(param, size, value, size_ret);
}

cl_int clSetCommandQueueProperty(cl_command_queue queue, cl_command_queue_properties properties, cl_bool enable,
                                 cl_command_queue_properties* old_properties) {
  auto q = Queue::from(queue);
  require(
      !(properties & ~cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)),
      CL_INVALID_VALUE, "unknown queue properties");
  auto old = q->setProperties(properties, enable == CL_TRUE);
  if (old_properties) *old_properties = old;
  return CL_SUCCESS;
}

cl_int clFlush(cl_command_queue queue) {
  Queue::from(queue)->flush();
  return CL_SUCCESS;
}

cl_int clFinish(cl_command_queue queue) {
  runtime::HostSpan span("clFinish");
  auto q = Queue::from(queue);
  // What finish() waits for (taken only where USE_HOST_PTR memory follows the kernels).
  device::FenceRef recorded = q->context().hasHostPtrBuffers() ? q->allRecorded() : nullptr;
  q->finish();
  runtime::bringHostPtrMemoryHome(*q, recorded);
  runtime::Runtime::get().harvestMeasurements(SIZE_MAX); // what the queue ran is complete now
  // A launch the submission thread enqueued after its clEnqueueNDRangeKernel had returned, and
  // the vendor rejected: reported here, as vendors report a launch that failed after its enqueue.
  if (cl_int deferred = device::submission::takeError(); deferred != CL_SUCCESS)
    throw Error(deferred, "a kernel launch enqueued by the submission thread failed (see the log)");
  return CL_SUCCESS;
}

} // namespace clsplit::icd::api
