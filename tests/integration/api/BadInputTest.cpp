// The table-driven bad-input test: every entry point clsplit implements, called through its
// dispatch table with invalid handles (NULL, the address of a local int, released objects,
// objects of another kind or context), NULL pointers, wrong sizes and wrong flags. Each row
// names the error code the OpenCL 1.2 specification gives for its case; no row may crash, and
// a call that returns a handle must return NULL. A coverage check makes sure every
// implemented entry point of icd/api/ApiTable.def has a row.
#include "tests/integration/api/IcdCore.h"

#include "device/Error.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <csignal>
#include <cstring>
#include <functional>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using clsplit::test::icdCore;

const cl_icd_dispatch* D = nullptr;

// Pseudo codes for rows whose result is not a cl_int.
constexpr cl_int kNullResult = 424242;      // the call returned NULL (and had no errcode_ret)
constexpr cl_int kNonNullResult = 434343;   // the call returned a non-NULL pointer
constexpr cl_int kHandleWithError = 444444; // a handle was returned together with an error
constexpr cl_int kDidNotReturn = 454545;    // an isolated row hung (killed after a timeout)
constexpr cl_int kCrashed = 464646;         // an isolated row crashed its process

std::string codeName(cl_int code) {
  if (code == kNullResult) return "NULL";
  if (code == kNonNullResult) return "non-NULL";
  if (code == kHandleWithError) return "a handle together with an error code";
  if (code == kDidNotReturn) return "no return within 10 s (hang)";
  if (code == kCrashed) return "a crash";
  return std::string(clsplit::errorName(code)) + " (" + std::to_string(code) + ")";
}

void release(cl_context h) { D->clReleaseContext(h); }
void release(cl_command_queue h) { D->clReleaseCommandQueue(h); }
void release(cl_mem h) { D->clReleaseMemObject(h); }
void release(cl_program h) { D->clReleaseProgram(h); }
void release(cl_kernel h) { D->clReleaseKernel(h); }
void release(cl_event h) { D->clReleaseEvent(h); }
void release(cl_sampler h) { D->clReleaseSampler(h); }
void release(void*) {} // a mapped pointer: nothing to release (the row fails anyway)

// The result of a call returning a handle with errcode_ret `err`.
template <class H>
cl_int handleResult(H handle, cl_int err) {
  if (!handle) return err;
  release(handle);
  return err == CL_SUCCESS ? CL_SUCCESS : kHandleWithError;
}

struct Row {
  std::string call;
  cl_int expected;
  std::function<cl_int()> run;
  bool isolated = false; // run in a forked child: a hang or crash fails this row only
};

// Runs `fn` in a child process (for rows that may hang or crash), with a timeout.
cl_int runIsolated(const std::function<cl_int()>& fn) {
  int fds[2];
  if (pipe(fds) != 0) return kCrashed;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    cl_int result = fn();
    ssize_t written = write(fds[1], &result, sizeof result);
    _exit(written == sizeof result ? 0 : 1);
  }
  close(fds[1]);
  pollfd p{fds[0], POLLIN, 0};
  cl_int result = kDidNotReturn;
  if (poll(&p, 1, 10000) > 0) {
    cl_int value = 0;
    result = read(fds[0], &value, sizeof value) == sizeof value ? value : kCrashed;
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  close(fds[0]);
  return result;
}

// Variadic, so that rows may hold lambdas with commas.
#define ROW(expected, ...)                                                                                             \
  Row {                                                                                                                \
#__VA_ARGS__, expected, [&]() -> cl_int { return (__VA_ARGS__); }                                                  \
  }
// Calls returning a handle: the call uses `err` as errcode_ret.
#define ROW_H(expected, ...)                                                                                           \
  Row {                                                                                                                \
#__VA_ARGS__, expected, [&]() -> cl_int {                                                    \
        cl_int err = 12345;                                                                        \
        auto handle = (__VA_ARGS__);                                                               \
        return handleResult(handle, err);                                                          \
      }                         \
  }
// A row run in a child process (see runIsolated).
#define ROW_ISOLATED(expected, ...)                                                                                    \
  Row {                                                                                                                \
#__VA_ARGS__, expected, [&]() -> cl_int { return (__VA_ARGS__); }, true                                            \
  }
// Calls returning a handle or pointer, with errcode_ret NULL: must return NULL.
#define ROW_NULL(...)                                                                                                  \
  Row {                                                                                                                \
#__VA_ARGS__, kNullResult, [&]() -> cl_int { return (__VA_ARGS__) ? kNonNullResult : kNullResult; }                \
  }

void CL_CALLBACK noopEventCallback(cl_event, cl_int, void*) {}
void CL_CALLBACK noopMemCallback(cl_mem, void*) {}
void CL_CALLBACK noopContextCallback(cl_context, void*) {}
void CL_CALLBACK noopNative(void*) {}

const char* kSource = R"CLC(
kernel void k(global int* a, int n) { a[get_global_id(0)] = n; }
kernel void loc(global int* a, local int* l) { l[get_local_id(0)] = 1; a[get_global_id(0)] = l[0]; }
__attribute__((reqd_work_group_size(2, 1, 1))) kernel void fixed(global int* a) { a[get_global_id(0)] = 2; }
)CLC";

// The clsplit platform's device (through the dispatch table D).
cl_device_id clsplitDevice() {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  REQUIRE(D->clGetPlatformIDs(1, &platform, nullptr) == CL_SUCCESS);
  REQUIRE(D->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS);
  return device;
}

const char* kBroken = "kernel void broken(global int* a) { a[0] = nope; }";

} // namespace

TEST_CASE("every entry point rejects bad input with the specified error", "[bad_input]") {
  D = icdCore().dispatch;
  REQUIRE(D != nullptr);

  // --- Valid objects ---------------------------------------------------------------------------
  cl_int err = CL_SUCCESS;
  cl_platform_id platform = nullptr;
  REQUIRE(D->clGetPlatformIDs(1, &platform, nullptr) == CL_SUCCESS);
  cl_device_id device = nullptr;
  REQUIRE(D->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS);
  cl_context ctx = D->clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_context ctx2 = D->clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_command_queue q = D->clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_command_queue q2 = D->clCreateCommandQueue(ctx2, device, 0, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_uint alignBits = 0;
  cl_ulong maxAlloc = 0;
  REQUIRE(D->clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof alignBits, &alignBits, nullptr) ==
          CL_SUCCESS);
  REQUIRE(D->clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxAlloc, &maxAlloc, nullptr) == CL_SUCCESS);
  const size_t align = alignBits / 8, size = 16 * align;
  cl_mem buf = D->clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_mem buf2 = D->clCreateBuffer(ctx2, CL_MEM_READ_WRITE, size, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_mem woBuf = D->clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, size, nullptr, &err);
  cl_mem hostNone = D->clCreateBuffer(ctx, CL_MEM_HOST_NO_ACCESS, size, nullptr, &err);
  cl_mem hostWriteOnly = D->clCreateBuffer(ctx, CL_MEM_HOST_WRITE_ONLY, size, nullptr, &err);
  cl_mem hostReadOnly = D->clCreateBuffer(ctx, CL_MEM_HOST_READ_ONLY, size, nullptr, &err);
  // Images (the selected PoCL devices have them, so clsplit offers them).
  const cl_image_format rgba8{CL_RGBA, CL_UNORM_INT8}, rgbaF{CL_RGBA, CL_FLOAT};
  cl_mem img = D->clCreateImage2D(ctx, CL_MEM_READ_WRITE, &rgba8, 8, 8, 0, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_mem imgF = D->clCreateImage2D(ctx, CL_MEM_READ_WRITE, &rgbaF, 8, 8, 0, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_mem hostNoneImg = D->clCreateImage2D(ctx, CL_MEM_HOST_NO_ACCESS, &rgba8, 8, 8, 0, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_buffer_region firstHalf{0, size / 2};
  cl_mem sub = D->clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &firstHalf, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_program prog = D->clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  REQUIRE(D->clBuildProgram(prog, 0, nullptr, "", nullptr, nullptr) == CL_SUCCESS);
  cl_program prog2 = D->clCreateProgramWithSource(ctx2, 1, &kSource, nullptr, &err);
  REQUIRE(D->clBuildProgram(prog2, 0, nullptr, "", nullptr, nullptr) == CL_SUCCESS);
  cl_program unbuilt = D->clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  cl_program compiled = D->clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  REQUIRE(D->clCompileProgram(compiled, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr) == CL_SUCCESS);
  size_t binarySize = 0;
  REQUIRE(D->clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof binarySize, &binarySize, nullptr) == CL_SUCCESS);
  std::vector<unsigned char> binary(binarySize);
  unsigned char* binaryTarget = binary.data();
  REQUIRE(D->clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof binaryTarget, &binaryTarget, nullptr) == CL_SUCCESS);
  const unsigned char* binaries[] = {binary.data()};
  cl_program fromBinary = D->clCreateProgramWithBinary(ctx, 1, &device, &binarySize, binaries, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_kernel k = D->clCreateKernel(prog, "k", &err);
  REQUIRE(err == CL_SUCCESS);
  REQUIRE(D->clSetKernelArg(k, 0, sizeof buf, &buf) == CL_SUCCESS);
  int n = 3;
  REQUIRE(D->clSetKernelArg(k, 1, sizeof n, &n) == CL_SUCCESS);
  cl_kernel kUnset = D->clCreateKernel(prog, "k", &err);
  cl_kernel kLoc = D->clCreateKernel(prog, "loc", &err);
  cl_kernel kFixed = D->clCreateKernel(prog, "fixed", &err);
  REQUIRE(D->clSetKernelArg(kFixed, 0, sizeof buf, &buf) == CL_SUCCESS);
  cl_kernel k2 = D->clCreateKernel(prog2, "k", &err);
  REQUIRE(D->clSetKernelArg(k2, 0, sizeof buf2, &buf2) == CL_SUCCESS);
  REQUIRE(D->clSetKernelArg(k2, 1, sizeof n, &n) == CL_SUCCESS);
  cl_event uev = D->clCreateUserEvent(ctx, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_event uev2 = D->clCreateUserEvent(ctx2, &err);
  cl_event failed = D->clCreateUserEvent(ctx, &err);
  REQUIRE(D->clSetUserEventStatus(failed, -1) == CL_SUCCESS);
  cl_event completedUser = D->clCreateUserEvent(ctx, &err);
  REQUIRE(D->clSetUserEventStatus(completedUser, CL_COMPLETE) == CL_SUCCESS);
  cl_event marker = nullptr;
  REQUIRE(D->clEnqueueMarkerWithWaitList(q, 0, nullptr, &marker) == CL_SUCCESS);
  REQUIRE(D->clFinish(q) == CL_SUCCESS);
  std::vector<unsigned char> host(size, 0);
  void* ptr = host.data();

  // --- Invalid handles -------------------------------------------------------------------------
  int localInt = 0; // its address is a pointer value that is no handle (never dereferenced)
  auto garbage = [&]<class T>() { return reinterpret_cast<T>(&localInt); };
  cl_platform_id badPlatform = garbage.operator()<cl_platform_id>();
  cl_device_id badDevice = garbage.operator()<cl_device_id>();
  cl_context badContext = garbage.operator()<cl_context>();
  cl_command_queue badQueue = garbage.operator()<cl_command_queue>();
  cl_mem badMem = garbage.operator()<cl_mem>();
  cl_program badProgram = garbage.operator()<cl_program>();
  cl_kernel badKernel = garbage.operator()<cl_kernel>();
  cl_event badEvent = garbage.operator()<cl_event>();
  cl_sampler badSampler = garbage.operator()<cl_sampler>();
  // Released objects (created last, so no later creation reuses their addresses before use).
  cl_context deadContext = D->clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  D->clReleaseContext(deadContext);
  cl_command_queue deadQueue = D->clCreateCommandQueue(ctx, device, 0, &err);
  D->clReleaseCommandQueue(deadQueue);
  cl_mem deadMem = D->clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
  D->clReleaseMemObject(deadMem);
  cl_program deadProgram = D->clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  D->clReleaseProgram(deadProgram);
  cl_kernel deadKernel = D->clCreateKernel(prog, "k", &err);
  D->clReleaseKernel(deadKernel);
  cl_event deadEvent = D->clCreateUserEvent(ctx, &err);
  D->clReleaseEvent(deadEvent);
  // Handles of the wrong kind.
  auto memAsKernel = reinterpret_cast<cl_kernel>(buf);
  auto kernelAsMem = reinterpret_cast<cl_mem>(k);
  auto queueAsContext = reinterpret_cast<cl_context>(q);
  auto contextAsQueue = reinterpret_cast<cl_command_queue>(ctx);
  auto eventAsProgram = reinterpret_cast<cl_program>(uev);
  auto programAsEvent = reinterpret_cast<cl_event>(prog);
  auto deviceAsPlatform = reinterpret_cast<cl_platform_id>(device);
  auto platformAsDevice = reinterpret_cast<cl_device_id>(platform);

  char text[256];
  size_t ret = 0;
  cl_uint count = 0;
  size_t origin[3] = {0, 0, 0}, region[3] = {16, 2, 1}, zeroRegion[3] = {16, 0, 1};
  // (2^60 + 1) slices of 16 bytes: the last byte's offset wraps around to 1.
  size_t hugeRegion[3] = {1, 1, (size_t(1) << 60) + 1};
  size_t global[3] = {16, 1, 1}, local[3] = {16, 1, 1};
  int pattern = 7;
  // Shared virtual memory (the PoCL devices have it, so clsplit offers one device's).
  auto* svm = static_cast<int*>(D->clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0));
  REQUIRE(svm != nullptr);
  int notSvm[4] = {};
  void* svmPointers[] = {svm};
  void* notSvmPointers[] = {notSvm};
  void* nullPointers[] = {nullptr};
  const cl_bool yes = CL_TRUE;
  cl_event scratchEvent = nullptr;

  const std::vector<Row> rows = {
      // Platform and device.
      ROW(CL_INVALID_VALUE, D->clGetPlatformIDs(0, &platform, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetPlatformIDs(1, nullptr, nullptr)),
      ROW(CL_INVALID_PLATFORM, D->clGetPlatformInfo(badPlatform, CL_PLATFORM_NAME, sizeof text, text, nullptr)),
      ROW(CL_INVALID_PLATFORM, D->clGetPlatformInfo(deviceAsPlatform, CL_PLATFORM_NAME, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetPlatformInfo(platform, 0x7777, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetPlatformInfo(platform, CL_PLATFORM_NAME, 1, text, nullptr)),
      ROW(CL_INVALID_PLATFORM, D->clGetDeviceIDs(badPlatform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr)),
      ROW(CL_INVALID_DEVICE_TYPE, D->clGetDeviceIDs(platform, 0, 1, &device, nullptr)),
      ROW(CL_INVALID_DEVICE_TYPE, D->clGetDeviceIDs(platform, cl_device_type(1) << 40, 1, &device, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, &device, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, nullptr, nullptr)),
      ROW(CL_DEVICE_NOT_FOUND, D->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ACCELERATOR, 1, &device, &count)),
      ROW(CL_INVALID_DEVICE, D->clGetDeviceInfo(badDevice, CL_DEVICE_NAME, sizeof text, text, nullptr)),
      ROW(CL_INVALID_DEVICE, D->clGetDeviceInfo(platformAsDevice, CL_DEVICE_NAME, sizeof text, text, nullptr)),
      ROW(CL_INVALID_DEVICE, D->clGetDeviceInfo(nullptr, CL_DEVICE_NAME, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetDeviceInfo(device, 0x7777, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetDeviceInfo(device, CL_DEVICE_NAME, 2, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, 2, text, nullptr)),
      ROW(CL_INVALID_DEVICE, D->clCreateSubDevices(badDevice, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clCreateSubDevices(device, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_DEVICE, D->clRetainDevice(badDevice)),
      ROW(CL_INVALID_DEVICE, D->clReleaseDevice(badDevice)),
      ROW(CL_INVALID_PLATFORM, D->clUnloadPlatformCompiler(badPlatform)),
      ROW(CL_SUCCESS, D->clUnloadCompiler()),
      ROW_NULL(D->clGetExtensionFunctionAddress("clNoSuchFunctionKHR")),
      ROW_NULL(D->clGetExtensionFunctionAddressForPlatform(badPlatform, "clGetPlatformInfo")),
      ROW_NULL(D->clGetExtensionFunctionAddressForPlatform(platform, "clNoSuchFunctionKHR")),

      // Contexts.
      ROW_H(CL_INVALID_VALUE, D->clCreateContext(nullptr, 0, &device, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateContext(nullptr, 1, nullptr, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_DEVICE, D->clCreateContext(nullptr, 1, &badDevice, nullptr, nullptr, &err)),
      ROW_NULL(D->clCreateContext(nullptr, 1, &badDevice, nullptr, nullptr, nullptr)),
      ROW_H(CL_INVALID_VALUE, D->clCreateContext(nullptr, 1, &device, nullptr, &localInt, &err)),
      ROW_H(CL_INVALID_PLATFORM,
            [&] {
              cl_context_properties p[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(badPlatform),
                                           0};
              return D->clCreateContext(p, 1, &device, nullptr, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_PROPERTY,
            [&] {
              cl_context_properties p[] = {0x7777, 1, 0};
              return D->clCreateContext(p, 1, &device, nullptr, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_PROPERTY,
            [&] {
              auto pl = reinterpret_cast<cl_context_properties>(platform);
              cl_context_properties p[] = {CL_CONTEXT_PLATFORM, pl, CL_CONTEXT_PLATFORM, pl, 0};
              return D->clCreateContext(p, 1, &device, nullptr, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_DEVICE_TYPE, D->clCreateContextFromType(nullptr, 0, nullptr, nullptr, &err)),
      ROW_H(CL_DEVICE_NOT_FOUND,
            D->clCreateContextFromType(nullptr, CL_DEVICE_TYPE_ACCELERATOR, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_PLATFORM,
            [&] {
              cl_context_properties p[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(badPlatform),
                                           0};
              return D->clCreateContextFromType(p, CL_DEVICE_TYPE_ALL, nullptr, nullptr, &err);
            }()),
      ROW(CL_INVALID_CONTEXT, D->clRetainContext(badContext)),
      ROW(CL_INVALID_CONTEXT, D->clRetainContext(queueAsContext)),
      ROW(CL_INVALID_CONTEXT, D->clReleaseContext(deadContext)),
      ROW(CL_INVALID_CONTEXT, D->clReleaseContext(nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clGetContextInfo(deadContext, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetContextInfo(ctx, 0x7777, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetContextInfo(ctx, CL_CONTEXT_DEVICES, 1, text, nullptr)),

      // Command queues.
      ROW_H(CL_INVALID_CONTEXT, D->clCreateCommandQueue(badContext, device, 0, &err)),
      ROW_H(CL_INVALID_CONTEXT, D->clCreateCommandQueue(deadContext, device, 0, &err)),
      ROW_H(CL_INVALID_DEVICE, D->clCreateCommandQueue(ctx, badDevice, 0, &err)),
      ROW_H(CL_INVALID_DEVICE, D->clCreateCommandQueue(ctx, nullptr, 0, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateCommandQueue(ctx, device, cl_command_queue_properties(1) << 7, &err)),
      ROW_H(CL_INVALID_CONTEXT, D->clCreateCommandQueueWithProperties(badContext, device, nullptr, &err)),
      ROW_H(CL_INVALID_DEVICE, D->clCreateCommandQueueWithProperties(ctx, badDevice, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE,
            [&] {
              const cl_queue_properties unknown[] = {0x7777, 1, 0};
              return D->clCreateCommandQueueWithProperties(ctx, device, unknown, &err);
            }()),
      ROW_H(CL_INVALID_QUEUE_PROPERTIES,
            [&] {
              const cl_queue_properties onDevice[] = {CL_QUEUE_PROPERTIES,
                                                      CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
              return D->clCreateCommandQueueWithProperties(ctx, device, onDevice, &err);
            }()),
      ROW_H(CL_INVALID_QUEUE_PROPERTIES,
            [&] {
              const cl_queue_properties sized[] = {CL_QUEUE_SIZE, 1024, 0};
              return D->clCreateCommandQueueWithProperties(ctx, device, sized, &err);
            }()),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clRetainCommandQueue(badQueue)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clRetainCommandQueue(contextAsQueue)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clReleaseCommandQueue(deadQueue)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clGetCommandQueueInfo(badQueue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetCommandQueueInfo(q, 0x7777, sizeof text, text, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE,
          D->clSetCommandQueueProperty(badQueue, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, nullptr)),
      ROW(CL_INVALID_VALUE, D->clSetCommandQueueProperty(q, cl_command_queue_properties(1) << 7, CL_TRUE, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clFlush(badQueue)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clFlush(deadQueue)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clFinish(nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clFinish(deadQueue)),

      // Memory objects.
      ROW_H(CL_INVALID_CONTEXT, D->clCreateBuffer(badContext, CL_MEM_READ_WRITE, 64, nullptr, &err)),
      ROW_H(CL_INVALID_CONTEXT, D->clCreateBuffer(deadContext, CL_MEM_READ_WRITE, 64, nullptr, &err)),
      ROW_NULL(D->clCreateBuffer(badContext, CL_MEM_READ_WRITE, 64, nullptr, nullptr)),
      ROW_H(CL_INVALID_VALUE, D->clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateBuffer(ctx, cl_mem_flags(1) << 30, 64, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, ptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, ptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateBuffer(ctx, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 64, nullptr, &err)),
      ROW_H(CL_INVALID_BUFFER_SIZE, D->clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, nullptr, &err)),
      ROW_H(CL_INVALID_BUFFER_SIZE, D->clCreateBuffer(ctx, CL_MEM_READ_WRITE, maxAlloc + 1, nullptr, &err)),
      ROW_H(CL_INVALID_HOST_PTR, D->clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 64, nullptr, &err)),
      ROW_H(CL_INVALID_HOST_PTR, D->clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, 64, nullptr, &err)),
      ROW_H(CL_INVALID_HOST_PTR, D->clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, ptr, &err)),
      ROW_H(CL_INVALID_CONTEXT,
            D->clCreateBufferWithProperties(badContext, nullptr, CL_MEM_READ_WRITE, 64, nullptr, &err)),
      ROW_H(CL_INVALID_PROPERTY,
            [&] {
              const cl_mem_properties unknown[] = {0x7777, 1, 0};
              return D->clCreateBufferWithProperties(ctx, unknown, CL_MEM_READ_WRITE, 64, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_BUFFER_SIZE, D->clCreateBufferWithProperties(ctx, nullptr, CL_MEM_READ_WRITE, 0, nullptr, &err)),
      ROW(CL_INVALID_CONTEXT, D->clSetContextDestructorCallback(badContext, noopContextCallback, nullptr)),
      ROW(CL_INVALID_VALUE, D->clSetContextDestructorCallback(ctx, nullptr, nullptr)),
      ROW_H(CL_INVALID_MEM_OBJECT, D->clCreateSubBuffer(badMem, 0, CL_BUFFER_CREATE_TYPE_REGION, &firstHalf, &err)),
      ROW_H(CL_INVALID_MEM_OBJECT, D->clCreateSubBuffer(deadMem, 0, CL_BUFFER_CREATE_TYPE_REGION, &firstHalf, &err)),
      ROW_H(CL_INVALID_MEM_OBJECT, D->clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION, &firstHalf, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateSubBuffer(buf, 0, 0x7777, &firstHalf, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE,
            D->clCreateSubBuffer(buf, CL_MEM_USE_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &firstHalf, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateSubBuffer(buf, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                                                   CL_BUFFER_CREATE_TYPE_REGION, &firstHalf, &err)),
      ROW_H(CL_INVALID_VALUE,
            D->clCreateSubBuffer(woBuf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &firstHalf, &err)),
      ROW_H(CL_INVALID_VALUE,
            D->clCreateSubBuffer(hostNone, CL_MEM_HOST_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &firstHalf, &err)),
      ROW_H(CL_INVALID_VALUE,
            [&] {
              cl_buffer_region r{size - align, 2 * align};
              return D->clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
            }()),
      ROW_H(CL_INVALID_BUFFER_SIZE,
            [&] {
              cl_buffer_region r{0, 0};
              return D->clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
            }()),
      ROW_H(CL_MISALIGNED_SUB_BUFFER_OFFSET,
            [&] {
              cl_buffer_region r{align / 2, 16};
              return D->clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
            }()),
      ROW(CL_INVALID_MEM_OBJECT, D->clRetainMemObject(badMem)),
      ROW(CL_INVALID_MEM_OBJECT, D->clRetainMemObject(kernelAsMem)),
      ROW(CL_INVALID_MEM_OBJECT, D->clReleaseMemObject(deadMem)),
      ROW(CL_INVALID_MEM_OBJECT, D->clReleaseMemObject(nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clGetMemObjectInfo(deadMem, CL_MEM_SIZE, sizeof ret, &ret, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetMemObjectInfo(buf, 0x7777, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetMemObjectInfo(buf, CL_MEM_SIZE, 1, text, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clSetMemObjectDestructorCallback(badMem, noopMemCallback, nullptr)),
      ROW(CL_INVALID_VALUE, D->clSetMemObjectDestructorCallback(buf, nullptr, nullptr)),

      // Images and samplers.
      ROW_H(CL_INVALID_CONTEXT, D->clCreateImage2D(badContext, CL_MEM_READ_WRITE, &rgba8, 4, 4, 0, nullptr, &err)),
      ROW_H(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
            D->clCreateImage2D(ctx, CL_MEM_READ_WRITE, nullptr, 4, 4, 0, nullptr, &err)),
      ROW_H(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
            [&] {
              cl_image_format f{CL_RGBA, 0x7777};
              return D->clCreateImage2D(ctx, CL_MEM_READ_WRITE, &f, 4, 4, 0, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_IMAGE_SIZE, D->clCreateImage2D(ctx, CL_MEM_READ_WRITE, &rgba8, 0, 4, 0, nullptr, &err)),
      ROW_H(CL_INVALID_IMAGE_SIZE,
            D->clCreateImage2D(ctx, CL_MEM_READ_WRITE, &rgba8, 4, size_t(1) << 40, 0, nullptr, &err)),
      ROW_H(CL_INVALID_IMAGE_DESCRIPTOR, D->clCreateImage2D(ctx, CL_MEM_READ_WRITE, &rgba8, 4, 4, 64, nullptr, &err)),
      ROW_H(CL_INVALID_HOST_PTR, D->clCreateImage2D(ctx, CL_MEM_COPY_HOST_PTR, &rgba8, 4, 4, 0, nullptr, &err)),
      ROW_H(CL_INVALID_IMAGE_DESCRIPTOR, D->clCreateImage2D(ctx, CL_MEM_COPY_HOST_PTR, &rgba8, 4, 4, 8, text, &err)),
      ROW_H(CL_INVALID_IMAGE_SIZE, D->clCreateImage3D(ctx, CL_MEM_READ_WRITE, &rgba8, 4, 4, 1, 0, 0, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE,
            D->clCreateImage3D(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, &rgba8, 4, 4, 4, 0, 0, nullptr, &err)),
      ROW_H(CL_INVALID_IMAGE_DESCRIPTOR, D->clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_IMAGE_DESCRIPTOR,
            [&] {
              cl_image_desc d{};
              d.image_type = CL_MEM_OBJECT_BUFFER;
              d.image_width = d.image_height = 4;
              return D->clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &d, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_IMAGE_DESCRIPTOR,
            [&] { // a 1-D buffer image over an image
              cl_image_desc d{};
              d.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
              d.image_width = 4;
              d.mem_object = img;
              return D->clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &d, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_IMAGE_SIZE,
            [&] { // larger than its buffer (16 * align bytes)
              cl_image_desc d{};
              d.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
              d.image_width = size / 4 + 1;
              d.mem_object = buf;
              return D->clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &d, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_VALUE,
            [&] {
              cl_image_desc d{};
              d.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
              d.image_width = 4;
              d.mem_object = buf;
              return D->clCreateImage(ctx, CL_MEM_COPY_HOST_PTR, &rgba8, &d, text, &err);
            }()),
      ROW_H(CL_INVALID_OPERATION,
            [&] { // 2-D images of buffers are not offered (pitch alignment 0)
              cl_image_desc d{};
              d.image_type = CL_MEM_OBJECT_IMAGE2D;
              d.image_width = d.image_height = 2;
              d.mem_object = buf;
              return D->clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &d, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_CONTEXT,
            [&] {
              cl_image_desc d{};
              d.image_type = CL_MEM_OBJECT_IMAGE2D;
              d.image_width = d.image_height = 4;
              return D->clCreateImageWithProperties(badContext, nullptr, CL_MEM_READ_WRITE, &rgba8, &d, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_PROPERTY,
            [&] {
              cl_image_desc d{};
              d.image_type = CL_MEM_OBJECT_IMAGE2D;
              d.image_width = d.image_height = 4;
              const cl_mem_properties props[] = {0x7777, 0, 0};
              return D->clCreateImageWithProperties(ctx, props, CL_MEM_READ_WRITE, &rgba8, &d, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_MEM_OBJECT,
            D->clCreateSubBuffer(img, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &firstHalf, &err)),
      ROW(CL_INVALID_VALUE, D->clGetImageInfo(img, 0x7777, sizeof ret, &ret, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetImageInfo(img, CL_IMAGE_WIDTH, 1, text, nullptr)),
      ROW(CL_INVALID_CONTEXT,
          D->clGetSupportedImageFormats(badContext, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &count)),
      ROW(CL_INVALID_VALUE,
          D->clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_BUFFER, 0, nullptr, &count)),
      ROW(CL_INVALID_VALUE, D->clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                                                          CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &count)),
      ROW(CL_INVALID_MEM_OBJECT, D->clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof ret, &ret, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clGetImageInfo(badMem, CL_IMAGE_WIDTH, sizeof ret, &ret, nullptr)),
      ROW_H(CL_INVALID_CONTEXT, D->clCreateSampler(badContext, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateSampler(ctx, CL_FALSE, 0x7777, CL_FILTER_NEAREST, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_CLAMP, 0x7777, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateSampler(ctx, 7, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err)),
      ROW_H(CL_INVALID_CONTEXT, D->clCreateSamplerWithProperties(badContext, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE,
            [&] {
              const cl_sampler_properties props[] = {0x7777, 0, 0};
              return D->clCreateSamplerWithProperties(ctx, props, &err);
            }()),
      ROW_H(CL_INVALID_VALUE,
            [&] {
              const cl_sampler_properties props[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, CL_SAMPLER_FILTER_MODE,
                                                     CL_FILTER_LINEAR, 0};
              return D->clCreateSamplerWithProperties(ctx, props, &err);
            }()),
      ROW(CL_INVALID_SAMPLER, D->clRetainSampler(badSampler)),
      ROW(CL_INVALID_SAMPLER, D->clReleaseSampler(nullptr)),
      ROW(CL_INVALID_SAMPLER, D->clGetSamplerInfo(badSampler, CL_SAMPLER_CONTEXT, sizeof ctx, &ctx, nullptr)),

      // Programs.
      ROW_H(CL_INVALID_CONTEXT, D->clCreateProgramWithSource(badContext, 1, &kSource, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateProgramWithSource(ctx, 0, &kSource, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateProgramWithSource(ctx, 1, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE,
            [&] {
              const char* strings[] = {kSource, nullptr};
              return D->clCreateProgramWithSource(ctx, 2, strings, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_CONTEXT,
            D->clCreateProgramWithBinary(badContext, 1, &device, &binarySize, binaries, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateProgramWithBinary(ctx, 0, &device, &binarySize, binaries, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateProgramWithBinary(ctx, 1, nullptr, &binarySize, binaries, nullptr, &err)),
      ROW_H(CL_INVALID_DEVICE, D->clCreateProgramWithBinary(ctx, 1, &badDevice, &binarySize, binaries, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateProgramWithBinary(ctx, 1, &device, nullptr, binaries, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE,
            [&] {
              size_t zero = 0;
              return D->clCreateProgramWithBinary(ctx, 1, &device, &zero, binaries, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_BINARY,
            [&] {
              const unsigned char junk[] = "definitely not a program binary";
              const unsigned char* list[] = {junk};
              size_t length = sizeof junk;
              return D->clCreateProgramWithBinary(ctx, 1, &device, &length, list, nullptr, &err);
            }()),
      ROW_H(CL_INVALID_CONTEXT, D->clCreateProgramWithBuiltInKernels(badContext, 1, &device, "k", &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateProgramWithBuiltInKernels(ctx, 1, &device, nullptr, &err)),
      ROW_H(CL_INVALID_DEVICE, D->clCreateProgramWithBuiltInKernels(ctx, 1, &badDevice, "k", &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateProgramWithBuiltInKernels(ctx, 1, &device, "no_such_builtin", &err)),
      ROW(CL_INVALID_PROGRAM, D->clRetainProgram(badProgram)),
      ROW(CL_INVALID_PROGRAM, D->clRetainProgram(eventAsProgram)),
      ROW(CL_INVALID_PROGRAM, D->clReleaseProgram(deadProgram)),
      ROW(CL_INVALID_PROGRAM, D->clBuildProgram(badProgram, 0, nullptr, "", nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clBuildProgram(unbuilt, 1, nullptr, "", nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clBuildProgram(unbuilt, 0, &device, "", nullptr, nullptr)),
      ROW(CL_INVALID_DEVICE, D->clBuildProgram(unbuilt, 1, &badDevice, "", nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clBuildProgram(unbuilt, 0, nullptr, "", nullptr, &localInt)),
      ROW(CL_INVALID_OPERATION, D->clBuildProgram(prog, 0, nullptr, "", nullptr, nullptr)), // kernels attached
      ROW(CL_INVALID_BUILD_OPTIONS, D->clBuildProgram(unbuilt, 0, nullptr, "-cl-no-such-option", nullptr, nullptr)),
      ROW(CL_BUILD_PROGRAM_FAILURE,
          [&] {
            cl_program p = D->clCreateProgramWithSource(ctx, 1, &kBroken, nullptr, &err);
            cl_int result = D->clBuildProgram(p, 0, nullptr, "", nullptr, nullptr);
            D->clReleaseProgram(p);
            return result;
          }()),
      ROW(CL_INVALID_PROGRAM, D->clCompileProgram(badProgram, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clCompileProgram(unbuilt, 0, nullptr, "", 1, nullptr, nullptr, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clCompileProgram(unbuilt, 1, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr)),
      ROW(CL_INVALID_DEVICE, D->clCompileProgram(unbuilt, 1, &badDevice, "", 0, nullptr, nullptr, nullptr, nullptr)),
      ROW(CL_INVALID_OPERATION, D->clCompileProgram(fromBinary, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr)),
      ROW(CL_COMPILE_PROGRAM_FAILURE,
          [&] {
            cl_program p = D->clCreateProgramWithSource(ctx, 1, &kBroken, nullptr, &err);
            cl_int result = D->clCompileProgram(p, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr);
            D->clReleaseProgram(p);
            return result;
          }()),
      ROW_H(CL_INVALID_CONTEXT, D->clLinkProgram(badContext, 0, nullptr, "", 1, &compiled, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clLinkProgram(ctx, 0, nullptr, "", 0, nullptr, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clLinkProgram(ctx, 1, nullptr, "", 1, &compiled, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_DEVICE, D->clLinkProgram(ctx, 1, &badDevice, "", 1, &compiled, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_PROGRAM, D->clLinkProgram(ctx, 0, nullptr, "", 1, &badProgram, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_OPERATION, D->clLinkProgram(ctx, 0, nullptr, "", 1, &unbuilt, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clLinkProgram(ctx, 0, nullptr, "", 1, &compiled, nullptr, &localInt, &err)),
      ROW(CL_INVALID_PROGRAM, D->clGetProgramInfo(badProgram, CL_PROGRAM_NUM_DEVICES, sizeof count, &count, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetProgramInfo(prog, 0x7777, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, 1, text, nullptr)),
      ROW(CL_INVALID_PROGRAM_EXECUTABLE,
          D->clGetProgramInfo(unbuilt, CL_PROGRAM_NUM_KERNELS, sizeof ret, &ret, nullptr)),
      ROW(CL_INVALID_PROGRAM,
          D->clGetProgramBuildInfo(badProgram, device, CL_PROGRAM_BUILD_STATUS, sizeof ret, &ret, nullptr)),
      ROW(CL_INVALID_DEVICE,
          D->clGetProgramBuildInfo(prog, badDevice, CL_PROGRAM_BUILD_STATUS, sizeof ret, &ret, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetProgramBuildInfo(prog, device, 0x7777, sizeof text, text, nullptr)),

      // Kernels.
      ROW_H(CL_INVALID_PROGRAM, D->clCreateKernel(badProgram, "k", &err)),
      ROW_H(CL_INVALID_PROGRAM, D->clCreateKernel(deadProgram, "k", &err)),
      ROW_H(CL_INVALID_PROGRAM_EXECUTABLE, D->clCreateKernel(unbuilt, "k", &err)),
      ROW_H(CL_INVALID_KERNEL_NAME, D->clCreateKernel(prog, "no_such_kernel", &err)),
      ROW_H(CL_INVALID_KERNEL, D->clCloneKernel(badKernel, &err)),
      ROW_H(CL_INVALID_KERNEL, D->clCloneKernel(deadKernel, &err)),
      ROW_H(CL_INVALID_VALUE, D->clCreateKernel(prog, nullptr, &err)),
      ROW(CL_INVALID_PROGRAM, D->clCreateKernelsInProgram(badProgram, 0, nullptr, &count)),
      ROW(CL_INVALID_PROGRAM_EXECUTABLE, D->clCreateKernelsInProgram(unbuilt, 0, nullptr, &count)),
      ROW(CL_INVALID_VALUE,
          [&] {
            cl_kernel kernels[1] = {nullptr};
            return D->clCreateKernelsInProgram(prog, 1, kernels, nullptr);
          }()),
      ROW(CL_INVALID_KERNEL, D->clRetainKernel(badKernel)),
      ROW(CL_INVALID_KERNEL, D->clRetainKernel(memAsKernel)),
      ROW(CL_INVALID_KERNEL, D->clReleaseKernel(deadKernel)),
      ROW(CL_INVALID_KERNEL, D->clSetKernelArg(badKernel, 0, sizeof buf, &buf)),
      ROW(CL_INVALID_KERNEL, D->clSetKernelArg(deadKernel, 0, sizeof buf, &buf)),
      ROW(CL_INVALID_ARG_INDEX, D->clSetKernelArg(kUnset, 2, sizeof n, &n)),
      ROW(CL_INVALID_MEM_OBJECT, D->clSetKernelArg(kUnset, 0, sizeof badMem, &badMem)),
      ROW(CL_INVALID_MEM_OBJECT, D->clSetKernelArg(kUnset, 0, sizeof deadMem, &deadMem)),
      ROW(CL_INVALID_ARG_SIZE, D->clSetKernelArg(kUnset, 0, 4, &buf)),
      ROW(CL_INVALID_ARG_SIZE, D->clSetKernelArg(kUnset, 1, 2, &n)),
      ROW(CL_INVALID_ARG_VALUE, D->clSetKernelArg(kUnset, 1, sizeof n, nullptr)),
      ROW(CL_INVALID_ARG_VALUE, D->clSetKernelArg(kLoc, 1, sizeof n, &n)),
      ROW(CL_INVALID_ARG_SIZE, D->clSetKernelArg(kLoc, 1, 0, nullptr)),
      ROW(CL_INVALID_KERNEL, D->clGetKernelInfo(badKernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetKernelInfo(k, 0x7777, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 1, text, nullptr)),
      ROW(CL_INVALID_KERNEL,
          D->clGetKernelWorkGroupInfo(badKernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof ret, &ret, nullptr)),
      ROW(CL_INVALID_DEVICE,
          D->clGetKernelWorkGroupInfo(k, badDevice, CL_KERNEL_WORK_GROUP_SIZE, sizeof ret, &ret, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetKernelWorkGroupInfo(k, device, 0x7777, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clGetKernelWorkGroupInfo(k, device, CL_KERNEL_GLOBAL_WORK_SIZE, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clGetKernelWorkGroupInfo(k, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, 8, text, nullptr)),
      ROW(CL_INVALID_KERNEL, D->clGetKernelArgInfo(badKernel, 0, CL_KERNEL_ARG_NAME, sizeof text, text, nullptr)),
      ROW(CL_INVALID_ARG_INDEX, D->clGetKernelArgInfo(k, 5, CL_KERNEL_ARG_NAME, sizeof text, text, nullptr)),

      // Events.
      ROW(CL_INVALID_VALUE, D->clWaitForEvents(0, &uev)),
      ROW(CL_INVALID_VALUE, D->clWaitForEvents(1, nullptr)),
      ROW(CL_INVALID_EVENT, D->clWaitForEvents(1, &badEvent)),
      ROW(CL_INVALID_EVENT, D->clWaitForEvents(1, &deadEvent)),
      ROW(CL_INVALID_CONTEXT,
          [&] {
            cl_event list[] = {completedUser, uev2};
            return D->clWaitForEvents(2, list);
          }()),
      ROW(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, D->clWaitForEvents(1, &failed)),
      ROW(CL_INVALID_EVENT, D->clGetEventInfo(badEvent, CL_EVENT_CONTEXT, sizeof ctx, &ctx, nullptr)),
      ROW(CL_INVALID_EVENT, D->clGetEventInfo(programAsEvent, CL_EVENT_CONTEXT, sizeof ctx, &ctx, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetEventInfo(uev, 0x7777, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetEventInfo(uev, CL_EVENT_CONTEXT, 1, text, nullptr)),
      ROW(CL_INVALID_EVENT, D->clRetainEvent(badEvent)),
      ROW(CL_INVALID_EVENT, D->clReleaseEvent(deadEvent)),
      ROW(CL_INVALID_EVENT, D->clGetEventProfilingInfo(badEvent, CL_PROFILING_COMMAND_END, sizeof ret, &ret, nullptr)),
      ROW(CL_PROFILING_INFO_NOT_AVAILABLE,
          D->clGetEventProfilingInfo(completedUser, CL_PROFILING_COMMAND_END, sizeof ret, &ret, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetEventProfilingInfo(marker, 0x7777, sizeof text, text, nullptr)),
      ROW(CL_INVALID_VALUE, D->clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, 4, text, nullptr)),
      ROW_H(CL_INVALID_CONTEXT, D->clCreateUserEvent(badContext, &err)),
      ROW_H(CL_INVALID_CONTEXT, D->clCreateUserEvent(deadContext, &err)),
      ROW(CL_INVALID_EVENT, D->clSetUserEventStatus(badEvent, CL_COMPLETE)),
      ROW(CL_INVALID_EVENT, D->clSetUserEventStatus(marker, CL_COMPLETE)),
      ROW(CL_INVALID_VALUE, D->clSetUserEventStatus(uev, CL_SUBMITTED)),
      ROW(CL_INVALID_OPERATION, D->clSetUserEventStatus(completedUser, CL_COMPLETE)),
      ROW(CL_INVALID_EVENT, D->clSetEventCallback(badEvent, CL_COMPLETE, noopEventCallback, nullptr)),
      ROW(CL_INVALID_VALUE, D->clSetEventCallback(uev, CL_COMPLETE, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clSetEventCallback(uev, CL_QUEUED, noopEventCallback, nullptr)),

      // Enqueued buffer commands.
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueReadBuffer(badQueue, buf, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueReadBuffer(deadQueue, buf, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueReadBuffer(q, badMem, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueReadBuffer(q, deadMem, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueReadBuffer(q, buf2, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueReadBuffer(q, buf, CL_TRUE, size - 8, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, ptr, 1, nullptr, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, ptr, 0, &uev, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, ptr, 1, &badEvent, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, ptr, 1, &deadEvent, nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, ptr, 1, &uev2, nullptr)),
      ROW(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
          D->clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, ptr, 1, &failed, nullptr)),
      ROW(CL_INVALID_OPERATION, D->clEnqueueReadBuffer(q, hostWriteOnly, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_OPERATION, D->clEnqueueReadBuffer(q, hostNone, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueWriteBuffer(badQueue, buf, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueWriteBuffer(q, badMem, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueWriteBuffer(q, buf2, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueWriteBuffer(q, buf, CL_TRUE, size, 1, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 16, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_OPERATION, D->clEnqueueWriteBuffer(q, hostReadOnly, CL_TRUE, 0, 16, ptr, 0, nullptr, nullptr)),
      ROW(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
          D->clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 16, ptr, 1, &failed, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueCopyBuffer(badQueue, buf, woBuf, 0, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueCopyBuffer(q, badMem, woBuf, 0, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueCopyBuffer(q, buf, badMem, 0, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueCopyBuffer(q, buf2, buf, 0, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueCopyBuffer(q, buf, woBuf, size - 8, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueCopyBuffer(q, buf, woBuf, 0, size, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueCopyBuffer(q, buf, woBuf, 0, 0, 0, 0, nullptr, nullptr)),
      ROW(CL_MEM_COPY_OVERLAP, D->clEnqueueCopyBuffer(q, buf, buf, 0, 8, 16, 0, nullptr, nullptr)),
      ROW(CL_MEM_COPY_OVERLAP, D->clEnqueueCopyBuffer(q, buf, sub, 8, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueCopyBuffer(q, buf, woBuf, 0, 0, 16, 1, &badEvent, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueFillBuffer(badQueue, buf, &pattern, 4, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueFillBuffer(q, badMem, &pattern, 4, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueFillBuffer(q, buf2, &pattern, 4, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueFillBuffer(q, buf, nullptr, 4, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueFillBuffer(q, buf, &pattern, 3, 0, 15, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueFillBuffer(q, buf, &pattern, 0, 0, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueFillBuffer(q, buf, host.data(), 256, 0, 256, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueFillBuffer(q, buf, &pattern, 4, 2, 16, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueFillBuffer(q, buf, &pattern, 4, 0, 14, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueFillBuffer(q, buf, &pattern, 4, size - 4, 8, 0, nullptr, nullptr)),

      // Rectangles.
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueReadBufferRect(badQueue, buf, CL_TRUE, origin, origin, region, 0, 0, 0,
                                                               0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT,
          D->clEnqueueReadBufferRect(q, badMem, CL_TRUE, origin, origin, region, 0, 0, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_CONTEXT,
          D->clEnqueueReadBufferRect(q, buf2, CL_TRUE, origin, origin, region, 0, 0, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clEnqueueReadBufferRect(q, buf, CL_TRUE, nullptr, origin, region, 0, 0, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueReadBufferRect(q, buf, CL_TRUE, origin, origin, zeroRegion, 0, 0, 0, 0, ptr, 0,
                                                       nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clEnqueueReadBufferRect(q, buf, CL_TRUE, origin, origin, region, 8, 0, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clEnqueueReadBufferRect(q, buf, CL_TRUE, origin, origin, region, 16, 40, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clEnqueueReadBufferRect(q, buf, CL_TRUE, origin, origin, region, size, 0, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueReadBufferRect(q, buf, CL_TRUE, origin, origin, region, 0, 0, 0, 0, nullptr, 0,
                                                       nullptr, nullptr)),
      // A region whose extent overflows size_t must not pass the bounds check.
      ROW_ISOLATED(CL_INVALID_VALUE, D->clEnqueueReadBufferRect(q, buf, CL_TRUE, origin, origin, hugeRegion, 1, 16, 1,
                                                                16, ptr, 0, nullptr, nullptr)),
      ROW_ISOLATED(CL_INVALID_VALUE, D->clEnqueueWriteBufferRect(q, buf, CL_TRUE, origin, origin, hugeRegion, 1, 16, 1,
                                                                 16, ptr, 0, nullptr, nullptr)),
      ROW_ISOLATED(CL_INVALID_VALUE, D->clEnqueueCopyBufferRect(q, buf, woBuf, origin, origin, hugeRegion, 1, 16, 1, 16,
                                                                0, nullptr, nullptr)),
      ROW(CL_INVALID_OPERATION, D->clEnqueueReadBufferRect(q, hostNone, CL_TRUE, origin, origin, region, 0, 0, 0, 0,
                                                           ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueWriteBufferRect(badQueue, buf, CL_TRUE, origin, origin, region, 0, 0, 0,
                                                                0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueWriteBufferRect(q, deadMem, CL_TRUE, origin, origin, region, 0, 0, 0, 0,
                                                             ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueWriteBufferRect(q, buf, CL_TRUE, origin, origin, zeroRegion, 0, 0, 0, 0, ptr, 0,
                                                        nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueWriteBufferRect(q, buf, CL_TRUE, origin, origin, region, size, 0, 0, 0, ptr, 0,
                                                        nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clEnqueueWriteBufferRect(q, buf, CL_TRUE, origin, origin, region, 0, 0, 4, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_OPERATION, D->clEnqueueWriteBufferRect(q, hostReadOnly, CL_TRUE, origin, origin, region, 0, 0, 0,
                                                            0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE,
          D->clEnqueueCopyBufferRect(badQueue, buf, woBuf, origin, origin, region, 0, 0, 0, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT,
          D->clEnqueueCopyBufferRect(q, buf, badMem, origin, origin, region, 0, 0, 0, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_CONTEXT,
          D->clEnqueueCopyBufferRect(q, buf2, woBuf, origin, origin, region, 0, 0, 0, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clEnqueueCopyBufferRect(q, buf, woBuf, origin, origin, zeroRegion, 0, 0, 0, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clEnqueueCopyBufferRect(q, buf, woBuf, origin, origin, region, size, 0, 0, 0, 0, nullptr, nullptr)),
      ROW(CL_MEM_COPY_OVERLAP,
          [&] {
            size_t to[3] = {8, 0, 0};
            return D->clEnqueueCopyBufferRect(q, buf, buf, origin, to, region, 64, 0, 64, 0, 0, nullptr, nullptr);
          }()),
      ROW(CL_INVALID_VALUE,
          [&] { // one buffer: the specification requires equal pitches
            size_t to[3] = {0, 4, 0};
            return D->clEnqueueCopyBufferRect(q, buf, buf, origin, to, region, 64, 128, 32, 64, 0, nullptr, nullptr);
          }()),

      // Maps.
      ROW_H(CL_INVALID_COMMAND_QUEUE,
            D->clEnqueueMapBuffer(badQueue, buf, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_MEM_OBJECT,
            D->clEnqueueMapBuffer(q, badMem, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_CONTEXT, D->clEnqueueMapBuffer(q, buf2, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE,
            D->clEnqueueMapBuffer(q, buf, CL_TRUE, CL_MAP_READ, size - 8, 16, 0, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clEnqueueMapBuffer(q, buf, CL_TRUE, CL_MAP_READ, 0, 0, 0, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE,
            D->clEnqueueMapBuffer(q, buf, CL_TRUE, cl_map_flags(1) << 9, 0, 16, 0, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_VALUE, D->clEnqueueMapBuffer(q, buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                                    16, 0, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_OPERATION,
            D->clEnqueueMapBuffer(q, hostNone, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_OPERATION,
            D->clEnqueueMapBuffer(q, hostReadOnly, CL_TRUE, CL_MAP_WRITE, 0, 16, 0, nullptr, nullptr, &err)),
      ROW_H(CL_INVALID_EVENT_WAIT_LIST,
            D->clEnqueueMapBuffer(q, buf, CL_TRUE, CL_MAP_READ, 0, 16, 1, nullptr, nullptr, &err)),
      ROW_H(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            D->clEnqueueMapBuffer(q, buf, CL_TRUE, CL_MAP_READ, 0, 16, 1, &failed, nullptr, &err)),
      ROW_NULL(D->clEnqueueMapBuffer(q, badMem, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueUnmapMemObject(badQueue, buf, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueUnmapMemObject(q, badMem, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueUnmapMemObject(q, buf2, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueUnmapMemObject(q, buf, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueUnmapMemObject(q, buf, nullptr, 0, nullptr, nullptr)),

      // Kernel launches.
      ROW(CL_INVALID_COMMAND_QUEUE,
          D->clEnqueueNDRangeKernel(badQueue, k, 1, nullptr, global, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_KERNEL, D->clEnqueueNDRangeKernel(q, badKernel, 1, nullptr, global, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_KERNEL,
          D->clEnqueueNDRangeKernel(q, deadKernel, 1, nullptr, global, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueNDRangeKernel(q, k2, 1, nullptr, global, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_WORK_DIMENSION, D->clEnqueueNDRangeKernel(q, k, 0, nullptr, global, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_WORK_DIMENSION, D->clEnqueueNDRangeKernel(q, k, 4, nullptr, global, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_GLOBAL_WORK_SIZE,
          D->clEnqueueNDRangeKernel(q, k, 1, nullptr, nullptr, nullptr, 0, nullptr, nullptr)),
      // (An empty range is valid since OpenCL 2.1: opencl30.cpp runs one.)
      ROW(CL_INVALID_GLOBAL_OFFSET,
          [&] {
            size_t offset[3] = {SIZE_MAX - 4, 0, 0};
            return D->clEnqueueNDRangeKernel(q, k, 1, offset, global, nullptr, 0, nullptr, nullptr);
          }()),
      ROW(CL_INVALID_WORK_GROUP_SIZE,
          [&] {
            size_t bad[3] = {5, 1, 1};
            return D->clEnqueueNDRangeKernel(q, k, 1, nullptr, global, bad, 0, nullptr, nullptr);
          }()),
      ROW(CL_INVALID_WORK_GROUP_SIZE,
          D->clEnqueueNDRangeKernel(q, kFixed, 1, nullptr, global, local, 0, nullptr, nullptr)),
      ROW(CL_INVALID_WORK_GROUP_SIZE,
          D->clEnqueueNDRangeKernel(q, kFixed, 1, nullptr, global, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_KERNEL_ARGS,
          D->clEnqueueNDRangeKernel(q, kUnset, 1, nullptr, global, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST,
          D->clEnqueueNDRangeKernel(q, k, 1, nullptr, global, nullptr, 1, &badEvent, nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueNDRangeKernel(q, k, 1, nullptr, global, nullptr, 1, &uev2, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueTask(badQueue, k, 0, nullptr, nullptr)),
      ROW(CL_INVALID_KERNEL, D->clEnqueueTask(q, badKernel, 0, nullptr, nullptr)),
      ROW(CL_INVALID_KERNEL_ARGS, D->clEnqueueTask(q, kUnset, 0, nullptr, nullptr)),
      ROW(CL_INVALID_WORK_GROUP_SIZE, D->clEnqueueTask(q, kFixed, 0, nullptr, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE,
          D->clEnqueueNativeKernel(badQueue, noopNative, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_OPERATION,
          D->clEnqueueNativeKernel(q, noopNative, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, nullptr)),

      // Synchronisation commands.
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueMarker(badQueue, &scratchEvent)),
      ROW(CL_INVALID_VALUE, D->clEnqueueMarker(q, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueBarrier(badQueue)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueBarrier(deadQueue)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueWaitForEvents(badQueue, 1, &completedUser)),
      ROW(CL_INVALID_VALUE, D->clEnqueueWaitForEvents(q, 0, &completedUser)),
      ROW(CL_INVALID_VALUE, D->clEnqueueWaitForEvents(q, 1, nullptr)),
      ROW(CL_INVALID_EVENT, D->clEnqueueWaitForEvents(q, 1, &badEvent)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueWaitForEvents(q, 1, &uev2)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueMarkerWithWaitList(badQueue, 0, nullptr, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueMarkerWithWaitList(q, 1, nullptr, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueMarkerWithWaitList(q, 1, &deadEvent, nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueMarkerWithWaitList(q, 1, &uev2, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueBarrierWithWaitList(badQueue, 0, nullptr, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueBarrierWithWaitList(q, 0, &completedUser, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueBarrierWithWaitList(q, 1, &badEvent, nullptr)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueMigrateMemObjects(badQueue, 1, &buf, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueMigrateMemObjects(q, 0, &buf, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueMigrateMemObjects(q, 1, nullptr, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clEnqueueMigrateMemObjects(q, 1, &buf, cl_mem_migration_flags(1) << 5, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueMigrateMemObjects(q, 1, &badMem, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_CONTEXT, D->clEnqueueMigrateMemObjects(q, 1, &buf2, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueMigrateMemObjects(q, 1, &buf, 0, 1, &badEvent, nullptr)),

      // Image commands (a buffer is never an image; no image exists).
      ROW(CL_INVALID_COMMAND_QUEUE,
          D->clEnqueueReadImage(badQueue, buf, CL_TRUE, origin, region, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT,
          D->clEnqueueReadImage(q, buf, CL_TRUE, origin, region, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT,
          D->clEnqueueWriteImage(q, buf, CL_TRUE, origin, region, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueCopyImage(q, buf, buf, origin, origin, region, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueCopyImageToBuffer(q, buf, woBuf, origin, region, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueCopyBufferToImage(q, buf, woBuf, 0, origin, region, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueFillImage(q, buf, &pattern, origin, region, 0, nullptr, nullptr)),
      ROW_H(CL_INVALID_MEM_OBJECT,
            [&] {
              size_t rowPitch = 0, slicePitch = 0;
              return D->clEnqueueMapImage(q, buf, CL_TRUE, CL_MAP_READ, origin, region, &rowPitch, &slicePitch, 0,
                                          nullptr, nullptr, &err);
            }()),
      // Image commands on images, with bad arguments (images are 8x8).
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueReadBuffer(q, img, CL_TRUE, 0, 4, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_MEM_OBJECT, D->clEnqueueFillBuffer(q, img, &pattern, 1, 0, 4, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          [&] {
            const size_t o[3] = {6, 0, 0}, r[3] = {4, 1, 1};
            return D->clEnqueueReadImage(q, img, CL_TRUE, o, r, 0, 0, ptr, 0, nullptr, nullptr);
          }()),
      ROW(CL_INVALID_VALUE,
          [&] {
            const size_t o[3] = {0, 0, 0}, r[3] = {4, 0, 1};
            return D->clEnqueueReadImage(q, img, CL_TRUE, o, r, 0, 0, ptr, 0, nullptr, nullptr);
          }()),
      ROW(CL_INVALID_VALUE,
          [&] { // a 2-D image has no third dimension
            const size_t o[3] = {0, 0, 1}, r[3] = {1, 1, 1};
            return D->clEnqueueReadImage(q, img, CL_TRUE, o, r, 0, 0, ptr, 0, nullptr, nullptr);
          }()),
      ROW(CL_INVALID_VALUE, D->clEnqueueReadImage(q, img, CL_TRUE, nullptr, region, 0, 0, ptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueReadImage(q, img, CL_TRUE, origin, region, 0, 0, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          [&] { // a row pitch smaller than the region's row
            const size_t o[3] = {0, 0, 0}, r[3] = {4, 1, 1};
            return D->clEnqueueWriteImage(q, img, CL_TRUE, o, r, 8, 0, ptr, 0, nullptr, nullptr);
          }()),
      ROW(CL_INVALID_OPERATION,
          [&] {
            const size_t o[3] = {0, 0, 0}, r[3] = {1, 1, 1};
            return D->clEnqueueReadImage(q, hostNoneImg, CL_TRUE, o, r, 0, 0, ptr, 0, nullptr, nullptr);
          }()),
      ROW(CL_IMAGE_FORMAT_MISMATCH,
          [&] {
            const size_t o[3] = {0, 0, 0}, r[3] = {1, 1, 1};
            return D->clEnqueueCopyImage(q, img, imgF, o, o, r, 0, nullptr, nullptr);
          }()),
      ROW(CL_MEM_COPY_OVERLAP,
          [&] {
            const size_t o[3] = {0, 0, 0}, o2[3] = {1, 1, 0}, r[3] = {4, 4, 1};
            return D->clEnqueueCopyImage(q, img, img, o, o2, r, 0, nullptr, nullptr);
          }()),
      ROW(CL_INVALID_VALUE,
          [&] { // 8x8 RGBA8 = 256 bytes into a buffer of 16 * align
            const size_t o[3] = {0, 0, 0}, r[3] = {8, 8, 1};
            return D->clEnqueueCopyImageToBuffer(q, img, buf, o, r, size, 0, nullptr, nullptr);
          }()),
      ROW(CL_INVALID_VALUE,
          [&] {
            const size_t o[3] = {0, 0, 0}, r[3] = {8, 8, 1};
            return D->clEnqueueCopyBufferToImage(q, buf, img, size, o, r, 0, nullptr, nullptr);
          }()),
      ROW(CL_INVALID_VALUE,
          [&] {
            const size_t o[3] = {0, 0, 0}, r[3] = {1, 1, 1};
            return D->clEnqueueFillImage(q, img, nullptr, o, r, 0, nullptr, nullptr);
          }()),
      ROW_H(CL_INVALID_VALUE,
            [&] {
              const size_t o[3] = {0, 0, 0}, r[3] = {1, 1, 1};
              return D->clEnqueueMapImage(q, img, CL_TRUE, CL_MAP_READ, o, r, nullptr, nullptr, 0, nullptr, nullptr,
                                          &err);
            }()),
      ROW_H(CL_INVALID_VALUE,
            [&] {
              const size_t o[3] = {0, 0, 0}, r[3] = {1, 1, 1};
              size_t rowPitch = 0;
              return D->clEnqueueMapImage(q, img, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, o, r,
                                          &rowPitch, nullptr, 0, nullptr, nullptr, &err);
            }()),
      // Shared virtual memory.
      ROW_NULL(D->clSVMAlloc(badContext, CL_MEM_READ_WRITE, 64, 0)),
      ROW_NULL(D->clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY, 64, 0)),
      ROW_NULL(D->clSVMAlloc(ctx, CL_MEM_READ_WRITE, 0, 0)),
      ROW(CL_SUCCESS, (D->clSVMFree(badContext, svm), cl_int(CL_SUCCESS))), // nothing freed, no crash
      ROW(CL_SUCCESS, (D->clSVMFree(ctx, notSvm), cl_int(CL_SUCCESS))),     // not an allocation: logged
      ROW(CL_INVALID_KERNEL, D->clSetKernelArgSVMPointer(badKernel, 0, svm)),
      ROW(CL_INVALID_ARG_INDEX, D->clSetKernelArgSVMPointer(k, 7, svm)),
      ROW(CL_INVALID_ARG_VALUE, D->clSetKernelArgSVMPointer(k, 0, notSvm)), // not in an SVM allocation
      ROW(CL_INVALID_ARG_VALUE, D->clSetKernelArgSVMPointer(k, 1, svm)),    // `int n`: no pointer
      ROW(CL_INVALID_KERNEL,
          D->clSetKernelExecInfo(badKernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof svmPointers, svmPointers)),
      ROW(CL_INVALID_VALUE, D->clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, nullptr)),
      ROW(CL_INVALID_VALUE, D->clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 3, svmPointers)),
      ROW(CL_INVALID_VALUE,
          D->clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof notSvmPointers, notSvmPointers)),
      ROW(CL_INVALID_OPERATION, D->clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, &yes)),
      ROW(CL_INVALID_VALUE, D->clSetKernelExecInfo(k, 0x7777, sizeof yes, &yes)),
      ROW(CL_INVALID_COMMAND_QUEUE, D->clEnqueueSVMMemcpy(badQueue, CL_TRUE, svm, svm + 8, 4, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMMemcpy(q, CL_TRUE, nullptr, svm, 4, 0, nullptr, nullptr)),
      ROW(CL_MEM_COPY_OVERLAP, D->clEnqueueSVMMemcpy(q, CL_TRUE, svm + 1, svm, 8, 0, nullptr, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueSVMMemcpy(q, CL_FALSE, svm, svm + 8, 4, 1, &badEvent, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMMemFill(q, svm, &pattern, 3, 12, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMMemFill(q, svm, &pattern, 4, 6, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMMemFill(q, svm, nullptr, 4, 8, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, nullptr, 4, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, svm, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE,
          D->clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, svm, 4, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMUnmap(q, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMFree(q, 0, nullPointers, nullptr, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMFree(q, 1, nullptr, nullptr, nullptr, 0, nullptr, nullptr)),
      ROW(CL_INVALID_EVENT_WAIT_LIST, D->clEnqueueSVMFree(q, 1, svmPointers, nullptr, nullptr, 1, &badEvent, nullptr)),
      ROW(CL_SUCCESS, D->clEnqueueSVMFree(q, 0, nullptr, nullptr, nullptr, 0, nullptr, nullptr)), // nothing to free
      ROW(CL_SUCCESS, D->clEnqueueSVMFree(q, 1, nullPointers, nullptr, nullptr, 0, nullptr, nullptr)), // NULL: none
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMMigrateMem(q, 0, nullptr, nullptr, 0, 0, nullptr, nullptr)),
      ROW(CL_INVALID_VALUE, D->clEnqueueSVMMigrateMem(q, 1, const_cast<const void**>(svmPointers), nullptr,
                                                      cl_mem_migration_flags(1) << 5, 0, nullptr, nullptr)),
  };

  // Every implemented entry point has a row.
  static const char* const implemented[] = {
#define CLSPLIT_API(fn) #fn,
#define CLSPLIT_UNSUPPORTED(fn, code)
#include "icd/api/ApiTable.def"
#undef CLSPLIT_API
#undef CLSPLIT_UNSUPPORTED
  };
  std::vector<std::string> uncovered;
  for (const char* name : implemented) {
    std::string call = std::string("D->") + name + "(";
    bool covered = false;
    for (const auto& row : rows) covered = covered || row.call.find(call) != std::string::npos;
    if (!covered) uncovered.push_back(name);
  }
  {
    std::string list;
    for (const auto& u : uncovered) list += u + " ";
    INFO("entry points without a bad-input row: " << list);
    CHECK(uncovered.empty());
  }

  // Run the table: one CHECK per row, named by its call.
  size_t wrong = 0;
  for (const auto& row : rows) {
    std::printf("row: %s\n", row.call.c_str()); // the last line printed names a crashing row
    std::fflush(stdout);
    cl_int got = row.isolated ? runIsolated(row.run) : row.run();
    INFO(row.call << "\n  expected " << codeName(row.expected) << ", got " << codeName(got));
    CHECK(got == row.expected);
    wrong += got != row.expected;
  }
  std::printf("%zu rows, %zu with another result than the specification's\n", rows.size(), wrong);

  // Clean-up (also checks nothing above broke the valid objects).
  CHECK(D->clSetUserEventStatus(uev, CL_COMPLETE) == CL_SUCCESS);
  CHECK(D->clSetUserEventStatus(uev2, CL_COMPLETE) == CL_SUCCESS);
  CHECK(D->clFinish(q) == CL_SUCCESS);
  CHECK(D->clFinish(q2) == CL_SUCCESS);
  for (cl_event e : {uev, uev2, failed, completedUser, marker}) CHECK(D->clReleaseEvent(e) == CL_SUCCESS);
  for (cl_kernel x : {k, kUnset, kLoc, kFixed, k2}) CHECK(D->clReleaseKernel(x) == CL_SUCCESS);
  for (cl_program p : {prog, prog2, unbuilt, compiled, fromBinary}) CHECK(D->clReleaseProgram(p) == CL_SUCCESS);
  for (cl_mem m : {sub, buf, buf2, woBuf, hostNone, hostWriteOnly, hostReadOnly, img, imgF, hostNoneImg})
    CHECK(D->clReleaseMemObject(m) == CL_SUCCESS);
  D->clSVMFree(ctx, svm);
  CHECK(D->clReleaseCommandQueue(q) == CL_SUCCESS);
  CHECK(D->clReleaseCommandQueue(q2) == CL_SUCCESS);
  CHECK(D->clReleaseContext(ctx) == CL_SUCCESS);
  CHECK(D->clReleaseContext(ctx2) == CL_SUCCESS);
}

TEST_CASE("entry points clsplit does not offer return their error code", "[bad_input]") {
  D = icdCore().dispatch;
  cl_device_id device = clsplitDevice();
  cl_int err = CL_SUCCESS;
  cl_context ctx = D->clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_program p = D->clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  REQUIRE(D->clBuildProgram(p, 0, nullptr, "", nullptr, nullptr) == CL_SUCCESS);
  cl_kernel k = D->clCreateKernel(p, "k", &err);
  REQUIRE(err == CL_SUCCESS);

  // Optional OpenCL 2.x/3.0 features the clsplit device does not report: the errors the
  // specification gives for a device without them.
  err = 0;
  const char il[] = "not SPIR-V";
  CHECK(D->clCreateProgramWithIL(ctx, il, sizeof il, &err) == nullptr);
  CHECK(err == CL_INVALID_OPERATION);
  err = 0;
  CHECK(D->clCreatePipe(ctx, 0, 4, 16, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_OPERATION);
  cl_ulong timer = 0;
  CHECK(D->clGetHostTimer(device, &timer) == CL_INVALID_OPERATION);
  // Interop: no GL context can belong to the clsplit platform.
  err = 0;
  CHECK(D->clCreateFromGLBuffer(ctx, CL_MEM_READ_WRITE, 1, &err) == nullptr);
  CHECK(err == CL_INVALID_CONTEXT);

  CHECK(D->clReleaseKernel(k) == CL_SUCCESS);
  CHECK(D->clReleaseProgram(p) == CL_SUCCESS);
  CHECK(D->clReleaseContext(ctx) == CL_SUCCESS);
}

TEST_CASE("shared virtual memory: what the clsplit device offers, and pointers freed", "[bad_input]") {
  D = icdCore().dispatch;
  cl_device_id device = clsplitDevice();
  cl_device_svm_capabilities caps = 0;
  REQUIRE(D->clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, nullptr) == CL_SUCCESS);
  // PoCL's devices have coarse- and fine-grained buffer SVM and atomics: the clsplit device
  // offers them (one device's), never fine-grained system SVM.
  CHECK(caps == (CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS));
  cl_int err = CL_SUCCESS;
  cl_context ctx = D->clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_command_queue q = D->clCreateCommandQueue(ctx, device, 0, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_program p = D->clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  REQUIRE(D->clBuildProgram(p, 0, nullptr, "", nullptr, nullptr) == CL_SUCCESS);
  cl_kernel k = D->clCreateKernel(p, "k", &err);
  REQUIRE(err == CL_SUCCESS);

  auto* svm = static_cast<int*>(D->clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0));
  REQUIRE(svm != nullptr);
  CHECK(D->clSetKernelArgSVMPointer(k, 0, svm + 3) == CL_SUCCESS);            // inside an allocation
  CHECK(D->clSetKernelArgSVMPointer(k, 0, svm + 16) == CL_INVALID_ARG_VALUE); // one past its end
  CHECK(D->clSetKernelArgSVMPointer(k, 0, nullptr) == CL_SUCCESS);
  const cl_bool no = CL_FALSE;
  CHECK(D->clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof no, &no) == CL_SUCCESS);

  // Fill, copy, map, read on the host.
  int pattern = 5;
  CHECK(D->clEnqueueSVMMemFill(q, svm, &pattern, sizeof pattern, 32, 0, nullptr, nullptr) == CL_SUCCESS);
  CHECK(D->clEnqueueSVMMemcpy(q, CL_TRUE, svm + 8, svm, 32, 0, nullptr, nullptr) == CL_SUCCESS);
  CHECK(D->clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, svm, 64, 0, nullptr, nullptr) == CL_SUCCESS);
  CHECK(svm[0] == 5);
  CHECK(svm[15] == 5);
  CHECK(D->clEnqueueSVMUnmap(q, svm, 0, nullptr, nullptr) == CL_SUCCESS);
  CHECK(D->clFinish(q) == CL_SUCCESS);

  // Freed: no longer an SVM pointer of the context.
  D->clSVMFree(ctx, svm);
  CHECK(D->clSetKernelArgSVMPointer(k, 0, svm) == CL_INVALID_ARG_VALUE);
  void* more = D->clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0);
  REQUIRE(more != nullptr);
  void* list[] = {more};
  CHECK(D->clEnqueueSVMFree(q, 1, list, nullptr, nullptr, 0, nullptr, nullptr) == CL_SUCCESS);
  CHECK(D->clSetKernelArgSVMPointer(k, 0, more) == CL_INVALID_ARG_VALUE);
  CHECK(D->clFinish(q) == CL_SUCCESS);
  // With a callback the application frees them there: they stay the context's until it does.
  void* kept = D->clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0);
  REQUIRE(kept != nullptr);
  void* keptList[] = {kept};
  static std::atomic<int> calls{0}, pointersFreed{0};
  auto keep = [](cl_command_queue, cl_uint count, void**, void*) {
    pointersFreed += int(count);
    ++calls;
  };
  cl_event freeing = nullptr;
  CHECK(D->clEnqueueSVMFree(q, 1, keptList, keep, nullptr, 0, nullptr, &freeing) == CL_SUCCESS);
  REQUIRE(freeing != nullptr);
  CHECK(D->clWaitForEvents(1, &freeing) == CL_SUCCESS);
  CHECK(D->clReleaseEvent(freeing) == CL_SUCCESS);
  CHECK(calls == 1);
  CHECK(pointersFreed == 1);
  CHECK(D->clSetKernelArgSVMPointer(k, 0, kept) == CL_SUCCESS); // not freed by the callback
  D->clSVMFree(ctx, kept);
  CHECK(D->clSetKernelArgSVMPointer(k, 0, kept) == CL_INVALID_ARG_VALUE);
  // No pointers: the callback still runs, before the command's event completes.
  CHECK(D->clEnqueueSVMFree(q, 0, nullptr, keep, nullptr, 0, nullptr, &freeing) == CL_SUCCESS);
  REQUIRE(freeing != nullptr);
  CHECK(D->clWaitForEvents(1, &freeing) == CL_SUCCESS);
  CHECK(D->clReleaseEvent(freeing) == CL_SUCCESS);
  CHECK(calls == 2);
  CHECK(pointersFreed == 1);

  CHECK(D->clReleaseKernel(k) == CL_SUCCESS);
  CHECK(D->clReleaseProgram(p) == CL_SUCCESS);
  CHECK(D->clReleaseCommandQueue(q) == CL_SUCCESS);
  CHECK(D->clReleaseContext(ctx) == CL_SUCCESS);
}
