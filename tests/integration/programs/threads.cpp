// Several host threads: eight threads each with their own queue, buffers and kernels; eight
// threads sharing one queue; and threads creating and releasing objects concurrently.
// Results are printed in thread order after every thread has joined.
#include "itest.h"

#include <array>
#include <mutex>
#include <thread>

using namespace itest;

static const char* kSource = R"CLC(
kernel void mixIn(global int* a, global const int* b, int k) {
  size_t i = get_global_id(0);
  a[i] = a[i] * 3 + b[i] * k + (int)(i % 5);
}
)CLC";

constexpr size_t n = 1024, kBytes = n * sizeof(int);
constexpr int kThreads = 8, kRounds = 12;

// One thread's work on `queue`: its own buffers and kernel, rounds of write/kernel/read.
static uint64_t work(const Env& env, cl_program program, cl_command_queue queue, int seed) {
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "mixIn", &err);
  CHECK(err);
  std::vector<int> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<int>((i * (seed + 3)) % 101);
    b[i] = static_cast<int>((i + seed) % 13);
  }
  cl_mem ma = clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kBytes, a.data(), &err);
  CHECK(err);
  cl_mem mb = clCreateBuffer(env.context, CL_MEM_READ_ONLY, kBytes, nullptr, &err);
  CHECK(err);
  uint64_t digest = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (size_t i = 0; i < n; ++i) b[i] = static_cast<int>((i * round + seed) % 17);
    CHECK(clEnqueueWriteBuffer(queue, mb, CL_FALSE, 0, kBytes, b.data(), 0, nullptr, nullptr));
    CHECK(clSetKernelArg(kernel, 0, sizeof ma, &ma));
    CHECK(clSetKernelArg(kernel, 1, sizeof mb, &mb));
    int k = seed - round;
    CHECK(clSetKernelArg(kernel, 2, sizeof k, &k));
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    // b is rewritten next round: the blocking read below also guarantees the write completed.
    CHECK(clEnqueueReadBuffer(queue, ma, CL_TRUE, 0, kBytes, a.data(), 0, nullptr, nullptr));
    digest = digest * 31 + checksum(a.data(), kBytes);
  }
  CHECK(clReleaseMemObject(ma));
  CHECK(clReleaseMemObject(mb));
  CHECK(clReleaseKernel(kernel));
  return digest;
}

int main() {
  Env env = setup();
  cl_program program = buildProgram(env, kSource);

  // 1. Four threads, each with its own queue.
  {
    std::array<uint64_t, kThreads> digests{};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        cl_int err = CL_SUCCESS;
        cl_command_queue queue = clCreateCommandQueue(env.context, env.device, 0, &err);
        CHECK(err);
        digests[t] = work(env, program, queue, t);
        CHECK(clReleaseCommandQueue(queue));
      });
    for (auto& t : threads) t.join();
    for (int t = 0; t < kThreads; ++t)
      std::printf("own queue, thread %d: %016llx\n", t, (unsigned long long)digests[t]);
  }

  // 2. Four threads sharing one queue.
  {
    std::array<uint64_t, kThreads> digests{};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] { digests[t] = work(env, program, env.queue, t + 10); });
    for (auto& t : threads) t.join();
    for (int t = 0; t < kThreads; ++t)
      std::printf("shared queue, thread %d: %016llx\n", t, (unsigned long long)digests[t]);
  }

  // 3. Threads creating, retaining and releasing objects concurrently; each thread checks its
  //    own reference counts.
  {
    std::array<int, kThreads> ok{};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        int good = 0;
        for (int i = 0; i < 20; ++i) {
          cl_int err = CL_SUCCESS;
          cl_mem m = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 256 + i, nullptr, &err);
          cl_kernel k = clCreateKernel(program, "mixIn", &err);
          cl_event e = clCreateUserEvent(env.context, &err);
          clRetainMemObject(m);
          cl_uint refs = 0;
          clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, nullptr);
          good += refs == 2;
          clReleaseMemObject(m);
          clSetUserEventStatus(e, CL_COMPLETE);
          good += clReleaseEvent(e) == CL_SUCCESS;
          good += clReleaseKernel(k) == CL_SUCCESS;
          good += clReleaseMemObject(m) == CL_SUCCESS;
        }
        ok[t] = good;
      });
    for (auto& t : threads) t.join();
    for (int t = 0; t < kThreads; ++t) std::printf("create/release thread %d: %d of 80 ok\n", t, ok[t]);
  }

  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
