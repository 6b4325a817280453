// The directory token clsplit stores with every valid copy of every byte range.
#pragma once

#include "buffer-manager/storage/HostBlock.h"
#include "device/Fence.h"

#include <cstdint>
#include <memory>

namespace clsplit::buffer {

struct Version {
  device::FenceRef ready;              // the copy is valid once this completes (null: now)
  std::shared_ptr<HostBlock> block;    // host copies: the memory holding the bytes
  uint64_t blockBase = 0;              // buffer offset held by block->data()[0]
  uint64_t producer = 0;               // launch that computed the bytes (0: host / initial)

  bool operator==(const Version&) const = default;
};

} // namespace clsplit::buffer
