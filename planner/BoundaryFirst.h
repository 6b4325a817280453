// Boundary-first launches (thesis §3.2.3; the seeds' hand-written stencils): a device's slice
// is cut into the work-groups at its edges that write what other devices fetched from it last
// time (its halo), launched first, and the interior. The halo can then be read out while the
// interior runs, instead of after the whole slice. What to cut is learnt, not guessed: the
// directory's record of the bytes other devices fetched from each device (BufferInput::pulled).
#pragma once

#include "planner/LaunchPlan.h"

namespace clsplit::planner {

// How far a cut may go: the boundary groups at one edge may be at most this fraction of the
// slice (more, and the interior is too short to hide the halo's move behind), and a slice needs
// at least kMinGroups groups to be cut at all.
struct BoundaryRules {
  uint64_t maxEdgeDivisor = 8; // an edge takes at most groups / 8
  uint64_t minGroups = 16;
};

// The halo of each sub-kernel: per sub-kernel, per buffer use, the bytes it writes that other
// devices fetched from its device (input.buffers[b].pulled). Empty when nothing is to be cut.
std::vector<std::vector<RangeSet>> haloOf(const LaunchInput& input, const Slicing& slicing);

// `slicing` with the sub-kernels whose halo lies at their edges cut into pieces (boundary groups
// first, then the interior), or nullptr when none is: no halo, a halo written by interior
// groups, slices too short, replicated slices or atomic merges (their bytes have no one owner).
std::shared_ptr<const Slicing> cutBoundaries(const LaunchInput& input, const analysis::LaunchValues& values,
                                             const Slicing& slicing, const std::vector<std::vector<RangeSet>>& halo,
                                             BoundaryRules rules = {});

} // namespace clsplit::planner
