// Out-of-order queues (ordered only by events and barriers) and several queues of one
// context exchanging data through events and clFinish.
#include "itest.h"

using namespace itest;

static const char* kSource = R"CLC(
kernel void scale(global int* a, int k) {
  size_t i = get_global_id(0);
  a[i] = a[i] * k + 1;
}
kernel void combine(global const int* x, global const int* y, global int* out) {
  size_t i = get_global_id(0);
  out[i] = x[i] - 2 * y[i];
}
)CLC";

constexpr size_t n = 2048, kBytes = n * sizeof(int);

int main() {
  Env env = setup();
  cl_program program = buildProgram(env, kSource);
  std::vector<int> init(n);
  for (size_t i = 0; i < n; ++i) init[i] = static_cast<int>(i % 123);
  std::vector<int> out(n);

  // 1. An out-of-order queue: chains of dependent commands through events, two independent
  //    chains interleaved, a barrier, and a final combine.
  {
    cl_command_queue_properties supported = 0;
    CHECK(clGetDeviceInfo(env.device, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, nullptr));
    expect(supported & CL_QUEUE_PROFILING_ENABLE, "device supports profiling");
    cl_int err = CL_SUCCESS;
    cl_command_queue ooo = clCreateCommandQueue(env.context, env.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (err == CL_INVALID_QUEUE_PROPERTIES) {
      // Not offered by this device: an in-order queue is a valid out-of-order schedule.
      ooo = clCreateCommandQueue(env.context, env.device, 0, &err);
    }
    CHECK(err);
    cl_command_queue_properties props = 0;
    CHECK(clGetCommandQueueInfo(ooo, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr));
    expect((props & ~cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) == 0,
           "CL_QUEUE_PROPERTIES of the out-of-order queue");
    cl_kernel k1 = createKernel(program, "scale"), k2 = createKernel(program, "scale");
    cl_kernel comb = createKernel(program, "combine");
    cl_mem x = createBuffer(env.context, CL_MEM_READ_WRITE, kBytes);
    cl_mem y = createBuffer(env.context, CL_MEM_READ_WRITE, kBytes);
    cl_mem z = createBuffer(env.context, CL_MEM_READ_WRITE, kBytes);
    cl_event wx = nullptr, wy = nullptr;
    CHECK(clEnqueueWriteBuffer(ooo, x, CL_FALSE, 0, kBytes, init.data(), 0, nullptr, &wx));
    CHECK(clEnqueueWriteBuffer(ooo, y, CL_FALSE, 0, kBytes, init.data(), 0, nullptr, &wy));
    cl_event ex = wx, ey = wy;
    for (int step = 0; step < 4; ++step) {
      cl_event nx = nullptr, ny = nullptr;
      SET_ARG(k1, 0, x);
      SET_ARG(k1, 1, step + 2);
      CHECK(clEnqueueNDRangeKernel(ooo, k1, 1, nullptr, &n, nullptr, 1, &ex, &nx));
      SET_ARG(k2, 0, y);
      SET_ARG(k2, 1, 3 - step);
      CHECK(clEnqueueNDRangeKernel(ooo, k2, 1, nullptr, &n, nullptr, 1, &ey, &ny));
      CHECK(clReleaseEvent(ex));
      CHECK(clReleaseEvent(ey));
      ex = nx;
      ey = ny;
    }
    CHECK(clEnqueueBarrierWithWaitList(ooo, 0, nullptr, nullptr));
    SET_ARG(comb, 0, x);
    SET_ARG(comb, 1, y);
    SET_ARG(comb, 2, z);
    cl_event combined = nullptr;
    CHECK(clEnqueueNDRangeKernel(ooo, comb, 1, nullptr, &n, nullptr, 0, nullptr, &combined));
    CHECK(clEnqueueReadBuffer(ooo, z, CL_TRUE, 0, kBytes, out.data(), 1, &combined, nullptr));
    printChecksum("out-of-order result", out);
    std::vector<int> outX(n), outY(n);
    cl_event r[2];
    CHECK(clEnqueueReadBuffer(ooo, x, CL_FALSE, 0, kBytes, outX.data(), 1, &ex, &r[0]));
    CHECK(clEnqueueReadBuffer(ooo, y, CL_FALSE, 0, kBytes, outY.data(), 1, &ey, &r[1]));
    CHECK(clWaitForEvents(2, r));
    printChecksum("x", outX);
    printChecksum("y", outY);
    for (cl_event e : {ex, ey, combined, r[0], r[1]}) CHECK(clReleaseEvent(e));
    CHECK(clFinish(ooo));
    for (cl_mem m : {x, y, z}) CHECK(clReleaseMemObject(m));
    for (cl_kernel k : {k1, k2, comb}) CHECK(clReleaseKernel(k));
    CHECK(clReleaseCommandQueue(ooo));
  }

  // 2. Three queues of one context: a pipeline through events, then through clFinish.
  {
    cl_command_queue q[3];
    for (auto& queue : q) {
      cl_int err = CL_SUCCESS;
      queue = clCreateCommandQueue(env.context, env.device, 0, &err);
      CHECK(err);
    }
    cl_kernel scale = createKernel(program, "scale");
    cl_kernel comb = createKernel(program, "combine");
    cl_mem a = createBuffer(env.context, CL_MEM_READ_WRITE, kBytes);
    cl_mem b = createBuffer(env.context, CL_MEM_READ_WRITE, kBytes);
    cl_mem c = createBuffer(env.context, CL_MEM_READ_WRITE, kBytes);
    cl_event written = nullptr, scaled = nullptr, copied = nullptr, combined = nullptr;
    CHECK(clEnqueueWriteBuffer(q[0], a, CL_FALSE, 0, kBytes, init.data(), 0, nullptr, &written));
    SET_ARG(scale, 0, a);
    SET_ARG(scale, 1, 7);
    CHECK(clEnqueueNDRangeKernel(q[1], scale, 1, nullptr, &n, nullptr, 1, &written, &scaled));
    CHECK(clEnqueueCopyBuffer(q[2], a, b, 0, 0, kBytes, 1, &scaled, &copied));
    SET_ARG(comb, 0, a);
    SET_ARG(comb, 1, b);
    SET_ARG(comb, 2, c);
    CHECK(clEnqueueNDRangeKernel(q[0], comb, 1, nullptr, &n, nullptr, 1, &copied, &combined));
    CHECK(clEnqueueReadBuffer(q[1], c, CL_TRUE, 0, kBytes, out.data(), 1, &combined, nullptr));
    printChecksum("three-queue pipeline", out);
    for (cl_event e : {written, scaled, copied, combined}) CHECK(clReleaseEvent(e));

    for (int round = 0; round < 3; ++round) {
      cl_command_queue queue = q[round];
      SET_ARG(scale, 0, c);
      SET_ARG(scale, 1, round + 2);
      CHECK(clEnqueueNDRangeKernel(queue, scale, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
      CHECK(clFinish(queue));
    }
    CHECK(clEnqueueReadBuffer(q[2], c, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
    printChecksum("rounds through clFinish", out);
    for (cl_mem m : {a, b, c}) CHECK(clReleaseMemObject(m));
    CHECK(clReleaseKernel(scale));
    CHECK(clReleaseKernel(comb));
    for (auto queue : q) CHECK(clReleaseCommandQueue(queue));
  }

  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
