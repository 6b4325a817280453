// A launch plan: what the runtime enqueues for one launch, in order, as plain values - the bytes
// to move (device-to-host legs first), one sub-kernel per device with its real offset and size,
// the atomic merges on the host, and what each device holds afterwards.
#pragma once

#include "analysis/region/Instantiate.h"
#include "buffer-manager/Directory.h"
#include "planner/LaunchInput.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clsplit::planner {

// How one sub-kernel uses one buffer, in the buffer's own offsets (sub-buffer windows applied).
struct BufferUse {
  unsigned buffer = 0; // index into LaunchInput::buffers
  RangeSet read, write, atomic;
  bool writeExact = true; // every byte of `write` is written (must-write)
  analysis::AtomicOp atomicOp = analysis::AtomicOp::None;
  analysis::ScalarType atomicType = analysis::ScalarType::Unknown;
  bool atomicMixed = false; // atomics of different ops or types on this buffer
  // Small holes between written ranges that no other slice writes: acquired before the kernel
  // and published with its writes, so the directory keeps one range where the kernel writes
  // rows with gaps (a stencil's interior) instead of thousands.
  RangeSet fill;
  RangeSet owned; // replicated plans: the bytes of `write` only this slice's work-items write
  // What the device must hold before the sub-kernel, and what it holds alone after it.
  RangeSet need, published;

  bool writes() const { return !write.empty() || !atomic.empty(); }
};

// Work-groups of a sub-kernel enqueued as a launch of their own (boundary-first launches): the
// groups writing what other devices fetch next are launched before the interior, so that the
// halo moves while the interior runs. Their regions are exact per piece (hazards per range).
struct Piece {
  analysis::Slice slice;
  std::array<uint64_t, 3> offset{0, 0, 0}, global{1, 1, 1}; // its real NDRange
  bool boundary = false; // launched first, with an event of its own (the halo waits for it)
  struct Use {
    unsigned buffer = 0;
    RangeSet read, write; // bytes it may read (all it needs valid) and may write
  };
  std::vector<Use> uses;
};

struct SubKernel {
  unsigned device = 0;
  analysis::Slice slice; // work-groups of the split dimension
  // The real NDRange of the sub-kernel (local size: the launch's).
  std::array<uint64_t, 3> offset{0, 0, 0}, global{1, 1, 1};
  std::vector<BufferUse> uses;
  // Empty: the slice is one launch. Otherwise its launches in order (boundaries first).
  std::vector<Piece> pieces;

  uint64_t groups() const { return slice.groupEnd - slice.groupBegin; }
};

// Bytes that several slices update with the same commutative atomic: merged by a reduction on
// the host after every sub-kernel (their only valid copy is then on the host).
struct AtomicMerge {
  unsigned buffer = 0;
  RangeSet region;
  analysis::AtomicOp op = analysis::AtomicOp::None;
  analysis::ScalarType type = analysis::ScalarType::Unknown;
};

// A device-to-host leg of a move through host memory.
struct Staging {
  unsigned buffer = 0;
  ByteRange range;
  unsigned from = 0; // device
};

// Bytes made valid on a device before its sub-kernel.
struct Move {
  unsigned buffer = 0;
  ByteRange range;
  Holder from = buffer::kHost; // for ThroughHost: the device staged from (the host is the source then)
  unsigned to = 0;             // device
  Route route = Route::FromHost;
};

// The slices of a launch: what depends only on the launch's values, not on where the data is
// (shared by every plan of a launch that repeats).
struct Slicing {
  std::vector<SubKernel> subKernels;  // in device order, devices with work only
  std::vector<AtomicMerge> merges;    // after the sub-kernels
  std::optional<std::string> problem; // why it runs whole although the groups asked for a split
  bool replicated = false;            // slices overlap by whole work-groups (computation replication)
};

struct LaunchPlan {
  uint32_t dim = 0;             // the split dimension
  std::vector<uint64_t> groups; // work-groups per device along `dim`, as asked
  std::shared_ptr<const Slicing> slicing;
  std::vector<Staging> staging; // enqueued first: what leaves its device through host memory
  std::vector<Move> moves;      // then: what each device receives
  // Why the launch runs whole on one device although the groups asked for a split.
  std::optional<std::string> fallback;
  // The groups were counted along another dimension than `dim` (the partitioner's measurements
  // of this launch would be in the wrong unit).
  bool remapped = false;
  // Staging legs and moves go on the devices' transfer queues, not behind their kernels
  // (boundary-first launches: the halo of the previous launch moves while its interior runs).
  bool overlap = false;

  const std::vector<SubKernel>& subKernels() const { return slicing->subKernels; }
  const std::vector<AtomicMerge>& merges() const { return slicing->merges; }
  bool split() const { return slicing->subKernels.size() > 1; }
  bool boundaryFirst() const; // some sub-kernel is cut into pieces
  // Work-groups each device runs (replicated groups count on both devices).
  std::vector<uint64_t> groupsPerDevice(size_t devices) const;
  uint64_t movedBytes() const;
};

} // namespace clsplit::planner
