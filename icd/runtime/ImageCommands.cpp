// Image commands: on one device holding the whole image, with the vendor's image commands.
#include "icd/runtime/ImageCommands.h"

#include "icd/runtime/CommandSteps.h"
#include "icd/runtime/Transfers.h"

namespace clsplit::icd::runtime {

namespace {

using steps::append;
using steps::enqueueOn;
using steps::record;
using steps::withGate;

// The image's bytes in its storage (a 1-D buffer image's: a window of its buffer's).
RangeSet all(const Mem& image) { return RangeSet{image.toRoot(ByteRange{0, image.size()})}; }

// The device an image command runs on: the default device if it holds the whole image, else
// one that does, else (only the host holds it) the default device.
unsigned slotFor(const Mem& image) {
  const auto& storage = image.storage();
  const unsigned preferred = Runtime::get().singleSlot();
  const buffer::HolderMask holders = storage.holdersOfAll(all(image));
  if (holders & buffer::bit(buffer::deviceHolder(preferred))) return preferred;
  for (unsigned s = 0; s < storage.slotCount(); ++s)
    if (holders & buffer::bit(buffer::deviceHolder(s))) return s;
  return preferred;
}

// Brings the whole image to `slot` (what it lacks), recording the moves.
void holdWhole(Queue& q, Mem& image, unsigned slot) {
  buffer::TransferLog log;
  acquire(image.storage(), all(image), slot, q, &log);
  record(log);
}

// After a command on `slot` wrote (part of) the image, which `slot` held whole: `slot` holds
// the only valid copy.
void wroteOn(Mem& image, unsigned slot, const FenceRef& f) {
  image.storage().noteWrite(slot, f); // the whole copy: ordered with every later access
  image.storage().publishWrite(all(image), slot, f, 0);
}

} // namespace

size_t hostBytes(const Mem& image, const ImageBox& box, size_t rowPitch, size_t slicePitch) {
  const size_t pixel = image.image()->pixel();
  // A 1-D array's layers are its rows in host memory (slice pitch between layers).
  const bool layersAreRows = image.image()->type() == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  const size_t rows = layersAreRows ? 1 : box.region[1];
  const size_t slices = layersAreRows ? box.region[1] : box.region[2];
  return (slices - 1) * slicePitch + (rows - 1) * rowPitch + box.region[0] * pixel;
}

FenceRef readImage(Queue& q, Mem& image, const ImageBox& box, size_t rowPitch, size_t slicePitch, void* ptr,
                   std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  const size_t bytes = hostBytes(image, box, rowPitch, slicePitch);
  append(waits, q.hostHazards(ptr, bytes, true));
  const unsigned slot = slotFor(image);
  holdWhole(q, image, slot);
  append(waits, image.storage().validAfter(slot));
  FenceRef f = enqueueOn(q, slot, waits, "clEnqueueReadImage",
                         [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                           return device::call(&cl_icd_dispatch::clEnqueueReadImage, real, image.realFor(slot),
                                               cl_bool(CL_FALSE), box.origin.data(), box.region.data(), rowPitch,
                                               slicePitch, ptr, n, list, event);
                         });
  image.storage().noteRead(slot, f);
  q.noteHostAccess(ptr, bytes, true, f);
  return f;
}

FenceRef writeImage(Queue& q, Mem& image, const ImageBox& box, size_t rowPitch, size_t slicePitch, const void* ptr,
                    std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  const size_t bytes = hostBytes(image, box, rowPitch, slicePitch);
  append(waits, q.hostHazards(ptr, bytes, false));
  const unsigned slot = slotFor(image);
  holdWhole(q, image, slot); // the pixels outside the box keep their values
  append(waits, image.storage().validAfter(slot));
  append(waits, image.storage().writeHazards(slot));
  FenceRef f = enqueueOn(q, slot, waits, "clEnqueueWriteImage",
                         [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                           return device::call(&cl_icd_dispatch::clEnqueueWriteImage, real, image.realFor(slot),
                                               cl_bool(CL_FALSE), box.origin.data(), box.region.data(), rowPitch,
                                               slicePitch, ptr, n, list, event);
                         });
  wroteOn(image, slot, f);
  q.noteHostAccess(ptr, bytes, false, f);
  return f;
}

FenceRef copyImage(Queue& q, Mem& src, Mem& dst, const ImageBox& srcBox, const std::array<size_t, 3>& dstOrigin,
                   std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  const unsigned slot = slotFor(src);
  holdWhole(q, src, slot);
  if (&src != &dst) holdWhole(q, dst, slot);
  append(waits, src.storage().validAfter(slot));
  append(waits, dst.storage().validAfter(slot));
  append(waits, dst.storage().writeHazards(slot));
  FenceRef f =
      enqueueOn(q, slot, waits, "clEnqueueCopyImage",
                [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                  return device::call(&cl_icd_dispatch::clEnqueueCopyImage, real, src.realFor(slot), dst.realFor(slot),
                                      srcBox.origin.data(), dstOrigin.data(), srcBox.region.data(), n, list, event);
                });
  src.storage().noteRead(slot, f);
  wroteOn(dst, slot, f);
  return f;
}

FenceRef fillImage(Queue& q, Mem& image, const void* color, const ImageBox& box, std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  const unsigned slot = slotFor(image);
  holdWhole(q, image, slot);
  append(waits, image.storage().validAfter(slot));
  append(waits, image.storage().writeHazards(slot));
  FenceRef f = enqueueOn(q, slot, waits, "clEnqueueFillImage",
                         [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                           return device::call(&cl_icd_dispatch::clEnqueueFillImage, real, image.realFor(slot), color,
                                               box.origin.data(), box.region.data(), n, list, event);
                         });
  wroteOn(image, slot, f);
  return f;
}

FenceRef copyImageToBuffer(Queue& q, Mem& src, Mem& dst, const ImageBox& srcBox, size_t dstOffset,
                           std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  const size_t bytes = srcBox.region[0] * srcBox.region[1] * srcBox.region[2] * src.image()->pixel();
  const ByteRange to = dst.toRoot(ByteRange{dstOffset, dstOffset + bytes});
  const unsigned slot = slotFor(src);
  holdWhole(q, src, slot);
  {
    buffer::TransferLog log;
    dst.storage().reserveWhole(slot, q, &log);
    record(log);
  }
  append(waits, src.storage().validAfter(slot));
  append(waits, dst.storage().writeHazards(slot));
  FenceRef f = enqueueOn(q, slot, waits, "clEnqueueCopyImageToBuffer",
                         [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                           return device::call(&cl_icd_dispatch::clEnqueueCopyImageToBuffer, real, src.realFor(slot),
                                               dst.storage().deviceBuffer(slot), srcBox.origin.data(),
                                               srcBox.region.data(), static_cast<size_t>(to.lo), n, list, event);
                         });
  src.storage().noteRead(slot, f);
  dst.storage().noteWrite(slot, f);
  dst.storage().publishWrite(RangeSet{to}, slot, f, 0);
  return f;
}

FenceRef copyBufferToImage(Queue& q, Mem& src, Mem& dst, size_t srcOffset, const ImageBox& dstBox,
                           std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  const size_t bytes = dstBox.region[0] * dstBox.region[1] * dstBox.region[2] * dst.image()->pixel();
  const ByteRange from = src.toRoot(ByteRange{srcOffset, srcOffset + bytes});
  const unsigned slot = slotFor(dst);
  holdWhole(q, dst, slot);
  buffer::TransferLog log;
  src.storage().reserveWhole(slot, q, &log);
  acquire(src.storage(), RangeSet{from}, slot, q, &log);
  record(log);
  append(waits, src.storage().validAfter(slot, RangeSet{from}));
  append(waits, dst.storage().validAfter(slot));
  append(waits, dst.storage().writeHazards(slot));
  FenceRef f =
      enqueueOn(q, slot, waits, "clEnqueueCopyBufferToImage",
                [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                  return device::call(&cl_icd_dispatch::clEnqueueCopyBufferToImage, real,
                                      src.storage().deviceBuffer(slot), dst.realFor(slot), static_cast<size_t>(from.lo),
                                      dstBox.origin.data(), dstBox.region.data(), n, list, event);
                });
  src.storage().noteRead(slot, RangeSet{from}, f);
  wroteOn(dst, slot, f);
  return f;
}

void* mapImage(Queue& q, Mem& image, cl_map_flags flags, const ImageBox& box, size_t& rowPitch, size_t& slicePitch,
               std::vector<FenceRef> waits, FenceRef& done) {
  const auto& layout = *image.image();
  Mem::Mapping mapping{nullptr, 0, 0, flags, nullptr, {}};
  mapping.box = box;
  const bool layersAreRows = layout.type() == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  const bool layered =
      layersAreRows || layout.type() == CL_MEM_OBJECT_IMAGE2D_ARRAY || layout.type() == CL_MEM_OBJECT_IMAGE3D;
  if ((image.flags() & CL_MEM_USE_HOST_PTR) && image.hostPtr()) {
    // The pointer lies in the application's memory, at the box's place in its own layout.
    mapping.rowPitch = image.hostRowPitch();
    mapping.slicePitch = image.hostSlicePitch();
    const size_t slice = layersAreRows ? box.origin[1] : box.origin[2];
    const size_t row = layersAreRows ? 0 : box.origin[1];
    mapping.pointer = static_cast<std::byte*>(image.hostPtr()) + slice * mapping.slicePitch + row * mapping.rowPitch +
                      box.origin[0] * layout.pixel();
  } else {
    mapping.rowPitch = box.region[0] * layout.pixel();
    mapping.slicePitch = layered ? mapping.rowPitch * (layersAreRows ? 1 : box.region[1]) : 0;
    mapping.block = image.storage().allocateHost(hostBytes(image, box, mapping.rowPitch, mapping.slicePitch));
    mapping.pointer = mapping.block->data();
  }
  mapping.size = hostBytes(image, box, mapping.rowPitch, mapping.slicePitch);
  rowPitch = mapping.rowPitch;
  slicePitch = mapping.slicePitch;
  if (flags & CL_MAP_WRITE_INVALIDATE_REGION)
    done = device::allOf(withGate(q, std::move(waits)));
  else {
    done = readImage(q, image, box, mapping.rowPitch, mapping.slicePitch, mapping.pointer, std::move(waits));
    if (mapping.block) image.storage().retainUntil(done, mapping.block);
  }
  void* pointer = mapping.pointer;
  image.addMapping(std::move(mapping));
  return pointer;
}

FenceRef unmapImage(Queue& q, Mem& image, Mem::Mapping m, std::vector<FenceRef> waits) {
  if (!(m.flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))) return device::allOf(withGate(q, std::move(waits)));
  FenceRef f = writeImage(q, image, m.box, m.rowPitch, m.slicePitch, m.pointer, std::move(waits));
  if (m.block) image.storage().retainUntil(f, m.block); // the write reads it
  return f;
}

} // namespace clsplit::icd::runtime
