// An unmodified single-device program whose load moves during the run: each work-item loops
// cost[i] times, and the host moves the expensive half of `cost` from the front of the range to
// the back after --switch iterations. Prints a checksum of the output (to compare runs).
#include "SingleDeviceProgram.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static const char* kSource = R"CLC(
__kernel void work(__global const int* cost, __global float* out) {
  int i = get_global_id(0);
  float x = (float)(i & 255);
  for (int k = 0; k < cost[i]; ++k) x = x * 0.999f + 0.5f;
  out[i] = x;
}
)CLC";

int main(int argc, char** argv) {
  int iterations = 40, switchAt = 20, n = 8192, heavy = 3000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--iters")) iterations = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--switch")) switchAt = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--size")) n = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--heavy")) heavy = std::atoi(argv[i + 1]);
  }
  SingleDeviceProgram cl;
  CHECK(cl.open(kSource));
  cl_int err;
  cl_kernel kernel = clCreateKernel(cl.program, "work", &err);
  CHECK(err);
  std::vector<int> front(n), back(n);
  for (int i = 0; i < n; ++i) {
    front[i] = i < n / 2 ? heavy : heavy / 30;
    back[i] = i < n / 2 ? heavy / 30 : heavy;
  }
  cl_mem cost = clCreateBuffer(cl.context, CL_MEM_READ_ONLY, n * sizeof(int), nullptr, &err);
  CHECK(err);
  cl_mem out = clCreateBuffer(cl.context, CL_MEM_WRITE_ONLY, n * sizeof(float), nullptr, &err);
  CHECK(err);
  CHECK(clSetKernelArg(kernel, 0, sizeof cost, &cost));
  CHECK(clSetKernelArg(kernel, 1, sizeof out, &out));
  std::vector<float> result(n);
  unsigned long long checksum = 1469598103934665603ull;
  const size_t global = n, local = 64;
  for (int it = 0; it < iterations; ++it) {
    if (it == 0 || it == switchAt)
      CHECK(clEnqueueWriteBuffer(cl.queue, cost, CL_TRUE, 0, n * sizeof(int), (it < switchAt ? front : back).data(), 0,
                                 nullptr, nullptr));
    CHECK(clEnqueueNDRangeKernel(cl.queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clFinish(cl.queue)); // one time step at a time, as an iterative solver checking progress would
    if (it == switchAt - 1 || it == iterations - 1) {
      CHECK(clEnqueueReadBuffer(cl.queue, out, CL_TRUE, 0, n * sizeof(float), result.data(), 0, nullptr, nullptr));
      for (float v : result) {
        unsigned bits;
        std::memcpy(&bits, &v, sizeof bits);
        checksum = (checksum ^ bits) * 1099511628211ull;
      }
    }
  }
  std::printf("checksum %016llx\n", checksum);
  clReleaseMemObject(cost);
  clReleaseMemObject(out);
  clReleaseKernel(kernel);
  return 0;
}
