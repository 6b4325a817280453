// Parametric read/write/atomic regions of one kernel (thesis Definitions 6-8): what the
// analyzer produces once per kernel and the runtime instantiates at every launch.
#pragma once

#include "analysis/region/Expr.h"
#include "analysis/region/Guard.h"
#include "analysis/region/ScalarType.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clsplit::analysis {

enum class AccessKind : uint8_t { Read, Write, Atomic };

// One guarded access (a Statement-Region): when all guards hold for a work-item, it touches
// `width` bytes at byte offset `offset` of buffer argument `arg` (offset may denote several
// values: a loop's induction sequence, an interval, ...; every one of them is accessed).
struct StatementRegion {
  AccessKind kind = AccessKind::Read;
  unsigned arg = 0;   // kernel argument index of the buffer
  ExprRef offset;     // byte offset from the buffer start (may contain intervals)
  uint32_t width = 1; // bytes touched per access
  std::vector<std::shared_ptr<const Guard>> guards;
  bool fromPragma = false; // supplied by the user (#pragma read/write/atomic or hint)
  // The analysis captured every condition under which the access happens: a work-item that
  // satisfies `guards` performs it at every value of `offset` (must-access). False when a
  // condition was dropped or a loop's trip count is only bounded; the region then
  // over-approximates (never under-approximates) the bytes accessed.
  bool exact = true;
  AtomicOp atomicOp = AtomicOp::None;
  ScalarType atomicType = ScalarType::Unknown;
  unsigned line = 0; // source line of the access, for diagnostics
};

struct KernelRegions {
  std::vector<StatementRegion> statements;
  std::vector<unsigned> increasingBuffers; // args annotated opencl_increasing_buffer
  std::vector<unsigned> decreasingBuffers; // args annotated opencl_decreasing_buffer
};

// The kernel arguments whose values the regions depend on (Arg leaves of offsets and guards),
// as a mask indexed by argument: a launch's regions are those of any launch with the same
// values of these arguments, whatever the others are (the planner's memo keys on them alone).
std::vector<bool> argumentsInRegions(const KernelRegions& regions, size_t argCount);

// What the regions of one buffer argument depend on besides the NDRange, the slice and that
// buffer's size: the scalar arguments in its statements' offsets and guards, and whether they
// read buffer contents (indirections; then they may change with no argument changing).
struct ArgumentRegionInputs {
  std::vector<bool> scalars; // indexed by argument
  bool readsContents = false;
  bool hasStatements = false;
};
// Indexed by buffer argument (at least argCount entries).
std::vector<ArgumentRegionInputs> regionInputsPerArgument(const KernelRegions& regions, size_t argCount);

// Human-readable listing (`clsplit regions --symbolic`), one statement per line.
std::string toString(const StatementRegion& s, const ArgNamer& names = {});
std::string toString(const KernelRegions& regions, const ArgNamer& names = {});

// Compact, versioned encoding for the on-disk analysis cache. deserialize() rejects anything
// malformed or of another version (nullopt, with the reason in *error when given).
std::string serialize(const KernelRegions& regions);
std::optional<KernelRegions> deserialize(std::string_view bytes, std::string* error = nullptr);
inline constexpr unsigned kRegionsFormatVersion = 2;

} // namespace clsplit::analysis
