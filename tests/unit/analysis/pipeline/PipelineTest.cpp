// analyzeProgram() end to end: its result contract, and that no input makes it throw, crash
// or hand vendors a program that does not compile.
#include "analysis/Analysis.h"
#include "analysis/frontend/Frontend.h"

#include <catch2/catch.hpp>
#include <llvm/IR/LLVMContext.h>

#include <random>
#include <thread>

using namespace clsplit::analysis;

namespace {

bool compiles(const std::string& src, const std::string& options) {
  llvm::LLVMContext ctx;
  frontend::CompileOptions check;
  check.emitIR = false;
  check.lowerPragmas = false;
  return frontend::compile(ctx, src, options, check).ok();
}

const std::string kValid = R"(#define TILE 16
#pragma opencl_increasing_buffer rows
float helper(__global const float* x, int i) { return x[i] * get_num_groups(0); }
__kernel void spmv(__global const int* rows, __global const int* cols, __global const float* vals,
                   __global const float* x, __global float* y, int n) {
  int r = get_global_id(0);
  if (r < n) {
    float sum = 0.0f;
    for (int j = rows[r]; j < rows[r + 1]; ++j) sum += vals[j] * helper(x, cols[j]);
    y[r] = sum;
    #pragma write y[r, r]
  }
}
__kernel void scale(__global float* y, float a) {
  __local float tile[TILE];
  tile[get_local_id(0)] = y[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  y[get_global_id(0)] = a * tile[get_local_id(0)] + get_group_id(0);
}
)";

} // namespace

TEST_CASE("a valid program: vendor copy, kernels, arguments", "[pipeline]") {
  ProgramAnalysis a = analyzeProgram(kValid, "", {});
  INFO(a.vendorSource << a.buildLogNotes);
  CHECK(a.errors.empty());
  REQUIRE(a.kernels.size() == 2);
  const KernelAnalysis* spmv = a.find("spmv");
  REQUIRE(spmv);
  CHECK(spmv->partitionReady);
  REQUIRE(spmv->args.size() == 6);
  CHECK(spmv->args[0].name == "rows");
  CHECK(spmv->args[5].kind == ArgKind::Scalar);
  CHECK(a.vendorSource.find("#pragma write") == std::string::npos);
  CHECK(compiles(a.vendorSource, ""));
}

TEST_CASE("a malformed pragma fails the build with its location", "[pipeline][pragma]") {
  std::string src = kValid;
  src.replace(src.find("#pragma write y[r, r]"), 21, "#pragma write y[r r]");
  ProgramAnalysis a = analyzeProgram(src, "", {});
  REQUIRE(a.errors.size() == 1);
  CHECK(a.errors[0].where.line == 11);
  CHECK(a.errors[0].message.find("#pragma write y[r r]") != std::string::npos);
  CHECK(a.vendorSource == src);
  for (const auto& k : a.kernels) CHECK_FALSE(k.partitionReady);
}

TEST_CASE("no input makes analyzeProgram throw, crash, or break the vendor copy", "[pipeline][robustness]") {
  std::mt19937 random(1234);
  const std::vector<std::string> fragments = {"#pragma read ",
                                              "#pragma write y[",
                                              "#pragma opencl_increasing_buffer ",
                                              "]",
                                              "[",
                                              ",",
                                              ":",
                                              "get_group_id(",
                                              "get_global_size(0)",
                                              "(",
                                              ")",
                                              "{",
                                              "}",
                                              ";",
                                              "#define ",
                                              "#include \"",
                                              "\"",
                                              "__kernel void ",
                                              "helper(",
                                              "\\\n",
                                              "/*",
                                              "*/",
                                              "//",
                                              "\n",
                                              "#if 0\n",
                                              "#endif\n",
                                              "\xff",
                                              std::string(1, '\0'),
                                              "__clsplit_goffset",
                                              "#line 0\n"};
  int rewritten = 0;
  for (int iteration = 0; iteration < 120; ++iteration) {
    std::string src = kValid;
    int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = random() % (src.size() + 1);
      switch (random() % 3) {
      case 0:
        src.insert(at, fragments[random() % fragments.size()]);
        break;
      case 1:
        src.erase(at, random() % 8);
        break;
      default:
        src = src.substr(0, at);
        break;
      }
    }
    std::string options = (random() % 5 == 0) ? "-DTILE=8 -cl-nv-verbose -I" : "";
    ProgramAnalysis a;
    REQUIRE_NOTHROW(a = analyzeProgram(src, options, {}));
    INFO("iteration " << iteration << "\n" << src);
    if (!a.errors.empty())
      for (const auto& k : a.kernels) CHECK_FALSE(k.partitionReady);
    bool anyReady = false;
    for (const auto& k : a.kernels) {
      anyReady |= k.partitionReady;
      CHECK((k.partitionReady || k.unsplittableReason.has_value()));
    }
    if (anyReady) {
      ++rewritten;
      CHECK(compiles(a.vendorSource, options));
    }
  }
  CHECK(rewritten > 0); // the mutations leave some programs valid
}

TEST_CASE("hostile and degenerate inputs", "[pipeline][robustness]") {
  for (const std::string& src :
       {std::string(), std::string("\0\0\0", 3), std::string(100000, '{'), std::string("#include \"/dev/zero\"\n"),
        std::string("#include \"/\"\n"), std::string("#pragma read\n"), std::string("__kernel void k(")}) {
    ProgramAnalysis a;
    REQUIRE_NOTHROW(a = analyzeProgram(src, "", {}));
    for (const auto& k : a.kernels) CHECK_FALSE(k.partitionReady);
  }
}

TEST_CASE("concurrent analyses give the sequential results", "[pipeline][threads]") {
  std::vector<std::string> programs;
  for (int i = 0; i < 4; ++i) programs.push_back(kValid + "\n// variant " + std::to_string(i) + "\n");
  programs.push_back("__kernel void k(__global int* A) { A[0] = nope; }\n"); // a failing one
  std::vector<ProgramAnalysis> sequential;
  for (const auto& p : programs) sequential.push_back(analyzeProgram(p, "-DTILE=8", {}));
  std::vector<ProgramAnalysis> parallel(programs.size() * 2);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < parallel.size(); ++t)
    threads.emplace_back([&, t] { parallel[t] = analyzeProgram(programs[t % programs.size()], "-DTILE=8", {}); });
  for (auto& t : threads) t.join();
  for (size_t t = 0; t < parallel.size(); ++t) {
    const ProgramAnalysis& expect = sequential[t % programs.size()];
    CHECK(parallel[t].vendorSource == expect.vendorSource);
    REQUIRE(parallel[t].kernels.size() == expect.kernels.size());
    for (size_t k = 0; k < expect.kernels.size(); ++k) {
      CHECK(parallel[t].kernels[k].partitionReady == expect.kernels[k].partitionReady);
      CHECK(parallel[t].kernels[k].unsplittableReason == expect.kernels[k].unsplittableReason);
      CHECK(toString(parallel[t].kernels[k].regions) == toString(expect.kernels[k].regions));
    }
  }
}
