// An unmodified single-device program whose buffers end up spread over the devices: one split
// launch initialises `in`, then a one-work-group kernel updates slabs of `out` from the same
// slabs of `in`, always in the first quarter, hundreds of times. Prints a checksum of `out`.
#include "SingleDeviceProgram.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static const char* kSource = R"CLC(
__kernel void init(__global float* in) {
  int i = get_global_id(0);
  in[i] = (float)(i % 97);
}
__kernel void bump(__global const float* in, __global float* out, int slab) {
  int i = slab * get_global_size(0) + get_global_id(0);
  out[i] = out[i] * 0.5f + in[i];
}
)CLC";

int main(int argc, char** argv) {
  int launches = 400;
  const int n = 1 << 16, slab = 64, slabs = n / slab;
  for (int i = 1; i + 1 < argc; i += 2)
    if (!std::strcmp(argv[i], "--launches")) launches = std::atoi(argv[i + 1]);
  SingleDeviceProgram cl;
  CHECK(cl.open(kSource));
  cl_context context = cl.context;
  cl_command_queue queue = cl.queue;
  cl_program program = cl.program;
  cl_int err;
  cl_kernel init = clCreateKernel(program, "init", &err);
  CHECK(err);
  cl_kernel bump = clCreateKernel(program, "bump", &err);
  CHECK(err);
  std::vector<float> host(n, 1.0f);
  cl_mem in = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &err);
  CHECK(err);
  cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), host.data(), &err);
  CHECK(err);
  CHECK(clSetKernelArg(init, 0, sizeof in, &in));
  const size_t all = n, local = 64;
  CHECK(clEnqueueNDRangeKernel(queue, init, 1, nullptr, &all, &local, 0, nullptr, nullptr));
  CHECK(clSetKernelArg(bump, 0, sizeof in, &in));
  CHECK(clSetKernelArg(bump, 1, sizeof out, &out));
  const size_t one = slab;
  for (int l = 0; l < launches; ++l) {
    cl_int s = l % (slabs / 4);
    CHECK(clSetKernelArg(bump, 2, sizeof s, &s));
    CHECK(clEnqueueNDRangeKernel(queue, bump, 1, nullptr, &one, &one, 0, nullptr, nullptr));
  }
  CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr));
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += host[i] * double(1 + i % 13);
  std::printf("checksum %.6f\n", sum);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseKernel(init);
  clReleaseKernel(bump);
  return 0;
}
