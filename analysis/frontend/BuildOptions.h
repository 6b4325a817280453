// The OpenCL build-option string of clBuildProgram, parsed into what clsplit's own Clang
// front end must honour to see the program exactly as the vendor compilers will.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clsplit::analysis::frontend {

// OpenCL C language version, as -cl-std=CLx.y selects it (major*100 + minor*10: 120 = 1.2).
// 0 means "not given": vendors then use their highest 1.x version, and so do we (1.2).
using OpenCLVersion = unsigned;

struct BuildOptions {
  // -D NAME / -D NAME=VALUE / -U NAME, in command-line order ("NAME" / "NAME=VALUE").
  struct Macro {
    std::string definition;
    bool undefine = false;
  };
  std::vector<Macro> macros;
  std::vector<std::string> includeDirs; // -I DIR, in order
  OpenCLVersion clStd = 0;              // -cl-std=
  // OpenCL options that change the program's meaning (macros like __FAST_RELAXED_MATH__,
  // floating-point semantics), passed verbatim to Clang.
  std::vector<std::string> semanticFlags;
  bool optimizationDisabled = false; // -cl-opt-disable (only affects __OPTIMIZE__)
  bool suppressWarnings = false;     // -w
  bool warningsAsErrors = false;     // -Werror
  // Options clsplit does not need to understand (vendor-specific, optimisation level,
  // -cl-kernel-arg-info, ...): ignored, kept for the debug log.
  std::vector<std::string> ignored;

  // The version the program is compiled as: clStd, or 1.2 when none was given.
  OpenCLVersion effectiveVersion() const { return clStd ? clStd : 120; }
};

// Splits like a shell would (whitespace separates, "..." and '...' group, backslash escapes)
// and classifies. Never fails: anything it does not understand lands in `ignored`.
BuildOptions parseBuildOptions(std::string_view options);

// Splits an option string into words (exposed for tests).
std::vector<std::string> splitOptionWords(std::string_view options);

} // namespace clsplit::analysis::frontend
