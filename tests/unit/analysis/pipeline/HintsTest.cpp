// Hint files: pragmas supplied outside the source reach the analysis (not the vendor copy),
// malformed hints fail the build with the hint file's location, edits invalidate the cache.
#include "analysis/Analysis.h"
#include "analysis/frontend/Frontend.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace clsplit::analysis;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/clsplit-hints-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};

const std::string kProgram = "__kernel void gather(__global const float* A, __global const int* I,\n"
                             "                     __global float* B, int n) {\n"
                             "  int i = get_global_id(0);\n"
                             "  float last = 0.0f;\n"
                             "  B[i] = A[I[i]];\n"
                             "}\n"
                             "__kernel void other(__global float* C) { C[get_global_id(0)] = 0.0f; }\n";

size_t pragmaStatements(const KernelAnalysis& k, unsigned arg, AccessKind kind) {
  size_t n = 0;
  for (const auto& s : k.regions.statements)
    if (s.fromPragma && s.arg == arg && s.kind == kind) ++n;
  return n;
}

} // namespace

TEST_CASE("a kernel hint file adds pragmas at the end of that kernel's body", "[hints]") {
  TempDir dir;
  dir.write("gather.hints", "// A is read only within [0, n-1]\n#pragma read A[0, n - 1]\n");
  AnalysisOptions options;
  options.hintsDir = dir.path.string();
  ProgramAnalysis a = analyzeProgram(kProgram, "", options);
  INFO(a.buildLogNotes);
  REQUIRE(a.errors.empty());
  const KernelAnalysis* gather = a.find("gather");
  REQUIRE(gather);
  CHECK(pragmaStatements(*gather, 0, AccessKind::Read) == 1);
  CHECK(pragmaStatements(*a.find("other"), 0, AccessKind::Read) == 0);
  CHECK(a.vendorSource.find("n - 1") == std::string::npos); // hints never reach vendors
  CHECK(gather->partitionReady);

  ProgramAnalysis without = analyzeProgram(kProgram, "", {});
  CHECK(pragmaStatements(*without.find("gather"), 0, AccessKind::Read) == 0);
}

TEST_CASE("a program hint file with kernel sections", "[hints]") {
  TempDir dir;
  dir.write(programHash(kProgram, "") + ".hints",
            "[kernel gather]\n#pragma write B[i, i]\n#pragma opencl_increasing_buffer I\n"
            "[kernel other]\n#pragma write C [0:7]\n");
  AnalysisOptions options;
  options.hintsDir = dir.path.string();
  ProgramAnalysis a = analyzeProgram(kProgram, "", options);
  INFO(a.buildLogNotes);
  REQUIRE(a.errors.empty());
  CHECK(pragmaStatements(*a.find("gather"), 2, AccessKind::Write) == 1);
  CHECK(a.find("gather")->regions.increasingBuffers == std::vector<unsigned>{1});
  CHECK(pragmaStatements(*a.find("other"), 0, AccessKind::Write) == 1);
}

TEST_CASE("malformed hints fail the build where they are written", "[hints]") {
  struct Case {
    std::string file, text, expect;
    unsigned line;
  };
  const Case cases[] = {
      {"gather.hints", "\n#pragma read A[0 n]\n", "[first, last]", 2},
      {"gather.hints", "#pragma read Nope[0, 1]\n", "Nope", 1},
      {"gather.hints", "read A[0, 1]\n", "'#pragma'", 1},
      {"program.hints", "[kernel missing]\n#pragma read A[0, 1]\n", "missing", 2},
      {"program.hints", "[kernl gather]\n", "[kernel NAME]", 1},
  };
  for (const Case& c : cases) {
    TempDir dir;
    std::string file = c.file == "program.hints" ? programHash(kProgram, "") + ".hints" : c.file;
    dir.write(file, c.text);
    AnalysisOptions options;
    options.hintsDir = dir.path.string();
    ProgramAnalysis a = analyzeProgram(kProgram, "", options);
    INFO(c.text);
    REQUIRE(a.errors.size() == 1);
    CHECK(a.errors[0].where.file == (dir.path / file).string());
    CHECK(a.errors[0].where.line == c.line);
    CHECK(a.errors[0].message.find(c.expect) != std::string::npos);
    for (const auto& k : a.kernels) CHECK_FALSE(k.partitionReady);
  }
}

TEST_CASE("editing a hint file invalidates the cached analysis", "[hints][cache]") {
  TempDir hints, cacheDir;
  AnalysisOptions options;
  options.hintsDir = hints.path.string();
  options.cacheDir = cacheDir.path.string();
  hints.write("gather.hints", "#pragma read A[0, n - 1]\n");
  analyzeProgram(kProgram, "", options);
  uint64_t before = frontend::clangInvocationCount();
  analyzeProgram(kProgram, "", options);
  CHECK(frontend::clangInvocationCount() == before); // cached
  hints.write("gather.hints", "#pragma read A[0, 2 * n]\n");
  analyzeProgram(kProgram, "", options);
  CHECK(frontend::clangInvocationCount() > before); // recomputed
}
