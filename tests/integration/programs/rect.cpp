// The three *BufferRect operations: 2-D and 3-D rectangles, explicit and default (0) pitches,
// host origins, blocking and non-blocking, on data written by the host and by kernels, on
// sub-buffers, and copies inside one buffer.
#include "itest.h"

using namespace itest;

static const char* kSource = R"CLC(
kernel void mixBytes(global uchar* b, uchar k) {
  size_t i = get_global_id(0);
  b[i] = (uchar)(b[i] * 3 + k + (i >> 3));
}
)CLC";

// The buffer is a W x H x D box of bytes.
constexpr size_t W = 64, H = 16, D = 4, kBytes = W * H * D;

static void mix(const Env& env, cl_kernel kernel, cl_mem buffer, unsigned char k, size_t bytes) {
  SET_ARG(kernel, 0, buffer);
  SET_ARG(kernel, 1, static_cast<cl_uchar>(k));
  CHECK(clEnqueueNDRangeKernel(env.queue, kernel, 1, nullptr, &bytes, nullptr, 0, nullptr, nullptr));
}

static void dump(const Env& env, const char* label, cl_mem buffer, size_t bytes) {
  std::vector<unsigned char> all(bytes);
  CHECK(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, bytes, all.data(), 0, nullptr, nullptr));
  printChecksum(label, all);
}

int main() {
  Env env = setup();
  cl_program program = buildProgram(env, kSource);
  cl_kernel kernel = createKernel(program, "mixBytes");
  std::vector<unsigned char> init(kBytes);
  for (size_t i = 0; i < kBytes; ++i) init[i] = static_cast<unsigned char>(i * 37 + (i >> 8));
  cl_mem box = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kBytes, init.data());

  // 1. Reads of host-held data (nothing ran yet), 2-D with explicit pitches.
  {
    std::vector<unsigned char> host(32 * 10, 0xEE);
    size_t bo[3] = {5, 3, 0}, ho[3] = {2, 1, 0}, region[3] = {20, 7, 1};
    CHECK(clEnqueueReadBufferRect(env.queue, box, CL_TRUE, bo, ho, region, W, W * H, 32, 320, host.data(), 0, nullptr,
                                  nullptr));
    printChecksum("2-D read of host data", host);
  }
  mix(env, kernel, box, 1, kBytes);

  // 2. Reads of device data: 2-D with default pitches and 3-D.
  {
    std::vector<unsigned char> host(W * 4, 0xEE);
    size_t bo[3] = {0, 2, 0}, ho[3] = {0, 0, 0}, region[3] = {W, 4, 1};
    CHECK(
        clEnqueueReadBufferRect(env.queue, box, CL_TRUE, bo, ho, region, 0, 0, 0, 0, host.data(), 0, nullptr, nullptr));
    printChecksum("2-D read, default pitches", host);
    std::vector<unsigned char> host3(16 * 6 * 3, 0xEE);
    size_t bo3[3] = {1, 2, 1}, ho3[3] = {3, 0, 0}, region3[3] = {10, 5, 3};
    cl_event done = nullptr;
    CHECK(clEnqueueReadBufferRect(env.queue, box, CL_FALSE, bo3, ho3, region3, W, W * H, 16, 16 * 6, host3.data(), 0,
                                  nullptr, &done));
    CHECK(clWaitForEvents(1, &done));
    CHECK(clReleaseEvent(done));
    printChecksum("3-D read", host3);
  }

  // 3. Writes: a 3-D rectangle from a pitched host array (non-blocking), then a 2-D one with
  //    default pitches (blocking); a kernel; the whole buffer.
  {
    std::vector<unsigned char> src(24 * 8 * 3);
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(200 - i);
    size_t bo[3] = {7, 4, 1}, ho[3] = {2, 1, 0}, region[3] = {12, 6, 3};
    cl_event done = nullptr;
    CHECK(clEnqueueWriteBufferRect(env.queue, box, CL_FALSE, bo, ho, region, W, W * H, 24, 24 * 8, src.data(), 0,
                                   nullptr, &done));
    CHECK(clWaitForEvents(1, &done));
    CHECK(clReleaseEvent(done));
    dump(env, "after 3-D write", box, kBytes);
    size_t bo2[3] = {30, 10, 2}, ho2[3] = {0, 0, 0}, region2[3] = {9, 3, 1};
    CHECK(clEnqueueWriteBufferRect(env.queue, box, CL_TRUE, bo2, ho2, region2, W, 0, 0, 0, src.data(), 0, nullptr,
                                   nullptr));
    mix(env, kernel, box, 2, kBytes);
    dump(env, "after 2-D write and kernel", box, kBytes);
  }

  // 4. Copies: to another buffer (2-D and 3-D), and inside one buffer (disjoint rectangles).
  cl_mem other = createBuffer(env.context, CL_MEM_READ_WRITE, kBytes);
  {
    std::vector<unsigned char> zero(kBytes, 0);
    CHECK(clEnqueueWriteBuffer(env.queue, other, CL_TRUE, 0, kBytes, zero.data(), 0, nullptr, nullptr));
    size_t so[3] = {4, 2, 0}, dO[3] = {10, 0, 1}, region[3] = {16, 5, 2};
    CHECK(clEnqueueCopyBufferRect(env.queue, box, other, so, dO, region, W, W * H, W, W * H, 0, nullptr, nullptr));
    size_t so2[3] = {0, 0, 0}, do2[3] = {32, 8, 3}, region2[3] = {8, 4, 1};
    CHECK(clEnqueueCopyBufferRect(env.queue, box, other, so2, do2, region2, 0, 0, W, W * H, 0, nullptr, nullptr));
    dump(env, "other after copies", other, kBytes);
    size_t inSrc[3] = {0, 0, 0}, inDst[3] = {40, 0, 0}, inRegion[3] = {20, H, D};
    CHECK(
        clEnqueueCopyBufferRect(env.queue, box, box, inSrc, inDst, inRegion, W, W * H, W, W * H, 0, nullptr, nullptr));
    mix(env, kernel, box, 3, kBytes);
    dump(env, "box after copy inside itself and kernel", box, kBytes);
    size_t ovSrc[3] = {0, 0, 0}, ovDst[3] = {10, 0, 0}, ovRegion[3] = {20, 2, 1};
    expectCode(
        clEnqueueCopyBufferRect(env.queue, box, box, ovSrc, ovDst, ovRegion, W, W * H, W, W * H, 0, nullptr, nullptr),
        CL_MEM_COPY_OVERLAP, "overlapping rectangles in one buffer");
  }

  // 5. Rectangles on a sub-buffer (the second half of `box`), read back through the parent.
  {
    cl_uint alignBits = 0;
    CHECK(clGetDeviceInfo(env.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof alignBits, &alignBits, nullptr));
    size_t half = kBytes / 2;
    if (half % (alignBits / 8) != 0) {
      std::printf("(sub-buffer part skipped: alignment larger than %zu)\n", half);
    } else {
      cl_buffer_region r{half, half};
      cl_int err = CL_SUCCESS;
      cl_mem upper = clCreateSubBuffer(box, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
      CHECK(err);
      std::vector<unsigned char> src(8 * 8);
      for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i + 100);
      size_t bo[3] = {3, 1, 0}, ho[3] = {0, 0, 0}, region[3] = {8, 8, 1};
      CHECK(clEnqueueWriteBufferRect(env.queue, upper, CL_TRUE, bo, ho, region, W, W * H, 8, 64, src.data(), 0, nullptr,
                                     nullptr));
      mix(env, kernel, upper, 4, half);
      std::vector<unsigned char> back(8 * 8, 0);
      CHECK(clEnqueueReadBufferRect(env.queue, upper, CL_TRUE, bo, ho, region, W, W * H, 8, 64, back.data(), 0, nullptr,
                                    nullptr));
      printChecksum("sub-buffer rectangle", back);
      // (A CopyBufferRect with a sub-buffer operand crashes PoCL 3.1 itself: the parent is used.)
      size_t so[3] = {0, 0, 2}, dO[3] = {0, 0, 0}, cregion[3] = {W, H, 1};
      CHECK(clEnqueueCopyBufferRect(env.queue, box, other, so, dO, cregion, W, W * H, W, W * H, 0, nullptr, nullptr));
      dump(env, "box after sub-buffer work", box, kBytes);
      dump(env, "other after a copy of what the sub-buffer wrote", other, kBytes);
      CHECK(clReleaseMemObject(upper));
    }
  }

  // 6. Out-of-bounds rectangles.
  {
    std::vector<unsigned char> host(kBytes);
    size_t bo[3] = {60, 0, 0}, ho[3] = {0, 0, 0}, region[3] = {8, 1, 1};
    expectCode(clEnqueueReadBufferRect(env.queue, box, CL_TRUE, bo, ho, region, W, W * H, 0, 0, host.data(), 0, nullptr,
                                       nullptr),
               CL_SUCCESS, "row crossing into the next row (still inside the buffer)");
    size_t bo2[3] = {0, 0, 3}, region2[3] = {W, H, 2};
    expectCode(clEnqueueReadBufferRect(env.queue, box, CL_TRUE, bo2, ho, region2, W, W * H, 0, 0, host.data(), 0,
                                       nullptr, nullptr),
               CL_INVALID_VALUE, "rectangle past the end of the buffer");
  }

  CHECK(clReleaseMemObject(other));
  CHECK(clReleaseMemObject(box));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
