// The storage behind one virtual buffer: a real buffer per device slot (allocated on first
// use), host versions, and the directory saying who holds valid bytes. Its operations execute
// the transfers a planner chose (planner/Moves.h) and keep the directory true (thesis
// §2.3.3-2.3.4): copies inside a driver, reads into host versions and writes from them,
// everything chained with events so the application never waits for a device while enqueueing.
//
// Not thread-safe by itself: callers hold their context's planning lock.
#pragma once

#include "buffer-manager/Directory.h"
#include "buffer-manager/HolderView.h"
#include "buffer-manager/PullHistory.h"
#include "buffer-manager/TransferPlanner.h"
#include "buffer-manager/storage/CopyHazards.h"
#include "buffer-manager/storage/DeviceMemory.h"
#include "buffer-manager/storage/ImageLayout.h"
#include "buffer-manager/storage/PinnedPool.h"
#include "buffer-manager/storage/Version.h"
#include "device/Real.h"

#include <map>
#include <optional>
#include <vector>

namespace clsplit::buffer {

// One device slot as the storage sees it.
struct StorageSlot {
  cl_context context = nullptr; // the real context (shared by the devices of one platform)
  cl_device_id device = nullptr;
  bool hostUnified = false; // CL_DEVICE_HOST_UNIFIED_MEMORY
};

// Which real queue of a slot a transfer goes on: the one its kernels run on, or a second one,
// so that a halo moves while the same device still computes (boundary-first launches).
enum class Lane : uint8_t { Compute, Transfer };

// The real queue to use on each slot for the command being planned.
class QueueProvider {
public:
  virtual ~QueueProvider() = default;
  virtual cl_command_queue queue(unsigned slot) = 0;
  virtual cl_command_queue transferQueue(unsigned slot) { return queue(slot); }
  // Whether commands need events of their own (profiling, measurements); without, they may be
  // enqueued eventless (device/Enqueue.h).
  virtual bool timesCommands() { return true; }
};

enum class TransferKind { HostToDevice, DeviceToHost, DeviceToDevice };

// One transfer clsplit enqueued (for the run report and the partitioner's models).
struct TransferRecord {
  TransferKind kind;
  int from = -1; // slot, or -1 for the host
  int to = -1;   // slot, or -1 for the host
  uint64_t bytes = 0;
  uint64_t producer = 0; // launch that computed the moved bytes (0: host data)
  device::FenceRef fence;
};
using TransferLog = std::vector<TransferRecord>;

class BufferStorage final : public Evictable, public std::enable_shared_from_this<BufferStorage> {
public:
  // `initial`: bytes to copy in (CL_MEM_COPY_HOST_PTR), or `useHostPtr`: the application memory
  // backing the buffer (CL_MEM_USE_HOST_PTR); neither: contents undefined.
  // Host versions come from `pinned` when given (PinnedPool.h). With `image`, the storage holds
  // an image's packed bytes (ImageLayout.h): its device copies are real images, moved by whole
  // rows (the directory of an image only ever changes whole rows).
  // With `memory`, device copies are accounted there and may be windows (DeviceMemory.h).
  BufferStorage(std::vector<StorageSlot> slots, uint64_t size, const void* initial, void* useHostPtr,
                std::shared_ptr<PinnedPool> pinned = nullptr, std::optional<ImageLayout> image = std::nullopt,
                std::shared_ptr<DeviceMemory> memory = nullptr);
  ~BufferStorage() override;
  BufferStorage(const BufferStorage&) = delete;
  BufferStorage& operator=(const BufferStorage&) = delete;

  uint64_t size() const { return size_; }
  // The image's layout, or null for a buffer.
  const ImageLayout* image() const { return image_ ? &*image_ : nullptr; }
  // Changes whenever which device holds which bytes changes, a write included (values derived
  // from the contents, such as indirection elements read for planning, stay valid until then;
  // not for CL_MEM_USE_HOST_PTR memory, which the application may write directly).
  uint64_t directoryGeneration() const { return directory_.generation(); }
  unsigned slotCount() const { return static_cast<unsigned>(slots_.size()); }
  void* useHostPtr() const { return useHostPtr_; }
  const Directory<Version>& directory() const { return directory_; }
  // The directory as a planner sees it (holders per byte).
  const HolderView& holders() const { return holders_; }
  // Host memory for a new host version of this buffer (pinned when the context pins).
  std::shared_ptr<HostBlock> allocateHost(size_t size) { return allocateHostBlock(pinned_.get(), size); }
  // ... for bytes staged from one device to others (small ones pinned too).
  std::shared_ptr<HostBlock> allocateStaging(size_t size) { return allocateStagingBlock(pinned_.get(), size); }

  // The real buffer (or image) of `slot`, allocated whole on first use. It holds the bytes of
  // window(slot) at its offset 0: the whole buffer unless reserve() chose less.
  cl_mem deviceBuffer(unsigned slot);
  // A real sub-buffer of `slot`'s buffer for [origin, origin+size) (cached; a whole copy only).
  cl_mem deviceView(unsigned slot, uint64_t origin, uint64_t size, cl_mem_flags flags);
  bool allocatedOn(unsigned slot) const { return static_cast<bool>(devices_[slot].buffer); }
  // The bytes `slot`'s copy holds room for (empty when not allocated).
  ByteRange window(unsigned slot) const { return devices_[slot].window; }
  // Whether `slot` has, or would get on first use, a copy of the whole buffer.
  bool wholeOn(unsigned slot) const { return !devices_[slot].buffer || devices_[slot].window.size() == size_; }

  // How reserve() may change a copy.
  enum class Room : uint8_t {
    Whole, // the whole buffer if it fits the device (after evicting copies unused by the
           // current command), else as Grow
    Grow,  // a window that keeps what the copy holds and also covers `need`
    Tight, // a window around `need` only: the device is short of memory, and what the copy
           // alone held beyond it moves to the host
  };
  // Makes `slot`'s copy hold room for `need` before a command uses those bytes there. A copy
  // that changes keeps the bytes it held inside its new window (copied on the device).
  // Throws Error(CL_MEM_OBJECT_ALLOCATION_FAILURE) when the device cannot hold that.
  void reserve(unsigned slot, ByteRange need, Room room, QueueProvider& queues, TransferLog* log);
  void reserveWhole(unsigned slot, QueueProvider& queues, TransferLog* log) {
    reserve(slot, ByteRange{0, size_}, Room::Whole, queues, log);
  }
  // Whole where the buffer fits `slot`'s device now, else Grow.
  Room defaultRoom(unsigned slot) const;
  // Room for `range` on `slot` as the device's memory allows (Whole where the buffer fits,
  // else Grow): what a transfer or command into those bytes asks first. Free when the copy
  // already holds room for them.
  void cover(unsigned slot, ByteRange range, QueueProvider& queues, TransferLog* log) {
    const auto& c = devices_[slot];
    if (!memory_ || (c.buffer && c.window.lo <= range.lo && range.hi <= c.window.hi)) return;
    reserve(slot, range, defaultRoom(slot), queues, log);
  }
  // Evictable: every copy on `device` goes (its bytes held nowhere else move to the host).
  uint64_t evict(cl_device_id device, QueueProvider& queues, TransferLog* log) override;
  uint64_t lastUse(cl_device_id device) const override;
  // Its copies are used by the current command (DeviceMemory::beginEpoch): none of them is
  // evicted to make room for another copy the command needs.
  void markInUse();

  // Transfers (what a planner chose; each updates the directory). Each waits for, and is
  // recorded as, an access of its own bytes only (CopyHazards), on the slot's `lane`.
  // `range` of `from`'s copy read into a new host version (which becomes a valid host copy).
  // Returns the read's fence.
  device::FenceRef stageToHost(ByteRange range, unsigned from, QueueProvider& queues, TransferLog* log,
                               Lane lane = Lane::Compute);
  // `range` of `from`'s copy moved into `to`'s through the pool's staging ring, in chunks (no
  // host version is kept). False, with nothing done, when there is no ring or its blocks are
  // not pinned yet. On a failed enqueue, `*failed` names the device it happened on.
  bool moveThroughRing(ByteRange range, unsigned from, unsigned to, QueueProvider& queues, TransferLog* log, Lane lane,
                       unsigned* failed);
  // `range`, valid on the host, written from its host versions into `to`'s copy.
  void copyFromHost(ByteRange range, unsigned to, QueueProvider& queues, TransferLog* log, Lane lane = Lane::Compute);
  // `range` copied from `from`'s copy to `to`'s inside their driver (same real context).
  void copyInDriver(ByteRange range, unsigned from, unsigned to, QueueProvider& queues, TransferLog* log,
                    Lane lane = Lane::Compute);

  // What a command reading `slot`'s copy (or `bytes` of it) must wait for: the writers of its
  // bytes (nothing if none or complete).
  std::vector<device::FenceRef> validAfter(unsigned slot) const { return devices_.at(slot).hazards.validAfter(); }
  std::vector<device::FenceRef> validAfter(unsigned slot, const RangeSet& bytes) const {
    return devices_.at(slot).hazards.validAfter(bytes);
  }
  void addValidAfter(unsigned slot, device::WaitList& waits) const { devices_.at(slot).hazards.addValidAfter(waits); }
  void addValidAfter(unsigned slot, const RangeSet& bytes, device::WaitList& waits) const {
    devices_.at(slot).hazards.addValidAfter(bytes, waits);
  }
  // Fences a command writing `slot`'s real buffer must wait for (earlier readers and writers).
  std::vector<device::FenceRef> writeHazards(unsigned slot) const { return devices_.at(slot).hazards.writeHazards(); }
  // The same, added to `waits` (no list built: this runs for every buffer a launch writes);
  // with `bytes`, for a command writing only those.
  void addWriteHazards(unsigned slot, device::WaitList& waits) const {
    devices_.at(slot).hazards.addWriteHazards(waits);
  }
  void addWriteHazards(unsigned slot, const RangeSet& bytes, device::WaitList& waits) const {
    devices_.at(slot).hazards.addWriteHazards(bytes, waits);
  }
  // Whole-copy accesses (a write waited for addWriteHazards(slot)), and ranged ones (waited for
  // the ranged queries of its bytes).
  void noteRead(unsigned slot, const device::FenceRef& fence) { devices_.at(slot).hazards.noteRead(fence); }
  void noteWrite(unsigned slot, const device::FenceRef& fence) { devices_.at(slot).hazards.noteWrite(fence); }
  void noteRead(unsigned slot, const RangeSet& bytes, const device::FenceRef& fence) {
    devices_.at(slot).hazards.noteRead(bytes, fence);
  }
  void noteWrite(unsigned slot, const RangeSet& bytes, const device::FenceRef& fence) {
    devices_.at(slot).hazards.noteWrite(bytes, fence);
  }

  // Bytes of `slot`'s copy that other devices fetched from it since its last two writes (the
  // halo its next writer should produce first: boundary-first launches).
  RangeSet recentlyPulled(unsigned slot) const { return devices_.at(slot).pulled.recent(); }

  // After a command on `slot` wrote `written`: `slot` is its only valid holder.
  void publishWrite(const RangeSet& written, unsigned slot, const device::FenceRef& fence, uint64_t producer);
  // `slot` also holds `ranges` (e.g. a replicated fill), valid after `fence`.
  void publishCopy(const RangeSet& ranges, unsigned slot, const device::FenceRef& fence, uint64_t producer);
  // A host version: `block` holds buffer offsets [base, base + block size); it becomes the
  // only valid copy of `ranges` once `ready` completes (null: at once).
  void publishHostBlock(const RangeSet& ranges, std::shared_ptr<HostBlock> block, uint64_t base,
                        const device::FenceRef& ready);
  // Convenience: a new host version of `range` copied from `src` now.
  void writeFromHost(ByteRange range, const void* src, const device::FenceRef& ready);
  // The application's bytes straight into `slot`'s copy, after `after`, with no host version
  // (`src` must stay valid until the returned fence completes): what a single-device
  // implementation does, for when one device runs everything.
  // With `alone` false, `slot` holds the bytes beside their other holders (a copy of the same
  // bytes written to several devices).
  device::FenceRef writeToDevice(ByteRange range, const void* src, unsigned slot,
                                 const std::vector<device::FenceRef>& after, QueueProvider& queues, TransferLog* log,
                                 bool alone = true);

  // Copies `range` into `dst` piece by piece as planned (planner::planRead: a piece's source is
  // the host or a device holding all of it): host versions by host work, device copies by reads
  // enqueued on their slots, all after `after`. Returns the fence of the whole copy.
  device::FenceRef readPieces(const std::vector<PlannedMove>& pieces, ByteRange range, void* dst,
                              const std::vector<device::FenceRef>& after, QueueProvider& queues, TransferLog* log);

  // CL_MEM_USE_HOST_PTR: brings the bytes the application's memory lacks (written elsewhere
  // since they were last brought there) into it, where their writer has completed: from a
  // device copy by a read, from another host version by a copy. The host then holds them in
  // the application's memory too. Bytes whose writer is still running stay for the next call
  // (waiting for them could wait for a command gated on a user event not yet set). Returns the
  // fences of the reads; nothing when the application's memory holds every byte.
  // `settled`: (real queue, position) pairs the caller has seen complete: a command enqueued on
  // such a queue at or before that position has completed too (in-order queues), whatever its
  // own event says yet (rusticl updates an earlier command's status after a later one's).
  using Settled = std::vector<std::pair<cl_command_queue, uint64_t>>;
  std::vector<device::FenceRef> bringHome(QueueProvider& queues, TransferLog* log, const Settled& settled = {});
  // The same for every byte written on a device, whether or not its writer has completed: the
  // reads wait for the writers (as commands, not on the host). For memory that other commands
  // reach directly (a buffer on SVM memory, which SVM commands and kernels use): what is
  // enqueued after the returned fences sees the buffer's bytes there.
  std::vector<device::FenceRef> bringHomeAfterWriters(QueueProvider& queues, TransferLog* log);
  // CL_MEM_USE_HOST_PTR, after bringHome's reads completed: the application's memory becomes the
  // only valid copy of the bytes it holds current, so that a device fetches them again before
  // using them - the program may write that memory directly, as programs written for CPU
  // runtimes do. Bytes whose newer version lives elsewhere (a writer still running) stay there.
  void giveHomeTheBytes();

  // Copies `ranges` of `slot`'s own copy, whatever the directory says of it, into `dst` (which
  // holds buffer offsets from `base`), after `after`: the partial results of an atomic merge.
  device::FenceRef readFromSlot(const RangeSet& ranges, unsigned slot, std::byte* dst, uint64_t base,
                                const std::vector<device::FenceRef>& after, QueueProvider& queues, TransferLog* log);

  // Whether `slot` holds a valid copy of every byte (O(1) while the directory is unchanged).
  bool validEverywhereOn(unsigned slot) const { return summary().everywhere & bit(deviceHolder(slot)); }
  // Whether no device but `slot` holds a copy with defined contents of any byte (the host may;
  // the undefined contents of a buffer created without data count as held by nobody).
  bool noOtherDeviceHolds(unsigned slot) const {
    return (summary().definedAnywhere & ~(bit(kHost) | bit(deviceHolder(slot)))) == 0;
  }
  // After a command on `slot` that may have written any byte, while `slot` held all of them:
  // `slot` becomes the only holder of the whole buffer (nothing changes when it already is).
  void publishWholeOn(unsigned slot, uint64_t producer);

  // Per device slot, the bytes of `range` it holds with defined contents (the bytes of a buffer
  // created without data are valid everywhere, yet nobody holds them in this sense).
  std::vector<RangeSet> heldByDevices(ByteRange range) const;
  // Holders valid on every byte of `ranges`.
  HolderMask holdersOfAll(const RangeSet& ranges) const { return holders_.holdersOfAll(ranges); }
  // Keeps `block` alive until `fence` completes (an asynchronous transfer reads or writes it).
  void retainUntil(const device::FenceRef& fence, std::shared_ptr<HostBlock> block);
  // Every fence of work that may still touch this storage's memory.
  std::vector<device::FenceRef> pending() const;

private:
  std::vector<device::FenceRef> bringHomeImpl(QueueProvider& queues, TransferLog* log, const Settled& settled,
                                              bool afterWriters);

  struct DeviceCopy {
    device::RealMem buffer;
    ByteRange window;     // the bytes `buffer` holds, from its offset 0
    uint64_t lastUse = 0; // DeviceMemory epoch of the last command that used it
    std::map<std::pair<uint64_t, uint64_t>, device::RealMem> views;
    CopyHazards hazards;   // earlier readers and writers, per byte range for the latest few
    uint64_t producer = 0; // the launch that last wrote this copy (transfer volumes' producer)
    PullHistory pulled;    // what other devices fetched from this copy lately
  };
  // Enqueues one real command on `slot`'s queue after `after` (and after the earlier readers
  // and writers of the slot's copy, if it overwrites it) through
  // enqueue(queue, wait count, wait list, &event); returns its fence.
  // `waitedOn`: another queue or the host will wait for it at once (staging), so it gets its
  // own event even where commands go without (a marker made later costs a command and a flush).
  // `overwrites`: the bytes it writes (only their readers and writers are waited for), with
  // `overwritesCopy` set.
  template <class Enqueue>
  device::FenceRef enqueueOn(unsigned slot, QueueProvider& queues, const std::vector<device::FenceRef>& after,
                             bool overwritesCopy, const char* what, Enqueue&& enqueue, bool waitedOn = false,
                             Lane lane = Lane::Compute, const RangeSet* overwrites = nullptr);

  // `slot`'s copy becomes one of `window` (empty: released); see reserve().
  void resize(unsigned slot, ByteRange window, QueueProvider& queues, TransferLog* log);
  void allocate(unsigned slot, ByteRange window);
  // The offset in `slot`'s real buffer of buffer offset `offset`, checking [offset, +size) is
  // inside its window.
  size_t local(unsigned slot, uint64_t offset, uint64_t size) const;

  // One real read, write or copy between a slot's copy and host memory (or the same bytes of
  // another slot's copy): a buffer command, or the image commands of those rows.
  cl_int readReal(cl_command_queue q, unsigned slot, size_t offset, size_t size, void* dst, cl_uint n,
                  const cl_event* waits, cl_event* event);
  cl_int writeReal(cl_command_queue q, unsigned slot, size_t offset, size_t size, const void* src, cl_uint n,
                   const cl_event* waits, cl_event* event);
  cl_int copyReal(cl_command_queue q, unsigned from, unsigned to, size_t offset, size_t size, cl_uint n,
                  const cl_event* waits, cl_event* event);

  // Holders valid on every byte, and holding defined contents of some byte, as of a directory
  // generation.
  struct Summary {
    uint64_t generation = ~uint64_t{0};
    HolderMask everywhere = 0, definedAnywhere = 0;
  };
  const Summary& summary() const;

  std::vector<StorageSlot> slots_;
  mutable Summary summary_;
  // The directory's generation right after publishWholeOn(slot) left `slot` the only holder.
  struct Published {
    unsigned slot = ~0u;
    uint64_t generation = ~uint64_t{0};
  } published_;
  std::shared_ptr<PinnedPool> pinned_;
  uint64_t size_;
  void* useHostPtr_;
  std::optional<ImageLayout> image_;
  std::shared_ptr<DeviceMemory> memory_;
  Directory<Version> directory_;
  DirectoryHolders<Version> holders_{directory_};
  std::vector<DeviceCopy> devices_;
  std::vector<std::pair<device::FenceRef, std::shared_ptr<HostBlock>>> retained_;
  uint64_t retainedBytes_ = 0;
  size_t pruneRetainedAbove_ = 16;
  uint64_t pruneRetainedBytesAbove_ = 16 << 20;
};

} // namespace clsplit::buffer
