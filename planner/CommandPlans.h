// The decisions of the commands other than launches, as pure functions of where the data is:
// where a read takes each piece, where a host write's bytes go, which device runs a copy, which
// devices a fill writes. icd/runtime/Commands.cpp executes them.
#pragma once

#include "buffer-manager/HolderView.h"
#include "buffer-manager/TransferPlanner.h"
#include "planner/LaunchInput.h"

#include <optional>
#include <vector>

namespace clsplit::planner {

using buffer::Holder;

// One piece of a read into host memory: a host copy's, or a device's.
using ReadPiece = buffer::PlannedMove;

// The pieces of a read of `range`: from the host where it holds the bytes, else from the lowest
// device holding them. A device read in progress goes on over a small run (up to
// `extendBytes`) that the same device also holds though the host does too - a stencil's border
// columns - so a strided layout costs one transfer, not one per row; over a larger one when the
// host does not hold it.
std::vector<ReadPiece> planRead(const buffer::HolderView& holders, ByteRange range, uint64_t extendBytes = 64 * 1024);

// The device holding the most bytes of `ranges` (a copy runs there), or nothing if no device
// holds any.
std::optional<unsigned> deviceHoldingMost(const buffer::HolderView& holders, const RangeSet& ranges, unsigned devices);

// Where the bytes of a host write go.
struct WriteInput {
  unsigned devices = 1;
  std::vector<RangeSet> heldBefore;   // per device: bytes of the range it holds with defined contents
  std::optional<unsigned> onlyDevice; // one device runs every launch
  unsigned homeDevice = 0;            // where data no device holds is likely needed next
  bool eagerUploads = true;           // CLSPLIT_EAGER_UPLOAD
  bool hostMemoryPending = false;     // an earlier command still writes the application's memory
  bool useHostPtr = false;            // the buffer is the application's memory (CL_MEM_USE_HOST_PTR)
  // CLSPLIT_WINDOWS=always: devices hold only what their slices use, so bytes no device held
  // stay in a host version until a slice fetches its part (no whole copy on the home device).
  bool windowsOnly = false;
  // The devices (for routes between them) and whether the strategy may run work on each; empty:
  // data no device holds goes to the home device alone.
  std::vector<DeviceTraits> traits;
  std::vector<bool> mayRun;
};
struct WritePlan {
  // Straight from the application's memory to this device, no host version (what a
  // single-device implementation does). Empty: a new host version holds the bytes.
  std::optional<unsigned> direct;
  // Bytes no device held: also straight to these devices, which would otherwise fetch their
  // slices from `direct` through host memory on the first split launch (between discrete GPUs
  // a device-to-host read of a pageable block ran at 1.4 GB/s: most of a short program's time).
  std::vector<unsigned> alsoTo;
  // With a host version: the bytes each device held before, uploaded at once (write-update:
  // they are likely to be read there again).
  std::vector<std::pair<unsigned, RangeSet>> uploads;
  // With a host version of bytes no device held: the whole range uploaded to the home device.
  bool uploadHome = false;
};
WritePlan planWrite(const WriteInput& input, ByteRange range);

// The devices a fill writes: every device that has the buffer (a fill costs no transfer), else
// `fallback`. Each holds a valid copy of the filled bytes afterwards.
std::vector<unsigned> planFill(const std::vector<bool>& allocated, unsigned fallback);

} // namespace clsplit::planner
