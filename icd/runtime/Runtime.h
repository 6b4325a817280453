// The process-wide state behind the clsplit platform: settings, the real vendors and the real
// devices selected for splitting (the "device slots" every other component indexes by).
#pragma once

#include "buffer-manager/storage/BufferStorage.h"
#include "device/Fence.h"
#include "device/Vendors.h"
#include "icd/config/Settings.h"
#include "icd/objects/Environment.h"
#include "partitioner/Partitioner.h"

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace clsplit::partition {
class Partitioner;
}

namespace clsplit::icd::runtime {

class RunReport;

using icd::DeviceSlot;

// Also the objects' Environment (icd/objects/Environment.h): they reach the runtime only so.
class Runtime final : public Environment {
public:
  // Initialises on first use: settings, logging level, vendors, device selection.
  static Runtime& get();

  const Settings& settings() const override { return *settings_; }
  const device::Vendors& vendors() const override { return vendors_; }
  const std::vector<DeviceSlot>& slots() const override { return slots_; }
  // The slot that runs kernels whole (strategy `single`, unsplittable kernels).
  unsigned singleSlot() const { return singleSlot_; }
  // The one real device the program is handed directly (config/PassThrough.h), or null when
  // clsplit keeps its layer.
  const DeviceSlot* passThroughSlot() const { return passThrough_; }
  // CLSPLIT_STRATEGY is `single` or `single:N`: nothing is analysed for splitting.
  bool singleStrategy() const { return strategy_.kind == partition::StrategyKind::Single; }
  // Whether the strategy may give `slot` work-groups (false: a static share of 0, or `single`
  // on another slot).
  bool mayRunOn(unsigned slot);
  // The strategy in effect, as the user wrote it (adaptive-comm where the setting was unusable).
  const std::string& strategyName() const { return strategyName_; }
  // Real platforms that have at least one selected device.
  std::vector<unsigned> platformsInUse() const override;

  partition::Partitioner& partitioner() override { // every launch asks: one atomic load once made
    if (auto* made = partitionerMade_.load(std::memory_order_acquire)) return *made;
    return makePartitioner();
  }
  // The partitioner's state as JSON (for the run report; measurements still in flight omitted).
  std::string partitionerJson();
  RunReport& report();
  // Whether a run report or summary was asked for (the report records nothing otherwise).
  bool reporting() const { return reporting_; }
  // Whether every real command needs an event of its own for clsplit's sake (the run report's
  // device times, the trace); otherwise commands may go without one (device/Enqueue.h), except
  // those of launches the partitioner measures (LaunchPlan::measure).
  bool commandsTimed() override;
  bool tracing() const override;
  void hostSpan(const char* name, uint64_t startNs, uint64_t endNs) override;

  // Feeds the partitioner's models from one launch: device times and transfer times once their
  // fences are found complete (harvestMeasurements), dependency volumes now.
  // Times are fed only for a launch the partitioner asked to measure.
  void recordLaunch(uint64_t launchId, bool measured,
                    const std::vector<std::pair<unsigned, device::FenceRef>>& subKernels,
                    const std::vector<uint64_t>& groupsPerSlot, const buffer::TransferLog& transfers);

  // Runs the pending measurements whose commands have completed, asking the drivers about at
  // most `budget` of them, oldest first, and none queued behind one still running on its queue.
  // The launches and clFinish call it: measurements are read there, not from the vendors'
  // completion callbacks, because on NVIDIA a process that has set one completion callback pays
  // ~2.5 us more for every later enqueue (bench/calls call-costs on an H200: 5.3 -> 7.8 us per
  // clEnqueueNDRangeKernel).
  // Returns whether it found a command still running.
  bool harvestMeasurements(size_t budget);
  // The launches' share of that: up to 16 questions, oldest first; after finding one still
  // running, the next 7 calls ask nothing (a sampled command usually waits behind the next few
  // launches, and each question is a driver call) unless many are pending.
  void harvestSomeMeasurements() {
    const size_t pending = pendingCount_.load(std::memory_order_acquire);
    if (pending == 0) return;
    if (pending < 64 && harvestBackoff_.load(std::memory_order_relaxed) > 0) {
      harvestBackoff_.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
    if (harvestMeasurements(16)) harvestBackoff_.store(7, std::memory_order_relaxed);
  }

private:
  // fn(final status) once `fence` completes: found so by harvestMeasurements when `polled`,
  // else from the vendor's completion callback (a split launch's measurements are wanted at
  // once, the LP re-solves from them; such a launch costs the host far more than the callbacks'
  // toll on later enqueues).
  void whenComplete(const device::FenceRef& fence, std::function<void(cl_int)> fn, bool polled);
  void measureWhenDone(const device::FenceRef& fence, std::function<void(uint64_t)> report, bool polled);
  Runtime();
  void chooseStrategy(); // from CLSPLIT_STRATEGY and the selected devices (logs what is unusable)
  void choosePassThroughDevice(); // after chooseStrategy: whether one device runs everything, unwrapped
  const Settings* settings_;
  device::Vendors vendors_;
  std::vector<DeviceSlot> slots_;
  unsigned singleSlot_ = 0;
  const DeviceSlot* passThrough_ = nullptr;
  partition::StrategySpec strategy_; // the device of `single` as a slot
  std::string strategyName_;
  std::once_flag partitionerOnce_, reportOnce_, timedOnce_;
  bool commandsTimed_ = true;
  std::atomic<bool> commandsTimedKnown_{false};
  bool reporting_ = false;
  partition::Partitioner& makePartitioner();
  std::unique_ptr<partition::Partitioner> partitioner_;
  std::atomic<partition::Partitioner*> partitionerMade_{nullptr};
  std::unique_ptr<RunReport> report_;
  std::mutex pendingMutex_;
  std::deque<std::pair<device::FenceRef, std::function<void(cl_int)>>> pending_;
  std::atomic<size_t> pendingCount_{0};
  std::atomic<int> harvestBackoff_{0};
};

} // namespace clsplit::icd::runtime
