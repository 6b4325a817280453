// `clsplit regions`: shows what the analysis knows about a program's kernels, either as the
// parametric regions (--symbolic) or instantiated for one NDRange and slice (JSON).
#pragma once

#include "analysis/Analysis.h"

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clsplit::analysis {

// args: the words after `clsplit regions` (a leading "regions" is skipped too):
//   FILE.cl --symbolic [--kernel NAME] [--options "BUILD OPTIONS"]
//   FILE.cl --kernel NAME --gws X[,Y[,Z]] [--lws X[,Y[,Z]]] [--offset X[,Y[,Z]]]
//           [--split-dim D] [--groups A:B] [--arg NAME=VALUE]... [--options "..."]
// --arg NAME=VALUE sets a scalar argument; NAME=size:BYTES a buffer's size (default:
// unbounded); NAME=file:PATH a buffer's contents (and size), read for indirections.
// Returns the process exit status: 0 success, 1 analysis/instantiation problem, 2 usage error.
int runRegionsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Same, with the program analysis supplied by the caller (tests; tools with their own front end).
using ProgramAnalyzer = std::function<ProgramAnalysis(std::string_view source, std::string_view buildOptions)>;
int runRegionsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                      const ProgramAnalyzer& analyze);

// Usage text of the sub-command.
std::string regionsUsage();

// The bytes of a scalar argument of `type` written as text ("3", "-1", "0x10", "2.5"), or
// nothing if the text is not such a value.
std::optional<std::vector<std::byte>> scalarFromText(const std::string& text, ScalarType type);

} // namespace clsplit::analysis
