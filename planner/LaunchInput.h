// What the planner knows of one launch: the kernel's analysis, the argument values, the NDRange,
// the real devices (as traits, no OpenCL objects) and each buffer's holders. The runtime builds
// it from its objects; tests and the dry-run printer build it by hand.
#pragma once

#include "analysis/region/Instantiate.h"
#include "buffer-manager/HolderView.h"

#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace clsplit::analysis {
struct KernelAnalysis;
}

namespace clsplit::planner {

using buffer::Holder;
using buffer::HolderMask;

// One real device, as far as moving bytes is concerned.
struct DeviceTraits {
  unsigned context = 0;     // devices of one real context may copy between their buffers
  bool hostUnified = false; // its memory is the host's (CL_DEVICE_HOST_UNIFIED_MEMORY)
  unsigned real = 0;        // the real device (one selected twice: two slots, one real device)
};

// One kernel argument of a launch.
struct ArgInput {
  enum class Kind : uint8_t { Scalar, Buffer, NullBuffer, Local };
  Kind kind = Kind::Scalar;
  // Scalar: the bytes given to clSetKernelArg; an image (Buffer): its query values
  // (analysis::kImageQueryBytes), which regions may depend on like a scalar's.
  std::span<const std::byte> scalar;
  unsigned buffer = 0; // Buffer: index into LaunchInput::buffers
  uint64_t origin = 0; // Buffer: the (sub-)buffer's window in that buffer
  uint64_t size = 0;
  bool written = true; // Buffer: may the kernel write it (used where regions are not trusted)
  // Buffer: read whole wherever the kernel runs, never written (a read-only image, whose pixels
  // the analysis does not bound: every device of a split holds all of it).
  bool wholeRead = false;
};

// One buffer (the storage behind one or more arguments): its directory, seen as holders.
struct BufferInput {
  uint64_t id = 0; // stable id (partitioner, messages)
  const buffer::HolderView* holders = nullptr;
  // Per device: bytes of its copy other devices fetched recently (boundary-first launches;
  // empty when those are off).
  std::vector<RangeSet> pulled;
};

// Reads one element of the buffer bound to `arg` (indirection hints). May wait for a device.
using ElementReader =
    std::function<std::optional<analysis::ScalarValue>(unsigned arg, uint64_t offset, analysis::ScalarType)>;

struct LaunchInput {
  // The kernel's analysis; its regions are trusted only when complete (no unsplittable reason).
  const analysis::KernelAnalysis* analysis = nullptr;
  // Why the kernel cannot be split whatever its analysis says (e.g. not partition-ready).
  std::optional<std::string> unsplittable;
  std::vector<ArgInput> args;
  std::vector<BufferInput> buffers;
  analysis::NDRange range; // local size explicit (see explicitLocalSize)
  bool localGiven = false; // the application gave the local size (an unsplit launch passes NULL)
  std::vector<DeviceTraits> devices;
  ElementReader readElement; // empty: indirections are not resolved (whole buffers)
  // Boundary-first launches (BoundaryFirst.h) are allowed: a split launch whose devices' slices
  // write what other devices fetched last time launches those work-groups first, and its moves
  // go on transfer queues.
  bool overlap = false;
};

// How bytes reach a device from a holder.
enum class Route : uint8_t {
  FromHost,    // a host copy, written to the device
  InDriver,    // a copy between two devices' buffers inside their driver
  ThroughHost, // read into host memory from the holder, then written to the device
};
Route routeBetween(const std::vector<DeviceTraits>& devices, Holder from, unsigned to);
// Relative cost of moving `bytes` along the route (the transfer planner's source choice).
double moveCost(const std::vector<DeviceTraits>& devices, Holder from, Holder to, uint64_t bytes);

// A local size that divides the global size, for an application that passed NULL: what a split
// needs (work-groups are the unit of a split). `maxGroup`: CL_KERNEL_WORK_GROUP_SIZE; `required`:
// reqd_work_group_size (zeros: none).
std::array<uint64_t, 3> explicitLocalSize(const analysis::NDRange& range, size_t maxGroup,
                                          const std::array<size_t, 3>& required);

} // namespace clsplit::planner
