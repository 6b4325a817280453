// Hint files (CLSPLIT_HINTS / AnalysisOptions::hintsDir): clsplit pragmas for programs whose
// source cannot be edited, applied as if written at the end of a kernel's body.
//
//   <hintsDir>/<programHash>.hints   lines before any section apply to every kernel
//   <hintsDir>/<kernel>.hints        lines before any section apply to that kernel
//
// Inside either file, `[kernel NAME]` starts a section for kernel NAME. Blank lines and lines
// starting with `//` are ignored; every other line must be a clsplit pragma (`#pragma read
// B[first, last]`, `#pragma opencl_increasing_buffer A`, ...).
#pragma once

#include "analysis/Analysis.h"

#include <map>
#include <string>
#include <vector>

namespace clsplit::analysis::frontend {

struct HintLine {
  std::string file; // the hint file, for diagnostics
  unsigned line = 0;
  std::string text; // "#pragma ..."
};

struct ProgramHints {
  std::map<std::string, std::vector<HintLine>> kernels; // kernel name -> its hint pragmas
  std::vector<Diagnostic> errors;                       // unreadable structure (not pragma syntax)
  bool empty() const { return kernels.empty() && errors.empty(); }
};

// Reads the hint files that apply to a program with these kernels.
ProgramHints readHints(const std::string& directory, const std::string& programHash,
                       const std::vector<std::string>& kernelNames);

// The names and contents of every *.hints file in `directory`, "" when there is none: hashed
// into the cache key, so that editing a hint file invalidates cached analyses.
std::string hintsDigest(const std::string& directory);

} // namespace clsplit::analysis::frontend
