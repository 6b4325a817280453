// StagingRing: the pinned blocks large moves between devices cycle through.
#include "buffer-manager/storage/StagingRing.h"

#include "buffer-manager/storage/PinnedPool.h"

#include <atomic>

namespace clsplit::buffer {

namespace {
std::atomic<uint64_t> totalMoves{0}, totalBytes{0};
} // namespace

StagingRing::Totals StagingRing::processTotals() { return {totalMoves.load(), totalBytes.load()}; }

void StagingRing::Hold::moved(uint64_t bytes) {
  ++totalMoves;
  totalBytes += bytes;
}

StagingRing::Hold StagingRing::hold() {
  std::unique_lock lock(mutex_);
  // Takes what the pool has pinned so far (it pins the ring's blocks when the pool is made);
  // blocks once taken stay with the ring.
  while (blocks_.size() < kBlocks) {
    auto block = pool_.lend(kChunkBytes, /*staging=*/true);
    if (!block) break;
    blocks_.push_back({std::move(block), {}});
  }
  if (blocks_.size() < 2) return Hold(nullptr, {}); // no overlap to gain yet
  return Hold(this, std::move(lock));
}

StagingRing::Block& StagingRing::Hold::next() {
  auto& ring = *ring_;
  Block& b = ring.blocks_[ring.nextBlock_];
  ring.nextBlock_ = (ring.nextBlock_ + 1) % ring.blocks_.size();
  return b;
}

} // namespace clsplit::buffer
