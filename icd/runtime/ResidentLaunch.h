// The launch path's fast lane: a launch that runs whole on one device which already holds a
// valid copy of every buffer it uses costs what a direct launch costs - the vendor's enqueue and
// the bookkeeping of the device copies it reads and writes, with no region instantiation, no
// directory walk and no transfer planning, whatever its scalar arguments or range.
#pragma once

#include "analysis/region/Instantiate.h"
#include "device/Fence.h"
#include "icd/objects/Kernel.h"
#include "icd/objects/Queue.h"

#include <memory_resource>
#include <optional>
#include <vector>

namespace clsplit::icd::runtime {

// The buffers of one launch (Kernel::bindBuffers), on the caller's stack for usual counts.
struct LaunchBuffers {
  std::array<std::byte, 512> arena;
  std::pmr::monotonic_buffer_resource resource{arena.data(), arena.size()};
  std::pmr::vector<std::shared_ptr<Mem>> mems{&resource};
  std::pmr::vector<uint64_t> ids{&resource}; // Mem::id() per argument, 0 for none (when filled)
};

// Whether every buffer of the launch is valid on `slot`, and no other device holds any byte of
// a buffer the kernel may write (so publishing the write changes no other holder). O(buffers),
// from the storages' cached summaries. Call with the context's planning lock held.
bool residentOn(const Kernel& kernel, const LaunchBuffers& buffers, unsigned slot);

// Enqueues the whole launch on `slot` (residentOn(slot) must hold under the same planning lock,
// or `slot` hold every byte of the buffers: the copies other devices hold of those the kernel may
// write are then dropped)
// and records it: for the partitioner as launch `launchId` of `groups` work-groups along its
// split dimension (0: a launch it did not plan), timed when `measure` (or the application
// profiles it). `range.local` is the application's (zeros: NULL). Returns its fence.
struct ResidentRecord {
  uint64_t launchId = 0;
  bool measure = false;
  uint64_t groups = 0;                   // for the run report and the partitioner (0: not asked for)
  const std::string* fallback = nullptr; // why a launch meant for several devices ran whole
  // The enqueue may be left to the submission thread (device/Submission.h) when nothing needs
  // the command's event now. The one-device path allows it; the others make vendor calls of
  // their own around the launch.
  bool mayDefer = false;
};
device::FenceRef launchResident(Queue& queue, Kernel& kernel, const analysis::NDRange& range,
                                const LaunchBuffers& buffers, unsigned slot, const std::vector<device::FenceRef>& waits,
                                const ResidentRecord& record, bool profiled);

} // namespace clsplit::icd::runtime
