// libclsplit-analyzer.so's only export: the analyzer (Clang + LLVM) behind a table the ICD's
// loader checks (ModuleInterface.h).
#include "analysis/module/ModuleInterface.h"

#include "support/Log.h"

namespace clsplit::analysis::module {
namespace {

ProgramAnalysis analyzeGuarded(std::string_view source, std::string_view buildOptions, const AnalysisOptions& options) {
  try {
    return analyzeUncached(source, buildOptions, options);
  } catch (const std::exception& e) {
    return runsWhole(source, std::string("internal error in clsplit's analysis: ") + e.what());
  } catch (...) {
    return runsWhole(source, "internal error in clsplit's analysis");
  }
}

void setModuleLogLevel(const char* level) { setLogLevel(level ? level : ""); }

const ModuleTable kTable{kInterfaceVersion, analysisBuildId(), &setModuleLogLevel, &analyzeGuarded};

} // namespace
} // namespace clsplit::analysis::module

extern "C" __attribute__((visibility("default"))) const clsplit::analysis::module::ModuleTable*
clsplit_analyzer_module() {
  return &clsplit::analysis::module::kTable;
}
