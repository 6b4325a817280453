// What the adaptive tests' programs share: the set-up of an unmodified single-device OpenCL
// program (first platform, first device, one in-order queue, one program built from source).
#pragma once

#include <CL/cl.h>

#include <cstdio>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cl_int err_ = (call);                                                                                              \
    if (err_ != CL_SUCCESS) {                                                                                          \
      std::fprintf(stderr, "%s failed: %d\n", #call, err_);                                                            \
      return 3;                                                                                                        \
    }                                                                                                                  \
  } while (0)

struct SingleDeviceProgram {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;

  // CL_SUCCESS, or the first call's error (printed).
  cl_int open(const char* source) {
    cl_platform_id platform;
    CHECK(clGetPlatformIDs(1, &platform, nullptr));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr));
    cl_int err;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    CHECK(err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
    program = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
    CHECK(err);
    CHECK(clBuildProgram(program, 1, &device, "", nullptr, nullptr));
    return CL_SUCCESS;
  }
  ~SingleDeviceProgram() {
    if (program) clReleaseProgram(program);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
};
