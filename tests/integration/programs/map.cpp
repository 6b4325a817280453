// Map and unmap: read, write and write-invalidate maps, blocking and non-blocking, whole and
// partial, several maps at once, maps between kernels, and USE_HOST_PTR maps (which must
// return host_ptr + offset).
#include "itest.h"

using namespace itest;

static const char* kSource = R"CLC(
kernel void stepOnce(global int* a, int k) {
  size_t i = get_global_id(0);
  a[i] = a[i] * 5 + k - (int)(i & 7);
}
)CLC";

constexpr size_t n = 2048, kBytes = n * sizeof(int);

static void step(const Env& env, cl_kernel kernel, cl_mem buffer, int k) {
  SET_ARG(kernel, 0, buffer);
  SET_ARG(kernel, 1, k);
  CHECK(clEnqueueNDRangeKernel(env.queue, kernel, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
}

static int* map(const Env& env, cl_mem buffer, cl_bool blocking, cl_map_flags flags, size_t offset, size_t size,
                cl_event* event = nullptr) {
  cl_int err = CL_SUCCESS;
  void* p = clEnqueueMapBuffer(env.queue, buffer, blocking, flags, offset, size, 0, nullptr, event, &err);
  CHECK(err);
  if (!p) std::exit(finish());
  return static_cast<int*>(p);
}

static void unmap(const Env& env, cl_mem buffer, void* p) {
  CHECK(clEnqueueUnmapMemObject(env.queue, buffer, p, 0, nullptr, nullptr));
}

static void exercise(const Env& env, cl_kernel kernel, cl_mem buffer, int* hostPtr) {
  // A read map of data the host wrote.
  int* p = map(env, buffer, CL_TRUE, CL_MAP_READ, 0, kBytes);
  if (hostPtr) expect(p == hostPtr, "whole map returns host_ptr");
  printChecksum("read map of initial data", p, kBytes);
  unmap(env, buffer, p);

  // A write map changes part of the buffer; the kernel sees it.
  step(env, kernel, buffer, 1);
  p = map(env, buffer, CL_TRUE, CL_MAP_WRITE, 256 * sizeof(int), 512 * sizeof(int));
  if (hostPtr) expect(p == hostPtr + 256, "partial map returns host_ptr + offset");
  printChecksum("write map sees the kernel's data", p, 512 * sizeof(int));
  for (int i = 0; i < 512; ++i) p[i] = p[i] / 3 + i;
  unmap(env, buffer, p);
  step(env, kernel, buffer, 2);

  // A non-blocking read map, waited on through its event.
  cl_event mapped = nullptr;
  p = map(env, buffer, CL_FALSE, CL_MAP_READ, 0, kBytes, &mapped);
  CHECK(clWaitForEvents(1, &mapped));
  cl_command_type type = 0;
  CHECK(clGetEventInfo(mapped, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  expect(type == CL_COMMAND_MAP_BUFFER, "map event type");
  CHECK(clReleaseEvent(mapped));
  printChecksum("non-blocking read map after the write map and kernel", p, kBytes);
  unmap(env, buffer, p);

  // Write-invalidate: the whole buffer is rewritten by the host.
  p = map(env, buffer, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, kBytes);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<int>(i * 3 + 1);
  cl_event unmapped = nullptr;
  CHECK(clEnqueueUnmapMemObject(env.queue, buffer, p, 0, nullptr, &unmapped));
  CHECK(clGetEventInfo(unmapped, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  expect(type == CL_COMMAND_UNMAP_MEM_OBJECT, "unmap event type");
  CHECK(clReleaseEvent(unmapped));
  step(env, kernel, buffer, 3);

  // Three maps at once (two write maps, a read map; all disjoint), unmapped out of order.
  int* lo = map(env, buffer, CL_TRUE, CL_MAP_WRITE, 0, 100 * sizeof(int));
  int* hi = map(env, buffer, CL_TRUE, CL_MAP_WRITE, 1000 * sizeof(int), 100 * sizeof(int));
  int* ro = map(env, buffer, CL_TRUE, CL_MAP_READ, 200 * sizeof(int), 20 * sizeof(int));
  cl_uint count = 0;
  CHECK(clGetMemObjectInfo(buffer, CL_MEM_MAP_COUNT, sizeof count, &count, nullptr));
  std::printf("map count while mapped: %u\n", count);
  printChecksum("read map beside write maps", ro, 20 * sizeof(int));
  for (int i = 0; i < 100; ++i) {
    lo[i] = -i;
    hi[i] = 10 * i;
  }
  unmap(env, buffer, hi);
  unmap(env, buffer, ro);
  unmap(env, buffer, lo);
  step(env, kernel, buffer, 4);
  std::vector<int> out(n);
  CHECK(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
  printChecksum("after two write maps and a kernel", out);
  if (hostPtr) {
    p = map(env, buffer, CL_TRUE, CL_MAP_READ, 0, kBytes);
    expect(p == hostPtr, "map returns host_ptr again");
    printChecksum("host_ptr contents while mapped", hostPtr, kBytes);
    unmap(env, buffer, p);
  }
  CHECK(clFinish(env.queue));
  CHECK(clGetMemObjectInfo(buffer, CL_MEM_MAP_COUNT, sizeof count, &count, nullptr));
  std::printf("map count at the end: %u\n", count);
}

int main() {
  Env env = setup();
  cl_program program = buildProgram(env, kSource);
  cl_kernel kernel = createKernel(program, "stepOnce");
  std::vector<int> init(n);
  for (size_t i = 0; i < n; ++i) init[i] = static_cast<int>(i % 97) - 40;

  std::printf("-- plain buffer\n");
  cl_mem plain = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kBytes, init.data());
  exercise(env, kernel, plain, nullptr);
  CHECK(clReleaseMemObject(plain));

  std::printf("-- ALLOC_HOST_PTR buffer\n");
  cl_mem alloc = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, kBytes);
  CHECK(clEnqueueWriteBuffer(env.queue, alloc, CL_TRUE, 0, kBytes, init.data(), 0, nullptr, nullptr));
  exercise(env, kernel, alloc, nullptr);
  CHECK(clReleaseMemObject(alloc));

  std::printf("-- USE_HOST_PTR buffer\n");
  std::vector<int> host = init;
  cl_mem use = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, kBytes, host.data());
  exercise(env, kernel, use, host.data());
  CHECK(clReleaseMemObject(use));

  std::printf("-- errors\n");
  cl_mem small = createBuffer(env.context, CL_MEM_READ_WRITE, 64);
  cl_int err = CL_SUCCESS;
  void* p = clEnqueueMapBuffer(env.queue, small, CL_TRUE, CL_MAP_READ, 32, 64, 0, nullptr, nullptr, &err);
  expectCode(err, CL_INVALID_VALUE, "map past the end");
  expect(p == nullptr, "failed map returns NULL");
  int local = 0;
  expectCode(clEnqueueUnmapMemObject(env.queue, small, &local, 0, nullptr, nullptr), CL_INVALID_VALUE,
             "unmap of a pointer that was not mapped");
  CHECK(clReleaseMemObject(small));

  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
