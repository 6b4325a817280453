// The non-kernel commands of a queue, planned on the buffers' storages: each returns the fence
// of its own work. Callers (the API layer) validate arguments, hold the context's planning lock
// and turn the fence into the application's event.
#pragma once

#include "device/Fence.h"
#include "icd/objects/Mem.h"
#include "icd/objects/Queue.h"
#include "icd/runtime/Rect.h" // Rect and rectRows, which the commands' callers use too

#include <array>
#include <optional>
#include <vector>

namespace clsplit::icd::runtime {

using device::FenceRef;

// The last step of a blocking read that went through pinned memory (readBuffer's `readBack`):
// the device writes a pinned block, and the caller's thread copies it into the application's
// memory once it is there. NVIDIA's OpenCL reads a small result into pageable memory ~10 us
// slower than into pinned memory (a staging thread of its own, measured on an H200); a direct
// blocking read avoids that cost in the driver, which clsplit cannot use: it would wait while
// holding the planning lock.
class PinnedReadBack {
public:
  PinnedReadBack(FenceRef deviceRead, std::shared_ptr<buffer::HostBlock> block, void* dst, size_t size,
                 std::shared_ptr<device::HostFence> done)
      : deviceRead_(std::move(deviceRead)), block_(std::move(block)), dst_(dst), size_(size), done_(std::move(done)) {}
  PinnedReadBack(const PinnedReadBack&) = delete;
  PinnedReadBack& operator=(const PinnedReadBack&) = delete;
  // The block goes back to its pool only once the device has written it.
  ~PinnedReadBack() { finish(); }
  // Waits for the device's read (call it without the planning lock), copies the bytes out and
  // completes the command's fence (the one readBuffer returned).
  void finish();

private:
  FenceRef deviceRead_;
  std::shared_ptr<buffer::HostBlock> block_;
  void* dst_;
  size_t size_;
  std::shared_ptr<device::HostFence> done_;
};

// Reads at most this many bytes through pinned memory when the read blocks: above it the
// driver's own staging streams and the extra copy would cost more than the latency it saves.
constexpr size_t kPinnedReadBackMaxBytes = 1 << 20;

// `readBack`, for a blocking read: where the read may go through pinned memory (PinnedReadBack),
// which the caller then finishes after releasing the planning lock.
FenceRef readBuffer(Queue& q, Mem& mem, size_t offset, size_t size, void* ptr, std::vector<FenceRef> waits,
                    std::optional<PinnedReadBack>* readBack = nullptr);
FenceRef writeBuffer(Queue& q, Mem& mem, size_t offset, size_t size, const void* ptr, std::vector<FenceRef> waits);
FenceRef copyBuffer(Queue& q, Mem& src, Mem& dst, size_t srcOffset, size_t dstOffset, size_t size,
                    std::vector<FenceRef> waits);
FenceRef fillBuffer(Queue& q, Mem& mem, const void* pattern, size_t patternSize, size_t offset, size_t size,
                    std::vector<FenceRef> waits);
FenceRef readBufferRect(Queue& q, Mem& mem, const Rect& buffer, const Rect& host, const std::array<size_t, 3>& region,
                        void* ptr, std::vector<FenceRef> waits);
FenceRef writeBufferRect(Queue& q, Mem& mem, const Rect& buffer, const Rect& host, const std::array<size_t, 3>& region,
                         const void* ptr, std::vector<FenceRef> waits);
FenceRef copyBufferRect(Queue& q, Mem& src, Mem& dst, const Rect& srcRect, const Rect& dstRect,
                        const std::array<size_t, 3>& region, std::vector<FenceRef> waits);
// Returns the mapped pointer; `done` completes when the data is there.
void* mapBuffer(Queue& q, Mem& mem, cl_map_flags flags, size_t offset, size_t size, std::vector<FenceRef> waits,
                FenceRef& done);
FenceRef unmapBuffer(Queue& q, Mem& mem, void* pointer, std::vector<FenceRef> waits);

} // namespace clsplit::icd::runtime
