// Finds clsplit's pragmas in one source file and produces its two copies: the analysis copy
// (pragmas lowered to marker calls, see PragmaMarkers.h) and the vendor copy (pragmas blanked).
// Pure text processing: line numbers never move, so diagnostics and debug locations of either
// copy point at the user's lines.
#pragma once

#include "analysis/frontend/PragmaMarkers.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace clsplit::analysis::frontend {

struct PragmaRegion {
  std::string buffer; // parameter (or pointer variable) name
  std::string first;  // inclusive element index expression, as written
  std::string last;
};

struct PragmaRecord {
  MarkerKind kind = MarkerKind::Read;
  std::string text;       // the directive as written, continuations joined, comments removed
  unsigned line = 0;      // 1-based physical line of the '#'
  unsigned column = 0;    // 1-based column of the '#'
  unsigned lineCount = 1; // physical lines the directive spans
  size_t begin = 0;       // byte range of the directive ('#' up to, not including, its newline)
  size_t end = 0;
  size_t loweredBegin = 0; // the same directive's replacement in the analysis copy
  size_t loweredEnd = 0;
  bool fileScope = false;            // outside any braces
  std::vector<PragmaRegion> regions; // read / write / atomic
  std::vector<std::string> buffers;  // increasing / decreasing
  std::string error;                 // non-empty when the pragma is malformed (it is then not lowered)
  // Where the pragma was written when not in the program's source (a hint file): `line` is
  // then a line of that file.
  std::string origin;
};

struct LoweredFile {
  std::string analysisText;
  std::string vendorText;
  std::vector<PragmaRecord> pragmas; // in source order
};

// Recognises `#pragma read|write|atomic B[e1,e2]` (also `B[e1:e2]`, `B [..]`, and several
// comma-separated regions) and `#pragma opencl_increasing_buffer|opencl_decreasing_buffer A, B`.
// `#pragma clang __debug ...` (deliberate Clang crashes and hangs) is dropped from the analysis
// copy only. Every other directive, comment and string is left alone.
LoweredFile lowerPragmas(std::string_view text);

// The marker statement(s) that replace one well-formed, function-scope pragma.
std::string markerStatement(const PragmaRecord& pragma);

} // namespace clsplit::analysis::frontend
