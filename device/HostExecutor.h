// Host-side work that must wait for device work (copying a staged range into the
// application's memory, merging atomic regions): runs inline when its inputs are ready, else on
// clsplit's worker thread once they complete, never on a driver's callback thread.
#pragma once

#include "device/Fence.h"

#include <functional>
#include <vector>

namespace clsplit::device {

// Runs `work` after every fence in `after` completed; returns the fence of the work itself.
// If an input failed, `work` does not run and the returned fence carries the error.
std::shared_ptr<HostFence> runAfter(std::vector<FenceRef> after, std::function<void()> work);

} // namespace clsplit::device
