// The bytes of a buffer rectangle.
#include "icd/runtime/Rect.h"

namespace clsplit::icd::runtime {

RangeSet rectRows(const Rect& rect, const std::array<size_t, 3>& region) {
  RangeSet rows;
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y) {
      uint64_t lo = rect.origin[0] + (rect.origin[1] + y) * rect.rowPitch + (rect.origin[2] + z) * rect.slicePitch;
      rows.add(ByteRange{lo, lo + region[0]});
    }
  return rows;
}

} // namespace clsplit::icd::runtime
