// Kernel names read from the program text without Clang: for the one case where Clang itself
// failed, so that the runtime still learns which kernels exist (and runs them whole).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clsplit::analysis::frontend {

// Names of functions declared `kernel`/`__kernel`, in order, without duplicates. Best effort:
// text in comments or inactive preprocessor branches counts too.
std::vector<std::string> scanKernelNames(std::string_view source);

} // namespace clsplit::analysis::frontend
