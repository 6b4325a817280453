// Pinned host memory for host versions and cross-vendor staging: mapped CL_MEM_ALLOC_HOST_PTR
// buffers of a discrete device's context, kept and reused, so that device DMA reads and writes
// them directly (drivers stage pageable memory through pinned buffers of their own, at a
// fraction of the bandwidth). Pinning is slow (NVIDIA: ~8 ms for 16 MiB, 20x the copy it would
// speed up), so it never happens on the caller's path: a request no idle buffer fits gets
// pageable memory now, and a background thread pins a buffer of that size for the next one.
// Transfers that recur (halo exchanges, repeated uploads) thus run from pinned memory from
// their second occurrence on, and one-off transfers cost what they would without the pool.
#pragma once

#include "buffer-manager/storage/HostBlock.h"
#include "device/Real.h"

#include <memory>

namespace clsplit::buffer {

class StagingRing;

class PinnedPool {
public:
  struct Stats {
    uint64_t pinnedBytes = 0; // held now, lent or idle
    uint64_t lentBytes = 0;   // in blocks in use now
    uint64_t buffersMade = 0; // pinned buffers created (each costs a driver allocation)
    uint64_t lends = 0;       // blocks lent (always from an idle buffer)
    uint64_t misses = 0;      // requests no idle buffer fitted (served pageable)
    uint64_t slabs = 0;       // slabs made for small blocks (included in buffersMade)
  };

  // A pool pinning through `device`'s real `context`, holding at most `capacity` bytes.
  // `slabCapacity` of them for small blocks (lendSmall; 0: small blocks stay pageable).
  PinnedPool(cl_context context, cl_device_id device, uint64_t capacity, uint64_t slabCapacity = 0);
  // With no block lent, waits until the pinning thread has released every pinned buffer and
  // real object; otherwise returns at once, and the thread finishes once the blocks are back.
  ~PinnedPool();
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;

  // A pinned block of at least `size` bytes from an idle buffer, or null (the caller uses
  // pageable memory; a buffer of this size is then pinned in the background, room permitting).
  // An idle buffer up to a quarter larger serves it; up to twice as large for `staging` (bytes
  // moving between devices: a one-off move, such as a split given up, would otherwise go
  // through pageable memory while a larger buffer, pinned for the program's first upload, idles).
  std::shared_ptr<HostBlock> lend(size_t size, bool staging = false);
  // A pinned block of `size` (under kMinPinnedBytes) cut from a slab: pinned buffers of
  // kSlabBytes made in the background, at most `slabCapacity` bytes of them, never evicted,
  // their blocks reused by size class. Null when no block is free (pageable then; a slab is
  // pinned for the next request while there is room). Halo exchanges between discrete GPUs
  // stage small blocks every launch, and NVIDIA copies pageable memory when a write is
  // enqueued, so a write from a pageable block must wait host-side (a user event) for the read
  // that fills it, while one from pinned memory waits on the read itself (`split-read --hops`,
  // two H100, 16 KiB hops each way: 300 us per iteration pageable behind user events, 34-60 us
  // pinned behind the reads' events, 11 us for the kernels alone).
  std::shared_ptr<HostBlock> lendSmall(size_t size);
  // Pins `count` buffers of `size` in the background (within the capacity), for lend to find.
  void reserve(size_t size, unsigned count);
  // Pins the staging ring's blocks in the background: contexts whose devices move data through
  // host memory do it once, so that the first large move (a split given up) is already fast.
  void reserveRing();
  // Large moves between devices through host memory cycle through these blocks (StagingRing.h).
  StagingRing& ring();
  // Blocks until the background pinning asked for so far is done (tests, benchmarks).
  void settle();
  Stats stats() const;
  // The real context whose devices' DMA reads and writes the blocks directly.
  cl_context context() const;
  // Summed over every pool of the process (for the run report); pinnedBytes is the peak.
  static Stats processTotals();

private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
  std::unique_ptr<StagingRing> ring_; // its blocks go back to the pool when it goes
};

// Blocks smaller than this stay pageable: their transfers cost the fixed latency whatever the
// memory, and a program that enqueues far ahead keeps every staging block of its queued halo
// exchanges alive, so pinning them made one driver allocation per exchange.
constexpr size_t kMinPinnedBytes = 64 * 1024;
// Small blocks are cut from pinned buffers of this size (one driver allocation per 16 to 4096
// blocks), in power-of-two classes from kSmallestPinnedBlock up.
constexpr size_t kSlabBytes = 1024 * 1024;
constexpr size_t kSmallestPinnedBlock = 256;

// A block of `size` bytes: pinned from `pool` when it has an idle buffer that fits and the
// block is large enough to gain from it, pageable otherwise.
std::shared_ptr<HostBlock> allocateHostBlock(PinnedPool* pool, size_t size);
// The same for staging between devices, where small blocks are pinned too (from slabs).
std::shared_ptr<HostBlock> allocateStagingBlock(PinnedPool* pool, size_t size);

} // namespace clsplit::buffer
