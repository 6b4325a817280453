// busy-device: keeps the first device of the first platform busy with compute-bound kernels for
// a while. Two uses in the slowed-device experiment (bench/harness/experiments/slowed_device.py):
// the competing load (another process sharing a device), and, with few work-items (--items), the
// application itself, on which a GPU and a CPU are comparable (long dependent chains per item:
// latency-bound on the GPU), run through clsplit. Every kernel's output is verified.
#include "SingleDevice.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using clsplit::bench::check;
using clsplit::bench::nowS;

namespace {

// A linear congruential chain per work-item: exact integer arithmetic on every device, and no
// compiler folds the loop.
const char* kSource = R"(
__kernel void spin(__global uint* out, uint rounds, uint salt) {
  uint x = (uint)get_global_id(0) ^ salt;
  for (uint r = 0; r < rounds; ++r) x = x * 1664525u + 1013904223u;
  out[get_global_id(0)] = x;
}
)";

// x -> a x + c applied `rounds` times, by squaring (what the kernel must have computed).
cl_uint jump(cl_uint x, cl_uint rounds) {
  cl_uint a = 1664525u, c = 1013904223u, accA = 1, accC = 0;
  for (; rounds; rounds >>= 1) {
    if (rounds & 1) accA *= a, accC = accC * a + c;
    c = c * (a + 1), a *= a;
  }
  return accA * x + accC;
}

} // namespace

int main(int argc, char** argv) {
  double seconds = 5, kernelMs = 10;
  size_t items = 0, local = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--kernel-ms")) kernelMs = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--items")) items = size_t(std::atoll(argv[i + 1]));
    if (!std::strcmp(argv[i], "--local")) local = size_t(std::atoll(argv[i + 1]));
  }
  clsplit::bench::SingleDevice cl(kSource, "spin");
  cl_device_id device = cl.device;
  cl_command_queue q = cl.queue;
  cl_kernel k = cl.kernel;
  const char* name = cl.name;
  if (!items) {
    cl_uint units = 1;
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
    items = size_t(units) * 2048; // enough to occupy every compute unit of a GPU
  }
  cl_mem out = cl.buffer(CL_MEM_WRITE_ONLY, items * sizeof(cl_uint));
  check(clSetKernelArg(k, 0, sizeof out, &out), "clSetKernelArg");
  cl_uint salt = 0;
  auto launch = [&](cl_uint rounds) {
    check(clSetKernelArg(k, 1, sizeof rounds, &rounds), "clSetKernelArg");
    check(clSetKernelArg(k, 2, sizeof salt, &salt), "clSetKernelArg");
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, local ? &local : nullptr, 0, nullptr, nullptr), "enqueue");
    ++salt;
  };
  // Calibrate the rounds for kernels of about kernelMs (after a warm-up: first launches build).
  cl_uint rounds = 1000;
  launch(rounds);
  check(clFinish(q), "clFinish");
  for (;;) {
    double t0 = nowS();
    launch(rounds);
    check(clFinish(q), "clFinish");
    double ms = (nowS() - t0) * 1e3;
    if (ms >= kernelMs * 0.8 || rounds > (1u << 30)) break;
    rounds = cl_uint(rounds * (ms > 0.05 ? kernelMs / ms : 16.0));
  }
  // The start and end on the steady clock (ns), as clsplit's trace records its times.
  std::printf("busy-device: %s, %zu items, %u rounds per kernel, for %.1f s, start_ns=%.0f\n", name, items, rounds,
              seconds, nowS() * 1e9);
  std::fflush(stdout);
  const double end = nowS() + seconds;
  unsigned kernels = 0;
  std::vector<cl_uint> result(items);
  size_t wrong = 0;
  while (nowS() < end) {
    // Two in flight, so the device never idles between them; the second one's output checked.
    launch(rounds);
    launch(rounds);
    check(clEnqueueReadBuffer(q, out, CL_TRUE, 0, items * sizeof(cl_uint), result.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    for (size_t i = 0; i < items; ++i) wrong += result[i] != jump(cl_uint(i) ^ (salt - 1), rounds);
    kernels += 2;
  }
  std::printf("busy-device: %u kernels, %s, end_ns=%.0f\n", kernels, wrong ? "WRONG" : "verified", nowS() * 1e9);
  return wrong ? 1 : 0;
}
