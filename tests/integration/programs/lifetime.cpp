// Object lifetimes: releasing objects while others (or pending commands) still use them,
// releasing an input buffer right after the launch that reads it, releasing in unusual orders, memory-object destructor
// callbacks (reverse registration order, after pending work), and releasing everything at the end.
#include "itest.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

using namespace itest;

static const char* kSource = R"CLC(
kernel void fill(global int* a, int k) {
  size_t i = get_global_id(0);
  uint v = (uint)k;
  for (int j = 0; j < 64; ++j) v = v * 3u + (uint)i;   /* some work, so commands stay pending */
  a[i] = (int)v;
}
kernel void scale(global const int* in, global int* out) {
  size_t i = get_global_id(0);
  out[i] = in[i] * 2 + 1;
}
)CLC";

constexpr size_t n = 4096, kBytes = n * sizeof(int);

namespace {
std::mutex orderMutex;
std::vector<int> order;
std::atomic<int> destructorCalls{0};

void CL_CALLBACK onDestroy(cl_mem, void* data) {
  std::lock_guard lock(orderMutex);
  order.push_back(static_cast<int>(reinterpret_cast<intptr_t>(data)));
  ++destructorCalls;
}

bool waitForDestructors(int count) {
  for (int i = 0; i < 500 && destructorCalls.load() < count; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return destructorCalls.load() == count;
}
} // namespace

int main() {
  Env env = setup();
  std::vector<int> out(n);

  // 1. The context and program handles are released first; the queue, buffer and kernel
  //    still work.
  {
    cl_int err = CL_SUCCESS;
    cl_context context = clCreateContext(nullptr, 1, &env.device, nullptr, nullptr, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueue(context, env.device, 0, &err);
    CHECK(err);
    cl_mem buffer = createBuffer(context, CL_MEM_READ_WRITE, kBytes);
    const char* src = kSource;
    cl_program program = clCreateProgramWithSource(context, 1, &src, nullptr, &err);
    CHECK(err);
    CHECK(clBuildProgram(program, 0, nullptr, nullptr, nullptr, nullptr));
    cl_kernel kernel = createKernel(program, "fill");
    CHECK(clReleaseProgram(program));
    CHECK(clReleaseContext(context));
    SET_ARG(kernel, 0, buffer);
    SET_ARG(kernel, 1, 3);
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CHECK(clReleaseKernel(kernel)); // the enqueued launch keeps what it needs
    CHECK(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
    printChecksum("after releasing context, program and kernel handles early", out);
    CHECK(clReleaseMemObject(buffer));
    CHECK(clReleaseCommandQueue(queue));
  }

  cl_program program = buildProgram(env, kSource);
  cl_kernel kernel = createKernel(program, "fill");

  // 2. A buffer released while a non-blocking read from it is pending; a queue released with
  //    commands pending (implicit flush); events released before completion.
  {
    cl_int err = CL_SUCCESS;
    cl_command_queue queue = clCreateCommandQueue(env.context, env.device, 0, &err);
    CHECK(err);
    cl_mem buffer = createBuffer(env.context, CL_MEM_READ_WRITE, kBytes);
    SET_ARG(kernel, 0, buffer);
    SET_ARG(kernel, 1, 5);
    cl_event launched = nullptr, read = nullptr;
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &n, nullptr, 0, nullptr, &launched));
    CHECK(clEnqueueReadBuffer(queue, buffer, CL_FALSE, 0, kBytes, out.data(), 0, nullptr, &read));
    CHECK(clReleaseEvent(launched));
    CHECK(clReleaseMemObject(buffer));
    CHECK(clReleaseCommandQueue(queue));
    CHECK(clWaitForEvents(1, &read));
    CHECK(clReleaseEvent(read));
    printChecksum("read of a released buffer on a released queue", out);
  }

  // 2b. An input buffer released right after the launch that reads it (pyopencl frees
  //     temporaries so): the launch still reads the written contents, even when the queue is
  //     busy (the upload is still pending at the release) and new buffers reuse freed memory.
  {
    constexpr size_t big = 1 << 18;
    cl_kernel scale = createKernel(program, "scale");
    cl_mem busy = createBuffer(env.context, CL_MEM_READ_WRITE, big * sizeof(int));
    cl_mem result = createBuffer(env.context, CL_MEM_READ_WRITE, big * sizeof(int));
    std::vector<int> data(big), got(big);
    std::vector<cl_mem> later;
    bool allRight = true;
    for (int round = 0; round < 8; ++round) {
      for (size_t i = 0; i < big; ++i) data[i] = static_cast<int>(i * 7 + round);
      SET_ARG(kernel, 0, busy);
      SET_ARG(kernel, 1, round);
      CHECK(clEnqueueNDRangeKernel(env.queue, kernel, 1, nullptr, &big, nullptr, 0, nullptr, nullptr));
      cl_mem input = createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, big * sizeof(int), data.data());
      SET_ARG(scale, 0, input);
      SET_ARG(scale, 1, result);
      CHECK(clEnqueueNDRangeKernel(env.queue, scale, 1, nullptr, &big, nullptr, 0, nullptr, nullptr));
      CHECK(clReleaseMemObject(input));
      std::vector<int> garbage(big, -1);
      later.push_back(
          createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, big * sizeof(int), garbage.data()));
      CHECK(clEnqueueReadBuffer(env.queue, result, CL_TRUE, 0, big * sizeof(int), got.data(), 0, nullptr, nullptr));
      for (size_t i = 0; i < big; ++i) allRight = allRight && got[i] == data[i] * 2 + 1;
    }
    expect(allRight, "a launch reads its input buffer's contents although the buffer was released");
    printChecksum("input released after the launch (last round)", got);
    for (cl_mem m : later) CHECK(clReleaseMemObject(m));
    CHECK(clReleaseMemObject(busy));
    CHECK(clReleaseMemObject(result));
    CHECK(clReleaseKernel(scale));
  }

  // 3. Destructor callbacks: called once the object is gone, in reverse registration order.
  {
    cl_mem buffer = createBuffer(env.context, CL_MEM_READ_WRITE, kBytes);
    for (intptr_t i = 1; i <= 3; ++i)
      CHECK(clSetMemObjectDestructorCallback(buffer, onDestroy, reinterpret_cast<void*>(i)));
    CHECK(clRetainMemObject(buffer));
    CHECK(clReleaseMemObject(buffer));
    expect(destructorCalls.load() == 0, "no destructor callback while a reference remains");
    CHECK(clReleaseMemObject(buffer));
    expect(waitForDestructors(3), "three destructor callbacks");
    {
      std::lock_guard lock(orderMutex);
      printInts("destructor order", order.data(), order.size());
      order.clear();
    }

    // A USE_HOST_PTR buffer released right after a kernel writing it: the callback comes after
    // the data is back in host_ptr.
    std::vector<int> host(n, 0);
    cl_mem use = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, kBytes, host.data());
    cl_buffer_region region{0, kBytes / 2};
    cl_int err = CL_SUCCESS;
    cl_mem sub = clCreateSubBuffer(use, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    CHECK(err);
    CHECK(clSetMemObjectDestructorCallback(sub, onDestroy, reinterpret_cast<void*>(10)));
    CHECK(clSetMemObjectDestructorCallback(use, onDestroy, reinterpret_cast<void*>(20)));
    SET_ARG(kernel, 0, use);
    SET_ARG(kernel, 1, 7);
    CHECK(clEnqueueNDRangeKernel(env.queue, kernel, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    int* mapped = static_cast<int*>(
        clEnqueueMapBuffer(env.queue, use, CL_TRUE, CL_MAP_READ, 0, kBytes, 0, nullptr, nullptr, &err));
    CHECK(err);
    expect(mapped == host.data(), "map of the USE_HOST_PTR buffer");
    CHECK(clEnqueueUnmapMemObject(env.queue, use, mapped, 0, nullptr, nullptr));
    CHECK(clReleaseMemObject(use));
    expect(destructorCalls.load() == 3, "the parent lives while its sub-buffer does");
    CHECK(clReleaseMemObject(sub));
    CHECK(clFinish(env.queue));
    expect(waitForDestructors(5), "sub-buffer and parent destructor callbacks");
    {
      std::lock_guard lock(orderMutex);
      printInts("sub-buffer then parent", order.data(), order.size());
    }
    printChecksum("host_ptr after the buffer is gone", host);
  }

  // 4. Everything released: objects of a second context, in creation order.
  {
    cl_int err = CL_SUCCESS;
    cl_context context = clCreateContext(nullptr, 1, &env.device, nullptr, nullptr, &err);
    cl_command_queue queue = clCreateCommandQueue(context, env.device, 0, &err);
    const char* src = kSource;
    cl_program p = clCreateProgramWithSource(context, 1, &src, nullptr, &err);
    CHECK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
    cl_kernel k = createKernel(p, "fill");
    cl_mem m = createBuffer(context, CL_MEM_READ_WRITE, kBytes);
    cl_event e = clCreateUserEvent(context, &err);
    SET_ARG(k, 0, m);
    SET_ARG(k, 1, 9);
    cl_event done = nullptr;
    CHECK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 1, &e, &done));
    CHECK(clSetUserEventStatus(e, CL_COMPLETE));
    CHECK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, kBytes, out.data(), 1, &done, nullptr));
    printChecksum("second context", out);
    CHECK(clReleaseContext(context));
    CHECK(clReleaseCommandQueue(queue));
    CHECK(clReleaseProgram(p));
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseMemObject(m));
    CHECK(clReleaseEvent(e));
    CHECK(clReleaseEvent(done));
  }

  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
