// The kernel analyzer on small OpenCL C programs (front end -> IR -> regions): what it finds,
// what it refuses (unsplittable), what it explains (imprecisions), and the regions it gives
// once instantiated. Ground truth on a device is in CorpusGroundTruthTest.cpp.
#include "AnalyzeSource.h"

#include "analysis/region/Instantiate.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <map>

using namespace clsplit;
using namespace clsplit::analysis;

namespace Catch {
template <>
struct StringMaker<clsplit::RangeSet> {
  static std::string convert(const clsplit::RangeSet& s) { return s.str(); }
};
} // namespace Catch

namespace {

KernelAnalysis analyzeOne(const std::string& source, const std::string& options = "") {
  ModuleAnalysis m = testing::analyzeSource(source, options);
  for (const auto& e : m.errors) FAIL_CHECK(e.message);
  REQUIRE(m.kernels.size() == 1);
  return m.kernels[0];
}

size_t count(const KernelAnalysis& k, AccessKind kind, const std::string& arg) {
  size_t n = 0;
  for (const auto& s : k.regions.statements)
    if (s.kind == kind && k.args[s.arg].name == arg) ++n;
  return n;
}

bool anyImprecision(const KernelAnalysis& k, const std::string& needle) {
  for (const auto& d : k.imprecisions)
    if (d.message.find(needle) != std::string::npos) return true;
  return false;
}

class Values : public LaunchValues {
public:
  std::map<unsigned, std::vector<std::byte>> scalars;
  std::map<unsigned, uint64_t> sizes;
  std::map<unsigned, std::vector<int32_t>> contents;
  void setInt(unsigned arg, int32_t v) {
    std::vector<std::byte> b(4);
    std::memcpy(b.data(), &v, 4);
    scalars[arg] = b;
  }
  std::span<const std::byte> scalarBytes(unsigned arg) const override {
    auto it = scalars.find(arg);
    return it == scalars.end() ? std::span<const std::byte>() : std::span<const std::byte>(it->second);
  }
  uint64_t bufferSize(unsigned arg) const override {
    auto it = sizes.find(arg);
    return it == sizes.end() ? 0 : it->second;
  }
  std::optional<ScalarValue> readElement(unsigned arg, uint64_t offset, ScalarType) const override {
    auto it = contents.find(arg);
    if (it == contents.end() || offset / 4 >= it->second.size()) return std::nullopt;
    ScalarValue v;
    v.i = it->second[offset / 4];
    return v;
  }
};

NDRange range1(uint64_t global, uint64_t local) {
  NDRange r;
  r.global = {global, 1, 1};
  r.local = {local, 1, 1};
  return r;
}

} // namespace

TEST_CASE("guarded stencil: statements, guards and exact instantiation") {
  auto k = analyzeOne(R"(
__kernel void s(__global const float* A, __global float* B, int n) {
  int i = get_global_id(0);
  if (i >= 1 && i < n - 1) B[i] = A[i - 1] + A[i] + A[i + 1];
})");
  CHECK_FALSE(k.unsplittableReason);
  CHECK(k.imprecisions.empty());
  CHECK(count(k, AccessKind::Read, "A") == 3);
  CHECK(count(k, AccessKind::Write, "B") == 1);
  for (const auto& s : k.regions.statements) {
    CHECK(s.exact);
    CHECK(s.guards.size() == 2);
    CHECK(s.line == 4);
    CHECK(s.width == 4);
  }
  Values v;
  v.sizes = {{0, 400}, {1, 400}};
  v.setInt(2, 100);
  auto r = instantiate(k, range1(100, 10), Slice{0, 9, 10}, v); // i in 90..99, guard -> 90..98
  CHECK(r[0].read == RangeSet::of(89 * 4, 100 * 4));
  CHECK(r[1].write == RangeSet::of(90 * 4, 99 * 4));
  CHECK(r[0].readExact);
  CHECK(r[1].writeExact);
}

TEST_CASE("disjunctive conditions become one exact statement per alternative") {
  auto k = analyzeOne(R"(
__kernel void b(__global const int* in, __global int* out, int n) {
  int i = get_global_id(0);
  if (i == 0 || i == n - 1) out[i] = 0;
  else out[i] = in[i];
})");
  CHECK(count(k, AccessKind::Write, "out") == 3);
  for (const auto& s : k.regions.statements) CHECK(s.exact);
  Values v;
  v.sizes = {{0, 256}, {1, 256}};
  v.setInt(2, 64);
  auto r = instantiate(k, range1(64, 8), Slice{0, 0, 8}, v);
  CHECK(r[1].write == RangeSet::of(0, 256));
  CHECK(r[1].writeExact);
  CHECK(r[0].read == RangeSet::of(4, 252));
}

TEST_CASE("switch cases are equality guards") {
  auto k = analyzeOne(R"(
__kernel void sw(__global int* out, int mode) {
  int i = get_global_id(0);
  switch (mode) {
  case 1: out[i] = 1; break;
  case 2: out[2 * i] = 2; break;
  default: break;
  }
})");
  CHECK(count(k, AccessKind::Write, "out") == 2);
  Values v;
  v.sizes = {{0, 1024}};
  v.setInt(1, 2);
  auto r = instantiate(k, range1(64, 8), Slice{0, 0, 1}, v);
  CHECK(r[0].write.count() == 8); // only the mode-2 statement runs: every other element
  CHECK(r[0].writeExact);
  v.setInt(1, 3);
  CHECK(instantiate(k, range1(64, 8), Slice{0, 0, 1}, v)[0].write.empty());
}

TEST_CASE("loops: rows, trip counts from arguments, early exits are over-approximated") {
  auto k = analyzeOne(R"(
__kernel void rows(__global const float* A, __global float* out, int m) {
  int i = get_global_id(0);
  float s = 0;
  for (int j = 0; j < m; j++) s += A[i * m + j];
  out[i] = s;
})");
  Values v;
  v.sizes = {{0, 4096}, {1, 4096}};
  v.setInt(2, 10);
  auto r = instantiate(k, range1(64, 8), Slice{0, 1, 3}, v);
  CHECK(r[0].read == RangeSet::of(8 * 10 * 4, 24 * 10 * 4));
  CHECK(r[0].readExact);

  auto brk = analyzeOne(R"(
__kernel void find(__global const int* A, __global int* out, int m) {
  int i = get_global_id(0);
  int j = 0;
  for (; j < m; j++) if (A[i * m + j] == 0) break;
  out[i] = j;
})");
  CHECK_FALSE(brk.unsplittableReason);
  auto r2 = instantiate(brk, range1(64, 8), Slice{0, 1, 3}, v);
  CHECK(r2[0].read.contains(RangeSet::of(8 * 10 * 4, 24 * 10 * 4))); // sound
  CHECK_FALSE(r2[0].readExact);                                      // an early exit
  CHECK(anyImprecision(brk, "over-approximated"));
}

TEST_CASE("a loop-carried value that is not an induction variable is undef") {
  auto k = analyzeOne(R"(
__kernel void pow2(__global const float* A, __global float* out, int m) {
  int i = get_global_id(0);
  float s = 0;
  for (int j = 1; j < m; j *= 2) s += A[j];
  out[i] = s;
})");
  bool undefRead = false;
  for (const auto& s : k.regions.statements)
    if (s.kind == AccessKind::Read && s.offset->containsUndef()) undefRead = true;
  CHECK(undefRead);
  CHECK_FALSE(k.unsplittableReason); // only a read: splitting stays safe
  CHECK(anyImprecision(k, "whole buffer"));
  Values v;
  v.sizes = {{0, 400}, {1, 256}};
  v.setInt(2, 64);
  auto r = instantiate(k, range1(64, 8), Slice{0, 0, 1}, v);
  CHECK(r[0].read == RangeSet::of(0, 400));
  CHECK_FALSE(r[0].note.empty());
}

TEST_CASE("local memory staging, barriers and group ids") {
  auto k = analyzeOne(R"(
__kernel void t(__global const float* in, __global float* out, __local float* tile) {
  __local float fixed[16];
  int l = get_local_id(0);
  tile[l] = in[get_global_id(0)];
  fixed[l] = tile[15 - l];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) out[get_group_id(0)] = fixed[3] + tile[5];
})");
  CHECK(k.regions.statements.size() == 2); // no local-memory statements
  CHECK(k.args[2].kind == ArgKind::LocalBuffer);
  Values v;
  v.sizes = {{0, 1024}, {1, 64}};
  auto r = instantiate(k, range1(256, 16), Slice{0, 4, 6}, v);
  CHECK(r[0].read == RangeSet::of(64 * 4, 96 * 4));
  CHECK(r[1].write == RangeSet::of(16, 24));
  CHECK(r[1].writeExact);
}

TEST_CASE("escaping pointers make the region unknown and writes unsafe") {
  auto k = analyzeOne(R"(
__kernel void e(__global float* a, __global float* b, int sel) {
  __global float* p[2] = {a, b};
  p[sel & 1][get_global_id(0)] = 1.0f;
})");
  CHECK(k.unsplittableReason.has_value());
  Values v;
  v.sizes = {{0, 256}, {1, 256}};
  v.setInt(2, 0);
  auto r = instantiate(k, range1(64, 8), Slice{0, 0, 1}, v);
  CHECK(r[0].write == RangeSet::of(0, 256));
  CHECK(r[1].write == RangeSet::of(0, 256));
}

TEST_CASE("a pointer selected between two buffers is unknown for both") {
  auto k = analyzeOne(R"(
__kernel void sel(__global float* a, __global float* b, int which) {
  int i = get_global_id(0);
  __global float* p = which ? a : b;
  p[i] = 2.0f;
})");
  CHECK(k.unsplittableReason.has_value());
}

TEST_CASE("atomics: reductions, used results, exchanges") {
  auto k = analyzeOne(R"(
__kernel void at(__global int* hist, __global int* counter, __global int* slots, __global int* flags,
                 __global const int* data) {
  int i = get_global_id(0);
  atomic_add(&hist[data[i] & 15], 1);
  int slot = atomic_inc(counter);
  slots[slot & 63] = i;
  atomic_xchg(&flags[i], 7);
  atomic_max(&hist[16], i);
})");
  CHECK(count(k, AccessKind::Atomic, "hist") == 2);
  CHECK(count(k, AccessKind::Write, "counter") == 1); // result used: a write ...
  CHECK(count(k, AccessKind::Read, "counter") == 1);  // ... that also reads the old value
  CHECK(count(k, AccessKind::Write, "flags") == 1);   // exchange: not a reduction
  CHECK(k.unsplittableReason.has_value());            // slots written at an atomic's result
  for (const auto& s : k.regions.statements)
    if (s.kind == AccessKind::Atomic) CHECK(s.atomicType == ScalarType::I32);
  Values v;
  v.sizes = {{0, 17 * 4}, {1, 4}, {2, 256}, {3, 256}, {4, 256}};
  auto r = instantiate(k, range1(64, 8), Slice{0, 0, 1}, v);
  // add on bins 0..15 and max on bin 16: different reductions, so all of hist is written.
  CHECK(r[0].atomic.empty());
  CHECK(r[0].write == RangeSet::of(0, 17 * 4));
  CHECK(r[1].write == RangeSet::of(0, 4));
  CHECK(r[1].read == RangeSet::of(0, 4));
}

TEST_CASE("pragmas replace analysed regions; atomic pragmas follow the atomics' use") {
  auto k = analyzeOne(R"(
__kernel void sortlike(__global const int* key, __global int* cells, __global int* out) {
  int gid = get_global_id(0);
  int c = key[gid];
  int shift = atomic_inc(&cells[c]);
  out[shift] = gid;
  int first = cells[c - 1], last = cells[c + 2] - 1;
  #pragma write out[first:last]
  #pragma atomic cells[c-1:c+1]
  #pragma opencl_increasing_buffer key, cells
})");
  CHECK_FALSE(k.unsplittableReason); // the pragma gives the region
  CHECK(k.regions.increasingBuffers.size() == 2);
  CHECK(count(k, AccessKind::Write, "out") == 1);
  CHECK(count(k, AccessKind::Write, "cells") == 1); // atomic result used: the pragma is a write
  CHECK(count(k, AccessKind::Read, "cells") == 1);  // and a read
  for (const auto& s : k.regions.statements)
    if (k.args[s.arg].name != "key") CHECK(s.fromPragma);
  Values v;
  v.sizes = {{0, 64 * 4}, {1, 17 * 4}, {2, 64 * 4}};
  std::vector<int32_t> key(64), cells(17);
  for (int i = 0; i < 64; ++i) key[i] = 1 + i / 5; // cells 1..13
  for (int c = 0; c < 17; ++c) cells[c] = std::min(64, std::max(0, (c - 1) * 5));
  v.contents = {{0, key}, {1, cells}};
  auto r = instantiate(k, range1(64, 8), Slice{0, 1, 2}, v); // gid 8..15: c in [2, 4]
  CHECK(r[1].write == RangeSet::of(1 * 4, 6 * 4));           // cells [c-1, c+1] = [1, 5]
  CHECK(r[2].write == RangeSet::of(cells[1] * 4, cells[6] * 4));
  CHECK_FALSE(r[2].writeExact);

  auto hist = analyzeOne(R"(
__kernel void h(__global const uint* data, __global uint* bins, uint nbins) {
  int i = get_global_id(0);
  atomic_inc(&bins[data[i] % nbins]);
  #pragma atomic bins[0:nbins-1]
})");
  REQUIRE(count(hist, AccessKind::Atomic, "bins") == 1);
  for (const auto& s : hist.regions.statements)
    if (s.kind == AccessKind::Atomic) {
      CHECK(s.fromPragma);
      CHECK(s.atomicOp == AtomicOp::Inc);
      CHECK(s.atomicType == ScalarType::U32);
    }
}

TEST_CASE("a write pragma makes a scatter splittable; reads of the hint code are ignored") {
  auto k = analyzeOne(R"(
__kernel void scatter(__global const int* idx, __global const float* val, __global float* out,
                      __global const int* bounds) {
  int i = get_global_id(0);
  out[idx[i]] = val[i];
  int lo = bounds[2 * get_group_id(0)], hi = bounds[2 * get_group_id(0) + 1];
  #pragma write out[lo:hi]
  #pragma opencl_increasing_buffer bounds
})");
  CHECK_FALSE(k.unsplittableReason);
  // bounds is only read by the hint expressions: not an access of the kernel itself.
  CHECK(count(k, AccessKind::Read, "bounds") == 0);
}

TEST_CASE("a write pragma over a non-monotone indirection still cannot be split") {
  auto k = analyzeOne(R"(
__kernel void scatter(__global const int* idx, __global const float* val, __global float* out,
                      __global const int* bounds) {
  int i = get_global_id(0);
  out[idx[i]] = val[i];
  #pragma write out[bounds[2 * get_group_id(0)]:bounds[2 * get_group_id(0) + 1]]
})");
  REQUIRE(k.unsplittableReason);
  CHECK(k.unsplittableReason->find("bounds") != std::string::npos);
}

TEST_CASE("misused pragmas are errors") {
  ModuleAnalysis m = testing::analyzeSource(R"(
__kernel void bad(__global float* out, __local float* tmp) {
  int i = get_global_id(0);
  tmp[0] = 1.0f;
  out[i] = tmp[0];
  #pragma read tmp[0:0]
})");
  CHECK_FALSE(m.errors.empty());
}

TEST_CASE("indirections: monotone buffers instantiate, others explain, written ones are unknown") {
  auto k = analyzeOne(R"(
__kernel void gather(__global const int* idx, __global const float* a, __global float* out) {
  int i = get_global_id(0);
  out[i] = a[idx[i]];
})");
  CHECK(anyImprecision(k, "opencl_increasing_buffer idx"));
  for (const auto& d : k.imprecisions) CHECK(d.where.line == 4);

  auto inplace = analyzeOne(R"(
__kernel void chase(__global int* next, __global float* a) {
  int i = get_global_id(0);
  a[next[i]] += 1.0f;
  next[i] = 0;
})");
  CHECK(inplace.unsplittableReason.has_value());
  CHECK(inplace.unsplittableReason->find("also writes") != std::string::npos);
}

TEST_CASE("struct arguments by value, vector lanes, conversions") {
  auto k = analyzeOne(R"(
typedef struct { int offset; int stride; } P;
__kernel void f(__global const float* in, __global float* out, P p, int4 q, float scale) {
  int i = get_global_id(0);
  out[i + q.y] = in[p.offset + i * p.stride] + in[convert_int(scale * 2.0f)];
})");
  Values v;
  v.sizes = {{0, 4096}, {1, 4096}};
  int32_t pbytes[2] = {3, 2}, qbytes[4] = {0, 5, 0, 0};
  float scale = 10.25f;
  v.scalars[2].resize(8);
  std::memcpy(v.scalars[2].data(), pbytes, 8);
  v.scalars[3].resize(16);
  std::memcpy(v.scalars[3].data(), qbytes, 16);
  v.scalars[4].resize(4);
  std::memcpy(v.scalars[4].data(), &scale, 4);
  auto r = instantiate(k, range1(64, 8), Slice{0, 0, 1}, v);
  RangeSet strided;
  for (int i = 0; i < 8; ++i) strided.add(ByteRange{uint64_t(4 * (3 + 2 * i)), uint64_t(4 * (3 + 2 * i) + 4)});
  CHECK(r[0].read.contains(strided));
  CHECK(r[0].read.contains(RangeSet::of(80, 84)));
  CHECK(r[0].read.bytes() <= strided.bytes() + 2 * 4);
  CHECK(r[1].write == RangeSet::of(20, 52));
}

TEST_CASE("vector accesses, builtins and memcpy have the right widths") {
  auto k = analyzeOne(R"(
typedef struct { int a[6]; } Blob;
__kernel void v(__global const float* in, __global float4* out, __global const Blob* bi, __global Blob* bo,
                __global half* h) {
  int i = get_global_id(0);
  out[i] = vload4(i, in) + vload4(0, in + 100);
  vstore_half(1.0f, i, h);
  bo[i] = bi[i];
})");
  Values v;
  v.sizes = {{0, 4096}, {1, 4096}, {2, 4096}, {3, 4096}, {4, 4096}};
  auto r = instantiate(k, range1(64, 8), Slice{0, 1, 2}, v);
  CHECK(r[0].read == RangeSet({{8 * 16, 16 * 16}, {400, 416}}));
  CHECK(r[1].write == RangeSet::of(8 * 16, 16 * 16));
  CHECK(r[2].read == RangeSet::of(8 * 24, 16 * 24));
  CHECK(r[3].write == RangeSet::of(8 * 24, 16 * 24));
  CHECK(r[4].write == RangeSet::of(16, 32));
  CHECK(r[1].writeExact);
}

TEST_CASE("regions of every corpus kernel survive serialisation") {
  for (const char* file : {"stencil2d.cl", "sotl_force.cl", "sotl_sort.cl", "spmv_csr.cl", "jacobi2d.cl",
                           "gemm_tiled.cl", "histogram.cl", "chunk_copy.cl"}) {
    std::string source = testing::readFile(std::string(CLSPLIT_CORPUS_DIR) + "/" + file);
    REQUIRE_FALSE(source.empty());
    ModuleAnalysis m = testing::analyzeSource(source, "-DTILE=4 -DCHUNK=8");
    REQUIRE(m.errors.empty());
    for (const auto& k : m.kernels) {
      std::string bytes = serialize(k.regions);
      auto back = deserialize(bytes);
      REQUIRE(back);
      CHECK(toString(*back) == toString(k.regions));
      CHECK(serialize(*back) == bytes);
    }
  }
}

TEST_CASE("indices read from a __constant table take any of its values") {
  auto k = analyzeOne(R"(
__constant int offsets[5] = {-2, 0, 7, 3, 1};
__kernel void t(__global const float* in, __global float* out, int which) {
  int i = get_global_id(0);
  out[i] = in[i + 2 + offsets[which % 5]];
})");
  Values v;
  v.sizes = {{0, 4096}, {1, 4096}};
  v.setInt(2, 1);
  auto r = instantiate(k, range1(64, 8), Slice{0, 1, 2}, v);
  CHECK(r[0].read == RangeSet::of(4 * (8 + 2 - 2), 4 * (15 + 2 + 7 + 1)));
  CHECK_FALSE(r[0].readExact);
  CHECK(r[1].writeExact);
}

TEST_CASE("indices merged from branches give one statement per path") {
  auto k = analyzeOne(R"(
__kernel void m(__global const float* in, __global float* out, int n) {
  int i = get_global_id(0);
  int j;
  if (in[i] > 0.0f) j = i; else j = i + n;
  out[i] = in[j];
})");
  Values v;
  v.sizes = {{0, 4096}, {1, 4096}};
  v.setInt(2, 512);
  auto r = instantiate(k, range1(64, 8), Slice{0, 1, 2}, v);
  CHECK(r[0].read == RangeSet({{32, 64}, {32 + 2048, 64 + 2048}})); // not the hull [32, 2112)
  CHECK_FALSE(r[0].readExact);
  CHECK(r[1].writeExact);
}

TEST_CASE("a program that does not compile reports an error, no kernels") {
  ModuleAnalysis m = testing::analyzeSource("__kernel void broken(__global float* a) { a[0] = undeclared; }");
  CHECK(m.kernels.empty());
  CHECK_FALSE(m.errors.empty());
}

TEST_CASE("arguments are images by their exact type, not a type name containing 'image'") {
  // The conformance suite's kernel_image_methods: a struct of its own whose name holds "image",
  // passed by pointer. Its writes were once ignored as an image's, so they never reached the
  // host (wrong results); the real image argument is still an image.
  auto k = analyzeOne(R"(
typedef struct { int width; int order; } image_kernel_data;
kernel void info(read_only image2d_t input, global image_kernel_data* out) {
  out->width = get_image_width(input);
  out->order = get_image_channel_order(input);
})");
  REQUIRE(k.args.size() == 2);
  CHECK(k.args[0].kind == ArgKind::Image);
  CHECK(k.args[0].readOnlyImage);
  CHECK(k.args[1].kind == ArgKind::GlobalBuffer);
  CHECK(count(k, AccessKind::Write, "out") == 2);
  CHECK(isImageTypeName("image2d_array_t"));
  CHECK_FALSE(isImageTypeName("image_kernel_data*"));
  CHECK_FALSE(isImageTypeName("image2d_t*"));
}

TEST_CASE("image arguments carry their access qualifier") {
  auto k = analyzeOne(R"(
kernel void copy(read_only image2d_t src, write_only image2d_t dst, read_write image2d_t both) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(dst, p, read_imagef(src, p) + read_imagef(both, p));
})",
                      "-cl-std=CL3.0");
  REQUIRE(k.args.size() == 3);
  CHECK(k.args[0].readOnlyImage);
  CHECK_FALSE(k.args[1].readOnlyImage);
  CHECK_FALSE(k.args[2].readOnlyImage);
}

TEST_CASE("an image's size queries are values of the launch: a buffer indexed by them splits") {
  auto k = analyzeOne(R"(
kernel void toBuffer(read_only image2d_t src, global float4* dst) {
  int x = get_global_id(0), y = get_global_id(1);
  dst[y * get_image_width(src) + x] = read_imagef(src, (int2)(x, y));
})");
  CHECK_FALSE(k.unsplittableReason);
  REQUIRE(count(k, AccessKind::Write, "dst") == 1);
  Values v;
  v.sizes = {{1, 64 * 48 * 16}};
  std::vector<std::byte> query(kImageQueryBytes);
  const uint32_t width = 64, height = 48;
  std::memcpy(query.data(), &width, 4);
  std::memcpy(query.data() + 4, &height, 4);
  v.scalars[0] = query;
  NDRange r;
  r.dims = 2;
  r.global = {64, 48, 1};
  r.local = {8, 8, 1};
  auto rows = instantiate(k, r, Slice{1, 2, 4}, v); // work-group rows 2..3: y in 16..31
  CHECK(rows[1].write == RangeSet::of(16 * 64 * 16, 32 * 64 * 16));
  CHECK(imageQueryOffset("get_image_height") == 4u);
  CHECK_FALSE(imageQueryOffset("get_image_dim"));
}
