// bulkCopy: std::memcpy below 64 MiB; above, up to 8 threads (never more than the machine's
// hardware threads), each copying one contiguous part of at least 32 MiB.
#include "support/BulkCopy.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace clsplit {

namespace {
constexpr size_t kParallelFrom = size_t(64) << 20;
constexpr size_t kPartAtLeast = size_t(32) << 20;
constexpr unsigned kMostThreads = 8;
} // namespace

void bulkCopy(void* dst, const void* src, size_t size) {
  // Small copies first: hardware_concurrency() reads /sys (glibc's get_nprocs), 9 us a call here,
  // which a blocking read of a few bytes per launch paid on the H200 machine.
  if (size < kParallelFrom) {
    std::memcpy(dst, src, size);
    return;
  }
  static const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const size_t parts = std::min<size_t>({size / kPartAtLeast, hardware, kMostThreads});
  if (parts < 2) {
    std::memcpy(dst, src, size);
    return;
  }
  auto* to = static_cast<std::byte*>(dst);
  auto* from = static_cast<const std::byte*>(src);
  // Page-aligned parts, so that no page is first touched by two threads.
  const size_t part = (size / parts + 4095) / 4096 * 4096;
  std::vector<std::thread> helpers;
  helpers.reserve(parts - 1);
  try {
    for (size_t at = part; at < size; at += part) {
      const size_t n = std::min(part, size - at);
      helpers.emplace_back([to, from, at, n] { std::memcpy(to + at, from + at, n); });
    }
  } catch (const std::system_error&) {
    // No thread to be had: this thread copies what no helper took.
    const size_t covered = part * (helpers.size() + 1);
    if (covered < size) std::memcpy(to + covered, from + covered, size - covered);
  }
  std::memcpy(to, from, std::min(part, size));
  for (auto& t : helpers) t.join();
}

} // namespace clsplit
