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
  // The OpenCL function of each slot, for the report: named by whoever builds a dispatch table
  // from the list of slots (icd/api/Dispatch.cpp), so that this layer need not include it.
  static inline const char* slotNames[kSlots]{};
  template <class Slot>
  static size_t slotIndex(Slot cl_icd_dispatch::*slot) {
    static const cl_icd_dispatch probe{};
    return size_t(reinterpret_cast<const char*>(&(probe.*slot)) - reinterpret_cast<const char*>(&probe)) /
           sizeof(void*);
  }

  // clsplit's completion callbacks on the vendors' threads: a vendor runs them one after the
  // other, so their time delays every later completion that is bridged through one (a command
  // waiting on another vendor's or context's command, a host wait on clsplit's own fences).
  static inline std::atomic<uint64_t> callbacks{0}, callbackNs{0}, callbackMaxNs{0};
  static void noteCallback(uint64_t ns) {
    callbacks.fetch_add(1, std::memory_order_relaxed);
    callbackNs.fetch_add(ns, std::memory_order_relaxed);
    uint64_t seen = callbackMaxNs.load(std::memory_order_relaxed);
    while (seen < ns && !callbackMaxNs.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {}
  }
  // Times one callback while a report is asked for.
  class CallbackTimer {
  public:
    CallbackTimer() : start_(on() ? hostNowNs() : 0) {}
    ~CallbackTimer() {
      if (start_) noteCallback(hostNowNs() - start_);
    }
    CallbackTimer(const CallbackTimer&) = delete;
    CallbackTimer& operator=(const CallbackTimer&) = delete;

  private:
    uint64_t start_;
  };
};

} // namespace clsplit::device
