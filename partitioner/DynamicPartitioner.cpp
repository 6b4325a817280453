// Launch planning and measurement intake for every strategy; the sequence LP for adaptive-comm.
#include "partitioner/DynamicPartitioner.h"

#include "partitioner/MemoryFit.h"

#include "partitioner/DevicePriors.h"
#include "partitioner/GroupSplit.h"
#include "support/Log.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

namespace clsplit::partition {

namespace {

constexpr size_t kLaunchMemory = 8192; // launch records kept for late reports
constexpr double kSettledChange = 0.02;
// A kernel whose split has not changed for this many launches (kSettledSplitLaunches for a split
// one), is timed once in kSampleEvery launches: enough to notice a change of speed, without
// an event and a callback per launch (~10 us of driver time per timed launch on NVIDIA). The
// longer the split holds, the sparser: one in 16 after 256 settled launches, up to one in
// kSampleEveryMax.
constexpr uint64_t kSettledLaunches = 8;
// Split launches are all timed until their split has held this long (DynamicPartitioner::plan).
constexpr uint64_t kSettledSplitLaunches = 64;
// Concurrency of devices (observeConcurrency): sub-kernels shorter than this tell nothing (the
// devices' clocks are mapped onto the host's with microseconds of error); below this average
// overlap, after this many samples, two devices count as taking turns; one launch in this many
// is split anyway, to measure again.
constexpr double kConcurrencyMinNs = 50'000;
constexpr double kSerializedOverlap = 0.3;
constexpr unsigned kConcurrencySamples = 3;
constexpr uint64_t kConcurrencyRecheck = 256;
// A launch that cannot be split moves to another device only when that is predicted this much
// faster, its inputs' moves included (wholeLaunchDevice).
constexpr double kWholeDeviceMargin = 0.25;
constexpr uint64_t kSampleEvery = 8;
constexpr uint64_t kSampleEveryMax = 64;
// Probes (maybeProbe): from a kernel's 16th launch, in launches expected to take at least
// kProbeMinLaunchNs, once the probed group's expected time is at most kProbeShare of the
// kernel's time so far; the next probe of that device waits for 4x as many launches.
constexpr uint64_t kFirstProbe = 16;
constexpr uint64_t kProbeBackoff = 4;
// A kernel whole on one device for this many launches in a row, with no launch of any kernel
// split for kGatherQuiet launches, has its buffers gathered there (LaunchPlan::gather).
constexpr uint64_t kGatherStreak = 4;
constexpr uint64_t kGatherQuiet = 32;
// A launch of a kernel that ran whole on one device this many launches in a row, with nothing
// split lately, its inputs last written there, no sample or probe due and the models and plans
// unchanged since it was last planned in full, takes the settled lane (planSettledWhole): its
// device again, without a launch record.
constexpr uint64_t kSettledWholeStreak = 64;
// The host's cost per sub-launch: the median of the last kSplitHostSamples split launches, once
// there are kSplitHostMinSamples (reportSplitHostTime).
constexpr size_t kSplitHostMinSamples = 8;
// An unmeasured kernel is shared evenly between identical devices when each share is at least
// this many waves of the work-groups a device runs at once (evenOverIdentical).
constexpr double kEvenPriorWaves = 4;
// Identical devices measured within this spread (each with at least kAlikeSamples samples)
// keep an even split (evenOverIdentical).
constexpr double kAlikeSpread = 0.25;
constexpr unsigned kAlikeSamples = 4;
constexpr double kProbeMinLaunchNs = 200'000;
constexpr double kProbeShare = 1.0 / 32;

uint64_t volumeKey(uint64_t launch, unsigned device) { return launch * 256 + device; }

// The median of `v`, reordering it (callers that keep a scratch vector allocate nothing).
double medianInPlace(std::vector<double>& v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

double median(std::vector<double> v) { return medianInPlace(v); }

double maxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

} // namespace

DynamicPartitioner::DynamicPartitioner(std::vector<DeviceInfo> devices, StrategySpec spec, PartitionerOptions options)
    : devices_(std::move(devices)), spec_(std::move(spec)), options_(options), n_(unsigned(devices_.size())),
      sequence_(options_.maxSequenceLength), transfers_(devices_) {
  hostOverheadNs_ = options_.hostOverheadPerSubLaunchNs;
  for (const auto& d : devices_)
    launchLatency_.emplace_back(priorLaunchLatencyNs(d), /*trusted=*/d.launchLatencyNs > 0);
  concurrency_.assign(n_, std::vector<Concurrency>(n_));
  for (unsigned a = 0; a < n_ && options_.detectTakingTurns; ++a)
    for (unsigned b = 0; b < n_; ++b) {
      const auto &x = devices_[a], &y = devices_[b];
      if (a != b &&
          ((x.realDevice >= 0 && x.realDevice == y.realDevice) || (x.isCpu && y.isCpu && x.platform == y.platform)))
        concurrency_[a][b] = {0.0, kConcurrencySamples}; // one piece of hardware: assumed to take turns
    }
  if (spec_.adaptive() && n_ > 1 && options_.detectTakingTurns) {
    bool allTakeTurns = true;
    for (unsigned a = 0; a < n_; ++a)
      for (unsigned b = 0; b < n_; ++b) allTakeTurns &= a == b || takesTurns(a, b);
    // Devices whose memory the user capped may be needed together for a launch's bytes.
    const bool capped =
        std::any_of(devices_.begin(), devices_.end(), [](const DeviceInfo& d) { return d.memoryCapped; });
    if (allTakeTurns && !capped) {
      unsigned best = 0; // the fastest by the priors (the first of equals)
      for (unsigned d = 1; d < n_; ++d)
        if (priorNsPerWorkItem(devices_[d]) < priorNsPerWorkItem(devices_[best])) best = d;
      oneHardware_ = best;
    }
  }
  if (spec_.plansSequences()) {
    solver_ = std::make_unique<SolverThread>();
    solver_->run([this] { lp_ = std::make_unique<SequenceLp>(); });
  }
}

DynamicPartitioner::~DynamicPartitioner() {
  if (!solver_) return;
  quiesce(); // no solve may outlive the LP or this object
  solver_->run([this] { lp_.reset(); });
}

uint32_t DynamicPartitioner::intern(const std::string& kernel) {
  auto [it, inserted] = kernelIds_.try_emplace(kernel, uint32_t(kernels_.size()));
  if (inserted) {
    KernelState k;
    k.name = kernel;
    k.devices.resize(n_);
    k.history = Ring<HistoryEntry>(options_.maxHistory);
    kernels_.push_back(std::move(k));
  }
  return it->second;
}

void DynamicPartitioner::LaunchRecord::reset(uint64_t launch) {
  id = launch;
  kernel = 0;
  generation = 0;
  position.reset();
  iteration = 0;
  totalGroups = 0;
  otherGroups = 1;
  bytes = 0;
  largest = 0;
  splittable = true;
  groups.clear();
  ratios.clear();
  producers.clear();
  probed = -1;
  probeMoveCounted = false;
  measuredNs.clear();
  spans.clear();
  expected = reported = 0;
}

int DynamicPartitioner::wholeDeviceOf(const std::vector<uint64_t>& groups) {
  int only = -1;
  for (unsigned d = 0; d < groups.size(); ++d)
    if (groups[d]) {
      if (only >= 0) return -1;
      only = int(d);
    }
  return only;
}

DynamicPartitioner::LaunchRecord* DynamicPartitioner::find(uint64_t id) {
  if (id == 0) return nullptr;
  const size_t slot = id % kLaunchMemory;
  if (slot >= records_.size() || records_[slot].id != id) return nullptr;
  return &records_[slot];
}

DynamicPartitioner::LaunchRecord& DynamicPartitioner::newRecord(uint64_t id) {
  const size_t slot = id % kLaunchMemory;
  if (slot >= records_.size()) records_.resize(std::min(kLaunchMemory, std::max(slot + 1, 2 * records_.size())));
  records_[slot].reset(id); // forgets launch id - kLaunchMemory
  return records_[slot];
}

// --- Per-kernel model ----------------------------------------------------------------------

double DynamicPartitioner::itemNs(unsigned d) const {
  if (itemNsVersion_ != modelVersion_) {
    itemNsCache_.assign(n_, -1.0);
    itemNsVersion_ = modelVersion_;
  }
  if (itemNsCache_[d] < 0) itemNsCache_[d] = computeItemNs(d);
  return itemNsCache_[d];
}

double DynamicPartitioner::computeItemNs(unsigned d) const {
  auto measured = [&](unsigned dev) {
    std::vector<double> v;
    for (const auto& k : kernels_)
      if (k.devices[dev].known()) v.push_back(measuredNsPerGroup(k, dev) / itemsPerRow(k));
    return v.empty() ? -1.0 : median(std::move(v));
  };
  double own = measured(d);
  if (own > 0) return own;
  // Throughput measured on another device, scaled by the priors' ratio.
  for (unsigned e = 0; e < n_; ++e) {
    if (e == d) continue;
    double other = measured(e);
    if (other > 0) return other * priorNsPerWorkItem(devices_[d]) / priorNsPerWorkItem(devices_[e]);
  }
  return priorNsPerWorkItem(devices_[d]);
}

double DynamicPartitioner::nsPerGroup(uint32_t kernel, unsigned d) const {
  const auto& ks = kernels_[kernel];
  if (ks.devices[d].known()) return measuredNsPerGroup(ks, d);
  // Known on another device: scale by the speed ratio seen on other kernels.
  for (unsigned e = 0; e < n_; ++e) {
    if (e == d || !ks.devices[e].known()) continue;
    std::vector<double> ratios;
    for (const auto& other : kernels_)
      if (other.devices[d].known() && other.devices[e].known())
        ratios.push_back(measuredNsPerGroup(other, d) / std::max(measuredNsPerGroup(other, e), 1e-9));
    double ratio = ratios.empty() ? itemNs(d) / itemNs(e) : median(std::move(ratios));
    return measuredNsPerGroup(ks, e) * ratio;
  }
  return itemsPerRow(ks) * itemNs(d);
}

KernelCosts DynamicPartitioner::kernelCosts(uint32_t kernel, uint64_t groups) const {
  KernelCosts c;
  c.groups = double(std::max<uint64_t>(groups, 1));
  c.hostOverheadNs = hostOverheadNs_;
  c.allowed.assign(n_, true);
  const uint64_t bytes = kernels_[kernel].bytes;
  const uint64_t largest = kernels_[kernel].largest;
  for (unsigned d = 0; d < n_; ++d) {
    if (bytes && devices_[d].memoryBytes) {
      c.maxRatio.resize(n_, 1.0);
      c.maxRatio[d] = shareThatFitsOn(d, double(bytes), double(largest));
      c.allocRatio.resize(n_, 1.0); // kept where the memory bounds are left to evictions
      c.allocRatio[d] = allocationShare(double(devices_[d].maxAllocBytes), double(largest));
    }
    c.nsPerGroup.push_back(nsPerGroup(kernel, d));
    c.launchNs.push_back(latency(d));
    c.concurrentGroups.push_back(floorGroups(kernels_[kernel], d));
  }
  leaveOutUnmeasurable(c.allowed, c.nsPerGroup, double(bytes), double(largest));
  return c;
}

double DynamicPartitioner::shareThatFitsOn(unsigned d, double bytes, double largest) const {
  return shareThatFits(double(devices_[d].memoryBytes), bytes, double(devices_[d].maxAllocBytes), largest);
}

void DynamicPartitioner::leaveOutUnmeasurable(std::vector<bool>& allowed, std::vector<double>& nsPerGroup, double bytes,
                                              double largest) const {
  if (unmeasurable_.empty()) return;
  double room = 0, slowest = 0;
  for (unsigned d = 0; d < n_; ++d)
    if (usable(d) && allowed[d]) {
      room += shareThatFitsOn(d, bytes, largest);
      slowest = std::max(slowest, nsPerGroup[d]);
    }
  const bool needed = room < 1.0 - 1e-9; // the others cannot hold the launch together
  for (unsigned d = 0; d < n_; ++d) {
    if (usable(d)) continue;
    if (!needed)
      allowed[d] = false;
    else // what the others cannot hold, and nothing more
      nsPerGroup[d] = 1000 * std::max(slowest, 1.0);
  }
}

int DynamicPartitioner::dataDevice(const LaunchRecord& rec, const KernelState& ks,
                                   std::vector<std::pair<unsigned, uint64_t>>* inputs) {
  // Where each producer ran (most of its groups): its bytes are there.
  auto& held = heldScratch_;
  held.assign(n_, 0);
  for (const auto& p : rec.producers) {
    int d = p.wholeDevice; // a producer of the settled lane has no record
    if (const LaunchRecord* producer = find(p.launch); producer && !producer->groups.empty()) {
      auto most = std::max_element(producer->groups.begin(), producer->groups.end());
      d = *most == 0 ? -1 : int(most - producer->groups.begin());
    }
    if (d < 0) continue;
    held[unsigned(d)] += p.bytes;
    if (inputs) inputs->emplace_back(unsigned(d), p.bytes);
  }
  auto most = std::max_element(held.begin(), held.end());
  if (most != held.end() && *most > 0) return int(most - held.begin());
  return ks.lastWholeDevice >= 0 && unsigned(ks.lastWholeDevice) < n_ ? ks.lastWholeDevice : -1;
}

unsigned DynamicPartitioner::wholeLaunchDevice(uint32_t kernel, uint64_t groups, const LaunchRecord& rec) {
  auto& ks = kernels_[kernel];
  auto& inputs = inputsScratch_; // (device, bytes)
  inputs.clear();
  const int dataDevice = this->dataDevice(rec, ks, &inputs);
  auto& cost = costScratch_;
  cost.assign(n_, 0.0);
  for (unsigned d = 0; d < n_; ++d) {
    // A device that takes turns with the one holding the data (the same hardware: one GPU
    // selected twice, PoCL's pthread devices sharing one pool) cannot run the launch any sooner:
    // moving there only moves the data (NAS LU over two PoCL devices moved 3-5 GB that way, its
    // measured per-device times differing by the other device's queued work).
    if (dataDevice >= 0 && d != unsigned(dataDevice) && takesTurns(unsigned(dataDevice), d)) {
      cost[d] = INFINITY;
      continue;
    }
    cost[d] = shareNs(kernel, d, double(groups));
    for (const auto& [from, bytes] : inputs)
      if (from != d) {
        auto link = transfers_.between(from, d);
        cost[d] += link.latencyNs + link.perByteNs * double(bytes);
      }
  }
  // The cheapest, the data's device on a tie.
  unsigned best = dataDevice >= 0 ? unsigned(dataDevice) : 0;
  for (unsigned d = 0; d < n_; ++d)
    if (cost[d] < cost[best]) best = d;
  // Hysteresis, as for splits: a noisy estimate must not move a kernel back and forth.
  if (ks.lastWholeDevice >= 0 && unsigned(ks.lastWholeDevice) < n_ &&
      cost[unsigned(ks.lastWholeDevice)] <= (1 + kWholeDeviceMargin) * cost[best])
    best = unsigned(ks.lastWholeDevice);
  ks.lastWholeDevice = int(best);
  return best;
}

unsigned DynamicPartitioner::bestSingleDevice(uint32_t kernel, uint64_t groups) const {
  unsigned best = 0;
  double bestTime = INFINITY;
  for (unsigned d = 0; d < n_; ++d) {
    if (!usable(d)) continue;
    double t = shareNs(kernel, d, double(groups));
    if (t < bestTime) {
      bestTime = t;
      best = d;
    }
  }
  return best;
}

std::vector<double> DynamicPartitioner::kernelSplit(uint32_t kernel, uint64_t groups) {
  auto& ks = kernels_[kernel];
  // A split chosen for a very different launch size is no guide (fixed costs weigh differently).
  bool sizeFits = ks.lastGroups == 0 || groups == 0 ||
                  std::max(groups, ks.lastGroups) <= 1.25 * double(std::min(groups, ks.lastGroups));
  if (!ks.ratios.empty() && sizeFits) return ks.ratios;
  if (ks.balancedModel != modelVersion_ || ks.balancedGroups != groups) {
    ks.balanced = balanceKernel(kernelCosts(kernel, groups));
    ks.balancedModel = modelVersion_;
    ks.balancedGroups = groups;
  }
  return ks.balanced;
}

// --- Planning -------------------------------------------------------------------------------

std::vector<double> DynamicPartitioner::decide(const LaunchRequest& request, uint32_t kernel,
                                               const std::optional<unsigned>& position) {
  if (auto fixed = spec_.fixedRatios(n_)) return *fixed;
  // adaptive-comm: the sequence's plan, once it has one, is the LP's to change (it weighs moving
  // rows); otherwise each kernel's balanced split.
  const bool planned = spec_.plansSequences() && position && seq_.haveSolution && *position < seq_.current.size();
  if (auto even = evenOverIdentical(kernel, request.groups, /*whileAlike=*/!planned)) return *even;
  if (planned) return seq_.current[*position];
  return kernelSplit(kernel, request.groups);
}

std::optional<std::vector<double>> DynamicPartitioner::evenOverIdentical(uint32_t kernel, uint64_t groups,
                                                                         bool whileAlike) const {
  const auto& ks = kernels_[kernel];
  bool measured = false;
  for (unsigned d = 0; d < n_; ++d) measured = measured || ks.devices[d].known();
  if (measured && !whileAlike) return std::nullopt; // the models decide
  // The device the priors favour, and the devices identical to it (same name and type) that run
  // at the same time as it: interchangeable, so sharing evenly is right whatever the kernel
  // costs. The priors cannot tell a 2 us kernel from a 2 ms one (ep over two H100: all 50
  // launches planned before the first completed ran on one GPU).
  unsigned best = 0;
  for (unsigned d = 1; d < n_; ++d)
    if (itemNs(d) < itemNs(best)) best = d;
  std::vector<unsigned> same;
  for (unsigned d = 0; d < n_; ++d)
    if (!devices_[d].simulator && devices_[d].name == devices_[best].name &&
        devices_[d].isGpu == devices_[best].isGpu && devices_[d].isCpu == devices_[best].isCpu &&
        (d == best || !takesTurns(best, d)))
      same.push_back(d);
  // Only launches that keep every share busy for several waves of work-groups: a short launch
  // split in two costs more host time than it saves.
  if (same.size() < 2) return std::nullopt;
  for (unsigned d : same)
    if (double(groups) / double(same.size()) < kEvenPriorWaves * std::max(1.0, floorGroups(ks, d))) return std::nullopt;
  if (measured) {
    // Measured, the split stays even while the identical devices measure alike: balancing
    // their measured difference moves rows between them at every change, and a few percent of
    // noise (a first launch's warm-up: 40/60 on two H100) is not worth a row. A device measured
    // clearly slower (another process loads it) leaves the choice to the models.
    double fastest = INFINITY, slowest = 0;
    for (unsigned d = 0; d < n_; ++d) {
      const bool inSame = std::find(same.begin(), same.end(), d) != same.end();
      if (!ks.devices[d].known()) continue;
      if (!inSame) return std::nullopt; // another kind of device was measured: the models weigh it
      if (ks.devices[d].samples() < kAlikeSamples) continue;
      const double ns = measuredNsPerGroup(ks, d);
      fastest = std::min(fastest, ns);
      slowest = std::max(slowest, ns);
    }
    if (slowest > fastest * (1 + kAlikeSpread)) return std::nullopt;
  }
  std::vector<double> r(n_, 0.0);
  for (unsigned d : same) r[d] = 1.0 / double(same.size());
  return r;
}

LaunchPlan DynamicPartitioner::plan(const LaunchRequest& request) {
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) {
    const auto t0 = std::chrono::steady_clock::now();
    lock.lock();
    ++planLockWaits_;
    planLockWaitNs_ +=
        uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  }
  const uint64_t id = nextLaunch_++;
  const uint32_t k = intern(request.kernel);
  auto& ks = kernels_[k];
  const uint64_t size = std::max<uint64_t>(1, request.groupSize);
  const uint64_t rows = std::max<uint64_t>(1, request.otherGroups);
  if (size != ks.groupSize || rows != ks.otherGroups) {
    // Its times are counted per group of the split dimension (a row of work-groups): another
    // work-group size or row width rescales them, and the per-item speeds and the floor change.
    const double oldItems = itemsPerRow(ks);
    ks.groupSize = size;
    ks.otherGroups = rows;
    for (auto& t : ks.devices) t.regroup(oldItems / itemsPerRow(ks));
    // Only this kernel's estimates change: the rescaling keeps the per-item speed it lends other
    // kernels' estimates (itemNs, recomputed), so their caches and settled decisions stay (a
    // k-loop's shrinking launches regroup every time and kept every kernel off the settled lane).
    ks.balancedModel = UINT64_MAX;
    ks.settled.valid = false;
    itemNsVersion_ = UINT64_MAX;
  }
  if (!usesMeasurements()) {
    // A fixed split learns nothing from the launch: no record of it, no dependency or sequence
    // bookkeeping (this runs on every launch, on the application's thread).
    std::vector<uint64_t> groups = fixedGroups(request, k);
    noteGroups(ks, groups, request.groups);
    // (A fixed split does not change: one launch whole is a streak.)
    const bool gather = noteWholeStreak(ks, groups) >= 1 && launchesSinceSplit_ >= kGatherQuiet;
    if (ks.history.empty() || groups != ks.lastFixedGroups) { // the history only records changes
      recordHistory(ks, groupsToRatios(groups), std::nullopt, 0);
      ks.lastFixedGroups = groups;
    } else {
      ++ks.launches;
    }
    LaunchPlan plan{id, std::move(groups)};
    plan.gather = gather;
    return plan;
  }

  auto step = sequence_.observe(k);
  if (!step.newSequence)
    if (auto settled = planSettledWhole(request, ks, id, step.position)) return std::move(*settled);

  LaunchRecord& rec = newRecord(id);
  rec.kernel = k;
  rec.totalGroups = request.groups;
  rec.otherGroups = std::max<uint64_t>(1, request.otherGroups);
  for (size_t i = 0; i < request.buffers.size(); ++i) { // two arguments may name one buffer
    const auto& b = request.buffers[i];
    bool seen = false;
    for (size_t j = 0; j < i && !seen; ++j) seen = request.buffers[j].buffer == b.buffer;
    if (!seen) rec.bytes += b.bytes;
    rec.largest = std::max(rec.largest, b.bytes);
  }
  if (ks.bytes != rec.bytes || ks.largest != rec.largest) {
    ks.bytes = rec.bytes;
    ks.largest = rec.largest;
    ks.balancedGroups = 0; // its balanced split is recomputed with the new bounds
  }
  rec.splittable = request.splittable;
  for (const auto& b : request.buffers)
    if (b.reads)
      if (auto it = lastWriter_.find(b.buffer); it != lastWriter_.end())
        rec.producers.push_back({it->second.launch, b.buffer, b.bytes, it->second.wholeDevice});
  for (const auto& b : request.buffers)
    if (b.writes) lastWriter_[b.buffer] = {id, -1}; // its device once decided (below)

  if (step.newSequence) startSequence();
  if (step.position) {
    rec.generation = seq_.generation;
    rec.position = step.position;
    rec.iteration = sequence_.iterations();
    attachToSequence(rec, /*live=*/true);
    if (step.newSequence && spec_.plansSequences()) solveSequence(true);
  }

  std::vector<uint64_t> groups;
  if (!request.splittable) {
    groups.assign(n_, 0);
    groups[wholeLaunchDevice(k, request.groups, rec)] = request.groups;
  } else {
    groups = ratiosToGroups(decide(request, k, rec.position), request.groups);
    dropSerialized(groups, ks, dataDevice(rec, ks));
    rec.probed = maybeProbe(ks, k, groups);
  }
  noteGroups(ks, groups, request.groups);
  const int whole = wholeDeviceOf(groups);
  if (whole >= 0)
    for (const auto& b : request.buffers)
      if (b.writes) lastWriter_[b.buffer].wholeDevice = whole;

  rec.groups.assign(groups.begin(), groups.end());
  rec.ratios.assign(groups.size(), 0.0);
  if (const uint64_t total = request.groups)
    for (size_t d = 0; d < groups.size(); ++d) rec.ratios[d] = double(groups[d]) / double(total);
  rec.expected = unsigned(std::count_if(groups.begin(), groups.end(), [](uint64_t g) { return g > 0; }));
  recordHistory(ks, rec.ratios, rec.position, rec.iteration);
  // Inside the kernel sequence, whole iterations are sampled (their measured times stay whole).
  const bool timed = sampleDue(ks, ks.launches, rec.position, rec.iteration, /*commit=*/true);
  // Split launches are timed until their split has held for kSettledSplitLaunches, then sampled
  // like whole ones: each timed one costs profiling reads, completion callbacks and their toll
  // on the driver's later calls (two H100, fdtd2d: ~90 us of driver time per split launch on the
  // application's thread against 6 us for the same launch whole).
  const bool measure =
      timed || (rec.expected > 1 && launchesSettled(ks, ks.launches, rec.position) < kSettledSplitLaunches);
  double predicted = 0;
  for (unsigned d = 0; d < n_ && d < groups.size(); ++d)
    if (groups[d]) {
      if (!ks.devices[d].known()) {
        predicted = 0;
        break;
      }
      predicted = std::max(predicted, shareNs(k, d, double(groups[d])));
    }

  const uint64_t streak = noteWholeStreak(ks, groups);
  // What the settled lane may repeat: this decision, while nothing it was made from changes.
  ks.settled.valid = whole >= 0 && rec.probed < 0;
  if (ks.settled.valid) {
    ks.settled.device = unsigned(whole);
    ks.settled.model = modelVersion_;
    ks.settled.transfers = transferVersion_;
    ks.settled.plans = planChanges_;
    ks.settled.generation = seq_.generation;
    ks.settled.groups = request.groups;
    ks.settled.splittable = request.splittable;
    // maybeProbe's account of the kernel's time (a probe is due once an idle device's share of
    // it is small enough): the lane keeps it.
    ks.settled.probeSpentNs =
        request.splittable && spec_.adaptive() ? shareNs(k, ks.settled.device, double(request.groups)) : 0.0;
  }
  LaunchPlan plan{id, groups, measure};
  plan.predictedNs = predicted;
  plan.gather = streak >= kGatherStreak && launchesSinceSplit_ >= kGatherQuiet;
  return plan;
}

uint64_t DynamicPartitioner::launchesSettled(const KernelState& ks, uint64_t launches,
                                             std::optional<unsigned> position) const {
  auto settledFor = [](uint64_t n, uint64_t after) { return n - std::min(n, after); };
  uint64_t settled = settledFor(launches, ks.settledAfter);
  if (position)
    for (uint32_t other : seq_.kernels)
      if (&kernels_[other] != &ks)
        settled = std::min(settled, settledFor(kernels_[other].launches, kernels_[other].settledAfter));
  return settled;
}

bool DynamicPartitioner::sampleDue(KernelState& ks, uint64_t launches, std::optional<unsigned> position,
                                   uint64_t iteration, bool commit) {
  const uint64_t settled = launchesSettled(ks, launches, position);
  const uint64_t tick = position ? iteration : launches;
  const uint64_t every = std::clamp<uint64_t>(std::bit_floor(settled / 16), kSampleEvery, kSampleEveryMax);
  // Settled, a sample is also at least options_.minSampleIntervalNs after the last one: a
  // timed launch costs the same whatever the kernel's length, so short launches are sampled
  // by time, not by count.
  auto due = [&](std::chrono::steady_clock::time_point& last) {
    if (settled < kSettledLaunches) return true;
    if (tick % every != 0) return false;
    const auto now = std::chrono::steady_clock::now();
    if (last != std::chrono::steady_clock::time_point{} &&
        std::chrono::duration<double, std::nano>(now - last).count() < options_.minSampleIntervalNs)
      return false;
    if (commit) last = now;
    return true;
  };
  if (!position) return due(ks.lastSample);
  // Decided once per iteration, at its first launch: an iteration is timed whole or not at all
  // (`settled` moves during it).
  if (seq_.samplingIteration == iteration) return seq_.timeIteration;
  const bool timed = due(seq_.lastSample);
  if (commit || !timed) {
    seq_.samplingIteration = iteration;
    seq_.timeIteration = timed;
  }
  return timed;
}

std::optional<LaunchPlan> DynamicPartitioner::planSettledWhole(const LaunchRequest& request, KernelState& ks,
                                                               uint64_t id, std::optional<unsigned> position) {
  const auto& last = ks.settled;
  if (!last.valid || ks.wholeStreak < kSettledWholeStreak || launchesSinceSplit_ < kGatherQuiet ||
      ks.wholeStreakDevice != int(last.device) || last.splittable != request.splittable ||
      last.model != modelVersion_ || last.transfers != transferVersion_ || last.plans != planChanges_ ||
      last.generation != seq_.generation || last.groups != request.groups)
    return std::nullopt;
  // Its inputs were last written where it runs (else the full path weighs moving it to them).
  for (const auto& b : request.buffers)
    if (b.reads)
      if (auto it = lastWriter_.find(b.buffer); it != lastWriter_.end() && it->second.wholeDevice != int(last.device))
        return std::nullopt;
  // No probe of an idle device due (maybeProbe: only launches long enough to lend a group).
  if (last.probeSpentNs >= kProbeMinLaunchNs && request.groups >= 2) {
    if (ks.nextProbe.size() != n_) return std::nullopt;
    for (unsigned d = 0; d < n_; ++d)
      if (d != last.device && ks.launches >= ks.nextProbe[d]) return std::nullopt;
  }
  // Not timed (plan()'s rule, asked without its effects: a timed launch takes the full path).
  if (sampleDue(ks, ks.launches + 1, position, sequence_.iterations(), /*commit=*/false)) return std::nullopt;

  // Its device again. What later launches need: its writes (a reader finds no record for it and
  // goes by where the kernel last ran), the start of a sequence iteration (the host time of the
  // iteration before), counts and streaks. No history entry: the report's history skips it.
  for (const auto& b : request.buffers)
    if (b.writes) lastWriter_[b.buffer] = {id, int(last.device)};
  if (position && *position == 0) seq_.lastIterationStart = std::chrono::steady_clock::now();
  ks.spentNs += last.probeSpentNs;
  ++ks.launches;
  std::vector<uint64_t> groups(n_, 0);
  groups[last.device] = request.groups;
  noteGroups(ks, groups, request.groups);
  const uint64_t streak = noteWholeStreak(ks, groups);
  LaunchPlan plan{id, std::move(groups), false};
  plan.gather = streak >= kGatherStreak && launchesSinceSplit_ >= kGatherQuiet;
  ++settledLaunches_;
  return plan;
}

unsigned DynamicPartitioner::homeDevice() const {
  std::lock_guard lock(mutex_);
  if (auto fixed = spec_.fixedDevice(n_)) return *fixed;
  if (!recentGroupShare_.empty())
    return unsigned(std::max_element(recentGroupShare_.begin(), recentGroupShare_.end()) - recentGroupShare_.begin());
  unsigned best = 0; // before any launch: the fastest device by the priors
  for (unsigned d = 1; d < n_; ++d)
    if (itemNs(d) < itemNs(best)) best = d;
  return best;
}

std::vector<uint64_t> DynamicPartitioner::fixedGroups(const LaunchRequest& request, uint32_t kernel) const {
  // Devices that take turns (oneHardware_) and one device (an adaptive strategy over one) run
  // everything whole; a fixed strategy splits as it says and runs what it cannot split on its
  // device, or (uniform) on the device the models find fastest for the kernel.
  if (request.splittable && !oneHardware_ && n_ > 1)
    if (auto fixed = spec_.fixedRatios(n_))
      return ratiosToGroups(withinLargestAllocation(std::move(*fixed), request), request.groups);
  std::vector<uint64_t> groups(n_, 0);
  unsigned d = 0;
  if (oneHardware_)
    d = *oneHardware_;
  else if (auto device = n_ > 1 ? spec_.fixedDevice(n_) : std::nullopt)
    d = *device;
  else if (n_ > 1)
    d = bestSingleDevice(kernel, request.groups);
  groups[d] = request.groups;
  return groups;
}

std::vector<double> DynamicPartitioner::withinLargestAllocation(std::vector<double> ratios,
                                                                const LaunchRequest& request) const {
  if (spec_.kind == StrategyKind::Single) return ratios; // whole on its device, as asked
  uint64_t largest = 0;
  for (const auto& b : request.buffers) largest = std::max(largest, b.bytes);
  double sum = 0; // (static's ratios are normalised on use)
  for (double r : ratios) sum += r;
  bool bounded = false;
  for (unsigned d = 0; d < n_ && !bounded && sum > 0; ++d)
    bounded = ratios[d] / sum > allocationShare(double(devices_[d].maxAllocBytes), double(largest));
  if (!bounded) return ratios; // (the enqueue path: nothing allocated where nothing is bounded)
  std::vector<double> bounds(n_);
  for (unsigned d = 0; d < n_; ++d) {
    ratios[d] /= sum;
    bounds[d] = allocationShare(double(devices_[d].maxAllocBytes), double(largest));
  }
  return withinShares(std::move(ratios), bounds);
}

uint64_t DynamicPartitioner::noteWholeStreak(KernelState& ks, const std::vector<uint64_t>& groups) {
  int only = -1;
  for (unsigned d = 0; d < groups.size(); ++d)
    if (groups[d]) {
      if (only >= 0) { // split
        launchesSinceSplit_ = 0;
        ks.wholeStreak = 0;
        ks.wholeStreakDevice = -1;
        return 0;
      }
      only = int(d);
    }
  ++launchesSinceSplit_;
  ks.wholeStreak = only == ks.wholeStreakDevice ? ks.wholeStreak + 1 : 1;
  ks.wholeStreakDevice = only;
  return ks.wholeStreak;
}

void DynamicPartitioner::noteGroups(KernelState& ks, const std::vector<uint64_t>& groups, uint64_t total) {
  ks.lastGroups = total;
  if (recentGroupShare_.empty()) recentGroupShare_.assign(n_, 0.0);
  if (total > 0)
    for (unsigned d = 0; d < n_; ++d) // a decaying average: recent launches count most
      recentGroupShare_[d] = 0.75 * recentGroupShare_[d] + 0.25 * double(groups[d]) / double(total);
}

// A device that gets no work on a kernel is never measured on it: one the priors (or an old
// measurement, from before its load went away) make look slower than it is would stay idle for
// good. So an idle device gets one group of a long launch now and then, when that group is
// expected to cost at most kProbeShare of the kernel's time so far: with the backoff, probes
// cost at most ~4 % of a run even when the estimate that kept the device idle was right.
int DynamicPartitioner::maybeProbe(KernelState& ks, uint32_t kernel, std::vector<uint64_t>& groups) {
  if (!spec_.adaptive()) return -1;
  // On the enqueue path: nothing to estimate while every device has work.
  if (std::none_of(groups.begin(), groups.end(), [](uint64_t g) { return g == 0; })) return -1;
  if (ks.nextProbe.empty()) ks.nextProbe.assign(n_, kFirstProbe);
  if (ks.probeMoveNs.empty()) ks.probeMoveNs.assign(n_, 0.0);
  double launchNs = 0;
  unsigned donor = 0;
  for (unsigned d = 0; d < n_; ++d) {
    if (groups[d] == 0) continue;
    launchNs = std::max(launchNs, shareNs(kernel, d, double(groups[d])));
    if (groups[d] > groups[donor]) donor = d;
  }
  ks.spentNs += launchNs;
  if (launchNs < kProbeMinLaunchNs || groups[donor] < 2) return -1;
  for (unsigned d = 0; d < n_; ++d) {
    if (groups[d] != 0 || ks.launches < ks.nextProbe[d] || !usable(d)) continue;
    // What a probe costs: the group's time and moving its inputs there, as the last probe of
    // this kernel moved them (a kernel reading whole buffers through indirections pulls them
    // whole for one group: sotl over two H100 moved gigabytes that way).
    if (shareNs(kernel, d, 1) + ks.probeMoveNs[d] > kProbeShare * ks.spentNs) continue; // not yet
    // A device that takes turns with the one running the launch could never take work off it.
    if (takesTurns(donor, d)) continue;
    ks.nextProbe[d] = std::max(ks.launches * kProbeBackoff, ks.launches + kFirstProbe);
    ks.probeMoveNs[d] = 0; // this probe's moves, when reported, replace the last one's
    groups[d] = 1;
    --groups[donor];
    ++ks.probes;
    return int(d); // one device per launch
  }
  return -1;
}

void DynamicPartitioner::recordHistory(KernelState& ks, const std::vector<double>& ratios,
                                       const std::optional<unsigned>& position, uint64_t iteration) {
  if (!ks.lastRatios.empty() && maxAbsDiff(ks.lastRatios, ratios) > kSettledChange) ks.settledAfter = ks.launches;
  ks.lastRatios = ratios;
  auto& entry = ks.history.push();
  entry.launch = ks.launches;
  entry.iteration = position ? int64_t(iteration) : -1;
  entry.ratios.assign(ratios.begin(), ratios.end());
  ++ks.launches;
}

// --- The kernel sequence --------------------------------------------------------------------

void DynamicPartitioner::startSequence() {
  seq_ = SequenceState{};
  seq_.generation = sequence_.generation();
  seq_.kernels = sequence_.sequence();
  const unsigned p = unsigned(seq_.kernels.size());
  seq_.groups.assign(p, 1.0);
  seq_.bytes.assign(p, 0.0);
  seq_.largest.assign(p, 0.0);
  seq_.splittable.assign(p, true);
  seq_.hostInput.assign(p, DependencyVolume(0));
  log().debug("partitioner: kernel sequence of {} launches detected", p);

  // The launches that revealed the sequence (all but the current one of its last two passes)
  // become iterations 0 and 1, so that their measurements and dependencies count.
  const size_t window = 2 * size_t(p) - 1;
  const uint64_t current = nextLaunch_ - 1; // being planned: not one of them
  const size_t count = std::min<uint64_t>(current - 1, window);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t id = current - count + i;
    LaunchRecord* rec = find(id);
    size_t j = window - count + i;
    if (!rec || rec->kernel != seq_.kernels[j % p]) continue;
    rec->generation = seq_.generation;
    rec->position = unsigned(j % p);
    rec->iteration = j / p;
    attachToSequence(*rec, /*live=*/false);
    if (rec->expected > 0 && rec->reported >= rec->expected) {
      auto& it = seq_.iterations[rec->iteration];
      ++it.measuredLaunches;
      it.measuredKernelNs += *std::max_element(rec->measuredNs.begin(), rec->measuredNs.end());
    }
  }
}

void DynamicPartitioner::attachToSequence(LaunchRecord& rec, bool live) {
  const unsigned pos = *rec.position;
  seq_.groups[pos] = double(std::max<uint64_t>(rec.totalGroups, 1));
  seq_.bytes[pos] = double(rec.bytes);
  seq_.largest[pos] = double(rec.largest);
  if (!rec.splittable) seq_.splittable[pos] = false;
  for (const auto& p : rec.producers) {
    const LaunchRecord* prod = find(p.launch);
    if (!prod || prod->generation != seq_.generation || !prod->position) continue;
    EdgeKey key{*prod->position, pos};
    if (!seq_.edgeBuffers.insert({key.first, key.second, p.buffer}).second) continue; // known
    // (No name pair is built unless a profile was loaded.)
    auto profiled = profileEdges_.empty()
                        ? profileEdges_.end()
                        : profileEdges_.find({kernels_[prod->kernel].name, kernels_[rec.kernel].name});
    auto [edge, inserted] = seq_.edges.try_emplace(key, 0.0); // (no temporary: its deque allocates)
    if (profiled != profileEdges_.end()) {
      if (inserted) edge->second.setPrior(profiled->second);
    } else {
      // Until measured, assume the whole buffer may have to move (an over-approximation).
      edge->second.setPrior(edge->second.prior() + double(p.bytes));
    }
  }

  auto& iteration = seq_.iterations[rec.iteration];
  if (live && pos == 0) {
    auto now = std::chrono::steady_clock::now();
    if (seq_.lastIterationStart != std::chrono::steady_clock::time_point{}) {
      auto prev = seq_.iterations.find(rec.iteration - 1);
      if (prev != seq_.iterations.end())
        prev->second.hostIntervalNs = std::chrono::duration<double, std::nano>(now - seq_.lastIterationStart).count();
    }
    seq_.lastIterationStart = now;
    iteration.predictedNs = seq_.currentPredictedNs;
    iteration.predictedComputeNs = seq_.currentPredictedComputeNs;
  }
  while (seq_.iterations.size() > options_.maxHistory) seq_.iterations.erase(seq_.iterations.begin());
}

CostModel DynamicPartitioner::buildCostModel() const {
  CostModel model;
  model.devices = n_;
  model.hostOverheadNs = hostOverheadNs_;
  for (unsigned k = 0; k < seq_.kernels.size(); ++k) {
    CostModel::Position pos;
    pos.kernel = seq_.kernels[k];
    pos.groups = seq_.groups[k];
    pos.allowed.assign(n_, true);
    for (unsigned d = 0; d < n_; ++d) {
      pos.nsPerGroup.push_back(nsPerGroup(pos.kernel, d));
      pos.launchNs.push_back(latency(d));
      pos.concurrentGroups.push_back(floorGroups(kernels_[pos.kernel], d));
    }
    leaveOutUnmeasurable(pos.allowed, pos.nsPerGroup, seq_.bytes[k], seq_.largest[k]);
    if (!seq_.splittable[k]) {
      // Runs whole where plan() puts it: the LP only accounts for its time and transfers.
      pos.allowed.assign(n_, false);
      pos.allowed[bestSingleDevice(pos.kernel, uint64_t(pos.groups))] = true;
    }
    pos.hostBytes = seq_.hostInput[k].fit().bytesPerMismatch;
    pos.bytes = seq_.bytes[k];
    pos.largest = seq_.largest[k];
    model.positions.push_back(std::move(pos));
  }
  for (const auto& [key, volume] : seq_.edges) {
    auto fit = volume.fit();
    model.edges.push_back({key.first, key.second, fit.bytesPerMismatch, fit.haloBytes});
  }
  for (const auto& d : devices_) {
    model.memoryBytes.push_back(double(d.memoryBytes));
    model.maxAllocBytes.push_back(double(d.maxAllocBytes));
  }
  model.deviceLinks.assign(n_, std::vector<CostModel::Link>(n_));
  model.hostLinks.resize(n_);
  for (unsigned to = 0; to < n_; ++to) {
    auto h = transfers_.fromHost(to);
    model.hostLinks[to] = {h.perByteNs, h.latencyNs};
    for (unsigned from = 0; from < n_; ++from) {
      auto c = transfers_.between(from, to);
      model.deviceLinks[from][to] = {c.perByteNs, c.latencyNs};
    }
  }
  return model;
}

double DynamicPartitioner::noiseLevel() const {
  double sum = 0;
  unsigned count = 0;
  for (unsigned k = 0; k < seq_.kernels.size(); ++k)
    for (unsigned d = 0; d < n_; ++d) {
      const auto& kd = kernels_[seq_.kernels[k]].devices[d];
      bool used = seq_.haveSolution ? seq_.current[k][d] > 0 : kd.known();
      if (used && kd.samples() > 2) {
        sum += kd.noise();
        ++count;
      }
    }
  return count ? sum / count : 0;
}

struct DynamicPartitioner::SolveJob {
  uint64_t generation = 0;
  CostModel model;
  bool search = false; // the active-set search (several LPs), else one LP on `active`
  ActiveSet active;    // the devices in use (for a fixed solve, or to start the search)
  bool haveActive = false;
  double lastSearchPredictedNs = -1;
};

void DynamicPartitioner::solveSequence(bool force) {
  if (seq_.kernels.empty() || n_ == 0 || !solver_) return;
  if (options_.asyncSolve && solveInFlight_) { // solved again once that one is applied
    solveRequested_ = true;
    return;
  }
  SolveJob job;
  job.generation = seq_.generation;
  job.model = buildCostModel();
  // "Unchanged" means within the measurement noise (at least 1 %): noise alone is no reason to
  // solve again.
  const double tolerance = std::max(0.01, noiseLevel());
  if (!force && seq_.solvedModel && job.model.closeTo(*seq_.solvedModel, tolerance)) {
    ++skippedSolves_;
    // Nothing new to solve, but a better plan the noise held back may be adopted now that
    // the noise estimate has settled.
    if (seq_.heldBack) {
      SequenceLp::Result held = *seq_.heldBack;
      adoptIfBetter(job.model, std::move(held));
    }
    return;
  }
  // The active-set search (which devices take part) costs several LP solves: it runs when the
  // structure is new, every few solves, or when the prediction moved a lot; otherwise the LP is
  // re-solved for the devices already chosen.
  // A model far from the last one solved (the load moved) may want other devices: search too.
  job.search = force || !seq_.haveSolution || !seq_.solvedModel || !job.model.sameStructure(*seq_.solvedModel) ||
               seq_.solvesSinceSearch >= 8 || !job.model.closeTo(*seq_.solvedModel, 0.25);
  job.active = seq_.active;
  job.haveActive = seq_.haveSolution;
  job.lastSearchPredictedNs = seq_.lastSearchPredictedNs;
  if (!options_.asyncSolve) {
    auto t0 = std::chrono::steady_clock::now();
    auto result = solver_->run([&] { return runSolve(job); });
    applySolve(job, std::move(result),
               std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
    return;
  }
  solveInFlight_ = true;
  solver_->submit([this, job = std::move(job)] {
    auto t0 = std::chrono::steady_clock::now();
    auto result = runSolve(job);
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    std::lock_guard lock(mutex_);
    solveInFlight_ = false;
    applySolve(job, std::move(result), ns);
    if (solveRequested_) { // measurements came in meanwhile
      solveRequested_ = false;
      solveSequence(false);
    }
  });
}

// Runs on the solver thread; touches only the LP and the job.
SequenceLp::Result DynamicPartitioner::runSolve(const SolveJob& job) {
  SequenceLp::Result result;
  if (!lp_) return result;
  bool search = job.search;
  if (!search) {
    result = lp_->solveFixed(job.model, job.active);
    // A failed fixed solve, or a prediction far from the last search's: search now.
    double previous = job.lastSearchPredictedNs;
    search = !result.ok || previous <= 0 || std::abs(result.predictedNs - previous) > 0.05 * previous;
  }
  if (search) {
    unsigned fixedRuns = result.solves;
    result = lp_->solve(job.model, job.haveActive ? job.active : ActiveSet{});
    result.solves += fixedRuns;
  }
  result.searched = search;
  return result;
}

void DynamicPartitioner::applySolve(const SolveJob& job, SequenceLp::Result result, double ns) {
  ++solves_;
  simplexRuns_ += result.solves;
  solveNsTotal_ += ns;
  solveNsMax_ = std::max(solveNsMax_, ns);
  if (job.generation != seq_.generation) return; // a new sequence started meanwhile
  if (!job.search) ++seq_.solvesSinceSearch;
  if (result.searched) {
    seq_.solvesSinceSearch = 0;
    if (result.ok) seq_.lastSearchPredictedNs = result.predictedNs;
  }
  if (!result.ok) return;
  const CostModel& model = job.model;
  seq_.solvedModel = model;
  seq_.iterations[sequence_.iterations() + 1].solved = true;
  adoptIfBetter(model, std::move(result));
}

void DynamicPartitioner::adoptIfBetter(const CostModel& model, SequenceLp::Result result) {
  seq_.heldBack.reset();
  // Before its first solution the sequence already runs some split (even over identical
  // devices, or each kernel's own): that is the plan in use, and the LP's must beat and repay
  // it like any later change (two H100 moved 20 MB through the host in the first iterations
  // of fdtd2d for a predicted gain of a few microseconds).
  if (!seq_.haveSolution && (seq_.current = inUseRatios()).size() == seq_.kernels.size()) {
    seq_.haveSolution = true;
    seq_.active.assign(seq_.current.size(), std::vector<bool>(n_, false));
    for (size_t k = 0; k < seq_.current.size(); ++k)
      for (unsigned d = 0; d < n_; ++d) seq_.active[k][d] = seq_.current[k][d] > 0;
  }
  bool adopt = !seq_.haveSolution;
  if (!adopt) {
    auto current = model.predict(seq_.current);
    double threshold = std::max(options_.minRelativeGain, options_.noiseGainFactor * noiseLevel());
    adopt = result.predictedNs < current.total() * (1 - threshold);
    // The gain must also repay, within a horizon of as many iterations as have run (8 to 64),
    // the rows the change moves once: identical GPUs measured a few percent apart moved
    // hundreds of MiB between them through host memory for a predicted gain of microseconds.
    if (adopt) {
      const double horizon = std::clamp(double(seq_.lastMeasuredIteration + 1), 8.0, 64.0);
      const double gainNs = current.total() - result.predictedNs;
      if (gainNs * horizon < model.transitionNs(seq_.current, result.ratios)) {
        adopt = false;
        ++changesNotRepaid_;
      }
    }
    if (!adopt) {
      seq_.currentPredictedNs = current.total();
      seq_.currentPredictedComputeNs = current.computeNs;
      // Better beyond the smallest gain, but within the noise: kept, and looked at again.
      if (result.predictedNs < current.total() * (1 - options_.minRelativeGain)) seq_.heldBack = std::move(result);
      return;
    }
  }
  if (adopt) {
    if (seq_.haveSolution) {
      // Relaxed step from the plan in use towards the LP's optimum (see Relaxation).
      std::vector<double> current, target;
      for (unsigned k = 0; k < seq_.current.size(); ++k) {
        current.insert(current.end(), seq_.current[k].begin(), seq_.current[k].end());
        target.insert(target.end(), result.ratios[k].begin(), result.ratios[k].end());
      }
      auto next = seq_.relaxation.step(current, target);
      for (unsigned k = 0; k < seq_.current.size(); ++k) {
        std::vector<double> row(next.begin() + k * n_, next.begin() + (k + 1) * n_);
        uint64_t groups = uint64_t(std::max(1.0, std::round(model.positions[k].groups)));
        seq_.current[k] = groupsToRatios(ratiosToGroups(row, groups));
      }
    } else {
      seq_.current = result.ratios;
    }
    seq_.active = result.active;
    seq_.haveSolution = true;
    auto b = model.predict(seq_.current);
    seq_.currentPredictedNs = b.total();
    seq_.currentPredictedComputeNs = b.computeNs;
    ++planChanges_;
  }
}

Ratios DynamicPartitioner::inUseRatios() const {
  Ratios in;
  for (uint32_t k : seq_.kernels) {
    const auto& ratios = kernels_[k].lastRatios;
    if (ratios.size() != n_) return {};
    in.push_back(ratios);
  }
  return in;
}

void DynamicPartitioner::quiesce() {
  if (!solver_) return;
  for (;;) {
    solver_->run([] {}); // after every job submitted so far (and what they submitted)
    std::lock_guard lock(mutex_);
    if (!solveInFlight_) return;
  }
}

// --- Measurements ---------------------------------------------------------------------------

void DynamicPartitioner::reportSplitHostTime(unsigned subLaunches, uint64_t nanoseconds) {
  if (subLaunches < 2) return;
  std::lock_guard lock(mutex_);
  splitHostNs_.push(double(nanoseconds) / subLaunches);
  // The first split launches of a kernel also choose its dimension and instantiate its regions
  // (milliseconds): the median of several is the steady cost.
  if (splitHostNs_.size() < kSplitHostMinSamples) return;
  splitHostScratch_.clear();
  for (double ns : splitHostNs_) splitHostScratch_.push_back(ns);
  const double measured = std::max(options_.hostOverheadPerSubLaunchNs, medianInPlace(splitHostScratch_));
  if (std::abs(measured - hostOverheadNs_) > 0.2 * hostOverheadNs_) {
    hostOverheadNs_ = measured;
    ++modelVersion_; // balanced splits were computed with the old overhead
  }
}

void DynamicPartitioner::reportUnmeasurable(unsigned device) {
  std::lock_guard lock(mutex_);
  if (device >= n_ || !spec_.adaptive()) return;
  if (unmeasurable_.empty()) unmeasurable_.assign(n_, false);
  if (unmeasurable_[device]) return;
  unmeasurable_[device] = true;
  log().warn("partitioner: device {} ({}) reports no usable profiling times; {} leaves it out of its splits", device,
             devices_[device].name, spec_.str());
  // Every split that gave it work is chosen again.
  ++modelVersion_;
  for (auto& ks : kernels_) ks.ratios.clear();
  seq_.haveSolution = false;
  seq_.solvedModel.reset();
}

void DynamicPartitioner::reportKernelTime(uint64_t launchId, unsigned device, uint64_t groups, uint64_t nanoseconds,
                                          uint64_t startNs, uint64_t endNs, uint64_t enqueuedNs) {
  std::lock_guard lock(mutex_);
  LaunchRecord* rec = find(launchId);
  if (rec && rec->measuredNs.empty()) rec->measuredNs.assign(n_, -1.0); // made at the first report
  if (!rec || device >= n_ || rec->measuredNs[device] >= 0) {
    log().debug("partitioner: ignoring kernel time for launch {} device {}", launchId, device);
    return;
  }
  uint64_t g = groups > 0 ? groups : rec->groups[device];
  if (g == 0) return;
  if (g != rec->groups[device] && g == rec->totalGroups) {
    // The runtime ran the launch whole on this device (e.g. it found the slices unsafe to run
    // apart): record what really happened, so offsets, volumes and completion stay right.
    std::fill(rec->groups.begin(), rec->groups.end(), 0);
    rec->groups[device] = g;
    rec->ratios = groupsToRatios(rec->groups);
    rec->expected = 1;
  }
  uint64_t offset = 0;
  for (unsigned i = 0; i < device; ++i) offset += rec->groups[i];

  const double ns = double(nanoseconds);
  ++modelVersion_;
  launchLatency_[device].observeTime(ns);
  auto& ks = kernels_[rec->kernel];
  // The floor of the launch reported (the kernel's shape may have changed since).
  auto obs = ks.devices[device].observe(g, offset, ns, options_.smoothing, floorGroups(rec->otherGroups, device));
  if (obs.interceptValid) launchLatency_[device].observeIntercept(rec->kernel, obs.interceptNs);
  rec->measuredNs[device] = ns;
  if (startNs && endNs >= startNs) {
    if (rec->spans.size() < n_) rec->spans.assign(n_, {});
    rec->spans[device] = {startNs, endNs, enqueuedNs};
  }
  ++rec->reported;

  // No volume reported (so far) for this launch and device is a measurement of zero bytes; a
  // late report adds to it.
  if (rec->position && rec->generation == seq_.generation) {
    const uint64_t key = volumeKey(launchId, device);
    for (const auto& p : rec->producers) {
      const LaunchRecord* prod = find(p.launch);
      if (!prod || prod->generation != seq_.generation || !prod->position) continue;
      auto edge = seq_.edges.find({*prod->position, *rec->position});
      if (edge != seq_.edges.end())
        edge->second.observeNothing(key, splitMismatch(prod->ratios, rec->ratios, device),
                                    sharedBoundaries(rec->ratios, device));
    }
    seq_.hostInput[*rec->position].observeNothing(key, rec->ratios[device], 0);
  }
  if (rec->reported >= rec->expected) onLaunchMeasured(launchId, *rec);
}

void DynamicPartitioner::observeConcurrency(const LaunchRecord& rec) {
  if (!options_.detectTakingTurns || rec.expected < 2 || rec.spans.size() < n_) return;
  for (unsigned a = 0; a < n_; ++a)
    for (unsigned b = a + 1; b < n_; ++b) {
      // Only CPU devices of different vendors can share hardware unannounced (PoCL and rusticl
      // on one CPU); one device selected twice and CPU devices of one platform are known to
      // take turns from the start. Two distinct GPUs, or a GPU and a CPU, run at once: shares
      // that do not overlap there wait for each other's halos or for the host, and measuring
      // that as taking turns moved split stencils whole onto one GPU (fdtd2d on two H100s).
      if (!devices_[a].isCpu || !devices_[b].isCpu) continue;
      auto first = rec.spans[a], second = rec.spans[b];
      if (!rec.groups[a] || !rec.groups[b] || !first.end || !second.end) continue;
      if (second.start < first.start) std::swap(first, second);
      const double da = double(first.end - first.start), db = double(second.end - second.start),
                   shorter = std::min(da, db);
      // Clocks of two devices are mapped onto the host's with microseconds of error: only
      // sub-kernels long enough to tell count.
      if (shorter < kConcurrencyMinNs) continue;
      // The later one could not have started before the host enqueued it: when that was past
      // the first half of the other's run (a host-bound launch, enqueued one device after the
      // other), not overlapping says nothing about the devices.
      if (second.enqueued && second.enqueued > first.start + uint64_t(da / 2)) continue;
      const double span = double(std::max(first.end, second.end) - first.start);
      const double overlap = std::clamp((da + db - span) / shorter, 0.0, 1.0);
      auto& c = concurrency_[a][b];
      c.overlap = c.samples ? 0.75 * c.overlap + 0.25 * overlap : overlap;
      ++c.samples;
      concurrency_[b][a] = c;
    }
}

bool DynamicPartitioner::takesTurns(unsigned a, unsigned b) const {
  const auto& c = concurrency_[a][b];
  return c.samples >= kConcurrencySamples && c.overlap < kSerializedOverlap;
}

void DynamicPartitioner::dropSerialized(std::vector<uint64_t>& groups, KernelState& ks, int data) {
  const auto used = std::count_if(groups.begin(), groups.end(), [](uint64_t g) { return g > 0; });
  if (used == 0) return;
  // Now and then a kernel is split anyway, so that what the devices do is measured again.
  if (used > 1 && ks.launches % kConcurrencyRecheck == kConcurrencyRecheck - 1) return;
  unsigned main = unsigned(std::max_element(groups.begin(), groups.end()) - groups.begin());
  // Not onto a device that cannot hold the launch's buffers: the split is for memory then.
  if (ks.bytes && devices_[main].memoryBytes && shareThatFitsOn(main, double(ks.bytes), double(ks.largest)) < 1.0)
    return;
  // Of devices that take turns, the one holding the launch's data runs it (also when the ratios
  // gave all the work to the other): the other could not run it sooner, and the data would move.
  if (data >= 0 && unsigned(data) != main && takesTurns(main, unsigned(data))) {
    groups[unsigned(data)] += groups[main];
    groups[main] = 0;
    main = unsigned(data);
  }
  for (unsigned d = 0; d < n_; ++d) {
    if (d == main || !groups[d]) continue;
    if (takesTurns(main, d)) {
      groups[main] += groups[d];
      groups[d] = 0;
    }
  }
}

void DynamicPartitioner::onLaunchMeasured(uint64_t id, LaunchRecord& rec) {
  observeConcurrency(rec);
  if (spec_.adaptive()) {
    auto& ks = kernels_[rec.kernel];
    KernelCosts costs = kernelCosts(rec.kernel, rec.totalGroups);
    // F(x): the balanced split for the per-group times measured at x, the launch's own split.
    std::vector<double> fx = groupsToRatios(ratiosToGroups(balanceKernel(costs), rec.totalGroups));
    double noise = 0;
    unsigned used = 0;
    for (unsigned d = 0; d < n_; ++d)
      if (rec.groups[d] > 0 && ks.devices[d].samples() > 2) {
        noise += ks.devices[d].noise();
        ++used;
      }
    double threshold = std::max(options_.minRelativeGain, used ? options_.noiseGainFactor * noise / used : 0.0);
    // Move only when the measurements say x is clearly worse than F(x) (hysteresis), then by a
    // Broyden step or a relaxed fixed-point step.
    if (ks.ratios.empty() || predictKernel(costs, fx) < predictKernel(costs, rec.ratios) * (1 - threshold)) {
      std::vector<double> next = spec_.broyden ? ks.broyden.next(rec.ratios, fx) : ks.relaxation.step(rec.ratios, fx);
      // A secant step (or one from a launch split before its bounds were known) may leave a
      // device's memory or largest allocation behind: held to them.
      if (!sharesFit(costs, next)) next = capShares(costs, std::move(next));
      ks.ratios = groupsToRatios(ratiosToGroups(next, rec.totalGroups));
    }
  }

  if (rec.position && rec.generation == seq_.generation) {
    auto it = seq_.iterations.find(rec.iteration);
    if (it == seq_.iterations.end()) return;
    ++it->second.measuredLaunches;
    it->second.measuredKernelNs += *std::max_element(rec.measuredNs.begin(), rec.measuredNs.end());
    // An iteration counts as measured when all its launches are, or when its last launch is
    // (a report lost on the way must not stop the adaptation); once per iteration.
    const bool complete =
        it->second.measuredLaunches == seq_.kernels.size() || *rec.position + 1 == seq_.kernels.size();
    if (complete && (seq_.lastMeasuredIteration < 0 || int64_t(rec.iteration) > seq_.lastMeasuredIteration)) {
      seq_.lastMeasuredIteration = int64_t(rec.iteration);
      onIterationMeasured();
    }
  }
  (void)id;
}

void DynamicPartitioner::onIterationMeasured() {
  if (spec_.plansSequences()) solveSequence(false);
}

void DynamicPartitioner::reportTransfer(unsigned device, Direction direction, uint64_t bytes, uint64_t nanoseconds) {
  std::lock_guard lock(mutex_);
  transfers_.report(device, direction, bytes, nanoseconds);
  ++transferVersion_;
}

void DynamicPartitioner::reportDependencyVolume(uint64_t launchId, unsigned device, uint64_t producerLaunchId,
                                                uint64_t bytes) {
  std::lock_guard lock(mutex_);
  LaunchRecord* rec = find(launchId);
  if (!rec || device >= n_) return;
  if (rec->probed == int(device)) { // what the probe moved: the next probe of the kernel pays it too
    auto& ks = kernels_[rec->kernel];
    if (ks.probeMoveNs.size() == n_) {
      double from = 0;
      for (unsigned d = 0; d < n_; ++d)
        if (d != device && rec->groups[d]) {
          auto link = transfers_.between(d, device);
          from = std::max(from, link.latencyNs + link.perByteNs * double(bytes));
        }
      if (rec->probeMoveCounted)
        ks.probeMoveNs[device] += from;
      else
        ks.probeMoveNs[device] = from;
      rec->probeMoveCounted = true;
    }
  }
  if (!rec->position || rec->generation != seq_.generation) return;
  const uint64_t key = volumeKey(launchId, device);
  if (producerLaunchId == kHostProducer) {
    seq_.hostInput[*rec->position].observe(key, rec->ratios[device], 0, double(bytes));
    return;
  }
  const LaunchRecord* prod = find(producerLaunchId);
  if (!prod || prod->generation != seq_.generation || !prod->position) return;
  auto& edge = seq_.edges.try_emplace(EdgeKey{*prod->position, *rec->position}, DependencyVolume(0)).first->second;
  edge.observe(key, splitMismatch(prod->ratios, rec->ratios, device), sharedBoundaries(rec->ratios, device),
               double(bytes));
}

// --- Construction ---------------------------------------------------------------------------

std::unique_ptr<Partitioner> makePartitioner(std::vector<DeviceInfo> devices, StrategySpec spec) {
  return makePartitioner(std::move(devices), std::move(spec), PartitionerOptions{});
}

std::unique_ptr<Partitioner> makePartitioner(std::vector<DeviceInfo> devices, StrategySpec spec,
                                             PartitionerOptions options) {
  if (devices.empty()) throw std::invalid_argument("partitioner: no devices");
  if (devices.size() > 64) throw std::invalid_argument("partitioner: more than 64 devices");
  if (std::string why = spec.mismatch(devices.size()); !why.empty()) throw std::invalid_argument("partitioner: " + why);
  return std::make_unique<DynamicPartitioner>(std::move(devices), std::move(spec), options);
}

} // namespace clsplit::partition
