// StagingRing: a few pinned blocks that large moves between devices through host memory cycle
// through in chunks, so that one chunk's write into the destination overlaps the next chunk's
// read out of the source, and no move waits for memory to be allocated, faulted in or pinned.
#pragma once

#include "buffer-manager/storage/HostBlock.h"
#include "device/Fence.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace clsplit::buffer {

class PinnedPool;

// Measured between two H200 (`split-read --move`, docs/benchmarks.md, nineteenth session): 32 MiB
// moved through a fresh pageable block (as a staging block was) ran at 1.0 GB/s, NVIDIA faulting
// its pages in during the copy; through reused pageable memory 4 GB/s; through one pinned buffer
// 27 GB/s; through a ring of 4 x 4 MiB pinned blocks 46-50 GB/s (reads and writes overlapping).
class StagingRing {
public:
  static constexpr size_t kChunkBytes = size_t(4) << 20;
  static constexpr unsigned kBlocks = 4;
  // Moves at least this large go through the ring; smaller ones are staged in pinned slab
  // blocks (PinnedPool::lendSmall). A staged block of its own is kept as a host version until
  // its bytes change, so a move repeated every launch (2spmv's vector halves, 1.8 MB) missed the
  // pool each time and went through fresh pageable memory at 1 GB/s.
  static constexpr size_t kMinMoveBytes = size_t(64) << 10;

  explicit StagingRing(PinnedPool& pool) : pool_(pool) {}

  struct Block {
    std::shared_ptr<HostBlock> memory;        // kChunkBytes, pinned
    std::vector<device::FenceRef> inUseUntil; // the commands of the last chunk staged through it
  };

  // The ring, held for one move (other moves wait for it): its blocks in turn.
  class Hold {
  public:
    // Whether the ring has blocks (the pool pins them in the background: none at first).
    explicit operator bool() const { return ring_ != nullptr; }
    // The next block: a chunk staged through it first waits for its inUseUntil, then replaces it.
    Block& next();
    // Counts one move of `bytes` (the run report's pinned_host.ring_moves / ring_bytes).
    void moved(uint64_t bytes);

  private:
    friend class StagingRing;
    Hold(StagingRing* ring, std::unique_lock<std::mutex> lock) : ring_(ring), lock_(std::move(lock)) {}
    StagingRing* ring_;
    std::unique_lock<std::mutex> lock_;
  };
  Hold hold();

  struct Totals {
    uint64_t moves = 0, bytes = 0;
  };
  // Summed over every ring of the process.
  static Totals processTotals();

private:
  PinnedPool& pool_;
  std::mutex mutex_;
  std::vector<Block> blocks_;
  unsigned nextBlock_ = 0;
};

} // namespace clsplit::buffer
