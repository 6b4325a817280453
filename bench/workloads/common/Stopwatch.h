// Wall-clock timing of a workload's timed region (steady clock: immune to clock adjustments).
#pragma once

#include <chrono>

namespace clsplit::bench {

class Stopwatch {
public:
  Stopwatch() : Start(std::chrono::steady_clock::now()) {}
  void restart() { Start = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  }

private:
  std::chrono::steady_clock::time_point Start;
};

} // namespace clsplit::bench
