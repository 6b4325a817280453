// How much memory clsplit's copies of buffers take on each real device, against a cap (the
// device's global memory, or CLSPLIT_DEVICE_MEMORY), and which copies may give theirs back.
// A buffer's copy on a device is a window of the buffer (BufferStorage::reserve): the whole
// buffer while it fits, otherwise only the bytes that device's slices use, so that a program
// larger than any one device runs split across several.
#pragma once

#include "device/Real.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace clsplit::buffer {

class QueueProvider;
struct TransferRecord;
using TransferLog = std::vector<TransferRecord>;

enum class WindowPolicy : uint8_t {
  Off,    // every copy is the whole buffer (a program must fit each device it uses)
  Auto,   // whole while the buffers a command uses fit the device, windows beyond
  Always, // only the bytes a device's slices use (tests; the cost of windows)
};

// A copy that can give its device memory back (its bytes moved to the host first).
class Evictable {
public:
  virtual ~Evictable() = default;
  // Releases this object's copies on `device`; returns the bytes freed.
  virtual uint64_t evict(cl_device_id device, QueueProvider& queues, TransferLog* log) = 0;
  // The epoch (DeviceMemory::epoch) in which its copy on `device` was last used.
  virtual uint64_t lastUse(cl_device_id device) const = 0;
};

class DeviceMemory {
public:
  struct Limits {
    uint64_t cap = UINT64_MAX;      // bytes clsplit's copies may take on the device
    uint64_t maxAlloc = UINT64_MAX; // the largest one allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE)
  };
  // Per real device (a device not listed has no limits).
  DeviceMemory(WindowPolicy policy, std::map<cl_device_id, Limits> limits);

  WindowPolicy policy() const { return policy_; }
  uint64_t cap(cl_device_id device) const;
  uint64_t maxAlloc(cl_device_id device) const;
  uint64_t used(cl_device_id device) const;
  // Whether `bytes` more fit on `device` now.
  bool fits(cl_device_id device, uint64_t bytes) const;
  // Memory allocated (positive) or released (negative) on `device`.
  void charge(cl_device_id device, int64_t bytes);

  // Over every DeviceMemory of the process (the run report's `device_memory`).
  struct Totals {
    uint64_t peakBytes = 0; // the most any one device held at once
    uint64_t capBytes = 0;  // the smallest cap of a device with copies (0: none)
    uint64_t windows = 0;   // copies made or resized to less than their whole buffer
    uint64_t evictions = 0; // copies released to make room for others
  };
  static Totals processTotals();
  // A copy became a window of its buffer (made or resized).
  static void noteWindow();

  // Commands start epochs: copies used in the current one are never evicted to make room in it.
  // Owners stamp their copies with epoch() when a command uses them (a plain store: the hot
  // path takes no lock).
  uint64_t beginEpoch() { return epoch_.fetch_add(1, std::memory_order_relaxed) + 1; }
  uint64_t epoch() const { return epoch_.load(std::memory_order_relaxed); }
  // `owner` holds a copy on `device` (once per allocation; forgotten once the owner is gone).
  void enroll(const std::shared_ptr<Evictable>& owner, cl_device_id device);
  // Evicts copies on `device` unused in this epoch, least recently used first, until `bytes`
  // more fit; returns whether they do. With `spareRecent`, copies used in the last that many
  // epochs stay too (a whole copy is not worth evicting what the program is still using).
  bool makeRoom(cl_device_id device, uint64_t bytes, QueueProvider& queues, TransferLog* log, uint64_t spareRecent = 0);

private:
  mutable std::mutex mutex_;
  WindowPolicy policy_;
  std::map<cl_device_id, Limits> limits_;
  std::map<cl_device_id, uint64_t> used_;
  std::map<std::pair<cl_device_id, const Evictable*>, std::weak_ptr<Evictable>> holders_;
  std::atomic<uint64_t> epoch_{1};
};

} // namespace clsplit::buffer
