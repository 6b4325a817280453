// The rectangles of clEnqueue{Read,Write,Copy}BufferRect and the bytes they cover: apart from
// the commands so that they can be tested without devices.
#pragma once

#include "analysis/region/RangeSet.h"

#include <array>
#include <cstddef>

namespace clsplit::icd::runtime {

// A 3-D rectangle of a buffer or of host memory (clEnqueue*BufferRect).
struct Rect {
  std::array<size_t, 3> origin;
  size_t rowPitch;
  size_t slicePitch;
};

// The byte ranges of a rectangle (rows), relative to the start of the object.
RangeSet rectRows(const Rect& rect, const std::array<size_t, 3>& region);

} // namespace clsplit::icd::runtime
