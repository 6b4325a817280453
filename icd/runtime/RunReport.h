// What clsplit did during a run, per kernel and per device: launches, how they were split,
// device time, bytes moved. Written as JSON at exit (CLSPLIT_REPORT) and as a human summary
// (CLSPLIT_SUMMARY). Device times arrive asynchronously and are collected without blocking.
#pragma once

#include "buffer-manager/storage/BufferStorage.h"
#include "buffer-manager/storage/DeviceMemory.h"
#include "buffer-manager/storage/PinnedPool.h"
#include "buffer-manager/storage/StagingRing.h"
#include "device/Fence.h"
#include "icd/runtime/HostTime.h"

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace clsplit::icd::runtime {

// What the report states besides what it recorded itself, read by its writer at exit: the run's
// devices and strategy, and process-wide counters of other layers. Handed in rather than fetched
// so that the report depends on no runtime and can be written without devices (tests).
struct RunFacts {
  struct Device {
    unsigned slot = 0, index = 0; // index: among all devices the vendors offer
    std::string name, platform, type;
  };
  struct DriverCalls {
    std::string function;
    uint64_t calls = 0, ns = 0;
  };
  std::string strategy;
  std::vector<Device> devices; // one per slot, in slot order
  uint64_t deferredLaunches = 0;
  bool analyzerLoaded = false;
  buffer::PinnedPool::Stats pinned;
  buffer::StagingRing::Totals ring;
  buffer::DeviceMemory::Totals memory;
  std::vector<HostTime::Snapshot> hostTime; // entry points with calls > 0, written in this order
  std::vector<DriverCalls> driverCalls;     // functions called at least once, any order
  uint64_t callbacks = 0, callbackNs = 0, callbackMaxNs = 0;
};

class RunReport {
public:
  // Nothing is recorded unless `enabled` (a report or a summary was asked for); the per-launch
  // records (JSON only) only when `perLaunch`. `commandsTimed` says, at each launch, whether its
  // sub-kernels have events whose device times are to be collected (asked, not given once: the
  // answer depends on the trace, which cannot be set up while the runtime that makes the report
  // is still being constructed).
  RunReport(unsigned slots, bool enabled, bool perLaunch, std::function<bool()> commandsTimed);
  // Whether anything is recorded (callers skip building what would be dropped).
  bool enabled() const { return enabled_; }

  // One launch: groups per slot (all zero but one when unsplit), why it was not split (if it
  // was not), and the sub-kernel fences whose device time is accumulated when they complete;
  // `resident`: it ran as is on a device holding all its data (ResidentLaunch.h).
  void noteLaunch(const std::string& kernel, const std::vector<uint64_t>& groupsPerSlot, bool split,
                  const std::optional<std::string>& fallbackReason,
                  const std::vector<std::pair<unsigned, device::FenceRef>>& subKernels,
                  const buffer::TransferLog& transfers, bool boundaryFirst = false, bool resident = false);
  void noteTransfers(const buffer::TransferLog& log);

  // `partitionerJson`: the partitioner's own object, or empty for null.
  std::string json(const RunFacts& facts, const std::string& partitionerJson) const;
  std::string summary(const RunFacts& facts) const;

private:
  struct KernelStats {
    std::string name;
    uint64_t launches = 0;
    uint64_t splitLaunches = 0;
    uint64_t boundaryFirstLaunches = 0; // split launches with halo work-groups launched first
    uint64_t residentLaunches = 0;      // run as is where all their data was (no plan)
    // Why launches ran whole, with how many did: a kernel can run whole for one reason on some
    // launches (one work-group) and split on others. At most kMaxReasons, the rest counted in
    // the last.
    std::vector<std::pair<std::string, uint64_t>> fallbackReasons;
    std::vector<uint64_t> groups;
    std::vector<uint64_t> timeNs;
  };
  // Per-launch records (for per-iteration plots), flat so that a launch allocates nothing:
  // launch i's kernel is launchKernels_[i], and launchValues_ holds its groups, device time and
  // bytes received per device, 3 x slots values from i * 3 * slots.
  static constexpr size_t kMaxLaunchRecords = 200000;
  static constexpr size_t kMaxReasons = 8;
  std::vector<const KernelStats*> launchKernels_;
  std::vector<uint64_t> launchValues_;
  KernelStats& statsOf(const std::string& kernel); // under mutex_
  void account(KernelStats& kernel, unsigned slot, size_t launch, uint64_t ns);
  unsigned slots_;
  bool enabled_, perLaunch_;
  std::function<bool()> commandsTimed_;
  mutable std::mutex mutex_;
  // Stable addresses: completion callbacks hold a KernelStats*, not a copy of the name.
  std::map<std::string, KernelStats, std::less<>> kernels_;
  size_t inFlight_ = 0;                   // sub-kernels whose device time has not arrived yet
  std::vector<uint64_t> h2d_, d2h_, d2d_; // bytes by slot (destination for h2d/d2d, source for d2h)
  uint64_t transferCount_ = 0;
};

} // namespace clsplit::icd::runtime
