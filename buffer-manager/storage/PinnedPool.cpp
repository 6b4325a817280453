// PinnedPool: idle pinned buffers reused by size (best fit); a background thread pins what
// requests missed and evicts idle buffers when the capacity is reached.
#include "buffer-manager/storage/PinnedPool.h"

#include "buffer-manager/storage/StagingRing.h"

#include "support/Log.h"

#include <array>
#include <atomic>
#include <bit>
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
// An idle buffer serves a request up to this much smaller: a quarter wasted at most, or (for
// staging, whose blocks live only until a device writes their bytes again) up to twice its size.
bool fits(size_t buffer, size_t request, bool staging) {
  return buffer >= request && buffer - request <= (staging ? request : request / 4) + kGranule;
}
size_t roundUp(size_t size) { return (size + kGranule - 1) / kGranule * kGranule; }

// Small-block classes: kSmallestPinnedBlock << c for c < kClasses (the last holds kMinPinnedBytes).
constexpr unsigned kClasses = std::bit_width(kMinPinnedBytes / kSmallestPinnedBlock);
unsigned classOf(size_t size) {
  return size <= kSmallestPinnedBlock ? 0u : unsigned(std::bit_width((size - 1) / kSmallestPinnedBlock));
}
static_assert((kSmallestPinnedBlock << (kClasses - 1)) == kMinPinnedBytes);

struct Totals {
  std::atomic<uint64_t> pinnedNow{0}, peak{0}, buffersMade{0}, lends{0}, misses{0}, slabs{0};
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
  uint64_t slabCapacity = 0; // of `capacity`, for slabs

  std::mutex mutex;
  std::condition_variable wake, settled;
  std::multimap<size_t, Buffer> idle;
  std::multiset<size_t> requested; // sizes to pin (a miss asks once per size at a time; reserve more)
  bool working = false, stopping = false, warned = false;
  bool finished = false; // the thread has let go of every real object
  Stats stats;
  // Slabs for small blocks: each carved front to back (`used`), only the newest one still
  // carving; returned blocks wait in their class's free list.
  struct Slab {
    Buffer buffer;
    size_t used = 0;
  };
  std::vector<Slab> slabs;
  std::array<std::vector<std::byte*>, kClasses> freeBlocks;
  uint64_t slabBytes = 0;
  bool slabRequested = false;

  Buffer pin(size_t size);
  void unpin(const Buffer& b);
  void run();
};

PinnedPool::Shared::Buffer PinnedPool::Shared::pin(size_t size) {
  cl_int err = CL_SUCCESS;
  Buffer b;
  b.size = size;
  b.mem =
      device::call(&cl_icd_dispatch::clCreateBuffer, context.get(),
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
    wake.wait(lock, [&] { return stopping ? stats.lentBytes == 0 : !requested.empty() || slabRequested; });
    if (stopping || exiting) break; // the pool is gone and nothing is lent any more
    if (slabRequested) {            // within slabCapacity (lendSmall checked), never evicting
      working = true;
      stats.pinnedBytes += kSlabBytes, slabBytes += kSlabBytes; // reserved while pinning
      lock.unlock();
      Buffer b = exiting ? Buffer{} : pin(kSlabBytes);
      lock.lock();
      working = slabRequested = false;
      if (b.mem) {
        slabs.push_back({b, 0});
        ++stats.buffersMade, ++totals().buffersMade, ++stats.slabs, ++totals().slabs;
      } else {
        stats.pinnedBytes -= kSlabBytes;
        slabCapacity = 0; // refused once: small blocks stay pageable
        if (!std::exchange(warned, true))
          log().warn("pinned host memory: the driver refused {} bytes; those transfers stay pageable", kSlabBytes);
      }
      settled.notify_all();
      continue;
    }
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
    requested.erase(requested.find(size));
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
  auto slabsLeft = std::move(slabs);
  slabs.clear();
  lock.unlock();
  if (!exiting) {
    for (const auto& [size, b] : leftovers) unpin(b);
    for (const auto& slab : slabsLeft) unpin(slab.buffer);
    queue = {};
    context = {};
  }
  lock.lock();
  finished = true;
  settled.notify_all();
}

PinnedPool::PinnedPool(cl_context context, cl_device_id device, uint64_t capacity, uint64_t slabCapacity)
    : shared_(std::make_shared<Shared>()), ring_(std::make_unique<StagingRing>(*this)) {
  static std::once_flag hook;
  std::call_once(hook, [] { std::atexit([] { exiting = true; }); });
  auto& s = *shared_;
  s.context = device::RealContext::retainOf(context);
  s.capacity = capacity;
  s.slabCapacity = std::min(slabCapacity, capacity / 2) / kSlabBytes * kSlabBytes;
  cl_int err = CL_SUCCESS;
  s.queue = device::RealQueue::adopt(
      device::call(&cl_icd_dispatch::clCreateCommandQueue, context, device, cl_command_queue_properties(0), &err));
  if (err != CL_SUCCESS) {
    log().warn("pinned host memory: no queue to map with ({}); host copies stay pageable", err);
    s.capacity = s.slabCapacity = 0;
  }
  std::thread([state = shared_] { state->run(); }).detach(); // holds the state until it ends
}

PinnedPool::~PinnedPool() {
  ring_.reset(); // its blocks back first (those still in use come back when their commands end)
  std::unique_lock lock(shared_->mutex);
  shared_->stopping = true;
  shared_->wake.notify_all();
  // With nothing lent the thread unpins and ends now: wait for it, so that the pool's real
  // objects are gone when the pool is (the context's owner may release it next).
  if (shared_->stats.lentBytes == 0 && !exiting) shared_->settled.wait(lock, [&] { return shared_->finished; });
}

void PinnedPool::reserve(size_t size, unsigned count) {
  auto& s = *shared_;
  std::lock_guard lock(s.mutex);
  const size_t rounded = roundUp(size);
  for (unsigned i = 0; i < count && rounded * (i + 1) <= s.capacity; ++i) s.requested.insert(rounded);
  s.wake.notify_all();
}

void PinnedPool::reserveRing() { reserve(StagingRing::kChunkBytes, StagingRing::kBlocks); }

StagingRing& PinnedPool::ring() { return *ring_; }

std::shared_ptr<HostBlock> PinnedPool::lend(size_t size, bool staging) {
  if (size == 0) return nullptr;
  auto& s = *shared_;
  std::lock_guard lock(s.mutex);
  auto it = s.idle.lower_bound(size);
  if (it == s.idle.end() || !fits(it->first, size, staging)) {
    ++s.stats.misses, ++totals().misses;
    if (roundUp(size) <= s.capacity && !s.requested.contains(roundUp(size))) {
      s.requested.insert(roundUp(size));
      s.wake.notify_all();
    }
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

std::shared_ptr<HostBlock> PinnedPool::lendSmall(size_t size) {
  if (size == 0 || size > kMinPinnedBytes) return nullptr;
  auto& s = *shared_;
  const unsigned c = classOf(size);
  const size_t bytes = kSmallestPinnedBlock << c;
  std::lock_guard lock(s.mutex);
  std::byte* block = nullptr;
  if (!s.freeBlocks[c].empty()) {
    block = s.freeBlocks[c].back();
    s.freeBlocks[c].pop_back();
  } else if (!s.slabs.empty() && s.slabs.back().used + bytes <= kSlabBytes) {
    block = s.slabs.back().buffer.data + s.slabs.back().used; // every class a multiple of the smallest
    s.slabs.back().used += bytes;
  } else {
    ++s.stats.misses, ++totals().misses;
    if (!s.slabRequested && s.slabBytes + kSlabBytes <= s.slabCapacity) {
      s.slabRequested = true;
      s.wake.notify_all();
    }
    return nullptr;
  }
  s.stats.lentBytes += bytes;
  ++s.stats.lends, ++totals().lends;
  return HostBlock::lend(block, size, [state = shared_, block, c, bytes] {
    std::lock_guard lock(state->mutex);
    state->stats.lentBytes -= bytes;
    state->freeBlocks[c].push_back(block);
    if (state->stopping) state->wake.notify_all();
  });
}

void PinnedPool::settle() {
  std::unique_lock lock(shared_->mutex);
  shared_->settled.wait(lock,
                        [&] { return shared_->requested.empty() && !shared_->slabRequested && !shared_->working; });
}

cl_context PinnedPool::context() const { return shared_->context.get(); }

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
  s.slabs = t.slabs;
  return s;
}

std::shared_ptr<HostBlock> allocateHostBlock(PinnedPool* pool, size_t size) {
  if (pool && size >= kMinPinnedBytes)
    if (auto block = pool->lend(size)) return block;
  return HostBlock::allocate(size);
}

std::shared_ptr<HostBlock> allocateStagingBlock(PinnedPool* pool, size_t size) {
  if (pool && size < kMinPinnedBytes)
    if (auto block = pool->lendSmall(size)) return block;
  if (pool && size >= kMinPinnedBytes)
    if (auto block = pool->lend(size, /*staging=*/true)) return block;
  return HostBlock::allocate(size);
}

} // namespace clsplit::buffer
