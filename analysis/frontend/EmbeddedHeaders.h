// OpenCL headers compiled into the library: the machines clsplit runs on have
// libclang-cpp.so but no Clang resource directory, so the front end must not read them from disk.
#pragma once

#include <string_view>

namespace clsplit::analysis::frontend {

// clang/16/include/opencl-c-base.h: types, macros and the declarations -fdeclare-opencl-builtins
// does not provide. Copied at build time from the LLVM 16 installation.
extern const std::string_view kOpenCLBaseHeader;

} // namespace clsplit::analysis::frontend
