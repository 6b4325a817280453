// Entry points about contexts.
#include "icd/api/Api.h"
#include "icd/objects/Context.h"
#include "icd/objects/Device.h"
#include "icd/objects/Platform.h"

namespace clsplit::icd::api {

namespace {

// Validates the properties list and returns it (with its terminating 0) for CL_CONTEXT_PROPERTIES.
std::vector<cl_context_properties> checkProperties(const cl_context_properties* properties) {
  std::vector<cl_context_properties> copy;
  if (!properties) return copy;
  bool platformSeen = false, syncSeen = false;
  for (const cl_context_properties* p = properties; *p; p += 2) {
    switch (p[0]) {
    case CL_CONTEXT_PLATFORM:
      require(!platformSeen, CL_INVALID_PROPERTY, "CL_CONTEXT_PLATFORM given twice");
      platformSeen = true;
      require(Platform::tryFrom(reinterpret_cast<cl_platform_id>(p[1])) != nullptr, CL_INVALID_PLATFORM,
              "CL_CONTEXT_PLATFORM is not the clsplit platform");
      break;
    case CL_CONTEXT_INTEROP_USER_SYNC:
      require(!syncSeen, CL_INVALID_PROPERTY, "CL_CONTEXT_INTEROP_USER_SYNC given twice");
      syncSeen = true;
      break;
    default:
      throw Error(CL_INVALID_PROPERTY, "unsupported context property");
    }
    copy.push_back(p[0]);
    copy.push_back(p[1]);
  }
  copy.push_back(0);
  return copy;
}

cl_context create(const cl_context_properties* properties, ContextNotify notify, void* data) {
  require(notify || !data, CL_INVALID_VALUE, "user_data without pfn_notify");
  auto context = std::make_shared<Context>(checkProperties(properties), notify, data);
  return context->publishHandle();
}

} // namespace

cl_context clCreateContext(const cl_context_properties* properties, cl_uint num_devices, const cl_device_id* devices,
                           ContextNotify notify, void* user_data, cl_int*) {
  require(num_devices > 0 && devices, CL_INVALID_VALUE, "no devices given");
  for (cl_uint i = 0; i < num_devices; ++i) Device::from(devices[i]);
  return create(properties, notify, user_data);
}

cl_context clCreateContextFromType(const cl_context_properties* properties, cl_device_type type, ContextNotify notify,
                                   void* user_data, cl_int*) {
  cl_uint n = 0;
  api::clGetDeviceIDs(nullptr, type, 0, nullptr, &n); // throws CL_DEVICE_NOT_FOUND etc.
  return create(properties, notify, user_data);
}

cl_int clRetainContext(cl_context context) {
  Context::from(context)->retain();
  return CL_SUCCESS;
}

cl_int clReleaseContext(cl_context context) {
  Context::from(context)->releaseHandle();
  return CL_SUCCESS;
}

cl_int clSetContextDestructorCallback(cl_context context, void(CL_CALLBACK* pfn_notify)(cl_context, void*),
                                      void* user_data) {
  auto c = Context::from(context);
  require(pfn_notify != nullptr, CL_INVALID_VALUE, "pfn_notify is NULL");
  c->addDestructorCallback(pfn_notify, user_data);
  return CL_SUCCESS;
}

cl_int clGetContextInfo(cl_context context, cl_context_info param, size_t size, void* value, size_t* size_ret) {
  return Context::from(context)->info(param, size, value, size_ret);
}

} // namespace clsplit::icd::api
