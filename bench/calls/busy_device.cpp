// busy-device: keeps the first device of the first platform busy with long kernels for a while -
// the competing load of the "one device slowed during the run" experiment
// (scripts/gpu-slowed-device.sh): another process sharing the device, as on a shared machine.
#include <CL/cl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// A dependent chain per work-item: `rounds` iterations the compiler cannot fold away.
const char* kSource = R"(
__kernel void spin(__global float* out, uint rounds) {
  float x = (float)get_global_id(0);
  for (uint r = 0; r < rounds; ++r) x = x * 0.999f + 0.5f;
  out[get_global_id(0)] = x;
}
)";

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "%s failed: %d\n", what, err);
    std::exit(3);
  }
}

double nowS() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

} // namespace

int main(int argc, char** argv) {
  double seconds = 5, kernelMs = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--kernel-ms")) kernelMs = std::atof(argv[i + 1]);
  }
  cl_platform_id platform;
  check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
  cl_device_id device;
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  check(err, "clCreateCommandQueue");
  cl_program p = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  check(clBuildProgram(p, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel k = clCreateKernel(p, "spin", &err);
  check(err, "clCreateKernel");
  cl_uint units = 1;
  clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
  const size_t items = size_t(units) * 2048; // enough to occupy every compute unit
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, items * sizeof(float), nullptr, &err);
  check(err, "clCreateBuffer");
  check(clSetKernelArg(k, 0, sizeof out, &out), "clSetKernelArg");
  // Calibrate the rounds for kernels of about kernelMs.
  cl_uint rounds = 1000;
  for (;;) {
    check(clSetKernelArg(k, 1, sizeof rounds, &rounds), "clSetKernelArg");
    double t0 = nowS();
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr), "enqueue");
    check(clFinish(q), "clFinish");
    double ms = (nowS() - t0) * 1e3;
    if (ms >= kernelMs * 0.8 || rounds > (1u << 30)) break;
    rounds = cl_uint(rounds * (ms > 0.05 ? kernelMs / ms : 16.0));
  }
  // The start and end on the steady clock (ns), as clsplit's trace records its times.
  std::printf("busy-device: %zu items, %u rounds per kernel, for %.1f s, start_ns=%.0f\n", items, rounds,
              seconds, nowS() * 1e9);
  std::fflush(stdout);
  const double end = nowS() + seconds;
  unsigned kernels = 0;
  while (nowS() < end) {
    // Two in flight, so the device never idles between them.
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr), "enqueue");
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr), "enqueue");
    check(clFinish(q), "clFinish");
    kernels += 2;
  }
  std::printf("busy-device: %u kernels, end_ns=%.0f\n", kernels, nowS() * 1e9);
  return 0;
}
