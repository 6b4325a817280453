// Wall-clock timing of a workload's timed region (steady clock: immune to clock adjustments).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace clsplit::bench {

class Stopwatch {
public:
  Stopwatch() : Start(std::chrono::steady_clock::now()) {}
  void restart() { Start = std::chrono::steady_clock::now(); }
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count(); }

private:
  std::chrono::steady_clock::time_point Start;
};

/// The calling thread's scheduler statistics (Linux /proc/thread-self/schedstat): time on a CPU,
/// time runnable but waiting for one (preempted), and timeslices. Tells a thread's own cost from
/// time lost to other threads when a region's wall-clock time grows. All zero elsewhere.
struct ThreadSchedStat {
  uint64_t RunNs = 0, WaitNs = 0, Slices = 0;
  static ThreadSchedStat now() {
    ThreadSchedStat s;
    if (std::FILE* f = std::fopen("/proc/thread-self/schedstat", "r")) {
      unsigned long long run = 0, wait = 0, slices = 0;
      if (std::fscanf(f, "%llu %llu %llu", &run, &wait, &slices) == 3) s = {run, wait, slices};
      std::fclose(f);
    }
    return s;
  }
  ThreadSchedStat operator-(const ThreadSchedStat& o) const {
    return {RunNs - o.RunNs, WaitNs - o.WaitNs, Slices - o.Slices};
  }
};

} // namespace clsplit::bench
