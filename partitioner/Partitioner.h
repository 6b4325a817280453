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
  unsigned platform = 0;      // devices of one platform share a context (cheap device copies)
};

enum class StrategyKind { Single, Uniform, Static, Adaptive, AdaptiveComm };

struct StrategySpec {
  StrategyKind kind = StrategyKind::AdaptiveComm;
  std::vector<double> staticRatios; // Static: one ratio per device (normalised on use)
  unsigned singleDevice = 0;        // Single: the device that runs everything
  // Parses "single", "uniform", "static:0.5,0.5", "adaptive", "adaptive-comm".
  static std::optional<StrategySpec> parse(const std::string& text, std::string* error);
  std::string str() const;
};

// One line per strategy, for `clsplit --list-strategies`.
std::vector<std::pair<std::string, std::string>> strategyDescriptions();

// How a launch touches one virtual buffer (to find producer -> consumer dependencies).
struct BufferUse {
  uint64_t buffer = 0;        // stable id of the virtual buffer
  bool reads = false;
  bool writes = false;
};

struct LaunchRequest {
  std::string kernel;         // kernel identity: program hash + name (stable across handles)
  uint64_t groups = 1;        // work-groups along the split dimension
  uint64_t groupSize = 1;     // work-items per work-group (all dims)
  uint64_t otherGroups = 1;   // work-groups in the other dimensions (product)
  bool splittable = true;     // false: run all groups on one device (the partitioner picks it)
  std::vector<BufferUse> buffers;
};

struct LaunchPlan {
  uint64_t launchId = 0;
  std::vector<uint64_t> groups; // per device; sums to request.groups
};

enum class Direction { HostToDevice, DeviceToHost, DeviceToDevice };

class Partitioner {
public:
  virtual ~Partitioner() = default;

  // Decides the split of one launch. Called on the application's enqueue path: must be fast.
  virtual LaunchPlan plan(const LaunchRequest& request) = 0;

  // Measurements, reported when the real events complete (possibly long after plan()).
  virtual void reportKernelTime(uint64_t launchId, unsigned device, uint64_t groups,
                                uint64_t nanoseconds) = 0;
  virtual void reportTransfer(unsigned device, Direction direction, uint64_t bytes,
                              uint64_t nanoseconds) = 0;
  // Bytes moved to `device` before launch `launchId` that were produced by `producerLaunchId`.
  virtual void reportDependencyVolume(uint64_t launchId, unsigned device,
                                      uint64_t producerLaunchId, uint64_t bytes) = 0;

  // Warm start (CLSPLIT_PROFILE): the learned model, saved at exit and loaded at start.
  virtual bool saveProfile(const std::string& path) const = 0;
  virtual bool loadProfile(const std::string& path) = 0;

  // For the run report: JSON object describing per-kernel ratio history, predicted vs measured
  // iteration times, convergence, and the detected kernel sequence.
  virtual std::string reportJson() const = 0;
};

std::unique_ptr<Partitioner> makePartitioner(std::vector<DeviceInfo> devices, StrategySpec spec);

} // namespace clsplit::partition
