// Plans in words: what a launch will move and run where, for dry runs (`clsplit plan`) and
// debug logs.
#pragma once

#include "planner/LaunchPlan.h"

#include <string>

namespace clsplit::planner {

// A few lines: split dimension and groups, staging legs, moves, sub-kernels with their real
// offset and size and what they read and write, merges, and the bytes moved. `bufferNames`
// (optional) names each buffer index.
std::string describe(const LaunchPlan& plan, const std::vector<std::string>& bufferNames = {});

// Ranges in words, abbreviated beyond `maxRanges` ranges ("3 ranges, 96 B in [0,4096)").
std::string describeRanges(const RangeSet& ranges, size_t maxRanges = 4);

} // namespace clsplit::planner
