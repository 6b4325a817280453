// Test-only fault injection (CLSPLIT_TEST_FAULTS): makes chosen real enqueue calls fail on a
// chosen device as a device out of resources would, so tests can check that clsplit recovers
// (runs the work elsewhere) or reports the error, and never leaves data incoherent.
//
// Rules: `CALL@DEVICE:N` fails the N-th CALL (counting from 1) whose queue is on DEVICE (the
// index `clsplit --list-devices` shows); `CALL@DEVICE:N+` fails that one and every later one.
// CALL is one of clEnqueueNDRangeKernel, clEnqueueReadBuffer, clEnqueueWriteBuffer,
// clEnqueueCopyBuffer. Several rules are separated by commas.
#pragma once

#include "device/OpenCL.h"

#include <atomic>
#include <string>
#include <type_traits>
#include <vector>

namespace clsplit::device {

namespace detail {
extern std::atomic<bool> faultsEnabled;
bool injectFault(const char* call, const void* queue);
} // namespace detail

// Parses `spec` (empty: no faults) against the real devices' handles (index = position).
// Returns false, with the reason in `error`, for a malformed spec.
bool configureFaults(const std::string& spec, const std::vector<cl_device_id>& devices, std::string* error);

// Whether this call (an entry point of the dispatch table, on `owner`) must fail now.
template <class Slot>
bool faultInjected(Slot cl_icd_dispatch::*slot, const void* owner) {
  if (!detail::faultsEnabled.load(std::memory_order_relaxed)) return false;
#define CLSPLIT_FAULTABLE(name)                                                                                        \
  if constexpr (std::is_same_v<Slot, decltype(cl_icd_dispatch::name)>)                                                 \
    if (slot == &cl_icd_dispatch::name) return detail::injectFault(#name, owner);
  CLSPLIT_FAULTABLE(clEnqueueNDRangeKernel)
  CLSPLIT_FAULTABLE(clEnqueueReadBuffer)
  CLSPLIT_FAULTABLE(clEnqueueWriteBuffer)
  CLSPLIT_FAULTABLE(clEnqueueCopyBuffer)
#undef CLSPLIT_FAULTABLE
  return false;
}

} // namespace clsplit::device
