// OpenCL 3.0 as a program written for it uses it: queues and buffers made with properties,
// context destructor callbacks, cloned kernels, empty NDRanges, OpenCL C 3.0 kernels whose
// feature macros agree with CL_DEVICE_OPENCL_C_FEATURES, C11 atomics and a 3.0 kernel that is
// split. Optional features are checked for consistency (what the device reports against what
// its entry points do), since a real device and clsplit may offer different ones.
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#include "itest.h"

#include <string>

using namespace itest;

namespace {

template <class T>
std::vector<T> deviceArray(cl_device_id device, cl_device_info param) {
  size_t size = 0;
  CHECK(clGetDeviceInfo(device, param, 0, nullptr, &size));
  std::vector<T> out(size / sizeof(T));
  if (size) CHECK(clGetDeviceInfo(device, param, size, out.data(), nullptr));
  return out;
}

template <class T>
T deviceValue(cl_device_id device, cl_device_info param) {
  T v{};
  CHECK(clGetDeviceInfo(device, param, sizeof v, &v, nullptr));
  return v;
}

bool listed(const std::vector<cl_name_version>& list, const char* name, cl_version version = 0) {
  for (const auto& v : list)
    if (std::strcmp(v.name, name) == 0 && (!version || v.version == version)) return true;
  return false;
}

std::vector<std::string> gCallbackOrder;
void CL_CALLBACK destructorCallback(cl_context, void* data) {
  gCallbackOrder.push_back(static_cast<const char*>(data));
}

// The specification's OpenCL C 3.0 feature macros, in the order of the kernel below.
const char* const kFeatures[] = {
    "__opencl_c_3d_image_writes",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_device_enqueue",
    "__opencl_c_generic_address_space",
    "__opencl_c_fp64",
    "__opencl_c_images",
    "__opencl_c_int64",
    "__opencl_c_pipes",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_read_write_images",
    "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
};

const char* kMacroKernel = R"(
#define HAS(f, i) out[i] = 1
kernel void macros(global int* out) {
  for (int i = 0; i < 17; ++i) out[i] = 0;
#ifdef __opencl_c_3d_image_writes
  HAS(0, 0);
#endif
#ifdef __opencl_c_atomic_order_acq_rel
  HAS(0, 1);
#endif
#ifdef __opencl_c_atomic_order_seq_cst
  HAS(0, 2);
#endif
#ifdef __opencl_c_atomic_scope_device
  HAS(0, 3);
#endif
#ifdef __opencl_c_atomic_scope_all_devices
  HAS(0, 4);
#endif
#ifdef __opencl_c_device_enqueue
  HAS(0, 5);
#endif
#ifdef __opencl_c_generic_address_space
  HAS(0, 6);
#endif
#ifdef __opencl_c_fp64
  HAS(0, 7);
#endif
#ifdef __opencl_c_images
  HAS(0, 8);
#endif
#ifdef __opencl_c_int64
  HAS(0, 9);
#endif
#ifdef __opencl_c_pipes
  HAS(0, 10);
#endif
#ifdef __opencl_c_program_scope_global_variables
  HAS(0, 11);
#endif
#ifdef __opencl_c_read_write_images
  HAS(0, 12);
#endif
#ifdef __opencl_c_subgroups
  HAS(0, 13);
#endif
#ifdef __opencl_c_work_group_collective_functions
  HAS(0, 14);
#endif
  out[15] = __OPENCL_VERSION__;
  out[16] = __OPENCL_C_VERSION__;
}
)";

// OpenCL C 3.0: a stencil the analysis splits, and a histogram of C11 atomics at device scope.
const char* kWorkKernels = R"(
kernel void split_smooth(global const float* in, global float* out, int n) {
  int i = get_global_id(0);
  float left = i > 0 ? in[i - 1] : in[i], right = i + 1 < n ? in[i + 1] : in[i];
  out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;
}
// C11 atomics where the device offers device scope (the macro says so), else OpenCL 1.x's.
#if defined(__opencl_c_atomic_scope_device)
kernel void histogram(global const int* in, volatile global atomic_int* bins) {
  int v = in[get_global_id(0)];
  atomic_fetch_add_explicit(&bins[v & 15], 1, memory_order_relaxed, memory_scope_device);
}
#else
kernel void histogram(global const int* in, volatile global int* bins) {
  atomic_inc(&bins[in[get_global_id(0)] & 15]);
}
#endif
)";

} // namespace

int main() {
  Env env = setup();
  cl_int err = CL_SUCCESS;

  // Versions.
  cl_version numeric = 0;
  CHECK(clGetPlatformInfo(env.platform, CL_PLATFORM_NUMERIC_VERSION, sizeof numeric, &numeric, nullptr));
  expect(CL_VERSION_MAJOR(numeric) == 3, "platform numeric version 3.x");
  expect(deviceString(env.device, CL_DEVICE_VERSION).rfind("OpenCL 3.", 0) == 0, "device version OpenCL 3.x");
  const auto cVersions = deviceArray<cl_name_version>(env.device, CL_DEVICE_OPENCL_C_ALL_VERSIONS);
  expect(listed(cVersions, "OpenCL C", CL_MAKE_VERSION(1, 2, 0)), "OpenCL C 1.2 is listed");
  const bool c30 = listed(cVersions, "OpenCL C", CL_MAKE_VERSION(3, 0, 0));

  // Queues with properties, and the list they were made with.
  const cl_queue_properties qprops[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(env.context, env.device, qprops, &err);
  CHECK(err);
  cl_queue_properties back[8] = {};
  size_t backSize = 0;
  CHECK(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES_ARRAY, sizeof back, back, &backSize));
  expect(backSize == sizeof qprops && std::memcmp(back, qprops, sizeof qprops) == 0,
         "CL_QUEUE_PROPERTIES_ARRAY as given");
  cl_command_queue_properties bits = 0;
  CHECK(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof bits, &bits, nullptr));
  expect(bits == CL_QUEUE_PROFILING_ENABLE, "CL_QUEUE_PROPERTIES from the list");
  cl_command_queue plain = clCreateCommandQueueWithProperties(env.context, env.device, nullptr, &err);
  CHECK(err);
  CHECK(clGetCommandQueueInfo(plain, CL_QUEUE_PROPERTIES_ARRAY, 0, nullptr, &backSize));
  expect(backSize == 0, "no properties: an empty CL_QUEUE_PROPERTIES_ARRAY");
  const cl_queue_properties unknown[] = {0x7777, 1, 0};
  cl_command_queue bad = clCreateCommandQueueWithProperties(env.context, env.device, unknown, &err);
  expectCode(err, CL_INVALID_VALUE, "a queue with an unknown property");
  expect(bad == nullptr, "no queue made");

  // Buffers with properties.
  cl_mem_properties none[] = {0};
  std::vector<float> data(4096);
  for (size_t i = 0; i < data.size(); ++i) data[i] = float((i * 37) % 101) * 0.5f;
  cl_mem in = clCreateBufferWithProperties(env.context, none, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                           data.size() * sizeof(float), data.data(), &err);
  CHECK(err);
  cl_mem out =
      clCreateBufferWithProperties(env.context, nullptr, CL_MEM_READ_WRITE, data.size() * sizeof(float), nullptr, &err);
  CHECK(err);
  size_t propsSize = 99;
  CHECK(clGetMemObjectInfo(out, CL_MEM_PROPERTIES, 0, nullptr, &propsSize));
  expect(propsSize == 0, "a buffer made without properties has an empty CL_MEM_PROPERTIES");
  cl_mem_properties unknownMem[] = {0x7777, 1, 0};
  cl_mem badMem = clCreateBufferWithProperties(env.context, unknownMem, CL_MEM_READ_WRITE, 64, nullptr, &err);
  expectCode(err, CL_INVALID_PROPERTY, "a buffer with an unknown property");
  expect(badMem == nullptr, "no buffer made");
  cl_bool svmPointer = CL_TRUE;
  CHECK(clGetMemObjectInfo(out, CL_MEM_USES_SVM_POINTER, sizeof svmPointer, &svmPointer, nullptr));
  expect(svmPointer == CL_FALSE, "a buffer without host SVM memory does not use an SVM pointer");

  // Context destructor callbacks: in reverse order of registration, when the context goes.
  {
    cl_context scratch = clCreateContext(nullptr, 1, &env.device, nullptr, nullptr, &err);
    CHECK(err);
    CHECK(clSetContextDestructorCallback(scratch, destructorCallback, (void*)"first"));
    CHECK(clSetContextDestructorCallback(scratch, destructorCallback, (void*)"second"));
    expectCode(clSetContextDestructorCallback(scratch, nullptr, nullptr), CL_INVALID_VALUE,
               "a destructor callback without a function");
    CHECK(clReleaseContext(scratch));
    expect(gCallbackOrder.size() == 2 && gCallbackOrder[0] == "second" && gCallbackOrder[1] == "first",
           "destructor callbacks ran in reverse order");
  }

  // OpenCL C 3.0 kernels, where the device compiles them.
  const auto features = deviceArray<cl_name_version>(env.device, CL_DEVICE_OPENCL_C_FEATURES);
  std::printf("OpenCL C 3.0 %s\n", c30 ? "offered" : "not offered");
  if (c30) {
    cl_program macros = buildProgram(env, kMacroKernel, "-cl-std=CL3.0");
    cl_kernel k = createKernel(macros, "macros");
    cl_mem flags = createBuffer(env.context, CL_MEM_READ_WRITE, 17 * sizeof(int));
    SET_ARG(k, 0, flags);
    size_t one = 1;
    CHECK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &one, &one, 0, nullptr, nullptr));
    int seen[17] = {};
    CHECK(clEnqueueReadBuffer(queue, flags, CL_TRUE, 0, sizeof seen, seen, 0, nullptr, nullptr));
    bool agree = true;
    for (int i = 0; i < 15; ++i)
      if ((seen[i] != 0) != listed(features, kFeatures[i])) {
        std::printf("feature %s: macro %d, query %d\n", kFeatures[i], seen[i], int(listed(features, kFeatures[i])));
        agree = false;
      }
    expect(agree, "OpenCL C 3.0 feature macros agree with CL_DEVICE_OPENCL_C_FEATURES");
    expect(seen[15] == 300, "__OPENCL_VERSION__ is 300");
    expect(seen[16] == 300, "__OPENCL_C_VERSION__ is 300 with -cl-std=CL3.0");
    CHECK(clReleaseMemObject(flags));
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseProgram(macros));

    cl_program work = buildProgram(env, kWorkKernels, "-cl-std=CL3.0");
    cl_kernel smooth = createKernel(work, "split_smooth");
    const int n = int(data.size());
    SET_ARG(smooth, 0, in);
    SET_ARG(smooth, 1, out);
    SET_ARG(smooth, 2, n);
    size_t global = data.size(), local = 64;
    CHECK(clEnqueueNDRangeKernel(queue, smooth, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    std::vector<float> smoothed(data.size());
    CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, smoothed.size() * sizeof(float), smoothed.data(), 0, nullptr,
                              nullptr));
    printChecksum("smoothed (OpenCL C 3.0)", smoothed);

    // A cloned kernel keeps the arguments of its source at cloning; later changes stay apart.
    cl_kernel clone = clCloneKernel(smooth, &err);
    CHECK(err);
    const int half = n / 2;
    SET_ARG(smooth, 2, half);
    CHECK(clEnqueueNDRangeKernel(queue, clone, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    std::vector<float> again(data.size());
    CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, again.size() * sizeof(float), again.data(), 0, nullptr, nullptr));
    expect(again == smoothed, "the clone ran with the arguments it was cloned with");
    CHECK(clEnqueueNDRangeKernel(queue, smooth, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, again.size() * sizeof(float), again.data(), 0, nullptr, nullptr));
    printChecksum("smoothed with n/2 (source kernel)", again);
    char name[64] = {};
    CHECK(clGetKernelInfo(clone, CL_KERNEL_FUNCTION_NAME, sizeof name, name, nullptr));
    expect(std::strcmp(name, "split_smooth") == 0, "the clone is of the same function");

    {
      cl_kernel histogram = createKernel(work, "histogram");
      std::vector<int> values(8192);
      for (size_t i = 0; i < values.size(); ++i) values[i] = int((i * i * 7 + i / 3) % 61);
      cl_mem v = createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, values.size() * sizeof(int),
                              values.data());
      std::vector<int> bins(16, 0);
      cl_mem b =
          createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bins.size() * sizeof(int), bins.data());
      SET_ARG(histogram, 0, v);
      SET_ARG(histogram, 1, b);
      size_t items = values.size(), group = 128;
      for (int round = 0; round < 3; ++round)
        CHECK(clEnqueueNDRangeKernel(queue, histogram, 1, nullptr, &items, &group, 0, nullptr, nullptr));
      CHECK(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, bins.size() * sizeof(int), bins.data(), 0, nullptr, nullptr));
      printInts("histogram (3 rounds)", bins.data(), bins.size());
      CHECK(clReleaseMemObject(v));
      CHECK(clReleaseMemObject(b));
      CHECK(clReleaseKernel(histogram));
    }
    CHECK(clReleaseKernel(clone));
    CHECK(clReleaseKernel(smooth));
    CHECK(clReleaseProgram(work));
  }

  // An empty NDRange completes once what it waits for has.
  {
    cl_program p = buildProgram(env, "kernel void touch(global int* a) { a[get_global_id(0)] = 7; }");
    cl_kernel k = createKernel(p, "touch");
    int initial[4] = {1, 2, 3, 4};
    cl_mem a = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof initial, initial);
    SET_ARG(k, 0, a);
    cl_event gate = clCreateUserEvent(env.context, &err);
    CHECK(err);
    size_t zero = 0;
    cl_event done = nullptr;
    CHECK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &zero, nullptr, 1, &gate, &done));
    CHECK(clFlush(queue));
    cl_int status = CL_COMPLETE;
    CHECK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
    expect(status > CL_COMPLETE, "an empty NDRange waits for its wait list");
    CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
    CHECK(clWaitForEvents(1, &done));
    int after[4] = {};
    CHECK(clEnqueueReadBuffer(queue, a, CL_TRUE, 0, sizeof after, after, 0, nullptr, nullptr));
    printInts("after an empty NDRange", after, 4);
    CHECK(clReleaseEvent(done));
    CHECK(clReleaseEvent(gate));
    CHECK(clReleaseMemObject(a));
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseProgram(p));
  }

  // Optional features: what the device reports agrees with what its entry points do (silent
  // where only some devices have the feature, so that outputs compare).
  const auto svm = deviceValue<cl_device_svm_capabilities>(env.device, CL_DEVICE_SVM_CAPABILITIES);
  if (!svm && clSVMAlloc(env.context, CL_MEM_READ_WRITE, 256, 0) != nullptr)
    fail("no SVM, but clSVMAlloc returned memory");
  if (!deviceValue<cl_bool>(env.device, CL_DEVICE_PIPE_SUPPORT)) {
    cl_mem pipe = clCreatePipe(env.context, 0, 4, 16, nullptr, &err);
    expect(pipe == nullptr && err == CL_INVALID_OPERATION, "no pipes: clCreatePipe is CL_INVALID_OPERATION");
  }
  if (c30) { // non-uniform work-groups, silent too: PoCL 3.1 and rusticl do not offer them
    const char* source = "kernel void mark(global int* a) {\n"
                         "  a[get_global_id(0)] = (int)(get_local_size(0) * 1000 + get_group_id(0));\n"
                         "}\n";
    const size_t items = 1000, group = 64; // 15 whole groups and one of 40 work-items
    auto launch = [&](const char* options, std::vector<int>& out) {
      cl_program p = buildProgram(env, source, options);
      cl_kernel k = createKernel(p, "mark");
      cl_mem a = createBuffer(env.context, CL_MEM_READ_WRITE, items * sizeof(int), nullptr);
      SET_ARG(k, 0, a);
      cl_int launched = clEnqueueNDRangeKernel(queue, k, 1, nullptr, &items, &group, 0, nullptr, nullptr);
      out.assign(items, -1);
      if (launched == CL_SUCCESS)
        CHECK(clEnqueueReadBuffer(queue, a, CL_TRUE, 0, items * sizeof(int), out.data(), 0, nullptr, nullptr));
      CHECK(clReleaseMemObject(a));
      CHECK(clReleaseKernel(k));
      CHECK(clReleaseProgram(p));
      return launched;
    };
    std::vector<int> expected(items), got;
    for (size_t i = 0; i < items; ++i)
      expected[i] = int((i / group == items / group ? items % group : group) * 1000 + i / group);
    const bool nonUniform = deviceValue<cl_bool>(env.device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT);
    std::fprintf(stderr, "non-uniform work-groups %s\n", nonUniform ? "offered" : "not offered"); // not compared
    const cl_int c3 = launch("-cl-std=CL3.0", got);
    if (nonUniform && (c3 != CL_SUCCESS || got != expected))
      fail("non-uniform work-groups offered, but a launch with a partial last group returned %d or wrong values", c3);
    if (!nonUniform && c3 != CL_INVALID_WORK_GROUP_SIZE)
      fail("no non-uniform work-groups, but a launch with a partial last group returned %d", c3);
    const cl_int uniform = launch("-cl-std=CL3.0 -cl-uniform-work-group-size", got);
    if (uniform != CL_INVALID_WORK_GROUP_SIZE)
      fail("-cl-uniform-work-group-size: a launch with a partial last group returned %d", uniform);
    const cl_int c12 = launch("-cl-std=CL1.2", got);
    if (c12 != CL_INVALID_WORK_GROUP_SIZE) fail("OpenCL C 1.2: a launch with a partial last group returned %d", c12);
  }
  cl_ulong timer = 0;
  CHECK(clGetPlatformInfo(env.platform, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof timer, &timer, nullptr));
  cl_ulong host = 0;
  cl_int timerErr = clGetHostTimer(env.device, &host);
  expect(timer ? timerErr == CL_SUCCESS : timerErr == CL_INVALID_OPERATION,
         "clGetHostTimer agrees with CL_PLATFORM_HOST_TIMER_RESOLUTION");
  const auto ils = deviceArray<cl_name_version>(env.device, CL_DEVICE_ILS_WITH_VERSION);
  if (ils.empty()) {
    const char il[4] = {0x07, 0x23, 0x02, 0x03};
    cl_program p = clCreateProgramWithIL(env.context, il, sizeof il, &err);
    // (PoCL 3.1 answers CL_INVALID_VALUE here, where 3.0 asks for CL_INVALID_OPERATION.)
    expect(p == nullptr && err != CL_SUCCESS, "no IL: clCreateProgramWithIL fails");
  }
  const auto atomics = deviceValue<cl_device_atomic_capabilities>(env.device, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
  expect((atomics & (CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP)) ==
             (CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP),
         "atomic capabilities hold the required minimum");
  expect(bool(atomics & CL_DEVICE_ATOMIC_ORDER_SEQ_CST) == listed(features, "__opencl_c_atomic_order_seq_cst") &&
             bool(atomics & CL_DEVICE_ATOMIC_SCOPE_DEVICE) == listed(features, "__opencl_c_atomic_scope_device"),
         "atomic capabilities agree with the features");

  CHECK(clReleaseMemObject(in));
  CHECK(clReleaseMemObject(out));
  CHECK(clReleaseCommandQueue(queue));
  CHECK(clReleaseCommandQueue(plain));
  env.release();
  return finish();
}
