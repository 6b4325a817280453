// A closed-binary stand-in for the hint-file test: a scatter through a sorted index array, which
// clsplit splits only when told (by pragma or hint file) that the index array is increasing.
#include "../../integration/programs/itest.h"

using namespace itest;

namespace {
const char* kSource = R"(
__kernel void scatter(__global const int* pos, __global const int* in, __global int* out) {
  int i = get_global_id(0);
  out[pos[i]] = in[i] * 2 + 1;
}
)";
} // namespace

int main(int argc, char** argv) {
  const size_t n = 1 << 14, iterations = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4;
  Env env = setup();
  std::vector<int> pos(n), in(n), out(2 * n, -1);
  for (size_t i = 0; i < n; ++i) {
    pos[i] = static_cast<int>(2 * i + (i % 2)); // increasing, with gaps
    in[i] = static_cast<int>(i * 7 % 1000);
  }
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(env.context, 1, &kSource, nullptr, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 0, nullptr, nullptr, nullptr, nullptr));
  cl_kernel kernel = clCreateKernel(program, "scatter", &err);
  CHECK(err);
  auto buffer = [&](std::vector<int>& v) {
    cl_mem m =
        clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(int), v.data(), &err);
    CHECK(err);
    return m;
  };
  cl_mem dPos = buffer(pos), dIn = buffer(in), dOut = buffer(out);
  SET_ARG(kernel, 0, dPos);
  SET_ARG(kernel, 1, dIn);
  SET_ARG(kernel, 2, dOut);
  for (size_t it = 0; it < iterations; ++it)
    CHECK(clEnqueueNDRangeKernel(env.queue, kernel, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(env.queue, dOut, CL_TRUE, 0, out.size() * sizeof(int), out.data(), 0, nullptr, nullptr));
  bool ok = true;
  std::vector<int> expected(2 * n, -1);
  for (size_t i = 0; i < n; ++i) expected[pos[i]] = in[i] * 2 + 1;
  ok = out == expected;
  std::printf("verified=%d\n", ok ? 1 : 0);
  for (cl_mem m : {dPos, dIn, dOut}) clReleaseMemObject(m);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  return ok && failures() == 0 ? 0 : 1;
}
