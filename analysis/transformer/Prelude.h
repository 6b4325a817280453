// The text clsplit puts in front of every partition-ready program: functions computing the
// original NDRange's values from the hidden arguments, and macros that route the built-ins
// whose value depends on the whole NDRange to them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clsplit::analysis::transformer {

// Built-ins rewritten for an OpenCL C version (x100: 120 = 1.2); get_global_linear_id only
// exists from 2.0 on, and defining a macro for it earlier could capture a user function.
std::vector<std::string_view> rewrittenBuiltins(unsigned clVersion);

// Names the transformer reserves (functions and parameters start with this).
inline constexpr std::string_view kReservedPrefix = "__clsplit_";

// Functions giving a function body that cannot receive the hidden arguments the values of the
// launch it runs in (whole launches only): `ulong4 __clsplit_goffset = <kWholeOffsetCall>;`.
inline constexpr std::string_view kWholeOffsetCall = "__clsplit_launch_offset()";
inline constexpr std::string_view kWholeSizeCall = "__clsplit_launch_size()";

// The prelude, ending with a `#line 1` so that the user's first line keeps its number.
std::string prelude(unsigned clVersion);

} // namespace clsplit::analysis::transformer
