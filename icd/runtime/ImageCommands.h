// The image commands of a queue. An image moves between devices whole (its storage is a buffer
// of its packed bytes: buffer-manager/storage/ImageLayout.h); each command runs, with the
// vendor's own image command, on one device that holds the whole image, brought there first
// where needed. Callers (the API layer) validate arguments and hold the planning lock.
#pragma once

#include "buffer-manager/storage/ImageLayout.h"
#include "device/Fence.h"
#include "icd/objects/Mem.h"
#include "icd/objects/Queue.h"

#include <vector>

namespace clsplit::icd::runtime {

using buffer::ImageBox;
using device::FenceRef;

// `rowPitch`/`slicePitch`: the host memory's layout (as the application passed them, resolved).
FenceRef readImage(Queue& q, Mem& image, const ImageBox& box, size_t rowPitch, size_t slicePitch, void* ptr,
                   std::vector<FenceRef> waits);
FenceRef writeImage(Queue& q, Mem& image, const ImageBox& box, size_t rowPitch, size_t slicePitch, const void* ptr,
                    std::vector<FenceRef> waits);
FenceRef copyImage(Queue& q, Mem& src, Mem& dst, const ImageBox& srcBox, const std::array<size_t, 3>& dstOrigin,
                   std::vector<FenceRef> waits);
FenceRef fillImage(Queue& q, Mem& image, const void* color, const ImageBox& box, std::vector<FenceRef> waits);
FenceRef copyImageToBuffer(Queue& q, Mem& src, Mem& dst, const ImageBox& srcBox, size_t dstOffset,
                           std::vector<FenceRef> waits);
FenceRef copyBufferToImage(Queue& q, Mem& src, Mem& dst, size_t srcOffset, const ImageBox& dstBox,
                           std::vector<FenceRef> waits);
// Returns the mapped pointer and its pitches; `done` completes when the data is there.
void* mapImage(Queue& q, Mem& image, cl_map_flags flags, const ImageBox& box, size_t& rowPitch, size_t& slicePitch,
               std::vector<FenceRef> waits, FenceRef& done);
// Unmaps an image mapping (Mem::takeMapping's), writing back what a write mapping changed.
FenceRef unmapImage(Queue& q, Mem& image, Mem::Mapping mapping, std::vector<FenceRef> waits);

// Bytes of host memory a box with these pitches spans.
size_t hostBytes(const Mem& image, const ImageBox& box, size_t rowPitch, size_t slicePitch);

} // namespace clsplit::icd::runtime
