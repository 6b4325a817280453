// The analysis's front door without the analysis (no Clang, no LLVM): the cache around an
// analyzer, the names of programs and cached results, and the result that runs every kernel
// whole. The ICD links only this and loads the analyzer itself on a cache miss.
#include "analysis/Analysis.h"

#include "analysis/cache/AnalysisCache.h"
#include "analysis/frontend/Hints.h"
#include "analysis/frontend/KernelNames.h"
#include "support/Log.h"
#include "support/Sha256.h"

#include "AnalysisBuildId.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#ifndef CLSPLIT_VERSION
#define CLSPLIT_VERSION "unknown"
#endif

namespace clsplit::analysis {

namespace {

// Bumped whenever the analysis or the rewrite changes what it produces for the same input, so
// that cached results of an older clsplit are not reused.
constexpr const char* kAnalysisRevision = "analysis-4"; // 4: get_global_id adds the id base (__clsplit_goffset.w)

// SHA-256 of the fields, each preceded by its length (so that field boundaries count).
std::string sha256(std::initializer_list<std::string_view> fields) {
  Sha256 hash;
  for (std::string_view bytes : fields) {
    uint64_t size = bytes.size(); // little-endian on every machine clsplit builds for
    hash.update(&size, sizeof size);
    hash.update(bytes);
  }
  return hash.finalHex();
}

} // namespace

ProgramAnalysis runsWhole(std::string_view source, const std::string& reason) {
  ProgramAnalysis result;
  result.vendorSource = std::string(source);
  for (auto& name : frontend::scanKernelNames(source)) {
    KernelAnalysis k;
    k.name = name;
    k.unsplittableReason = reason;
    result.kernels.push_back(std::move(k));
  }
  result.buildLogNotes = "clsplit: kernels will not be split: " + reason + "\n";
  return result;
}

// Stable across clsplit versions: users name hint files after it.
std::string programHash(std::string_view source, std::string_view buildOptions) {
  return sha256({"clsplit program", source, buildOptions});
}

// The program, the hints (they change the analysis) and the analysis code itself (a hash of its
// sources, so a changed analyzer never reuses older results).
std::string analysisCacheKey(std::string_view source, std::string_view buildOptions, const AnalysisOptions& options) {
  std::string pinned;
  for (const auto& name : options.pinnedMacros) pinned += name + " ";
  std::string unit = options.compiledUnit ? "compiled unit" : "program";
  for (const auto& [name, text] : options.headers) unit += "\n" + sha256({name, text});
  // Quoted includes and relative -I folders resolve against the current folder.
  if (source.find("#include") != std::string_view::npos || buildOptions.find("-I") != std::string_view::npos) {
    std::error_code ec;
    unit += "\nin " + std::filesystem::current_path(ec).string();
  }
  return sha256({"clsplit analysis", programHash(source, buildOptions), options.devicePrelude, pinned, unit,
                 frontend::hintsDigest(options.hintsDir), CLSPLIT_VERSION, kAnalysisRevision,
                 CLSPLIT_ANALYSIS_BUILD_ID});
}

std::string fileDigest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return sha256({"clsplit file", bytes});
}

const char* analysisBuildId() { return CLSPLIT_ANALYSIS_BUILD_ID; }

ProgramAnalysis analyzeCached(std::string_view source, std::string_view buildOptions, const AnalysisOptions& options,
                              UncachedAnalyzer analyzer) {
  try {
    std::string key = analysisCacheKey(source, buildOptions, options);
    if (!options.cacheDir.empty()) {
      std::string why;
      auto cached = cache::load(options.cacheDir, key, &why);
      // A file the program included may have changed since (its regions with it).
      if (cached)
        for (const auto& [path, digest] : cached->includedFiles)
          if (fileDigest(path) != digest) {
            why = "the included file " + path + " changed";
            cached.reset();
            break;
          }
      if (cached) {
        log().debug("clsplit analysis: cache hit {}", key);
        return std::move(*cached);
      }
      log().debug("clsplit analysis: cache miss {} ({})", key, why);
    }
    auto start = std::chrono::steady_clock::now();
    ProgramAnalysis result = analyzer(source, buildOptions, options);
    log().debug("clsplit analysis: {} kernel(s) analysed in {:.1f} ms", result.kernels.size(),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!options.cacheDir.empty() && result.errors.empty()) {
      std::string why;
      if (!cache::store(options.cacheDir, key, result, &why)) log().info("clsplit analysis: not cached: {}", why);
    }
    return result;
  } catch (const std::exception& e) {
    log().error("clsplit analysis: internal error: {}", e.what());
    return runsWhole(source, std::string("internal error in clsplit's analysis: ") + e.what());
  } catch (...) {
    log().error("clsplit analysis: unknown internal error");
    return runsWhole(source, "internal error in clsplit's analysis");
  }
}

} // namespace clsplit::analysis
