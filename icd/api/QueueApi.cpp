// Entry points about command queues.
#include "icd/api/Api.h"
#include "icd/runtime/HostPtrCoherence.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"
#include "icd/objects/Device.h"
#include "icd/objects/Queue.h"

namespace clsplit::icd::api {

cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device,
                                      cl_command_queue_properties properties, cl_int*) {
  auto c = Context::from(context);
  require(Device::tryFrom(device).get() == &c->device(), CL_INVALID_DEVICE,
          "the device is not the context's device");
  require(!(properties & ~cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                        CL_QUEUE_PROFILING_ENABLE)),
          CL_INVALID_VALUE, "unknown queue properties");
  return std::make_shared<Queue>(c, properties)->publishHandle();
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

cl_int clGetCommandQueueInfo(cl_command_queue queue, cl_command_queue_info param, size_t size,
                             void* value, size_t* size_ret) {
  return Queue::from(queue)->info(param, size, value, size_ret);
}

cl_int clSetCommandQueueProperty(cl_command_queue queue, cl_command_queue_properties properties,
                                 cl_bool enable, cl_command_queue_properties* old_properties) {
  auto q = Queue::from(queue);
  require(!(properties & ~cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                        CL_QUEUE_PROFILING_ENABLE)),
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
  return CL_SUCCESS;
}

} // namespace clsplit::icd::api
