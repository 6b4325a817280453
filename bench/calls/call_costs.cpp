// call-costs: host cost of the OpenCL calls clsplit makes per launch, measured on a real driver
// (the first platform's first device, or --platform/--device): what a launch through clsplit
// must add at least, and which calls to avoid on the enqueue path.
#include <CL/cl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

const char* kSource = "__kernel void k(__global float* a, ulong4 o) { a[get_global_id(0)] += 1.0f; }";

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "%s failed: %d\n", what, err);
    std::exit(3);
  }
}

double nowUs() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void CL_CALLBACK nothing(cl_event, cl_int, void*) {}

} // namespace

int main(int argc, char** argv) {
  unsigned platformIndex = 0, deviceIndex = 0, n = 2000;
  bool profiling = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--platform")) platformIndex = unsigned(std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--device")) deviceIndex = unsigned(std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--count")) n = unsigned(std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--profiling")) profiling = std::atoi(argv[i + 1]) != 0;
  }
  cl_uint np = 0;
  check(clGetPlatformIDs(0, nullptr, &np), "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(np);
  check(clGetPlatformIDs(np, platforms.data(), nullptr), "clGetPlatformIDs");
  cl_uint nd = 0;
  check(clGetDeviceIDs(platforms.at(platformIndex), CL_DEVICE_TYPE_ALL, 0, nullptr, &nd), "clGetDeviceIDs");
  std::vector<cl_device_id> devices(nd);
  check(clGetDeviceIDs(platforms[platformIndex], CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr), "clGetDeviceIDs");
  cl_device_id device = devices.at(deviceIndex);
  char name[256] = {};
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, nullptr);
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  // Without profiling by default, as most programs create their queues (through clsplit, a
  // profiling queue gets an event per real command: the application may ask for the times).
  cl_command_queue q = clCreateCommandQueue(ctx, device, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
  check(err, "clCreateCommandQueue");
  cl_program p = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  check(clBuildProgram(p, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel k = clCreateKernel(p, "k", &err);
  check(err, "clCreateKernel");
  const size_t items = 4096;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, items * sizeof(float), nullptr, &err);
  check(err, "clCreateBuffer");
  cl_ulong hidden[4] = {0, 0, 0, 0};
  check(clSetKernelArg(k, 0, sizeof buf, &buf), "clSetKernelArg");
  check(clSetKernelArg(k, 1, sizeof hidden, hidden), "clSetKernelArg");
  std::vector<cl_event> events(n);
  std::printf("device: %s, %u calls each\n", name, n);

  auto report = [&](const char* what, double t0) { std::printf("%-44s %8.2f us/call\n", what, (nowUs() - t0) / n); };
  double t0 = nowUs();
  for (unsigned i = 0; i < n; ++i)
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr), "enqueue");
  report("clEnqueueNDRangeKernel (no event)", t0);
  clFinish(q);
  t0 = nowUs();
  for (unsigned i = 0; i < n; ++i)
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, &events[i]), "enqueue");
  report("clEnqueueNDRangeKernel (event)", t0);
  t0 = nowUs();
  cl_int status;
  for (unsigned i = 0; i < n; ++i)
    clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
  report("clGetEventInfo(status)", t0);
  t0 = nowUs();
  for (unsigned i = 0; i < n; ++i) clSetEventCallback(events[i], CL_COMPLETE, nothing, nullptr);
  report("clSetEventCallback", t0);
  clFinish(q);
  for (auto e : events) clReleaseEvent(e);
  t0 = nowUs();
  for (unsigned i = 0; i < n; ++i) {
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, &events[i]), "enqueue");
    if (i) check(clReleaseEvent(events[i - 1]), "release");
  }
  report("enqueue (event) + release previous event", t0);
  clFinish(q);
  clReleaseEvent(events[n - 1]);
  t0 = nowUs();
  for (unsigned i = 0; i < n; ++i) {
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, &events[i]), "enqueue");
    clSetEventCallback(events[i], CL_COMPLETE, nothing, nullptr);
    clFlush(q);
  }
  report("enqueue (event) + callback + clFlush", t0);
  clFinish(q);
  for (auto e : events) clReleaseEvent(e);
  // The adaptive strategies time one settled launch in 8-64 (an event and a completion
  // callback): whether that also slows the launches between them.
  for (unsigned every : {64u, 8u}) {
    t0 = nowUs();
    for (unsigned i = 0; i < n; ++i) {
      const bool sampled = i % every == 0;
      check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, sampled ? &events[i] : nullptr),
            "enqueue");
      if (sampled) clSetEventCallback(events[i], CL_COMPLETE, nothing, nullptr);
    }
    report(every == 64 ? "enqueue, 1 in 64 with event + callback" : "enqueue, 1 in 8 with event + callback", t0);
    clFinish(q);
    for (unsigned i = 0; i < n; i += every) clReleaseEvent(events[i]);
    t0 = nowUs();
    for (unsigned i = 0; i < n; ++i)
      check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr), "enqueue");
    report("clEnqueueNDRangeKernel (no event), again", t0);
    clFinish(q);
  }
  t0 = nowUs();
  for (unsigned i = 0; i < n; ++i) clFlush(q);
  report("clFlush (idle queue)", t0);
  t0 = nowUs();
  for (unsigned i = 0; i < n; ++i) {
    hidden[0] = i;
    clSetKernelArg(k, 1, sizeof hidden, hidden);
  }
  report("clSetKernelArg (32 bytes)", t0);
  t0 = nowUs();
  for (unsigned i = 0; i < n; ++i) {
    cl_event u = clCreateUserEvent(ctx, &err);
    clSetUserEventStatus(u, CL_COMPLETE);
    clReleaseEvent(u);
  }
  report("user event create + complete + release", t0);
  clFinish(q);
  return 0;
}
