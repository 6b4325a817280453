// The contract between pragma lowering (front end) and the analyzer: clsplit's pragmas become
// calls to these marker functions in the analysis copy of the source, exactly where the
// pragma was written, so they inherit the guards and loops around them.
//
//   #pragma read   B[e1, e2]   ->  __clsplit_pragma_read  (B, (long)(e1), (long)(e2), (ulong)sizeof(*B));
//   #pragma write  B[e1, e2]   ->  __clsplit_pragma_write (B, (long)(e1), (long)(e2), (ulong)sizeof(*B));
//   #pragma atomic B[e1, e2]   ->  __clsplit_pragma_atomic(B, (long)(e1), (long)(e2), (ulong)sizeof(*B));
//   #pragma opencl_increasing_buffer A, B  ->  __clsplit_pragma_increasing(A); __clsplit_pragma_increasing(B);
//   #pragma opencl_decreasing_buffer A     ->  __clsplit_pragma_decreasing(A);
//
// e1 and e2 are *inclusive element* indices of B's element type; the 4th argument is the
// element size in bytes, so the byte range is [e1*size, (e2+1)*size).
//
// In LLVM IR the markers are overloaded (Itanium-mangled, e.g.
// `_Z21__clsplit_pragma_readPU3AS1VKvllm`): match callees with markerKind() below, which looks
// for the base name inside the callee name. Their first argument is `ptr addrspace(1)`
// (__global) or `ptr addrspace(2)` (__constant); the others are i64.
//
// A monotone pragma written at file scope applies to every kernel with a parameter of that
// name: the front end inserts the corresponding __clsplit_pragma_increasing/decreasing call at
// the entry of each such kernel in the IR (after inlining it is indistinguishable from one
// written in the kernel body).
#pragma once

#include <optional>
#include <string_view>

namespace clsplit::analysis::frontend {

enum class MarkerKind { Read, Write, Atomic, Increasing, Decreasing };

inline constexpr std::string_view kMarkerPrefix = "__clsplit_pragma_";
inline constexpr std::string_view kReadMarker = "__clsplit_pragma_read";
inline constexpr std::string_view kWriteMarker = "__clsplit_pragma_write";
inline constexpr std::string_view kAtomicMarker = "__clsplit_pragma_atomic";
inline constexpr std::string_view kIncreasingMarker = "__clsplit_pragma_increasing";
inline constexpr std::string_view kDecreasingMarker = "__clsplit_pragma_decreasing";

// Pragma spellings (after `#pragma`).
inline constexpr std::string_view kReadPragma = "read";
inline constexpr std::string_view kWritePragma = "write";
inline constexpr std::string_view kAtomicPragma = "atomic";
inline constexpr std::string_view kIncreasingPragma = "opencl_increasing_buffer";
inline constexpr std::string_view kDecreasingPragma = "opencl_decreasing_buffer";

// Injected ahead of the analysis copy (as a forced include, so line numbers do not move).
// `volatile` lets volatile buffers match too; two overloads cover both address spaces.
inline constexpr std::string_view kMarkerDeclarations = R"(
#define __CLSPLIT_ANALYSIS__ 1
#define __CLSPLIT_REGION_MARKER(NAME) \
  void __attribute__((overloadable)) NAME(const volatile __global void* buffer, long first, long last, ulong elementSize); \
  void __attribute__((overloadable)) NAME(const volatile __constant void* buffer, long first, long last, ulong elementSize);
#define __CLSPLIT_MONOTONE_MARKER(NAME) \
  void __attribute__((overloadable)) NAME(const volatile __global void* buffer); \
  void __attribute__((overloadable)) NAME(const volatile __constant void* buffer);
__CLSPLIT_REGION_MARKER(__clsplit_pragma_read)
__CLSPLIT_REGION_MARKER(__clsplit_pragma_write)
__CLSPLIT_REGION_MARKER(__clsplit_pragma_atomic)
__CLSPLIT_MONOTONE_MARKER(__clsplit_pragma_increasing)
__CLSPLIT_MONOTONE_MARKER(__clsplit_pragma_decreasing)
#undef __CLSPLIT_REGION_MARKER
#undef __CLSPLIT_MONOTONE_MARKER
)";

// Which marker a callee (mangled or not) is, if any.
inline std::optional<MarkerKind> markerKind(std::string_view calleeName) {
  if (calleeName.find(kMarkerPrefix) == std::string_view::npos) return std::nullopt;
  if (calleeName.find(kReadMarker) != std::string_view::npos) return MarkerKind::Read;
  if (calleeName.find(kWriteMarker) != std::string_view::npos) return MarkerKind::Write;
  if (calleeName.find(kAtomicMarker) != std::string_view::npos) return MarkerKind::Atomic;
  if (calleeName.find(kIncreasingMarker) != std::string_view::npos) return MarkerKind::Increasing;
  if (calleeName.find(kDecreasingMarker) != std::string_view::npos) return MarkerKind::Decreasing;
  return std::nullopt;
}

} // namespace clsplit::analysis::frontend
