// The transformer on source text: what the vendor copy looks like, which kernels are
// partition-ready and why not, and the argument descriptions.
#include "analysis/Analysis.h"
#include "analysis/frontend/Frontend.h"
#include "analysis/transformer/Prelude.h"

#include <catch2/catch.hpp>
#include <llvm/IR/LLVMContext.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include <stdlib.h> // mkdtemp

using namespace clsplit::analysis;

namespace {

ProgramAnalysis analyze(const std::string& src, const std::string& options = "") {
  return analyzeProgram(src, options, {});
}

// The user's program inside the vendor copy: what follows the prelude's `#line 1`.
std::string userPart(const std::string& vendor) {
  size_t at = vendor.find("#line 1\n");
  REQUIRE(at != std::string::npos);
  return vendor.substr(at + 8);
}

bool compiles(const std::string& src, const std::string& options = "") {
  llvm::LLVMContext ctx;
  frontend::CompileOptions check;
  check.emitIR = false;
  check.lowerPragmas = false;
  return frontend::compile(ctx, src, options, check).ok();
}

size_t count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

} // namespace

TEST_CASE("kernels and the helpers that need it get the hidden arguments", "[transformer]") {
  const std::string src = "float plain(float x) { return x + 1.0f; }\n"
                          "size_t groups(void) { return get_num_groups(0); }\n"
                          "size_t outerHelper(int a) { return groups() + a; }\n"
                          "__kernel void k(__global float* A, int n) {\n"
                          "  A[get_global_id(0)] = plain(outerHelper(n));\n"
                          "}\n"
                          "__kernel void noBuiltins(__global float* A) { A[0] = plain(2.0f); }\n";
  ProgramAnalysis a = analyze(src);
  INFO(a.vendorSource);
  std::string user = userPart(a.vendorSource);
  CHECK(user.find("float plain(float x) {") != std::string::npos);
  CHECK(user.find("size_t groups(ulong4 __clsplit_goffset, ulong4 __clsplit_gsize) {") != std::string::npos);
  CHECK(user.find("size_t outerHelper(int a, ulong4 __clsplit_goffset, ulong4 __clsplit_gsize) {") !=
        std::string::npos);
  CHECK(user.find("return groups(__clsplit_goffset, __clsplit_gsize) + a;") != std::string::npos);
  CHECK(user.find("plain(outerHelper(n, __clsplit_goffset, __clsplit_gsize))") != std::string::npos);
  CHECK(
      user.find("__kernel void k(__global float* A, int n, ulong4 __clsplit_goffset, ulong4 __clsplit_gsize, "
                "long __clsplit_shift0) { __CLSPLIT_REBASE(__global float *, __global char *, A, __clsplit_shift0);") !=
      std::string::npos);
  // Every kernel gets them, used or not: the runtime's launch convention is uniform.
  CHECK(user.find("__kernel void noBuiltins(__global float* A, ulong4 __clsplit_goffset, ulong4 __clsplit_gsize, "
                  "long __clsplit_shift0)") != std::string::npos);
  // Line numbers of the user's code are unchanged.
  CHECK(std::count(user.begin(), user.end(), '\n') == std::count(src.begin(), src.end(), '\n'));
  REQUIRE(a.kernels.size() == 2);
  for (const auto& k : a.kernels) CHECK(k.partitionReady);
  CHECK(compiles(a.vendorSource));
}

TEST_CASE("kernel arguments are described from the AST", "[transformer]") {
  ProgramAnalysis a = analyze(R"(
typedef struct { float x; } S;
typedef uint index_t;
enum Mode { A, B };
__kernel void k(__global float* f, __constant int* c, __local double* l, const uint n,
                long big, float scale, index_t idx, enum Mode mode, S s, float4 v,
                read_only image2d_t img, sampler_t smp, __global const uchar* bytes,
                __global float4* vecs, char ch, ushort us, ulong ul, double d, short sh) {}
)");
  REQUIRE(a.kernels.size() == 1);
  const auto& args = a.kernels[0].args;
  REQUIRE(args.size() == 19);
  auto expect = [&](size_t i, const char* name, ArgKind kind, ScalarType type) {
    INFO("argument " << i);
    CHECK(args[i].name == name);
    CHECK(args[i].kind == kind);
    CHECK(args[i].scalarType == type);
  };
  expect(0, "f", ArgKind::GlobalBuffer, ScalarType::F32);
  expect(1, "c", ArgKind::ConstantBuffer, ScalarType::I32);
  expect(2, "l", ArgKind::LocalBuffer, ScalarType::F64);
  expect(3, "n", ArgKind::Scalar, ScalarType::U32);
  expect(4, "big", ArgKind::Scalar, ScalarType::I64);
  expect(5, "scale", ArgKind::Scalar, ScalarType::F32);
  expect(6, "idx", ArgKind::Scalar, ScalarType::U32);
  expect(7, "mode", ArgKind::Scalar, ScalarType::U32);
  expect(8, "s", ArgKind::Scalar, ScalarType::Unknown);
  expect(9, "v", ArgKind::Scalar, ScalarType::Unknown);
  expect(10, "img", ArgKind::Image, ScalarType::Unknown);
  expect(11, "smp", ArgKind::Sampler, ScalarType::Unknown);
  expect(12, "bytes", ArgKind::GlobalBuffer, ScalarType::U8);
  expect(13, "vecs", ArgKind::GlobalBuffer, ScalarType::Unknown);
  expect(14, "ch", ArgKind::Scalar, ScalarType::I8);
  expect(15, "us", ArgKind::Scalar, ScalarType::U16);
  expect(16, "ul", ArgKind::Scalar, ScalarType::U64);
  expect(17, "d", ArgKind::Scalar, ScalarType::F64);
  expect(18, "sh", ArgKind::Scalar, ScalarType::I16);
}

TEST_CASE("clsplit pragmas are removed from the vendor copy, lines kept", "[transformer][pragma]") {
  const std::string src = "#pragma opencl_increasing_buffer IA\n"
                          "__kernel void k(__global int* IA, __global float* A) {\n"
                          "  int i = get_global_id(0);\n"
                          "  #pragma read IA[i, \\\n"
                          "      i + 1]\n"
                          "  A[i] = IA[i + 1] - IA[i];\n"
                          "  #pragma write A[i, i]\n"
                          "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                          "}\n";
  ProgramAnalysis a = analyze(src);
  INFO(a.vendorSource);
  std::string user = userPart(a.vendorSource);
  CHECK(user.find("opencl_increasing_buffer") == std::string::npos);
  CHECK(user.find("#pragma read") == std::string::npos);
  CHECK(user.find("#pragma write") == std::string::npos);
  CHECK(user.find("__clsplit_pragma") == std::string::npos);
  CHECK(user.find("#pragma OPENCL EXTENSION cl_khr_fp64 : enable") != std::string::npos); // not ours
  CHECK(std::count(user.begin(), user.end(), '\n') == std::count(src.begin(), src.end(), '\n'));
  // Line 6 is still line 6.
  size_t line6 = 0;
  for (int i = 0; i < 5; ++i) line6 = user.find('\n', line6) + 1;
  CHECK(user.substr(line6, user.find('\n', line6) - line6) == "  A[i] = IA[i + 1] - IA[i];");
}

TEST_CASE("a helper that cannot receive the hidden arguments makes its callers run whole", "[transformer]") {
  // CALL_HELPER comes from -D: its call cannot be rewritten, so `helper` keeps its signature
  // and reads the launch's own values, which are right only for a whole launch.
  const std::string src = "uint helper(uint v) { return v + get_group_id(0); }\n"
                          "uint clean(uint v) { return v + get_group_id(0); }\n"
                          "__kernel void usesMacro(__global uint* A) { A[0] = CALL_HELPER; }\n"
                          "__kernel void direct(__global uint* A) { A[0] = clean(1); }\n";
  ProgramAnalysis a = analyze(src, "-DCALL_HELPER=helper(3)");
  INFO(a.vendorSource);
  const KernelAnalysis* usesMacro = a.find("usesMacro");
  const KernelAnalysis* direct = a.find("direct");
  REQUIRE(usesMacro);
  REQUIRE(direct);
  CHECK(usesMacro->partitionReady);
  REQUIRE(usesMacro->unsplittableReason);
  CHECK(usesMacro->unsplittableReason->find("'helper'") != std::string::npos);
  CHECK(usesMacro->unsplittableReason->find("-D") != std::string::npos);
  CHECK(direct->partitionReady);
  CHECK(direct->unsplittableReason.value_or("").find("cannot receive") == std::string::npos);
  std::string user = userPart(a.vendorSource);
  CHECK(user.find("uint helper(uint v) { ulong4 __clsplit_goffset = __clsplit_launch_offset();") != std::string::npos);
  CHECK(compiles(a.vendorSource, "-DCALL_HELPER=helper(3)"));
}

TEST_CASE("kernels whose signature cannot be rewritten keep it", "[transformer]") {
  const std::string src = "#define PARAMS (__global uint* A)\n"
                          "__kernel void fromMacro PARAMS { A[0] = get_num_groups(0); }\n"
                          "__kernel void normal(__global uint* A) { A[0] = get_num_groups(0); }\n";
  ProgramAnalysis a = analyze(src);
  INFO(a.vendorSource);
  const KernelAnalysis* fromMacro = a.find("fromMacro");
  REQUIRE(fromMacro);
  CHECK_FALSE(fromMacro->partitionReady);
  REQUIRE(fromMacro->unsplittableReason);
  CHECK(fromMacro->unsplittableReason->find("macro") != std::string::npos);
  CHECK(a.find("normal")->partitionReady);
  CHECK(compiles(a.vendorSource));
}

TEST_CASE("macros calling helpers are rewritten where the call is spelled", "[transformer]") {
  const std::string src = "uint helper(uint v) { return v * get_global_size(0); }\n"
                          "#define H(x) helper(x)\n"
                          "#define TWICE(x) ((x) + (x))\n"
                          "__kernel void k(__global uint* A) { A[0] = H(1) + TWICE(helper(2)); }\n";
  ProgramAnalysis a = analyze(src);
  INFO(a.vendorSource);
  std::string user = userPart(a.vendorSource);
  CHECK(user.find("#define H(x) helper(x, __clsplit_goffset, __clsplit_gsize)") != std::string::npos);
  CHECK(user.find("TWICE(helper(2, __clsplit_goffset, __clsplit_gsize))") != std::string::npos);
  CHECK(count(user, "(x, __clsplit_goffset, __clsplit_gsize)") == 1);
  CHECK(count(user, "(2, __clsplit_goffset, __clsplit_gsize)") == 1);
  CHECK(a.find("k")->partitionReady);
  CHECK(compiles(a.vendorSource));
}

TEST_CASE("the program's own prototypes of rewritten built-ins are dropped", "[transformer]") {
  const std::string src = "size_t get_group_id(uint dim);\n"
                          "__kernel void k(__global uint* A) { A[0] = get_group_id(0); }\n";
  ProgramAnalysis a = analyze(src);
  INFO(a.vendorSource);
  CHECK(userPart(a.vendorSource).find("size_t get_group_id(uint dim)") == std::string::npos);
  CHECK(a.find("k")->partitionReady);
  CHECK(compiles(a.vendorSource));
}

TEST_CASE("vendor-dependent branches using built-ins make the program run whole", "[transformer]") {
  const std::string risky = "__kernel void k(__global uint* A) {\n"
                            "#ifdef __NV_CL_C_VERSION\n  A[0] = get_num_groups(0);\n#else\n  A[0] = 1;\n#endif\n}\n";
  ProgramAnalysis a = analyze(risky);
  REQUIRE(a.kernels.size() == 1);
  CHECK_FALSE(a.kernels[0].partitionReady);
  REQUIRE(a.kernels[0].unsplittableReason);
  CHECK(a.kernels[0].unsplittableReason->find("get_num_groups") != std::string::npos);
  CHECK(a.vendorSource == risky); // nothing to strip, nothing rewritten
  // `#if 0` is dead for everyone.
  const std::string dead = "__kernel void k(__global uint* A) {\n#if 0\n  A[0] = get_num_groups(0);\n#endif\n}\n";
  CHECK(analyze(dead).kernels[0].partitionReady);
}

TEST_CASE("branches chosen by the program's own macros do not stop the split", "[transformer]") {
  // NAS-style: the problem class and code path come from -D options and the program's #defines.
  const std::string own = "#define TILE 4\n#define USE_TILES (TILE > 2)\n"
                          "__kernel void k(__global uint* A) {\n"
                          "#if CLASS == 2 && USE_TILES\n  A[get_global_id(0)] = 1;\n"
                          "#elif CLASS == 3\n  A[0] = get_num_groups(0);\n#else\n  A[1] = get_local_size(0);\n#endif\n"
                          "#ifdef USE_CPU\n  A[2] = get_group_id(0);\n#endif\n"
                          "#if 0\n  A[3] = get_num_groups(0);\n#endif\n}\n";
  ProgramAnalysis a = analyze(own, "-DCLASS=2");
  REQUIRE(a.kernels.size() == 1);
  INFO(a.kernels[0].unsplittableReason.value_or(""));
  CHECK(a.kernels[0].partitionReady);
  // NAS's headers: a reserved-looking include guard, values chosen by -D USE_CPU, and a
  // kernel's name in a comment of the skipped branch.
  const std::string guarded = "#ifndef __DIMS_H__\n#define __DIMS_H__\n#define DIM_CPU 1\n#define DIM_GPU 2\n#endif\n"
                              "#ifdef USE_CPU\n#define DIM DIM_CPU\n#else\n#define DIM DIM_GPU\n#endif\n"
                              "__kernel void add(__global uint* A) {\n#if DIM == 2\n  A[get_global_id(0)] = 2;\n"
                              "#else\n  // add the group's id\n  A[0] = get_group_id(0);\n#endif\n}\n";
  ProgramAnalysis g = analyze(guarded);
  INFO(g.kernels[0].unsplittableReason.value_or(""));
  CHECK(g.kernels[0].partitionReady);
  // A chain decided by its first branch: what comes after it is compiled by nobody.
  const std::string decidedFirst = "__kernel void k(__global uint* A) {\n#if 1\n  A[0] = 1;\n"
                                   "#elif __OPENCL_VERSION__ >= 200\n  A[0] = get_num_groups(0);\n#endif\n}\n";
  CHECK(analyze(decidedFirst).kernels[0].partitionReady);
}

TEST_CASE("branches a vendor's macros may choose make the program run whole", "[transformer]") {
  auto reason = [](const std::string& src, const std::string& options = "") {
    ProgramAnalysis a = analyze(src, options);
    REQUIRE(a.kernels.size() == 1);
    CHECK_FALSE(a.kernels[0].partitionReady);
    return a.kernels[0].unsplittableReason.value_or("");
  };
  // Each condition holds here: the branch clsplit did not compile is the one using get_num_groups.
  const std::string body = "  A[0] = 1;\n#else\n  A[0] = get_num_groups(0);\n#endif\n}\n";
  const std::string head = "__kernel void k(__global uint* A) {\n";
  // Directly, through the program's macro, and through macros (un)defined in a vendor branch.
  CHECK(reason(head + "#if __OPENCL_VERSION__ < 200\n" + body).find("get_num_groups") != std::string::npos);
  CHECK(reason("#define NEW_CL (__OPENCL_VERSION__ >= 200)\n" + head + "#if !NEW_CL\n" + body) != "");
  CHECK(reason("#ifdef cl_khr_fp64\n#define WIDE 1\n#endif\n" + head + "#ifdef WIDE\n" + body) != "");
  CHECK(reason("#define LIMITED\n#ifdef cl_khr_fp64\n#undef LIMITED\n#endif\n" + head + "#ifndef LIMITED\n" + body) !=
        "");
  // Through a macro defined in a vendor branch clsplit's compiler skipped (cl_khr_fp64 is
  // defined here, so the #ifndef block is not compiled here, but a vendor without it defines NARROW).
  CHECK(reason("#ifndef cl_khr_fp64\n#define NARROW 1\n#endif\n" + head + "#ifndef NARROW\n" + body) != "");
  CHECK(reason("#ifdef cl_khr_fp64\n#else\n#  define NARROW\n#endif\n" + head + "#ifndef NARROW\n" + body) != "");
  // A -D option naming a vendor macro is still the vendor's to define.
  CHECK(reason(head + "#if defined(__GPU__)\n" + body, "-D__GPU__") != "");
  // A vendor-only macro, not defined here at all.
  CHECK(reason(head + "#if !defined(cl_nv_pragma_unroll)\n" + body) != "");
}

TEST_CASE("branches on macros the device pins for every vendor do not stop the split", "[transformer]") {
  // What icd/objects/LanguageFeatures.h gives a device reporting OpenCL 3.0 with int64 and
  // device-scope atomics (its vendors' builds get the same text before the program).
  AnalysisOptions pinned;
  pinned.devicePrelude = "#undef __IMAGE_SUPPORT__\n#undef __OPENCL_VERSION__\n#define __OPENCL_VERSION__ 300\n"
                         "#undef __opencl_c_images\n#undef __opencl_c_atomic_scope_device\n#undef __opencl_c_int64\n"
                         "#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 300\n"
                         "#define __opencl_c_atomic_scope_device 1\n#define __opencl_c_int64 1\n#endif\n#line 1\n";
  pinned.pinnedMacros = {"__OPENCL_VERSION__", "__IMAGE_SUPPORT__", "__opencl_c_images",
                         "__opencl_c_atomic_scope_device", "__opencl_c_int64"};
  const std::string head = "__kernel void k(__global uint* A) {\n";
  // Both branches use a built-in the rewrite changes: whichever is skipped would matter.
  const std::string body = "  A[1] = get_num_groups(0) + 1;\n#else\n  A[0] = get_num_groups(0);\n#endif\n}\n";
  for (const std::string condition :
       {"#if __OPENCL_VERSION__ >= 200\n", "#ifndef __IMAGE_SUPPORT__\n", "#if !defined(__opencl_c_images)\n"}) {
    INFO(condition);
    ProgramAnalysis a = analyzeProgram(head + condition + body, "", pinned);
    REQUIRE(a.kernels.size() == 1);
    INFO(a.kernels[0].unsplittableReason.value_or(""));
    CHECK(a.kernels[0].partitionReady);
    // Without the pins the same program runs whole.
    CHECK_FALSE(analyze(head + condition + body).kernels[0].partitionReady);
  }
  // OpenCL C 3.0: Clang's own header defines device-scope atomics itself for SPIR, and takes
  // features back in branches of its own; the prelude, included after it, decides.
  const std::string which = "#ifdef __opencl_c_atomic_scope_device\n__kernel void with(__global int* A) { A[0] = 1; }\n"
                            "#else\n__kernel void without(__global int* A) { A[0] = 2; }\n#endif\n";
  ProgramAnalysis c30 = analyzeProgram(which, "-cl-std=CL3.0", pinned);
  REQUIRE(c30.kernels.size() == 1);
  CHECK(c30.kernels[0].name == "with");
  CHECK(analyzeProgram(which, "-cl-std=cl3.0", pinned).kernels[0].name == "with"); // as Clang spells it too
  CHECK(analyzeProgram(which, "", pinned).kernels[0].name == "without");           // OpenCL C 1.2: no features
  AnalysisOptions without = pinned;
  without.devicePrelude = "#undef __opencl_c_atomic_scope_device\n";
  CHECK(analyzeProgram(which, "-cl-std=CL3.0", without).kernels[0].name == "without");
  ProgramAnalysis split =
      analyzeProgram(head + "#ifdef __opencl_c_atomic_scope_device\n" + body, "-cl-std=CL3.0", pinned);
  INFO(split.kernels[0].unsplittableReason.value_or(""));
  CHECK(split.kernels[0].partitionReady);
  // A -cl-std clsplit's compiler does not take (C++ for OpenCL): another version than the
  // vendors', so nothing is pinned.
  CHECK_FALSE(analyzeProgram(head + "#ifdef __opencl_c_atomic_scope_device\n" + body, "-cl-std=CLC++", pinned)
                  .kernels[0]
                  .partitionReady);
  // A pinned macro the program itself redefines in a vendor-dependent branch is no longer pinned.
  ProgramAnalysis redefined =
      analyzeProgram("#ifdef __GPU__\n#undef __OPENCL_VERSION__\n#define __OPENCL_VERSION__ 100\n#endif\n" + head +
                         "#if __OPENCL_VERSION__ >= 200\n" + body,
                     "", pinned);
  CHECK_FALSE(redefined.kernels[0].partitionReady);
  // Other vendor macros stay the vendor's.
  CHECK_FALSE(analyzeProgram(head + "#ifdef __NV_CL_C_VERSION\n" + body, "", pinned).kernels[0].partitionReady);
}

TEST_CASE("programs clsplit cannot compile run whole from their own source", "[transformer]") {
  const std::string src = "__kernel void k(__global uint* A) { A[0] = vendor_builtin(); }\n"
                          "__kernel void j(__global uint* A) {\n  #pragma read A[0, 1]\n}\n";
  ProgramAnalysis a = analyze(src);
  CHECK(a.errors.empty()); // not clsplit's call to fail the build
  REQUIRE(a.kernels.size() == 2);
  for (const auto& k : a.kernels) {
    CHECK_FALSE(k.partitionReady);
    REQUIRE(k.unsplittableReason);
    CHECK(k.unsplittableReason->find("vendor_builtin") != std::string::npos);
  }
  CHECK(a.vendorSource.find("#pragma read") == std::string::npos);
  CHECK(a.vendorSource.find("vendor_builtin") != std::string::npos);
}

TEST_CASE("the prelude defines get_global_linear_id only where it is a built-in", "[transformer]") {
  CHECK(transformer::prelude(120).find("get_global_linear_id") == std::string::npos);
  CHECK(transformer::prelude(200).find("#define get_global_linear_id()") != std::string::npos);
  CHECK(transformer::prelude(110).find("static") == std::string::npos);
  // A 1.2 program may define its own function of that name.
  ProgramAnalysis a = analyze("size_t get_global_linear_id(void) { return get_global_id(0); }\n"
                              "__kernel void k(__global uint* A) { A[get_global_linear_id()] = get_group_id(0); }\n");
  INFO(a.vendorSource);
  CHECK(a.find("k")->partitionReady);
  CHECK(compiles(a.vendorSource));
}

TEST_CASE("device-side enqueue keeps the program whole", "[transformer]") {
  const std::string src = R"(
__kernel void child(__global int* A) { A[get_global_id(0)] = get_global_size(0); }
__kernel void parent(__global int* A) {
  queue_t q = get_default_queue();
  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(4), ^{ A[get_global_id(0)] = get_group_id(0); });
}
)";
  ProgramAnalysis a = analyze(src, "-cl-std=CL2.0");
  INFO(a.vendorSource << a.buildLogNotes);
  REQUIRE(a.kernels.size() == 2);
  for (const auto& k : a.kernels) {
    CHECK_FALSE(k.partitionReady);
    REQUIRE(k.unsplittableReason);
    CHECK(k.unsplittableReason->find("device-side enqueue") != std::string::npos);
  }
  CHECK(a.vendorSource == src);
}

TEST_CASE("kernels move their buffer pointers back by the window shifts", "[transformer]") {
  const std::string src = "__kernel void c(__global float* const restrict out, __constant int* in, int n,\n"
                          "                __global const float* restrict x, __local float* scratch) {\n"
                          "  out[get_global_id(0)] = in[0] + x[1] + n;\n"
                          "}\n";
  ProgramAnalysis a = analyze(src);
  INFO(a.vendorSource);
  std::string user = userPart(a.vendorSource);
  REQUIRE(a.kernels.size() == 1);
  CHECK(a.kernels[0].partitionReady);
  // One shift per __global or __constant pointer (not __local), in order.
  CHECK(user.find("__local float* scratch, ulong4 __clsplit_goffset, ulong4 __clsplit_gsize, long __clsplit_shift0, "
                  "long __clsplit_shift1, long __clsplit_shift2)") != std::string::npos);
  // A const pointer cannot be assigned: its parameter is renamed and a local takes its name.
  CHECK(user.find("__clsplit_window_out,") != std::string::npos);
  CHECK(user.find(" out = __CLSPLIT_REBASED(__global float *, __global char *, __clsplit_window_out, "
                  "__clsplit_shift0);") != std::string::npos);
  CHECK(user.find("__CLSPLIT_REBASE(__constant int *, __constant char *, in, __clsplit_shift1);") != std::string::npos);
  CHECK(user.find("__CLSPLIT_REBASE(const __global float *, __global char *, x, __clsplit_shift2);") !=
        std::string::npos);
  CHECK(std::count(user.begin(), user.end(), '\n') == std::count(src.begin(), src.end(), '\n'));
}

// clCompileProgram's units: functions other units may call keep their signatures, embedded
// headers are found before disk files and inlined into the vendor copy, calls into other units
// are listed for clLinkProgram's check.
TEST_CASE("a compiled unit keeps the signatures other units may call", "[transformer][unit]") {
  const std::string src = "#include \"shared.h\"\n"
                          "static size_t privateIndex(void) { return get_global_id(0); }\n"
                          "size_t publicIndex(void) { return get_global_id(0); }\n"
                          "int publicPlain(int x) { return x * SCALE; }\n"
                          "__kernel void own(__global int* A) { A[privateIndex()] = tagOf(1); }\n"
                          "__kernel void usesPublic(__global int* A) { A[publicIndex()] = 1; }\n"
                          "__kernel void usesPlain(__global int* A) { A[get_global_id(0)] = publicPlain(2); }\n"
                          "__kernel void usesOther(__global int* A) { A[get_global_id(0)] = elsewhere(3); }\n";
  AnalysisOptions options;
  options.compiledUnit = true;
  options.headers = {{"shared.h", "#pragma once\n#define SCALE 5\n"
                                  "static int tagOf(int x) { return x + (int)get_group_id(0); }\n"
                                  "int elsewhere(int x);\n"}};
  ProgramAnalysis a = analyzeProgram(src, "", options);
  REQUIRE(a.errors.empty());
  auto kernel = [&](const char* name) {
    const KernelAnalysis* k = a.find(name);
    REQUIRE(k);
    return *k;
  };
  CHECK(kernel("own").partitionReady);
  CHECK_FALSE(kernel("own").unsplittableReason);
  CHECK(kernel("usesPlain").partitionReady);
  CHECK_FALSE(kernel("usesPlain").unsplittableReason);
  REQUIRE(kernel("usesPublic").unsplittableReason);
  CHECK(kernel("usesPublic").unsplittableReason->find("another compiled unit may call it") != std::string::npos);
  REQUIRE(kernel("usesOther").unsplittableReason);
  CHECK(kernel("usesOther").unsplittableReason->find("another compiled unit defines") != std::string::npos);
  CHECK(a.externalCalls == std::vector<ExternalCall>{{"elsewhere", false}});
  CHECK(a.externalCallsKnown);

  const std::string vendor = userPart(a.vendorSource);
  // The header is inlined (no vendor could find it on disk), its static helper rewritten.
  CHECK(vendor.find("#include") == std::string::npos);
  CHECK(vendor.find("#pragma once") == std::string::npos);
  CHECK(std::regex_search(vendor, std::regex(R"(tagOf\(int x, ulong4 __clsplit_goffset)")));
  CHECK(std::regex_search(vendor, std::regex(R"(privateIndex\(ulong4 __clsplit_goffset)")));
  // Public functions keep the signatures other units call them with.
  CHECK(vendor.find("size_t publicIndex(void)") != std::string::npos);
  CHECK(vendor.find("int publicPlain(int x)") != std::string::npos);
  CHECK(compiles(a.vendorSource));

  // As a whole program the same public helper takes the hidden arguments.
  AnalysisOptions whole;
  whole.headers = options.headers;
  ProgramAnalysis w = analyzeProgram(src, "", whole);
  REQUIRE(w.find("usesPublic"));
  CHECK_FALSE(w.find("usesPublic")->unsplittableReason);
  CHECK(std::regex_search(userPart(w.vendorSource), std::regex(R"(publicIndex\(ulong4 __clsplit_goffset)")));
}

TEST_CASE("a compiled unit passes the hidden arguments to another unit's kernel", "[transformer][unit]") {
  const std::string src = "kernel void target(global int* A, int k);\n"
                          "kernel void caller(global int* A) {\n"
                          "  target(A, 2);\n"
                          "  A[get_global_id(0)] += 1;\n"
                          "}\n";
  AnalysisOptions options;
  options.compiledUnit = true;
  ProgramAnalysis a = analyzeProgram(src, "", options);
  REQUIRE(a.errors.empty());
  // The kernel takes them in its own unit (with a window shift per buffer, 0 from a caller).
  CHECK(a.externalCalls == std::vector<ExternalCall>{{"target", true}});
  const std::string vendor = userPart(a.vendorSource);
  CHECK(std::regex_search(vendor, std::regex(R"(target\(global int\* A, int k, ulong4 __clsplit_goffset, ulong4 )"
                                             R"(__clsplit_gsize, long __clsplit_shift0\);)")));
  CHECK(std::regex_search(vendor, std::regex(R"(target\(A, 2, __clsplit_goffset, __clsplit_gsize, 0L\))")));
  CHECK(compiles(a.vendorSource));
  // Its body is elsewhere: the caller runs whole.
  REQUIRE(a.find("caller"));
  CHECK(a.find("caller")->partitionReady);
  REQUIRE(a.find("caller")->unsplittableReason);
  CHECK(a.find("caller")->unsplittableReason->find("another compiled unit defines") != std::string::npos);

  // A unit that is not rewritten passes none.
  ProgramAnalysis old = analyzeProgram(src, "-cl-std=CL1.1", options);
  CHECK(old.externalCalls == std::vector<ExternalCall>{{"target", false}});
}

TEST_CASE("embedded headers and the unit flag are part of the analysis cache key", "[transformer][unit]") {
  const std::string src = "#include \"h.h\"\n__kernel void k(__global int* A) { A[get_global_id(0)] = V; }\n";
  AnalysisOptions one, other, unit;
  one.headers = {{"h.h", "#define V 1\n"}};
  other.headers = {{"h.h", "#define V 2\n"}};
  unit = one;
  unit.compiledUnit = true;
  CHECK(analysisCacheKey(src, "", one) != analysisCacheKey(src, "", other));
  CHECK(analysisCacheKey(src, "", one) != analysisCacheKey(src, "", unit));
}

TEST_CASE("a unit compiled as OpenCL C 1.1 is not rewritten", "[transformer][unit]") {
  AnalysisOptions options;
  options.compiledUnit = true;
  ProgramAnalysis a =
      analyzeProgram("__kernel void k(__global int* A) { A[get_global_id(0)] = 1; }\n", "-cl-std=CL1.1", options);
  REQUIRE(a.find("k"));
  CHECK_FALSE(a.find("k")->partitionReady);
}

TEST_CASE("with embedded headers every included file is inlined into the vendor copy", "[transformer][unit]") {
  // On disk, next to the program: util.h includes "cfg.h", and a cfg.h that the embedded one
  // shadows. The analysis skips util.h's include (the embedded cfg.h's guard); a vendor
  // compiling util.h at its own path would find the cfg.h on disk.
  char tmpl[] = "/tmp/clsplit-embedded-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/util.h") << "#include \"cfg.h\"\n";
  std::ofstream(dir + "/cfg.h") << "#undef STRIDE\n#define STRIDE 2\n";
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  AnalysisOptions options;
  options.compiledUnit = true;
  options.headers = {{"cfg.h", "#ifndef CFG_H\n#define CFG_H\n#define STRIDE 1\n#endif\n"}};
  const ProgramAnalysis a = analyzeProgram("#include \"cfg.h\"\n#include \"util.h\"\n"
                                           "__kernel void k(__global int* A) { A[get_global_id(0) * STRIDE] = 7; }\n",
                                           "", options);
  std::filesystem::current_path(cwd);
  std::filesystem::remove_all(dir);
  REQUIRE(a.errors.empty());
  const std::string vendor = userPart(a.vendorSource);
  CHECK(vendor.find("#include") == std::string::npos);
  CHECK(vendor.find("STRIDE 2") == std::string::npos);
  CHECK(vendor.find("STRIDE 1") != std::string::npos);
}
