// Which bytes each device lacks before its sub-kernel, and from where each comes: the cheapest
// holder, adjacent pieces coalesced, small gaps the source also holds bridged, and what must
// pass through host memory read out of its device once (staging legs first in the plan).
#pragma once

#include "planner/LaunchPlan.h"

namespace clsplit::planner {

// Moves that make `need` of buffer `buffer` valid on `device`. `staged`: bytes of that buffer
// already on their way to the host in the same plan (valid on the host for this planning);
// staging legs this adds are appended to `staging` and their ranges to `staged`.
void planAcquire(const std::vector<DeviceTraits>& devices, const buffer::HolderView& holders, unsigned buffer,
                 const RangeSet& need, unsigned device, std::vector<Staging>& staging, std::vector<Move>& moves,
                 RangeSet& staged);

// Fills the plan's staging legs and moves for every sub-kernel's `need`.
void planMoves(const LaunchInput& input, LaunchPlan& plan);

} // namespace clsplit::planner
