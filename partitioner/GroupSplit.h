// Ratios to work-groups: integer group counts per device that sum exactly to the launch's groups.
#pragma once

#include <cstdint>
#include <vector>

namespace clsplit::partition {

// Largest-remainder rounding of `ratios` (normalised here; negative or non-finite entries count as
// 0; all-zero ratios give everything to device 0) to counts summing exactly to `groups`.
std::vector<uint64_t> ratiosToGroups(const std::vector<double>& ratios, uint64_t groups);

// The ratios a group split stands for (groups[d] / total; all zero if total is 0).
std::vector<double> groupsToRatios(const std::vector<uint64_t>& groups);

} // namespace clsplit::partition
