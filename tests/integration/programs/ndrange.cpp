// NDRanges in 1, 2 and 3 dimensions, with non-zero global offsets, with and without a local
// size: every work-item records its ids and the range's sizes. With a NULL local size the
// group layout is the implementation's choice, so only what must hold for any choice is kept
// (global ids, sizes, offsets, and the identities linking groups to global ids).
#include "itest.h"

using namespace itest;

static const char* kSource = R"CLC(
#define FIELDS 12
kernel void ids(global int* out, int exactGroups) {
  uint dims = get_work_dim();
  size_t g[3], o[3], sz[3];
  size_t linear = 0, stride = 1;
  for (uint d = 0; d < 3; ++d) {
    g[d] = get_global_id(d); o[d] = get_global_offset(d); sz[d] = get_global_size(d);
    linear += (g[d] - o[d]) * stride;
    stride *= sz[d];
  }
  global int* r = out + linear * FIELDS;
  int consistent = 1;
  for (uint d = 0; d < 3; ++d) {
    consistent &= get_group_id(d) * get_local_size(d) + get_local_id(d) + o[d] == g[d];
    consistent &= get_num_groups(d) * get_local_size(d) == sz[d];
    consistent &= get_group_id(d) < get_num_groups(d) && get_local_id(d) < get_local_size(d);
  }
  r[0] = (int)dims;
  r[1] = (int)g[0]; r[2] = (int)g[1]; r[3] = (int)g[2];
  r[4] = (int)o[0]; r[5] = (int)o[1]; r[6] = (int)o[2];
  r[7] = (int)(sz[0] * 10000 + sz[1] * 100 + sz[2]);
  r[8] = consistent;
  if (exactGroups) {
    r[9] = (int)(get_group_id(0) * 10000 + get_group_id(1) * 100 + get_group_id(2));
    r[10] = (int)(get_num_groups(0) * 10000 + get_num_groups(1) * 100 + get_num_groups(2));
    r[11] = (int)(get_local_id(0) * 10000 + get_local_id(1) * 100 + get_local_id(2));
  } else {
    r[9] = r[10] = r[11] = -7;
  }
}
/* The same facts, one simple store per buffer (a form the analysis can split). */
kernel void simpleIds(global int* gid, global int* sizes, global int* offsets, global int* consistent) {
  size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1);
  size_t i = y * get_global_size(0) + x;
  gid[i] = (int)(get_global_id(0) * 1000 + get_global_id(1));
  sizes[i] = (int)(get_global_size(0) * 1000 + get_global_size(1));
  offsets[i] = (int)(get_global_offset(0) * 1000 + get_global_offset(1));
  consistent[i] = get_group_id(0) * get_local_size(0) + get_local_id(0) + get_global_offset(0) == get_global_id(0) &&
                  get_group_id(1) * get_local_size(1) + get_local_id(1) + get_global_offset(1) == get_global_id(1) &&
                  get_num_groups(0) * get_local_size(0) == get_global_size(0) &&
                  get_num_groups(1) * get_local_size(1) == get_global_size(1) && get_work_dim() <= 2;
}
/* Ids at offsets beyond 2^31: their high and low words, and group ids (which count from 0 at any
   offset). (Not get_global_offset(0) >> 31: PoCL 3.1 folds it to 0.) */
kernel void wideIds(global uint* words) {
  size_t i = get_global_id(0) - get_global_offset(0);
  size_t g = get_global_id(0);
  words[2 * i] = (uint)(g >> 31);
  words[2 * i + 1] = (uint)g ^ ((uint)get_group_id(0) << 20);
}
__attribute__((reqd_work_group_size(8, 2, 1)))
kernel void fixedGroups(global int* out) {
  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
  out[i] = (int)(get_local_size(0) * 100 + get_local_size(1) * 10 + get_local_id(0) + get_local_id(1) * 8 +
                 get_group_id(0) * 1000 + get_group_id(1) * 100000);
}
kernel void task(global int* out) { out[0] = (int)(get_global_size(0) * 100 + get_local_size(0)); out[1] = 4242; }
kernel void columnMajor(global const int* a, global int* b, int h) {
  size_t x = get_global_id(0), y = get_global_id(1);
  b[x * h + y] = b[x * h + y] * 3 + a[x * h + y] + (int)y;
}
)CLC";

constexpr int kFields = 12;

struct Range {
  const char* name;
  cl_uint dims;
  size_t global[3];
  size_t offset[3];
  size_t local[3]; // all 0: NULL
};

int main() {
  Env env = setup();
  cl_program program = buildProgram(env, kSource);
  cl_kernel ids = createKernel(program, "ids");
  const Range ranges[] = {
      {"1-D, offset 5, NULL local", 1, {1024, 1, 1}, {5, 0, 0}, {0, 0, 0}},
      {"1-D, offset 100, local 64", 1, {512, 1, 1}, {100, 0, 0}, {64, 0, 0}},
      {"1-D, no offset, odd size, NULL local", 1, {999, 1, 1}, {0, 0, 0}, {0, 0, 0}},
      {"2-D, offset (3,7), NULL local", 2, {64, 24, 1}, {3, 7, 0}, {0, 0, 0}},
      {"2-D, offset (1,2), local (8,4)", 2, {32, 16, 1}, {1, 2, 0}, {8, 4, 0}},
      {"3-D, offset (2,3,4), NULL local", 3, {16, 6, 4}, {2, 3, 4}, {0, 0, 0}},
      {"3-D, offset (1,0,2), local (4,3,2)", 3, {16, 6, 4}, {1, 0, 2}, {4, 3, 2}},
  };
  for (const auto& r : ranges) {
    size_t items = r.global[0] * r.global[1] * r.global[2];
    std::vector<int> host(items * kFields, -1);
    cl_mem out =
        createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(int), host.data());
    bool exact = r.local[0] != 0;
    SET_ARG(ids, 0, out);
    SET_ARG(ids, 1, cl_int(exact));
    CHECK(clEnqueueNDRangeKernel(env.queue, ids, r.dims, r.offset, r.global, exact ? r.local : nullptr, 0, nullptr,
                                 nullptr));
    CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, host.size() * sizeof(int), host.data(), 0, nullptr, nullptr));
    size_t inconsistent = 0;
    for (size_t i = 0; i < items; ++i) inconsistent += host[i * kFields + 8] != 1;
    std::printf("%s: %zu items, %zu inconsistent\n", r.name, items, inconsistent);
    printChecksum("  records", host);
    printInts("  last record", host.data() + (items - 1) * kFields, kFields);
    CHECK(clReleaseMemObject(out));
  }

  // The splittable form: 1-D and 2-D ranges with offsets and a NULL local size.
  {
    cl_kernel simple = createKernel(program, "simpleIds");
    const Range simpleRanges[] = {
        {"simple 1-D, offset 7, NULL local", 1, {2048, 1, 1}, {7, 0, 0}, {0, 0, 0}},
        {"simple 2-D, offset (5,3), NULL local", 2, {96, 40, 1}, {5, 3, 0}, {0, 0, 0}},
        {"simple 2-D, offset (2,1), local (16,4)", 2, {64, 32, 1}, {2, 1, 0}, {16, 4, 0}},
        {"simple 1-D, 997 items (prime), offset 3, NULL local", 1, {997, 1, 1}, {3, 0, 0}, {0, 0, 0}},
    };
    for (const auto& r : simpleRanges) {
      size_t items = r.global[0] * r.global[1];
      cl_mem outs[4];
      for (auto& m : outs) m = createBuffer(env.context, CL_MEM_READ_WRITE, items * sizeof(int));
      for (cl_uint a = 0; a < 4; ++a) SET_ARG(simple, a, outs[a]);
      CHECK(clEnqueueNDRangeKernel(env.queue, simple, r.dims, r.offset, r.global, r.local[0] ? r.local : nullptr, 0,
                                   nullptr, nullptr));
      std::printf("%s:\n", r.name);
      const char* names[4] = {"  global ids", "  global sizes", "  global offsets", "  consistency flags"};
      for (int a = 0; a < 4; ++a) {
        std::vector<int> v(items);
        CHECK(clEnqueueReadBuffer(env.queue, outs[a], CL_TRUE, 0, items * sizeof(int), v.data(), 0, nullptr, nullptr));
        printChecksum(names[a], v);
        if (a == 3) {
          size_t bad = 0;
          for (int f : v) bad += f != 1;
          std::printf("  %zu inconsistent\n", bad);
        }
      }
      for (auto m : outs) CHECK(clReleaseMemObject(m));
    }
    CHECK(clReleaseKernel(simple));
  }

  // Ranges far from 0. NVIDIA's OpenCL fails (beyond 2^32) or miscomputes (between 2^31 and
  // 2^32) launches at such global offsets, so clsplit's slices start at 0 there and carry their
  // start as an id base: the words below differ wherever an id or offset lost its high bits.
  {
    cl_kernel wide = createKernel(program, "wideIds");
    const size_t offsets[] = {2500000000ull, 5000000000ull};
    for (size_t offset : offsets) {
      const size_t global = 4096, local = 64;
      cl_mem words = createBuffer(env.context, CL_MEM_READ_WRITE, 2 * global * sizeof(cl_uint));
      SET_ARG(wide, 0, words);
      CHECK(clEnqueueNDRangeKernel(env.queue, wide, 1, &offset, &global, &local, 0, nullptr, nullptr));
      std::vector<int> v(2 * global);
      CHECK(clEnqueueReadBuffer(env.queue, words, CL_TRUE, 0, v.size() * sizeof(int), v.data(), 0, nullptr, nullptr));
      std::printf("wide ids at offset %zu:\n", offset);
      printChecksum("  words", v);
      printInts("  first", v.data(), 4);
      printInts("  last", v.data() + v.size() - 4, 4);
      CHECK(clReleaseMemObject(words));
    }
    CHECK(clReleaseKernel(wide));
  }

  // reqd_work_group_size: a NULL local size is an error (OpenCL 1.2, clEnqueueNDRangeKernel);
  // the required size itself works.
  {
    cl_kernel fixed = createKernel(program, "fixedGroups");
    size_t global[2] = {64, 16}, local[2] = {8, 2};
    cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, 64 * 16 * sizeof(int));
    SET_ARG(fixed, 0, out);
    expectCode(clEnqueueNDRangeKernel(env.queue, fixed, 2, nullptr, global, nullptr, 0, nullptr, nullptr),
               CL_INVALID_WORK_GROUP_SIZE, "reqd_work_group_size with a NULL local size");
    CHECK(clEnqueueNDRangeKernel(env.queue, fixed, 2, nullptr, global, local, 0, nullptr, nullptr));
    std::vector<int> v(64 * 16);
    CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, v.size() * sizeof(int), v.data(), 0, nullptr, nullptr));
    printChecksum("reqd_work_group_size(8,2,1) with that local size", v);
    printInts("  last", v.data() + v.size() - 4, 4);
    CHECK(clReleaseMemObject(out));
    CHECK(clReleaseKernel(fixed));
  }

  // A NULL global offset equals zeros; clEnqueueTask is a 1x1 range.
  {
    cl_kernel task = createKernel(program, "task");
    cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, 2 * sizeof(int));
    SET_ARG(task, 0, out);
    CHECK(clEnqueueTask(env.queue, task, 0, nullptr, nullptr));
    int values[2] = {0, 0};
    CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof values, values, 0, nullptr, nullptr));
    printInts("task", values, 2);
    CHECK(clReleaseMemObject(out));
    CHECK(clReleaseKernel(task));
  }

  // Column-major data: splitting dimension 0 keeps each slice's elements contiguous, so clsplit
  // chooses it over the default (the outermost dimension) at the first split launch, and maps
  // that launch's shares onto it.
  {
    constexpr int W = 256, H = 64;
    cl_kernel column = createKernel(program, "columnMajor");
    std::vector<int> a(W * H), b(W * H, 1);
    for (int i = 0; i < W * H; ++i) a[i] = i * 7 % 1000;
    cl_mem da = createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * sizeof(int), a.data());
    cl_mem db = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b.size() * sizeof(int), b.data());
    SET_ARG(column, 0, da);
    SET_ARG(column, 1, db);
    SET_ARG(column, 2, cl_int(H));
    size_t global[2] = {W, H}, local[2] = {16, 16};
    for (int it = 0; it < 4; ++it)
      CHECK(clEnqueueNDRangeKernel(env.queue, column, 2, nullptr, global, local, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(env.queue, db, CL_TRUE, 0, b.size() * sizeof(int), b.data(), 0, nullptr, nullptr));
    printChecksum("column-major 2-D, four launches", b);
    CHECK(clReleaseMemObject(da));
    CHECK(clReleaseMemObject(db));
    CHECK(clReleaseKernel(column));
  }

  // Invalid ranges.
  {
    cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, 64 * kFields * sizeof(int));
    SET_ARG(ids, 0, out);
    SET_ARG(ids, 1, cl_int(1));
    size_t global[3] = {64, 1, 1}, local[3] = {7, 1, 1};
    expectCode(clEnqueueNDRangeKernel(env.queue, ids, 1, nullptr, global, local, 0, nullptr, nullptr),
               CL_INVALID_WORK_GROUP_SIZE, "local size not dividing the global size");
    expectCode(clEnqueueNDRangeKernel(env.queue, ids, 0, nullptr, global, nullptr, 0, nullptr, nullptr),
               CL_INVALID_WORK_DIMENSION, "work_dim 0");
    expectCode(clEnqueueNDRangeKernel(env.queue, ids, 4, nullptr, global, nullptr, 0, nullptr, nullptr),
               CL_INVALID_WORK_DIMENSION, "work_dim 4");
    // (A NULL or zero global size is an error in OpenCL 1.2 but not in 3.0, which PoCL follows:
    // those cases are in the bad-input test.)
    CHECK(clFinish(env.queue));
    CHECK(clReleaseMemObject(out));
  }

  CHECK(clReleaseKernel(ids));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
