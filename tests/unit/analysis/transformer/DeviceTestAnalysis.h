// What the device tests need from analyzeProgram(), as plain data that can cross a dlopen()
// boundary. The analysis (Clang 16) is loaded privately (RTLD_LOCAL) because PoCL 3.1 loads
// Clang 15 into the same process and libclang-cpp exports unversioned symbols: with both in
// the global scope, PoCL's compiler binds to Clang 16's functions and crashes.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace clsplit::test {

struct TestKernel {
  std::string name;
  bool partitionReady = false;
  std::optional<std::string> unsplittableReason;
  size_t argCount = 0;
};

struct TestAnalysis {
  std::string vendorSource;
  std::string buildLogNotes;
  std::vector<std::string> errors;
  std::vector<TestKernel> kernels;

  const TestKernel* find(const std::string& name) const {
    for (const auto& k : kernels)
      if (k.name == name) return &k;
    return nullptr;
  }
};

using AnalyzeForTest = void (*)(const std::string& source, const std::string& options, TestAnalysis& out);
inline constexpr const char* kAnalyzeForTestSymbol = "clsplitAnalyzeForTest";

} // namespace clsplit::test
