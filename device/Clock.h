// The host clock every profiling timestamp is expressed in (ns, monotonic).
#pragma once

#include <chrono>
#include <cstdint>

namespace clsplit::device {

inline uint64_t hostNowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

} // namespace clsplit::device
