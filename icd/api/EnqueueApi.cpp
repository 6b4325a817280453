// Entry points that enqueue commands: validation as the specification lists it, then the
// command layer (icd/runtime), then the application's event and blocking semantics.
#include "device/Clock.h"
#include "icd/api/Api.h"
#include "icd/objects/Device.h"
#include "icd/objects/Event.h"
#include "icd/objects/Kernel.h"
#include "icd/objects/Queue.h"
#include "icd/runtime/Commands.h"
#include "icd/runtime/HostPtrCoherence.h"
#include "icd/runtime/ImageCommands.h"
#include "icd/runtime/Launch.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/SvmCommands.h"
#include "icd/runtime/Trace.h"

namespace clsplit::icd::api {

using device::FenceRef;

namespace {

// Validated wait list + planning lock + the application's event + blocking.
struct Command {
  std::shared_ptr<Queue> queue;
  cl_command_type type;
  std::vector<FenceRef> waits;
  uint64_t queuedNs; // CL_PROFILING_COMMAND_QUEUED of its event (a clock read only when it has one)

  // The application's event of a profiled queue carries the command's device times: its real
  // commands get events of their own then (otherwise they may go without, device/Enqueue.h).
  bool profiled = false;
  // A blocking call: its real commands get events of their own too, since the host waits for
  // them at once (for an eventless command the wait would need a marker, a flush and a wait).
  bool blocking = false;

  Command(cl_command_queue q, cl_command_type t, cl_uint n, const cl_event* events, cl_event* event = nullptr)
      : queue(Queue::from(q)), type(t), waits(waitListFences(queue->context(), n, events)),
        queuedNs(event ? device::hostNowNs() : 0), profiled(event && queue->profiling()) {}

  // The call blocks: an event of its wait list that has failed makes it fail at once.
  void block() {
    blocking = true;
    for (const auto& f : waits)
      require(f->status() >= 0, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "an event in the wait list failed");
  }

  // Records `done` as this command's completion; creates the event; blocks if asked.
  void finish(const FenceRef& done, cl_event* event, bool blocking) {
    // A command whose wait list fails is terminated: its event fails then, even where a vendor
    // never finishes the real commands queued behind the failure.
    FenceRef settled = done;
    if (!waits.empty()) { // one group of the command and its wait list (allOf flattens it)
      std::vector<FenceRef> parts;
      parts.reserve(waits.size() + 1);
      parts.push_back(done);
      parts.insert(parts.end(), waits.begin(), waits.end());
      settled = device::allOf(std::move(parts));
    }
    queue->recordCommand(settled);
    // In-order semantics: the event, and a blocking call, complete only after every earlier
    // command of the queue (the real work itself only waits for its data): the queue's record,
    // this command included, whose fences collapse to the latest per real queue.
    // With its own wait list too: the record lets go of fences once they are final, a failed
    // user event included, and not every vendor fails the commands behind one (rusticl runs them).
    FenceRef whole = nullptr;
    if (event || blocking)
      whole = waits.empty() ? queue->allRecorded() : device::allOf({queue->allRecorded(), settled});
    // Submitted when something depends on it from elsewhere, as a driver would need it to be:
    // another queue's wait list (device::WaitList), a wait, a callback or a status query on its
    // event (Event) flush what they wait for. Flushing every command that returns an event cost
    // ~1.3 us per command on NVIDIA's OpenCL, which submits without it.
    if (blocking) queue->flush();
    if (event)
      *event = std::make_shared<Event>(queue->contextRef(), queue, type, done, whole, queuedNs, device::hostNowNs())
                   ->publishHandle();
    if (blocking) {
      {
        runtime::HostSpan span("blocking wait");
        if (whole->wait() < 0) {
          device::settleAfterFailure(whole);
          throw Error(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "the command failed");
        }
      }
      runtime::bringHostPtrMemoryHome(*queue, whole);
      // The queue's commands are complete now: their sampled times reach the partitioner here,
      // not only at the next launch or clFinish (a program that ends with a blocking read would
      // otherwise leave its last samples unread, all of them where it runs ahead of the device).
      runtime::HostSpan span("harvest measurements");
      runtime::Runtime::get().harvestMeasurements(SIZE_MAX);
    }
  }
};

std::shared_ptr<Mem> memOf(const Command& c, cl_mem handle) {
  auto mem = Mem::from(handle);
  require(&mem->context() == &c.queue->context(), CL_INVALID_CONTEXT,
          "the memory object and the queue belong to different contexts");
  return mem;
}

// A buffer command's memory object: not an image.
std::shared_ptr<Mem> bufferOf(const Command& c, cl_mem handle) {
  auto mem = memOf(c, handle);
  require(mem->image() == nullptr, CL_INVALID_MEM_OBJECT, "an image where a buffer is expected");
  return mem;
}

void checkRange(const Mem& mem, size_t offset, size_t size) {
  require(size > 0 && offset <= mem.size() && size <= mem.size() - offset, CL_INVALID_VALUE,
          "(offset, size) is out of bounds or size is 0");
}

void checkMapFlags(cl_map_flags flags) {
  require(!(flags & ~cl_map_flags(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)), CL_INVALID_VALUE,
          "unknown map flags");
  require(!((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))), CL_INVALID_VALUE,
          "CL_MAP_WRITE_INVALIDATE_REGION with READ or WRITE");
}

void checkHostRead(const Mem& mem) {
  require(!(mem.flags() & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)), CL_INVALID_OPERATION,
          "the buffer was created without host read access");
}

void checkHostWrite(const Mem& mem) {
  require(!(mem.flags() & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)), CL_INVALID_OPERATION,
          "the buffer was created without host write access");
}

runtime::Rect rect(const size_t* origin, size_t rowPitch, size_t slicePitch, const size_t* region) {
  runtime::Rect r{{origin[0], origin[1], origin[2]}, rowPitch, slicePitch};
  if (!r.rowPitch) r.rowPitch = region[0];
  if (!r.slicePitch) r.slicePitch = region[1] * r.rowPitch;
  return r;
}

void checkRect(const runtime::Rect& r, const size_t* region, size_t limit, bool isBuffer) {
  require(region && region[0] && region[1] && region[2], CL_INVALID_VALUE, "a region dimension is 0");
  require(r.rowPitch >= region[0], CL_INVALID_VALUE, "row pitch smaller than region[0]");
  // Overflow-safe: a huge region must be rejected, not wrapped into range.
  using Wide = unsigned __int128;
  require(Wide(r.slicePitch) >= Wide(region[1]) * r.rowPitch && r.slicePitch % r.rowPitch == 0, CL_INVALID_VALUE,
          "invalid slice pitch");
  if (isBuffer) {
    Wide last = (Wide(r.origin[2]) + region[2] - 1) * r.slicePitch + (Wide(r.origin[1]) + region[1] - 1) * r.rowPitch +
                r.origin[0] + region[0];
    require(last <= limit, CL_INVALID_VALUE, "the rectangle is out of the buffer's bounds");
  }
}

// The buffer and host rectangles of clEnqueue{Read,Write}BufferRect, checked.
struct HostRect {
  runtime::Rect buffer, host;
  std::array<size_t, 3> region;
};
HostRect hostRect(const Mem& mem, const size_t* bufferOrigin, const size_t* hostOrigin, const size_t* region,
                  size_t bufferRowPitch, size_t bufferSlicePitch, size_t hostRowPitch, size_t hostSlicePitch,
                  const void* ptr) {
  require(bufferOrigin && hostOrigin && region && ptr, CL_INVALID_VALUE, "a pointer argument is NULL");
  HostRect r{rect(bufferOrigin, bufferRowPitch, bufferSlicePitch, region),
             rect(hostOrigin, hostRowPitch, hostSlicePitch, region),
             {region[0], region[1], region[2]}};
  checkRect(r.buffer, region, mem.size(), true);
  checkRect(r.host, region, 0, false);
  return r;
}

template <class Plan>
FenceRef planned(Command& c, Plan&& plan) {
  runtime::HostSpan span("plan command"); // the trace's host track: what each command costs
  std::lock_guard lock(c.queue->context().planMutex());
  Queue::TimedCommand timed(*c.queue, c.profiled || c.blocking);
  return plan();
}

} // namespace

cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                           void* ptr, cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_READ_BUFFER, n, waits, event);
  auto mem = bufferOf(c, buffer);
  checkRange(*mem, offset, size);
  require(ptr != nullptr, CL_INVALID_VALUE, "ptr is NULL");
  checkHostRead(*mem);
  if (blocking) c.block();
  std::optional<runtime::PinnedReadBack> readBack;
  auto done = planned(c, [&] {
    return runtime::readBuffer(*c.queue, *mem, offset, size, ptr, c.waits, blocking ? &readBack : nullptr);
  });
  if (readBack) readBack->finish(); // after the planning lock: `done` completes here
  c.finish(done, event, blocking);
  return CL_SUCCESS;
}

cl_int clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                            const void* ptr, cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_WRITE_BUFFER, n, waits, event);
  auto mem = bufferOf(c, buffer);
  checkRange(*mem, offset, size);
  require(ptr != nullptr, CL_INVALID_VALUE, "ptr is NULL");
  checkHostWrite(*mem);
  if (blocking) c.block();
  auto done = planned(c, [&] { return runtime::writeBuffer(*c.queue, *mem, offset, size, ptr, c.waits); });
  c.finish(done, event, blocking);
  return CL_SUCCESS;
}

cl_int clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t srcOffset, size_t dstOffset,
                           size_t size, cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_COPY_BUFFER, n, waits, event);
  auto s = bufferOf(c, src), d = bufferOf(c, dst);
  checkRange(*s, srcOffset, size);
  checkRange(*d, dstOffset, size);
  if (&s->storage() == &d->storage()) {
    uint64_t a = s->origin() + srcOffset, b = d->origin() + dstOffset;
    require(a + size <= b || b + size <= a, CL_MEM_COPY_OVERLAP, "source and destination overlap");
  }
  auto done = planned(c, [&] { return runtime::copyBuffer(*c.queue, *s, *d, srcOffset, dstOffset, size, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void* pattern, size_t patternSize,
                           size_t offset, size_t size, cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_FILL_BUFFER, n, waits, event);
  auto mem = bufferOf(c, buffer);
  require(pattern != nullptr, CL_INVALID_VALUE, "pattern is NULL");
  require(patternSize && (patternSize & (patternSize - 1)) == 0 && patternSize <= 128, CL_INVALID_VALUE,
          "pattern_size must be a power of two up to 128");
  require(offset % patternSize == 0 && size % patternSize == 0, CL_INVALID_VALUE,
          "offset and size must be multiples of pattern_size");
  checkRange(*mem, offset, size);
  auto done =
      planned(c, [&] { return runtime::fillBuffer(*c.queue, *mem, pattern, patternSize, offset, size, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking, const size_t* bufferOrigin,
                               const size_t* hostOrigin, const size_t* region, size_t bufferRowPitch,
                               size_t bufferSlicePitch, size_t hostRowPitch, size_t hostSlicePitch, void* ptr,
                               cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_READ_BUFFER_RECT, n, waits, event);
  auto mem = bufferOf(c, buffer);
  const HostRect r = hostRect(*mem, bufferOrigin, hostOrigin, region, bufferRowPitch, bufferSlicePitch, hostRowPitch,
                              hostSlicePitch, ptr);
  checkHostRead(*mem);
  if (blocking) c.block();
  auto done =
      planned(c, [&] { return runtime::readBufferRect(*c.queue, *mem, r.buffer, r.host, r.region, ptr, c.waits); });
  c.finish(done, event, blocking);
  return CL_SUCCESS;
}

cl_int clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking, const size_t* bufferOrigin,
                                const size_t* hostOrigin, const size_t* region, size_t bufferRowPitch,
                                size_t bufferSlicePitch, size_t hostRowPitch, size_t hostSlicePitch, const void* ptr,
                                cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_WRITE_BUFFER_RECT, n, waits, event);
  auto mem = bufferOf(c, buffer);
  const HostRect r = hostRect(*mem, bufferOrigin, hostOrigin, region, bufferRowPitch, bufferSlicePitch, hostRowPitch,
                              hostSlicePitch, ptr);
  checkHostWrite(*mem);
  if (blocking) c.block();
  auto done =
      planned(c, [&] { return runtime::writeBufferRect(*c.queue, *mem, r.buffer, r.host, r.region, ptr, c.waits); });
  c.finish(done, event, blocking);
  return CL_SUCCESS;
}

cl_int clEnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t* srcOrigin,
                               const size_t* dstOrigin, const size_t* region, size_t srcRowPitch, size_t srcSlicePitch,
                               size_t dstRowPitch, size_t dstSlicePitch, cl_uint n, const cl_event* waits,
                               cl_event* event) {
  Command c(queue, CL_COMMAND_COPY_BUFFER_RECT, n, waits, event);
  auto s = bufferOf(c, src), d = bufferOf(c, dst);
  require(srcOrigin && dstOrigin && region, CL_INVALID_VALUE, "a pointer argument is NULL");
  auto sr = rect(srcOrigin, srcRowPitch, srcSlicePitch, region);
  auto dr = rect(dstOrigin, dstRowPitch, dstSlicePitch, region);
  checkRect(sr, region, s->size(), true);
  checkRect(dr, region, d->size(), true);
  std::array<size_t, 3> r{region[0], region[1], region[2]};
  if (&s->storage() == &d->storage())
    require(!s->toRoot(runtime::rectRows(sr, r)).intersects(d->toRoot(runtime::rectRows(dr, r))), CL_MEM_COPY_OVERLAP,
            "source and destination rectangles overlap");
  auto done = planned(c, [&] { return runtime::copyBufferRect(*c.queue, *s, *d, sr, dr, r, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

void* clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags, size_t offset,
                         size_t size, cl_uint n, const cl_event* waits, cl_event* event, cl_int*) {
  Command c(queue, CL_COMMAND_MAP_BUFFER, n, waits, event);
  auto mem = bufferOf(c, buffer);
  checkRange(*mem, offset, size);
  checkMapFlags(flags);
  if (flags & CL_MAP_READ) checkHostRead(*mem);
  if (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) checkHostWrite(*mem);
  if (blocking) c.block();
  void* pointer = nullptr;
  auto done = planned(c, [&] {
    FenceRef f;
    pointer = runtime::mapBuffer(*c.queue, *mem, flags, offset, size, c.waits, f);
    return f;
  });
  c.finish(done, event, blocking);
  return pointer;
}

cl_int clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem memobj, void* mapped, cl_uint n, const cl_event* waits,
                               cl_event* event) {
  Command c(queue, CL_COMMAND_UNMAP_MEM_OBJECT, n, waits, event);
  auto mem = memOf(c, memobj);
  require(mapped != nullptr, CL_INVALID_VALUE, "mapped_ptr is NULL");
  auto done = planned(c, [&] {
    if (mem->image()) return runtime::unmapImage(*c.queue, *mem, mem->takeMapping(mapped), c.waits);
    return runtime::unmapBuffer(*c.queue, *mem, mapped, c.waits);
  });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t* offset,
                              const size_t* global, const size_t* local, cl_uint n, const cl_event* waits,
                              cl_event* event) {
  Command c(queue, CL_COMMAND_NDRANGE_KERNEL, n, waits, event);
  auto k = Kernel::from(kernel);
  require(&k->program().context() == &c.queue->context(), CL_INVALID_CONTEXT,
          "the kernel and the queue belong to different contexts");
  require(dims >= 1 && dims <= 3, CL_INVALID_WORK_DIMENSION, "work_dim must be 1, 2 or 3");
  require(global != nullptr, CL_INVALID_GLOBAL_WORK_SIZE, "global_work_size is NULL");
  const Device& device = c.queue->context().device();
  analysis::NDRange range;
  range.dims = dims;
  size_t groupItems = 1;
  // OpenCL 2.1 and later: an empty range is a command that completes once its wait list has.
  bool empty = false;
  for (cl_uint d = 0; d < dims; ++d) {
    if (global[d] == 0 && device.openclVersion() >= 210) {
      empty = true;
      continue;
    }
    require(global[d] > 0, CL_INVALID_GLOBAL_WORK_SIZE, "a global_work_size value is 0");
    range.global[d] = global[d];
    range.offset[d] = offset ? offset[d] : 0;
    require(range.offset[d] <= SIZE_MAX - global[d], CL_INVALID_GLOBAL_OFFSET,
            "global_work_offset + global_work_size overflows");
    range.local[d] = 0;
    if (local) {
      require(local[d] > 0, CL_INVALID_WORK_GROUP_SIZE, "a local_work_size value is 0");
      require(global[d] % local[d] == 0 || (device.nonUniformWorkGroups() && k->program().nonUniformWorkGroups()),
              CL_INVALID_WORK_GROUP_SIZE,
              "local_work_size does not divide global_work_size (non-uniform work-groups need a program built "
              "as OpenCL C 2.0 or later, without -cl-uniform-work-group-size, and a device that supports them)");
      require(d >= device.maxWorkItemSizes().size() || local[d] <= device.maxWorkItemSizes()[d],
              CL_INVALID_WORK_ITEM_SIZE, "local_work_size exceeds CL_DEVICE_MAX_WORK_ITEM_SIZES");
      range.local[d] = local[d];
      groupItems *= local[d];
    }
  }
  if (empty) {
    FenceRef done = c.waits.empty() ? c.queue->allRecorded() : device::allOf(c.waits);
    c.finish(done, event, false);
    return CL_SUCCESS;
  }
  const auto required = k->requiredWorkGroupSize();
  if (local) {
    require(groupItems <= k->largestWorkGroupSize(), CL_INVALID_WORK_GROUP_SIZE,
            "the work-group is larger than CL_KERNEL_WORK_GROUP_SIZE on every device");
    if (required[0])
      for (cl_uint d = 0; d < dims; ++d)
        require(local[d] == required[d], CL_INVALID_WORK_GROUP_SIZE,
                "local_work_size differs from reqd_work_group_size");
  } else {
    require(required[0] == 0, CL_INVALID_WORK_GROUP_SIZE,
            "local_work_size is NULL but the kernel declares reqd_work_group_size");
    for (cl_uint d = 0; d < 3; ++d) range.local[d] = 0;
  }
  FenceRef done = runtime::launchKernel(*c.queue, *k, range, c.waits, c.profiled);
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint n, const cl_event* waits, cl_event* event) {
  size_t one = 1;
  return api::clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, n, waits, event);
}

cl_int clEnqueueNativeKernel(cl_command_queue queue, void(CL_CALLBACK*)(void*), void*, size_t, cl_uint, const cl_mem*,
                             const void**, cl_uint n, const cl_event* waits, cl_event*) {
  Command c(queue, CL_COMMAND_NATIVE_KERNEL, n, waits);
  throw Error(CL_INVALID_OPERATION, "the clsplit device cannot execute native kernels");
}

cl_int clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_MARKER, n, waits, event);
  FenceRef done = c.waits.empty() ? c.queue->allRecorded() : device::allOf(c.waits);
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_BARRIER, n, waits, event);
  FenceRef done = c.waits.empty() ? c.queue->allRecorded() : device::allOf(c.waits);
  c.queue->setGate(done);
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueMarker(cl_command_queue queue, cl_event* event) {
  require(event != nullptr, CL_INVALID_VALUE, "event is NULL");
  return api::clEnqueueMarkerWithWaitList(queue, 0, nullptr, event);
}

cl_int clEnqueueBarrier(cl_command_queue queue) {
  return api::clEnqueueBarrierWithWaitList(queue, 0, nullptr, nullptr);
}

cl_int clEnqueueWaitForEvents(cl_command_queue queue, cl_uint n, const cl_event* events) {
  auto q = Queue::from(queue);
  require(n > 0 && events, CL_INVALID_VALUE, "no events");
  for (cl_uint i = 0; i < n; ++i) { // this entry point names the events' error CL_INVALID_EVENT
    auto e = Event::tryFrom(events[i]);
    require(e != nullptr, CL_INVALID_EVENT, "an event in event_list is not valid");
    require(&e->context() == &q->context(), CL_INVALID_CONTEXT, "an event is from another context");
  }
  Command c(queue, CL_COMMAND_BARRIER, n, events);
  c.queue->setGate(device::allOf(c.waits));
  return CL_SUCCESS;
}

cl_int clEnqueueMigrateMemObjects(cl_command_queue queue, cl_uint num, const cl_mem* mems, cl_mem_migration_flags flags,
                                  cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_MIGRATE_MEM_OBJECTS, n, waits, event);
  require(num > 0 && mems, CL_INVALID_VALUE, "no memory objects");
  require(!(flags & ~cl_mem_migration_flags(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)),
          CL_INVALID_VALUE, "unknown migration flags");
  for (cl_uint i = 0; i < num; ++i) memOf(c, mems[i]);
  // Placement is clsplit's decision (each launch moves what its devices need); the command only
  // orders itself after its wait list.
  c.finish(device::allOf(c.waits), event, false);
  return CL_SUCCESS;
}

// --- Images (runtime/ImageCommands.h) -------------------------------------------------------

namespace {

std::shared_ptr<Mem> imageOf(const Command& c, cl_mem handle) {
  auto mem = memOf(c, handle);
  require(mem->image() != nullptr, CL_INVALID_MEM_OBJECT, "not an image");
  return mem;
}

runtime::ImageBox box(const Mem& image, const size_t* origin, const size_t* region) {
  require(origin && region, CL_INVALID_VALUE, "origin or region is NULL");
  runtime::ImageBox b{{origin[0], origin[1], origin[2]}, {region[0], region[1], region[2]}};
  std::string why;
  if (!image.image()->contains(b, &why)) throw Error(CL_INVALID_VALUE, why);
  return b;
}

// The host layout of a read or write: pitches resolved as the specification says (0: packed).
std::pair<size_t, size_t> hostPitches(const Mem& image, const runtime::ImageBox& b, size_t rowPitch,
                                      size_t slicePitch) {
  const auto& l = *image.image();
  const bool layersAreRows = l.type() == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  const bool layered = layersAreRows || l.type() == CL_MEM_OBJECT_IMAGE2D_ARRAY || l.type() == CL_MEM_OBJECT_IMAGE3D;
  const size_t row = b.region[0] * l.pixel();
  if (!rowPitch) rowPitch = row;
  require(rowPitch >= row, CL_INVALID_VALUE, "row pitch smaller than a row of the region");
  if (!layered) {
    require(slicePitch == 0, CL_INVALID_VALUE, "slice pitch must be 0 for 1-D and 2-D images");
    return {rowPitch, 0};
  }
  const size_t slice = layersAreRows ? rowPitch : rowPitch * b.region[1];
  if (!slicePitch) slicePitch = slice;
  require(slicePitch >= slice, CL_INVALID_VALUE, "slice pitch smaller than a slice of the region");
  return {rowPitch, slicePitch};
}

void checkImageHost(const Mem& image, bool reads) {
  if (reads)
    checkHostRead(image);
  else
    checkHostWrite(image);
}

} // namespace

cl_int clEnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking, const size_t* origin,
                          const size_t* region, size_t rowPitch, size_t slicePitch, void* ptr, cl_uint n,
                          const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_READ_IMAGE, n, waits, event);
  auto mem = imageOf(c, image);
  auto b = box(*mem, origin, region);
  require(ptr != nullptr, CL_INVALID_VALUE, "ptr is NULL");
  auto [rp, sp] = hostPitches(*mem, b, rowPitch, slicePitch);
  checkImageHost(*mem, true);
  if (blocking) c.block();
  auto done = planned(c, [&] { return runtime::readImage(*c.queue, *mem, b, rp, sp, ptr, c.waits); });
  c.finish(done, event, blocking);
  return CL_SUCCESS;
}

cl_int clEnqueueWriteImage(cl_command_queue queue, cl_mem image, cl_bool blocking, const size_t* origin,
                           const size_t* region, size_t rowPitch, size_t slicePitch, const void* ptr, cl_uint n,
                           const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_WRITE_IMAGE, n, waits, event);
  auto mem = imageOf(c, image);
  auto b = box(*mem, origin, region);
  require(ptr != nullptr, CL_INVALID_VALUE, "ptr is NULL");
  auto [rp, sp] = hostPitches(*mem, b, rowPitch, slicePitch);
  checkImageHost(*mem, false);
  if (blocking) c.block();
  auto done = planned(c, [&] { return runtime::writeImage(*c.queue, *mem, b, rp, sp, ptr, c.waits); });
  c.finish(done, event, blocking);
  return CL_SUCCESS;
}

cl_int clEnqueueCopyImage(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t* srcOrigin,
                          const size_t* dstOrigin, const size_t* region, cl_uint n, const cl_event* waits,
                          cl_event* event) {
  Command c(queue, CL_COMMAND_COPY_IMAGE, n, waits, event);
  auto s = imageOf(c, src), d = imageOf(c, dst);
  const auto& sf = s->image()->format();
  const auto& df = d->image()->format();
  require(sf.image_channel_order == df.image_channel_order && sf.image_channel_data_type == df.image_channel_data_type,
          CL_IMAGE_FORMAT_MISMATCH, "source and destination images have different formats");
  auto sb = box(*s, srcOrigin, region);
  auto db = box(*d, dstOrigin, region);
  if (s == d) {
    bool apart = false;
    for (int i = 0; i < 3; ++i)
      apart |= sb.origin[i] + sb.region[i] <= db.origin[i] || db.origin[i] + db.region[i] <= sb.origin[i];
    require(apart, CL_MEM_COPY_OVERLAP, "source and destination regions overlap");
  }
  auto done = planned(c, [&] { return runtime::copyImage(*c.queue, *s, *d, sb, db.origin, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t* srcOrigin,
                                  const size_t* region, size_t dstOffset, cl_uint n, const cl_event* waits,
                                  cl_event* event) {
  Command c(queue, CL_COMMAND_COPY_IMAGE_TO_BUFFER, n, waits, event);
  auto s = imageOf(c, src);
  auto d = bufferOf(c, dst);
  auto sb = box(*s, srcOrigin, region);
  checkRange(*d, dstOffset, sb.region[0] * sb.region[1] * sb.region[2] * s->image()->pixel());
  auto done = planned(c, [&] { return runtime::copyImageToBuffer(*c.queue, *s, *d, sb, dstOffset, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src, cl_mem dst, size_t srcOffset,
                                  const size_t* dstOrigin, const size_t* region, cl_uint n, const cl_event* waits,
                                  cl_event* event) {
  Command c(queue, CL_COMMAND_COPY_BUFFER_TO_IMAGE, n, waits, event);
  auto s = bufferOf(c, src);
  auto d = imageOf(c, dst);
  auto db = box(*d, dstOrigin, region);
  checkRange(*s, srcOffset, db.region[0] * db.region[1] * db.region[2] * d->image()->pixel());
  auto done = planned(c, [&] { return runtime::copyBufferToImage(*c.queue, *s, *d, srcOffset, db, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

void* clEnqueueMapImage(cl_command_queue queue, cl_mem image, cl_bool blocking, cl_map_flags flags,
                        const size_t* origin, const size_t* region, size_t* rowPitch, size_t* slicePitch, cl_uint n,
                        const cl_event* waits, cl_event* event, cl_int*) {
  Command c(queue, CL_COMMAND_MAP_IMAGE, n, waits, event);
  auto mem = imageOf(c, image);
  auto b = box(*mem, origin, region);
  require(rowPitch != nullptr, CL_INVALID_VALUE, "image_row_pitch is NULL");
  const auto t = mem->image()->type();
  require(slicePitch != nullptr ||
              !(t == CL_MEM_OBJECT_IMAGE3D || t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY),
          CL_INVALID_VALUE, "image_slice_pitch is NULL for an image with slices");
  checkMapFlags(flags);
  if (flags & CL_MAP_READ) checkHostRead(*mem);
  if (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) checkHostWrite(*mem);
  if (blocking) c.block();
  void* pointer = nullptr;
  size_t rp = 0, sp = 0;
  auto done = planned(c, [&] {
    FenceRef f;
    pointer = runtime::mapImage(*c.queue, *mem, flags, b, rp, sp, c.waits, f);
    return f;
  });
  *rowPitch = rp;
  if (slicePitch) *slicePitch = sp;
  c.finish(done, event, blocking);
  return pointer;
}

cl_int clEnqueueFillImage(cl_command_queue queue, cl_mem image, const void* color, const size_t* origin,
                          const size_t* region, cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_FILL_IMAGE, n, waits, event);
  auto mem = imageOf(c, image);
  require(color != nullptr, CL_INVALID_VALUE, "fill_color is NULL");
  auto b = box(*mem, origin, region);
  auto done = planned(c, [&] { return runtime::fillImage(*c.queue, *mem, color, b, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

// --- Shared virtual memory (runtime/SvmCommands.h) ----------------------------------------------

namespace {

// The queue's context offers SVM (the vendor checks the pointers themselves: they are its own).
void requireSvm(const Command& c) {
  require(c.queue->context().device().svmSlot().has_value(), CL_INVALID_OPERATION,
          "no device of the context offers shared virtual memory");
}

} // namespace

cl_int clEnqueueSVMMemcpy(cl_command_queue queue, cl_bool blocking, void* dst, const void* src, size_t size, cl_uint n,
                          const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_SVM_MEMCPY, n, waits, event);
  requireSvm(c);
  require(dst != nullptr && src != nullptr, CL_INVALID_VALUE, "dst_ptr or src_ptr is NULL");
  const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  require(d >= s + size || s >= d + size, CL_MEM_COPY_OVERLAP, "the source and destination overlap");
  if (blocking) c.block();
  auto done = planned(c, [&] { return runtime::svmMemcpy(*c.queue, dst, src, size, c.waits); });
  c.finish(done, event, blocking);
  return CL_SUCCESS;
}

cl_int clEnqueueSVMMemFill(cl_command_queue queue, void* ptr, const void* pattern, size_t patternSize, size_t size,
                           cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_SVM_MEMFILL, n, waits, event);
  requireSvm(c);
  require(ptr != nullptr && pattern != nullptr, CL_INVALID_VALUE, "svm_ptr or pattern is NULL");
  require(patternSize && (patternSize & (patternSize - 1)) == 0 && patternSize <= 128, CL_INVALID_VALUE,
          "pattern_size must be a power of two up to 128");
  require(reinterpret_cast<uintptr_t>(ptr) % patternSize == 0 && size % patternSize == 0, CL_INVALID_VALUE,
          "svm_ptr and size must be multiples of pattern_size");
  auto done = planned(c, [&] { return runtime::svmMemFill(*c.queue, ptr, pattern, patternSize, size, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueSVMMap(cl_command_queue queue, cl_bool blocking, cl_map_flags flags, void* ptr, size_t size, cl_uint n,
                       const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_SVM_MAP, n, waits, event);
  requireSvm(c);
  require(ptr != nullptr && size > 0, CL_INVALID_VALUE, "svm_ptr is NULL or size is 0");
  checkMapFlags(flags);
  if (blocking) c.block();
  auto done = planned(c, [&] { return runtime::svmMap(*c.queue, flags, ptr, size, c.waits); });
  c.finish(done, event, blocking);
  return CL_SUCCESS;
}

cl_int clEnqueueSVMUnmap(cl_command_queue queue, void* ptr, cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_SVM_UNMAP, n, waits, event);
  requireSvm(c);
  require(ptr != nullptr, CL_INVALID_VALUE, "svm_ptr is NULL");
  auto done = planned(c, [&] { return runtime::svmUnmap(*c.queue, ptr, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueSVMMigrateMem(cl_command_queue queue, cl_uint count, const void** pointers, const size_t* sizes,
                              cl_mem_migration_flags flags, cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_SVM_MIGRATE_MEM, n, waits, event);
  requireSvm(c);
  require(count > 0 && pointers != nullptr, CL_INVALID_VALUE, "no SVM pointers");
  for (cl_uint i = 0; i < count; ++i) require(pointers[i] != nullptr, CL_INVALID_VALUE, "an SVM pointer is NULL");
  require(!(flags & ~cl_mem_migration_flags(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)),
          CL_INVALID_VALUE, "unknown migration flags");
  auto done = planned(c, [&] { return runtime::svmMigrate(*c.queue, count, pointers, sizes, flags, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

cl_int clEnqueueSVMFree(cl_command_queue queue, cl_uint count, void* pointers[],
                        void(CL_CALLBACK* callback)(cl_command_queue, cl_uint, void*[], void*), void* userData,
                        cl_uint n, const cl_event* waits, cl_event* event) {
  Command c(queue, CL_COMMAND_SVM_FREE, n, waits, event);
  requireSvm(c);
  require((count == 0) == (pointers == nullptr), CL_INVALID_VALUE,
          "num_svm_pointers and svm_pointers disagree (one is 0 or NULL, the other not)");
  std::vector<void*> list(pointers, pointers + count); // NULL entries free nothing
  auto done = planned(c, [&] { return runtime::svmFree(c.queue, std::move(list), callback, userData, c.waits); });
  c.finish(done, event, false);
  return CL_SUCCESS;
}

} // namespace clsplit::icd::api
