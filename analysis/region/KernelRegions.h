// Parametric read/write/atomic regions of one kernel (thesis Definitions 6-8): what the
// analyzer produces once per kernel and the runtime instantiates at every launch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clsplit::analysis {

enum class ScalarType : uint8_t { Unknown, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64 };

// Commutative atomic updates whose result the kernel does not use: slices that overlap on
// such a region are merged by a reduction (thesis 3.1.4) instead of being serialised.
enum class AtomicOp : uint8_t { None, Add, Sub, Inc, Dec, Min, Max, And, Or, Xor };

enum class AccessKind : uint8_t { Read, Write, Atomic };

class Expr; // index-expression tree (region/Expr.h)
using ExprRef = std::shared_ptr<const Expr>;

// One guarded access (a Statement-Region): when all guards hold for a work-item, it touches
// `width` bytes at byte offset `offset` of buffer argument `arg`.
struct Guard;
struct StatementRegion {
  AccessKind kind = AccessKind::Read;
  unsigned arg = 0;                 // kernel argument index of the buffer
  ExprRef offset;                   // byte offset from the buffer start (may contain intervals)
  uint32_t width = 1;               // bytes touched per access
  std::vector<std::shared_ptr<const Guard>> guards;
  bool fromPragma = false;          // supplied by the user (#pragma read/write/atomic or hint)
  AtomicOp atomicOp = AtomicOp::None;
  ScalarType atomicType = ScalarType::Unknown;
  unsigned line = 0;                // source line of the access, for diagnostics
};

struct KernelRegions {
  std::vector<StatementRegion> statements;
  std::vector<unsigned> increasingBuffers; // args annotated opencl_increasing_buffer
  std::vector<unsigned> decreasingBuffers; // args annotated opencl_decreasing_buffer
};

} // namespace clsplit::analysis
