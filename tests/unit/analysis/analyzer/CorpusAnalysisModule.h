// What the PoCL ground-truth test needs from the analysis, as plain data: the analysis
// (Clang 16) is loaded privately with dlopen(RTLD_LOCAL) because PoCL 3.1 loads Clang 15
// into the same process and libclang-cpp's unversioned symbols would clash. Regions cross
// the boundary serialised (the on-disk cache format).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace clsplit::analysis::testing {

struct CorpusKernel {
  std::string name;
  std::vector<std::string> argNames;
  std::vector<int> argKinds; // ArgKind
  std::vector<int> argTypes; // ScalarType
  std::optional<std::string> unsplittableReason;
  std::vector<std::string> imprecisions;
  std::string regions;         // serialize(KernelRegions)
  bool partitionReady = false; // the vendor source gives it the hidden NDRange arguments
};

struct CorpusAnalysis {
  std::vector<std::string> errors;
  std::vector<CorpusKernel> kernels;
  std::string vendorSource; // the partition-ready program (analyzeProgram)
};

using AnalyzeCorpusSource = void (*)(const std::string& source, const std::string& options, CorpusAnalysis& out);
inline constexpr const char* kAnalyzeCorpusSymbol = "clsplitAnalyzeCorpusSource";

} // namespace clsplit::analysis::testing
