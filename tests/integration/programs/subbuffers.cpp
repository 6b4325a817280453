// Sub-buffers aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN: reads, writes, copies and kernel
// arguments through sub-buffers, parent/sub-buffer coherence in both directions, queries,
// maps of sub-buffers of a USE_HOST_PTR buffer, and a sub-buffer outliving its parent.
#include "itest.h"

using namespace itest;

static const char* kSource = R"CLC(
kernel void stamp(global int* a, int base) {
  size_t i = get_global_id(0);
  a[i] = base + (int)i * 3;
}
kernel void addInto(global const int* x, global const int* y, global int* out) {
  size_t i = get_global_id(0);
  out[i] = x[i] * 2 + y[i];
}
kernel void negate(global int* a) {
  size_t i = get_global_id(0);
  a[i] = -a[i] + 1;
}
)CLC";

static cl_mem sub(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size, cl_int* err) {
  cl_buffer_region region{origin, size};
  return clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &region, err);
}

int main() {
  Env env = setup();
  cl_program program = buildProgram(env, kSource);
  cl_kernel stamp = createKernel(program, "stamp");
  cl_kernel addInto = createKernel(program, "addInto");
  cl_kernel negate = createKernel(program, "negate");

  cl_uint alignBits = 0;
  CHECK(clGetDeviceInfo(env.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof alignBits, &alignBits, nullptr));
  const size_t align = alignBits / 8; // bytes; the layout below is in units of it
  expect(align >= sizeof(cl_long16) && align % sizeof(int) == 0, "CL_DEVICE_MEM_BASE_ADDR_ALIGN is sane");
  // Bytes per window: a multiple of the alignment, and the same on every device whose alignment
  // is at most 1 KiB (so outputs compare across implementations).
  const size_t chunk = std::max<size_t>(align, 1024);
  const size_t windows = 8, bytes = chunk * windows, n = bytes / sizeof(int), chunkInts = chunk / sizeof(int);

  std::vector<int> init(n);
  for (size_t i = 0; i < n; ++i) init[i] = static_cast<int>((i * 31) % 211);
  cl_mem parent = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, init.data());

  // 1. One sub-buffer per window; a kernel stamps every other window through its sub-buffer.
  std::vector<cl_mem> subs(windows);
  for (size_t w = 0; w < windows; ++w) {
    cl_int err = CL_SUCCESS;
    subs[w] = sub(parent, CL_MEM_READ_WRITE, w * chunk, chunk, &err);
    CHECK(err);
  }
  for (size_t w = 0; w < windows; w += 2) {
    SET_ARG(stamp, 0, subs[w]);
    SET_ARG(stamp, 1, static_cast<int>(w * 1000));
    CHECK(clEnqueueNDRangeKernel(env.queue, stamp, 1, nullptr, &chunkInts, nullptr, 0, nullptr, nullptr));
  }
  std::vector<int> out(n);
  CHECK(clEnqueueReadBuffer(env.queue, parent, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr));
  printChecksum("parent after stamping windows", out);
  printInts("window 2 head", out.data() + 2 * chunkInts, 4);

  // 2. Write through the parent, read through a sub-buffer; write through a sub-buffer, read
  //    through the parent (at offsets inside the window).
  std::vector<int> patch(chunkInts / 2);
  for (size_t i = 0; i < patch.size(); ++i) patch[i] = static_cast<int>(7000 + i);
  CHECK(clEnqueueWriteBuffer(env.queue, parent, CL_TRUE, 3 * chunk + 8, patch.size() * sizeof(int), patch.data(), 0,
                             nullptr, nullptr));
  std::vector<int> window(chunkInts);
  CHECK(clEnqueueReadBuffer(env.queue, subs[3], CL_TRUE, 0, chunk, window.data(), 0, nullptr, nullptr));
  printChecksum("window 3 via sub-buffer", window);
  CHECK(clEnqueueWriteBuffer(env.queue, subs[5], CL_FALSE, 12, 40, patch.data(), 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(env.queue, parent, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr));
  printChecksum("parent after sub-buffer write", out);

  // 3. Kernels with sub-buffer arguments: two read-only sub-buffers (one overlapping the
  //    other) in, a third window out; then a kernel on the whole parent; then copies.
  {
    cl_int err = CL_SUCCESS;
    cl_mem x = sub(parent, CL_MEM_READ_ONLY, 0, 2 * chunk, &err);
    CHECK(err);
    cl_mem y = sub(parent, CL_MEM_READ_ONLY, chunk, 2 * chunk, &err);
    CHECK(err);
    cl_mem dst = sub(parent, CL_MEM_WRITE_ONLY, 5 * chunk, 2 * chunk, &err);
    CHECK(err);
    SET_ARG(addInto, 0, x);
    SET_ARG(addInto, 1, y);
    SET_ARG(addInto, 2, dst);
    size_t items = 2 * chunkInts;
    CHECK(clEnqueueNDRangeKernel(env.queue, addInto, 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
    SET_ARG(negate, 0, parent);
    CHECK(clEnqueueNDRangeKernel(env.queue, negate, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CHECK(clEnqueueCopyBuffer(env.queue, subs[0], subs[7], 4, 0, chunk - 4, 0, nullptr, nullptr));
    CHECK(clEnqueueCopyBuffer(env.queue, parent, subs[1], 6 * chunk, 0, chunk, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(env.queue, parent, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr));
    printChecksum("parent after sub-buffer kernels and copies", out);
    CHECK(clEnqueueReadBuffer(env.queue, dst, CL_TRUE, chunk, chunk, window.data(), 0, nullptr, nullptr));
    printChecksum("second half of dst", window);

    // Queries of a sub-buffer.
    size_t offset = 0, size = 0;
    cl_mem associated = nullptr;
    cl_mem_flags flags = 0;
    CHECK(clGetMemObjectInfo(y, CL_MEM_OFFSET, sizeof offset, &offset, nullptr));
    CHECK(clGetMemObjectInfo(y, CL_MEM_SIZE, sizeof size, &size, nullptr));
    CHECK(clGetMemObjectInfo(y, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, nullptr));
    CHECK(clGetMemObjectInfo(y, CL_MEM_FLAGS, sizeof flags, &flags, nullptr));
    expect(offset == chunk, "CL_MEM_OFFSET of a sub-buffer");
    expect(size == 2 * chunk, "CL_MEM_SIZE of a sub-buffer");
    expect(associated == parent, "CL_MEM_ASSOCIATED_MEMOBJECT is the parent");
    std::printf("sub-buffer flags %#llx\n", static_cast<unsigned long long>(flags));
    cl_uint parentRefs = 0;
    CHECK(clGetMemObjectInfo(parent, CL_MEM_REFERENCE_COUNT, sizeof parentRefs, &parentRefs, nullptr));
    expect(parentRefs >= 1, "parent reference count");
    for (cl_mem m : {x, y, dst}) CHECK(clReleaseMemObject(m));
  }

  // 4. Errors: a misaligned origin, a region outside the buffer, a sub-buffer of a sub-buffer.
  {
    cl_int err = CL_SUCCESS;
    cl_mem bad = sub(parent, CL_MEM_READ_WRITE, align / 2, 16, &err);
    expectCode(err, CL_MISALIGNED_SUB_BUFFER_OFFSET, "misaligned sub-buffer origin");
    if (bad) clReleaseMemObject(bad);
    bad = sub(parent, CL_MEM_READ_WRITE, bytes - chunk, 2 * chunk, &err);
    expectCode(err, CL_INVALID_VALUE, "sub-buffer region outside the buffer");
    if (bad) clReleaseMemObject(bad);
    bad = sub(subs[1], CL_MEM_READ_WRITE, 0, 16, &err);
    expectCode(err, CL_INVALID_MEM_OBJECT, "sub-buffer of a sub-buffer");
    if (bad) clReleaseMemObject(bad);
  }

  // 5. Sub-buffers of a USE_HOST_PTR buffer: maps return host_ptr + origin + offset.
  {
    std::vector<int> host(n);
    for (size_t i = 0; i < n; ++i) host[i] = static_cast<int>(i);
    cl_mem useParent = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host.data());
    cl_int err = CL_SUCCESS;
    cl_mem useSub = sub(useParent, CL_MEM_READ_WRITE, 2 * chunk, 3 * chunk, &err);
    CHECK(err);
    void* hostPtr = nullptr;
    CHECK(clGetMemObjectInfo(useSub, CL_MEM_HOST_PTR, sizeof hostPtr, &hostPtr, nullptr));
    expect(hostPtr == reinterpret_cast<char*>(host.data()) + 2 * chunk, "CL_MEM_HOST_PTR of the sub-buffer");
    SET_ARG(stamp, 0, useSub);
    SET_ARG(stamp, 1, -5);
    size_t items = 3 * chunkInts;
    CHECK(clEnqueueNDRangeKernel(env.queue, stamp, 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
    void* mapped = clEnqueueMapBuffer(env.queue, useSub, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, chunk, chunk, 0, nullptr,
                                      nullptr, &err);
    CHECK(err);
    expect(mapped == reinterpret_cast<char*>(host.data()) + 3 * chunk, "map pointer is host_ptr + origin + offset");
    if (mapped) {
      printChecksum("mapped window", mapped, chunk);
      static_cast<int*>(mapped)[1] = 99999; // written through the mapping
    }
    CHECK(clEnqueueUnmapMemObject(env.queue, useSub, mapped, 0, nullptr, nullptr));
    SET_ARG(negate, 0, useParent);
    CHECK(clEnqueueNDRangeKernel(env.queue, negate, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(env.queue, useParent, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr));
    printChecksum("USE_HOST_PTR parent after sub-buffer kernel, map and negate", out);
    CHECK(clReleaseMemObject(useSub));
    CHECK(clReleaseMemObject(useParent));
    CHECK(clFinish(env.queue));
  }

  // 6. A sub-buffer outlives its parent's handle.
  CHECK(clReleaseMemObject(parent));
  SET_ARG(negate, 0, subs[4]);
  CHECK(clEnqueueNDRangeKernel(env.queue, negate, 1, nullptr, &chunkInts, nullptr, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(env.queue, subs[4], CL_TRUE, 0, chunk, window.data(), 0, nullptr, nullptr));
  printChecksum("window 4 after the parent's release", window);
  for (cl_mem m : subs) CHECK(clReleaseMemObject(m));

  for (cl_kernel k : {stamp, addInto, negate}) CHECK(clReleaseKernel(k));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
