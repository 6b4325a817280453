// Host memory holding bytes of a buffer: an immutable version made by clsplit (a host write, a
// staged cross-vendor copy), or the application's own memory for CL_MEM_USE_HOST_PTR buffers.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <memory>

namespace clsplit::buffer {

// Host memory clsplit owns right now, in bytes (tests check that it returns to zero).
inline std::atomic<size_t> liveHostBytes{0};

class HostBlock {
public:
  // Owned pageable memory, page-aligned from 64 KiB on (alignment keeps DMA from it
  // efficient; below, a transfer costs its latency anyway, and rounding a 4-byte halo up to a
  // page made a program that enqueues far ahead hold 8 KiB per queued exchange).
  static std::shared_ptr<HostBlock> allocate(size_t size) {
    void* p = size >= 64 * 1024 ? std::aligned_alloc(4096, (size + 4095) / 4096 * 4096) : std::malloc(size ? size : 1);
    if (!p) throw std::bad_alloc();
    return std::shared_ptr<HostBlock>(new HostBlock(static_cast<std::byte*>(p), size, [p] { std::free(p); }));
  }
  // Pinned memory lent by a pool (PinnedPool.h): `giveBack` returns it, from whichever thread
  // drops the last reference, so it must not call into a driver.
  static std::shared_ptr<HostBlock> lend(std::byte* data, size_t size, std::function<void()> giveBack) {
    auto block = std::shared_ptr<HostBlock>(new HostBlock(data, size, std::move(giveBack)));
    block->pinned_ = true;
    return block;
  }
  // The application's memory (CL_MEM_USE_HOST_PTR): never freed by clsplit.
  static std::shared_ptr<HostBlock> wrap(void* memory, size_t size) {
    return std::shared_ptr<HostBlock>(new HostBlock(static_cast<std::byte*>(memory), size, nullptr));
  }
  ~HostBlock() {
    if (release_) {
      release_();
      liveHostBytes -= size_;
    }
  }
  HostBlock(const HostBlock&) = delete;
  HostBlock& operator=(const HostBlock&) = delete;

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  bool owned() const { return static_cast<bool>(release_); }
  // Pinned: devices DMA from it when their commands run (pageable memory, NVIDIA copies when
  // the command is enqueued, BufferStorage::copyFromHost).
  bool pinned() const { return pinned_; }

private:
  HostBlock(std::byte* data, size_t size, std::function<void()> release)
      : data_(data), size_(size), release_(std::move(release)) {
    if (release_) liveHostBytes += size_;
  }
  std::byte* data_;
  size_t size_;
  std::function<void()> release_;
  bool pinned_ = false;
};

} // namespace clsplit::buffer
