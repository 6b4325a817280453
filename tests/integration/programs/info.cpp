// Every clGet*Info query of OpenCL 1.2 on every kind of object, answered consistently: the size
// query agrees with the value query and with the parameter's type, strings are NUL-terminated,
// a too-small buffer is CL_INVALID_VALUE, handles point back to the right objects, values obey
// the specification's minimums and each other. Reference counts are checked by their changes
// (implementations may hold internal references).
#include "itest.h"

#include <CL/cl_ext.h>

using namespace itest;

namespace {

constexpr size_t kString = 0, kArray = SIZE_MAX;

struct Param {
  cl_uint id;
  const char* name;
  size_t size; // exact size in bytes, kString, or kArray (a multiple of elementSize)
  size_t elementSize = 1;
};

#define P(id, size)                                                                                                    \
  Param { id, #id, size }
#define A(id, element)                                                                                                 \
  Param { id, #id, kArray, element }

// Checks the protocol for one parameter and returns its bytes.
template <class Query>
std::vector<unsigned char> query(const Param& p, Query q) {
  size_t size = 12345;
  cl_int err = q(0, nullptr, &size);
  if (err != CL_SUCCESS) {
    fail("%s: size query returned %d", p.name, err);
    return {};
  }
  std::vector<unsigned char> value(size + 8, 0xCD);
  size_t again = 0;
  err = q(size, size ? value.data() : nullptr, &again);
  if (err != CL_SUCCESS || again != size) {
    fail("%s: value query returned %d, size %zu vs %zu", p.name, err, again, size);
    return {};
  }
  if (value[size] != 0xCD) fail("%s: wrote past param_value_size", p.name);
  value.resize(size);
  bool sizeOk = p.size == kString
                    ? size >= 1 && value[size - 1] == 0 && std::strlen((const char*)value.data()) + 1 == size
                : p.size == kArray ? size % p.elementSize == 0
                                   : size == p.size;
  if (!sizeOk) fail("%s: unexpected size %zu", p.name, size);
  if (size > 0) {
    std::vector<unsigned char> tooSmall(size);
    err = q(size - 1, tooSmall.data(), nullptr);
    if (err != CL_INVALID_VALUE) fail("%s: param_value_size too small returned %d", p.name, err);
  }
  std::printf("ok %s\n", p.name);
  return value;
}

template <class T>
T as(const std::vector<unsigned char>& bytes) {
  T v{};
  if (bytes.size() >= sizeof(T)) std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

std::string asString(const std::vector<unsigned char>& bytes) {
  return bytes.empty() ? std::string() : std::string(reinterpret_cast<const char*>(bytes.data()));
}

} // namespace

int main() {
  Env env = setup();
  const size_t U = sizeof(cl_uint), UL = sizeof(cl_ulong), S = sizeof(size_t), B = sizeof(cl_bool), H = sizeof(void*),
               BF = sizeof(cl_bitfield);

  // Platform.
  std::printf("-- platform\n");
  const Param platformParams[] = {P(CL_PLATFORM_PROFILE, kString), P(CL_PLATFORM_VERSION, kString),
                                  P(CL_PLATFORM_NAME, kString), P(CL_PLATFORM_VENDOR, kString),
                                  P(CL_PLATFORM_EXTENSIONS, kString)};
  for (const auto& p : platformParams) {
    auto v =
        query(p, [&](size_t s, void* out, size_t* ret) { return clGetPlatformInfo(env.platform, p.id, s, out, ret); });
    if (p.id == CL_PLATFORM_PROFILE) expect(asString(v) == "FULL_PROFILE", "platform is FULL_PROFILE");
    if (p.id == CL_PLATFORM_VERSION) expect(asString(v).rfind("OpenCL ", 0) == 0, "platform version format");
  }
  expectCode(clGetPlatformInfo(env.platform, 0x7777, 0, nullptr, nullptr), CL_INVALID_VALUE, "unknown platform param");

  // Device.
  std::printf("-- device\n");
  const Param deviceParams[] = {
      P(CL_DEVICE_TYPE, BF),
      P(CL_DEVICE_VENDOR_ID, U),
      P(CL_DEVICE_MAX_COMPUTE_UNITS, U),
      P(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, U),
      A(CL_DEVICE_MAX_WORK_ITEM_SIZES, S),
      P(CL_DEVICE_MAX_WORK_GROUP_SIZE, S),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, U),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, U),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, U),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, U),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, U),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, U),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, U),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, U),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, U),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, U),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, U),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, U),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, U),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, U),
      P(CL_DEVICE_MAX_CLOCK_FREQUENCY, U),
      P(CL_DEVICE_ADDRESS_BITS, U),
      P(CL_DEVICE_MAX_MEM_ALLOC_SIZE, UL),
      P(CL_DEVICE_IMAGE_SUPPORT, B),
      P(CL_DEVICE_MAX_READ_IMAGE_ARGS, U),
      P(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, U),
      P(CL_DEVICE_IMAGE2D_MAX_WIDTH, S),
      P(CL_DEVICE_IMAGE2D_MAX_HEIGHT, S),
      P(CL_DEVICE_IMAGE3D_MAX_WIDTH, S),
      P(CL_DEVICE_IMAGE3D_MAX_HEIGHT, S),
      P(CL_DEVICE_IMAGE3D_MAX_DEPTH, S),
      P(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, S),
      P(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, S),
      P(CL_DEVICE_MAX_SAMPLERS, U),
      P(CL_DEVICE_MAX_PARAMETER_SIZE, S),
      P(CL_DEVICE_MEM_BASE_ADDR_ALIGN, U),
      P(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, U),
      P(CL_DEVICE_SINGLE_FP_CONFIG, BF),
      P(CL_DEVICE_DOUBLE_FP_CONFIG, BF),
      P(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, U),
      P(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, U),
      P(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, UL),
      P(CL_DEVICE_GLOBAL_MEM_SIZE, UL),
      P(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, UL),
      P(CL_DEVICE_MAX_CONSTANT_ARGS, U),
      P(CL_DEVICE_LOCAL_MEM_TYPE, U),
      P(CL_DEVICE_LOCAL_MEM_SIZE, UL),
      P(CL_DEVICE_ERROR_CORRECTION_SUPPORT, B),
      P(CL_DEVICE_HOST_UNIFIED_MEMORY, B),
      P(CL_DEVICE_PROFILING_TIMER_RESOLUTION, S),
      P(CL_DEVICE_ENDIAN_LITTLE, B),
      P(CL_DEVICE_AVAILABLE, B),
      P(CL_DEVICE_COMPILER_AVAILABLE, B),
      P(CL_DEVICE_LINKER_AVAILABLE, B),
      P(CL_DEVICE_EXECUTION_CAPABILITIES, BF),
      P(CL_DEVICE_QUEUE_PROPERTIES, BF),
      P(CL_DEVICE_BUILT_IN_KERNELS, kString),
      P(CL_DEVICE_PLATFORM, H),
      P(CL_DEVICE_NAME, kString),
      P(CL_DEVICE_VENDOR, kString),
      P(CL_DRIVER_VERSION, kString),
      P(CL_DEVICE_PROFILE, kString),
      P(CL_DEVICE_VERSION, kString),
      P(CL_DEVICE_OPENCL_C_VERSION, kString),
      P(CL_DEVICE_EXTENSIONS, kString),
      P(CL_DEVICE_PRINTF_BUFFER_SIZE, S),
      P(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, B),
      P(CL_DEVICE_PARENT_DEVICE, H),
      P(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, U),
      A(CL_DEVICE_PARTITION_PROPERTIES, sizeof(cl_device_partition_property)),
      P(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, BF),
      A(CL_DEVICE_PARTITION_TYPE, sizeof(cl_device_partition_property)),
      P(CL_DEVICE_REFERENCE_COUNT, U),
  };
  std::vector<std::vector<unsigned char>> dv;
  auto device = [&](cl_uint id) -> const std::vector<unsigned char>& {
    for (size_t i = 0; i < sizeof deviceParams / sizeof *deviceParams; ++i)
      if (deviceParams[i].id == id) return dv[i];
    static std::vector<unsigned char> none;
    return none;
  };
  for (const auto& p : deviceParams)
    dv.push_back(
        query(p, [&](size_t s, void* out, size_t* ret) { return clGetDeviceInfo(env.device, p.id, s, out, ret); }));
  {
    std::string extensions = " " + asString(device(CL_DEVICE_EXTENSIONS)) + " ";
    auto has = [&](const char* e) { return extensions.find(std::string(" ") + e + " ") != std::string::npos; };
    auto dims = as<cl_uint>(device(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS));
    expect(dims >= 3, "CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS >= 3");
    expect(device(CL_DEVICE_MAX_WORK_ITEM_SIZES).size() == dims * sizeof(size_t), "one work-item size per dimension");
    auto group = as<size_t>(device(CL_DEVICE_MAX_WORK_GROUP_SIZE));
    const auto* items = reinterpret_cast<const size_t*>(device(CL_DEVICE_MAX_WORK_ITEM_SIZES).data());
    expect(group >= 1 && dims >= 1 && items[0] >= 1, "work-group limits are positive");
    expect(as<cl_uint>(device(CL_DEVICE_MAX_COMPUTE_UNITS)) >= 1, "at least one compute unit");
    expect(as<cl_device_type>(device(CL_DEVICE_TYPE)) != 0, "CL_DEVICE_TYPE is set");
    auto alloc = as<cl_ulong>(device(CL_DEVICE_MAX_MEM_ALLOC_SIZE)),
         global = as<cl_ulong>(device(CL_DEVICE_GLOBAL_MEM_SIZE));
    expect(alloc <= global && alloc >= std::min<cl_ulong>(global / 4, 128u << 20),
           "MAX_MEM_ALLOC_SIZE within its bounds");
    expect(as<cl_uint>(device(CL_DEVICE_MEM_BASE_ADDR_ALIGN)) >= 1024, "MEM_BASE_ADDR_ALIGN >= bits of long16");
    expect(as<cl_ulong>(device(CL_DEVICE_LOCAL_MEM_SIZE)) >= 32 * 1024, "LOCAL_MEM_SIZE >= 32 KiB");
    expect(as<cl_ulong>(device(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)) >= 64 * 1024, "MAX_CONSTANT_BUFFER_SIZE >= 64 KiB");
    expect(as<cl_uint>(device(CL_DEVICE_MAX_CONSTANT_ARGS)) >= 8, "MAX_CONSTANT_ARGS >= 8");
    expect(as<size_t>(device(CL_DEVICE_MAX_PARAMETER_SIZE)) >= 1024, "MAX_PARAMETER_SIZE >= 1024");
    auto single = as<cl_device_fp_config>(device(CL_DEVICE_SINGLE_FP_CONFIG));
    expect((single & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN)) == (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN),
           "SINGLE_FP_CONFIG has round-to-nearest and INF/NaN");
    auto dbl = as<cl_device_fp_config>(device(CL_DEVICE_DOUBLE_FP_CONFIG));
    const cl_device_fp_config minDouble =
        CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
    expect(has("cl_khr_fp64") ? (dbl & minDouble) == minDouble : dbl == 0, "DOUBLE_FP_CONFIG agrees with cl_khr_fp64");
    expect(has("cl_khr_fp64") == (as<cl_uint>(device(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE)) != 0),
           "PREFERRED_VECTOR_WIDTH_DOUBLE agrees with cl_khr_fp64");
    expect(has("cl_khr_fp64") == (as<cl_uint>(device(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE)) != 0),
           "NATIVE_VECTOR_WIDTH_DOUBLE agrees with cl_khr_fp64");
    cl_device_fp_config half = 0;
    cl_int halfErr = clGetDeviceInfo(env.device, CL_DEVICE_HALF_FP_CONFIG, sizeof half, &half, nullptr);
    expect(has("cl_khr_fp16") ? halfErr == CL_SUCCESS && half != 0 : (halfErr != CL_SUCCESS || half == 0),
           "HALF_FP_CONFIG agrees with cl_khr_fp16");
    expect(has("cl_khr_fp16") == (as<cl_uint>(device(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF)) != 0),
           "PREFERRED_VECTOR_WIDTH_HALF agrees with cl_khr_fp16");
    expect(as<cl_device_exec_capabilities>(device(CL_DEVICE_EXECUTION_CAPABILITIES)) & CL_EXEC_KERNEL,
           "CL_EXEC_KERNEL capability");
    expect(as<cl_command_queue_properties>(device(CL_DEVICE_QUEUE_PROPERTIES)) & CL_QUEUE_PROFILING_ENABLE,
           "queue profiling supported");
    expect(as<cl_platform_id>(device(CL_DEVICE_PLATFORM)) == env.platform, "CL_DEVICE_PLATFORM is the platform");
    expect(as<cl_device_id>(device(CL_DEVICE_PARENT_DEVICE)) == nullptr, "a root device has no parent");
    expect(as<cl_uint>(device(CL_DEVICE_REFERENCE_COUNT)) == 1, "a root device's reference count is 1");
    expect(asString(device(CL_DEVICE_PROFILE)) == "FULL_PROFILE", "device is FULL_PROFILE");
    expect(asString(device(CL_DEVICE_VERSION)).rfind("OpenCL 1.2", 0) == 0 ||
               asString(device(CL_DEVICE_VERSION)).rfind("OpenCL 2", 0) == 0 ||
               asString(device(CL_DEVICE_VERSION)).rfind("OpenCL 3", 0) == 0,
           "device version is OpenCL 1.2 or later");
    expect(asString(device(CL_DEVICE_OPENCL_C_VERSION)).rfind("OpenCL C ", 0) == 0, "OpenCL C version format");
    expect(as<cl_bool>(device(CL_DEVICE_AVAILABLE)) == CL_TRUE, "device available");
    expect(as<cl_bool>(device(CL_DEVICE_COMPILER_AVAILABLE)) == CL_TRUE, "compiler available");
    expect(as<size_t>(device(CL_DEVICE_PRINTF_BUFFER_SIZE)) >= 1024 * 1024, "PRINTF_BUFFER_SIZE >= 1 MiB");
    expect(!as<cl_bool>(device(CL_DEVICE_IMAGE_SUPPORT)) || as<cl_uint>(device(CL_DEVICE_MAX_SAMPLERS)) >= 16,
           "image support implies samplers");
    cl_device_id same = nullptr;
    cl_uint count = 0;
    CHECK(clGetDeviceIDs(env.platform, as<cl_device_type>(device(CL_DEVICE_TYPE)), 1, &same, &count));
    expect(same == env.device, "clGetDeviceIDs of the device's own type finds it");
    CHECK(clRetainDevice(env.device));
    CHECK(clReleaseDevice(env.device));
  }
  expectCode(clGetDeviceInfo(env.device, 0x7777, 0, nullptr, nullptr), CL_INVALID_VALUE, "unknown device param");

  // Context (with and without properties).
  std::printf("-- context\n");
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(env.platform), 0};
  cl_int err = CL_SUCCESS;
  cl_context withProps = clCreateContext(props, 1, &env.device, nullptr, nullptr, &err);
  CHECK(err);
  for (cl_context c : {env.context, withProps}) {
    const Param contextParams[] = {P(CL_CONTEXT_REFERENCE_COUNT, U), P(CL_CONTEXT_NUM_DEVICES, U),
                                   A(CL_CONTEXT_DEVICES, H), A(CL_CONTEXT_PROPERTIES, sizeof(cl_context_properties))};
    std::vector<std::vector<unsigned char>> v;
    for (const auto& p : contextParams)
      v.push_back(query(p, [&](size_t s, void* out, size_t* ret) { return clGetContextInfo(c, p.id, s, out, ret); }));
    expect(as<cl_uint>(v[1]) == 1 && v[2].size() == H && as<cl_device_id>(v[2]) == env.device, "context devices");
    if (c == withProps)
      expect(v[3].size() == sizeof props && std::memcmp(v[3].data(), props, sizeof props) == 0,
             "CL_CONTEXT_PROPERTIES returns the properties");
  }
  {
    cl_context fromType = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, nullptr, nullptr, &err);
    CHECK(err);
    cl_device_id d = nullptr;
    CHECK(clGetContextInfo(fromType, CL_CONTEXT_DEVICES, sizeof d, &d, nullptr));
    expect(d == env.device, "clCreateContextFromType(ALL) holds the device");
    CHECK(clReleaseContext(fromType));
  }

  // Queue.
  std::printf("-- queue\n");
  cl_command_queue queue = clCreateCommandQueue(withProps, env.device, CL_QUEUE_PROFILING_ENABLE, &err);
  CHECK(err);
  {
    const Param queueParams[] = {P(CL_QUEUE_CONTEXT, H), P(CL_QUEUE_DEVICE, H), P(CL_QUEUE_REFERENCE_COUNT, U),
                                 P(CL_QUEUE_PROPERTIES, BF)};
    std::vector<std::vector<unsigned char>> v;
    for (const auto& p : queueParams)
      v.push_back(
          query(p, [&](size_t s, void* out, size_t* ret) { return clGetCommandQueueInfo(queue, p.id, s, out, ret); }));
    expect(as<cl_context>(v[0]) == withProps && as<cl_device_id>(v[1]) == env.device, "queue context and device");
    expect(as<cl_command_queue_properties>(v[3]) == CL_QUEUE_PROFILING_ENABLE, "queue properties");
  }

  // Memory objects.
  std::printf("-- memory\n");
  std::vector<int> host(1024, 3);
  cl_mem buffer =
      createBuffer(withProps, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, host.size() * sizeof(int), host.data());
  cl_buffer_region region{0, 256};
  cl_mem sub = clCreateSubBuffer(buffer, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  CHECK(err);
  for (cl_mem m : {buffer, sub}) {
    const Param memParams[] = {
        P(CL_MEM_TYPE, U),      P(CL_MEM_FLAGS, BF),          P(CL_MEM_SIZE, S),    P(CL_MEM_HOST_PTR, H),
        P(CL_MEM_MAP_COUNT, U), P(CL_MEM_REFERENCE_COUNT, U), P(CL_MEM_CONTEXT, H), P(CL_MEM_ASSOCIATED_MEMOBJECT, H),
        P(CL_MEM_OFFSET, S)};
    std::vector<std::vector<unsigned char>> v;
    for (const auto& p : memParams)
      v.push_back(query(p, [&](size_t s, void* out, size_t* ret) { return clGetMemObjectInfo(m, p.id, s, out, ret); }));
    expect(as<cl_mem_object_type>(v[0]) == CL_MEM_OBJECT_BUFFER, "CL_MEM_TYPE is a buffer");
    std::printf("CL_MEM_FLAGS %#llx, CL_MEM_SIZE %zu\n", (unsigned long long)as<cl_mem_flags>(v[1]), as<size_t>(v[2]));
    expect(as<void*>(v[3]) == host.data(), "CL_MEM_HOST_PTR");
    expect(as<cl_context>(v[6]) == withProps, "CL_MEM_CONTEXT");
    expect(as<cl_mem>(v[7]) == (m == sub ? buffer : nullptr), "CL_MEM_ASSOCIATED_MEMOBJECT");
  }

  // Program and kernel.
  std::printf("-- program and kernel\n");
  const char* source = R"CLC(
    __attribute__((reqd_work_group_size(4, 2, 1)))
    kernel void fixed(global int* a) { local int tmp[64]; tmp[get_local_id(0)] = 1;
      barrier(CLK_LOCAL_MEM_FENCE); a[get_global_id(0)] += tmp[0]; }
    kernel void free1(global int* a) { a[get_global_id(0)] = 1; }
  )CLC";
  cl_program program = clCreateProgramWithSource(withProps, 1, &source, nullptr, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 0, nullptr, "", nullptr, nullptr));
  {
    const Param programParams[] = {P(CL_PROGRAM_REFERENCE_COUNT, U), P(CL_PROGRAM_CONTEXT, H),
                                   P(CL_PROGRAM_NUM_DEVICES, U),     A(CL_PROGRAM_DEVICES, H),
                                   P(CL_PROGRAM_SOURCE, kString),    A(CL_PROGRAM_BINARY_SIZES, S),
                                   P(CL_PROGRAM_NUM_KERNELS, S),     P(CL_PROGRAM_KERNEL_NAMES, kString)};
    std::vector<std::vector<unsigned char>> v;
    for (const auto& p : programParams)
      v.push_back(
          query(p, [&](size_t s, void* out, size_t* ret) { return clGetProgramInfo(program, p.id, s, out, ret); }));
    expect(as<cl_context>(v[1]) == withProps && as<cl_uint>(v[2]) == 1 && as<cl_device_id>(v[3]) == env.device,
           "program context and devices");
    expect(asString(v[4]) == source, "CL_PROGRAM_SOURCE");
    expect(as<size_t>(v[6]) == 2, "two kernels");
    const Param buildParams[] = {P(CL_PROGRAM_BUILD_STATUS, sizeof(cl_build_status)),
                                 P(CL_PROGRAM_BUILD_OPTIONS, kString), P(CL_PROGRAM_BUILD_LOG, kString),
                                 P(CL_PROGRAM_BINARY_TYPE, U)};
    for (const auto& p : buildParams)
      query(p, [&](size_t s, void* out, size_t* ret) {
        return clGetProgramBuildInfo(program, env.device, p.id, s, out, ret);
      });
  }
  cl_kernel kernel = createKernel(program, "fixed");
  {
    const Param kernelParams[] = {P(CL_KERNEL_FUNCTION_NAME, kString),
                                  P(CL_KERNEL_NUM_ARGS, U),
                                  P(CL_KERNEL_REFERENCE_COUNT, U),
                                  P(CL_KERNEL_CONTEXT, H),
                                  P(CL_KERNEL_PROGRAM, H),
                                  P(CL_KERNEL_ATTRIBUTES, kString)};
    std::vector<std::vector<unsigned char>> v;
    for (const auto& p : kernelParams)
      v.push_back(
          query(p, [&](size_t s, void* out, size_t* ret) { return clGetKernelInfo(kernel, p.id, s, out, ret); }));
    expect(asString(v[0]) == "fixed" && as<cl_uint>(v[1]) == 1, "kernel name and argument count");
    expect(as<cl_context>(v[3]) == withProps && as<cl_program>(v[4]) == program, "kernel context and program");
    expect(asString(v[5]).find("reqd_work_group_size") != std::string::npos,
           "CL_KERNEL_ATTRIBUTES names the attribute");
    const Param groupParams[] = {P(CL_KERNEL_WORK_GROUP_SIZE, S), P(CL_KERNEL_COMPILE_WORK_GROUP_SIZE, 3 * S),
                                 P(CL_KERNEL_LOCAL_MEM_SIZE, UL), P(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, S),
                                 P(CL_KERNEL_PRIVATE_MEM_SIZE, UL)};
    std::vector<std::vector<unsigned char>> g;
    for (const auto& p : groupParams)
      g.push_back(query(p, [&](size_t s, void* out, size_t* ret) {
        return clGetKernelWorkGroupInfo(kernel, env.device, p.id, s, out, ret);
      }));
    const auto* compile = reinterpret_cast<const size_t*>(g[1].data());
    expect(g[1].size() == 3 * S && compile[0] == 4 && compile[1] == 2 && compile[2] == 1,
           "CL_KERNEL_COMPILE_WORK_GROUP_SIZE is (4,2,1)");
    expect(as<cl_ulong>(g[2]) >= 64 * sizeof(int), "CL_KERNEL_LOCAL_MEM_SIZE covers the local array");
    expect(as<size_t>(g[0]) >= 8 && as<size_t>(g[0]) <= as<size_t>(device(CL_DEVICE_MAX_WORK_GROUP_SIZE)),
           "CL_KERNEL_WORK_GROUP_SIZE within the device's");
    SET_ARG(kernel, 0, sub);
    size_t global[2] = {8, 4}, wrong[2] = {8, 1};
    expectCode(clEnqueueNDRangeKernel(queue, kernel, 2, nullptr, global, wrong, 0, nullptr, nullptr),
               CL_INVALID_WORK_GROUP_SIZE, "local size other than reqd_work_group_size");
  }

  // Events.
  std::printf("-- event\n");
  cl_event event = nullptr;
  CHECK(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &event));
  CHECK(clFinish(queue));
  {
    const Param eventParams[] = {P(CL_EVENT_COMMAND_QUEUE, H), P(CL_EVENT_CONTEXT, H), P(CL_EVENT_COMMAND_TYPE, U),
                                 P(CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(cl_int)), P(CL_EVENT_REFERENCE_COUNT, U)};
    std::vector<std::vector<unsigned char>> v;
    for (const auto& p : eventParams)
      v.push_back(query(p, [&](size_t s, void* out, size_t* ret) { return clGetEventInfo(event, p.id, s, out, ret); }));
    expect(as<cl_command_queue>(v[0]) == queue && as<cl_context>(v[1]) == withProps, "event queue and context");
    expect(as<cl_int>(v[3]) == CL_COMPLETE, "marker complete after clFinish");
  }

  // Reference counts move by exactly one per retain and release.
  std::printf("-- reference counts\n");
  auto countOf = [](auto get, auto object, cl_uint param) {
    cl_uint c = 0;
    CHECK(get(object, param, sizeof c, &c, nullptr));
    return c;
  };
  auto refCheck = [&](const char* what, auto retain, auto release, auto get, auto object, cl_uint param) {
    cl_uint before = countOf(get, object, param);
    CHECK(retain(object));
    CHECK(retain(object));
    cl_uint up = countOf(get, object, param);
    CHECK(release(object));
    cl_uint mid = countOf(get, object, param);
    CHECK(release(object));
    cl_uint after = countOf(get, object, param);
    std::string label = std::string(what) + " reference count +2, -1, -1";
    expect(before >= 1 && up == before + 2 && mid == before + 1 && after == before, label.c_str());
  };
  refCheck("context", clRetainContext, clReleaseContext, clGetContextInfo, withProps, CL_CONTEXT_REFERENCE_COUNT);
  refCheck("queue", clRetainCommandQueue, clReleaseCommandQueue, clGetCommandQueueInfo, queue,
           CL_QUEUE_REFERENCE_COUNT);
  refCheck("buffer", clRetainMemObject, clReleaseMemObject, clGetMemObjectInfo, buffer, CL_MEM_REFERENCE_COUNT);
  refCheck("sub-buffer", clRetainMemObject, clReleaseMemObject, clGetMemObjectInfo, sub, CL_MEM_REFERENCE_COUNT);
  refCheck("program", clRetainProgram, clReleaseProgram, clGetProgramInfo, program, CL_PROGRAM_REFERENCE_COUNT);
  refCheck("kernel", clRetainKernel, clReleaseKernel, clGetKernelInfo, kernel, CL_KERNEL_REFERENCE_COUNT);
  refCheck("event", clRetainEvent, clReleaseEvent, clGetEventInfo, event, CL_EVENT_REFERENCE_COUNT);
  expect(countOf(clGetKernelInfo, kernel, CL_KERNEL_REFERENCE_COUNT) == 1, "a new kernel's reference count is 1");

  CHECK(clReleaseEvent(event));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  CHECK(clReleaseMemObject(sub));
  CHECK(clReleaseMemObject(buffer));
  CHECK(clReleaseCommandQueue(queue));
  CHECK(clReleaseContext(withProps));
  env.release();
  return finish();
}
