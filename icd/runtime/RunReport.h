// What clsplit did during a run, per kernel and per device: launches, how they were split,
// device time, bytes moved. Written as JSON at exit (CLSPLIT_REPORT) and as a human summary
// (CLSPLIT_SUMMARY). Device times arrive asynchronously and are collected without blocking.
#pragma once

#include "buffer-manager/storage/BufferStorage.h"
#include "device/Fence.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace clsplit::icd::runtime {

class RunReport {
public:
  // Nothing is recorded unless `enabled` (a report or a summary was asked for); the per-launch
  // records (JSON only) only when `perLaunch`.
  RunReport(unsigned slots, bool enabled, bool perLaunch);
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

  std::string json(const std::string& partitionerJson) const;
  std::string summary() const;

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
  mutable std::mutex mutex_;
  // Stable addresses: completion callbacks hold a KernelStats*, not a copy of the name.
  std::map<std::string, KernelStats, std::less<>> kernels_;
  size_t inFlight_ = 0;                   // sub-kernels whose device time has not arrived yet
  std::vector<uint64_t> h2d_, d2h_, d2d_; // bytes by slot (destination for h2d/d2d, source for d2h)
  uint64_t transferCount_ = 0;
};

// Installs the exit hook that writes CLSPLIT_REPORT / CLSPLIT_SUMMARY.
void installExitReport();

} // namespace clsplit::icd::runtime
