// The dynamic partitioner: chooses, for every kernel launch, how many work-groups of the split
// dimension each real device runs, from measured kernel times and transfer costs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clsplit::partition {

struct DeviceInfo {
  std::string name;
  bool isGpu = false;
  unsigned computeUnits = 1;
  unsigned platform = 0; // devices of one platform share a context (cheap device copies)
  // Fixed cost of one launch on this device (e.g. the runtime's measured time of an empty
  // kernel), in ns; 0: unknown, a prior by device type is used and refined from measurements.
  uint64_t launchLatencyNs = 0;
  // Claims every device type at once (Oclgrind): a simulator, assumed far slower than any real
  // device until measured (programs that never wait plan every launch from these priors).
  bool simulator = false;
  // Work-groups the device runs at once (at least its compute units): a launch with fewer takes
  // about as long as one with that many, so a share below it saves that device no time.
  // 0: unknown (time taken as proportional to the groups).
  uint64_t concurrentGroups = 0;
  // The real device (a device selected twice has two entries with the same one): with another
  // entry of the same real device, or as a CPU with another CPU of the same platform (one CPU:
  // PoCL's pthread devices share one pool of threads), it is assumed to take turns rather than
  // run at the same time, until split launches measure otherwise. -1: unknown.
  int realDevice = -1;
  bool isCpu = false;
  // Bytes clsplit's copies of buffers may take on this device (its share of the real device's
  // memory, or the cap set for it); 0: no limit. The LP's shares respect it (CostModel).
  uint64_t memoryBytes = 0;
  // The largest one allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE) where memoryBytes is set; 0: no
  // limit. A share's window of a buffer is one allocation (MemoryFit.h).
  uint64_t maxAllocBytes = 0;
  // memoryBytes is a cap the user set (CLSPLIT_DEVICE_MEMORY): devices that take turns are
  // then still split when one of them cannot hold a launch (no collapse onto one of them).
  bool memoryCapped = false;
};

enum class StrategyKind { Single, Uniform, Static, Adaptive, AdaptiveComm };

struct StrategySpec {
  StrategyKind kind = StrategyKind::AdaptiveComm;
  std::vector<double> staticRatios; // Static: one ratio per device (normalised on use)
  // Single: the device that runs everything. Parsed from "single:N" (singleDeviceNamed), where
  // N is a device index of `clsplit --list-devices`; the runtime hands the partitioner its slot.
  unsigned singleDevice = 0;
  bool singleDeviceNamed = false;
  bool broyden = false; // Adaptive: Broyden (secant) updates instead of fixed point
  // Parses "single", "single:N", "uniform", "static:0.5,0.5", "adaptive", "adaptive:broyden",
  // "adaptive-comm". On failure returns nullopt and, if `error` is set, says why.
  static std::optional<StrategySpec> parse(const std::string& text, std::string* error);
  // Why this strategy cannot run on `devices` devices (a static ratio per device, a single
  // device that exists), or empty if it can.
  std::string mismatch(size_t devices) const;
  std::string str() const;

  // What the strategy is, for the partitioner (which asks these instead of naming kinds):
  // adaptive ones split by measured models (they time launches and probe idle devices),
  bool adaptive() const { return kind == StrategyKind::Adaptive || kind == StrategyKind::AdaptiveComm; }
  // ... and adaptive-comm plans kernel sequences with the communication-aware LP.
  bool plansSequences() const { return kind == StrategyKind::AdaptiveComm; }
  // A fixed strategy's split of a splittable launch over `devices` (single: all on its device,
  // uniform: even, static: its ratios); nullopt for the adaptive ones.
  std::optional<std::vector<double>> fixedRatios(unsigned devices) const;
  // Where a fixed strategy runs all its work or what it does not split (single: its device,
  // static: the largest share); nullopt where measurements choose (uniform: the fastest device
  // for the kernel; the adaptive ones).
  std::optional<unsigned> fixedDevice(unsigned devices) const;
};

// One line per strategy, for `clsplit --list-strategies`.
std::vector<std::pair<std::string, std::string>> strategyDescriptions();

// How a launch touches one virtual buffer (to find producer -> consumer dependencies).
struct BufferUse {
  uint64_t buffer = 0; // stable id of the virtual buffer
  bool reads = false;
  bool writes = false;
  uint64_t bytes = 0; // size of the virtual buffer (0: unknown); a prior for transfer volumes
};

struct LaunchRequest {
  std::string kernel;       // kernel identity: program hash + name (stable across handles)
  uint64_t groups = 1;      // work-groups along the split dimension
  uint64_t groupSize = 1;   // work-items per work-group (all dims)
  uint64_t otherGroups = 1; // work-groups in the other dimensions (product)
  bool splittable = true;   // false: run all groups on one device (the partitioner picks it)
  std::vector<BufferUse> buffers;
};

// Device d runs the groups [sum of groups[0..d), + groups[d]) of the split dimension: slices are
// laid out in device order (the transfer model assumes it).
struct LaunchPlan {
  uint64_t launchId = 0;        // >= 1; unique per partitioner
  std::vector<uint64_t> groups; // per device; sums to request.groups
  // Whether the partitioner wants this launch's device and transfer times (timing a command
  // costs the host an event and a callback; a settled launch on one device is sampled).
  bool measure = false;
  // The slowest device's predicted time for its share, from its measurements of this kernel
  // (0: some device with work has none, or the strategy measures nothing).
  double predictedNs = 0;
  // Whole on the device that ran this kernel's last launches too, while no launch has been
  // split lately: the launch's buffers are best brought there whole (once), where the launches
  // that follow find them (a single-device runtime's layout). A split layout that other
  // kernels still use is never gathered.
  bool gather = false;
};

// producerLaunchId for bytes that came from the host (application writes), not from a launch.
inline constexpr uint64_t kHostProducer = 0;

// For DeviceToDevice transfers, `device` in reportTransfer is the destination.
enum class Direction { HostToDevice, DeviceToHost, DeviceToDevice };

// Tuning knobs with measured-or-conservative defaults; the runtime may override them.
struct PartitionerOptions {
  // Whether devices that take turns rather than run at the same time (one piece of hardware,
  // or measured so: DeviceInfo::realDevice) stop sharing launches. Off: every pair counts as
  // concurrent (tests of the balancing on devices that share one CPU).
  bool detectTakingTurns = true;
  // Host-side serial cost of one extra sub-launch (region instantiation, enqueue, events), in ns:
  // the floor of the estimate measured from split launches (reportSplitHostTime).
  double hostOverheadPerSubLaunchNs = 5000;
  // Change the plan only when the model predicts at least this relative gain, or
  // noiseGainFactor times the measured relative noise (about one standard deviation of a kernel
  // time) if larger: keeps noisy timings from making ratios oscillate.
  double minRelativeGain = 0.01;
  double noiseGainFactor = 1.0;
  // Weight of a new measurement at an unchanged split (exponential smoothing of per-group time).
  double smoothing = 0.5;
  // A launch (or iteration) whose split has settled is timed at most once in this long: timing
  // costs an event and a callback (on NVIDIA, more than a short launch itself), so a kernel of
  // a few microseconds is sampled once in hundreds of launches, a long one as before.
  double minSampleIntervalNs = 1e6;
  // Longest kernel sequence (launches per iteration) that sequence detection looks for.
  unsigned maxSequenceLength = 64;
  // Ratio history kept per kernel for reportJson() (oldest entries dropped beyond it).
  unsigned maxHistory = 4096;
  // adaptive-comm: solve the LP on the solver thread while plan() goes on with the ratios in use
  // (a solve takes up to a millisecond; kernels of a few microseconds should not wait for it).
  // Off, every solve finishes before the call that triggered it returns (deterministic: tests).
  bool asyncSolve = false;
};

class Partitioner {
public:
  virtual ~Partitioner() = default;

  // Decides the split of one launch. Called on the application's enqueue path: must be fast.
  virtual LaunchPlan plan(const LaunchRequest& request) = 0;
  // The device where data the host writes is most likely to be needed next: the one that ran
  // the most work-groups recently (before any launch: the fastest device by the priors, or the
  // strategy's own choice). The runtime uploads fresh host data there eagerly.
  virtual unsigned homeDevice() const = 0;
  // The device every launch runs on, when the strategy fixes one (a single device, `single`).
  virtual std::optional<unsigned> onlyDevice() const = 0;
  // Whether plans depend on measurements (false for one device, `single` and `static`): the
  // runtime then spares the per-command completion callbacks that would report them.
  virtual bool usesMeasurements() const = 0;

  // Measurements, reported when the real events complete (possibly long after plan(), in any
  // order, from any thread). Kernel time: preferably from submission to end of the sub-kernel,
  // so that the per-launch fixed cost is part of it. Unknown launch ids are ignored.
  // `startNs`/`endNs` (host clock, 0: unknown): when the sub-kernel ran; the sub-kernels of one
  // split launch tell whether their devices really run at once (devices sharing their hardware
  // take turns: two of PoCL's pthread devices, one GPU selected twice under a heavy kernel).
  // `enqueuedNs` (host clock, 0: unknown): when the host enqueued it; a sub-kernel the host
  // enqueued late (host-bound launches) tells nothing about whether its device could run at once.
  virtual void reportKernelTime(uint64_t launchId, unsigned device, uint64_t groups, uint64_t nanoseconds,
                                uint64_t startNs = 0, uint64_t endNs = 0, uint64_t enqueuedNs = 0) = 0;
  virtual void reportTransfer(unsigned device, Direction direction, uint64_t bytes, uint64_t nanoseconds) = 0;
  // The host time of one split launch of `subLaunches` sub-kernels, from the enqueue call to its
  // return: what a split costs the host (planning, moves, vendor calls; ~50-150 us on NVIDIA,
  // more than a short kernel) is then part of the model, so short launches stay whole.
  virtual void reportSplitHostTime(unsigned subLaunches, uint64_t nanoseconds) = 0;
  // `device`'s profiling times are no measurement (Mesa 22's rusticl stamps every command 0, 1,
  // 2, 3 ns): adaptive strategies, which would take it for infinitely fast, leave it out.
  virtual void reportUnmeasurable(unsigned device) = 0;
  // Bytes moved to `device` before launch `launchId` that were produced by `producerLaunchId`.
  virtual void reportDependencyVolume(uint64_t launchId, unsigned device, uint64_t producerLaunchId,
                                      uint64_t bytes) = 0;

  // Waits until no solve started by earlier calls is still running (asyncSolve).
  virtual void quiesce() = 0;

  // Warm start (CLSPLIT_PROFILE): the learned model, saved at exit and loaded at start.
  virtual bool saveProfile(const std::string& path) const = 0;
  virtual bool loadProfile(const std::string& path) = 0;

  // For the run report: JSON object describing per-kernel ratio history, predicted vs measured
  // iteration times, convergence, and the detected kernel sequence.
  virtual std::string reportJson() const = 0;
};

// Throws std::invalid_argument for an empty device list or a spec that does not fit the devices
// (static ratios of the wrong count, single device out of range).
std::unique_ptr<Partitioner> makePartitioner(std::vector<DeviceInfo> devices, StrategySpec spec);
std::unique_ptr<Partitioner> makePartitioner(std::vector<DeviceInfo> devices, StrategySpec spec,
                                             PartitionerOptions options);

} // namespace clsplit::partition
