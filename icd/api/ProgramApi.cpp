// Entry points about programs.
#include "icd/api/Api.h"
#include "icd/objects/Device.h"
#include "icd/objects/Program.h"

namespace clsplit::icd::api {

namespace {

using BuildNotify = void(CL_CALLBACK*)(cl_program, void*);

// The device list of clBuildProgram and friends: NULL, or exactly our device.
void checkDevices(const Program& program, cl_uint num_devices, const cl_device_id* devices) {
  require((num_devices == 0) == (devices == nullptr), CL_INVALID_VALUE, "num_devices and device_list disagree");
  for (cl_uint i = 0; i < num_devices; ++i)
    require(Device::tryFrom(devices[i]).get() == &program.context().device(), CL_INVALID_DEVICE,
            "a device is not the program's device");
}

} // namespace

cl_program clCreateProgramWithSource(cl_context context, cl_uint count, const char** strings, const size_t* lengths,
                                     cl_int*) {
  auto c = Context::from(context);
  require(count > 0 && strings, CL_INVALID_VALUE, "no source strings");
  std::string source;
  for (cl_uint i = 0; i < count; ++i) {
    require(strings[i] != nullptr, CL_INVALID_VALUE, "a source string is NULL");
    if (lengths && lengths[i])
      source.append(strings[i], lengths[i]);
    else
      source.append(strings[i]);
  }
  return std::make_shared<Program>(c, std::move(source))->publishHandle();
}

cl_program clCreateProgramWithBinary(cl_context context, cl_uint num_devices, const cl_device_id* devices,
                                     const size_t* lengths, const unsigned char** binaries, cl_int* binary_status,
                                     cl_int*) {
  auto c = Context::from(context);
  require(num_devices > 0 && devices, CL_INVALID_VALUE, "no devices given");
  require(lengths && binaries, CL_INVALID_VALUE, "lengths or binaries is NULL");
  std::optional<ProgramBinary> binary;
  for (cl_uint i = 0; i < num_devices; ++i) {
    require(Device::tryFrom(devices[i]).get() == &c->device(), CL_INVALID_DEVICE,
            "a device is not the context's device");
    require(binaries[i] && lengths[i], CL_INVALID_VALUE, "an empty binary");
    binary = ProgramBinary::decode(binaries[i], lengths[i]);
    if (binary_status) binary_status[i] = binary ? CL_SUCCESS : CL_INVALID_BINARY;
    require(binary.has_value(), CL_INVALID_BINARY, "not a clsplit program binary");
  }
  // Objects and libraries are compiled and linked again now: a vendor that no longer accepts
  // their source makes the binary invalid.
  try {
    return Program::fromBinary(c, *binary)->publishHandle();
  } catch (const Error& e) {
    if (e.code() != CL_COMPILE_PROGRAM_FAILURE && e.code() != CL_LINK_PROGRAM_FAILURE) throw;
    if (binary_status) binary_status[0] = CL_INVALID_BINARY;
    throw Error(CL_INVALID_BINARY, std::string("the binary's program no longer compiles: ") + e.what());
  }
}

cl_program clCreateProgramWithBuiltInKernels(cl_context context, cl_uint num_devices, const cl_device_id* devices,
                                             const char* kernel_names, cl_int*) {
  auto c = Context::from(context);
  require(num_devices > 0 && devices && kernel_names, CL_INVALID_VALUE, "missing arguments");
  for (cl_uint i = 0; i < num_devices; ++i)
    require(Device::tryFrom(devices[i]).get() == &c->device(), CL_INVALID_DEVICE,
            "a device is not the context's device");
  throw Error(CL_INVALID_VALUE, "the clsplit device has no built-in kernels");
}

cl_int clRetainProgram(cl_program program) {
  Program::from(program)->retain();
  return CL_SUCCESS;
}

cl_int clReleaseProgram(cl_program program) {
  Program::from(program)->releaseHandle();
  return CL_SUCCESS;
}

cl_int clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id* devices, const char* options,
                      BuildNotify notify, void* user_data) {
  auto p = Program::from(program);
  checkDevices(*p, num_devices, devices);
  require(notify || !user_data, CL_INVALID_VALUE, "user_data without pfn_notify");
  cl_int result = CL_SUCCESS;
  try {
    p->build(options ? options : "");
  } catch (const Error& e) {
    if (e.code() != CL_BUILD_PROGRAM_FAILURE) throw;
    result = e.code();
  }
  if (notify) notify(program, user_data); // builds complete before clBuildProgram returns
  if (result != CL_SUCCESS) throw Error(result, "build failed");
  return CL_SUCCESS;
}

cl_int clCompileProgram(cl_program program, cl_uint num_devices, const cl_device_id* devices, const char* options,
                        cl_uint num_headers, const cl_program* headers, const char** header_names, BuildNotify notify,
                        void* user_data) {
  auto p = Program::from(program);
  checkDevices(*p, num_devices, devices);
  require(notify || !user_data, CL_INVALID_VALUE, "user_data without pfn_notify");
  require((num_headers == 0) == (headers == nullptr) && (num_headers == 0) == (header_names == nullptr),
          CL_INVALID_VALUE, "num_input_headers, input_headers and header_include_names disagree");
  std::vector<std::shared_ptr<Program>> keep;
  std::vector<std::pair<std::string, Program*>> list;
  for (cl_uint i = 0; i < num_headers; ++i) {
    keep.push_back(Program::from(headers[i]));
    list.emplace_back(header_names[i] ? header_names[i] : "", keep.back().get());
  }
  cl_int result = CL_SUCCESS;
  try {
    p->compile(options ? options : "", list);
  } catch (const Error& e) {
    if (e.code() != CL_COMPILE_PROGRAM_FAILURE) throw;
    result = e.code();
  }
  if (notify) notify(program, user_data);
  if (result != CL_SUCCESS) throw Error(result, "compilation failed");
  return CL_SUCCESS;
}

cl_program clLinkProgram(cl_context context, cl_uint num_devices, const cl_device_id* devices, const char* options,
                         cl_uint num_inputs, const cl_program* inputs, BuildNotify notify, void* user_data, cl_int*) {
  auto c = Context::from(context);
  require((num_devices == 0) == (devices == nullptr), CL_INVALID_VALUE, "num_devices and device_list disagree");
  for (cl_uint i = 0; i < num_devices; ++i)
    require(Device::tryFrom(devices[i]).get() == &c->device(), CL_INVALID_DEVICE,
            "a device is not the context's device");
  require(num_inputs > 0 && inputs, CL_INVALID_VALUE, "no input programs");
  require(notify || !user_data, CL_INVALID_VALUE, "user_data without pfn_notify");
  std::vector<std::shared_ptr<Program>> programs;
  for (cl_uint i = 0; i < num_inputs; ++i) {
    auto p = Program::tryFrom(inputs[i]);
    require(p != nullptr, CL_INVALID_PROGRAM, "an input program is invalid");
    require(&p->context() == c.get(), CL_INVALID_CONTEXT, "an input program is from another context");
    require(p->kind() == Program::Kind::Compiled || p->kind() == Program::Kind::Linked, CL_INVALID_OPERATION,
            "an input program is not compiled");
    programs.push_back(p);
  }
  auto linked = Program::link(c, options ? options : "", programs);
  cl_program handle = linked->publishHandle();
  if (notify) notify(handle, user_data);
  return handle;
}

cl_int clGetProgramInfo(cl_program program, cl_program_info param, size_t size, void* value, size_t* size_ret) {
  return Program::from(program)->info(param, size, value, size_ret);
}

cl_int clGetProgramBuildInfo(cl_program program, cl_device_id device, cl_program_build_info param, size_t size,
                             void* value, size_t* size_ret) {
  auto p = Program::from(program);
  require(Device::tryFrom(device).get() == &p->context().device(), CL_INVALID_DEVICE,
          "the device is not the program's device");
  return p->buildInfo(param, size, value, size_ret);
}

} // namespace clsplit::icd::api
