// Pinned host memory for host versions and cross-vendor staging: mapped CL_MEM_ALLOC_HOST_PTR
// buffers of a discrete device's context, kept and reused, so that device DMA reads and writes
// them directly (drivers stage pageable memory through pinned buffers of their own, at a
// fraction of the bandwidth, and pinning afresh per transfer costs more than it saves).
#pragma once

#include "buffer-manager/storage/HostBlock.h"
#include "device/Real.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace clsplit::buffer {

class PinnedPool : public std::enable_shared_from_this<PinnedPool> {
public:
  struct Stats {
    uint64_t pinnedBytes = 0;   // held now, lent or idle
    uint64_t lentBytes = 0;     // in blocks in use now
    uint64_t buffersMade = 0;   // pinned buffers created (each costs a driver allocation)
    uint64_t lends = 0;         // blocks lent
    uint64_t reuses = 0;        // blocks served from an idle buffer
    uint64_t refusals = 0;      // requests left to pageable memory (pool full or pinning failed)
  };

  // A pool pinning through `device`'s real `context`, holding at most `capacity` bytes.
  PinnedPool(cl_context context, cl_device_id device, uint64_t capacity);
  ~PinnedPool();
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;

  // A pinned block of at least `size` bytes, or null when the pool is full or the driver
  // refuses (the caller falls back to pageable memory). May block while a buffer is mapped.
  std::shared_ptr<HostBlock> lend(size_t size);
  Stats stats() const;
  // Summed over every pool of the process (for the run report); pinnedBytes is the peak.
  static Stats processTotals();

private:
  struct Buffer {
    cl_mem mem = nullptr;
    std::byte* data = nullptr;
    size_t size = 0;
  };
  Buffer pin(size_t size);
  void unpin(const Buffer& b);
  void giveBack(const Buffer& b, size_t lent);

  device::RealContext context_;
  device::RealQueue queue_; // private: maps never wait for the application's commands
  uint64_t capacity_;
  mutable std::mutex mutex_;
  std::multimap<size_t, Buffer> idle_;
  Stats stats_;
  bool warned_ = false;
};

// Blocks smaller than this stay pageable: their transfers cost the fixed latency whatever the
// memory, and a program that enqueues far ahead keeps every staging block of its queued halo
// exchanges alive, so pinning them made one driver allocation per exchange.
constexpr size_t kMinPinnedBytes = 64 * 1024;

// A block of `size` bytes: pinned from `pool` when it has one to give and the block is large
// enough to gain from it, pageable otherwise.
std::shared_ptr<HostBlock> allocateHostBlock(PinnedPool* pool, size_t size);

} // namespace clsplit::buffer
