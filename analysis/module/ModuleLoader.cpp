// Loads libclsplit-analyzer.so on first use (AnalyzerModule.h). RTLD_LOCAL: its Clang and LLVM
// symbols never become visible to the vendors clsplit loads (PoCL brings an LLVM of its own).
#include "analysis/module/AnalyzerModule.h"

#include "analysis/module/ModuleInterface.h"
#include "support/Log.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace clsplit::analysis::module {
namespace {

struct Loaded {
  const ModuleTable* table = nullptr;
  std::string failure; // why there is no table
};

std::vector<std::string> candidates() {
  std::vector<std::string> out;
  if (const char* path = std::getenv("CLSPLIT_ANALYZER_MODULE"); path && *path) return {path};
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&loadingAnalyzer), &info) && info.dli_fname) {
    std::filesystem::path here = std::filesystem::path(info.dli_fname).parent_path();
    out.push_back((here / kFileName).string());
    out.push_back((here / ".." / "lib" / kFileName).string());
  }
#ifdef CLSPLIT_ANALYZER_BUILD_PATH
  out.push_back(CLSPLIT_ANALYZER_BUILD_PATH);
#endif
  return out;
}

std::atomic<bool> loadedFlag{false};

Loaded load() {
  Loaded result;
  std::string tried;
  for (const std::string& path : candidates()) {
    std::error_code unreadable; // a directory we may not search counts as absent, never throws
    if (!std::filesystem::exists(path, unreadable)) {
      tried += (tried.empty() ? "" : ", ") + path + " (absent)";
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* error = dlerror();
      tried += (tried.empty() ? "" : ", ") + path + " (" + (error ? error : "dlopen failed") + ")";
      continue;
    }
    auto entry = reinterpret_cast<EntryFunction>(dlsym(handle, kEntrySymbol));
    const ModuleTable* table = entry ? entry() : nullptr;
    if (!table || table->interfaceVersion != kInterfaceVersion || std::strcmp(table->buildId, analysisBuildId()) != 0) {
      tried += (tried.empty() ? "" : ", ") + path + " (from another build of clsplit)";
      dlclose(handle);
      continue;
    }
    log().debug("clsplit analysis: loaded the analyzer from {}", path);
    loadedFlag.store(true, std::memory_order_release);
    result.table = table;
    return result; // never unloaded: Clang's and LLVM's static state lives until exit
  }
  result.failure = "the analyzer module " + std::string(kFileName) + " could not be loaded: tried " +
                   (tried.empty() ? std::string("nothing") : tried);
  log().error("clsplit analysis: {}; kernels run whole", result.failure);
  return result;
}

const Loaded& module() {
  static const Loaded loaded = load(); // thread-safe once
  return loaded;
}

ProgramAnalysis analyzeThroughModule(std::string_view source, std::string_view buildOptions,
                                     const AnalysisOptions& options) {
  const Loaded& m = module();
  if (!m.table) throw std::runtime_error(m.failure);
  m.table->setLogLevel(spdlog::level::to_string_view(log().level()).data());
  return m.table->analyze(source, buildOptions, options);
}

} // namespace

UncachedAnalyzer loadingAnalyzer() { return &analyzeThroughModule; }

bool loaded() { return loadedFlag.load(std::memory_order_acquire); }

} // namespace clsplit::analysis::module
