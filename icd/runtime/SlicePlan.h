// Steps 3-4 of the launch path: each slice's byte regions per buffer storage, whether the slices
// may run apart (atomic merges, gap fills), and a per-kernel memo of the result, since an
// iterated launch repeats the same plan and instantiating strided regions costs O(rows).
#pragma once

#include "analysis/region/Instantiate.h"
#include "buffer-manager/storage/BufferStorage.h"
#include "icd/objects/Kernel.h"
#include "icd/objects/Queue.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace clsplit::icd::runtime {

// The values the region instantiation asks for, read from one launch's arguments.
class ArgValues final : public analysis::LaunchValues {
public:
  // `readContents` false: indirections are not resolved (their regions become whole buffers),
  // so nothing waits for a device; right when the launch is not split anyway.
  ArgValues(const std::vector<Kernel::Arg>& args, Queue& queue, bool readContents = true)
      : args_(args), queue_(queue), readContents_(readContents) {}

  std::span<const std::byte> scalarBytes(unsigned arg) const override;
  uint64_t bufferSize(unsigned arg) const override;
  // An indirection hint: the one place the enqueue waits for devices (two elements).
  std::optional<analysis::ScalarValue> readElement(unsigned arg, uint64_t offset,
                                                   analysis::ScalarType type) const override;
  // Whether an instantiation read buffer contents (its result may differ next launch).
  bool readBuffers() const { return readBuffers_; }

private:
  const std::vector<Kernel::Arg>& args_;
  Queue& queue_;
  bool readContents_;
  mutable bool readBuffers_ = false;
};

// How one buffer storage is used by one slice, in root-buffer offsets.
struct StorageUse {
  buffer::BufferStorage* storage = nullptr;
  uint64_t bufferId = 0;
  RangeSet read{}, write{}, atomic{};
  bool writeExact = true;
  // Small holes between written ranges that no other slice writes: acquired before the kernel
  // and published with its writes, so the directory keeps one range where the kernel writes
  // rows with gaps (a stencil's interior) instead of thousands.
  RangeSet fill{};
  analysis::AtomicOp atomicOp = analysis::AtomicOp::None;
  analysis::ScalarType atomicType = analysis::ScalarType::Unknown;
  bool atomicMixed = false; // atomics of different ops or types on this buffer
  // Replicated plans: the bytes of `write` this slice owns (only its work-items may write them).
  RangeSet owned{};
  // What the device must hold before the kernel, and what it holds alone after it (both set by
  // planSlices once the slices are final).
  RangeSet need{}, published{};

  bool writes() const { return !write.empty() || !atomic.empty(); }
};

struct SliceWork {
  unsigned slot = 0;
  analysis::Slice slice;
  std::vector<StorageUse> uses;
};

// Bytes that several slices update with the same commutative atomic: merged by a reduction.
struct AtomicMerge {
  buffer::BufferStorage* storage = nullptr;
  RangeSet region;
  analysis::AtomicOp op = analysis::AtomicOp::None;
  analysis::ScalarType type = analysis::ScalarType::Unknown;
};

struct SlicePlan {
  std::vector<SliceWork> slices;   // in slot order, non-empty slices only
  std::vector<AtomicMerge> merges;
  std::optional<std::string> problem; // why the launch runs whole although it was split
  bool replicated = false;            // slices overlap by whole work-groups (computation replication)
};

// Slices of `groups[slot]` work-groups of dimension `dim`, laid out in slot order. If their
// may-writes overlap, neighbouring slices are widened to run some work-groups twice (computation
// replication) when that gives every written byte an owner; otherwise (or with atomics that
// cannot be merged) the whole range runs on the slot that was given the most groups, and
// `problem` says why.
SlicePlan planSlices(const Kernel& kernel, const std::vector<Kernel::Arg>& args,
                     const analysis::NDRange& range, uint32_t dim, const std::vector<uint64_t>& groups,
                     const ArgValues& values);

// The launch path's memory of a kernel's recent launches. A launch that repeats one of them
// exactly (range, arguments, and for plans the split) gets its split dimension and plan again;
// callers remember only what was computed without reading buffer contents. Thread-safe.
class LaunchMemo {
public:
  // The memo kept with `kernel` (Kernel::launchState).
  static std::shared_ptr<LaunchMemo> of(Kernel& kernel);
  // Identifies a launch: its range and every argument (buffer storages and windows, scalars).
  static std::string key(const analysis::NDRange& range, const std::vector<Kernel::Arg>& args);

  std::optional<uint32_t> dimension(const std::string& key) const;
  void rememberDimension(const std::string& key, uint32_t dim);
  std::shared_ptr<const SlicePlan> plan(const std::string& key, uint32_t dim,
                                        const std::vector<uint64_t>& groups) const;
  void rememberPlan(const std::string& key, uint32_t dim, const std::vector<uint64_t>& groups,
                    std::shared_ptr<const SlicePlan> plan);

private:
  static constexpr size_t kEntries = 4; // ping-ponged buffers alternate between a few launches
  struct Entry {
    std::string key;
    uint32_t dim = 0;
    std::vector<uint64_t> groups;
    std::shared_ptr<const SlicePlan> plan;
  };
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, uint32_t>> dims_;
  std::vector<Entry> plans_;
};

} // namespace clsplit::icd::runtime
