// An unmodified single-device program whose buffers end up spread over the devices: one split
// launch initialises `in`, then a one-work-group kernel updates slabs of `out` from the same
// slabs of `in`, always in the first quarter, hundreds of times. Prints a checksum of `out`.
// --chained: the split launch initialises `out` too, a one-work-group kernel then reads both
// buffers whole (they end up whole on its device, halves still held by the other), and each
// slab update waits for the previous one's event (an application wait list).
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
__kernel void init2(__global float* in, __global float* out) {
  int i = get_global_id(0);
  in[i] = (float)(i % 97);
  out[i] = (float)(i % 5);
}
__kernel void total(__global const float* in, __global const float* out, __global float* sum, int n) {
  float s = 0.0f;
  for (int i = get_local_id(0); i < n; i += get_local_size(0)) s += in[i] + out[i];
  sum[get_local_id(0)] = s;
}
__kernel void bump(__global const float* in, __global float* out, int slab) {
  int i = slab * get_global_size(0) + get_global_id(0);
  out[i] = out[i] * 0.5f + in[i];
}
)CLC";

int main(int argc, char** argv) {
  int launches = 400;
  bool chained = false;
  const int n = 1 << 16, slab = 64, slabs = n / slab;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--launches") && i + 1 < argc)
      launches = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--chained"))
      chained = true;
  SingleDeviceProgram cl;
  CHECK(cl.open(kSource));
  cl_int err;
  cl_kernel init = clCreateKernel(cl.program, "init", &err);
  CHECK(err);
  cl_kernel bump = clCreateKernel(cl.program, "bump", &err);
  CHECK(err);
  std::vector<float> host(n, 1.0f);
  cl_mem in = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &err);
  CHECK(err);
  cl_mem out =
      clCreateBuffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), host.data(), &err);
  CHECK(err);
  const size_t all = n, local = 64, one = slab;
  cl_mem partial = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, slab * sizeof(float), nullptr, &err);
  CHECK(err);
  if (!chained) {
    CHECK(clSetKernelArg(init, 0, sizeof in, &in));
    CHECK(clEnqueueNDRangeKernel(cl.queue, init, 1, nullptr, &all, &local, 0, nullptr, nullptr));
  } else {
    cl_kernel init2 = clCreateKernel(cl.program, "init2", &err);
    CHECK(err);
    cl_kernel total = clCreateKernel(cl.program, "total", &err);
    CHECK(err);
    CHECK(clSetKernelArg(init2, 0, sizeof in, &in));
    CHECK(clSetKernelArg(init2, 1, sizeof out, &out));
    CHECK(clEnqueueNDRangeKernel(cl.queue, init2, 1, nullptr, &all, &local, 0, nullptr, nullptr));
    CHECK(clSetKernelArg(total, 0, sizeof in, &in));
    CHECK(clSetKernelArg(total, 1, sizeof out, &out));
    CHECK(clSetKernelArg(total, 2, sizeof partial, &partial));
    CHECK(clSetKernelArg(total, 3, sizeof n, &n));
    CHECK(clEnqueueNDRangeKernel(cl.queue, total, 1, nullptr, &one, &one, 0, nullptr, nullptr));
    clReleaseKernel(init2);
    clReleaseKernel(total);
  }
  CHECK(clSetKernelArg(bump, 0, sizeof in, &in));
  CHECK(clSetKernelArg(bump, 1, sizeof out, &out));
  cl_event previous = nullptr;
  for (int l = 0; l < launches; ++l) {
    cl_int s = l % (slabs / 4);
    CHECK(clSetKernelArg(bump, 2, sizeof s, &s));
    cl_event done = nullptr;
    CHECK(clEnqueueNDRangeKernel(cl.queue, bump, 1, nullptr, &one, &one, previous ? 1 : 0,
                                 previous ? &previous : nullptr, chained ? &done : nullptr));
    if (previous) clReleaseEvent(previous);
    previous = done;
  }
  if (previous) clReleaseEvent(previous);
  CHECK(clEnqueueReadBuffer(cl.queue, out, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr));
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += host[i] * double(1 + i % 13);
  std::printf("checksum %.6f\n", sum);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseMemObject(partial);
  clReleaseKernel(init);
  clReleaseKernel(bump);
  return 0;
}
