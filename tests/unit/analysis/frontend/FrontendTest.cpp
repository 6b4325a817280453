// The Clang front end: IR shape, build options, includes, pragma markers and pragma errors,
// and errors that must be reported rather than crash.
#include "analysis/frontend/Frontend.h"
#include "analysis/frontend/PragmaMarkers.h"

#include <catch2/catch.hpp>
#include <llvm/IR/CallingConv.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace clsplit::analysis::frontend;
namespace fs = std::filesystem;

namespace {

std::vector<llvm::CallInst*> callsIn(llvm::Function& f) {
  std::vector<llvm::CallInst*> calls;
  for (auto& bb : f)
    for (auto& inst : bb)
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst)) calls.push_back(call);
  return calls;
}

std::vector<llvm::CallInst*> markerCalls(llvm::Function& f, MarkerKind kind) {
  std::vector<llvm::CallInst*> out;
  for (auto* call : callsIn(f))
    if (auto* callee = call->getCalledFunction())
      if (markerKind(callee->getName()) == kind) out.push_back(call);
  return out;
}

// The float constant stored by the single store in `f`.
std::optional<double> storedConstant(llvm::Function& f) {
  for (auto& bb : f)
    for (auto& inst : bb)
      if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst))
        if (auto* c = llvm::dyn_cast<llvm::ConstantFP>(store->getValueOperand()))
          return c->getValueAPF().convertToFloat();
  return std::nullopt;
}

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/clsplit-frontend-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    fs::create_directories((path / name).parent_path());
    std::ofstream(path / name) << text;
  }
};

struct ChangeDirectory {
  fs::path previous = fs::current_path();
  explicit ChangeDirectory(const fs::path& to) { fs::current_path(to); }
  ~ChangeDirectory() { fs::current_path(previous); }
};

} // namespace

TEST_CASE("a program becomes inlined SSA IR on spir64", "[frontend]") {
  llvm::LLVMContext ctx;
  std::string diags;
  auto m = compileToIR(ctx, R"(
    float twice(float x) { return 2.0f * x; }
    __kernel void k(__global float* A, __constant float* C, __local float* L, int n) {
      size_t i = get_global_id(0);
      L[get_local_id(0)] = C[i];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (i < n) A[i] = twice(L[0]);
    }
    __kernel void outer(__global float* A) { k(A, 0, 0, 0); }
  )",
                       "", &diags);
  INFO(diags);
  REQUIRE(m);
  CHECK(m->getTargetTriple() == "spir64-unknown-unknown");
  llvm::Function* k = m->getFunction("k");
  REQUIRE(k);
  CHECK(k->getCallingConv() == llvm::CallingConv::SPIR_KERNEL);
  REQUIRE(k->arg_size() == 4);
  CHECK(k->getArg(0)->getType()->getPointerAddressSpace() == 1);
  CHECK(k->getArg(1)->getType()->getPointerAddressSpace() == 2);
  CHECK(k->getArg(2)->getType()->getPointerAddressSpace() == 3);
  CHECK(m->getFunction("twice") == nullptr); // inlined, then deleted
  for (auto& bb : *k)
    for (auto& inst : bb) CHECK_FALSE(llvm::isa<llvm::AllocaInst>(inst)); // SSA
  bool callsGlobalId = false;
  for (auto* call : callsIn(*k))
    if (call->getCalledFunction() && call->getCalledFunction()->getName().contains("get_global_id"))
      callsGlobalId = true;
  CHECK(callsGlobalId);
  // A kernel called from a kernel is inlined into its caller but stays a kernel.
  llvm::Function* outer = m->getFunction("outer");
  REQUIRE(outer);
  for (auto* call : callsIn(*outer)) CHECK(call->getCalledFunction() != k);
  // Every instruction knows its source line.
  for (auto& bb : *k)
    for (auto& inst : bb) CHECK(inst.getDebugLoc());
}

TEST_CASE("-D macros change the IR", "[frontend][options]") {
  const char* src = "__kernel void k(__global float* A) { A[get_global_id(0)] = SCALE; }\n";
  llvm::LLVMContext ctx;
  auto three = compileToIR(ctx, src, "-DSCALE=3.0f");
  auto five = compileToIR(ctx, src, "-D SCALE=5.0f -cl-nv-verbose");
  REQUIRE(three);
  REQUIRE(five);
  CHECK(storedConstant(*three->getFunction("k")) == 3.0);
  CHECK(storedConstant(*five->getFunction("k")) == 5.0);
  std::string diags;
  CHECK_FALSE(compileToIR(ctx, src, "", &diags));
  CHECK(diags.find("<source>:1:") != std::string::npos);
  CHECK(diags.find("SCALE") != std::string::npos);
  CHECK_FALSE(compileToIR(ctx, src, "-DSCALE=3.0f -USCALE"));
}

TEST_CASE("-cl-std, math flags, -w and -Werror are honoured", "[frontend][options]") {
  llvm::LLVMContext ctx;
  const char* cl20 = "__kernel void k(__global int* A) { A[get_global_linear_id()] = 1; }\n";
  CHECK_FALSE(compileToIR(ctx, cl20, ""));
  CHECK(compileToIR(ctx, cl20, "-cl-std=CL2.0"));

  const char* fast = "#ifndef __FAST_RELAXED_MATH__\n#error not fast\n#endif\n"
                     "__kernel void k(__global float* A) { A[0] = 1.0f; }\n";
  CHECK_FALSE(compileToIR(ctx, fast, ""));
  CHECK(compileToIR(ctx, fast, "-cl-fast-relaxed-math"));

  const char* warns = "#warning careful\n__kernel void k(__global float* A) { A[0] = 1.0f; }\n";
  CompileResult plain = compile(ctx, warns, "");
  CHECK(plain.ok());
  CHECK(plain.warnings.size() == 1);
  CompileResult werror = compile(ctx, warns, "-Werror");
  CHECK_FALSE(werror.ok());
  CompileResult quiet = compile(ctx, warns, "-w -Werror");
  CHECK(quiet.ok());
  CHECK(quiet.warnings.empty());
}

TEST_CASE("includes resolve through -I and the working directory", "[frontend][include]") {
  TempDir dir;
  dir.write("inc/defs.h", "#define FROM_I 7.0f\n");
  dir.write("local.cl", "#include \"sub/nested.h\"\nfloat local_value(void) { return NESTED; }\n");
  dir.write("sub/nested.h", "#define NESTED 2.0f\n");
  const std::string src = "#include \"defs.h\"\n#include \"local.cl\"\n"
                          "__kernel void k(__global float* A) { A[0] = FROM_I + local_value(); }\n";
  llvm::LLVMContext ctx;
  std::string diags;
  {
    ChangeDirectory cd(dir.path);
    auto m = compileToIR(ctx, src, "-I " + (dir.path / "inc").string(), &diags);
    INFO(diags);
    REQUIRE(m);
    CHECK(storedConstant(*m->getFunction("k")) == 9.0);
    // Relative -I directories are relative to the working directory.
    CHECK(compileToIR(ctx, src, "-Iinc"));
  }
  diags.clear();
  CHECK_FALSE(compileToIR(ctx, src, "-I " + (dir.path / "inc").string(), &diags));
  CHECK(diags.find("local.cl") != std::string::npos); // not found outside that directory
}

TEST_CASE("errors are reported, never fatal to the process", "[frontend][errors]") {
  llvm::LLVMContext ctx;
  std::string diags;
  CHECK_FALSE(compileToIR(ctx, "__kernel void k(__global int* A) {\n  A[0] = ;\n}\n", "", &diags));
  CHECK(diags.find("<source>:2:") != std::string::npos);

  CompileResult missing = compile(ctx, "#include \"does-not-exist.h\"\n__kernel void k() {}\n", "");
  CHECK_FALSE(missing.ok());
  CHECK_FALSE(missing.crashed);
  REQUIRE_FALSE(missing.errors.empty());
  CHECK(missing.errors[0].message.find("does-not-exist.h") != std::string::npos);
  CHECK(missing.errors[0].where.line == 1);

  CompileResult empty = compile(ctx, "", "");
  CHECK(empty.ok());                                                        // an empty program is valid
  static const char kGarbage[] = "\x01\x02\xff\xfe{{{((( __kernel \0 void"; // an embedded NUL too
  std::string garbage(kGarbage, sizeof kGarbage - 1);
  CHECK_FALSE(compile(ctx, garbage, "").ok());
  std::string deep =
      "__kernel void k(__global int* A) { A[0] = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "; }";
  CompileResult deepResult = compile(ctx, deep, "");
  CHECK_FALSE(deepResult.ok());
  CHECK_FALSE(deepResult.crashed);
  CHECK(compile(ctx, "__kernel void k(__global int* A) { A[0] = 1; }", "-I").ok());
}

TEST_CASE("the embedded OpenCL headers provide the language", "[frontend]") {
  llvm::LLVMContext ctx;
  std::string diags;
  auto m = compileToIR(ctx, R"(
    #pragma OPENCL EXTENSION cl_khr_fp64 : enable
    typedef struct { float4 p; int id; } Particle;
    __kernel void k(__global Particle* P, __global double* D, read_only image2d_t img,
                    sampler_t s, __local float* L) {
      int i = get_global_id(0);
      float4 v = vload4(i, (__global float*)P) + read_imagef(img, s, (int2)(0, 0));
      P[i].p = v * (float4)(M_PI_F);
      P[i].id = convert_int_sat(v.x) + CLK_LOCAL_MEM_FENCE;
      D[i] = sqrt((double)i);
      atomic_add(&P[0].id, 1);
      barrier(CLK_GLOBAL_MEM_FENCE);
    }
  )",
                       "", &diags);
  INFO(diags);
  CHECK(m);
}

TEST_CASE("pragmas become marker calls in the IR", "[frontend][pragma]") {
  llvm::LLVMContext ctx;
  std::string diags;
  auto m = compileToIR(ctx, R"(#pragma opencl_decreasing_buffer D
__kernel void k(__global float* A, __constant int* IA, __global int* D, int n) {
  int i = get_global_id(0);
  if (i < n) {
    A[i] = IA[i];
    #pragma read IA[i, i + 1]
  }
  #pragma opencl_increasing_buffer IA
}
__kernel void other(__global float* A) { A[0] = 0; }
)",
                       "", &diags);
  INFO(diags);
  REQUIRE(m);
  llvm::Function* k = m->getFunction("k");
  auto reads = markerCalls(*k, MarkerKind::Read);
  REQUIRE(reads.size() == 1);
  CHECK(reads[0]->getArgOperand(0) == k->getArg(1));
  CHECK(reads[0]->getArgOperand(0)->getType()->getPointerAddressSpace() == 2);
  auto* size = llvm::dyn_cast<llvm::ConstantInt>(reads[0]->getArgOperand(3));
  REQUIRE(size);
  CHECK(size->getZExtValue() == 4);
  CHECK(reads[0]->getDebugLoc().getLine() == 6);
  // Guarded like the statement it stands among: not in the entry block.
  CHECK(reads[0]->getParent() != &k->getEntryBlock());
  auto incr = markerCalls(*k, MarkerKind::Increasing);
  REQUIRE(incr.size() == 1);
  CHECK(incr[0]->getArgOperand(0) == k->getArg(1));
  auto decr = markerCalls(*k, MarkerKind::Decreasing); // from file scope
  REQUIRE(decr.size() == 1);
  CHECK(decr[0]->getArgOperand(0) == k->getArg(2));
  CHECK(markerCalls(*m->getFunction("other"), MarkerKind::Decreasing).empty());
}

TEST_CASE("pragmas in included files are lowered too", "[frontend][pragma][include]") {
  TempDir dir;
  dir.write("body.h", "void touch(__global float* B, int i) {\n  B[i] = 0;\n  #pragma write B[i, i]\n}\n");
  llvm::LLVMContext ctx;
  std::string diags;
  auto m = compileToIR(ctx, "#include \"body.h\"\n__kernel void k(__global float* A) { touch(A, 3); }\n",
                       "-I" + dir.path.string(), &diags);
  INFO(diags);
  REQUIRE(m);
  auto writes = markerCalls(*m->getFunction("k"), MarkerKind::Write);
  REQUIRE(writes.size() == 1);
  CHECK(writes[0]->getArgOperand(0) == m->getFunction("k")->getArg(0));
}

TEST_CASE("malformed pragmas are build errors with their line", "[frontend][pragma][errors]") {
  llvm::LLVMContext ctx;
  struct Case {
    const char* body;
    const char* expect;
  };
  const Case cases[] = {
      {"  #pragma read Nope[0, 1]\n", "Nope"},                            // unknown buffer
      {"  #pragma read A[0 1]\n", "[first, last]"},                       // bad syntax
      {"  #pragma write A[0, undefined_thing + 1]\n", "undefined_thing"}, // bad expression
      {"  #pragma atomic n[0, 1]\n", "'n' must name a __global or __constant buffer"},
      {"  if (n)\n  #pragma read A[0, 1]\n  A[0] = 1;\n", "between statements"},
  };
  for (const Case& c : cases) {
    std::string src = std::string("__kernel void k(__global float* A, int n) {\n") + c.body + "}\n";
    CompileResult r = compile(ctx, src, "");
    INFO(src << r.log);
    CHECK_FALSE(r.ok());
    REQUIRE(r.pragmaErrors.size() == 1);
    CHECK(r.pragmaErrors[0].where.file.empty());
    CHECK(r.pragmaErrors[0].where.line == (std::string(c.body).find("if") != std::string::npos ? 3 : 2));
    CHECK(r.pragmaErrors[0].message.find(c.expect) != std::string::npos);
    CHECK(r.errors.empty());
  }

  CompileResult fileScope =
      compile(ctx, "\n#pragma opencl_increasing_buffer Q\n__kernel void k(__global int* A) {}\n", "");
  REQUIRE(fileScope.pragmaErrors.size() == 1);
  CHECK(fileScope.pragmaErrors[0].where.line == 2);
  CHECK(fileScope.pragmaErrors[0].message.find("'Q'") != std::string::npos);

  // Inactive code is not checked, exactly as the preprocessor would not see it.
  CompileResult inactive =
      compile(ctx,
              "#if 0\n#pragma read A[0 1]\n#pragma opencl_increasing_buffer Q\n#endif\n"
              "__kernel void k(__global float* A) {\n#ifdef NOPE\n  #pragma read Z[0,1]\n#endif\n}\n",
              "");
  INFO(inactive.log);
  CHECK(inactive.ok());

  // An ordinary error elsewhere is not a pragma error.
  CompileResult other =
      compile(ctx, "__kernel void k(__global float* A) {\n  #pragma read A[0, 1]\n  A[0] = nope;\n}\n", "");
  CHECK(other.pragmaErrors.empty());
  REQUIRE(other.errors.size() == 1);
  CHECK(other.errors[0].where.line == 3);
}

TEST_CASE("every compilation is counted", "[frontend]") {
  llvm::LLVMContext ctx;
  uint64_t before = clangInvocationCount();
  compile(ctx, "__kernel void k() {}", "");
  CompileOptions parseOnly;
  parseOnly.emitIR = false;
  compile(ctx, "__kernel void k() {}", "", parseOnly);
  CHECK(clangInvocationCount() == before + 2);
}

TEST_CASE("Clang fatal errors and crashes are contained", "[frontend][errors]") {
  llvm::LLVMContext ctx;
  CompileOptions raw; // compile the text as it is: the analysis copy drops these pragmas
  raw.lowerPragmas = false;
  for (const char* pragma : {"llvm_fatal_error", "crash"}) {
    std::string src =
        std::string("#pragma clang __debug ") + pragma + "\n__kernel void k(__global int* A) { A[0] = 1; }\n";
    CompileResult r = compile(ctx, src, "", raw);
    INFO(pragma);
    CHECK(r.crashed);
    CHECK_FALSE(r.ok());
    CHECK_FALSE(r.module);
    REQUIRE_FALSE(r.errors.empty());
    // The analysis copy does not carry them, so the program itself compiles.
    CHECK(compile(ctx, src, "").ok());
  }
  CHECK(compile(ctx, "__kernel void k(__global int* A) { A[0] = 1; }", "").ok()); // still usable
}
