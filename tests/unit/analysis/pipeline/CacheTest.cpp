// The on-disk analysis cache: exact round trip, rejection of anything damaged, and that a
// cached program costs no Clang work.
#include "analysis/Analysis.h"
#include "analysis/cache/AnalysisCache.h"
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
    char tmpl[] = "/tmp/clsplit-cache-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

ProgramAnalysis sample() {
  ProgramAnalysis a;
  a.vendorSource = "__kernel void k(__global float* A, int n, ulong4 g, ulong4 s) {}\n";
  a.buildLogNotes = "note\n";
  a.externalCalls = {{"helper", false}, {"other", true}};
  a.externalCallsKnown = true;
  a.includedFiles = {{"/a/b.h", "digest"}};
  KernelAnalysis k;
  k.name = "k";
  k.args = {{"A", ArgKind::GlobalBuffer, ScalarType::F32}, {"n", ArgKind::Scalar, ScalarType::I32}};
  k.partitionReady = true;
  k.unsplittableReason = "because";
  k.imprecisions = {{{"inc.h", 3, 7}, "guard dropped"}};
  StatementRegion s;
  s.kind = AccessKind::Write;
  s.arg = 0;
  s.offset = Expr::mul(Expr::workItem(WorkItemFn::GlobalId, 0), Expr::constant(4));
  s.width = 4;
  s.guards.push_back(std::make_shared<Guard>(
      Guard{CmpOp::SLt, Expr::workItem(WorkItemFn::GlobalId, 0), Expr::argument(1, ScalarType::I32)}));
  s.line = 12;
  k.regions.statements.push_back(s);
  k.regions.increasingBuffers = {0};
  a.kernels.push_back(k);
  KernelAnalysis j;
  j.name = "j";
  a.kernels.push_back(j);
  return a;
}

void checkEqual(const ProgramAnalysis& x, const ProgramAnalysis& y) {
  CHECK(x.vendorSource == y.vendorSource);
  CHECK(x.buildLogNotes == y.buildLogNotes);
  CHECK(x.externalCalls == y.externalCalls);
  CHECK(x.externalCallsKnown == y.externalCallsKnown);
  CHECK(x.includedFiles == y.includedFiles);
  REQUIRE(x.errors.size() == y.errors.size());
  REQUIRE(x.kernels.size() == y.kernels.size());
  for (size_t i = 0; i < x.kernels.size(); ++i) {
    const auto &a = x.kernels[i], &b = y.kernels[i];
    CHECK(a.name == b.name);
    REQUIRE(a.args.size() == b.args.size());
    for (size_t j = 0; j < a.args.size(); ++j) {
      CHECK(a.args[j].name == b.args[j].name);
      CHECK(a.args[j].kind == b.args[j].kind);
      CHECK(a.args[j].scalarType == b.args[j].scalarType);
    }
    CHECK(a.partitionReady == b.partitionReady);
    CHECK(a.unsplittableReason == b.unsplittableReason);
    REQUIRE(a.imprecisions.size() == b.imprecisions.size());
    for (size_t j = 0; j < a.imprecisions.size(); ++j) {
      CHECK(a.imprecisions[j].where.file == b.imprecisions[j].where.file);
      CHECK(a.imprecisions[j].where.line == b.imprecisions[j].where.line);
      CHECK(a.imprecisions[j].message == b.imprecisions[j].message);
    }
    CHECK(toString(a.regions) == toString(b.regions));
    CHECK(a.regions.increasingBuffers == b.regions.increasingBuffers);
  }
}

const std::string kProgram = "__kernel void k(__global float* A, int n) {\n"
                             "  if (get_global_id(0) < n) A[get_global_id(0)] = get_num_groups(0);\n"
                             "}\n";

} // namespace

TEST_CASE("the cache encoding round-trips an analysis exactly", "[cache]") {
  ProgramAnalysis a = sample();
  std::string bytes = cache::encode(a, "key");
  std::string error;
  auto back = cache::decode(bytes, "key", &error);
  INFO(error);
  REQUIRE(back);
  checkEqual(a, *back);
}

TEST_CASE("damaged, foreign or stale cache bytes are rejected", "[cache]") {
  std::string bytes = cache::encode(sample(), "key");
  for (size_t n = 0; n < bytes.size(); ++n) // every truncation
    CHECK_FALSE(cache::decode(std::string_view(bytes).substr(0, n), "key"));
  for (size_t i = 0; i < bytes.size(); i += 7) { // flipped bytes
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
    CHECK_FALSE(cache::decode(damaged, "key"));
  }
  std::string error;
  CHECK_FALSE(cache::decode(bytes, "other-key", &error));
  CHECK(error.find("key") != std::string::npos);
  // Another format version, with a valid checksum: still refused.
  std::string stale = bytes;
  stale[8] = static_cast<char>(stale[8] + 1);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i + 8 < stale.size(); ++i) {
    h ^= static_cast<unsigned char>(stale[i]);
    h *= 0x100000001b3ull;
  }
  for (int i = 0; i < 8; ++i) stale[stale.size() - 8 + i] = static_cast<char>((h >> (8 * i)) & 0xff);
  CHECK_FALSE(cache::decode(stale, "key", &error));
  CHECK(error.find("version") != std::string::npos);
  CHECK_FALSE(cache::decode("", "key"));
  CHECK_FALSE(cache::decode(std::string(100, 'x'), "key"));
}

TEST_CASE("a cached program is answered without any Clang work", "[cache][pipeline]") {
  TempDir dir;
  AnalysisOptions options;
  options.cacheDir = dir.path.string();
  uint64_t before = frontend::clangInvocationCount();
  ProgramAnalysis first = analyzeProgram(kProgram, "-DX=1", options);
  uint64_t afterFirst = frontend::clangInvocationCount();
  CHECK(afterFirst > before);
  CHECK(fs::exists(cache::cacheFilePath(options.cacheDir, analysisCacheKey(kProgram, "-DX=1", options))));

  ProgramAnalysis second = analyzeProgram(kProgram, "-DX=1", options);
  CHECK(frontend::clangInvocationCount() == afterFirst);
  checkEqual(first, second);

  // Other options are another program.
  analyzeProgram(kProgram, "-DX=2", options);
  CHECK(frontend::clangInvocationCount() > afterFirst);
}

TEST_CASE("a cached analysis is not used once a file the program included changed", "[cache][pipeline]") {
  TempDir dir;
  AnalysisOptions options;
  options.cacheDir = (dir.path / "cache").string();
  const fs::path header = dir.path / "stride.h";
  auto writeHeader = [&](int stride) { std::ofstream(header) << "#define STRIDE " << stride << "\n"; };
  writeHeader(1);
  const std::string src =
      "#include \"" + header.string() + "\"\n__kernel void k(__global int* A) { A[get_global_id(0) * STRIDE] = 1; }\n";
  const ProgramAnalysis first = analyzeProgram(src, "", options);
  REQUIRE(first.includedFiles.size() == 1);
  CHECK(first.includedFiles[0].first == header.string());
  const uint64_t afterFirst = frontend::clangInvocationCount();
  analyzeProgram(src, "", options);
  CHECK(frontend::clangInvocationCount() == afterFirst); // unchanged: cached
  writeHeader(2);
  const ProgramAnalysis second = analyzeProgram(src, "", options);
  CHECK(frontend::clangInvocationCount() > afterFirst); // changed: analysed again
  REQUIRE(second.find("k"));
  CHECK(toString(second.find("k")->regions) != toString(first.find("k")->regions));
}

TEST_CASE("a corrupt cache file is ignored and replaced", "[cache][pipeline]") {
  TempDir dir;
  AnalysisOptions options;
  options.cacheDir = dir.path.string();
  ProgramAnalysis reference = analyzeProgram(kProgram, "", options);
  std::string path = cache::cacheFilePath(options.cacheDir, analysisCacheKey(kProgram, "", options));
  std::ofstream(path, std::ios::trunc) << "CLSPLITA garbage";
  uint64_t before = frontend::clangInvocationCount();
  ProgramAnalysis again = analyzeProgram(kProgram, "", options);
  CHECK(frontend::clangInvocationCount() > before); // recomputed
  checkEqual(reference, again);
  CHECK(cache::load(options.cacheDir, analysisCacheKey(kProgram, "", options))); // and rewritten valid
  // No temporary files are left behind.
  for (const auto& entry : fs::directory_iterator(dir.path)) CHECK(entry.path().extension() == ".analysis");
}

TEST_CASE("an unusable cache directory does not prevent the analysis", "[cache][pipeline]") {
  AnalysisOptions options;
  options.cacheDir = "/proc/clsplit-cannot-create-this";
  ProgramAnalysis a = analyzeProgram(kProgram, "", options);
  REQUIRE(a.kernels.size() == 1);
  CHECK(a.kernels[0].partitionReady);
}

TEST_CASE("programs with malformed pragmas are not cached", "[cache][pipeline]") {
  TempDir dir;
  AnalysisOptions options;
  options.cacheDir = dir.path.string();
  const std::string bad = "__kernel void k(__global float* A) {\n  #pragma read A[0 1]\n}\n";
  ProgramAnalysis a = analyzeProgram(bad, "", options);
  CHECK_FALSE(a.errors.empty());
  CHECK(fs::is_empty(dir.path));
}

TEST_CASE("programHash is stable and covers source and options", "[cache]") {
  std::string h = programHash("src", "opt");
  CHECK(h.size() == 64);
  CHECK(h.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(programHash("src", "opt") == h);
  CHECK(programHash("src ", "opt") != h);
  CHECK(programHash("src", "opt ") != h);
  CHECK(programHash("srco", "pt") != h); // field boundaries matter
  // Users name hint files after it: the same value in every clsplit since the first (computed with
  // LLVM's SHA-256 until the ICD stopped linking LLVM).
  CHECK(h == "44b7d40c35910d02024f470262cb5d0bfedab7ee2bf0e25c3f085a4275b86f25");
}

TEST_CASE("the default cache directory follows XDG", "[cache]") {
  const char* saved = std::getenv("XDG_CACHE_HOME");
  std::string savedValue = saved ? saved : "";
  setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  CHECK(cache::defaultCacheDirectory() == "/tmp/xdg-test/clsplit");
  unsetenv("XDG_CACHE_HOME");
  if (const char* home = std::getenv("HOME"); home && *home)
    CHECK(cache::defaultCacheDirectory() == std::string(home) + "/.cache/clsplit");
  if (saved) setenv("XDG_CACHE_HOME", savedValue.c_str(), 1);
}
