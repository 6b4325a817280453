// Recognition of OpenCL C built-in functions in LLVM IR: Clang keeps them as external calls
// with Itanium-mangled names (get_global_id -> _Z13get_global_idj, vload4 -> _Z6vload4mPU3AS1Kf).
#pragma once

#include "analysis/region/ScalarType.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clsplit::analysis::analyzer {

// One parameter type of a mangled name, as far as the analysis needs it.
struct MangledParam {
  bool pointer = false;
  unsigned addressSpace = 0;                // pointers: 1 global, 2 constant, 3 local, 0 private
  ScalarType element = ScalarType::Unknown; // scalar, vector element or pointee element
  unsigned vectorWidth = 1;                 // Dv4_f -> 4
  bool isHalf = false;                      // Dh
  unsigned elementBytes() const { return isHalf ? 2 : scalarSize(element); }
};

struct MangledName {
  std::string base;                 // "get_global_id", "vload4", "atomic_add", ...
  std::vector<MangledParam> params; // best effort: empty when the encoding was not understood
};

// Splits an Itanium-mangled free-function name; plain C names come back with no params.
MangledName demangle(std::string_view mangled);

enum class BuiltinKind {
  None,
  WorkItem,       // get_global_id & co (value)
  Launch,         // get_global_size & co (value)
  IntMath,        // min, max, clamp, abs, mul24, mad24 (value)
  FloatMath,      // floor, ceil, trunc, fabs, fmin, fmax (value)
  Convert,        // convert_<type>[_sat][_rte|_rtz|_rtp|_rtn] (value)
  VLoad,          // vloadN, vload_half[N], vloada_half[N]
  VStore,         // vstoreN, vstore_half[N][_r..], vstorea_half[N][_r..]
  Atomic,         // atomic_* / atom_* on a pointer argument
  AsyncCopy,      // async_work_group_copy / async_work_group_strided_copy
  NoMemoryEffect, // prefetch, printf, barriers, fences, wait_group_events: no buffer access
};

struct Builtin {
  BuiltinKind kind = BuiltinKind::None;
  MangledName name;
  // VLoad/VStore: elements per access (vload3 -> 3) and the stride in elements between
  // consecutive offsets (vloada_half3 -> 4); element size comes from the pointer parameter.
  unsigned vectorCount = 1;
  unsigned vectorStride = 1;
  bool halfElements = false;
};

Builtin classifyBuiltin(std::string_view calleeName);

} // namespace clsplit::analysis::analyzer
