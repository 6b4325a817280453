// The hazards of one device copy of a buffer: which earlier commands a new command reading or
// writing some bytes of that copy must wait for. Whole-copy commands are tracked as before (a
// write waits for every earlier reader and writer); commands that say which bytes they touch
// (split launches and their transfers) are tracked per byte range for their last few accesses,
// so that a halo read out of a device waits only for the work-groups that wrote the halo, not
// for the interior still running on the same device (boundary-first launches).
#pragma once

#include "analysis/region/RangeSet.h"
#include "device/Fence.h"

#include <vector>

namespace clsplit::buffer {

class CopyHazards {
public:
  // Fences after which `bytes` (or every byte) of the copy hold their latest written values.
  void addValidAfter(device::WaitList& waits) const;
  void addValidAfter(const RangeSet& bytes, device::WaitList& waits) const;
  std::vector<device::FenceRef> validAfter() const;
  std::vector<device::FenceRef> validAfter(const RangeSet& bytes) const;
  // Fences a command overwriting `bytes` (or any byte) must wait for: earlier readers and writers.
  void addWriteHazards(device::WaitList& waits) const;
  void addWriteHazards(const RangeSet& bytes, device::WaitList& waits) const;
  std::vector<device::FenceRef> writeHazards() const;

  // A command that read the whole copy, or wrote it after waiting for addWriteHazards().
  void noteRead(const device::FenceRef& fence);
  void noteWrite(const device::FenceRef& fence);
  // A command that read (wrote) `bytes` after waiting for the ranged queries above.
  void noteRead(const RangeSet& bytes, const device::FenceRef& fence);
  void noteWrite(const RangeSet& bytes, const device::FenceRef& fence);

  // Whether every write so far is known complete by `complete` (which may also ask drivers),
  // asked of the latest write per real queue only: in-order queues make its completion imply
  // the others' (rusticl reported an earlier command still running after a later one ended).
  template <class Complete>
  bool writesComplete(Complete&& complete) const {
    for (const auto& f : validAfter())
      if (!complete(f)) return false;
    return true;
  }

  // Ranged accesses kept before the oldest are folded into the whole-copy record (between this
  // and twice this many: the window is trimmed when it has doubled).
  static constexpr size_t kRecentAccesses = 12;
  // A ranged access with more disjoint ranges is kept as its hull (more waiting, never less):
  // a 2-D slice's rows are nearly their hull, and copying and comparing them per command cost
  // more than the few waits the gaps (border columns) could save.
  static constexpr size_t kMaxRanges = 8;

  size_t recentCount() const { return recent_.size(); } // for tests

private:
  struct Access {
    Access(const RangeSet& accessed, const device::FenceRef& f, bool w);
    // Whether the access may touch `other` (its hull is known to overlap other's).
    bool touches(const RangeSet& other) const { return bytes.empty() || bytes.intersects(other); }
    RangeSet bytes; // empty: `hull` stands for them (more than kMaxRanges ranges)
    ByteRange hull; // of the bytes accessed
    device::FenceRef fence;
    // The fence's real queue and position, asked once (checked for every later command).
    cl_command_queue queue = nullptr;
    uint64_t position = 0;
    bool write = false;
  };
  void addRecent(const RangeSet& bytes, bool writesOnly, device::WaitList& waits) const;
  void fold(const Access& access);
  void prune();

  // Everything older than `recent_`, and the whole-copy accesses: the latest fence per real
  // queue (in-order queues: it implies the earlier ones) and host fences until complete.
  std::vector<device::FenceRef> olderReads_, olderWrites_;
  std::vector<Access> recent_; // oldest first
};

} // namespace clsplit::buffer
