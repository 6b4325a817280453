// Host time per API entry point, split into clsplit's own time and the time inside vendor
// calls (device::DriverClock): the run report's "host_time", i.e. what clsplit adds to each call
// on the application's thread. Collected only while a report is asked for.
#pragma once

#include "device/DriverClock.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace clsplit::icd::runtime {

struct EntryHostTime {
  const char* entry;
  std::atomic<uint64_t> calls{0}, totalNs{0}, driverNs{0}, driverCalls{0};
};

class HostTime {
public:
  static void enable() { device::DriverClock::enabled.store(true, std::memory_order_relaxed); }
  static bool on() { return device::DriverClock::on(); }

  // The counters of one entry point (registered on first use; lives until exit).
  template <class Tag>
  static EntryHostTime& of() {
    static EntryHostTime* counters = add(Tag::name);
    return *counters;
  }

  struct Snapshot {
    std::string entry;
    uint64_t calls, totalNs, driverNs, driverCalls;
  };
  // Entry points called at least once, most total time first.
  static std::vector<Snapshot> snapshot();

private:
  static EntryHostTime* add(const char* entry);
};

// Times one call of an entry point: nested vendor time is what DriverClock gathered meanwhile
// on this thread.
class EntryTimer {
public:
  explicit EntryTimer(EntryHostTime& counters)
      : counters_(counters), startNs_(device::hostNowNs()), driverAtStart_(device::DriverClock::spentNs),
        callsAtStart_(device::DriverClock::calls) {}
  ~EntryTimer() {
    counters_.calls.fetch_add(1, std::memory_order_relaxed);
    counters_.totalNs.fetch_add(device::hostNowNs() - startNs_, std::memory_order_relaxed);
    counters_.driverNs.fetch_add(device::DriverClock::spentNs - driverAtStart_, std::memory_order_relaxed);
    counters_.driverCalls.fetch_add(device::DriverClock::calls - callsAtStart_, std::memory_order_relaxed);
  }
  EntryTimer(const EntryTimer&) = delete;
  EntryTimer& operator=(const EntryTimer&) = delete;

private:
  EntryHostTime& counters_;
  uint64_t startNs_, driverAtStart_, callsAtStart_;
};

} // namespace clsplit::icd::runtime
