// Host time spent inside real vendor calls, per thread: the run report subtracts it from the
// time of each API entry point to show clsplit's own host cost (docs/run-report.md, host_time).
// Off unless a report is asked for; when off, a call costs one relaxed load more.
#pragma once

#include "device/Clock.h"
#include "device/OpenCL.h"

#include <atomic>
#include <cstdint>

namespace clsplit::device {

struct DriverClock {
  static inline std::atomic<bool> enabled{false};
  static inline thread_local uint64_t spentNs = 0; // this thread's time inside vendor calls
  static inline thread_local uint64_t calls = 0;   // and their number

  static bool on() { return enabled.load(std::memory_order_relaxed); }

  // Per dispatch-table slot, on every thread: which vendor calls a run makes, and how many.
  static constexpr size_t kSlots = sizeof(cl_icd_dispatch) / sizeof(void*);
  static inline std::atomic<uint64_t> callsBySlot[kSlots]{};
  static inline std::atomic<uint64_t> nsBySlot[kSlots]{};
  template <class Slot>
  static size_t slotIndex(Slot cl_icd_dispatch::*slot) {
    static const cl_icd_dispatch probe{};
    return size_t(reinterpret_cast<const char*>(&(probe.*slot)) - reinterpret_cast<const char*>(&probe)) /
           sizeof(void*);
  }
};

} // namespace clsplit::device
