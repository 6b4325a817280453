// Instantiation: parametric regions + one launch's values + one slice -> byte ranges per buffer.
// This runs on the launch path of every split kernel, so it must stay cheap (tens of us).
#pragma once

#include "analysis/region/KernelRegions.h"
#include "analysis/region/RangeSet.h"

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace clsplit::analysis {

struct KernelAnalysis;

// The application's NDRange. `local` is always explicit here: when the application passed
// NULL, the runtime has already chosen a local size that divides the global size.
struct NDRange {
  uint32_t dims = 1;
  std::array<uint64_t, 3> offset{0, 0, 0};
  std::array<uint64_t, 3> global{1, 1, 1};
  std::array<uint64_t, 3> local{1, 1, 1};

  // Work-groups along `d`, the last one partial where local[d] does not divide global[d] (the
  // non-uniform work-groups of OpenCL 2.0 and later).
  uint64_t groups(unsigned d) const { return d < dims ? (global[d] + local[d] - 1) / local[d] : 1; }
  // Whether every work-group is whole (local sizes still 0, chosen by the vendor, count as whole).
  bool uniform() const {
    for (unsigned d = 0; d < dims; ++d)
      if (local[d] && global[d] % local[d]) return false;
    return true;
  }
};

// The work-groups [groupBegin, groupEnd) of dimension `dim` (all groups of the other dims).
struct Slice {
  uint32_t dim = 0;
  uint64_t groupBegin = 0;
  uint64_t groupEnd = 0;
  bool empty() const { return groupEnd <= groupBegin; }
};

// A value read from a buffer element (indirections): integer or floating point.
struct ScalarValue {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0.0;
};
// The value of an element of `type` stored little-endian at `bytes` (scalarSize(type) bytes).
ScalarValue decodeScalar(const std::byte* bytes, ScalarType type);

// What the runtime knows about one launch, asked for lazily by the instantiation.
class LaunchValues {
public:
  virtual ~LaunchValues() = default;
  // The bytes the application gave clSetKernelArg for argument `arg` (empty if not a scalar).
  virtual std::span<const std::byte> scalarBytes(unsigned arg) const = 0;
  // Size in bytes of the buffer (or sub-buffer) bound to argument `arg`; 0 for NULL.
  virtual uint64_t bufferSize(unsigned arg) const = 0;
  // Reads one element of the buffer bound to `arg` (monotone-indirection hints only).
  // May block until the element's producer has run. nullopt when it cannot be read.
  virtual std::optional<ScalarValue> readElement(unsigned arg, uint64_t byteOffset, ScalarType type) const = 0;
};

// Regions of one buffer argument for one slice, in bytes relative to the start of the
// (sub-)buffer bound to that argument, clipped to its size.
struct BufferRegions {
  RangeSet read;
  bool readExact = false;  // read == the bytes really read (not an over-approximation)
  RangeSet write;          // bytes the slice may write
  bool writeExact = false; // every byte of `write` is written by the slice (must-write)
  RangeSet atomic;         // bytes touched only by commutative, result-unused atomics
  AtomicOp atomicOp = AtomicOp::None;
  ScalarType atomicType = ScalarType::Unknown;
  std::string note; // why a region fell back to the whole buffer, if it did
};

// Regions of every argument (index = argument index; non-buffer arguments stay empty).
// An empty region is exact. Slices of one launch may get overlapping `write` regions when
// they are over-approximated (writeExact false: may-writes) or when the kernel's work-groups
// really write the same bytes; the caller must check (RangeSet::intersects) before treating
// a slice as the owner of its write region. A read or atomic region keeps at most 1024
// disjoint ranges per stride, a write region 16384 (more: their hull, inexact, with a note). readElement is called at
// most twice per indirection in the parametric regions, and each element at most once per call. With `only`, the
// statements of arguments it does not mark are skipped (their regions stay empty): the planner re-instantiates only the
// arguments whose inputs changed. A non-zero `maxRanges` lowers those limits (a coarser region, found sooner).
std::vector<BufferRegions> instantiate(const KernelAnalysis& kernel, const NDRange& range, const Slice& slice,
                                       const LaunchValues& values, const std::vector<bool>* only = nullptr,
                                       uint64_t maxRanges = 0);

// The dimension to split for this launch: one whose slices write disjoint regions, with the
// smallest read overlap between neighbouring slices (each extra range counting as 4 KiB of
// transfer); ties go to the outermost (highest-numbered) dimension. Evaluates a 2-way uniform
// split per dimension, i.e. two instantiate() calls per dimension with at least two groups,
// each region kept to kChoiceMaxRanges ranges: a half that would have more is scored by its
// hull (which overlaps its neighbour's when they interleave), so that a 2-D grid's column
// halves are not enumerated row by row (two thirds of a first split launch's planning).
constexpr uint64_t kChoiceMaxRanges = 64;
uint32_t chooseSplitDimension(const KernelAnalysis& kernel, const NDRange& range, const LaunchValues& values);
// The outermost dimension with at least two groups (the last dimension if none has): what
// chooseSplitDimension() returns when it has nothing to compare, and its tie-break otherwise.
uint32_t defaultSplitDimension(const NDRange& range);
// Whether chooseSplitDimension() would compare dimensions (more than one has two groups).
bool splitDimensionIsAChoice(const NDRange& range);

} // namespace clsplit::analysis
