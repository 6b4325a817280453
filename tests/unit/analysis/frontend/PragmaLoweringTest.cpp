// Pragma lowering on text: the analysis copy holds marker calls, the vendor copy none, and no
// line moves in either.
#include "analysis/frontend/PragmaLowering.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace clsplit::analysis::frontend;

namespace {
size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }
} // namespace

TEST_CASE("read/write/atomic pragmas become marker calls in place", "[frontend][pragma]") {
  std::string src = "__kernel void k(__global float* B, __global int* C, int n) {\n"
                    "  int i = get_global_id(0);\n"
                    "  #pragma read B[i, i + n]\n"
                    "  #pragma write B [i:i+1]\n"
                    "#pragma atomic C[c ? 1 : 2 : n], B[0, (n, 2)]\n"
                    "}\n";
  LoweredFile f = lowerPragmas(src);
  REQUIRE(f.pragmas.size() == 3);
  CHECK(f.pragmas[0].kind == MarkerKind::Read);
  CHECK(f.pragmas[0].line == 3);
  CHECK(f.pragmas[0].column == 3);
  CHECK_FALSE(f.pragmas[0].fileScope);
  REQUIRE(f.pragmas[0].regions.size() == 1);
  CHECK(f.pragmas[0].regions[0].buffer == "B");
  CHECK(f.pragmas[0].regions[0].first == "i");
  CHECK(f.pragmas[0].regions[0].last == "i + n");
  CHECK(f.pragmas[1].kind == MarkerKind::Write);
  CHECK(f.pragmas[1].regions[0].first == "i");
  CHECK(f.pragmas[1].regions[0].last == "i+1");
  // A conditional expression's ':' is not the range separator; a comma inside parentheses is
  // not the bound separator.
  REQUIRE(f.pragmas[2].regions.size() == 2);
  CHECK(f.pragmas[2].regions[0].first == "c ? 1 : 2");
  CHECK(f.pragmas[2].regions[0].last == "n");
  CHECK(f.pragmas[2].regions[1].first == "0");
  CHECK(f.pragmas[2].regions[1].last == "(n, 2)");

  CHECK(f.analysisText.find("  __clsplit_pragma_read(B, (long)(i), (long)(i + n), (ulong)sizeof(*(B)));\n") !=
        std::string::npos);
  CHECK(f.analysisText.find("__clsplit_pragma_atomic(C, (long)(c ? 1 : 2), (long)(n), "
                            "(ulong)sizeof(*(C))); __clsplit_pragma_atomic(B,") != std::string::npos);
  CHECK(f.analysisText.find("#pragma") == std::string::npos);
  CHECK(f.vendorText.find("pragma") == std::string::npos);
  CHECK(f.vendorText.find("__clsplit") == std::string::npos);
  CHECK(lines(f.analysisText) == lines(src));
  CHECK(lines(f.vendorText) == lines(src));
  // Everything but the pragma lines is untouched.
  CHECK(f.vendorText.find("  int i = get_global_id(0);\n") != std::string::npos);
}

TEST_CASE("continuations and comments keep every later line in place", "[frontend][pragma]") {
  std::string src = "void f(__global int* A) {\n"
                    "#pragma read A[0, /* multi\n"
                    "  line */ 7] // trailing\n"
                    "#pragma write A[1,\\\n"
                    "  2]\n"
                    "  A[0] = 1; }\n";
  LoweredFile f = lowerPragmas(src);
  REQUIRE(f.pragmas.size() == 2);
  CHECK(f.pragmas[0].lineCount == 2);
  CHECK(f.pragmas[0].regions[0].last == "7");
  CHECK(f.pragmas[1].line == 4);
  CHECK(f.pragmas[1].lineCount == 2);
  CHECK(f.pragmas[1].regions[0].last == "2");
  CHECK(lines(f.analysisText) == lines(src));
  // The statement after the pragmas is still on line 6 in both copies.
  auto lineOf = [](const std::string& s, const std::string& needle) {
    return std::count(s.begin(), s.begin() + s.find(needle), '\n') + 1;
  };
  CHECK(lineOf(f.analysisText, "A[0] = 1;") == 6);
  CHECK(lineOf(f.vendorText, "A[0] = 1;") == 6);
  CHECK(lineOf(f.analysisText, "__clsplit_pragma_write") == 4);
}

TEST_CASE("pragmas in comments and strings, and other pragmas, are left alone", "[frontend][pragma]") {
  std::string src = "// #pragma read A[0,1]\n"
                    "/* #pragma write A[0,1] */\n"
                    "#define S \"#pragma atomic A[0,1]\"\n"
                    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                    "#pragma unroll\n"
                    "#pragma readonly A\n"
                    "x = 1; #pragma read A[0,1]\n";
  LoweredFile f = lowerPragmas(src);
  CHECK(f.pragmas.empty());
  CHECK(f.analysisText == src);
  CHECK(f.vendorText == src);
}

TEST_CASE("file-scope monotone pragmas are recorded, not lowered", "[frontend][pragma]") {
  std::string src = "#pragma opencl_increasing_buffer IA, JA KA\n"
                    "__kernel void k(__global int* IA) {\n"
                    "  #pragma opencl_decreasing_buffer IA\n"
                    "}\n";
  LoweredFile f = lowerPragmas(src);
  REQUIRE(f.pragmas.size() == 2);
  CHECK(f.pragmas[0].fileScope);
  CHECK(f.pragmas[0].kind == MarkerKind::Increasing);
  CHECK(f.pragmas[0].buffers == std::vector<std::string>{"IA", "JA", "KA"});
  CHECK(f.analysisText.find("__clsplit_pragma_increasing") == std::string::npos);
  CHECK_FALSE(f.pragmas[1].fileScope);
  CHECK(f.analysisText.find("  __clsplit_pragma_decreasing(IA);\n") != std::string::npos);
}

TEST_CASE("malformed pragmas carry an error and are not lowered", "[frontend][pragma]") {
  const char* bad[] = {
      "#pragma read B\n",
      "#pragma read B[1]\n",
      "#pragma read B[1,]\n",
      "#pragma read B[1,2\n",
      "#pragma write [1,2]\n",
      "#pragma atomic B[1,2] junk\n",
      "#pragma opencl_increasing_buffer\n",
      "#pragma opencl_decreasing_buffer A+1\n",
      "#pragma read 3B[0,1]\n",
  };
  for (const char* line : bad) {
    std::string src = std::string("void f(__global int* B) {\n") + line + "}\n";
    LoweredFile f = lowerPragmas(src);
    INFO(line);
    REQUIRE(f.pragmas.size() == 1);
    CHECK_FALSE(f.pragmas[0].error.empty());
    CHECK(f.pragmas[0].line == 2);
    CHECK(f.analysisText.find("__clsplit") == std::string::npos);
    CHECK(f.vendorText.find("pragma") == std::string::npos);
  }
  LoweredFile fileScopeRead = lowerPragmas("#pragma read B[0,1]\n");
  REQUIRE(fileScopeRead.pragmas.size() == 1);
  CHECK(fileScopeRead.pragmas[0].error.find("inside a function") != std::string::npos);
}

TEST_CASE("clang debug pragmas are dropped from the analysis copy only", "[frontend][pragma]") {
  std::string src = "#pragma clang __debug crash\n#pragma clang diagnostic push\nint x;\n";
  LoweredFile f = lowerPragmas(src);
  CHECK(f.pragmas.empty());
  CHECK(f.analysisText == "\n#pragma clang diagnostic push\nint x;\n");
  CHECK(f.vendorText == src);
}

#include "analysis/frontend/KernelNames.h"

TEST_CASE("kernel names can be read without Clang", "[frontend]") {
  auto names = scanKernelNames("kernel void a(global int* x) {}\n"
                               "__kernel __attribute__((reqd_work_group_size(8, 1, 1))) void b (int n) {}\n"
                               "__kernel void __attribute__((vec_type_hint(float4))) c(void) {}\n"
                               "void not_a_kernel(void) {}\n"
                               "__kernel void a(global int* x);\n"
                               "int kernels; int my_kernel(int);\n");
  CHECK(names == std::vector<std::string>{"a", "b", "c"});
  CHECK(scanKernelNames("").empty());
  CHECK(scanKernelNames("__kernel").empty());
}
