// PinnedPool: idle pinned buffers reused by size (best fit); a background thread pins what
// requests missed and evicts idle buffers when the capacity is reached.
#include "buffer-manager/storage/PinnedPool.h"

#include "support/Log.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace clsplit::buffer {

namespace {

constexpr size_t kGranule = 4096;
// An idle buffer serves a request up to this much smaller (a quarter wasted at most).
bool fits(size_t buffer, size_t request) { return buffer >= request && buffer - request <= request / 4 + kGranule; }
size_t roundUp(size_t size) { return (size + kGranule - 1) / kGranule * kGranule; }

struct Totals {
  std::atomic<uint64_t> pinnedNow{0}, peak{0}, buffersMade{0}, lends{0}, misses{0};
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

// No vendor calls once the process exits (their state may be gone).
std::atomic<bool> exiting{false};

} // namespace

struct PinnedPool::Shared {
  struct Buffer {
    cl_mem mem = nullptr;
    std::byte* data = nullptr;
    size_t size = 0;
  };
  device::RealContext context;
  device::RealQueue queue; // private: maps never wait for the application's commands
  uint64_t capacity = 0;

  std::mutex mutex;
  std::condition_variable wake, settled;
  std::multimap<size_t, Buffer> idle;
  std::set<size_t> requested; // sizes to pin (each once at a time)
  bool working = false, stopping = false, warned = false;
  bool finished = false; // the thread has let go of every real object
  Stats stats;

  Buffer pin(size_t size);
  void unpin(const Buffer& b);
  void run();
};

PinnedPool::Shared::Buffer PinnedPool::Shared::pin(size_t size) {
  cl_int err = CL_SUCCESS;
  Buffer b;
  b.size = size;
  b.mem = device::call(&cl_icd_dispatch::clCreateBuffer, context.get(),
                       cl_mem_flags(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR), size, static_cast<void*>(nullptr), &err);
  if (err != CL_SUCCESS || !b.mem) return {};
  void* p = device::call(&cl_icd_dispatch::clEnqueueMapBuffer, queue.get(), b.mem, cl_bool(CL_TRUE),
                         cl_map_flags(CL_MAP_READ | CL_MAP_WRITE), size_t(0), size, 0u,
                         static_cast<const cl_event*>(nullptr), static_cast<cl_event*>(nullptr), &err);
  if (err != CL_SUCCESS || !p) {
    device::call(&cl_icd_dispatch::clReleaseMemObject, b.mem);
    return {};
  }
  b.data = static_cast<std::byte*>(p);
  addPinned(static_cast<int64_t>(size));
  return b;
}

void PinnedPool::Shared::unpin(const Buffer& b) {
  addPinned(-static_cast<int64_t>(b.size));
  device::call(&cl_icd_dispatch::clEnqueueUnmapMemObject, queue.get(), b.mem, static_cast<void*>(b.data), 0u,
               static_cast<const cl_event*>(nullptr), static_cast<cl_event*>(nullptr));
  device::call(&cl_icd_dispatch::clReleaseMemObject, b.mem);
}

// The pinning thread: pins requested sizes (evicting idle buffers, largest first, to stay within
// the capacity); once the pool is gone and every block is back, unpins everything and ends.
void PinnedPool::Shared::run() {
  std::unique_lock lock(mutex);
  for (;;) {
    wake.wait(lock, [&] { return stopping ? stats.lentBytes == 0 : !requested.empty(); });
    if (stopping || exiting) break; // the pool is gone and nothing is lent any more
    const size_t size = *requested.begin();
    std::vector<Buffer> evicted;
    while (stats.pinnedBytes + size > capacity && !idle.empty()) {
      auto largest = std::prev(idle.end());
      stats.pinnedBytes -= largest->first;
      evicted.push_back(largest->second);
      idle.erase(largest);
    }
    const bool room = stats.pinnedBytes + size <= capacity;
    if (room) stats.pinnedBytes += size; // reserved while pinning
    working = true;
    lock.unlock();
    for (const auto& b : evicted) unpin(b);
    Buffer b = room && !exiting ? pin(size) : Buffer{};
    lock.lock();
    working = false;
    requested.erase(size);
    if (b.mem) {
      idle.emplace(size, b);
      ++stats.buffersMade, ++totals().buffersMade;
    } else if (room) {
      stats.pinnedBytes -= size;
      if (!std::exchange(warned, true))
        log().warn("pinned host memory: the driver refused {} bytes; those transfers stay pageable", size);
    }
    settled.notify_all();
  }
  working = false;
  requested.clear();
  settled.notify_all();
  auto leftovers = std::move(idle);
  idle.clear();
  lock.unlock();
  if (!exiting) {
    for (const auto& [size, b] : leftovers) unpin(b);
    queue = {};
    context = {};
  }
  lock.lock();
  finished = true;
  settled.notify_all();
}

PinnedPool::PinnedPool(cl_context context, cl_device_id device, uint64_t capacity)
    : shared_(std::make_shared<Shared>()) {
  static std::once_flag hook;
  std::call_once(hook, [] { std::atexit([] { exiting = true; }); });
  auto& s = *shared_;
  s.context = device::RealContext::retainOf(context);
  s.capacity = capacity;
  cl_int err = CL_SUCCESS;
  s.queue = device::RealQueue::adopt(device::call(&cl_icd_dispatch::clCreateCommandQueue, context, device,
                                                  cl_command_queue_properties(0), &err));
  if (err != CL_SUCCESS) {
    log().warn("pinned host memory: no queue to map with ({}); host copies stay pageable", err);
    s.capacity = 0;
  }
  std::thread([state = shared_] { state->run(); }).detach(); // holds the state until it ends
}

PinnedPool::~PinnedPool() {
  std::unique_lock lock(shared_->mutex);
  shared_->stopping = true;
  shared_->wake.notify_all();
  // With nothing lent the thread unpins and ends now: wait for it, so that the pool's real
  // objects are gone when the pool is (the context's owner may release it next).
  if (shared_->stats.lentBytes == 0 && !exiting)
    shared_->settled.wait(lock, [&] { return shared_->finished; });
}

std::shared_ptr<HostBlock> PinnedPool::lend(size_t size) {
  if (size == 0) return nullptr;
  auto& s = *shared_;
  std::lock_guard lock(s.mutex);
  auto it = s.idle.lower_bound(size);
  if (it == s.idle.end() || !fits(it->first, size)) {
    ++s.stats.misses, ++totals().misses;
    if (roundUp(size) <= s.capacity && s.requested.insert(roundUp(size)).second) s.wake.notify_all();
    return nullptr;
  }
  Shared::Buffer b = it->second;
  s.idle.erase(it);
  s.stats.lentBytes += b.size;
  ++s.stats.lends, ++totals().lends;
  return HostBlock::lend(b.data, size, [state = shared_, b] {
    std::lock_guard lock(state->mutex);
    state->stats.lentBytes -= b.size;
    state->idle.emplace(b.size, b);
    if (state->stopping) state->wake.notify_all();
  });
}

void PinnedPool::settle() {
  std::unique_lock lock(shared_->mutex);
  shared_->settled.wait(lock, [&] { return shared_->requested.empty() && !shared_->working; });
}

PinnedPool::Stats PinnedPool::stats() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->stats;
}

PinnedPool::Stats PinnedPool::processTotals() {
  auto& t = totals();
  Stats s;
  s.pinnedBytes = t.peak;
  s.buffersMade = t.buffersMade;
  s.lends = t.lends;
  s.misses = t.misses;
  return s;
}

std::shared_ptr<HostBlock> allocateHostBlock(PinnedPool* pool, size_t size) {
  if (pool && size >= kMinPinnedBytes)
    if (auto block = pool->lend(size)) return block;
  return HostBlock::allocate(size);
}

} // namespace clsplit::buffer
