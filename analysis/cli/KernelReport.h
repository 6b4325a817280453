// What the analysis concluded about kernels, in words for users: `clsplit regions --symbolic`
// and the hint dumps of a run (CLSPLIT_HINTS_DUMP, `clsplit hints --dump`).
#pragma once

#include "analysis/Analysis.h"

#include <iosfwd>
#include <string>
#include <string_view>

namespace clsplit::analysis {

// The argument's name, or "argN" when the source gives none.
std::string argNameOf(const KernelAnalysis& kernel, unsigned index);

// The kernel's signature, verdict, parametric regions and the notes on what defeated the analysis
// (with the line and the pragma that would help).
void describeKernel(std::ostream& out, const KernelAnalysis& kernel);

// The hint dump of one program: its hash (the name of its hint file), options, and per kernel the
// verdict and notes, with how to write a hint file for it. Pure text, no file access.
std::string hintsDump(const ProgramAnalysis& analysis, std::string_view programHash, std::string_view buildOptions);

} // namespace clsplit::analysis
