// Test support: analyses OpenCL C source with the front end's compileToIR and the kernel
// analyzer, naming kernel arguments from the source text (the IR carries no names without
// -cl-kernel-arg-info).
#pragma once

#include "analysis/analyzer/KernelAnalyzer.h"

#include <string>
#include <string_view>

namespace clsplit::analysis::testing {

// Errors (compile failure) come back in ModuleAnalysis::errors.
ModuleAnalysis analyzeSource(std::string_view source, std::string_view buildOptions = "");

// As a ProgramAnalysis (what analyzeProgram returns; vendorSource is the source itself).
ProgramAnalysis analyzeProgramForTests(std::string_view source, std::string_view buildOptions);

// Parameter names of `kernel` as written in the source ("" when not found).
std::vector<std::string> parameterNames(std::string_view source, std::string_view kernel);

std::string readFile(const std::string& path);

} // namespace clsplit::analysis::testing
