// A minimal parallel-for for the CPU references: large verified sizes (jacobi2d 8192^2, sotl
// with a million atoms) would otherwise spend longer verifying than the devices computing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <thread>
#include <vector>

namespace clsplit::bench {

/// Threads used by the references: $BENCH_THREADS, else every hardware thread.
inline unsigned workerCount() {
  if (const char* env = std::getenv("BENCH_THREADS"); env && std::atoi(env) > 0)
    return static_cast<unsigned>(std::atoi(env));
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Calls body(chunkBegin, chunkEnd) on disjoint contiguous chunks of [begin, end) in parallel.
/// The body must not throw.
template <typename Body>
void parallelFor(size_t begin, size_t end, Body&& body) {
  if (end <= begin) return;
  size_t count = end - begin;
  size_t workers = std::min<size_t>(workerCount(), count);
  if (workers <= 1) {
    body(begin, end);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(workers);
  size_t chunk = (count + workers - 1) / workers;
  for (size_t w = 0; w < workers; ++w) {
    size_t b = begin + w * chunk, e = std::min(end, b + chunk);
    if (b >= e) break;
    threads.emplace_back([&body, b, e] { body(b, e); });
  }
  for (auto& t : threads) t.join();
}

} // namespace clsplit::bench
