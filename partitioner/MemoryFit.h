// Shares within the devices' memory: the largest share of a launch each device holds, whether a
// set of devices holds it together, and whether given shares fit (the LP's bounds, the balanced
// splits and the predictions all ask these).
#pragma once

#include <vector>

namespace clsplit::partition {

// What a split that does not fit is predicted to cost: more than any that does (the runtime would
// not run it so: it plans such a launch again, split by the devices' memory alone).
inline constexpr double kUnfitNs = 1e15;

// The largest share of a launch of `launchBytes` that `memoryBytes` hold (1: no limit, either 0).
double shareThatFits(double memoryBytes, double launchBytes);
// The same, and within `maxAlloc` for the window of the launch's largest buffer (`largestBuffer`
// bytes), which is one allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE; 0: no limit). A share is taken
// to need that share of each buffer: a buffer every slice reads whole is over-counted.
double shareThatFits(double memoryBytes, double launchBytes, double maxAlloc, double largestBuffer);
// `ratios` (summing to 1) with each device held to `maxShare[d]` and what exceeds it moved to
// the devices with room, in proportion to their ratios; unchanged where the bounds sum below 1
// (no split fits them).
std::vector<double> withinShares(std::vector<double> ratios, const std::vector<double>& maxShare);
// Whether the devices of `allowed` hold a launch together, each at most `maxShare[d]` (absent: 1).
bool roomForAll(const std::vector<double>& maxShare, const std::vector<bool>& allowed);
// Whether shares `y` of a launch of `groups` work-groups are each within `maxShare` (to a
// work-group), or the allowed devices cannot hold it together anyway (memory left to evictions).
bool sharesFit(const std::vector<double>& maxShare, const std::vector<bool>& allowed, const std::vector<double>& y,
               double groups);

} // namespace clsplit::partition
