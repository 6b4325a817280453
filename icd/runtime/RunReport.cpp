// Run report collection and output.
#include "icd/runtime/RunReport.h"

#include "device/HostExecutor.h"
#include "support/Json.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <sstream>
#include <string_view>

namespace clsplit::icd::runtime {

namespace {

// The reason most launches ran whole for (the first seen among equals).
const std::string& mostFrequent(const std::vector<std::pair<std::string, uint64_t>>& reasons) {
  const auto* best = &reasons.front();
  for (const auto& r : reasons)
    if (r.second > best->second) best = &r;
  return best->first;
}

std::string list(const std::vector<uint64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

} // namespace

RunReport::RunReport(unsigned slots, bool enabled, bool perLaunch, std::function<bool()> commandsTimed)
    : slots_(slots), enabled_(enabled), perLaunch_(perLaunch), commandsTimed_(std::move(commandsTimed)), h2d_(slots),
      d2h_(slots), d2d_(slots) {}

RunReport::KernelStats& RunReport::statsOf(const std::string& kernel) {
  auto it = kernels_.find(kernel);
  if (it == kernels_.end()) {
    it = kernels_.emplace(kernel, KernelStats{}).first;
    it->second.name = kernel;
    it->second.groups.assign(slots_, 0);
    it->second.timeNs.assign(slots_, 0);
  }
  return it->second;
}

void RunReport::account(KernelStats& kernel, unsigned slot, size_t launch, uint64_t ns) {
  std::lock_guard lock(mutex_);
  kernel.timeNs[slot] += ns;
  if (launch < launchKernels_.size()) launchValues_[(launch * 3 + 1) * slots_ + slot] += ns;
  --inFlight_;
}

void RunReport::noteLaunch(const std::string& kernel, const std::vector<uint64_t>& groupsPerSlot, bool split,
                           const std::optional<std::string>& fallbackReason,
                           const std::vector<std::pair<unsigned, device::FenceRef>>& subKernels,
                           const buffer::TransferLog& transfers, bool boundaryFirst, bool resident) {
  if (!enabled_) return;
  const bool timed = commandsTimed_();
  size_t index = SIZE_MAX;
  KernelStats* stats = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto& k = statsOf(kernel);
    stats = &k;
    if (perLaunch_ && launchKernels_.size() < kMaxLaunchRecords) {
      index = launchKernels_.size();
      launchKernels_.push_back(&k);
      launchValues_.resize(launchValues_.size() + 3 * slots_, 0);
      uint64_t* groups = &launchValues_[index * 3 * slots_];
      uint64_t* bytesIn = groups + 2 * slots_;
      for (unsigned s = 0; s < groupsPerSlot.size() && s < slots_; ++s) groups[s] = groupsPerSlot[s];
      for (const auto& t : transfers)
        if (t.to >= 0 && static_cast<unsigned>(t.to) < slots_) bytesIn[t.to] += t.bytes;
    }
    ++k.launches;
    if (split) ++k.splitLaunches;
    if (boundaryFirst) ++k.boundaryFirstLaunches;
    if (resident) ++k.residentLaunches;
    if (fallbackReason && !split) {
      auto& reasons = k.fallbackReasons;
      auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& r) { return r.first == *fallbackReason; });
      if (it != reasons.end())
        ++it->second;
      else if (reasons.size() < kMaxReasons)
        reasons.emplace_back(*fallbackReason, 1);
      else
        ++reasons.back().second;
    }
    for (unsigned s = 0; s < groupsPerSlot.size() && s < slots_; ++s) k.groups[s] += groupsPerSlot[s];
    if (timed)
      for (const auto& [slot, fence] : subKernels) inFlight_ += device::realCommandsOf(fence).size();
  }
  // Device times are read when each sub-kernel completes (from the vendor's callback), not at
  // exit: by then a vendor may have torn down its thread-local state (Oclgrind does). A real
  // event's fence keeps itself alive until its callbacks have run, so a plain pointer is enough.
  // A command enqueued without an event has no device time: asking when it completes would
  // cost a marker and a callback that an ordinary run does not make.
  // A sub-kernel launched in pieces (boundary first) is the sum of its pieces. Without timing
  // (CLSPLIT_REPORT_TIMING=0) no callback is set: on NVIDIA a process that has set one pays for
  // it at every later enqueue, and such a report is meant to show what an ordinary run costs.
  if (!timed) return;
  for (const auto& [slot, fence] : subKernels)
    for (auto* real : device::realCommandsOf(fence))
      real->onComplete([this, stats, slot = slot, index, real = real->shared_from_this()](cl_int) {
        device::runInBackground([this, stats, slot, index, real] { // not on the vendor's thread
          account(*stats, slot, index, static_cast<device::RealEventFence&>(*real).durationNs());
        });
      });
}

void RunReport::noteTransfers(const buffer::TransferLog& log) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  for (const auto& t : log) {
    ++transferCount_;
    switch (t.kind) {
    case buffer::TransferKind::HostToDevice:
      h2d_[t.to] += t.bytes;
      break;
    case buffer::TransferKind::DeviceToHost:
      d2h_[t.from] += t.bytes;
      break;
    case buffer::TransferKind::DeviceToDevice:
      d2d_[t.to] += t.bytes;
      break;
    }
  }
}

std::string RunReport::json(const RunFacts& facts, const std::string& partitionerJson) const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  out << "{\n  \"clsplit_version\": " << jsonString(CLSPLIT_VERSION) << ",\n";
  out << "  \"strategy\": " << jsonString(facts.strategy) << ",\n";
  out << "  \"unmeasured_sub_kernels\": " << inFlight_ << ",\n";
  out << "  \"deferred_launches\": " << facts.deferredLaunches << ",\n";
  out << "  \"analyzer_loaded\": " << (facts.analyzerLoaded ? "true" : "false") << ",\n";
  out << "  \"devices\": [";
  for (size_t i = 0; i < facts.devices.size(); ++i) {
    const auto& d = facts.devices[i];
    out << (i ? "," : "") << "\n    {\"slot\": " << d.slot << ", \"index\": " << d.index
        << ", \"name\": " << jsonString(d.name) << ", \"platform\": " << jsonString(d.platform)
        << ", \"type\": " << jsonString(d.type) << "}";
  }
  out << "\n  ],\n  \"kernels\": {";
  bool first = true;
  for (const auto& [name, k] : kernels_) {
    out << (first ? "" : ",") << "\n    " << jsonString(name) << ": {\"launches\": " << k.launches
        << ", \"split_launches\": " << k.splitLaunches << ", \"boundary_first_launches\": " << k.boundaryFirstLaunches
        << ", \"resident_launches\": " << k.residentLaunches << ", \"fallback_reason\": "
        << (k.fallbackReasons.empty() ? "null" : jsonString(mostFrequent(k.fallbackReasons)))
        << ", \"fallback_reasons\": {";
    for (size_t r = 0; r < k.fallbackReasons.size(); ++r)
      out << (r ? ", " : "") << jsonString(k.fallbackReasons[r].first) << ": " << k.fallbackReasons[r].second;
    out << "}"
        << ", \"groups_per_device\": " << list(k.groups) << ", \"time_ns_per_device\": " << list(k.timeNs) << "}";
    first = false;
  }
  out << "\n  },\n  \"launches\": [";
  auto slotList = [&](const uint64_t* values) { return list(std::vector<uint64_t>(values, values + slots_)); };
  for (size_t i = 0; i < launchKernels_.size(); ++i) {
    const uint64_t* values = &launchValues_[i * 3 * slots_];
    out << (i ? "," : "") << "\n    {\"kernel\": " << jsonString(launchKernels_[i]->name)
        << ", \"groups\": " << slotList(values) << ", \"time_ns\": " << slotList(values + slots_)
        << ", \"bytes_in\": " << slotList(values + 2 * slots_) << "}";
  }
  out << "\n  ],\n  \"transfers\": {\"count\": " << transferCount_ << ", \"host_to_device_bytes\": " << list(h2d_)
      << ", \"device_to_host_bytes\": " << list(d2h_) << ", \"device_to_device_bytes\": " << list(d2d_) << "},\n";
  const auto& pinned = facts.pinned;
  const auto& ring = facts.ring;
  out << "  \"pinned_host\": {\"peak_bytes\": " << pinned.pinnedBytes << ", \"buffers_made\": " << pinned.buffersMade
      << ", \"lends\": " << pinned.lends << ", \"misses\": " << pinned.misses << ", \"slabs\": " << pinned.slabs
      << ", \"ring_moves\": " << ring.moves << ", \"ring_bytes\": " << ring.bytes << "},\n";
  const auto& memory = facts.memory;
  out << "  \"device_memory\": {\"peak_bytes\": " << memory.peakBytes << ", \"cap_bytes\": " << memory.capBytes
      << ", \"windows\": " << memory.windows << ", \"evictions\": " << memory.evictions << "},\n";
  // Per entry point: calls, host time on the application's threads, and how much of it was
  // spent inside vendor calls; clsplit's own time is the difference.
  out << "  \"host_time\": [";
  const auto& times = facts.hostTime;
  for (size_t i = 0; i < times.size(); ++i) {
    const auto& t = times[i];
    out << (i ? "," : "") << "\n    {\"entry\": " << jsonString(t.entry) << ", \"calls\": " << t.calls
        << ", \"total_ns\": " << t.totalNs << ", \"driver_ns\": " << t.driverNs
        << ", \"driver_calls\": " << t.driverCalls
        << ", \"own_ns_per_call\": " << (t.totalNs - std::min(t.totalNs, t.driverNs)) / t.calls << "}";
  }
  out << "\n  ],\n";
  // Vendor calls by function, all threads (callbacks and the solver included), most first.
  auto bySlot = facts.driverCalls;
  std::sort(bySlot.begin(), bySlot.end(),
            [](const RunFacts::DriverCalls& a, const RunFacts::DriverCalls& b) { return a.calls > b.calls; });
  out << "  \"driver_calls\": [";
  for (size_t i = 0; i < bySlot.size(); ++i)
    out << (i ? "," : "") << "\n    {\"function\": " << jsonString(bySlot[i].function)
        << ", \"calls\": " << bySlot[i].calls << ", \"ns\": " << bySlot[i].ns << "}";
  out << "\n  ],\n";
  out << "  \"driver_callbacks\": {\"calls\": " << facts.callbacks << ", \"ns\": " << facts.callbackNs
      << ", \"max_ns\": " << facts.callbackMaxNs << "},\n";
  out << "  \"partitioner\": " << (partitionerJson.empty() ? "null" : partitionerJson) << "\n}\n";
  return out.str();
}

std::string RunReport::summary(const RunFacts& facts) const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  out << "clsplit summary (strategy " << facts.strategy << ")\n";
  for (const auto& d : facts.devices) out << "  device " << d.slot << ": " << d.name << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-28s %9s %9s  %s\n", "kernel", "launches", "split", "groups / ms per device");
  out << line;
  for (const auto& [name, k] : kernels_) {
    std::string perDevice;
    for (unsigned s = 0; s < slots_; ++s) {
      char cell[64];
      std::snprintf(cell, sizeof cell, "%s%llu/%.2f", s ? "  " : "", static_cast<unsigned long long>(k.groups[s]),
                    k.timeNs[s] / 1e6);
      perDevice += cell;
    }
    std::snprintf(line, sizeof line, "  %-28.28s %9llu %9llu  ", name.c_str(),
                  static_cast<unsigned long long>(k.launches), static_cast<unsigned long long>(k.splitLaunches));
    out << line << perDevice << "\n";
    for (const auto& [reason, count] : k.fallbackReasons)
      out << "      not split (" << count << "x): " << reason << "\n";
  }
  uint64_t h2d = 0, d2h = 0, d2d = 0;
  for (unsigned s = 0; s < slots_; ++s) h2d += h2d_[s], d2h += d2h_[s], d2d += d2d_[s];
  std::snprintf(line, sizeof line, "  bytes moved: host->device %llu, device->host %llu, device->device %llu\n",
                static_cast<unsigned long long>(h2d), static_cast<unsigned long long>(d2h),
                static_cast<unsigned long long>(d2d));
  out << line;
  for (const auto& t : facts.hostTime)
    if (std::string_view(t.entry) == "clEnqueueNDRangeKernel") {
      std::snprintf(line, sizeof line, "  host time per launch: %.1f us (%.1f us in %.1f vendor calls)\n",
                    t.totalNs / 1e3 / t.calls, t.driverNs / 1e3 / t.calls, double(t.driverCalls) / t.calls);
      out << line;
    }
  return out.str();
}

} // namespace clsplit::icd::runtime
