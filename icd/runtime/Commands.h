// The non-kernel commands of a queue, planned on the buffers' storages: each returns the fence
// of its own work. Callers (the API layer) validate arguments, hold the context's planning lock
// and turn the fence into the application's event.
#pragma once

#include "device/Fence.h"
#include "icd/objects/Mem.h"
#include "icd/objects/Queue.h"

#include <array>
#include <vector>

namespace clsplit::icd::runtime {

using device::FenceRef;

// A 3-D rectangle of a buffer or of host memory (clEnqueue*BufferRect).
struct Rect {
  std::array<size_t, 3> origin;
  size_t rowPitch;
  size_t slicePitch;
};

FenceRef readBuffer(Queue& q, Mem& mem, size_t offset, size_t size, void* ptr,
                    std::vector<FenceRef> waits);
FenceRef writeBuffer(Queue& q, Mem& mem, size_t offset, size_t size, const void* ptr,
                     std::vector<FenceRef> waits);
FenceRef copyBuffer(Queue& q, Mem& src, Mem& dst, size_t srcOffset, size_t dstOffset, size_t size,
                    std::vector<FenceRef> waits);
FenceRef fillBuffer(Queue& q, Mem& mem, const void* pattern, size_t patternSize, size_t offset,
                    size_t size, std::vector<FenceRef> waits);
FenceRef readBufferRect(Queue& q, Mem& mem, const Rect& buffer, const Rect& host,
                        const std::array<size_t, 3>& region, void* ptr, std::vector<FenceRef> waits);
FenceRef writeBufferRect(Queue& q, Mem& mem, const Rect& buffer, const Rect& host,
                         const std::array<size_t, 3>& region, const void* ptr,
                         std::vector<FenceRef> waits);
FenceRef copyBufferRect(Queue& q, Mem& src, Mem& dst, const Rect& srcRect, const Rect& dstRect,
                        const std::array<size_t, 3>& region, std::vector<FenceRef> waits);
// Returns the mapped pointer; `done` completes when the data is there.
void* mapBuffer(Queue& q, Mem& mem, cl_map_flags flags, size_t offset, size_t size,
                std::vector<FenceRef> waits, FenceRef& done);
FenceRef unmapBuffer(Queue& q, Mem& mem, void* pointer, std::vector<FenceRef> waits);

// The byte ranges of a rectangle (rows), relative to the start of the object.
RangeSet rectRows(const Rect& rect, const std::array<size_t, 3>& region);

} // namespace clsplit::icd::runtime
