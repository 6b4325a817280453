// Kernels with every kind of argument: global/const/__constant buffers, NULL buffers, one
// buffer passed twice, every scalar type, structs by value, vectors, __local buffers; argument
// values captured at enqueue time; clSetKernelArg errors.
#include "itest.h"

using namespace itest;

static const char* kSource = R"CLC(
typedef struct { int a; float b; char c; long d; } Params;

kernel void scalars(global long* out, char c, uchar uc, short s, ushort us, int i, uint ui, long l,
                    ulong ul, float f) {
  if (get_global_id(0) != 0) return;
  out[0] = c; out[1] = uc; out[2] = s; out[3] = us; out[4] = i; out[5] = ui; out[6] = l;
  out[7] = (long)(ul >> 1); out[8] = (long)(f * 1000.0f);
}

kernel void structArg(global int* out, Params p) {
  size_t g = get_global_id(0);
  out[g] = p.a * (int)g + (int)(p.b * 4.0f) + p.c + (int)p.d;
}

kernel void vectors(global int* out, int4 v, float4 fv, uchar16 bytes, long2 lv, short8 sv) {
  size_t g = get_global_id(0);
  int4 w = v * (int)g + convert_int4(fv * 2.0f);
  out[4 * g + 0] = w.x + bytes.s0 + bytes.sf;
  out[4 * g + 1] = w.y + (int)(lv.x - lv.y);
  out[4 * g + 2] = w.z + sv.s3 - sv.s7;
  out[4 * g + 3] = w.w + bytes.s7;
}

kernel void localSum(global const int* in, global int* sums, local int* scratch, local int* weights) {
  size_t l = get_local_id(0), size = get_local_size(0);
  scratch[l] = in[get_global_id(0)];
  weights[l] = (int)l + 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    int s = 0;
    for (size_t j = 0; j < size; ++j) s += scratch[j] * weights[size - 1 - j];
    sums[get_group_id(0)] = s;
  }
}

kernel void constArg(global const int* in, constant int* table, global int* out, int tableSize) {
  size_t i = get_global_id(0);
  out[i] = in[i] + table[i % tableSize];
}

kernel void nullable(global int* out, global const int* maybe) {
  size_t i = get_global_id(0);
  out[i] = maybe ? maybe[i] * 2 : -1;
}

kernel void twice(global const int* x, global const int* y, global int* out) {
  size_t i = get_global_id(0);
  out[i] = x[i] + y[(i + 1) % get_global_size(0)];
}
)CLC";

static const char* kDoubleSource = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void doubles(global double* out, double x) {
  size_t i = get_global_id(0);
  out[i] = x * (double)i + 0.25;
}
)CLC";

struct Params {
  cl_int a;
  cl_float b;
  cl_char c;
  cl_long d;
};

constexpr size_t n = 1024;

int main() {
  Env env = setup();
  cl_program program = buildProgram(env, kSource);
  std::vector<int> ints(n);
  for (size_t i = 0; i < n; ++i) ints[i] = static_cast<int>(i * 17 % 251) - 100;
  cl_mem in = createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(int), ints.data());
  cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, 4 * n * sizeof(int));
  auto readOut = [&](size_t count, const char* label) {
    std::vector<int> r(count);
    CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, count * sizeof(int), r.data(), 0, nullptr, nullptr));
    printChecksum(label, r);
    printInts("  head", r.data(), 4);
  };

  // Scalars of every width and signedness.
  {
    cl_kernel k = createKernel(program, "scalars");
    cl_mem longs = createBuffer(env.context, CL_MEM_READ_WRITE, 9 * sizeof(cl_long));
    SET_ARG(k, 0, longs);
    SET_ARG(k, 1, cl_char(-100));
    SET_ARG(k, 2, cl_uchar(200));
    SET_ARG(k, 3, cl_short(-30000));
    SET_ARG(k, 4, cl_ushort(60000));
    SET_ARG(k, 5, cl_int(-2000000000));
    SET_ARG(k, 6, cl_uint(4000000000u));
    SET_ARG(k, 7, cl_long(-9000000000000000000ll));
    SET_ARG(k, 8, cl_ulong(18000000000000000000ull));
    SET_ARG(k, 9, cl_float(1.5f));
    size_t one = 1;
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &one, nullptr, 0, nullptr, nullptr));
    cl_long values[9] = {};
    CHECK(clEnqueueReadBuffer(env.queue, longs, CL_TRUE, 0, sizeof values, values, 0, nullptr, nullptr));
    std::printf("scalars:");
    for (cl_long v : values) std::printf(" %lld", static_cast<long long>(v));
    std::printf("\n");
    expectCode(clSetKernelArg(k, 1, sizeof(cl_int), &values[0]), CL_INVALID_ARG_SIZE, "int for a char argument");
    expectCode(clSetKernelArg(k, 10, sizeof(cl_int), &values[0]), CL_INVALID_ARG_INDEX, "argument index 10 of 10");
    CHECK(clReleaseMemObject(longs));
    CHECK(clReleaseKernel(k));
  }

  // A struct by value.
  {
    cl_kernel k = createKernel(program, "structArg");
    Params p{3, 2.5f, -7, 1000};
    SET_ARG(k, 0, out);
    SET_ARG(k, 1, p);
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    readOut(n, "struct by value");
    p.a = -1;
    p.d = -5;
    SET_ARG(k, 1, p);
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    readOut(n, "struct by value, second launch");
    CHECK(clReleaseKernel(k));
  }

  // Vectors.
  {
    cl_kernel k = createKernel(program, "vectors");
    cl_int4 v = {{1, -2, 3, -4}};
    cl_float4 fv = {{0.5f, 1.0f, -1.5f, 8.0f}};
    cl_uchar16 bytes;
    for (int i = 0; i < 16; ++i) bytes.s[i] = static_cast<cl_uchar>(i * 11);
    cl_long2 lv = {{1ll << 40, (1ll << 40) - 77}};
    cl_short8 sv;
    for (int i = 0; i < 8; ++i) sv.s[i] = static_cast<cl_short>(i * i - 20);
    SET_ARG(k, 0, out);
    SET_ARG(k, 1, v);
    SET_ARG(k, 2, fv);
    SET_ARG(k, 3, bytes);
    SET_ARG(k, 4, lv);
    SET_ARG(k, 5, sv);
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    readOut(4 * n, "vectors");
    CHECK(clReleaseKernel(k));
  }

  // __local buffers (explicit work-group size), two of them, then a different size.
  {
    cl_kernel k = createKernel(program, "localSum");
    for (size_t local : {size_t(64), size_t(16)}) {
      SET_ARG(k, 0, in);
      SET_ARG(k, 1, out);
      CHECK(clSetKernelArg(k, 2, local * sizeof(int), nullptr));
      CHECK(clSetKernelArg(k, 3, local * sizeof(int), nullptr));
      CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, &local, 0, nullptr, nullptr));
      std::string label = "local sums, groups of " + std::to_string(local);
      readOut(n / local, label.c_str());
    }
    int x = 0;
    expectCode(clSetKernelArg(k, 2, sizeof(int), &x), CL_INVALID_ARG_VALUE, "a value for a __local argument");
    expectCode(clSetKernelArg(k, 2, 0, nullptr), CL_INVALID_ARG_SIZE, "size 0 for a __local argument");
    CHECK(clReleaseKernel(k));
  }

  // __constant buffer.
  {
    cl_kernel k = createKernel(program, "constArg");
    int table[10] = {5, -5, 10, -10, 20, -20, 40, -40, 80, -80};
    cl_mem t = createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof table, table);
    SET_ARG(k, 0, in);
    SET_ARG(k, 1, t);
    SET_ARG(k, 2, out);
    SET_ARG(k, 3, 10);
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    readOut(n, "constant table");
    CHECK(clReleaseMemObject(t));
    CHECK(clReleaseKernel(k));
  }

  // A NULL buffer argument, then a real one; the launch captures the value at enqueue time.
  {
    cl_kernel k = createKernel(program, "nullable");
    SET_ARG(k, 0, out);
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), nullptr));
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    SET_ARG(k, 1, in); // set before the first launch ran: must not change it
    readOut(n, "NULL buffer argument");
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    readOut(n, "then a real buffer");
    cl_mem null = nullptr;
    CHECK(clSetKernelArg(k, 1, sizeof null, &null));
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    readOut(n, "NULL through a NULL cl_mem value");
    expectCode(clSetKernelArg(k, 1, sizeof(int), &n), CL_INVALID_ARG_SIZE, "4 bytes for a buffer argument");
    CHECK(clReleaseKernel(k));
  }

  // One buffer passed as two arguments; an unset argument.
  {
    cl_kernel k = createKernel(program, "twice");
    SET_ARG(k, 0, in);
    SET_ARG(k, 1, in);
    expectCode(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr),
               CL_INVALID_KERNEL_ARGS, "launch with an unset argument");
    SET_ARG(k, 2, out);
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    readOut(n, "one buffer as two arguments");
    CHECK(clReleaseKernel(k));
  }

  // Doubles where the device offers them.
  if (hasExtension(env.device, "cl_khr_fp64")) {
    cl_program dp = buildProgram(env, kDoubleSource);
    cl_kernel k = createKernel(dp, "doubles");
    cl_mem d = createBuffer(env.context, CL_MEM_READ_WRITE, n * sizeof(cl_double));
    SET_ARG(k, 0, d);
    SET_ARG(k, 1, cl_double(0.5));
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    std::vector<cl_double> r(n);
    CHECK(clEnqueueReadBuffer(env.queue, d, CL_TRUE, 0, n * sizeof(cl_double), r.data(), 0, nullptr, nullptr));
    printChecksum("doubles", r);
    CHECK(clReleaseMemObject(d));
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseProgram(dp));
  } else {
    std::printf("doubles: the device has no cl_khr_fp64\n");
  }

  CHECK(clReleaseMemObject(in));
  CHECK(clReleaseMemObject(out));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
