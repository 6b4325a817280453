// BufferStorage: lazy per-device allocation, transfer execution and directory upkeep.
#include "buffer-manager/storage/BufferStorage.h"

#include "buffer-manager/storage/StagingRing.h"

#include "device/Clock.h"
#include "device/Enqueue.h"
#include "device/HostExecutor.h"
#include "support/BulkCopy.h"
#include "support/Log.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace clsplit::buffer {

using device::FenceRef;
using device::WaitList;

namespace {

// Host blocks kept for transfers that may still run, beyond which completion is asked of the
// drivers (retainUntil).
constexpr uint64_t kRetainedBytesBeforeQuery = 16 << 20;

void addUnique(std::vector<FenceRef>& to, const FenceRef& f) {
  if (f && std::find(to.begin(), to.end(), f) == to.end()) to.push_back(f);
}

} // namespace

BufferStorage::BufferStorage(std::vector<StorageSlot> slots, uint64_t size, const void* initial, void* useHostPtr,
                             std::shared_ptr<PinnedPool> pinned, std::optional<ImageLayout> image,
                             std::shared_ptr<DeviceMemory> memory)
    : slots_(std::move(slots)), pinned_(std::move(pinned)), size_(size), useHostPtr_(useHostPtr),
      image_(std::move(image)), memory_(std::move(memory)), directory_(size, kHost, Version{}),
      devices_(slots_.size()) {
  RangeSet all = RangeSet::of(0, size);
  if (useHostPtr) {
    directory_.setOnly(all, kHost, Version{nullptr, HostBlock::wrap(useHostPtr, size), 0, 0});
  } else if (initial) {
    auto block = allocateHost(size);
    bulkCopy(block->data(), initial, size);
    directory_.setOnly(all, kHost, Version{nullptr, block, 0, 0});
  } else {
    // Undefined contents are valid everywhere: nothing ever needs moving for them.
    Version undefined;
    undefined.undefined = true;
    for (unsigned s = 0; s < slots_.size(); ++s) directory_.addCopy(all, deviceHolder(s), undefined);
  }
}

BufferStorage::~BufferStorage() {
  if (!memory_) return;
  for (unsigned s = 0; s < devices_.size(); ++s)
    if (devices_[s].buffer) memory_->charge(slots_[s].device, -static_cast<int64_t>(devices_[s].window.size()));
}

cl_mem BufferStorage::deviceBuffer(unsigned slot) {
  if (!devices_.at(slot).buffer) allocate(slot, ByteRange{0, size_});
  return devices_[slot].buffer.get();
}

void BufferStorage::allocate(unsigned slot, ByteRange window) {
  auto& copy = devices_.at(slot);
  cl_int err = CL_SUCCESS;
  cl_mem mem = nullptr;
  if (image_) {
    mem = device::call(&cl_icd_dispatch::clCreateImage, slots_[slot].context, image_->access(), &image_->format(),
                       &image_->desc(), static_cast<void*>(nullptr), &err);
    device::check(err, "clCreateImage (device copy of an image)");
  } else {
    mem = device::call(&cl_icd_dispatch::clCreateBuffer, slots_[slot].context, cl_mem_flags(CL_MEM_READ_WRITE),
                       static_cast<size_t>(window.size()), static_cast<void*>(nullptr), &err);
    device::check(err, "clCreateBuffer (device copy of a buffer)");
  }
  if (copy.buffer && memory_) memory_->charge(slots_[slot].device, -static_cast<int64_t>(copy.window.size()));
  copy.views.clear(); // sub-buffers of the old copy go before it
  copy.buffer = device::RealMem::adopt(mem);
  copy.window = window;
  if (memory_) {
    memory_->charge(slots_[slot].device, static_cast<int64_t>(window.size()));
    copy.lastUse = memory_->epoch();
    if (auto self = weak_from_this().lock()) memory_->enroll(self, slots_[slot].device);
  }
}

size_t BufferStorage::local(unsigned slot, uint64_t offset, uint64_t size) const {
  const ByteRange w = devices_[slot].window;
  if (!devices_[slot].buffer) return static_cast<size_t>(offset); // allocated whole by deviceBuffer()
  if (offset < w.lo || offset + size > w.hi)
    throw Error(CL_INVALID_OPERATION, "clsplit: bytes [" + std::to_string(offset) + ", " +
                                          std::to_string(offset + size) + ") are outside device slot " +
                                          std::to_string(slot) + "'s window of the buffer");
  return static_cast<size_t>(offset - w.lo);
}

void BufferStorage::markInUse() {
  if (!memory_) return;
  const uint64_t now = memory_->epoch();
  for (auto& copy : devices_) copy.lastUse = now;
}

uint64_t BufferStorage::lastUse(cl_device_id device) const {
  uint64_t last = 0;
  for (unsigned s = 0; s < slots_.size(); ++s)
    if (slots_[s].device == device && devices_[s].buffer) last = std::max(last, devices_[s].lastUse);
  return last;
}

BufferStorage::Room BufferStorage::defaultRoom(unsigned slot) const {
  if (!memory_ || image_ || memory_->policy() == WindowPolicy::Off) return Room::Whole;
  if (memory_->policy() == WindowPolicy::Always) return Room::Grow;
  const auto& copy = devices_[slot];
  const uint64_t held = copy.buffer ? copy.window.size() : 0;
  return memory_->fits(slots_[slot].device, size_ - std::min(held, size_)) ? Room::Whole : Room::Grow;
}

namespace {

// Window bounds: multiples of 4 KiB (kernels see the buffer's base, shifted by the window's
// start, at the alignment the vendor gave the window's own allocation).
constexpr uint64_t kWindowAlign = 4096;
// Commands over which a copy counts as in use by the program (DeviceMemory::makeRoom).
constexpr uint64_t kRecentEpochs = 16;

ByteRange aligned(ByteRange r, uint64_t size) {
  return ByteRange{r.lo / kWindowAlign * kWindowAlign,
                   std::min(size, (r.hi + kWindowAlign - 1) / kWindowAlign * kWindowAlign)};
}

} // namespace

void BufferStorage::reserve(unsigned slot, ByteRange need, Room mode, QueueProvider& queues, TransferLog* log) {
  auto& copy = devices_.at(slot);
  const ByteRange whole{0, size_};
  const bool windows = memory_ && !image_ && memory_->policy() != WindowPolicy::Off && size_ > kWindowAlign;
  if (!windows) {
    if (!copy.buffer) {
      if (memory_ && !memory_->makeRoom(slots_[slot].device, size_, queues, log))
        clsplit::log().warn("device slot {}: a copy of a {}-byte buffer exceeds the device memory clsplit may use "
                            "({} of {} bytes in use)",
                            slot, size_, memory_->used(slots_[slot].device), memory_->cap(slots_[slot].device));
      allocate(slot, whole);
    }
    if (memory_) copy.lastUse = memory_->epoch();
    return;
  }
  const cl_device_id dev = slots_[slot].device;
  need = ByteRange{std::min(need.lo, size_), std::min(need.hi, size_)};
  // A buffer the command does not touch here is still bound to it: a few bytes of room.
  if (need.empty())
    need = copy.buffer ? ByteRange{copy.window.lo, std::min(copy.window.lo + kWindowAlign, copy.window.hi)}
                       : ByteRange{0, kWindowAlign};
  const uint64_t held = copy.buffer ? copy.window.size() : 0;
  copy.lastUse = memory_->epoch(); // in use: never evicted to make room here
  auto covers = [&](ByteRange w) { return copy.buffer && w.lo <= need.lo && need.hi <= w.hi; };
  // Whether a copy of `bytes` can replace the current one (after evicting copies the command
  // does not use); no one allocation may exceed what the device allows.
  auto room = [&](uint64_t bytes, uint64_t spareRecent = 0) {
    if (bytes > memory_->maxAlloc(dev)) return false;
    return bytes <= held || memory_->makeRoom(dev, bytes - held, queues, log, spareRecent);
  };
  if (mode == Room::Whole && memory_->policy() == WindowPolicy::Auto) {
    if (copy.buffer && copy.window == whole) return;
    // Not at the cost of copies used lately (two kernels taking turns would evict each
    // other's buffers at every launch): a window then.
    if (room(size_, kRecentEpochs)) {
      resize(slot, whole, queues, log);
      return;
    }
  }
  const ByteRange exact = aligned(need, size_);
  // Some slack around the bytes asked for, so that a split that moves a little keeps its windows.
  const uint64_t slack = std::max(kWindowAlign, size_ / 32);
  const ByteRange roomy =
      aligned(ByteRange{exact.lo > slack ? exact.lo - slack : 0, std::min(size_, exact.hi + slack)}, size_);
  if (covers(copy.window)) {
    if (mode == Room::Tight && copy.window.size() > exact.size()) resize(slot, exact, queues, log);
    return;
  }
  auto withHeld = [&](ByteRange w) {
    return copy.buffer ? ByteRange{std::min(copy.window.lo, w.lo), std::max(copy.window.hi, w.hi)} : w;
  };
  std::vector<ByteRange> candidates;
  if (mode == Room::Tight)
    candidates = {exact};
  else
    candidates = {withHeld(roomy), withHeld(exact)};
  for (const ByteRange& w : candidates)
    if (room(w.size())) {
      resize(slot, w, queues, log);
      return;
    }
  if (exact.size() > memory_->maxAlloc(dev))
    throw Error(CL_MEM_OBJECT_ALLOCATION_FAILURE,
                "clsplit: device slot " + std::to_string(slot) + " needs " + std::to_string(exact.size()) +
                    " bytes of a " + std::to_string(size_) + "-byte buffer, more than its largest allocation (" +
                    std::to_string(memory_->maxAlloc(dev)) + " bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
  throw Error(CL_MEM_OBJECT_ALLOCATION_FAILURE,
              "clsplit: device slot " + std::to_string(slot) + " needs " + std::to_string(exact.size()) +
                  " bytes of a " + std::to_string(size_) + "-byte buffer, and the device's memory for clsplit (" +
                  std::to_string(memory_->cap(dev)) + " bytes, " + std::to_string(memory_->used(dev)) +
                  " in use by copies the command needs) cannot hold them");
}

void BufferStorage::resize(unsigned slot, ByteRange window, QueueProvider& queues, TransferLog* log) {
  auto& copy = devices_.at(slot);
  const Holder me = deviceHolder(slot);
  const ByteRange old = copy.buffer ? copy.window : ByteRange{0, 0};
  // 1. What `slot` alone holds outside the new window moves to the host; then it holds none of it.
  RangeSet outside;
  if (window.lo > 0) outside.add(ByteRange{0, window.lo});
  if (window.hi < size_) outside.add(ByteRange{window.hi, size_});
  std::vector<ByteRange> stage, undefined;
  directory_.visit(outside, [&](ByteRange r, const Cell<Version>& cell) {
    const Version* v = cell.tokenOf(me);
    if (!v || cell.copies.size() > 1) return;
    auto& to = v->undefined ? undefined : stage;
    if (!to.empty() && to.back().hi == r.lo)
      to.back().hi = r.hi;
    else
      to.push_back(r);
  });
  if (clsplit::log().should_log(spdlog::level::debug)) {
    uint64_t staged = 0;
    for (const ByteRange& r : stage) staged += r.size();
    clsplit::log().debug("device slot {}: a {}-byte buffer's copy [{}, {}) becomes [{}, {}) ({} bytes to the host)",
                         slot, size_, old.lo, old.hi, window.lo, window.hi, staged);
  }
  std::vector<FenceRef> staged;
  for (const ByteRange& r : stage) staged.push_back(stageToHost(r, slot, queues, log));
  // An eviction may stage bytes of a buffer the application has released, whose storage lives
  // only until the commands it had then complete: it lives until these reads have too (they
  // write into its host blocks).
  if (!staged.empty())
    if (auto self = weak_from_this().lock()) device::allOf(std::move(staged))->onComplete([self](cl_int) {});
  if (!undefined.empty()) {
    Version v;
    v.undefined = true;
    directory_.addCopy(RangeSet::fromRanges(std::move(undefined)), kHost, v);
  }
  if (!outside.empty()) directory_.drop(outside, me);
  // 2. The new copy, with the bytes of the old one it still has room for.
  if (window.empty()) {
    if (memory_ && copy.buffer) memory_->charge(slots_[slot].device, -static_cast<int64_t>(old.size()));
    copy.buffer = device::RealMem{};
    copy.window = ByteRange{0, 0};
    copy.views.clear();
    return;
  }
  if (window.size() < size_) DeviceMemory::noteWindow();
  device::RealMem previous = copy.buffer;
  const std::vector<FenceRef> written = previous ? validAfter(slot) : std::vector<FenceRef>{};
  allocate(slot, window);
  const ByteRange kept{std::max(old.lo, window.lo), std::min(old.hi, window.hi)};
  if (!previous || kept.empty()) return;
  FenceRef f =
      enqueueOn(slot, queues, written, false, "clEnqueueCopyBuffer (a device copy's window moves)",
                [&](cl_command_queue q, cl_uint n, const cl_event* waits, cl_event* event) {
                  return device::call(&cl_icd_dispatch::clEnqueueCopyBuffer, q, previous.get(), copy.buffer.get(),
                                      static_cast<size_t>(kept.lo - old.lo), static_cast<size_t>(kept.lo - window.lo),
                                      static_cast<size_t>(kept.size()), n, waits, event);
                });
  noteWrite(slot, f);
  (void)log;
}

uint64_t BufferStorage::evict(cl_device_id device, QueueProvider& queues, TransferLog* log) {
  if (image_) return 0;
  uint64_t freed = 0;
  for (unsigned s = 0; s < slots_.size(); ++s)
    if (slots_[s].device == device && devices_[s].buffer) {
      freed += devices_[s].window.size();
      clsplit::log().debug("device slot {}: the copy of a {}-byte buffer is evicted to make room", s, size_);
      resize(s, ByteRange{0, 0}, queues, log);
    }
  return freed;
}

namespace {

// The image commands of one run of whole rows: the first waits for the wait list, the last
// returns the event (a slot's real queues are in order, so it completes after the others).
template <class One>
cl_int forEachBox(const ImageLayout& image, size_t offset, size_t size, cl_uint n, const cl_event* waits,
                  cl_event* event, One&& one) {
  auto boxes = image.boxesOf(ByteRange{offset, offset + size});
  if (!boxes || boxes->empty()) return CL_INVALID_OPERATION; // clsplit moves images by whole rows only
  size_t at = 0;
  for (size_t i = 0; i < boxes->size(); ++i) {
    const ImageBox& b = (*boxes)[i];
    const bool first = i == 0, last = i + 1 == boxes->size();
    if (cl_int err = one(b, at, first ? n : 0u, first ? waits : nullptr, last ? event : nullptr); err != CL_SUCCESS)
      return err;
    at += b.region[0] * b.region[1] * b.region[2] * image.pixel();
  }
  return CL_SUCCESS;
}

} // namespace

cl_int BufferStorage::readReal(cl_command_queue q, unsigned slot, size_t offset, size_t size, void* dst, cl_uint n,
                               const cl_event* waits, cl_event* event) {
  if (!image_)
    return device::call(&cl_icd_dispatch::clEnqueueReadBuffer, q, deviceBuffer(slot), cl_bool(CL_FALSE),
                        local(slot, offset, size), size, dst, n, waits, event);
  return forEachBox(*image_, offset, size, n, waits, event,
                    [&](const ImageBox& b, size_t at, cl_uint bn, const cl_event* bw, cl_event* be) {
                      return device::call(&cl_icd_dispatch::clEnqueueReadImage, q, deviceBuffer(slot),
                                          cl_bool(CL_FALSE), b.origin.data(), b.region.data(), image_->rowPitch(),
                                          image_->slicePitch(), static_cast<void*>(static_cast<std::byte*>(dst) + at),
                                          bn, bw, be);
                    });
}

cl_int BufferStorage::writeReal(cl_command_queue q, unsigned slot, size_t offset, size_t size, const void* src,
                                cl_uint n, const cl_event* waits, cl_event* event) {
  if (!image_)
    return device::call(&cl_icd_dispatch::clEnqueueWriteBuffer, q, deviceBuffer(slot), cl_bool(CL_FALSE),
                        local(slot, offset, size), size, src, n, waits, event);
  return forEachBox(*image_, offset, size, n, waits, event,
                    [&](const ImageBox& b, size_t at, cl_uint bn, const cl_event* bw, cl_event* be) {
                      return device::call(
                          &cl_icd_dispatch::clEnqueueWriteImage, q, deviceBuffer(slot), cl_bool(CL_FALSE),
                          b.origin.data(), b.region.data(), image_->rowPitch(), image_->slicePitch(),
                          static_cast<const void*>(static_cast<const std::byte*>(src) + at), bn, bw, be);
                    });
}

cl_int BufferStorage::copyReal(cl_command_queue q, unsigned from, unsigned to, size_t offset, size_t size, cl_uint n,
                               const cl_event* waits, cl_event* event) {
  if (!image_)
    return device::call(&cl_icd_dispatch::clEnqueueCopyBuffer, q, deviceBuffer(from), deviceBuffer(to),
                        local(from, offset, size), local(to, offset, size), size, n, waits, event);
  return forEachBox(*image_, offset, size, n, waits, event,
                    [&](const ImageBox& b, size_t, cl_uint bn, const cl_event* bw, cl_event* be) {
                      return device::call(&cl_icd_dispatch::clEnqueueCopyImage, q, deviceBuffer(from), deviceBuffer(to),
                                          b.origin.data(), b.origin.data(), b.region.data(), bn, bw, be);
                    });
}

cl_mem BufferStorage::deviceView(unsigned slot, uint64_t origin, uint64_t size, cl_mem_flags flags) {
  cl_mem whole = deviceBuffer(slot);
  if (!wholeOn(slot))
    throw Error(CL_INVALID_OPERATION, "clsplit: a whole-buffer view of a device copy that holds a window of it");
  if ((origin == 0 && size == size_) || image_) return whole; // an image has no sub-objects
  auto& views = devices_[slot].views;
  auto key = std::make_pair(origin, size);
  if (auto it = views.find(key); it != views.end()) return it->second.get();
  cl_buffer_region region{static_cast<size_t>(origin), static_cast<size_t>(size)};
  cl_int err = CL_SUCCESS;
  cl_mem view = device::call(
      &cl_icd_dispatch::clCreateSubBuffer, whole, flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY),
      cl_buffer_create_type(CL_BUFFER_CREATE_TYPE_REGION), static_cast<const void*>(&region), &err);
  device::check(err, "clCreateSubBuffer (device view of a sub-buffer)");
  return views.emplace(key, device::RealMem::adopt(view)).first->second.get();
}

template <class Enqueue>
FenceRef BufferStorage::enqueueOn(unsigned slot, QueueProvider& queues, const std::vector<FenceRef>& after,
                                  bool overwritesCopy, const char* what, Enqueue&& enqueue, bool waitedOn, Lane lane,
                                  const RangeSet* overwrites) {
  cl_command_queue q = lane == Lane::Transfer ? queues.transferQueue(slot) : queues.queue(slot);
  WaitList waits(slots_[slot].context, q);
  waits.add(after);
  if (overwritesCopy) {
    if (overwrites)
      addWriteHazards(slot, *overwrites, waits);
    else
      addWriteHazards(slot, waits);
  }
  // A command on the transfer lane is waited for from the compute lane: an event of its own
  // (a marker made later would be one more command and a flush).
  const bool evented = queues.timesCommands() || waitedOn || lane == Lane::Transfer;
  FenceRef fence;
  device::check(device::enqueueCommand(
                    q, slots_[slot].context, waits, evented,
                    [&](cl_uint n, const cl_event* list, cl_event* event) { return enqueue(q, n, list, event); },
                    fence),
                what);
  return fence;
}

void BufferStorage::copyFromHost(ByteRange range, unsigned slot, QueueProvider& queues, TransferLog* log, Lane lane) {
  struct Piece {
    ByteRange range;
    Version version;
  };
  std::vector<Piece> pieces;
  directory_.visit(range, [&](ByteRange r, const Cell<Version>& cell) {
    const Version* v = cell.tokenOf(kHost);
    if (!pieces.empty() && pieces.back().range.hi == r.lo && pieces.back().version.block == v->block &&
        pieces.back().version.blockBase == v->blockBase) {
      pieces.back().range.hi = r.hi;
      if (v->ready != pieces.back().version.ready)
        pieces.back().version.ready = nullptr, pieces.back().version.producer = v->producer;
      return;
    }
    pieces.push_back({r, *v});
  });
  cover(slot, range, queues, log);
  // Coalesced pieces may carry several ready fences: collect them again per piece.
  const Holder me = deviceHolder(slot);
  for (auto& piece : pieces) {
    if (!piece.version.block) { // undefined bytes: nothing to move
      Version undefined;
      undefined.undefined = true;
      directory_.addCopy(RangeSet{piece.range}, me, undefined);
      continue;
    }
    // The block may still be being filled by a device (staging, copies): wait host-side.
    std::vector<FenceRef> filledBy, ready;
    directory_.visit(piece.range,
                     [&](ByteRange, const Cell<Version>& cell) { addUnique(filledBy, cell.tokenOf(kHost)->ready); });
    // One host-side fence per filling command (each costs a completion callback and a user
    // event), however many directory runs its bytes span: NVIDIA copies pageable memory when the
    // write is enqueued, whatever its wait list (it wrote stale bytes). Memory pinned in the
    // target's own context is read by its DMA when the write runs, so the filling command itself
    // is waited on there (a write from pinned memory waiting on a user event ran milliseconds
    // late on NVIDIA); to another vendor that memory is pageable like any other.
    const auto& block = piece.version.block;
    const bool readWhenRun = block->pinned() && pinned_ && pinned_->context() == slots_[slot].context;
    for (const auto& f : filledBy) addUnique(ready, readWhenRun ? f : device::hostOrdered(f));
    const void* source = block->data() + (piece.range.lo - piece.version.blockBase);
    const RangeSet bytes{piece.range};
    FenceRef f = enqueueOn(
        slot, queues, ready, true, "clEnqueueWriteBuffer (host to device)",
        [&](cl_command_queue q, cl_uint n, const cl_event* waits, cl_event* event) {
          return writeReal(q, slot, size_t(piece.range.lo), size_t(piece.range.size()), source, n, waits, event);
        },
        false, lane, &bytes);
    noteWrite(slot, bytes, f);
    retainUntil(f, block);
    directory_.addCopy(RangeSet{piece.range}, me, Version::device());
    if (log)
      log->push_back(
          {TransferKind::HostToDevice, -1, static_cast<int>(slot), piece.range.size(), piece.version.producer, f});
  }
}

void BufferStorage::copyInDriver(ByteRange range, unsigned from, unsigned slot, QueueProvider& queues, TransferLog* log,
                                 Lane lane) {
  const size_t offset = static_cast<size_t>(range.lo), bytes = static_cast<size_t>(range.size());
  const uint64_t producer = devices_[from].producer;
  const RangeSet moved{range};
  cover(slot, range, queues, log);
  // On the destination's queue, after what wrote these bytes of the source's copy.
  FenceRef f = enqueueOn(
      slot, queues, validAfter(from, moved), true, "clEnqueueCopyBuffer (device to device)",
      [&](cl_command_queue q, cl_uint n, const cl_event* waits, cl_event* event) {
        return copyReal(q, from, slot, offset, bytes, n, waits, event);
      },
      false, lane, &moved);
  noteRead(from, moved, f);
  noteWrite(slot, moved, f);
  devices_[from].pulled.pulled(range);
  directory_.addCopy(moved, deviceHolder(slot), Version::device());
  if (log)
    log->push_back(
        {TransferKind::DeviceToDevice, static_cast<int>(from), static_cast<int>(slot), range.size(), producer, f});
}

FenceRef BufferStorage::stageToHost(ByteRange range, unsigned from, QueueProvider& queues, TransferLog* log,
                                    Lane lane) {
  const size_t offset = static_cast<size_t>(range.lo), bytes = static_cast<size_t>(range.size());
  const uint64_t producer = devices_[from].producer;
  const RangeSet staged{range};
  auto block = allocateStaging(bytes);
  FenceRef read = enqueueOn(
      from, queues, validAfter(from, staged), false, "clEnqueueReadBuffer (device to host staging)",
      [&](cl_command_queue q, cl_uint n, const cl_event* waits, cl_event* event) {
        return readReal(q, from, offset, bytes, static_cast<void*>(block->data()), n, waits, event);
      },
      /*waitedOn=*/true, lane);
  noteRead(from, staged, read);
  devices_[from].pulled.pulled(range);
  retainUntil(read, block);
  directory_.addCopy(staged, kHost, Version{read, block, range.lo, producer});
  if (log) log->push_back({TransferKind::DeviceToHost, static_cast<int>(from), -1, range.size(), producer, read});
  return read;
}

bool BufferStorage::moveThroughRing(ByteRange range, unsigned from, unsigned to, QueueProvider& queues,
                                    TransferLog* log, Lane lane, unsigned* failed) {
  if (!pinned_) return false;
  *failed = to;
  // Room first, the ring after: making room may evict other buffers' copies (their locks), and
  // a thread holding one of those may be waiting for the ring.
  cover(to, range, queues, log);
  StagingRing::Hold ring = pinned_->ring().hold();
  if (!ring) return false;
  const uint64_t producer = devices_[from].producer;
  // Pinned in the destination's own context, the block is read by its DMA when the write runs:
  // the write waits on the read itself; to another vendor it is pageable memory (copyFromHost).
  const bool readWhenRun = pinned_->context() == slots_[to].context;
  const Holder me = deviceHolder(to);
  for (uint64_t lo = range.lo; lo < range.hi; lo += StagingRing::kChunkBytes) {
    const ByteRange chunk{lo, std::min<uint64_t>(range.hi, lo + StagingRing::kChunkBytes)};
    const RangeSet bytes{chunk};
    const size_t offset = static_cast<size_t>(chunk.lo), size = static_cast<size_t>(chunk.size());
    StagingRing::Block& block = ring.next();
    std::vector<FenceRef> waits = validAfter(from, bytes);
    for (const auto& f : block.inUseUntil) addUnique(waits, f);
    *failed = from;
    FenceRef read = enqueueOn(
        from, queues, waits, false, "clEnqueueReadBuffer (device to host staging ring)",
        [&](cl_command_queue q, cl_uint n, const cl_event* list, cl_event* event) {
          return readReal(q, from, offset, size, static_cast<void*>(block.memory->data()), n, list, event);
        },
        /*waitedOn=*/true, lane);
    noteRead(from, bytes, read);
    *failed = to;
    FenceRef write = enqueueOn(
        to, queues, {readWhenRun ? read : device::hostOrdered(read)}, true,
        "clEnqueueWriteBuffer (host staging ring to device)",
        [&](cl_command_queue q, cl_uint n, const cl_event* list, cl_event* event) {
          return writeReal(q, to, offset, size, static_cast<const void*>(block.memory->data()), n, list, event);
        },
        false, lane, &bytes);
    noteWrite(to, bytes, write);
    retainUntil(write, block.memory);
    block.inUseUntil = {write};
    directory_.addCopy(bytes, me, Version::device());
    if (log) {
      log->push_back({TransferKind::DeviceToHost, static_cast<int>(from), -1, chunk.size(), producer, read});
      log->push_back({TransferKind::HostToDevice, -1, static_cast<int>(to), chunk.size(), producer, write});
    }
  }
  devices_[from].pulled.pulled(range);
  ring.moved(range.size());
  return true;
}

std::vector<FenceRef> BufferStorage::bringHome(QueueProvider& queues, TransferLog* log, const Settled& settled) {
  return bringHomeImpl(queues, log, settled, false);
}

std::vector<FenceRef> BufferStorage::bringHomeAfterWriters(QueueProvider& queues, TransferLog* log) {
  return bringHomeImpl(queues, log, {}, true);
}

std::vector<FenceRef> BufferStorage::bringHomeImpl(QueueProvider& queues, TransferLog* log, const Settled& settled,
                                                   bool afterWriters) {
  std::vector<FenceRef> reads;
  if (!useHostPtr_) return reads;
  auto complete = [&](const FenceRef& f) {
    if (!f || f->knownComplete() || f->status() == CL_COMPLETE) return true;
    if (!f->queue() || !f->positionInQueue()) return false;
    return std::any_of(settled.begin(), settled.end(),
                       [&](const auto& s) { return s.first == f->queue() && f->positionInQueue() <= s.second; });
  };
  auto* home = static_cast<std::byte*>(useHostPtr_);
  // Where each stale run comes from: a device slot whose copy is complete, or (-1) a complete
  // host version elsewhere.
  struct Stale {
    ByteRange range;
    int from;
    const std::byte* source = nullptr; // host versions: where range.lo's byte is
    uint64_t producer = 0;
  };
  std::vector<int> completeSlots;
  for (unsigned s = 0; s < slots_.size(); ++s) {
    if (afterWriters || devices_[s].hazards.writesComplete(complete)) completeSlots.push_back(static_cast<int>(s));
  }
  std::vector<Stale> stale;
  directory_.visit(ByteRange{0, size_}, [&](ByteRange r, const Cell<Version>& cell) {
    const Version* host = cell.tokenOf(kHost);
    if (host && host->block && host->block->data() + (r.lo - host->blockBase) == home + r.lo) return;
    Stale piece{r, -1};
    const HolderMask mask = cell.mask();
    for (int s : completeSlots)
      if (mask & bit(deviceHolder(static_cast<unsigned>(s)))) {
        const Version* v = cell.tokenOf(deviceHolder(static_cast<unsigned>(s)));
        if (v && v->undefined) return; // nobody wrote these bytes
        piece.from = s;
        piece.producer = devices_[s].producer;
        break;
      }
    if (piece.from < 0) {
      if (!host || !host->block || !complete(host->ready)) return;
      piece.source = host->block->data() + (r.lo - host->blockBase);
      piece.producer = host->producer;
    }
    if (!stale.empty()) {
      Stale& last = stale.back();
      const bool sameSource =
          last.from == piece.from && (piece.from >= 0 || last.source + last.range.size() == piece.source);
      if (last.range.hi == r.lo && sameSource) {
        last.range.hi = r.hi;
        return;
      }
    }
    stale.push_back(piece);
  });
  for (const Stale& piece : stale) {
    const size_t offset = static_cast<size_t>(piece.range.lo), bytes = static_cast<size_t>(piece.range.size());
    auto block = HostBlock::wrap(home + offset, bytes);
    if (piece.from < 0) {
      std::memcpy(home + offset, piece.source, bytes);
      directory_.addCopy(RangeSet{piece.range}, kHost, Version{nullptr, block, piece.range.lo, piece.producer});
      continue;
    }
    const auto from = static_cast<unsigned>(piece.from);
    FenceRef read = enqueueOn(
        from, queues, validAfter(from), false, "clEnqueueReadBuffer (USE_HOST_PTR memory)",
        [&](cl_command_queue q, cl_uint n, const cl_event* waits, cl_event* event) {
          return readReal(q, from, offset, bytes, static_cast<void*>(home + offset), n, waits, event);
        },
        /*waitedOn=*/true);
    noteRead(from, read);
    directory_.addCopy(RangeSet{piece.range}, kHost, Version{read, block, piece.range.lo, piece.producer});
    if (log) log->push_back({TransferKind::DeviceToHost, piece.from, -1, piece.range.size(), piece.producer, read});
    reads.push_back(read);
  }
  return reads;
}

void BufferStorage::giveHomeTheBytes() {
  if (!useHostPtr_) return;
  auto* home = static_cast<std::byte*>(useHostPtr_);
  RangeSet current;
  directory_.visit(ByteRange{0, size_}, [&](ByteRange r, const Cell<Version>& cell) {
    if (cell.mask() == bit(kHost)) return; // the host alone holds them already
    const Version* host = cell.tokenOf(kHost);
    if (host && host->block && host->block->data() + (r.lo - host->blockBase) == home + r.lo &&
        (!host->ready || host->ready->status() == CL_COMPLETE))
      current.add(r);
  });
  if (!current.empty()) directory_.setOnly(current, kHost, Version{nullptr, HostBlock::wrap(home, size_), 0, 0});
}

void BufferStorage::publishWrite(const RangeSet& written, unsigned slot, const FenceRef&, uint64_t producer) {
  if (written.empty()) return;
  directory_.setOnly(written, deviceHolder(slot), Version::device());
  auto& copy = devices_.at(slot);
  copy.producer = producer;
  copy.pulled.written();
}

void BufferStorage::publishCopy(const RangeSet& ranges, unsigned slot, const FenceRef&, uint64_t) {
  if (!ranges.empty()) directory_.addCopy(ranges, deviceHolder(slot), Version::device());
}

void BufferStorage::publishHostBlock(const RangeSet& ranges, std::shared_ptr<HostBlock> block, uint64_t base,
                                     const FenceRef& ready) {
  if (!ranges.empty()) directory_.setOnly(ranges, kHost, Version{ready, std::move(block), base, 0});
}

void BufferStorage::writeFromHost(ByteRange range, const void* src, const FenceRef& ready) {
  auto block = allocateHost(range.size());
  bulkCopy(block->data(), src, range.size());
  publishHostBlock(RangeSet{range}, std::move(block), range.lo, ready);
}

FenceRef BufferStorage::writeToDevice(ByteRange range, const void* src, unsigned slot,
                                      const std::vector<FenceRef>& after, QueueProvider& queues, TransferLog* log,
                                      bool alone) {
  cover(slot, range, queues, log);
  FenceRef f = enqueueOn(slot, queues, after, true, "clEnqueueWriteBuffer (application data to its device)",
                         [&](cl_command_queue q, cl_uint n, const cl_event* waits, cl_event* event) {
                           return writeReal(q, slot, size_t(range.lo), size_t(range.size()), src, n, waits, event);
                         });
  noteWrite(slot, f);
  if (alone)
    directory_.setOnly(RangeSet{range}, deviceHolder(slot), Version::device());
  else
    directory_.addCopy(RangeSet{range}, deviceHolder(slot), Version::device());
  if (log) log->push_back({TransferKind::HostToDevice, -1, static_cast<int>(slot), range.size(), 0, f});
  return f;
}

FenceRef BufferStorage::readPieces(const std::vector<PlannedMove>& planned, ByteRange range, void* dst,
                                   const std::vector<FenceRef>& after, QueueProvider& queues, TransferLog* log) {
  struct Piece {
    ByteRange range;
    int from; // slot, or -1: a host version
    std::shared_ptr<HostBlock> block;
    uint64_t base = 0;
    std::vector<FenceRef> ready;
  };
  // Device pieces as planned; host pieces split where their host version (block) changes.
  std::vector<Piece> pieces;
  for (const auto& p : planned) {
    if (isDevice(p.from)) {
      pieces.push_back(
          {p.range, static_cast<int>(deviceOf(p.from)), nullptr, 0, validAfter(deviceOf(p.from), RangeSet{p.range})});
      continue;
    }
    directory_.visit(p.range, [&](ByteRange r, const Cell<Version>& cell) {
      const Version* v = cell.tokenOf(kHost);
      if (!v) throw std::logic_error("clsplit: a read planned from the host, which does not hold the bytes");
      if (!pieces.empty()) {
        auto& last = pieces.back();
        if (last.from < 0 && last.range.hi == r.lo && last.block == v->block && last.base == v->blockBase) {
          last.range.hi = r.hi;
          addUnique(last.ready, v->ready);
          return;
        }
      }
      Piece piece{r, -1, v->block, v->blockBase, {}};
      addUnique(piece.ready, v->ready);
      pieces.push_back(std::move(piece));
    });
  }

  std::vector<FenceRef> done;
  auto* out = static_cast<std::byte*>(dst);
  for (auto& piece : pieces) {
    std::byte* target = out + (piece.range.lo - range.lo);
    std::vector<FenceRef> waits = after;
    for (auto& f : piece.ready) addUnique(waits, f);
    if (piece.from < 0) {
      if (!piece.block) continue; // undefined bytes
      const std::byte* source = piece.block->data() + (piece.range.lo - piece.base);
      if (source == target) continue; // the application's own memory already holds them
      size_t n = piece.range.size();
      auto block = piece.block;
      done.push_back(device::runAfter(std::move(waits), [block, source, target, n] { bulkCopy(target, source, n); }));
      continue;
    }
    unsigned slot = static_cast<unsigned>(piece.from);
    FenceRef f = enqueueOn(slot, queues, waits, false, "clEnqueueReadBuffer (device to host)",
                           [&](cl_command_queue q, cl_uint n, const cl_event* list, cl_event* event) {
                             return readReal(q, slot, size_t(piece.range.lo), size_t(piece.range.size()),
                                             static_cast<void*>(target), n, list, event);
                           });
    noteRead(slot, RangeSet{piece.range}, f);
    if (log)
      log->push_back({TransferKind::DeviceToHost, piece.from, -1, piece.range.size(), devices_[slot].producer, f});
    done.push_back(f);
  }
  // Nothing to copy still completes only after the wait list.
  if (done.empty()) return device::allOf(after);
  return device::allOf(std::move(done));
}

FenceRef BufferStorage::readFromSlot(const RangeSet& ranges, unsigned slot, std::byte* dst, uint64_t base,
                                     const std::vector<FenceRef>& after, QueueProvider& queues, TransferLog* log) {
  std::vector<FenceRef> fences;
  for (const auto& r : ranges) {
    FenceRef f = enqueueOn(slot, queues, after, false, "clEnqueueReadBuffer (atomic partial results)",
                           [&](cl_command_queue q, cl_uint n, const cl_event* waits, cl_event* event) {
                             return readReal(q, slot, size_t(r.lo), size_t(r.size()),
                                             static_cast<void*>(dst + (r.lo - base)), n, waits, event);
                           });
    noteRead(slot, RangeSet{r}, f);
    if (log) log->push_back({TransferKind::DeviceToHost, static_cast<int>(slot), -1, r.size(), 0, f});
    fences.push_back(f);
  }
  return device::allOf(std::move(fences));
}

const BufferStorage::Summary& BufferStorage::summary() const {
  if (summary_.generation == directory_.generation()) return summary_;
  HolderMask everywhere = ~HolderMask{0}, defined = 0;
  directory_.visit(ByteRange{0, size_}, [&](ByteRange, const Cell<Version>& cell) {
    everywhere &= cell.mask();
    for (const auto& c : cell.copies)
      if (!c.token.undefined) defined |= bit(c.holder);
  });
  summary_ = {directory_.generation(), size_ ? everywhere : 0, defined};
  return summary_;
}

void BufferStorage::publishWholeOn(unsigned slot, uint64_t producer) {
  devices_.at(slot).producer = producer;
  // A launch after launch on one device: nothing changed the directory since the last call.
  if (published_.slot == slot && published_.generation == directory_.generation()) return;
  const Holder me = deviceHolder(slot);
  const auto& s = summary();
  bool already = false;
  if (s.everywhere == bit(me) && s.definedAnywhere == bit(me) && directory_.runCount() == 1) {
    already = true; // undefined bytes become defined once a kernel may have written them
    directory_.visit(ByteRange{0, size_},
                     [&](ByteRange, const Cell<Version>& cell) { already = !cell.copies.front().token.undefined; });
  }
  if (!already) directory_.setOnly(RangeSet::of(0, size_), me, Version::device());
  published_ = {slot, directory_.generation()};
}

std::vector<RangeSet> BufferStorage::heldByDevices(ByteRange range) const {
  std::vector<std::vector<ByteRange>> held(slots_.size());
  directory_.visit(range, [&](ByteRange piece, const Cell<Version>& cell) {
    for (const auto& c : cell.copies)
      if (isDevice(c.holder) && !c.token.undefined) held[deviceOf(c.holder)].push_back(piece);
  });
  std::vector<RangeSet> out;
  for (auto& h : held) out.push_back(RangeSet::fromRanges(std::move(h)));
  return out;
}

void BufferStorage::retainUntil(const FenceRef& fence, std::shared_ptr<HostBlock> block) {
  retainedBytes_ += block->size();
  retained_.emplace_back(fence, std::move(block));
  // Blocks of finished transfers are worth a driver query each once they add up: pageable
  // memory is freed, and pinned buffers go back to their pool for the next transfer (a new
  // pinned buffer costs far more than the query).
  // Passes run when the list or its bytes doubled since the last one (amortised O(1)).
  if (retained_.size() <= pruneRetainedAbove_ && retainedBytes_ <= pruneRetainedBytesAbove_) return;
  const bool heavy = retainedBytes_ > pruneRetainedBytesAbove_;
  std::erase_if(retained_, [](const auto& r) { return r.first->knownComplete(); });
  // Oldest first, one pending command asked per queue: a program enqueueing far ahead had every
  // pending transfer asked about (two driver queries per split launch of a halo exchange).
  if (heavy || retained_.size() > 64)
    device::eraseCompletedInOrder(retained_, [](const auto& r) -> const FenceRef& { return r.first; });
  retainedBytes_ = 0;
  for (const auto& r : retained_) retainedBytes_ += r.second->size();
  pruneRetainedAbove_ = std::max<size_t>(16, 2 * retained_.size());
  pruneRetainedBytesAbove_ = std::max(kRetainedBytesBeforeQuery, 2 * retainedBytes_);
}

std::vector<FenceRef> BufferStorage::pending() const {
  std::vector<FenceRef> fences;
  for (unsigned s = 0; s < devices_.size(); ++s)
    for (auto& f : writeHazards(s)) addUnique(fences, f);
  for (auto& r : retained_) addUnique(fences, r.first);
  return fences;
}

} // namespace clsplit::buffer
