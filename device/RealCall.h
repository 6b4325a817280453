// Calls into real vendor ICDs through their own dispatch tables (never through libOpenCL,
// which would load clsplit again): the table is the first word of every real handle.
#pragma once

#include "device/DriverClock.h"
#include "device/Error.h"
#include "device/FaultInjection.h"
#include "device/OpenCL.h"

#include <string>
#include <type_traits>

namespace clsplit::device {

inline const cl_icd_dispatch& dispatchOf(const void* realHandle) {
  return **static_cast<const cl_icd_dispatch* const*>(realHandle);
}

// Calls `slot` of the vendor that owns `owner` with `args` (owner need not be the first
// argument: clCreateContext's dispatch comes from a device, clWaitForEvents' from an event).
template <class Slot, class... A>
auto invoke(const void* owner, Slot cl_icd_dispatch::*slot, A... args) {
  auto fn = dispatchOf(owner).*slot;
  if (!fn) throw Error(CL_INVALID_OPERATION, "the vendor does not implement this entry point");
  if constexpr (std::is_same_v<decltype(fn(args...)), cl_int>)
    if (faultInjected(slot, owner)) return cl_int(CL_OUT_OF_RESOURCES);
  if constexpr (!std::is_void_v<decltype(fn(args...))>) {
    if (DriverClock::on()) {
      uint64_t start = hostNowNs();
      auto result = fn(args...);
      uint64_t ns = hostNowNs() - start;
      DriverClock::spentNs += ns;
      ++DriverClock::calls;
      const size_t index = DriverClock::slotIndex(slot);
      DriverClock::callsBySlot[index].fetch_add(1, std::memory_order_relaxed);
      DriverClock::nsBySlot[index].fetch_add(ns, std::memory_order_relaxed);
      return result;
    }
  }
  return fn(args...);
}

// The common case: the owner is the first argument.
template <class Slot, class H, class... A>
auto call(Slot cl_icd_dispatch::*slot, H handle, A... args) {
  return invoke(handle, slot, handle, args...);
}

// Turns a vendor error into an Error for the application, logged with what failed.
void check(cl_int status, const char* what);

} // namespace clsplit::device
