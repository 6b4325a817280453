// Buffers with every host-pointer flag, and read/write/copy/fill with offsets, blocking and
// non-blocking, between kernels: every byte read back is printed as a checksum.
#include "itest.h"

using namespace itest;

static const char* kSource = R"CLC(
kernel void affine(global int* a, int k) {
  size_t i = get_global_id(0);
  a[i] = a[i] * k + (int)i;
}
kernel void copyPlus(global const int* in, global int* out, int k) {
  size_t i = get_global_id(0);
  out[i] = in[i] + k;
}
kernel void bytesPlus(global uchar* b, uchar k) {
  size_t i = get_global_id(0);
  b[i] = (uchar)(b[i] + k + i);
}
)CLC";

static void runAffine(const Env& env, cl_kernel affine, cl_mem buffer, int k, size_t n) {
  SET_ARG(affine, 0, buffer);
  SET_ARG(affine, 1, k);
  CHECK(clEnqueueNDRangeKernel(env.queue, affine, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
}

static void runCopyPlus(const Env& env, cl_kernel copyPlus, cl_mem in, cl_mem out, int k, size_t n) {
  SET_ARG(copyPlus, 0, in);
  SET_ARG(copyPlus, 1, out);
  SET_ARG(copyPlus, 2, k);
  CHECK(clEnqueueNDRangeKernel(env.queue, copyPlus, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
}

int main() {
  Env env = setup();
  cl_program program = buildProgram(env, kSource);
  cl_kernel affine = createKernel(program, "affine");
  cl_kernel copyPlus = createKernel(program, "copyPlus");
  cl_kernel bytesPlus = createKernel(program, "bytesPlus");
  const size_t n = 4096, bytes = n * sizeof(int);
  std::vector<int> init(n);
  for (size_t i = 0; i < n; ++i) init[i] = static_cast<int>(i * 7 % 1000) - 300;

  // 1. Every host-pointer flag: create, run two kernels, read back.
  struct Case {
    const char* name;
    cl_mem_flags flags;
    bool hostPtr;
  };
  const Case cases[] = {
      {"none", 0, false},
      {"read_write", CL_MEM_READ_WRITE, false},
      {"copy_host_ptr", CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, true},
      {"use_host_ptr", CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, true},
      {"alloc_host_ptr", CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, false},
      {"alloc_copy_host_ptr", CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, true},
  };
  for (const auto& c : cases) {
    std::printf("-- %s\n", c.name);
    std::vector<int> host = init;
    cl_mem buffer = createBuffer(env.context, c.flags, bytes, c.hostPtr ? host.data() : nullptr);
    if (c.flags & CL_MEM_COPY_HOST_PTR) host[0] = 424242; // the copy was taken at creation
    if (!c.hostPtr) CHECK(clEnqueueWriteBuffer(env.queue, buffer, CL_TRUE, 0, bytes, init.data(), 0, nullptr, nullptr));
    void* hostPtr = reinterpret_cast<void*>(1);
    CHECK(clGetMemObjectInfo(buffer, CL_MEM_HOST_PTR, sizeof hostPtr, &hostPtr, nullptr));
    if (c.flags & CL_MEM_USE_HOST_PTR)
      expect(hostPtr == host.data(), "CL_MEM_HOST_PTR is host_ptr");
    else
      expect(hostPtr == nullptr, "CL_MEM_HOST_PTR is NULL");
    size_t size = 0;
    CHECK(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, nullptr));
    std::printf("CL_MEM_SIZE %zu\n", size);

    runAffine(env, affine, buffer, 3, n);
    runAffine(env, affine, buffer, -2, n);
    std::vector<int> out(n, -1);
    CHECK(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr));
    printChecksum("after kernels", out);
    printInts("first", out.data(), 6);
    if (c.flags & CL_MEM_USE_HOST_PTR) {
      cl_int err = CL_SUCCESS;
      void* mapped = clEnqueueMapBuffer(env.queue, buffer, CL_TRUE, CL_MAP_READ, 0, bytes, 0, nullptr, nullptr, &err);
      CHECK(err);
      expect(mapped == host.data(), "map of a USE_HOST_PTR buffer returns host_ptr");
      if (mapped) printChecksum("mapped", mapped, bytes);
      printChecksum("host_ptr after map", host);
      CHECK(clEnqueueUnmapMemObject(env.queue, buffer, mapped, 0, nullptr, nullptr));
      CHECK(clFinish(env.queue));
    }
    CHECK(clReleaseMemObject(buffer));
  }

  // 2. Reads and writes at offsets, blocking and not.
  std::printf("-- offsets\n");
  std::vector<int> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<int>(i * i % 9973);
  cl_mem a = createBuffer(env.context, CL_MEM_READ_WRITE, bytes);
  cl_mem b = createBuffer(env.context, CL_MEM_READ_WRITE, bytes);
  cl_mem c = createBuffer(env.context, CL_MEM_READ_WRITE, bytes);
  cl_event writes[4];
  for (int q = 0; q < 4; ++q)
    CHECK(clEnqueueWriteBuffer(env.queue, a, CL_FALSE, q * bytes / 4, bytes / 4, src.data() + q * n / 4, 0, nullptr,
                               &writes[q]));
  CHECK(clWaitForEvents(4, writes));
  for (auto e : writes) CHECK(clReleaseEvent(e));
  runAffine(env, affine, a, 5, n);
  std::vector<unsigned char> part(1001, 0);
  CHECK(clEnqueueReadBuffer(env.queue, a, CL_TRUE, 3, part.size(), part.data(), 0, nullptr, nullptr));
  printChecksum("unaligned read", part);
  unsigned char patch[77];
  for (int i = 0; i < 77; ++i) patch[i] = static_cast<unsigned char>(i * 13 + 1);
  CHECK(clEnqueueWriteBuffer(env.queue, a, CL_TRUE, 5, sizeof patch, patch, 0, nullptr, nullptr));
  runAffine(env, affine, a, 1, n);
  std::vector<int> whole(n);
  cl_event readEvent = nullptr;
  CHECK(clEnqueueReadBuffer(env.queue, a, CL_FALSE, 0, bytes, whole.data(), 0, nullptr, &readEvent));
  CHECK(clWaitForEvents(1, &readEvent));
  CHECK(clReleaseEvent(readEvent));
  printChecksum("a after patch", whole);

  // 3. Copies: between buffers and inside one buffer, before and after kernels.
  std::printf("-- copies\n");
  CHECK(clEnqueueWriteBuffer(env.queue, b, CL_TRUE, 0, bytes, init.data(), 0, nullptr, nullptr));
  CHECK(clEnqueueCopyBuffer(env.queue, a, b, 16, 1024, 2000, 0, nullptr, nullptr));
  CHECK(clEnqueueCopyBuffer(env.queue, b, b, 0, bytes / 2, bytes / 4, 0, nullptr, nullptr));
  runCopyPlus(env, copyPlus, b, c, 11, n);
  // Migrations are hints: contents stay as they are.
  cl_mem both[2] = {b, c};
  CHECK(clEnqueueMigrateMemObjects(env.queue, 2, both, CL_MIGRATE_MEM_OBJECT_HOST, 0, nullptr, nullptr));
  CHECK(clEnqueueMigrateMemObjects(env.queue, 1, &c, 0, 0, nullptr, nullptr));
  CHECK(clEnqueueCopyBuffer(env.queue, c, a, 4, 8, bytes - 8, 0, nullptr, nullptr));
  std::vector<int> outA(n), outB(n), outC(n);
  CHECK(clEnqueueReadBuffer(env.queue, a, CL_FALSE, 0, bytes, outA.data(), 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(env.queue, b, CL_FALSE, 0, bytes, outB.data(), 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(env.queue, c, CL_FALSE, 0, bytes, outC.data(), 0, nullptr, nullptr));
  CHECK(clFinish(env.queue));
  printChecksum("a", outA);
  printChecksum("b", outB);
  printChecksum("c", outC);
  expectCode(clEnqueueCopyBuffer(env.queue, a, a, 0, 100, 200, 0, nullptr, nullptr), CL_MEM_COPY_OVERLAP,
             "overlapping copy");

  // 4. Fills with every pattern size, on host-only data and on data a kernel wrote.
  std::printf("-- fills\n");
  const size_t fillBytes = 4096;
  std::vector<unsigned char> zeros(fillBytes, 0x5a);
  cl_mem d = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, fillBytes, zeros.data());
  for (size_t ps = 1; ps <= 128; ps *= 2) {
    unsigned char pattern[128];
    for (size_t j = 0; j < ps; ++j) pattern[j] = static_cast<unsigned char>(ps * 3 + j);
    CHECK(clEnqueueFillBuffer(env.queue, d, pattern, ps, ps * 2, ps * 5, 0, nullptr, nullptr));
    if (ps == 8) {
      SET_ARG(bytesPlus, 0, d);
      SET_ARG(bytesPlus, 1, static_cast<cl_uchar>(7));
      CHECK(clEnqueueNDRangeKernel(env.queue, bytesPlus, 1, nullptr, &fillBytes, nullptr, 0, nullptr, nullptr));
    }
    std::vector<unsigned char> filled(fillBytes);
    CHECK(clEnqueueReadBuffer(env.queue, d, CL_TRUE, 0, fillBytes, filled.data(), 0, nullptr, nullptr));
    std::printf("pattern %3zu ", ps);
    printChecksum("buffer", filled);
  }
  cl_int big = 0x01020304;
  CHECK(clEnqueueFillBuffer(env.queue, a, &big, sizeof big, 0, bytes, 0, nullptr, nullptr));
  runAffine(env, affine, a, 2, n);
  CHECK(clEnqueueReadBuffer(env.queue, a, CL_TRUE, 0, bytes, outA.data(), 0, nullptr, nullptr));
  printChecksum("a filled then kernel", outA);

  // 5. Access flags: device-side read-only/write-only buffers, and host access restrictions.
  std::printf("-- access flags\n");
  cl_mem ro = createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, src.data());
  cl_mem wo = createBuffer(env.context, CL_MEM_WRITE_ONLY, bytes);
  runCopyPlus(env, copyPlus, ro, wo, -9, n);
  CHECK(clEnqueueReadBuffer(env.queue, wo, CL_TRUE, 0, bytes, outA.data(), 0, nullptr, nullptr));
  printChecksum("write-only result", outA);
  cl_mem hostRead = createBuffer(env.context, CL_MEM_HOST_READ_ONLY, bytes);
  cl_mem hostWrite = createBuffer(env.context, CL_MEM_HOST_WRITE_ONLY, bytes);
  cl_mem hostNone = createBuffer(env.context, CL_MEM_HOST_NO_ACCESS, bytes);
  expectCode(clEnqueueWriteBuffer(env.queue, hostRead, CL_TRUE, 0, 4, src.data(), 0, nullptr, nullptr),
             CL_INVALID_OPERATION, "write to HOST_READ_ONLY");
  expectCode(clEnqueueReadBuffer(env.queue, hostWrite, CL_TRUE, 0, 4, outA.data(), 0, nullptr, nullptr),
             CL_INVALID_OPERATION, "read from HOST_WRITE_ONLY");
  expectCode(clEnqueueReadBuffer(env.queue, hostNone, CL_TRUE, 0, 4, outA.data(), 0, nullptr, nullptr),
             CL_INVALID_OPERATION, "read from HOST_NO_ACCESS");
  CHECK(clEnqueueWriteBuffer(env.queue, hostWrite, CL_TRUE, 0, bytes, src.data(), 0, nullptr, nullptr));
  runCopyPlus(env, copyPlus, hostWrite, hostRead, 1, n);
  CHECK(clEnqueueReadBuffer(env.queue, hostRead, CL_TRUE, 0, bytes, outA.data(), 0, nullptr, nullptr));
  printChecksum("host-write-only -> host-read-only", outA);
  expectCode(clEnqueueReadBuffer(env.queue, a, CL_TRUE, bytes - 4, 8, outA.data(), 0, nullptr, nullptr),
             CL_INVALID_VALUE, "read past the end");

  // 6. CL_MEM_USE_HOST_PTR memory read without mapping, as programs written for CPU runtimes do
  //    (NAS CG and MG): after clFinish, a blocking command and clWaitForEvents the host array
  //    holds what the kernels wrote. The specification leaves it undefined; CPU runtimes (PoCL,
  //    the reference) make it work, and so does clsplit.
  {
    std::vector<int> host = init;
    cl_mem shared = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host.data());
    runAffine(env, affine, shared, 3, n);
    CHECK(clFinish(env.queue));
    printChecksum("use_host_ptr memory after clFinish", host);
    runAffine(env, affine, shared, -2, n);
    const size_t half = n / 2;
    SET_ARG(bytesPlus, 0, shared); // rewrites the first half's bytes only
    SET_ARG(bytesPlus, 1, static_cast<cl_uchar>(5));
    CHECK(clEnqueueNDRangeKernel(env.queue, bytesPlus, 1, nullptr, &half, nullptr, 0, nullptr, nullptr));
    int probe = 0;
    CHECK(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0, sizeof probe, &probe, 0, nullptr, nullptr));
    printChecksum("use_host_ptr memory after a blocking read of another buffer", host);
    cl_event done = nullptr;
    runAffine(env, affine, shared, 5, n);
    CHECK(clEnqueueMarkerWithWaitList(env.queue, 0, nullptr, &done));
    CHECK(clWaitForEvents(1, &done));
    CHECK(clReleaseEvent(done));
    printChecksum("use_host_ptr memory after clWaitForEvents", host);
    CHECK(clReleaseMemObject(shared));
  }

  // 7. The other direction (NAS MG's zran3): after a synchronisation point the program writes
  //    into CL_MEM_USE_HOST_PTR memory directly, then runs kernels that read it. Undefined by the
  //    specification; CPU runtimes (the reference) show the writes to the kernels, and so does
  //    clsplit where every device shares the host's memory, or with CLSPLIT_HOST_PTR_SYNC=2.
  {
    std::vector<int> host = init, out(n, 0);
    cl_mem shared = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host.data());
    runAffine(env, affine, shared, 3, n); // a device copy exists, then the host changes the memory
    CHECK(clFinish(env.queue));
    for (size_t i = 0; i < n; i += 3) host[i] = -static_cast<int>(i);
    runCopyPlus(env, copyPlus, shared, c, 1, n);
    CHECK(clEnqueueReadBuffer(env.queue, c, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr));
    printChecksum("kernel output after host writes into use_host_ptr memory", out);
    for (size_t i = 1; i < n; i += 5) host[i] = 7; // after a blocking command, written again
    runAffine(env, affine, shared, 2, n);
    CHECK(clFinish(env.queue));
    printChecksum("use_host_ptr memory after a kernel on the host's writes", host);
    CHECK(clReleaseMemObject(shared));
  }

  for (cl_mem m : {a, b, c, d, ro, wo, hostRead, hostWrite, hostNone}) CHECK(clReleaseMemObject(m));
  for (cl_kernel k : {affine, copyPlus, bytesPlus}) CHECK(clReleaseKernel(k));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
