// memcpy for the large copies clsplit makes into its own host memory (a program's initial data,
// host writes kept on the host): split over several threads from 64 MiB on, because a copy into
// fresh pages is bound by page faults, not bandwidth (two 44 GB writes took 79 s on one thread).
#pragma once

#include <cstddef>

namespace clsplit {

// The bytes of [src, src + size) copied to dst (not overlapping), as std::memcpy.
void bulkCopy(void* dst, const void* src, size_t size);

} // namespace clsplit
