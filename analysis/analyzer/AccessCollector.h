// Finds every memory access a kernel makes through its __global/__constant pointer
// arguments, by following each argument's uses (GEPs, casts, phis, selects) to loads,
// stores, atomics, memory intrinsics and OpenCL built-ins. A pointer that escapes (stored,
// passed to an unknown function, turned into an integer) makes that buffer's region unknown.
// Also collects the clsplit pragma markers.
#pragma once

#include "analysis/frontend/PragmaMarkers.h"
#include "analysis/region/KernelRegions.h"

#include <string>
#include <vector>

namespace llvm {
class CallInst;
class Function;
class Instruction;
class Value;
} // namespace llvm

namespace clsplit::analysis::analyzer {

struct RawAccess {
  AccessKind kind = AccessKind::Read;
  unsigned arg = 0;
  const llvm::Instruction* inst = nullptr;
  const llvm::Value* pointer = nullptr; // the accessed address (base of the access)
  uint32_t width = 1;                   // bytes per element access
  // vloadN/vstoreN: the address is pointer + index * indexScale.
  const llvm::Value* index = nullptr;
  uint64_t indexScale = 0;
  // memcpy/memset/async copies: `count` elements, `stride` elements apart (null = 1).
  const llvm::Value* count = nullptr;
  const llvm::Value* stride = nullptr;
  uint64_t elementBytes = 1;
  // Atomics.
  bool fromAtomic = false;
  bool atomicResultUsed = false;
  AtomicOp atomicOp = AtomicOp::None;
  ScalarType atomicType = ScalarType::Unknown;
  std::string what;       // "load", "store", "atomic_add", "vload4", ... (diagnostics)
  std::string unknownWhy; // non-empty: the region cannot be known (escaping pointer)
};

using MarkerKind = frontend::MarkerKind;

struct PragmaMarkerCall {
  MarkerKind kind = MarkerKind::Read;
  const llvm::CallInst* call = nullptr;
};

struct CollectedAccesses {
  std::vector<RawAccess> accesses;
  std::vector<PragmaMarkerCall> markers;
};

// bufferArgs: the argument indices of __global and __constant pointers.
CollectedAccesses collectAccesses(const llvm::Function& kernel, const std::vector<unsigned>& bufferArgs);

} // namespace clsplit::analysis::analyzer
