// Cutting a launch into slices: each slice's byte regions per buffer, and whether the slices may
// run apart (disjoint writes, atomic merges, computation replication, write-gap fills).
#pragma once

#include "planner/LaunchPlan.h"
#include "planner/RegionMemo.h"

namespace clsplit::planner {

// The launch values the region instantiation asks for, read from a LaunchInput. Indirection
// hints read buffer contents through the input's reader, when it has one and `readContents`.
class InputValues final : public analysis::LaunchValues {
public:
  InputValues(const LaunchInput& input, bool readContents) : input_(input), readContents_(readContents) {}
  std::span<const std::byte> scalarBytes(unsigned arg) const override;
  uint64_t bufferSize(unsigned arg) const override;
  std::optional<analysis::ScalarValue> readElement(unsigned arg, uint64_t offset,
                                                   analysis::ScalarType type) const override;
  // Whether an instantiation read buffer contents (its result may differ next launch).
  bool readBuffers() const { return readBuffers_; }

private:
  const LaunchInput& input_;
  bool readContents_;
  mutable bool readBuffers_ = false;
};

// Regions of every buffer argument of the work-groups `slice` (in buffer offsets): from the
// analysis when it is complete, else whole windows (read, and written unless read-only).
// With a memo, arguments whose region inputs are unchanged reuse their earlier regions.
std::vector<BufferUse> regionsOf(const LaunchInput& input, const analysis::LaunchValues& values,
                                 const analysis::Slice& slice, RegionMemo* memo = nullptr);

// Slices of `groups[device]` work-groups of dimension `dim`, laid out in device order. If their
// may-writes overlap, neighbouring slices are widened to run some work-groups twice
// (computation replication) when that gives every written byte an owner; otherwise (or with
// atomics that cannot be merged) the whole range runs on the device given the most groups, and
// `problem` says why.
Slicing sliceLaunch(const LaunchInput& input, const analysis::LaunchValues& values, uint32_t dim,
                    const std::vector<uint64_t>& groups, RegionMemo* memo = nullptr);

// The real NDRange of the work-groups `slice` of `range` (other dimensions whole).
void sliceRange(const analysis::NDRange& range, const analysis::Slice& slice, std::array<uint64_t, 3>& offset,
                std::array<uint64_t, 3>& global);

} // namespace clsplit::planner
