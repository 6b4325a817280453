// The reduction that merges slices whose commutative atomics (result unused) touched the same
// bytes (thesis §3.1.4): every device started from the same base values; each result is the
// base plus every device's own effect.
#pragma once

#include "analysis/region/ScalarType.h"

#include <cstddef>
#include <vector>

namespace clsplit::buffer {

// Whether `op` on elements of `type` can be merged (integer types of 4 or 8 bytes).
bool atomicMergeable(analysis::AtomicOp op, analysis::ScalarType type);

// Merges `bytes` bytes: `base` holds the values before the kernel and receives the result;
// `partials` hold each device's values after it. Add/Sub/Inc/Dec: base + sum(partial - base)
// (wrapping, as the atomics do); Min/Max: the extreme over partials; And/Or: over partials;
// Xor: base ^ xor(partial ^ base).
void mergeAtomic(analysis::AtomicOp op, analysis::ScalarType type, std::byte* base,
                 const std::vector<const std::byte*>& partials, size_t bytes);

} // namespace clsplit::buffer
