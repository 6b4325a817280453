// DeviceMemory: per-device accounting of clsplit's buffer copies, and eviction by least recent use.
#include "buffer-manager/storage/DeviceMemory.h"

#include <algorithm>
#include <atomic>

namespace clsplit::buffer {

namespace {
std::atomic<uint64_t> gPeak{0}, gCap{0}, gWindows{0}, gEvictions{0};

void raise(std::atomic<uint64_t>& to, uint64_t value) {
  uint64_t now = to.load(std::memory_order_relaxed);
  while (now < value && !to.compare_exchange_weak(now, value, std::memory_order_relaxed)) {}
}
} // namespace

DeviceMemory::Totals DeviceMemory::processTotals() {
  return {gPeak.load(), gCap.load(), gWindows.load(), gEvictions.load()};
}

void DeviceMemory::noteWindow() { gWindows.fetch_add(1, std::memory_order_relaxed); }

DeviceMemory::DeviceMemory(WindowPolicy policy, std::map<cl_device_id, Limits> limits)
    : policy_(policy), limits_(std::move(limits)) {}

uint64_t DeviceMemory::cap(cl_device_id device) const {
  std::lock_guard lock(mutex_);
  auto it = limits_.find(device);
  return it == limits_.end() ? UINT64_MAX : it->second.cap;
}

uint64_t DeviceMemory::maxAlloc(cl_device_id device) const {
  std::lock_guard lock(mutex_);
  auto it = limits_.find(device);
  return it == limits_.end() ? UINT64_MAX : it->second.maxAlloc;
}

uint64_t DeviceMemory::used(cl_device_id device) const {
  std::lock_guard lock(mutex_);
  auto it = used_.find(device);
  return it == used_.end() ? 0 : it->second;
}

bool DeviceMemory::fits(cl_device_id device, uint64_t bytes) const {
  std::lock_guard lock(mutex_);
  auto limits = limits_.find(device);
  if (limits == limits_.end()) return true;
  auto used = used_.find(device);
  const uint64_t now = used == used_.end() ? 0 : used->second, cap = limits->second.cap;
  return now <= cap && bytes <= cap - now;
}

void DeviceMemory::charge(cl_device_id device, int64_t bytes) {
  std::lock_guard lock(mutex_);
  auto& used = used_[device];
  used = bytes < 0 && uint64_t(-bytes) > used ? 0 : used + uint64_t(bytes);
  raise(gPeak, used);
  if (auto it = limits_.find(device); it != limits_.end() && it->second.cap != UINT64_MAX) {
    uint64_t cap = gCap.load(std::memory_order_relaxed);
    while ((cap == 0 || it->second.cap < cap) &&
           !gCap.compare_exchange_weak(cap, it->second.cap, std::memory_order_relaxed)) {}
  }
}

void DeviceMemory::enroll(const std::shared_ptr<Evictable>& owner, cl_device_id device) {
  std::lock_guard lock(mutex_);
  auto& h = holders_[{device, owner.get()}];
  if (h.expired()) h = owner; // new, or an earlier owner at the same address
}

bool DeviceMemory::makeRoom(cl_device_id device, uint64_t bytes, QueueProvider& queues, TransferLog* log,
                            uint64_t spareRecent) {
  if (fits(device, bytes)) return true;
  // Candidates under the lock, evictions outside it (an eviction charges the release).
  std::vector<std::pair<uint64_t, std::shared_ptr<Evictable>>> candidates;
  {
    std::lock_guard lock(mutex_);
    const uint64_t now = epoch(), before = now > spareRecent ? now - spareRecent : 0;
    for (auto it = holders_.lower_bound({device, nullptr}); it != holders_.end() && it->first.first == device;) {
      if (auto live = it->second.lock()) {
        const uint64_t used = live->lastUse(device);
        if (used < before) candidates.emplace_back(used, std::move(live));
        ++it;
      } else {
        it = holders_.erase(it);
      }
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [lastUse, owner] : candidates) {
    if (owner->evict(device, queues, log)) gEvictions.fetch_add(1, std::memory_order_relaxed);
    if (fits(device, bytes)) return true;
  }
  return fits(device, bytes);
}

} // namespace clsplit::buffer
