// `clsplit plan`: dry runs of the planner. Analyses a program, then plans a sequence of launches
// over simulated buffers and devices and prints each plan (what moves where, which sub-kernels
// run where, what each device holds after), applying every plan's effects before the next.
#pragma once

#include "analysis/Analysis.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace clsplit::planner {

// args: the words after `clsplit plan`:
//   FILE.cl [--options "BUILD OPTIONS"] [--devices N] [--links discrete|unified|same]
//           --buffer NAME=BYTES[:host|:undefined]...
//           --launch "KERNEL gws=X[,Y[,Z]] [lws=...] [offset=...] [groups=G0,G1,...] ARG=VALUE..."...
//           [--repeat N]
// Returns the process exit status: 0 success, 1 a problem with the program, 2 usage error.
int runPlanCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Same, with the program analysis supplied by the caller (tests).
using Analyzer = std::function<analysis::ProgramAnalysis(std::string_view source, std::string_view buildOptions)>;
int runPlanCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const Analyzer& analyze);

std::string planUsage();

} // namespace clsplit::planner
