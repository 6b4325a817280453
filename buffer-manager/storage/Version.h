// The directory token clsplit stores with every valid copy of every byte range.
#pragma once

#include "buffer-manager/storage/HostBlock.h"
#include "device/Fence.h"

#include <cstdint>
#include <memory>

namespace clsplit::buffer {

// Device copies carry no ordering here: a device copy's bytes are valid once its latest writer
// has completed (BufferStorage keeps that per device copy; writes to one copy are totally
// ordered), so the cells of a device copy are equal whatever command wrote them and neighbouring
// runs merge: a buffer has as many runs as distinct holder layouts, not one per past launch.
// Host copies name the block that holds their bytes, which is immutable once `ready`.
struct Version {
  device::FenceRef ready;           // host copies: the block holds the bytes once this completes (null: now)
  std::shared_ptr<HostBlock> block; // host copies: the memory holding the bytes (null: undefined bytes)
  uint64_t blockBase = 0;           // buffer offset held by block->data()[0]
  uint64_t producer = 0;            // host copies: launch that computed the bytes (0: host / initial)
  bool undefined = false;           // device copies of a buffer created without data

  bool operator==(const Version&) const = default;

  // The token of a device copy with defined contents.
  static Version device() { return Version{}; }
};

} // namespace clsplit::buffer
