// PinnedPool: pinned buffers made on demand, reused by size (best fit), evicted when full.
#include "buffer-manager/storage/PinnedPool.h"

#include "support/Log.h"

#include <atomic>

#include <utility>

namespace clsplit::buffer {

namespace {
constexpr size_t kGranule = 4096;
// An idle buffer serves a request up to this much smaller (a quarter wasted at most).
bool fits(size_t buffer, size_t request) { return buffer >= request && buffer - request <= request / 4 + kGranule; }

struct Totals {
  std::atomic<uint64_t> pinnedNow{0}, peak{0}, buffersMade{0}, lends{0}, reuses{0}, refusals{0};
};
Totals& totals() {
  static Totals t;
  return t;
}
void addPinned(int64_t bytes) {
  auto& t = totals();
  uint64_t now = t.pinnedNow.fetch_add(static_cast<uint64_t>(bytes)) + static_cast<uint64_t>(bytes);
  uint64_t peak = t.peak.load();
  while (now > peak && !t.peak.compare_exchange_weak(peak, now)) {}
}
} // namespace

PinnedPool::PinnedPool(cl_context context, cl_device_id device, uint64_t capacity)
    : context_(device::RealContext::retainOf(context)), capacity_(capacity) {
  cl_int err = CL_SUCCESS;
  queue_ = device::RealQueue::adopt(device::call(&cl_icd_dispatch::clCreateCommandQueue, context, device,
                                                 cl_command_queue_properties(0), &err));
  if (err != CL_SUCCESS) {
    log().warn("pinned host memory: no queue to map with ({}); host versions stay pageable", err);
    capacity_ = 0;
  }
}

PinnedPool::~PinnedPool() {
  // Runs wherever the last lent block was dropped (maybe a driver callback): only
  // non-blocking calls here.
  for (const auto& [size, b] : idle_) unpin(b);
}

PinnedPool::Buffer PinnedPool::pin(size_t size) {
  cl_int err = CL_SUCCESS;
  Buffer b;
  b.size = size;
  b.mem = device::call(&cl_icd_dispatch::clCreateBuffer, context_.get(),
                       cl_mem_flags(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR), size, static_cast<void*>(nullptr), &err);
  if (err != CL_SUCCESS || !b.mem) return {};
  void* p = device::call(&cl_icd_dispatch::clEnqueueMapBuffer, queue_.get(), b.mem, cl_bool(CL_TRUE),
                         cl_map_flags(CL_MAP_READ | CL_MAP_WRITE), size_t(0), size, 0u,
                         static_cast<const cl_event*>(nullptr), static_cast<cl_event*>(nullptr), &err);
  if (err != CL_SUCCESS || !p) {
    device::call(&cl_icd_dispatch::clReleaseMemObject, b.mem);
    return {};
  }
  b.data = static_cast<std::byte*>(p);
  return b;
}

void PinnedPool::unpin(const Buffer& b) {
  addPinned(-static_cast<int64_t>(b.size));
  device::call(&cl_icd_dispatch::clEnqueueUnmapMemObject, queue_.get(), b.mem, static_cast<void*>(b.data), 0u,
               static_cast<const cl_event*>(nullptr), static_cast<cl_event*>(nullptr));
  device::call(&cl_icd_dispatch::clReleaseMemObject, b.mem);
}

std::shared_ptr<HostBlock> PinnedPool::lend(size_t size) {
  if (size == 0) return nullptr;
  const size_t rounded = (size + kGranule - 1) / kGranule * kGranule;
  Buffer b;
  std::vector<Buffer> evicted;
  {
    std::lock_guard lock(mutex_);
    if (rounded > capacity_) {
      ++stats_.refusals, ++totals().refusals;
      return nullptr;
    }
    if (auto it = idle_.lower_bound(size); it != idle_.end() && fits(it->first, size)) {
      b = it->second;
      idle_.erase(it);
      ++stats_.reuses, ++totals().reuses;
    } else {
      // Make room: idle buffers go first, largest first (they fit the fewest requests).
      while (stats_.pinnedBytes + rounded > capacity_ && !idle_.empty()) {
        auto last = std::prev(idle_.end());
        stats_.pinnedBytes -= last->first;
        evicted.push_back(last->second);
        idle_.erase(last);
      }
      if (stats_.pinnedBytes + rounded > capacity_) {
        ++stats_.refusals, ++totals().refusals;
        for (const auto& e : evicted) idle_.emplace(e.size, e), stats_.pinnedBytes += e.size;
        return nullptr;
      }
      stats_.pinnedBytes += rounded; // reserved while pinning outside the lock
    }
    stats_.lentBytes += b.mem ? b.size : rounded;
    ++stats_.lends;
  }
  for (const auto& e : evicted) unpin(e);
  if (!b.mem) {
    b = pin(rounded);
    std::lock_guard lock(mutex_);
    if (!b.mem) {
      stats_.pinnedBytes -= rounded;
      stats_.lentBytes -= rounded;
      --stats_.lends;
      ++stats_.refusals, ++totals().refusals;
      if (!std::exchange(warned_, true)) log().warn("pinned host memory: the driver refused {} bytes; using pageable memory", rounded);
      return nullptr;
    }
    ++stats_.buffersMade, ++totals().buffersMade;
    addPinned(static_cast<int64_t>(b.size));
  }
  ++totals().lends;
  return HostBlock::lend(b.data, size, [self = shared_from_this(), b] { self->giveBack(b, b.size); });
}

void PinnedPool::giveBack(const Buffer& b, size_t lent) {
  std::lock_guard lock(mutex_);
  stats_.lentBytes -= lent;
  idle_.emplace(b.size, b);
}

PinnedPool::Stats PinnedPool::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

PinnedPool::Stats PinnedPool::processTotals() {
  auto& t = totals();
  Stats s;
  s.pinnedBytes = t.peak;
  s.buffersMade = t.buffersMade;
  s.lends = t.lends;
  s.reuses = t.reuses;
  s.refusals = t.refusals;
  return s;
}

std::shared_ptr<HostBlock> allocateHostBlock(PinnedPool* pool, size_t size) {
  if (pool && size >= kMinPinnedBytes)
    if (auto block = pool->lend(size)) return block;
  return HostBlock::allocate(size);
}

} // namespace clsplit::buffer
