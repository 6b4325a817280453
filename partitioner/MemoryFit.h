// Shares within the devices' memory: the largest share of a launch each device holds, whether a
// set of devices holds it together, and whether given shares fit (the LP's bounds, the balanced
// splits and the predictions all ask these).
#pragma once

#include <vector>

namespace clsplit::partition {

// What a split that does not fit is predicted to cost: more than any that does (the runtime would
// not run it so: it plans such a launch again, split by the devices' memory alone).
inline constexpr double kUnfitNs = 1e15;

// Two bounds on a device's share, kept apart: its memory (what evictions may make room for when
// the devices together cannot hold a launch) and its largest allocation (which no eviction
// changes: a share's window of a buffer is one allocation).

// The largest share of a launch of `launchBytes` that `memoryBytes` hold (1: no limit, either 0).
double shareThatFits(double memoryBytes, double launchBytes);
// The largest share of a launch whose window of its largest buffer (`largestBuffer` bytes) is
// one allocation within `maxAlloc` (CL_DEVICE_MAX_MEM_ALLOC_SIZE; 0: no limit), a 32nd of it left
// for halos and alignment. A share is taken to need that share of each buffer: a buffer every
// slice reads whole is over-counted.
double allocationShare(double maxAlloc, double largestBuffer);
// Both: the smaller of the two.
double shareThatFits(double memoryBytes, double launchBytes, double maxAlloc, double largestBuffer);
// The bounds a launch's shares are held to on the devices of `allowed`, per device, from
// `maxShare` (memory and largest allocation: the smaller of the two) and `allocShare` (the
// largest allocation alone; either empty or short: no limit there): both where they hold the
// launch together; else the allocation bounds alone where those do (memory is left to evictions,
// but no eviction makes a window larger than an allocation fit); else none (empty: no split fits
// them).
std::vector<double> boundsThatHold(const std::vector<double>& maxShare, const std::vector<double>& allocShare,
                                   const std::vector<bool>& allowed);
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
