// The analysis side of the ground-truth test, built as a module loaded privately (see
// CorpusAnalysisModule.h). It goes through analyzeProgram(), the production path: front end,
// transformer (partition-ready source) and analyzer.
#include "CorpusAnalysisModule.h"

#include "analysis/Analysis.h"

extern "C" __attribute__((visibility("default"))) void
clsplitAnalyzeCorpusSource(const std::string& source, const std::string& options,
                           clsplit::analysis::testing::CorpusAnalysis& out) {
  using namespace clsplit::analysis;
  ProgramAnalysis p = analyzeProgram(source, options, AnalysisOptions{});
  for (const auto& e : p.errors) out.errors.push_back(e.message);
  out.vendorSource = p.vendorSource;
  for (const auto& k : p.kernels) {
    testing::CorpusKernel c;
    c.name = k.name;
    for (const auto& a : k.args) {
      c.argNames.push_back(a.name);
      c.argKinds.push_back(static_cast<int>(a.kind));
      c.argTypes.push_back(static_cast<int>(a.scalarType));
    }
    c.unsplittableReason = k.unsplittableReason;
    for (const auto& d : k.imprecisions)
      c.imprecisions.push_back("line " + std::to_string(d.where.line) + ": " + d.message);
    c.regions = serialize(k.regions);
    c.partitionReady = k.partitionReady;
    out.kernels.push_back(std::move(c));
  }
}
