// A sequence of kernels whose data must move between devices whenever consecutive launches
// run on different ones (or on different slices): 1-D and 2-D stencils in ping-pong, a kernel
// reading a whole buffer, a scatter through a permutation, partial writes with a global
// offset, atomics, a transpose, a block reversal whose over-approximated writes overlap between
// slices (computation replication), host reads and writes in between. Each phase prints a
// checksum. `alternate small` runs tiny sizes (for slow simulators).
#include "itest.h"

using namespace itest;

static const char* kSource = R"CLC(
kernel void stencil1d(global const int* in, global int* out, int n) {
  int i = (int)get_global_id(0);
  int l = i > 0 ? in[i - 1] : in[n - 1];
  int r = i < n - 1 ? in[i + 1] : in[0];
  out[i] = (l + 2 * in[i] + r) / 4 + (i & 3);
}

kernel void sampleAll(global const int* in, global int* out, int n) {
  int i = (int)get_global_id(0);
  int s = 0;
  for (int j = i % 7; j < n; j += 97) s += in[j];
  out[i] = s - in[i];
}

kernel void scatter(global const int* in, global const int* perm, global int* out) {
  int i = (int)get_global_id(0);
  out[perm[i]] = in[i] * 3 - i;
}

kernel void partial(global int* a, int k) {
  int i = (int)get_global_id(0);
  a[i] = a[i] + k * (i % 11);
}

kernel void histogram(global const int* in, global int* bins, int nbins) {
  int v = in[get_global_id(0)];
  int b = ((v % nbins) + nbins) % nbins;
  atomic_add(&bins[b], 1);
}

kernel void stencil2d(global const int* in, global int* out, int w, int h) {
  int x = (int)get_global_id(0), y = (int)get_global_id(1);
  int c = in[y * w + x];
  int up = y > 0 ? in[(y - 1) * w + x] : c;
  int down = y < h - 1 ? in[(y + 1) * w + x] : c;
  int left = x > 0 ? in[y * w + x - 1] : c;
  int right = x < w - 1 ? in[y * w + x + 1] : c;
  out[y * w + x] = (up + down + left + right + 4 * c) / 8 + ((x ^ y) & 1);
}

kernel void transpose(global const int* in, global int* out, int w, int h) {
  int x = (int)get_global_id(0), y = (int)get_global_id(1);
  out[x * h + y] = in[y * w + x];
}

// Reverses every block of 4: the analysis bounds i - i%4 + 3 - i%4 by [i-3, i+3], so slices'
// write regions overlap by a few elements; every element still has one writer.
kernel void reverseBlocks(global const int* in, global int* out) {
  int i = (int)get_global_id(0);
  out[i - (i % 4) + 3 - (i % 4)] = in[i] + (i & 7);
}

kernel void rowSums(global const int* in, global int* sums, int w) {
  int y = (int)get_global_id(0);
  int s = 0;
  for (int x = 0; x < w; ++x) s += in[y * w + x] * (x + 1);
  sums[y] = s;
}
)CLC";

int main(int argc, char** argv) {
  bool small = argc > 1 && std::strcmp(argv[1], "small") == 0;
  const int n = small ? 256 : 4096;
  const int w = small ? 16 : 64, h = small ? 12 : 48;
  const int iterations = small ? 3 : 8;
  const size_t bytes = n * sizeof(int), gridBytes = size_t(w) * h * sizeof(int);
  Env env = setup();
  cl_program program = buildProgram(env, kSource);
  cl_kernel stencil1d = createKernel(program, "stencil1d");
  cl_kernel sampleAll = createKernel(program, "sampleAll");
  cl_kernel scatter = createKernel(program, "scatter");
  cl_kernel partial = createKernel(program, "partial");
  cl_kernel histogram = createKernel(program, "histogram");
  cl_kernel stencil2d = createKernel(program, "stencil2d");
  cl_kernel transpose = createKernel(program, "transpose");
  cl_kernel rowSums = createKernel(program, "rowSums");
  cl_kernel reverseBlocks = createKernel(program, "reverseBlocks");

  std::vector<int> init(n), perm(n);
  for (int i = 0; i < n; ++i) {
    init[i] = (i * 7919) % 1000 - 500;
    perm[i] = static_cast<int>((static_cast<long long>(i) * 37 + 11) % n); // 37 is coprime with n
  }
  cl_mem a = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, init.data());
  cl_mem b = createBuffer(env.context, CL_MEM_READ_WRITE, bytes);
  cl_mem c = createBuffer(env.context, CL_MEM_READ_WRITE, bytes);
  cl_mem p = createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, perm.data());
  std::vector<int> out(n);
  auto show = [&](const char* label, cl_mem m) {
    CHECK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr));
    printChecksum(label, out);
  };
  const size_t global = n;

  // 1. A 1-D stencil in ping-pong (halos move between slices), with and without a local size.
  for (int it = 0; it < iterations; ++it) {
    cl_mem from = it % 2 ? b : a, to = it % 2 ? a : b;
    SET_ARG(stencil1d, 0, from);
    SET_ARG(stencil1d, 1, to);
    SET_ARG(stencil1d, 2, n);
    size_t local = 32;
    CHECK(clEnqueueNDRangeKernel(env.queue, stencil1d, 1, nullptr, &global, it % 3 == 0 ? &local : nullptr, 0, nullptr,
                                 nullptr));
  }
  show("after 1-D stencil", iterations % 2 ? b : a);
  cl_mem latest = iterations % 2 ? b : a, other = iterations % 2 ? a : b;

  // 2. Every item reads all over the buffer; then a host write into the middle; again.
  SET_ARG(sampleAll, 0, latest);
  SET_ARG(sampleAll, 1, c);
  SET_ARG(sampleAll, 2, n);
  CHECK(clEnqueueNDRangeKernel(env.queue, sampleAll, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  show("sampleAll", c);
  std::vector<int> patch(n / 4);
  for (int i = 0; i < n / 4; ++i) patch[i] = i * i % 313;
  CHECK(clEnqueueWriteBuffer(env.queue, latest, CL_FALSE, n / 2 * sizeof(int), patch.size() * sizeof(int), patch.data(),
                             0, nullptr, nullptr));
  CHECK(clEnqueueNDRangeKernel(env.queue, sampleAll, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  show("sampleAll after a host write", c);

  // 3. A scatter through a permutation (not provably sliceable), then a stencil reading it.
  SET_ARG(scatter, 0, c);
  SET_ARG(scatter, 1, p);
  SET_ARG(scatter, 2, other);
  CHECK(clEnqueueNDRangeKernel(env.queue, scatter, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  SET_ARG(stencil1d, 0, other);
  SET_ARG(stencil1d, 1, latest);
  SET_ARG(stencil1d, 2, n);
  CHECK(clEnqueueNDRangeKernel(env.queue, stencil1d, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  show("scatter then stencil", latest);

  // 4. Partial updates through global offsets (two halves, then a middle third), host reads of
  //    a slice in between.
  size_t half = n / 2, offset = n / 2;
  SET_ARG(partial, 0, latest);
  SET_ARG(partial, 1, 5);
  CHECK(clEnqueueNDRangeKernel(env.queue, partial, 1, &offset, &half, nullptr, 0, nullptr, nullptr));
  std::vector<int> slice(n / 8);
  CHECK(clEnqueueReadBuffer(env.queue, latest, CL_TRUE, (n / 2 + n / 16) * sizeof(int), slice.size() * sizeof(int),
                            slice.data(), 0, nullptr, nullptr));
  printChecksum("slice after the upper half changed", slice);
  SET_ARG(partial, 1, -3);
  size_t zero = 0;
  CHECK(clEnqueueNDRangeKernel(env.queue, partial, 1, &zero, &half, nullptr, 0, nullptr, nullptr));
  size_t third = n / 4, thirdOffset = n / 3 - n / 3 % 4;
  SET_ARG(partial, 1, 100);
  CHECK(clEnqueueNDRangeKernel(env.queue, partial, 1, &thirdOffset, &third, nullptr, 0, nullptr, nullptr));
  show("after partial updates", latest);

  // 4b. A non-blocking read, then at once a kernel overwriting what it reads: the read must see
  //     the data as it was (in-order), wherever the bytes live.
  std::vector<int> before(n, -1);
  cl_event readBefore = nullptr;
  CHECK(clEnqueueReadBuffer(env.queue, latest, CL_FALSE, 0, bytes, before.data(), 0, nullptr, &readBefore));
  SET_ARG(partial, 0, latest);
  SET_ARG(partial, 1, 1000);
  CHECK(clEnqueueNDRangeKernel(env.queue, partial, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  CHECK(clWaitForEvents(1, &readBefore));
  CHECK(clReleaseEvent(readBefore));
  printChecksum("read issued before an overwriting kernel", before);
  show("after the overwriting kernel", latest);

  // 5. Atomics into a few bins.
  std::vector<int> zeros(16, 0);
  cl_mem bins =
      createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.size() * sizeof(int), zeros.data());
  SET_ARG(histogram, 0, latest);
  SET_ARG(histogram, 1, bins);
  SET_ARG(histogram, 2, 16);
  CHECK(clEnqueueNDRangeKernel(env.queue, histogram, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  SET_ARG(histogram, 0, c);
  CHECK(clEnqueueNDRangeKernel(env.queue, histogram, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  std::vector<int> binValues(16);
  CHECK(clEnqueueReadBuffer(env.queue, bins, CL_TRUE, 0, 16 * sizeof(int), binValues.data(), 0, nullptr, nullptr));
  printInts("histogram", binValues.data(), 16);

  // 6. A 2-D stencil in ping-pong, a transpose, row sums of the transpose.
  std::vector<int> grid(size_t(w) * h);
  for (size_t i = 0; i < grid.size(); ++i) grid[i] = static_cast<int>((i * 131) % 977);
  cl_mem g0 = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, gridBytes, grid.data());
  cl_mem g1 = createBuffer(env.context, CL_MEM_READ_WRITE, gridBytes);
  size_t range2[2] = {size_t(w), size_t(h)}, local2[2] = {8, 4};
  for (int it = 0; it < iterations; ++it) {
    SET_ARG(stencil2d, 0, it % 2 ? g1 : g0);
    SET_ARG(stencil2d, 1, it % 2 ? g0 : g1);
    SET_ARG(stencil2d, 2, w);
    SET_ARG(stencil2d, 3, h);
    CHECK(clEnqueueNDRangeKernel(env.queue, stencil2d, 2, nullptr, range2, it % 2 ? local2 : nullptr, 0, nullptr,
                                 nullptr));
    if (it == 1) { // the host changes one row between iterations
      std::vector<int> row(w, 77);
      CHECK(clEnqueueWriteBuffer(env.queue, g0, CL_TRUE, size_t(h / 2) * w * sizeof(int), w * sizeof(int), row.data(),
                                 0, nullptr, nullptr));
    }
  }
  cl_mem g = iterations % 2 ? g1 : g0, t = iterations % 2 ? g0 : g1;
  SET_ARG(transpose, 0, g);
  SET_ARG(transpose, 1, t);
  SET_ARG(transpose, 2, w);
  SET_ARG(transpose, 3, h);
  CHECK(clEnqueueNDRangeKernel(env.queue, transpose, 2, nullptr, range2, nullptr, 0, nullptr, nullptr));
  cl_mem sums = createBuffer(env.context, CL_MEM_READ_WRITE, w * sizeof(int));
  SET_ARG(rowSums, 0, t);
  SET_ARG(rowSums, 1, sums);
  SET_ARG(rowSums, 2, h);
  size_t rows = w;
  CHECK(clEnqueueNDRangeKernel(env.queue, rowSums, 1, nullptr, &rows, nullptr, 0, nullptr, nullptr));
  std::vector<int> gridOut(size_t(w) * h), sumOut(w);
  CHECK(clEnqueueReadBuffer(env.queue, g, CL_TRUE, 0, gridBytes, gridOut.data(), 0, nullptr, nullptr));
  printChecksum("2-D stencil", gridOut);
  CHECK(clEnqueueReadBuffer(env.queue, t, CL_TRUE, 0, gridBytes, gridOut.data(), 0, nullptr, nullptr));
  printChecksum("transpose", gridOut);
  CHECK(clEnqueueReadBuffer(env.queue, sums, CL_TRUE, 0, w * sizeof(int), sumOut.data(), 0, nullptr, nullptr));
  printChecksum("row sums of the transpose", sumOut);

  // 7. Block reversal in ping-pong (replicated work-groups at slice boundaries), then a stencil
  //    reading its result across the boundaries.
  for (int it = 0; it < iterations; ++it) {
    SET_ARG(reverseBlocks, 0, it % 2 ? c : latest);
    SET_ARG(reverseBlocks, 1, it % 2 ? latest : c);
    size_t local = 16;
    CHECK(clEnqueueNDRangeKernel(env.queue, reverseBlocks, 1, nullptr, &global, it % 2 ? &local : nullptr, 0, nullptr,
                                 nullptr));
  }
  cl_mem reversed = iterations % 2 ? c : latest;
  show("block reversal", reversed);
  SET_ARG(stencil1d, 0, reversed);
  SET_ARG(stencil1d, 1, other);
  SET_ARG(stencil1d, 2, n);
  CHECK(clEnqueueNDRangeKernel(env.queue, stencil1d, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  show("stencil after the reversal", other);

  // 8. Back to the 1-D buffers: every one of them, read whole.
  show("a at the end", a);
  show("b at the end", b);
  show("c at the end", c);

  for (cl_mem m : {a, b, c, p, bins, g0, g1, sums}) CHECK(clReleaseMemObject(m));
  for (cl_kernel k : {stencil1d, sampleAll, scatter, partial, histogram, stencil2d, transpose, rowSums, reverseBlocks})
    CHECK(clReleaseKernel(k));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
