// The proof that the partition-ready rewrite keeps semantics: each kernel runs whole from its
// original source, then from clsplit's vendor copy as 2, 3 and 4 slices along every dimension
// (hidden arguments set as the runtime sets them). All buffers must be byte-identical.
#include "SliceHarness.h"
#include "analysis/module/AnalyzerModule.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using clsplit::analysis::ProgramAnalysis;
using clsplit::test::Device;
using clsplit::test::floatPattern;
using clsplit::test::KernelArgSpec;
using clsplit::test::Launch;
using clsplit::test::pattern;

namespace {

struct DeviceCase {
  std::string name;
  std::string source;
  std::string options;
  std::string kernel;
  Launch launch;
  std::vector<KernelArgSpec> args;
};

Device& device() {
  static Device d;
  return d;
}

// The analysis as the ICD gets it: from libclsplit-analyzer.so, loaded privately (RTLD_LOCAL).
// PoCL 3.1 loads Clang 15 into this process and libclang-cpp exports unversioned symbols: with
// Clang 16 in the global scope too, PoCL's compiler binds to Clang 16's functions and crashes.
// CLSPLIT_ANALYZER_MODULE names another module.
ProgramAnalysis analyzeProgram(const std::string& source, const std::string& options) {
  return clsplit::analysis::module::loadingAnalyzer()(source, options, {});
}

// Splits `groups` work-groups into `parts` uneven, non-empty slices.
std::vector<size_t> bounds(size_t groups, size_t parts) {
  std::vector<size_t> b{0};
  for (size_t i = 1; i < parts; ++i) b.push_back((groups * i * i) / (parts * parts) + (i > 0 ? 1 : 0));
  b.push_back(groups);
  for (size_t i = 1; i < b.size(); ++i) b[i] = std::max(b[i], b[i - 1]);
  return b;
}

void checkSemantics(const DeviceCase& c) {
  INFO("case " << c.name << " on " << device().name());
  ProgramAnalysis analysis = analyzeProgram(c.source, c.options);
  INFO("vendor source:\n" << analysis.vendorSource << "\nnotes:\n" << analysis.buildLogNotes);
  REQUIRE(analysis.errors.empty());
  const clsplit::analysis::KernelAnalysis* k = analysis.find(c.kernel);
  REQUIRE(k);
  REQUIRE(k->partitionReady);
  // No reason from the rewrite itself (the analyzer may still have its own).
  if (k->unsplittableReason) CHECK(k->unsplittableReason->find("cannot receive") == std::string::npos);
  CHECK(k->args.size() == c.args.size());

  cl_program original = nullptr;
  try {
    original = device().build(c.source, c.options);
  } catch (const std::exception& e) {
    // Some devices refuse OpenCL C 2.0/3.0 altogether (PoCL 5's CPU device did): nothing to
    // compare against there. Any other build failure of the original is a test failure.
    if (c.options.find("-cl-std=CL2") == std::string::npos && c.options.find("-cl-std=CL3") == std::string::npos) throw;
    WARN(device().name() << " cannot build " << c.options << " programs; case skipped");
    return;
  }
  cl_program ready = device().build(analysis.vendorSource, c.options);
  auto reference = device().runWhole(original, c.kernel, c.args, c.launch);
  // Sanity: the kernel's outputs must depend on the launch (else the test proves nothing).
  bool changed = false;
  for (size_t i = 0, b = 0; i < c.args.size(); ++i)
    if (c.args[i].kind == KernelArgSpec::Buffer) changed |= reference[b++] != c.args[i].bytes;
  CHECK(changed);

  // The partition-ready kernel run whole (one slice) must already agree.
  for (unsigned dim = 0; dim < c.launch.dims; ++dim) {
    size_t groups = c.launch.global[dim] / c.launch.local[dim];
    for (size_t parts = 1; parts <= std::min<size_t>(4, groups); ++parts) {
      auto b = bounds(groups, parts);
      INFO("split dimension " << dim << " into " << parts << " slices of " << groups << " groups");
      auto sliced = device().runSliced(ready, c.kernel, c.args, c.launch, dim, b);
      REQUIRE(sliced.size() == reference.size());
      for (size_t i = 0; i < sliced.size(); ++i) {
        INFO("buffer " << i);
        CHECK(sliced[i] == reference[i]);
      }
    }
  }
  clReleaseProgram(original);
  clReleaseProgram(ready);
}

Launch launch1(size_t global, size_t local, size_t offset) {
  Launch l;
  l.dims = 1;
  l.global = {global, 1, 1};
  l.local = {local, 1, 1};
  l.offset = {offset, 0, 0};
  return l;
}

} // namespace

TEST_CASE("1-D built-ins keep their whole-launch values in every slice", "[transformer][device]") {
  const std::string src = R"(
__kernel void ids(__global uint* out) {
  size_t i = get_global_id(0) - get_global_offset(0);
  out[5 * i + 0] = get_global_size(0);
  out[5 * i + 1] = get_num_groups(0);
  out[5 * i + 2] = get_group_id(0);
  out[5 * i + 3] = get_global_offset(0) + get_work_dim();
  /* dimensions beyond the launch keep their defaults */
  out[5 * i + 4] = get_global_size(1) * 1000 + get_num_groups(2) * 100 + get_group_id(1) * 10 + get_global_offset(2);
})";
  for (size_t offset : {0, 16}) {
    checkSemantics({"ids-1d", src, "", "ids", launch1(64, 8, offset), {KernelArgSpec::buffer(pattern(64 * 5 * 4, 1))}});
  }
  // The prelude differs by language version (no `static` before 1.2, enqueued sizes from 2.0).
  // (PoCL 3.1 refuses -cl-std=CL1.0 itself.)
  for (const char* std : {"-cl-std=CL1.1", "-cl-std=CL1.2", "-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    checkSemantics({std::string("ids-1d ") + std,
                    src,
                    std,
                    "ids",
                    launch1(64, 8, 8),
                    {KernelArgSpec::buffer(pattern(64 * 5 * 4, 1))}});
  }
}

TEST_CASE("2-D built-ins, split along each dimension, with an application offset", "[transformer][device]") {
  const std::string src = R"(
__kernel void ids(__global uint4* out, int bias) {
  size_t x = get_global_id(0) - get_global_offset(0);
  size_t y = get_global_id(1) - get_global_offset(1);
  size_t i = y * get_global_size(0) + x;
  out[i] = (uint4)(get_group_id(0) + bias, get_group_id(1),
                   get_num_groups(0) * 100 + get_num_groups(1),
                   get_global_size(0) * 1000 + get_global_size(1) + get_global_offset(1) * 7);
})";
  Launch l;
  l.dims = 2;
  l.global = {32, 12, 1};
  l.local = {8, 3, 1};
  l.offset = {5, 7, 0};
  checkSemantics(
      {"ids-2d", src, "", "ids", l, {KernelArgSpec::buffer(pattern(32 * 12 * 16, 2)), KernelArgSpec::scalar<int>(-3)}});
}

TEST_CASE("3-D built-ins with a struct output", "[transformer][device]") {
  const std::string src = R"(
typedef struct { uint group[3]; uint groups[3]; uint size[3]; uint offset[3]; uint lid[3]; } Ids;
__kernel void ids(__global Ids* out) {
  size_t x = get_global_id(0) - get_global_offset(0);
  size_t y = get_global_id(1) - get_global_offset(1);
  size_t z = get_global_id(2) - get_global_offset(2);
  Ids v;
  for (uint d = 0; d < 3; ++d) {
    v.group[d] = get_group_id(d);
    v.groups[d] = get_num_groups(d);
    v.size[d] = get_global_size(d);
    v.offset[d] = get_global_offset(d);
    v.lid[d] = get_local_id(d);
  }
  out[(z * get_global_size(1) + y) * get_global_size(0) + x] = v;
})";
  Launch l;
  l.dims = 3;
  l.global = {8, 6, 8};
  l.local = {2, 3, 2};
  l.offset = {1, 2, 3};
  checkSemantics({"ids-3d", src, "", "ids", l, {KernelArgSpec::buffer(pattern(8 * 6 * 8 * 60, 3))}});
}

TEST_CASE("helpers, macros from the source and from -D, float4", "[transformer][device]") {
  const std::string src = R"(
#define GROUP_OF(d) get_group_id(d)
#define LAST_GROUP (get_num_groups(0) - 1)
uint depth2(uint v) { return v + GLOBAL_X; }
uint depth1(uint v) { return depth2(v * 2) + GROUP_OF(0); }
float4 scale(float4 v) { return v * (float)LAST_GROUP; }
uint untouched(uint v) { return v * 3; }
__kernel void k(__global const float4* in, __global float4* out, __global uint* tag) {
  size_t i = get_global_id(0) - get_global_offset(0);
  out[i] = scale(in[i]) + (float4)(depth1(i));
  tag[i] = depth1(get_local_id(0)) + untouched(NUM_GROUPS_MACRO);
})";
  for (size_t offset : {0, 12}) {
    checkSemantics({"helpers-macros",
                    src,
                    "-DGLOBAL_X=get_global_size(0) -DNUM_GROUPS_MACRO=get_num_groups(0)",
                    "k",
                    launch1(48, 4, offset),
                    {KernelArgSpec::buffer(floatPattern(48 * 4, 4)), KernelArgSpec::buffer(pattern(48 * 16, 5)),
                     KernelArgSpec::buffer(pattern(48 * 4, 6))}});
  }
}

TEST_CASE("local memory and barriers: per-group reduction", "[transformer][device]") {
  const std::string src = R"(
__kernel void reduce(__global const float* in, __global float* out, __local float* scratch) {
  __local float tile[16];
  size_t l = get_local_id(0), n = get_local_size(0);
  tile[l] = in[get_global_id(0) - get_global_offset(0)];
  scratch[l] = 1.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (l < s) { tile[l] += tile[l + s]; scratch[l] += scratch[l + s]; }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tile[0] + scratch[0] * get_num_groups(0);
})";
  checkSemantics({"local-barrier",
                  src,
                  "",
                  "reduce",
                  launch1(128, 16, 32),
                  {KernelArgSpec::buffer(floatPattern(128, 7)), KernelArgSpec::buffer(pattern(8 * 4, 8)),
                   KernelArgSpec::local(16 * sizeof(float))}});
}

TEST_CASE("a kernel called from a kernel", "[transformer][device]") {
  const std::string src = R"(
__kernel void inner(__global uint* out) {
  size_t i = get_global_id(0) - get_global_offset(0);
  out[i] = get_group_id(0) * 7 + get_num_groups(0);
}
__kernel void outer(__global uint* out, __global uint* sizes) {
  inner(out);
  sizes[get_global_id(0) - get_global_offset(0)] = get_global_size(0);
})";
  checkSemantics({"kernel-calls-kernel",
                  src,
                  "",
                  "outer",
                  launch1(40, 5, 10),
                  {KernelArgSpec::buffer(pattern(160, 9)), KernelArgSpec::buffer(pattern(160, 10))}});
}

TEST_CASE("struct arguments by value and pragmas removed", "[transformer][device]") {
  const std::string src = R"(
typedef struct { float a; int b; } Params;
__kernel void k(__global float* out, Params p) {
  size_t x = get_global_id(0), y = get_global_id(1);
  out[y * get_global_size(0) + x] = p.a * get_group_id(1) + p.b + get_num_groups(0);
  #pragma write out[y * get_global_size(0) + x, y * get_global_size(0) + x]
}
#pragma opencl_increasing_buffer out
)";
  Launch l;
  l.dims = 2;
  l.global = {16, 16, 1};
  l.local = {4, 4, 1};
  struct Params {
    float a;
    int b;
  };
  checkSemantics({"struct-arg",
                  src,
                  "",
                  "k",
                  l,
                  {KernelArgSpec::buffer(pattern(16 * 16 * 4, 11)), KernelArgSpec::scalar(Params{1.5f, 4})}});
}

TEST_CASE("helpers in included files are rewritten in the vendor copy", "[transformer][device][include]") {
  char tmpl[] = "/tmp/clsplit-transformer-XXXXXX";
  std::filesystem::path dir = mkdtemp(tmpl);
  std::ofstream(dir / "ids.h") << "#ifndef IDS_H\n#define IDS_H\n"
                                  "uint group_plus(uint v) { return v + get_group_id(0); }\n"
                                  "#endif\n";
  std::ofstream(dir / "consts.h") << "#pragma once\n#define FACTOR 3\n";
  const std::string src = "#include \"ids.h\"\n#include <consts.h>\n#include \"ids.h\"\n"
                          "__kernel void k(__global uint* out) {\n"
                          "  out[get_global_id(0)] = group_plus(FACTOR) * get_num_groups(0);\n}\n";
  std::string options = "-I " + dir.string();
  checkSemantics({"include", src, options, "k", launch1(32, 4, 0), {KernelArgSpec::buffer(pattern(128, 12))}});
  // The vendor copy no longer needs the include path to find what was rewritten.
  ProgramAnalysis analysis = analyzeProgram(src, options);
  cl_program noIncludePath = device().build(analysis.vendorSource, "");
  clReleaseProgram(noIncludePath);
  std::filesystem::remove_all(dir);
}

TEST_CASE("OpenCL C 2.0 linear ids", "[transformer][device]") {
  const std::string src = R"(
__kernel void k(__global uint* out) {
  size_t i = get_global_linear_id();
  out[i] = i * 10 + get_group_id(1) + get_enqueued_local_size(0);
})";
  Launch l;
  l.dims = 2;
  l.global = {8, 12, 1};
  l.local = {4, 3, 1};
  l.offset = {2, 3, 0};
  checkSemantics({"cl20", src, "-cl-std=CL2.0", "k", l, {KernelArgSpec::buffer(pattern(96 * 4, 13))}});
}
