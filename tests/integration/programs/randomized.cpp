// A seeded random sequence of commands on a few buffers (kernels over random sub-ranges with
// global offsets, reads, writes, copies, fills, maps, rectangles, sub-buffers), each read
// printed as a checksum. Whatever way clsplit splits the kernels and places the bytes, every
// read must see what one device would have produced. `randomized SEED [STEPS]`.
#include "itest.h"

#include <cstdint>

using namespace itest;

static const char* kSource = R"CLC(
kernel void axpy(global uint* y, global const uint* x, uint a) {
  size_t i = get_global_id(0);
  y[i] = y[i] * 3u + a * x[i];
}
kernel void shift(global uint* out, global const uint* in, uint s, uint n) {
  size_t i = get_global_id(0);
  out[i] = in[(i + s) % n] ^ (uint)i;
}
kernel void stencil3(global uint* out, global const uint* in, uint n) {
  size_t i = get_global_id(0);
  uint l = i > 0 ? in[i - 1] : in[i];
  uint r = i + 1 < n ? in[i + 1] : in[i];
  out[i] = l + 2u * in[i] + r;
}
kernel void reverse(global uint* out, global const uint* in, uint n) {
  size_t i = get_global_id(0);
  out[i] = in[n - 1 - i] + 7u;
}
kernel void gatherEven(global uint* out, global const uint* in) {
  size_t i = get_global_id(0);
  out[i] = in[2 * i] * 5u;
}
kernel void scatterStride(global uint* out, global const uint* in) {
  size_t i = get_global_id(0);
  out[2 * i] = in[i] + 1u;
}
kernel void blockSum(global uint* out, global const uint* in, local uint* scratch) {
  size_t l = get_local_id(0), g = get_global_id(0);
  scratch[l] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint s = 0;
  for (size_t j = 0; j <= l; ++j) s += scratch[j];
  out[g] = s;
}
)CLC";

namespace {

struct Rng {
  uint64_t state;
  uint32_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  }
  uint32_t below(uint32_t n) { return next() % n; }
};

constexpr uint32_t kN = 4096; // elements per buffer
constexpr uint32_t kBuffers = 4;
constexpr size_t kBytes = kN * sizeof(uint32_t);

} // namespace

int main(int argc, char** argv) {
  uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  int steps = argc > 2 ? std::atoi(argv[2]) : 120;
  Env env = setup();
  cl_program program = buildProgram(env, kSource);
  const char* names[] = {"axpy", "shift", "stencil3", "reverse", "gatherEven", "scatterStride", "blockSum"};
  cl_kernel kernels[7];
  for (int k = 0; k < 7; ++k) kernels[k] = createKernel(program, names[k]);

  Rng rng{seed * 2654435761ull + 1};
  std::vector<uint32_t> hostBacking(kN); // the USE_HOST_PTR buffer's memory
  cl_mem buffers[kBuffers];
  for (uint32_t b = 0; b < kBuffers; ++b) {
    std::vector<uint32_t> init(kN);
    for (auto& v : init) v = rng.next() % 1000;
    if (b == 3) {
      hostBacking = init;
      buffers[b] = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, kBytes, hostBacking.data());
    } else {
      buffers[b] = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kBytes, init.data());
    }
  }
  // Sub-buffers: the upper half of buffer 0 and the middle half of buffer 1 (aligned).
  cl_uint alignBits = 0;
  CHECK(clGetDeviceInfo(env.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof alignBits, &alignBits, nullptr));
  std::vector<cl_mem> views(buffers, buffers + kBuffers);
  std::vector<uint32_t> viewLength(kBuffers, kN);
  if ((kBytes / 4) % (alignBits / 8) == 0) {
    for (auto [parent, origin] : {std::pair<uint32_t, size_t>{0, kBytes / 2}, {1, kBytes / 4}}) {
      cl_buffer_region r{origin, kBytes / 2};
      cl_int err = CL_SUCCESS;
      views.push_back(clCreateSubBuffer(buffers[parent], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err));
      CHECK(err);
      viewLength.push_back(kN / 2);
    }
  }
  const uint32_t viewCount = static_cast<uint32_t>(views.size());
  // Two views overlap when they share a root buffer (sub-buffers included).
  auto rootOf = [&](uint32_t v) { return v < kBuffers ? v : (v == kBuffers ? 0u : 1u); };

  std::vector<uint32_t> host(kN);
  for (int step = 0; step < steps; ++step) {
    uint32_t op = rng.below(10);
    uint32_t dst = rng.below(viewCount), src = rng.below(viewCount);
    while (rootOf(src) == rootOf(dst)) src = rng.below(viewCount);
    uint32_t n = std::min(viewLength[dst], viewLength[src]);
    // A range of whole 64-element groups inside [0, n).
    uint32_t groups = n / 64, first = rng.below(groups), count = 1 + rng.below(groups - first);
    size_t offset = size_t(first) * 64, size = size_t(count) * 64;
    std::printf("%3d: ", step);
    if (op <= 4) { // a kernel
      uint32_t k = rng.below(7);
      cl_kernel kernel = kernels[k];
      size_t local = 32;
      bool withLocal = k == 6 || rng.below(3) == 0;
      SET_ARG(kernel, 0, views[dst]);
      SET_ARG(kernel, 1, views[src]);
      switch (k) {
      case 0:
        SET_ARG(kernel, 2, cl_uint(rng.below(17)));
        break;
      case 1:
        SET_ARG(kernel, 2, cl_uint(rng.below(n)));
        SET_ARG(kernel, 3, cl_uint(n));
        break;
      case 2:
        SET_ARG(kernel, 2, cl_uint(n));
        break;
      case 3:
        SET_ARG(kernel, 2, cl_uint(n));
        break;
      case 4:
      case 5:
        offset /= 2;
        size = std::max<size_t>(64, size / 2 / 64 * 64);
        break; // i < n / 2
      case 6:
        CHECK(clSetKernelArg(kernel, 2, local * sizeof(cl_uint), nullptr));
        break;
      }
      size_t limit = k == 4 || k == 5 ? n / 2 : n; // items the kernel may touch
      if (offset + size > limit) offset = limit - size;
      CHECK(clEnqueueNDRangeKernel(env.queue, kernel, 1, &offset, &size, withLocal ? &local : nullptr, 0, nullptr,
                                   nullptr));
      std::printf("%s view %u <- view %u, items [%zu, %zu)%s\n", names[k], dst, src, offset, offset + size,
                  withLocal ? " local 32" : "");
    } else if (op == 5) { // a host write
      for (size_t i = 0; i < size; ++i) host[i] = rng.next() % 100000;
      CHECK(clEnqueueWriteBuffer(env.queue, views[dst], rng.below(2), offset * 4, size * 4, host.data(), 0, nullptr,
                                 nullptr));
      CHECK(clFinish(env.queue)); // `host` is reused
      std::printf("write view %u [%zu, %zu)\n", dst, offset, offset + size);
    } else if (op == 6) { // a read
      std::vector<uint32_t> out(size);
      CHECK(clEnqueueReadBuffer(env.queue, views[dst], CL_TRUE, offset * 4, size * 4, out.data(), 0, nullptr, nullptr));
      std::printf("read view %u [%zu, %zu) ", dst, offset, offset + size);
      printChecksum("", out);
    } else if (op == 7) { // a copy or a fill
      if (rng.below(2)) {
        size_t srcOffset = size_t(rng.below(n - size + 1));
        CHECK(clEnqueueCopyBuffer(env.queue, views[src], views[dst], srcOffset * 4, offset * 4, size * 4, 0, nullptr,
                                  nullptr));
        std::printf("copy view %u [%zu, +%zu) -> view %u [%zu)\n", src, srcOffset, size, dst, offset);
      } else {
        cl_uint pattern[2] = {rng.next(), rng.next()};
        size_t patternSize = rng.below(2) ? 4 : 8;
        CHECK(clEnqueueFillBuffer(env.queue, views[dst], pattern, patternSize, offset * 4, size * 4, 0, nullptr,
                                  nullptr));
        std::printf("fill view %u [%zu, %zu) with a %zu-byte pattern\n", dst, offset, offset + size, patternSize);
      }
    } else if (op == 8) { // a map: read it, or change it
      bool write = rng.below(2);
      cl_int err = CL_SUCCESS;
      auto* p = static_cast<uint32_t*>(clEnqueueMapBuffer(env.queue, views[dst], CL_TRUE,
                                                          write ? CL_MAP_READ | CL_MAP_WRITE : CL_MAP_READ, offset * 4,
                                                          size * 4, 0, nullptr, nullptr, &err));
      CHECK(err);
      if (!p) return finish();
      std::printf("map view %u [%zu, %zu) ", dst, offset, offset + size);
      printChecksum(write ? "(then +1 each)" : "", p, size * 4);
      if (write)
        for (size_t i = 0; i < size; ++i) p[i] += 1;
      CHECK(clEnqueueUnmapMemObject(env.queue, views[dst], p, 0, nullptr, nullptr));
    } else { // a rectangle read: rows of 64 elements, every other row
      size_t rows = std::max<size_t>(1, size / 128);
      size_t origin[3] = {0, offset / 64, 0}, hostOrigin[3] = {0, 0, 0}, region[3] = {64 * 4, rows, 1};
      std::vector<uint32_t> out(64 * rows);
      CHECK(clEnqueueReadBufferRect(env.queue, views[dst], CL_TRUE, origin, hostOrigin, region, 64 * 4, 0, 0, 0,
                                    out.data(), 0, nullptr, nullptr));
      std::printf("rect read view %u rows from %zu, %zu rows ", dst, offset / 64, rows);
      printChecksum("", out);
    }
  }
  // Everything, at the end.
  for (uint32_t b = 0; b < kBuffers; ++b) {
    std::vector<uint32_t> out(kN);
    CHECK(clEnqueueReadBuffer(env.queue, buffers[b], CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
    std::printf("buffer %u ", b);
    printChecksum("at the end", out);
  }
  cl_int err = CL_SUCCESS;
  void* mapped = clEnqueueMapBuffer(env.queue, buffers[3], CL_TRUE, CL_MAP_READ, 0, kBytes, 0, nullptr, nullptr, &err);
  CHECK(err);
  expect(mapped == hostBacking.data(), "the USE_HOST_PTR buffer maps to its host memory");
  printChecksum("USE_HOST_PTR memory while mapped", hostBacking);
  CHECK(clEnqueueUnmapMemObject(env.queue, buffers[3], mapped, 0, nullptr, nullptr));
  CHECK(clFinish(env.queue));

  for (uint32_t v = kBuffers; v < viewCount; ++v) CHECK(clReleaseMemObject(views[v]));
  for (auto b : buffers) CHECK(clReleaseMemObject(b));
  for (auto k : kernels) CHECK(clReleaseKernel(k));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
