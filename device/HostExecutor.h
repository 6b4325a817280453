// Host-side work that must wait for device work (copying a staged range into the
// application's memory, merging atomic regions): runs inline when its inputs are ready, else on
// clsplit's worker thread once they complete, never on a driver's callback thread.
#pragma once

#include "device/Fence.h"

#include <chrono>
#include <functional>
#include <vector>

namespace clsplit::device {

// Runs `work` after every fence in `after` completed; returns the fence of the work itself.
// If an input failed, `work` does not run and the returned fence carries the error.
std::shared_ptr<HostFence> runAfter(std::vector<FenceRef> after, std::function<void()> work);

// Runs `work` soon on a thread of clsplit's that runs nothing else anyone waits for: what a
// completion callback would do at length (reading a command's profile, updating the
// partitioner's models). A vendor runs its callbacks one after the other on one thread, so
// work done there delays every completion bridged through it (two H100: 1 600 measurement
// callbacks of ~20 us each held up the cross-device waits of a 46 ms run).
void runInBackground(std::function<void()> work);
// Waits until the background work posted so far has run (false: `timeout` passed first).
bool drainBackground(std::chrono::milliseconds timeout);
// Drops the background work not started yet and waits for the one running: from then on
// nothing runs there (at exit, before the vendors' libraries are torn down).
void stopBackground();

} // namespace clsplit::device
