// Plans without devices: each buffer's directory of holders, updated by a plan's effects as the
// runtime would update it (staged bytes on the host too, moved bytes on their device, written
// bytes on their writer alone, merged atomics on the host alone). For tests and dry runs.
#pragma once

#include "buffer-manager/PullHistory.h"
#include "planner/LaunchPlan.h"

#include <memory>

namespace clsplit::planner {

class SimulatedBuffers {
public:
  // A buffer of `bytes` held by `initial` (the host: data the program wrote; every device:
  // contents undefined, as a buffer created without data). Returns its index.
  unsigned add(uint64_t bytes, HolderMask initial = buffer::bit(buffer::kHost));

  size_t count() const { return buffers_.size(); }
  const buffer::HolderView& holders(unsigned buffer) const { return *buffers_[buffer].view; }
  const buffer::Directory<uint8_t>& directory(unsigned buffer) const { return *buffers_[buffer].directory; }
  // The BufferInput of `buffer` (id: its index + 1) for a LaunchInput, with what `devices`
  // devices fetched from each other's copies lately (boundary-first launches).
  BufferInput input(unsigned buffer, unsigned devices = 0) const;

  // What the runtime's execution of `plan` does to the directories.
  void apply(const LaunchPlan& plan);
  // The host writes `range` of `buffer` (a new host version: the host holds it alone).
  void hostWrite(unsigned buffer, ByteRange range);

private:
  struct Buffer {
    std::unique_ptr<buffer::Directory<uint8_t>> directory;
    std::unique_ptr<buffer::HolderView> view;
    std::vector<buffer::PullHistory> pulled; // per device, grown on use
  };
  buffer::PullHistory& pulledFrom(unsigned buffer, unsigned device);
  std::vector<Buffer> buffers_;
};

} // namespace clsplit::planner
