// transfer-costs: how fast data moves through clsplit when a program's kernels make devices
// exchange their halves of a buffer (every element is read by the other device) - the worst case
// of cross-device traffic - plus the host write before and the read after. Run it unmodified,
// directly or through clsplit with a split strategy (e.g. static:0.5,0.5 over a GPU and the CPU),
// to compare CLSPLIT_PINNED_MB settings side by side. Verifies the result exactly.
#include "SingleDevice.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using clsplit::bench::check;
using clsplit::bench::nowS;

namespace {

// Each kernel reads the mirror element: under any split into two slices, each device needs
// the other's half.
const char* kSource = R"(
__kernel void mirror(__global const uint* in, __global uint* out, uint n) {
  size_t i = get_global_id(0);
  out[i] = in[n - 1 - i] + 1u;
}
)";

} // namespace

int main(int argc, char** argv) {
  unsigned mib = 64, iters = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--mib")) mib = unsigned(std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--iters")) iters = unsigned(std::atoi(argv[i + 1]));
  }
  const cl_uint n = cl_uint(size_t(mib) << 20) / sizeof(cl_uint);
  const size_t bytes = size_t(n) * sizeof(cl_uint);
  clsplit::bench::SingleDevice cl(kSource, "mirror");
  cl_command_queue q = cl.queue;
  cl_kernel k = cl.kernel;
  const char* name = cl.name;
  cl_mem a = cl.buffer(CL_MEM_READ_WRITE, bytes);
  cl_mem b = cl.buffer(CL_MEM_READ_WRITE, bytes);
  std::vector<cl_uint> host(n);
  for (cl_uint i = 0; i < n; ++i) host[i] = i * 2654435761u;
  auto run = [&](cl_mem in, cl_mem out) {
    check(clSetKernelArg(k, 0, sizeof in, &in), "clSetKernelArg");
    check(clSetKernelArg(k, 1, sizeof out, &out), "clSetKernelArg");
    check(clSetKernelArg(k, 2, sizeof n, &n), "clSetKernelArg");
    size_t global = n;
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), "clEnqueueNDRangeKernel");
  };
  std::printf("device: %s, %u MiB per buffer, %u iterations\n", name, mib, iters);
  // Warm-up (kernel analysis, first allocations, the partitioner's first split), not timed.
  check(clEnqueueWriteBuffer(q, a, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr), "write");
  run(a, b);
  run(b, a);
  check(clFinish(q), "clFinish");

  double t0 = nowS();
  check(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, bytes, host.data(), 0, nullptr, nullptr), "write");
  run(a, b); // the host's bytes reach the devices
  check(clFinish(q), "clFinish");
  double tWrite = nowS() - t0;
  t0 = nowS();
  for (unsigned i = 0; i < iters; ++i) {
    run(b, a);
    run(a, b);
  }
  check(clFinish(q), "clFinish");
  double tExchange = nowS() - t0;
  std::vector<cl_uint> result(n);
  t0 = nowS();
  check(clEnqueueReadBuffer(q, b, CL_TRUE, 0, bytes, result.data(), 0, nullptr, nullptr), "read");
  double tRead = nowS() - t0;
  // b = mirror(a) + 1 once, then (a = mirror(b) + 1, b = mirror(a) + 1) per iteration.
  size_t wrong = 0;
  for (cl_uint i = 0; i < n; ++i) wrong += result[i] != host[n - 1 - i] + 1u + 2u * iters;
  const double gb = double(bytes) / 1e9;
  std::printf("write + first kernel  %8.2f ms  (%6.2f GB/s of the buffer)\n", tWrite * 1e3, gb / tWrite);
  std::printf("exchange per kernel   %8.2f ms  (%6.2f GB/s of the buffer)\n", tExchange * 1e3 / (2 * iters),
              gb * 2 * iters / tExchange);
  std::printf("read back             %8.2f ms  (%6.2f GB/s)\n", tRead * 1e3, gb / tRead);
  std::printf("%s\n", wrong ? "WRONG" : "verified");
  return wrong ? 1 : 0;
}
