// What the small benchmark programs of bench/calls/ share: an ordinary single-device OpenCL
// set-up (the first platform's first device, a context, a plain in-order queue, one kernel built
// from source), as an unmodified application would make it, plus their error check and clock.
#pragma once

#include <CL/cl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace clsplit::bench {

inline void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "%s failed: %d\n", what, err);
    std::exit(3);
  }
}

// Steady-clock seconds (the clock clsplit's trace uses, in ns).
inline double nowS() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct SingleDevice {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_kernel kernel = nullptr;
  char name[256] = {};

  SingleDevice(const char* source, const char* kernelName) {
    cl_platform_id platform;
    check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, nullptr);
    cl_int err;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    queue = clCreateCommandQueue(context, device, 0, &err);
    check(err, "clCreateCommandQueue");
    cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
    check(err, "clCreateProgramWithSource");
    check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
    kernel = clCreateKernel(program, kernelName, &err);
    check(err, "clCreateKernel");
    clReleaseProgram(program);
  }
  cl_mem buffer(cl_mem_flags flags, size_t bytes) const {
    cl_int err;
    cl_mem m = clCreateBuffer(context, flags, bytes, nullptr, &err);
    check(err, "clCreateBuffer");
    return m;
  }
};

} // namespace clsplit::bench
