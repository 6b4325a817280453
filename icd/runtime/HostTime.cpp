// The registry of per-entry-point host time counters.
#include "icd/runtime/HostTime.h"

#include <algorithm>
#include <deque>
#include <mutex>

namespace clsplit::icd::runtime {

namespace {

std::mutex registryMutex;
std::deque<EntryHostTime>& registry() {
  static auto* entries = new std::deque<EntryHostTime>; // never destroyed: read by exit hooks
  return *entries;
}

} // namespace

EntryHostTime* HostTime::add(const char* entry) {
  std::lock_guard lock(registryMutex);
  auto& e = registry().emplace_back();
  e.entry = entry;
  return &e;
}

std::vector<HostTime::Snapshot> HostTime::snapshot() {
  std::vector<Snapshot> out;
  {
    std::lock_guard lock(registryMutex);
    for (const auto& e : registry())
      if (uint64_t calls = e.calls.load())
        out.push_back({e.entry, calls, e.totalNs.load(), e.driverNs.load(), e.driverCalls.load()});
  }
  std::sort(out.begin(), out.end(), [](const Snapshot& a, const Snapshot& b) { return a.totalNs > b.totalNs; });
  return out;
}

} // namespace clsplit::icd::runtime
