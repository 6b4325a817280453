// The Partitioner implementation behind makePartitioner(): bookkeeping of launches and
// measurements, the per-kernel and per-sequence models, and the strategies on top of them.
// Internal to partitioner/: the runtime sees only Partitioner.h.
#pragma once

#include "partitioner/CostModel.h"
#include "partitioner/DependencyModel.h"
#include "partitioner/KernelBalancer.h"
#include "partitioner/KernelSequence.h"
#include "partitioner/KernelTimeModel.h"
#include "partitioner/Partitioner.h"
#include "partitioner/SequenceLp.h"
#include "partitioner/SolverThread.h"
#include "partitioner/TransferModel.h"
#include "support/Ring.h"

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace clsplit::partition {

class DynamicPartitioner final : public Partitioner {
public:
  DynamicPartitioner(std::vector<DeviceInfo> devices, StrategySpec spec, PartitionerOptions options);
  ~DynamicPartitioner() override;

  LaunchPlan plan(const LaunchRequest& request) override;
  unsigned homeDevice() const override;
  void quiesce() override;
  std::optional<unsigned> onlyDevice() const override {
    if (n_ == 1) return 0u;
    if (spec_.kind == StrategyKind::Single) return spec_.fixedDevice(n_); // static may use several
    return oneHardware_;
  }
  // Fixed strategies (single, uniform, static) learn nothing: their sub-kernels are not timed.
  bool usesMeasurements() const override { return n_ > 1 && spec_.adaptive() && !oneHardware_; }
  void reportKernelTime(uint64_t launchId, unsigned device, uint64_t groups, uint64_t nanoseconds, uint64_t startNs = 0,
                        uint64_t endNs = 0, uint64_t enqueuedNs = 0) override;
  void reportTransfer(unsigned device, Direction direction, uint64_t bytes, uint64_t nanoseconds) override;
  void reportSplitHostTime(unsigned subLaunches, uint64_t nanoseconds) override;
  void reportUnmeasurable(unsigned device) override;
  void reportDependencyVolume(uint64_t launchId, unsigned device, uint64_t producerLaunchId, uint64_t bytes) override;
  bool saveProfile(const std::string& path) const override;
  bool loadProfile(const std::string& path) override;
  std::string reportJson() const override;

private:
  struct HistoryEntry {
    uint64_t launch;   // index of this kernel's launch (0-based)
    int64_t iteration; // sequence iteration, -1 outside a sequence
    std::vector<double> ratios;
  };
  struct KernelState {
    std::string name;
    uint64_t groupSize = 1;
    uint64_t otherGroups = 1; // work-groups of the other dimensions per group of the split one
    uint64_t lastGroups = 0;
    uint64_t bytes = 0;   // of the buffers its latest launch uses (memory bounds its shares)
    uint64_t largest = 0; // of the largest of them (one allocation bounds its shares)
    std::vector<KernelDeviceTime> devices;
    std::vector<double> ratios; // adaptive: split for the next launch (empty: none chosen yet)
    BroydenSolver broyden;
    Relaxation relaxation;
    uint64_t launches = 0;
    Ring<HistoryEntry> history; // the last options_.maxHistory launches
    std::vector<double> lastRatios;
    uint64_t settledAfter = 0;                          // launches until the last ratio change above 2 %
    std::vector<uint64_t> lastFixedGroups;              // fixed strategies: the split of the last history entry
    int lastWholeDevice = -1;                           // where its last launch that could not be split ran
    std::chrono::steady_clock::time_point lastSample{}; // of its last timed launch (outside a sequence)
    uint64_t wholeStreak = 0;                           // its last launches in a row whole on wholeStreakDevice
    int wholeStreakDevice = -1;
    std::vector<uint64_t> nextProbe; // per device: launch count of its next probe (maybeProbe)
    std::vector<double> probeMoveNs; // per device: what moving its last probe's inputs cost
    uint64_t probes = 0;
    double spentNs = 0; // expected time of its launches so far (maybeProbe)
    // kernelSplit()'s balanced split, valid while the model and the launch's groups are those it
    // was computed for (a new group size bumps the model version; it runs on every launch until
    // a split is chosen).
    std::vector<double> balanced;
    uint64_t balancedModel = UINT64_MAX, balancedGroups = 0;
    // Its last launch planned in full, when it ran whole (planSettledWhole repeats it).
    struct SettledWhole {
      bool valid = false, splittable = false;
      unsigned device = 0;
      uint64_t model = 0, transfers = 0, plans = 0, generation = 0, groups = 0;
      double probeSpentNs = 0;
    } settled;
  };
  struct Producer {
    uint64_t launch;
    uint64_t buffer;
    uint64_t bytes;
    int wholeDevice = -1; // where it ran whole (-1: split, or not known yet)
  };
  struct Writer {
    uint64_t launch = 0;
    int wholeDevice = -1; // as Producer::wholeDevice: known even when its record is not
  };
  // What the partitioner knows of one recent launch. Records live in a fixed table (records_,
  // reused in place), so a launch's bookkeeping allocates nothing once its vectors have grown.
  struct LaunchRecord {
    uint64_t id = 0; // 0: the slot holds no launch
    uint32_t kernel = 0;
    uint64_t generation = 0; // sequence generation; 0: outside any sequence
    std::optional<unsigned> position;
    uint64_t iteration = 0;
    uint64_t totalGroups = 0;
    uint64_t otherGroups = 1; // work-groups per group of the split dimension
    uint64_t bytes = 0;       // of the distinct buffers it uses
    uint64_t largest = 0;     // of the largest of them
    bool splittable = true;
    std::vector<uint64_t> groups;
    std::vector<double> ratios;
    std::vector<Producer> producers;
    int probed = -1;                // the device given one group to probe it (maybeProbe)
    bool probeMoveCounted = false;  // its moves' cost was noted (KernelState::probeMoveNs)
    std::vector<double> measuredNs; // -1 until reported (empty: nothing reported yet)
    struct Span {
      uint64_t start = 0, end = 0, enqueued = 0; // host clock (0: unknown)
    };
    std::vector<Span> spans; // per device
    unsigned expected = 0, reported = 0;
    // Makes this slot launch `id`'s, empty (keeps the vectors' storage).
    void reset(uint64_t id);
  };
  struct IterationRecord {
    double predictedNs = -1, predictedComputeNs = -1;
    double measuredKernelNs = 0;
    unsigned measuredLaunches = 0;
    double hostIntervalNs = -1;
    bool solved = false;
  };
  using EdgeKey = std::pair<unsigned, unsigned>; // (producer position, consumer position)
  struct SequenceState {
    uint64_t generation = 0;
    std::vector<uint32_t> kernels;
    std::vector<double> groups;
    std::vector<double> bytes;    // of each position's buffers (its latest launch)
    std::vector<double> largest;  // of each position's largest buffer
    std::vector<bool> splittable; // false once a launch at that position was not
    std::vector<DependencyVolume> hostInput;
    std::map<EdgeKey, DependencyVolume> edges;
    // (producer position, consumer position, buffer) triples seen: the edge exists and its
    // prior counts the buffer (every launch checks its producers here).
    struct EdgeBuffer {
      unsigned from, to;
      uint64_t buffer;
      bool operator==(const EdgeBuffer&) const = default;
    };
    struct EdgeBufferHash {
      size_t operator()(const EdgeBuffer& e) const {
        return std::hash<uint64_t>()(e.buffer * 0x9E3779B97F4A7C15ull ^ (uint64_t(e.from) << 32 | e.to));
      }
    };
    std::unordered_set<EdgeBuffer, EdgeBufferHash> edgeBuffers;
    Ratios current;
    ActiveSet active;
    Relaxation relaxation;
    unsigned solvesSinceSearch = 0;
    int64_t lastMeasuredIteration = -1;
    double lastSearchPredictedNs = -1;
    bool haveSolution = false;
    double currentPredictedNs = -1, currentPredictedComputeNs = -1;
    std::optional<CostModel> solvedModel;
    std::optional<SequenceLp::Result> heldBack; // a better plan not adopted yet (within the noise)
    std::map<uint64_t, IterationRecord> iterations;
    std::chrono::steady_clock::time_point lastIterationStart{};
    uint64_t samplingIteration = UINT64_MAX; // the iteration timeIteration was decided for
    bool timeIteration = true;
    std::chrono::steady_clock::time_point lastSample{}; // when the last timed iteration began
  };

  // Everything below runs with mutex_ held.
  uint32_t intern(const std::string& kernel);
  std::vector<double> decide(const LaunchRequest& request, uint32_t kernel, const std::optional<unsigned>& position);
  std::vector<double> kernelSplit(uint32_t kernel, uint64_t groups);
  unsigned bestSingleDevice(uint32_t kernel, uint64_t groups) const;
  // Where a launch that cannot be split runs: its predicted time plus that of moving what it
  // reads from the devices its producers ran on; the previous choice kept unless another is
  // clearly better (two similar devices must not take turns, moving the data every time).
  unsigned wholeLaunchDevice(uint32_t kernel, uint64_t groups, const LaunchRecord& rec);
  // Whether this launch of `ks` is timed: with `launches` its launch count including this one;
  // `commit` records the decision (the sample's time, the iteration's choice), else nothing
  // that would change it is recorded (the settled lane asks before plan() does).
  bool sampleDue(KernelState& ks, uint64_t launches, std::optional<unsigned> position, uint64_t iteration, bool commit);
  // Launches since the split of `ks` last changed (with `launches` its launch count; in a
  // sequence, the least settled of its kernels).
  uint64_t launchesSettled(const KernelState& ks, uint64_t launches, std::optional<unsigned> position) const;
  // The device all of `groups` went to (-1: split, or none).
  static int wholeDeviceOf(const std::vector<uint64_t>& groups);
  // plan()'s settled lane (kSettledWholeStreak), or nullopt for the full path.
  std::optional<LaunchPlan> planSettledWhole(const LaunchRequest& request, KernelState& ks, uint64_t id,
                                             std::optional<unsigned> position);
  KernelCosts kernelCosts(uint32_t kernel, uint64_t groups) const;
  double nsPerGroup(uint32_t kernel, unsigned device) const;
  double itemNs(unsigned device) const;
  double computeItemNs(unsigned device) const;
  double latency(unsigned device) const { return launchLatency_[device].estimate(); }
  // Work-items in one group of the split dimension: a row of otherGroups work-groups.
  static double itemsPerRow(const KernelState& k) { return double(k.groupSize) * double(k.otherGroups); }
  // The groups of the split dimension a device runs at once for a kernel whose groups are rows
  // of `otherGroups` work-groups (a fraction of a row when a row holds more than it runs).
  double floorGroups(uint64_t otherGroups, unsigned device) const {
    return double(devices_[device].concurrentGroups) / double(std::max<uint64_t>(1, otherGroups));
  }
  double floorGroups(const KernelState& kernel, unsigned device) const {
    return floorGroups(kernel.otherGroups, device);
  }
  // f_d of a kernel measured on the device (its operating point, latency and concurrency).
  double measuredNsPerGroup(const KernelState& kernel, unsigned device) const {
    return kernel.devices[device].nsPerGroup(latency(device), floorGroups(kernel, device));
  }
  // Predicted time of `groups` groups of a kernel on one device (shareTimeNs).
  double shareNs(uint32_t kernel, unsigned device, double groups) const {
    return shareTimeNs(latency(device), nsPerGroup(kernel, device), groups, floorGroups(kernels_[kernel], device));
  }

  void startSequence();
  // `live`: planned now (not retro-assigned when the sequence was found).
  void attachToSequence(LaunchRecord& record, bool live);
  void onLaunchMeasured(uint64_t id, LaunchRecord& record);
  // How much the sub-kernels of a measured split launch overlapped (Concurrency below).
  void observeConcurrency(const LaunchRecord& record);
  // `groups` without the devices that take turns with the device given the most (they would
  // only add their time to its), unless this launch re-checks that (kConcurrencyRecheck).
  // `data`: the device holding most of the launch's inputs (dataDevice), or -1.
  void dropSerialized(std::vector<uint64_t>& groups, KernelState& kernel, int data);
  // Gives an idle device one group now and then; returns it, or -1.
  int maybeProbe(KernelState& ks, uint32_t kernel, std::vector<uint64_t>& groups);
  // The device holding most of the bytes a launch reads (where their producers ran), else where
  // the kernel last ran whole, else -1; `inputs` receives (device, bytes) per producer.
  int dataDevice(const LaunchRecord& rec, const KernelState& ks,
                 std::vector<std::pair<unsigned, uint64_t>>* inputs = nullptr);
  // An even split over the devices identical to the one the priors favour, for launches large
  // enough: before the kernel is measured anywhere and, `whileAlike`, as long as only those
  // devices were measured and they measure alike; nullopt otherwise.
  std::optional<std::vector<double>> evenOverIdentical(uint32_t kernel, uint64_t groups, bool whileAlike) const;
  // Whether devices a and b were measured (or are assumed) to take turns rather than run at once.
  bool takesTurns(unsigned a, unsigned b) const;
  void onIterationMeasured();
  CostModel buildCostModel() const;
  void solveSequence(bool force);
  // The solve itself, on the solver thread (no lock held), then its result applied under the
  // lock unless the sequence changed meanwhile.
  struct SolveJob;
  SequenceLp::Result runSolve(const SolveJob& job);
  void applySolve(const SolveJob& job, SequenceLp::Result result, double ns);
  // Adopts `result` (relaxed towards it) when it beats the plan in use by more than the noise;
  // otherwise keeps it as `heldBack` to look at again.
  void adoptIfBetter(const CostModel& model, SequenceLp::Result result);
  // Each position's split as its kernel's last launch had it (empty where one has none yet).
  Ratios inUseRatios() const;
  double noiseLevel() const;
  void recordHistory(KernelState& kernel, const std::vector<double>& ratios, const std::optional<unsigned>& position,
                     uint64_t iteration);
  // The split of a fixed strategy (single, uniform, static).
  std::vector<uint64_t> fixedGroups(const LaunchRequest& request, uint32_t kernel) const;
  // A fixed strategy's `ratios` with each device's share of the launch's largest buffer within
  // its largest allocation (a window is one allocation: a share beyond it fails to allocate
  // whatever is evicted), the excess moved to the devices with room in proportion to their
  // ratios (withinShares); unchanged where the allocations cannot hold the buffer together.
  std::vector<double> withinLargestAllocation(std::vector<double> ratios, const LaunchRequest& request) const;
  // Notes a launch's split (the home device follows recent launches).
  void noteGroups(KernelState& kernel, const std::vector<uint64_t>& groups, uint64_t total);
  // Counts the kernel's launches in a row whole on one device (returned) and the launches since
  // one was split (LaunchPlan::gather).
  uint64_t noteWholeStreak(KernelState& kernel, const std::vector<uint64_t>& groups);
  LaunchRecord* find(uint64_t id);

  std::vector<DeviceInfo> devices_;
  StrategySpec spec_;
  PartitionerOptions options_;
  const unsigned n_;

  mutable std::mutex mutex_;
  std::unordered_map<std::string, uint32_t> kernelIds_;
  std::vector<double> recentGroupShare_; // per device, decaying share of recent launches' groups
  std::vector<KernelState> kernels_;
  KernelSequence sequence_;
  SequenceState seq_;
  // The LP lives on the solver thread (created, used and destroyed there); adaptive-comm only.
  std::unique_ptr<SolverThread> solver_;
  bool solveInFlight_ = false;  // asyncSolve: a solve was submitted and not applied yet
  bool solveRequested_ = false; // asyncSolve: new measurements arrived during that solve
  std::unique_ptr<SequenceLp> lp_;
  TransferModel transfers_;
  std::vector<LaunchLatency> launchLatency_;
  std::vector<bool> unmeasurable_; // reportUnmeasurable: left out of adaptive splits
  bool usable(unsigned d) const { return d >= unmeasurable_.size() || !unmeasurable_[d]; }
  // Devices whose profile is no clock are not `allowed`, unless the others cannot hold a launch
  // of `bytes` together: they then take what the others cannot (as if far slower than them).
  void leaveOutUnmeasurable(std::vector<bool>& allowed, std::vector<double>& nsPerGroup, double bytes,
                            double largest) const;
  // The largest share of a launch using `bytes` (its largest buffer `largest`) device d holds.
  double shareThatFitsOn(unsigned d, double bytes, double largest) const;
  // Per pair of devices: how far their sub-kernels of one launch ran at once, 1 fully (the sum of
  // their times minus the launch's span, over the shorter time), 0 one after the other; an
  // average over split launches whose shorter sub-kernel took long enough to tell.
  struct Concurrency {
    double overlap = 1.0;
    unsigned samples = 0;
  };
  std::vector<std::vector<Concurrency>> concurrency_;
  // Adaptive strategies over devices that are all one piece of hardware (every pair assumed to
  // take turns: one device selected several times, PoCL's CPU devices of one platform): the
  // device that runs everything, as `single` would; splitting could not be faster there.
  std::optional<unsigned> oneHardware_;
  uint64_t modelVersion_ = 0;    // bumped whenever a kernel time or latency model changes
  uint64_t transferVersion_ = 0; // bumped whenever the transfer model changes
  // itemNs() per device for modelVersion_ (-1: not computed): it walks every kernel, and the
  // per-launch plan asks for it for each device that has no measurement of the kernel.
  mutable std::vector<double> itemNsCache_;
  mutable uint64_t itemNsVersion_ = UINT64_MAX;

  uint64_t nextLaunch_ = 1;
  // Launch `id`'s record in slot id % kLaunchMemory (find() checks the id): the recent launches,
  // for late reports and the producers of later ones.
  std::vector<LaunchRecord> records_;
  LaunchRecord& newRecord(uint64_t id);
  uint64_t launchesSinceSplit_ = 0; // launches planned since the last one split (any kernel)
  // Host time per sub-launch of recent split launches (reportSplitHostTime), and the overhead
  // the models use: their median once there are enough, never below the option's.
  static constexpr size_t kSplitHostSamples = 32;
  Ring<double> splitHostNs_{kSplitHostSamples};
  std::vector<double> splitHostScratch_; // the median's copy, reused: no allocation per split launch
  double hostOverheadNs_ = 0;
  // Scratch of wholeLaunchDevice() and dataDevice() (every launch that runs whole asks them).
  std::vector<uint64_t> heldScratch_;
  std::vector<std::pair<unsigned, uint64_t>> inputsScratch_;
  std::vector<double> costScratch_;
  std::unordered_map<uint64_t, Writer> lastWriter_; // buffer -> its last writer

  // Warm-start dependency priors by (producer kernel, consumer kernel) name.
  std::map<std::pair<std::string, std::string>, double> profileEdges_;

  // Statistics for the report.
  uint64_t solves_ = 0, skippedSolves_ = 0, simplexRuns_ = 0, planChanges_ = 0;
  uint64_t settledLaunches_ = 0; // planned by planSettledWhole
  // plan() calls that found the lock taken (by measurements or a solve being applied), and the
  // time they waited for it: the application's thread waiting on clsplit's other threads.
  uint64_t planLockWaits_ = 0, planLockWaitNs_ = 0;
  uint64_t changesNotRepaid_ = 0; // better plans not adopted: their moves cost more than they gain
  double solveNsTotal_ = 0, solveNsMax_ = 0;
};

} // namespace clsplit::partition
