// Buffer commands: every one goes through the buffer's directory, so data written anywhere is
// read back right, and only missing bytes move.
#include "icd/runtime/Commands.h"

#include "icd/runtime/CommandSteps.h"

#include "device/Clock.h"
#include "device/Enqueue.h"
#include "device/HostExecutor.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"
#include "icd/runtime/Transfers.h"
#include "partitioner/Partitioner.h"
#include "planner/CommandPlans.h"
#include "support/BulkCopy.h"
#include "support/Log.h"

#include <algorithm>
#include <cstring>

namespace clsplit::icd::runtime {

using buffer::HostBlock;
using device::WaitList;

namespace {

using steps::append;
using steps::enqueueOn;
using steps::record;
using steps::withGate;

unsigned defaultSlot() { return Runtime::get().singleSlot(); }

} // namespace

void PinnedReadBack::finish() {
  if (!block_) return;
  cl_int status = deviceRead_->wait();
  if (status >= 0) bulkCopy(dst_, block_->data(), size_);
  block_.reset();
  done_->complete(status < 0 ? status : CL_COMPLETE);
}

FenceRef readBuffer(Queue& q, Mem& mem, size_t offset, size_t size, void* ptr, std::vector<FenceRef> waits,
                    std::optional<PinnedReadBack>* readBack) {
  waits = withGate(q, std::move(waits));
  append(waits, q.hostHazards(ptr, size, true));
  buffer::TransferLog log;
  const ByteRange range = mem.toRoot(ByteRange{offset, offset + size});
  auto& storage = mem.storage();
  if (readBack && size <= kPinnedReadBackMaxBytes) {
    auto* pool = q.context().pinnedPool().get();
    auto pieces = pool ? planner::planRead(storage.holders(), range) : std::vector<planner::ReadPiece>{};
    // Only discrete devices gain (host-unified ones read into any memory at full speed).
    const auto& slots = q.context().slots();
    const bool fromDevice =
        std::any_of(pieces.begin(), pieces.end(), [](const auto& p) { return buffer::isDevice(p.from); }) &&
        std::all_of(pieces.begin(), pieces.end(), [&](const auto& p) {
          return !buffer::isDevice(p.from) || !slots[buffer::deviceOf(p.from)].hostUnified;
        });
    // Small reads share one pinned block of the pool's smallest size (pinned in the background
    // after the first miss; a miss reads as before).
    if (auto block = fromDevice ? pool->lend(std::max(size, buffer::kMinPinnedBytes)) : nullptr) {
      FenceRef read = storage.readPieces(pieces, range, block->data(), waits, q, &log);
      auto done = std::make_shared<device::HostFence>();
      readBack->emplace(read, std::move(block), ptr, size, done);
      q.noteHostAccess(ptr, size, true, done);
      record(log);
      return done;
    }
  }
  FenceRef done = readToHost(storage, range, ptr, waits, q, &log);
  q.noteHostAccess(ptr, size, true, done);
  record(log);
  return done;
}

// An eager copy of written bytes that a device cannot hold (a buffer beyond its memory or its
// largest allocation, or a driver out of memory) is not the program's problem: the bytes stay
// on the host and the device fetches what its slices use. Said at info level, with the reason.
namespace {
void logCopyNotMade(const Error& e, const std::string& what) {
  if (e.code() == CL_MEM_OBJECT_ALLOCATION_FAILURE)
    clsplit::log().info("{} ({}); the device fetches the bytes its work uses", what, e.what());
  else
    clsplit::log().warn("{} ({})", what, e.what());
}
} // namespace

// Write-update rather than write-invalidate (planner::planWrite): new host bytes go at once to
// the devices that held the bytes they replace (they are likely to read them again), or, for
// data no device held, to the partitioner's home device. Waiting for the first kernel that reads
// them would put the upload on that kernel's critical path; a program that writes its inputs and
// then calls clFinish expects them on the device, as with any single-device implementation.
void uploadEagerly(Queue& q, Mem& mem, ByteRange range, const planner::WritePlan& plan) {
  buffer::TransferLog log;
  std::vector<FenceRef> uploads;
  // The host version is already published: a device failing its upload fetches the bytes when
  // it needs them (or its launches run elsewhere); the write itself has succeeded.
  auto upload = [&](const RangeSet& bytes, unsigned slot) {
    try {
      acquire(mem.storage(), bytes, slot, q, &log);
      append(uploads, mem.storage().validAfter(slot));
    } catch (const Error& e) {
      logCopyNotMade(e, "uploading written bytes to device slot " + std::to_string(slot) + " failed: kept on the host");
    }
  };
  for (const auto& [slot, bytes] : plan.uploads) upload(bytes, slot);
  if (plan.uploadHome) upload(RangeSet{range}, Runtime::get().partitioner().homeDevice());
  // Not part of the write's event (the application's bytes are already copied), but clFinish
  // waits for it, as it would for the write on a single device.
  if (!uploads.empty()) q.recordBackground(device::allOf(std::move(uploads)));
  record(log);
}

FenceRef writeBuffer(Queue& q, Mem& mem, size_t offset, size_t size, const void* ptr, std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  ByteRange range = mem.toRoot(ByteRange{offset, offset + size});
  auto hazards = q.hostHazards(ptr, size, false);
  auto& rt = Runtime::get();
  planner::WriteInput input;
  input.devices = mem.storage().slotCount();
  input.heldBefore = mem.storage().heldByDevices(range);
  input.onlyDevice = rt.partitioner().onlyDevice();
  input.homeDevice = rt.partitioner().homeDevice();
  input.eagerUploads = rt.settings().value("CLSPLIT_EAGER_UPLOAD") != "0";
  input.hostMemoryPending = !hazards.empty();
  input.useHostPtr = mem.storage().useHostPtr() != nullptr;
  input.windowsOnly =
      q.context().deviceMemory() && q.context().deviceMemory()->policy() == buffer::WindowPolicy::Always;
  if (!input.onlyDevice) {
    input.traits = q.context().deviceTraits();
    for (unsigned s = 0; s < input.devices; ++s) input.mayRun.push_back(rt.mayRunOn(s));
  }
  planner::WritePlan plan = planner::planWrite(input, range);
  if (plan.direct) {
    // Straight from the application's memory to one device, no host version (the caller waits
    // for the fence when the write blocks, so `ptr` is read before it returns; the write waits
    // for the device's older commands on the buffer, as writeToDevice overwrites a copy).
    try {
      buffer::TransferLog log;
      std::vector<FenceRef> writes{mem.storage().writeToDevice(range, ptr, *plan.direct, waits, q, &log)};
      // Copies for the devices that would fetch these bytes through host memory: the write
      // completes when they are made too (they read `ptr`). One that fails just has no copy.
      for (unsigned slot : plan.alsoTo) {
        try {
          writes.push_back(mem.storage().writeToDevice(range, ptr, slot, waits, q, &log, /*alone=*/false));
        } catch (const Error& e) {
          logCopyNotMade(e, "copying " + std::to_string(size) + " written bytes to device slot " +
                                std::to_string(slot) + " failed");
        }
      }
      FenceRef done = device::allOf(std::move(writes));
      q.noteHostAccess(ptr, size, false, done);
      record(log);
      return done;
    } catch (const Error& e) {
      if (input.onlyDevice) throw; // nowhere else to keep them
      // Kept on the host instead; no upload (the device just failed one).
      logCopyNotMade(e, "writing " + std::to_string(size) + " bytes to device slot " + std::to_string(*plan.direct) +
                            " failed: kept on the host");
      plan = planner::WritePlan{};
    }
  }
  if (hazards.empty()) {
    // The common case: copy the application's bytes now into a new host version.
    mem.storage().writeFromHost(range, ptr, device::allOf(waits));
    uploadEagerly(q, mem, range, plan);
    return device::allOf(std::move(waits));
  }
  // An earlier command still writes this host memory: copy once it has.
  auto block = mem.storage().allocateHost(size);
  append(waits, hazards);
  FenceRef done = device::runAfter(waits, [block, ptr, size] { bulkCopy(block->data(), ptr, size); });
  mem.storage().publishHostBlock(RangeSet{range}, block, range.lo, done);
  q.noteHostAccess(ptr, size, false, done);
  uploadEagerly(q, mem, range, plan);
  return done;
}

FenceRef copyBuffer(Queue& q, Mem& src, Mem& dst, size_t srcOffset, size_t dstOffset, size_t size,
                    std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  ByteRange from = src.toRoot(ByteRange{srcOffset, srcOffset + size});
  ByteRange to = dst.toRoot(ByteRange{dstOffset, dstOffset + size});
  buffer::TransferLog log;
  auto best = planner::deviceHoldingMost(src.storage().holders(), RangeSet{from}, src.storage().slotCount());
  if (best) {
    // Room for both ranges on that device; a device too small for them leaves the copy to the host.
    try {
      src.storage().cover(*best, from, q, &log);
      dst.storage().cover(*best, to, q, &log);
    } catch (const Error& e) {
      if (e.code() != CL_MEM_OBJECT_ALLOCATION_FAILURE) throw;
      clsplit::log().info("clEnqueueCopyBuffer runs on the host: {}", e.what());
      best.reset();
    }
  }
  if (!best) {
    // Only host versions hold the source: the copy is host work into a new host version.
    auto block = src.storage().allocateHost(size);
    FenceRef done = readToHost(src.storage(), from, block->data(), waits, q, &log);
    dst.storage().publishHostBlock(RangeSet{to}, block, to.lo, done);
    src.storage().retainUntil(done, block);
    record(log);
    return done;
  }
  const unsigned slot = *best;
  acquire(src.storage(), RangeSet{from}, slot, q, &log);
  append(waits, src.storage().validAfter(slot));
  append(waits, dst.storage().writeHazards(slot));
  FenceRef done =
      enqueueOn(q, slot, waits, "clEnqueueCopyBuffer",
                [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                  return device::call(&cl_icd_dispatch::clEnqueueCopyBuffer, real, src.storage().deviceBuffer(slot),
                                      dst.storage().deviceBuffer(slot),
                                      static_cast<size_t>(from.lo - src.storage().window(slot).lo),
                                      static_cast<size_t>(to.lo - dst.storage().window(slot).lo), size, n, list, event);
                });
  src.storage().noteRead(slot, done);
  dst.storage().noteWrite(slot, done);
  dst.storage().publishWrite(RangeSet{to}, slot, done, 0);
  record(log);
  return done;
}

FenceRef fillBuffer(Queue& q, Mem& mem, const void* pattern, size_t patternSize, size_t offset, size_t size,
                    std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  ByteRange range = mem.toRoot(ByteRange{offset, offset + size});
  auto& storage = mem.storage();
  // Fill on every device that already has the buffer (a fill costs no transfer), else on the
  // default device: each filled device holds a valid copy afterwards.
  std::vector<bool> allocated(storage.slotCount());
  for (unsigned s = 0; s < storage.slotCount(); ++s) allocated[s] = storage.allocatedOn(s);
  std::vector<unsigned> slots = planner::planFill(allocated, defaultSlot());
  // A device whose copy cannot hold the range (DeviceMemory.h) does not fill it; with none left,
  // the host fills a host version.
  buffer::TransferLog moved;
  std::erase_if(slots, [&](unsigned slot) {
    try {
      storage.cover(slot, range, q, &moved);
      return false;
    } catch (const Error& e) {
      if (e.code() != CL_MEM_OBJECT_ALLOCATION_FAILURE) throw;
      clsplit::log().info("clEnqueueFillBuffer: device slot {} cannot hold the range: {}", slot, e.what());
      return true;
    }
  });
  record(moved);
  if (slots.empty()) {
    auto block = storage.allocateHost(size);
    std::vector<std::byte> bytes(static_cast<const std::byte*>(pattern),
                                 static_cast<const std::byte*>(pattern) + patternSize);
    FenceRef done = device::runAfter(std::move(waits), [block, bytes, size] {
      for (size_t at = 0; at < size; at += bytes.size()) std::memcpy(block->data() + at, bytes.data(), bytes.size());
    });
    storage.publishHostBlock(RangeSet{range}, block, range.lo, done);
    storage.retainUntil(done, block);
    return done;
  }
  std::vector<FenceRef> fences;
  for (unsigned slot : slots) {
    std::vector<FenceRef> after = waits;
    append(after, storage.writeHazards(slot));
    FenceRef f =
        enqueueOn(q, slot, after, "clEnqueueFillBuffer",
                  [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                    return device::call(&cl_icd_dispatch::clEnqueueFillBuffer, real, storage.deviceBuffer(slot),
                                        pattern, patternSize, static_cast<size_t>(range.lo - storage.window(slot).lo),
                                        size, n, list, event);
                  });
    storage.noteWrite(slot, f);
    if (fences.empty())
      storage.publishWrite(RangeSet{range}, slot, f, 0);
    else
      storage.publishCopy(RangeSet{range}, slot, f, 0);
    fences.push_back(f);
  }
  return device::allOf(std::move(fences));
}

FenceRef readBufferRect(Queue& q, Mem& mem, const Rect& buffer, const Rect& host, const std::array<size_t, 3>& region,
                        void* ptr, std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  RangeSet rows = mem.toRoot(rectRows(buffer, region));
  RangeSet hostRows = rectRows(host, region);
  auto* out = static_cast<std::byte*>(ptr);
  append(waits, q.hostHazards(out + hostRows.hull().lo, hostRows.hull().size(), true));
  auto& storage = mem.storage();
  buffer::TransferLog log;
  FenceRef done;
  if (storage.holdersOfAll(rows) & buffer::bit(buffer::kHost)) {
    // Every row has a host version: copy row by row as host work.
    std::vector<FenceRef> parts;
    for (size_t z = 0; z < region[2]; ++z)
      for (size_t y = 0; y < region[1]; ++y) {
        uint64_t b =
            buffer.origin[0] + (buffer.origin[1] + y) * buffer.rowPitch + (buffer.origin[2] + z) * buffer.slicePitch;
        uint64_t h = host.origin[0] + (host.origin[1] + y) * host.rowPitch + (host.origin[2] + z) * host.slicePitch;
        parts.push_back(readToHost(storage, mem.toRoot(ByteRange{b, b + region[0]}), out + h, waits, q, &log));
      }
    done = device::allOf(std::move(parts));
  } else {
    const unsigned slot =
        planner::deviceHoldingMost(storage.holders(), rows, storage.slotCount()).value_or(defaultSlot());
    storage.reserveWhole(slot, q, &log); // a rect command names the whole buffer
    acquire(storage, rows, slot, q, &log);
    append(waits, storage.validAfter(slot));
    done = enqueueOn(q, slot, waits, "clEnqueueReadBufferRect",
                     [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                       return device::call(&cl_icd_dispatch::clEnqueueReadBufferRect, real, mem.realFor(slot),
                                           cl_bool(CL_FALSE), buffer.origin.data(), host.origin.data(), region.data(),
                                           buffer.rowPitch, buffer.slicePitch, host.rowPitch, host.slicePitch, ptr, n,
                                           list, event);
                     });
    storage.noteRead(slot, done);
  }
  q.noteHostAccess(out + hostRows.hull().lo, hostRows.hull().size(), true, done);
  record(log);
  return done;
}

FenceRef writeBufferRect(Queue& q, Mem& mem, const Rect& buffer, const Rect& host, const std::array<size_t, 3>& region,
                         const void* ptr, std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  RangeSet rows = rectRows(buffer, region);
  RangeSet hostRows = rectRows(host, region);
  ByteRange hull = rows.hull();
  auto block = mem.storage().allocateHost(hull.size());
  const auto* in = static_cast<const std::byte*>(ptr);
  auto copyRows = [block, buffer, host, region, in, hull] {
    for (size_t z = 0; z < region[2]; ++z)
      for (size_t y = 0; y < region[1]; ++y) {
        uint64_t b =
            buffer.origin[0] + (buffer.origin[1] + y) * buffer.rowPitch + (buffer.origin[2] + z) * buffer.slicePitch;
        uint64_t h = host.origin[0] + (host.origin[1] + y) * host.rowPitch + (host.origin[2] + z) * host.slicePitch;
        std::memcpy(block->data() + (b - hull.lo), in + h, region[0]);
      }
  };
  auto hazards = q.hostHazards(in + hostRows.hull().lo, hostRows.hull().size(), false);
  FenceRef done;
  if (hazards.empty()) {
    copyRows();
    done = device::allOf(waits);
  } else {
    append(waits, hazards);
    done = device::runAfter(waits, copyRows);
    q.noteHostAccess(in + hostRows.hull().lo, hostRows.hull().size(), false, done);
  }
  mem.storage().publishHostBlock(mem.toRoot(rows), block, mem.toRoot(hull).lo, done);
  return done;
}

FenceRef copyBufferRect(Queue& q, Mem& src, Mem& dst, const Rect& srcRect, const Rect& dstRect,
                        const std::array<size_t, 3>& region, std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  RangeSet from = src.toRoot(rectRows(srcRect, region));
  RangeSet to = dst.toRoot(rectRows(dstRect, region));
  const unsigned slot =
      planner::deviceHoldingMost(src.storage().holders(), from, src.storage().slotCount()).value_or(defaultSlot());
  buffer::TransferLog log;
  src.storage().reserveWhole(slot, q, &log); // rect commands name whole buffers
  dst.storage().reserveWhole(slot, q, &log);
  acquire(src.storage(), from, slot, q, &log);
  append(waits, src.storage().validAfter(slot));
  append(waits, dst.storage().writeHazards(slot));
  FenceRef done = enqueueOn(q, slot, waits, "clEnqueueCopyBufferRect",
                            [&](cl_command_queue real, cl_uint n, const cl_event* list, cl_event* event) {
                              return device::call(&cl_icd_dispatch::clEnqueueCopyBufferRect, real, src.realFor(slot),
                                                  dst.realFor(slot), srcRect.origin.data(), dstRect.origin.data(),
                                                  region.data(), srcRect.rowPitch, srcRect.slicePitch, dstRect.rowPitch,
                                                  dstRect.slicePitch, n, list, event);
                            });
  src.storage().noteRead(slot, done);
  dst.storage().noteWrite(slot, done);
  dst.storage().publishWrite(to, slot, done, 0);
  record(log);
  return done;
}

void* mapBuffer(Queue& q, Mem& mem, cl_map_flags flags, size_t offset, size_t size, std::vector<FenceRef> waits,
                FenceRef& done) {
  waits = withGate(q, std::move(waits));
  auto& storage = mem.storage();
  ByteRange range = mem.toRoot(ByteRange{offset, offset + size});
  bool invalidate = flags & CL_MAP_WRITE_INVALIDATE_REGION;
  buffer::TransferLog log;
  Mem::Mapping mapping{nullptr, offset, size, flags, nullptr, {}};
  if (mem.flags() & CL_MEM_USE_HOST_PTR) {
    // The pointer must be host_ptr + offset: bring the bytes home into the application's memory.
    auto* root = static_cast<std::byte*>(storage.useHostPtr());
    mapping.pointer = root + range.lo;
    if (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))
      for (auto& f : storage.pending()) f->wait(); // nothing may still read the old bytes
    done = invalidate ? device::allOf(waits) : readToHost(storage, range, mapping.pointer, waits, q, &log);
  } else {
    mapping.block = storage.allocateHost(size);
    mapping.pointer = mapping.block->data();
    done = invalidate ? device::allOf(waits) : readToHost(storage, range, mapping.pointer, waits, q, &log);
  }
  mem.addMapping(mapping);
  record(log);
  return mapping.pointer;
}

FenceRef unmapBuffer(Queue& q, Mem& mem, void* pointer, std::vector<FenceRef> waits) {
  waits = withGate(q, std::move(waits));
  Mem::Mapping m = mem.takeMapping(pointer);
  FenceRef done = device::allOf(waits);
  if (m.flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) {
    ByteRange range = mem.toRoot(ByteRange{m.offset, m.offset + m.size});
    auto block =
        m.block ? m.block : HostBlock::wrap(static_cast<std::byte*>(mem.storage().useHostPtr()) + range.lo, m.size);
    mem.storage().publishHostBlock(RangeSet{range}, block, range.lo, done);
  }
  return done;
}

} // namespace clsplit::icd::runtime
