// The analysis entry point of the device tests, built as a module they dlopen() privately
// (see DeviceTestAnalysis.h for why).
#include "DeviceTestAnalysis.h"
#include "analysis/Analysis.h"

extern "C" __attribute__((visibility("default"))) void
clsplitAnalyzeForTest(const std::string& source, const std::string& options, clsplit::test::TestAnalysis& out) {
  clsplit::analysis::ProgramAnalysis a = clsplit::analysis::analyzeProgram(source, options, {});
  out.vendorSource = a.vendorSource;
  out.buildLogNotes = a.buildLogNotes;
  for (const auto& e : a.errors) out.errors.push_back(e.message);
  for (const auto& k : a.kernels)
    out.kernels.push_back({k.name, k.partitionReady, k.unsplittableReason, k.args.size()});
}
