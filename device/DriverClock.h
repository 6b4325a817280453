// Host time spent inside real vendor calls, per thread: the run report subtracts it from the
// time of each API entry point to show clsplit's own host cost (docs/run-report.md, host_time).
// Off unless a report is asked for; when off, a call costs one relaxed load more.
#pragma once

#include "device/Clock.h"

#include <atomic>
#include <cstdint>

namespace clsplit::device {

struct DriverClock {
  static inline std::atomic<bool> enabled{false};
  static inline thread_local uint64_t spentNs = 0; // this thread's time inside vendor calls
  static inline thread_local uint64_t calls = 0;   // and their number

  static bool on() { return enabled.load(std::memory_order_relaxed); }
};

} // namespace clsplit::device
