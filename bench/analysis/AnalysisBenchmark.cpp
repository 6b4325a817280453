// Micro-benchmark of analyzeProgram(): a generated 1000-line program analysed from scratch
// (target < 1 s) and answered from the on-disk cache (target < 10 ms). Prints measurements.
#include "analysis/Analysis.h"
#include "analysis/frontend/Frontend.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

using namespace clsplit::analysis;
using Clock = std::chrono::steady_clock;

namespace {

// One 25-line block: a helper using NDRange built-ins, a kernel with a loop, local memory,
// a barrier, a guarded store and a pragma.
std::string block(int i) {
  std::string n = std::to_string(i);
  return "float helper" + n +
         "(__global const float* in, int j) {\n"
         "  float v = in[j] * (float)get_num_groups(0);\n"
         "  return v + (float)get_group_id(0) / (float)get_global_size(0);\n"
         "}\n"
         "__kernel void kernel" +
         n +
         "(__global const float* in, __global float* out,\n"
         "                      __global const int* index, int n, float alpha) {\n"
         "  __local float tile[64];\n"
         "  int gid = get_global_id(0);\n"
         "  int lid = get_local_id(0);\n"
         "  tile[lid] = gid < n ? in[gid] : 0.0f;\n"
         "  barrier(CLK_LOCAL_MEM_FENCE);\n"
         "  float acc = 0.0f;\n"
         "  for (int k = 0; k < 8; ++k) {\n"
         "    int j = gid * 8 + k;\n"
         "    if (j < n) acc += helper" +
         n +
         "(in, j) * alpha;\n"
         "  }\n"
         "  int start = index[gid], end = index[gid + 1];\n"
         "  for (int j = start; j < end; ++j) acc += in[j];\n"
         "  if (gid < n) {\n"
         "    out[gid] = acc + tile[(lid + 1) % get_local_size(0)];\n"
         "    #pragma write out[gid, gid]\n"
         "  }\n"
         "  #pragma opencl_increasing_buffer index\n"
         "}\n"
         "\n";
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

struct Stats {
  double min, median, max;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back()};
}

} // namespace

int main() {
  std::string program = "#define ALPHA 2.0f\n";
  for (int i = 0; i < 40; ++i) program += block(i);
  size_t lines = std::count(program.begin(), program.end(), '\n');

  // Warm-up: first use of Clang maps pages, builds static tables.
  analyzeProgram(program, "-DWARM", {});

  std::vector<double> fullRuns, frontendRuns;
  for (int r = 0; r < 5; ++r) {
    auto t0 = Clock::now();
    ProgramAnalysis a = analyzeProgram(program, "", {});
    fullRuns.push_back(ms(Clock::now() - t0));
    if (a.kernels.size() != 40 || !a.errors.empty()) {
      std::fprintf(stderr, "unexpected analysis result\n%s", a.buildLogNotes.c_str());
      return 1;
    }
    llvm::LLVMContext ctx;
    auto t1 = Clock::now();
    auto m = frontend::compileToIR(ctx, program, "");
    frontendRuns.push_back(ms(Clock::now() - t1));
    if (!m) return 1;
  }

  char tmpl[] = "/tmp/clsplit-bench-cache-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  AnalysisOptions cached;
  cached.cacheDir = dir;
  analyzeProgram(program, "", cached); // fills the cache
  uint64_t clangBefore = frontend::clangInvocationCount();
  std::vector<double> hits;
  for (int r = 0; r < 50; ++r) {
    auto t0 = Clock::now();
    ProgramAnalysis a = analyzeProgram(program, "", cached);
    hits.push_back(ms(Clock::now() - t0));
    if (a.kernels.size() != 40) return 1;
  }
  bool noClang = frontend::clangInvocationCount() == clangBefore;
  std::filesystem::remove_all(dir);

  Stats full = stats(fullRuns), fe = stats(frontendRuns), hit = stats(hits);
  std::printf("program: %zu lines, 40 kernels, %zu bytes\n", lines, program.size());
  std::printf("analyzeProgram uncached: min %.1f ms, median %.1f ms, max %.1f ms (5 runs; target < 1000 ms)\n",
              full.min, full.median, full.max);
  std::printf("  of which compileToIR (parse + IR + simplification): median %.1f ms\n", fe.median);
  std::printf("analyzeProgram cache hit: min %.3f ms, median %.3f ms, max %.3f ms (50 runs; target < 10 ms); "
              "Clang runs during hits: %s\n",
              hit.min, hit.median, hit.max, noClang ? "none" : "SOME (bug)");
  return 0;
}
