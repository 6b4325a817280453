// Runtime initialisation, device selection, and the exit hook that writes the run report.
#include "icd/runtime/Runtime.h"

#include "analysis/module/AnalyzerModule.h"
#include "device/DriverClock.h"
#include "device/Enqueue.h"
#include "device/FaultInjection.h"
#include "device/HostExecutor.h"
#include "device/Submission.h"
#include "icd/config/DeviceSelection.h"
#include "icd/config/PassThrough.h"
#include "icd/objects/MemorySettings.h"
#include "icd/runtime/HostTime.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Trace.h"
#include "partitioner/Partitioner.h"
#include "support/Log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace clsplit::icd::runtime {

namespace {
constexpr size_t kMaxPendingMeasurements = 4096;
} // namespace

Runtime& Runtime::get() {
  static Runtime* runtime = new Runtime; // lives until exit; the report is written at exit
  return *runtime;
}

namespace {
// The objects reach the runtime through their Environment, set when the library loads.
Environment& runtimeEnvironment() { return Runtime::get(); }
[[maybe_unused]] const bool environmentSet = (setEnvironmentSource(&runtimeEnvironment), true);
} // namespace

bool Runtime::tracing() const { return Trace::active() != nullptr; }

void Runtime::hostSpan(const char* name, uint64_t startNs, uint64_t endNs) {
  if (auto* trace = Trace::active()) trace->hostSpan(name, startNs, endNs);
}

Runtime::Runtime() : settings_(&Settings::process()) {
  setLogLevel(settings_->value("CLSPLIT_LOG"));
  for (const auto& w : settings_->warnings()) log().warn("{}", w);
  for (const auto& s : settings_->nonDefaults()) log().info("setting {}", s);

  vendors_ = device::Vendors::load(settings_->value("CLSPLIT_VENDORS"));
  device::setEventlessCommands(settings_->value("CLSPLIT_EVENTLESS") != "0");
  if (const std::string& faults = settings_->value("CLSPLIT_TEST_FAULTS"); !faults.empty()) {
    std::vector<cl_device_id> handles;
    for (const auto& d : vendors_.devices()) handles.push_back(d.handle);
    std::string error;
    if (!device::configureFaults(faults, handles, &error)) log().warn("CLSPLIT_TEST_FAULTS: {}", error);
  }
  std::vector<std::string> problems;
  auto chosen = selectDevices(settings_->value("CLSPLIT_DEVICES"), vendors_.devices(), problems);
  for (const auto& p : problems) log().warn("{}", p);

  for (unsigned index : chosen) {
    const auto& d = vendors_.devices()[index];
    if (!slots_.empty() && d.addressBits != slots_.front().device->addressBits) {
      log().warn("device {} ({}) has {}-bit addresses, unlike device {}: not used", d.index, d.name, d.addressBits,
                 slots_.front().device->index);
      continue;
    }
    slots_.push_back({static_cast<unsigned>(slots_.size()), &d, d.platform});
  }
  for (const auto& s : slots_)
    log().info("device slot {}: [{}] {} ({})", s.slot, s.device->index, s.device->name,
               vendors_.platforms()[s.platform].name);

  // The submission thread (device/Submission.h): measured not to pay on NVIDIA's OpenCL, so
  // only where asked for.
  const std::string& submit = settings_->value("CLSPLIT_SUBMIT_THREAD");
  const bool submitThread = submit == "on" || submit == "1";
  if (!submitThread && submit != "off" && submit != "0")
    log().warn("CLSPLIT_SUBMIT_THREAD={} is not on or off; using off", submit);
  device::submission::setEnabled(submitThread);
  if (submitThread) log().info("launches that run whole where their data is are enqueued by the submission thread");

  // Background work (measurements, device/HostExecutor.h) stops at exit before the vendors'
  // libraries are torn down (they were loaded above; the report's handler, registered below,
  // runs before this one and lets it finish first).
  std::atexit([] { device::stopBackground(); });

  // A report is written even by a program that launches nothing.
  reporting_ = !settings_->value("CLSPLIT_REPORT").empty() || settings_->value("CLSPLIT_SUMMARY") == "1";
  if (reporting_) report();

  const std::string& single = settings_->value("CLSPLIT_SINGLE_DEVICE");
  if (!single.empty()) {
    bool found = false;
    for (const auto& s : slots_)
      if (std::to_string(s.device->index) == single) {
        singleSlot_ = s.slot;
        found = true;
      }
    if (!found) log().warn("CLSPLIT_SINGLE_DEVICE={} is not a selected device; using slot 0", single);
  }
  chooseStrategy();
  choosePassThroughDevice();
}

void Runtime::choosePassThroughDevice() {
  const size_t running = singleStrategy() ? std::min<size_t>(slots_.size(), 1) : slots_.size();
  const DeviceSlot* target = running == 1 ? &slots_[singleStrategy() ? singleSlot_ : 0] : nullptr;
  const PassThroughChoice choice = choosePassThrough(*settings_, running);
  if (!choice.warning.empty()) log().warn("{}", choice.warning);
  if (!choice.passThrough) {
    if (target) log().info("one device runs every kernel; clsplit keeps its layer: {}", choice.reason);
    return;
  }
  passThrough_ = target;
  // (Where the platform has other devices, icd/api/OneDevicePlatform.cpp says whether it could
  // list this one alone when the loader first asks.)
  log().info("{}: the program gets the platform {} of [{}] {} itself, and its calls go straight to the vendor "
             "(CLSPLIT_PASSTHROUGH=off keeps clsplit's layer)",
             choice.reason, vendors_.platforms()[target->platform].name, target->device->index, target->device->name);
}

void Runtime::chooseStrategy() {
  const std::string& text = settings_->value("CLSPLIT_STRATEGY");
  std::string error;
  auto spec = partition::StrategySpec::parse(text, &error);
  bool replaced = !spec;
  if (!spec) {
    log().error("CLSPLIT_STRATEGY: {}; using adaptive-comm", error);
    spec = partition::StrategySpec{};
  }
  if (spec->kind == partition::StrategyKind::Single) {
    // single:N names a device as `clsplit --list-devices` numbers it (over CLSPLIT_SINGLE_DEVICE);
    // the partitioner counts slots.
    if (spec->singleDeviceNamed) {
      auto named = std::find_if(slots_.begin(), slots_.end(),
                                [&](const DeviceSlot& s) { return s.device->index == spec->singleDevice; });
      if (named != slots_.end())
        singleSlot_ = named->slot;
      else
        log().error("CLSPLIT_STRATEGY={}: device {} is not selected; using slot {}", text, spec->singleDevice,
                    singleSlot_);
    }
    spec->singleDevice = singleSlot_;
  }
  if (std::string why = spec->mismatch(slots_.size()); !why.empty() && !slots_.empty()) {
    log().error("CLSPLIT_STRATEGY={}: {}; using adaptive-comm", text, why);
    spec = partition::StrategySpec{};
    replaced = true;
  }
  strategy_ = *spec;
  strategyName_ = replaced ? partition::StrategySpec{}.str() : text;
}

partition::Partitioner& Runtime::makePartitioner() {
  std::call_once(partitionerOnce_, [this] {
    std::vector<partition::DeviceInfo> devices;
    // What the contexts' device memory accounting holds each device to (Context.cpp,
    // deviceMemoryFor), shared by the slots of one real device: the LP's shares respect it.
    const MemorySettings& memory = memorySettings(*settings_);
    const bool accounted = memory.policy != buffer::WindowPolicy::Off && (slots_.size() > 1 || memory.cap);
    for (const auto& s : slots_) {
      // Device types as the selection reads them: a simulator claims GPU and CPU at once.
      const bool everyType = (s.device->type & CL_DEVICE_TYPE_GPU) && (s.device->type & CL_DEVICE_TYPE_CPU);
      partition::DeviceInfo info;
      info.name = s.device->name;
      info.isGpu = (s.device->type & CL_DEVICE_TYPE_GPU) && !everyType;
      info.computeUnits = s.device->computeUnits;
      info.platform = s.platform;
      info.simulator = everyType;
      // A compute unit runs at least one work-group at a time (GPUs run several: a lower bound).
      info.concurrentGroups = s.device->computeUnits;
      info.realDevice = static_cast<int>(s.device->index);
      info.isCpu = (s.device->type & CL_DEVICE_TYPE_CPU) && !everyType;
      if (accounted) {
        const auto sharing =
            std::count_if(slots_.begin(), slots_.end(), [&](const DeviceSlot& o) { return o.device == s.device; });
        // A tenth left for what a share needs beyond its bytes (halos, windows' alignment and slack).
        info.memoryBytes = memory.cap.value_or(s.device->globalMemory) / static_cast<uint64_t>(sharing) / 10 * 9;
        info.memoryCapped = memory.cap.has_value();
        info.maxAllocBytes = s.device->maxAlloc;
      }
      devices.push_back(info);
    }
    partition::PartitionerOptions options;
    options.asyncSolve = true; // kernels of a few microseconds must not wait for an LP solve
    options.detectTakingTurns = settings_->value("CLSPLIT_TEST_CONCURRENT_DEVICES").empty();
    {
      const std::string& ms = settings_->value("CLSPLIT_SAMPLE_MS");
      char* end = nullptr;
      const double value = std::strtod(ms.c_str(), &end);
      if (!ms.empty() && !*end && value >= 0 && std::isfinite(value))
        options.minSampleIntervalNs = value * 1e6;
      else
        log().warn("CLSPLIT_SAMPLE_MS={} is not a number of milliseconds; using {}", ms,
                   options.minSampleIntervalNs / 1e6);
    }
    partitioner_ = partition::makePartitioner(std::move(devices), strategy_, options);
    const std::string& profile = settings_->value("CLSPLIT_PROFILE");
    if (!profile.empty()) {
      if (partitioner_->loadProfile(profile)) log().info("warm start: loaded the performance model from {}", profile);
      std::atexit([] { // the model learned by this run, for the next one
        // Without the measurements still in flight: no vendor calls at exit (a vendor may have
        // torn down its thread-local state already; Oclgrind has).
        auto& rt = Runtime::get();
        const std::string& path = rt.settings().value("CLSPLIT_PROFILE");
        if (!rt.partitioner_->saveProfile(path)) log().warn("cannot save the profile to {}", path);
      });
    }
    partitionerMade_.store(partitioner_.get(), std::memory_order_release);
  });
  return *partitioner_;
}

std::string Runtime::partitionerJson() { return partitioner_ ? partitioner_->reportJson() : std::string(); }

bool Runtime::commandsTimed() {
  if (commandsTimedKnown_.load(std::memory_order_acquire)) return commandsTimed_;
  std::call_once(timedOnce_, [this] {
    bool reporting = !settings_->value("CLSPLIT_REPORT").empty() || settings_->value("CLSPLIT_SUMMARY") == "1";
    commandsTimed_ = (reporting && settings_->value("CLSPLIT_REPORT_TIMING") != "0") || Trace::active();
    commandsTimedKnown_.store(true, std::memory_order_release);
  });
  return commandsTimed_;
}

namespace {

// What the run report states of the process at exit besides its own records (RunFacts).
RunFacts runFacts(const Runtime& rt) {
  RunFacts facts;
  facts.strategy = rt.strategyName();
  for (const auto& s : rt.slots())
    facts.devices.push_back({s.slot, s.device->index, s.device->name, rt.vendors().platforms()[s.platform].name,
                             device::deviceTypeName(s.device->type)});
  facts.deferredLaunches = device::submission::deferredCount();
  facts.analyzerLoaded = analysis::module::loaded();
  facts.pinned = buffer::PinnedPool::processTotals();
  facts.ring = buffer::StagingRing::processTotals();
  facts.memory = buffer::DeviceMemory::processTotals();
  facts.hostTime = HostTime::snapshot();
  for (size_t i = 0; i < device::DriverClock::kSlots; ++i)
    if (uint64_t n = device::DriverClock::callsBySlot[i].load()) {
      const char* name = device::DriverClock::slotNames[i];
      facts.driverCalls.push_back({name ? std::string(name) : "dispatch slot " + std::to_string(i), n,
                                   device::DriverClock::nsBySlot[i].load()});
    }
  facts.callbacks = device::DriverClock::callbacks.load();
  facts.callbackNs = device::DriverClock::callbackNs.load();
  facts.callbackMaxNs = device::DriverClock::callbackMaxNs.load();
  return facts;
}

// Installs the exit hook that writes CLSPLIT_REPORT / CLSPLIT_SUMMARY.
void installExitReport() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  std::atexit([] {
    try {
      auto& rt = Runtime::get();
      const std::string& path = rt.settings().value("CLSPLIT_REPORT");
      bool summary = rt.settings().value("CLSPLIT_SUMMARY") == "1";
      if (path.empty() && !summary) return;
      // No vendor calls from here: sub-kernels still running at exit stay unmeasured. Those
      // that completed are read on the background thread: let it finish them first.
      device::drainBackground(std::chrono::milliseconds(1000));
      const RunFacts facts = runFacts(rt);
      if (!path.empty()) {
        std::ofstream out(path);
        out << rt.report().json(facts, rt.partitionerJson());
        if (!out) log().error("cannot write the run report to {}", path);
      }
      if (summary) std::fputs(rt.report().summary(facts).c_str(), stderr);
    } catch (const std::exception& e) {
      log().error("writing the run report failed: {}", e.what());
    }
  });
}

} // namespace

RunReport& Runtime::report() {
  std::call_once(reportOnce_, [this] {
    bool json = !settings().value("CLSPLIT_REPORT").empty();
    bool summary = settings().value("CLSPLIT_SUMMARY") == "1";
    const bool perLaunch = json && settings().value("CLSPLIT_REPORT_LAUNCHES") != "0";
    report_ = std::make_unique<RunReport>(static_cast<unsigned>(slots_.size()), json || summary, perLaunch,
                                          [this] { return commandsTimed(); });
    if (json || summary) HostTime::enable();
    installExitReport();
  });
  return *report_;
}

namespace {
// A command's profiled duration at or below this is no measurement: no kernel or transfer runs
// in 10 ns (Mesa 22's rusticl stamps every command 0, 1, 2 and 3 ns).
constexpr uint64_t kNoDeviceTimeNs = 10;
} // namespace

void Runtime::recordLaunch(uint64_t launchId, bool measured,
                           const std::vector<std::pair<unsigned, device::FenceRef>>& subKernels,
                           const std::vector<uint64_t>& groupsPerSlot, const buffer::TransferLog& transfers) {
  auto& p = partitioner();
  // An unmeasured launch tells nothing, volumes included (their zero observations come with
  // the kernel times).
  if (!p.usesMeasurements() || !measured) return;
  for (const auto& t : transfers)
    if (t.to >= 0) // bytes from the host count too (kHostProducer): they favour cheap host links
      p.reportDependencyVolume(launchId, static_cast<unsigned>(t.to), t.producer, t.bytes);
  // A launch run whole (sampled: at most one a millisecond once settled) is read when found
  // complete (harvestMeasurements); a split one from the completion callbacks (whenComplete).
  const bool polled = subKernels.size() <= 1;
  for (const auto& [slot, fence] : subKernels)
    whenComplete(
        fence,
        [fence = fence, &p, launchId, slot = slot, groups = groupsPerSlot[slot]](cl_int status) {
          // A sub-kernel launched in pieces (boundary first) took the sum of its pieces' times.
          const auto commands = device::realCommandsOf(fence);
          uint64_t ns = 0, enqueued = UINT64_MAX;
          for (auto* real : commands) {
            const uint64_t piece = status == CL_COMPLETE ? real->durationNs() : 0;
            // No profile, or none to believe (a device whose stamps are no clock is found when
            // its queue is made: Queue::madeQueue).
            if (piece <= kNoDeviceTimeNs) return;
            ns += piece;
            enqueued = std::min(enqueued, real->enqueuedAtNs());
          }
          if (!ns) return;
          uint64_t start = UINT64_MAX, end = 0; // on the host clock: whether the devices ran at once
          if (!fence->profile(start, end)) start = end = 0;
          p.reportKernelTime(launchId, slot, groups, ns, start, end, enqueued == UINT64_MAX ? 0 : enqueued);
        },
        polled);
  for (const auto& t : transfers) {
    auto direction = t.kind == buffer::TransferKind::HostToDevice   ? partition::Direction::HostToDevice
                     : t.kind == buffer::TransferKind::DeviceToHost ? partition::Direction::DeviceToHost
                                                                    : partition::Direction::DeviceToDevice;
    unsigned slot = static_cast<unsigned>(t.to >= 0 ? t.to : t.from);
    measureWhenDone(
        t.fence, [&p, slot, direction, bytes = t.bytes](uint64_t ns) { p.reportTransfer(slot, direction, bytes, ns); },
        polled);
  }
}

void Runtime::whenComplete(const device::FenceRef& fence, std::function<void(cl_int)> fn, bool polled) {
  if (!polled) { // read on clsplit's background thread, not the vendor's callback thread
    fence->onComplete([fn = std::move(fn)](cl_int status) mutable {
      device::runInBackground([fn = std::move(fn), status] { fn(status); });
    });
    return;
  }
  std::lock_guard lock(pendingMutex_);
  pending_.emplace_back(fence, std::move(fn));
  pendingCount_.store(pending_.size(), std::memory_order_release);
}

bool Runtime::harvestMeasurements(size_t budget) {
  if (pendingCount_.load(std::memory_order_acquire) == 0) return false;
  bool running = false;
  std::vector<std::pair<cl_int, std::function<void(cl_int)>>> ready;
  {
    std::lock_guard lock(pendingMutex_);
    // Oldest first. One still running holds up the later ones of its queue (an in-order queue
    // completes them after it: asking about them would be driver calls for nothing; a program
    // that runs far ahead of its GPU had 15 such questions per launch), not those of others.
    std::vector<cl_command_queue> runningQueues;
    // Entries looked at, asked or not: at most 4x the budget (a launch does not walk a long
    // backlog whole; clFinish, with no budget, harvests everything).
    const size_t lookLimit = budget > SIZE_MAX / 4 ? SIZE_MAX : 4 * budget;
    size_t looked = 0;
    for (auto it = pending_.begin(); it != pending_.end() && budget > 0 && looked < lookLimit; ++looked) {
      cl_command_queue q = it->first->queue();
      if (q && std::find(runningQueues.begin(), runningQueues.end(), q) != runningQueues.end()) {
        ++it;
        continue;
      }
      --budget;
      const cl_int status = it->first->status();
      if (status <= CL_COMPLETE) {
        ready.emplace_back(status, std::move(it->second));
        it = pending_.erase(it);
        continue;
      }
      // Commands are not flushed one by one: those nobody waits for may never be submitted.
      if (q) runningQueues.push_back(q);
      it->first->flush();
      running = true;
      ++it;
    }
    // Never found complete (a command whose completion nothing reveals): forgotten, oldest
    // first, rather than kept for the rest of the run.
    while (pending_.size() > kMaxPendingMeasurements) pending_.pop_front();
    pendingCount_.store(pending_.size(), std::memory_order_release);
  }
  for (auto& [status, fn] : ready) fn(status); // outside the lock: they feed the partitioner
  return running;
}

void Runtime::measureWhenDone(const device::FenceRef& fence, std::function<void(uint64_t)> report, bool polled) {
  if (!fence) return;
  whenComplete(
      fence,
      [fence, report = std::move(report)](cl_int status) {
        auto* real = dynamic_cast<device::RealEventFence*>(fence.get());
        uint64_t ns = real && status == CL_COMPLETE ? real->durationNs() : 0;
        if (ns > kNoDeviceTimeNs) report(ns); // host-staged work has no device time
      },
      polled);
}

std::vector<unsigned> Runtime::platformsInUse() const {
  std::vector<unsigned> platforms;
  for (const auto& s : slots_)
    if (std::find(platforms.begin(), platforms.end(), s.platform) == platforms.end()) platforms.push_back(s.platform);
  return platforms;
}

bool Runtime::mayRunOn(unsigned slot) {
  if (auto only = partitioner().onlyDevice()) return *only == slot;
  if (strategy_.kind == partition::StrategyKind::Static)
    return slot < strategy_.staticRatios.size() && strategy_.staticRatios[slot] > 0;
  return true;
}

} // namespace clsplit::icd::runtime
