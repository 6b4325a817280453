// icd/runtime/Rect.h: the bytes a buffer rectangle covers (what the *BufferRect commands move and
// what clEnqueueCopyBufferRect's overlap check compares).
#include "icd/runtime/Rect.h"

#include <catch2/catch.hpp>

using clsplit::ByteRange;
using clsplit::RangeSet;
using clsplit::icd::runtime::Rect;
using clsplit::icd::runtime::rectRows;

TEST_CASE("a rectangle is one range per row, from its origin, rows a pitch apart", "[rect]") {
  const Rect rect{{4, 1, 0}, 16, 64};
  CHECK(rectRows(rect, {8, 2, 1}) == (RangeSet{{20, 28}, {36, 44}}));
}

TEST_CASE("slices are a slice pitch apart, and the origin's slice counts", "[rect]") {
  const Rect rect{{2, 0, 1}, 10, 100};
  CHECK(rectRows(rect, {3, 2, 2}) == (RangeSet{{102, 105}, {112, 115}, {202, 205}, {212, 215}}));
}

TEST_CASE("rows as wide as the pitch join into one range per slice", "[rect]") {
  const Rect rect{{0, 0, 0}, 10, 40};
  CHECK(rectRows(rect, {10, 3, 2}) == (RangeSet{{0, 30}, {40, 70}}));
  CHECK(rectRows(rect, {10, 4, 2}) == RangeSet::of(0, 80)); // slices touch: one range
}

TEST_CASE("an empty region covers no bytes", "[rect]") {
  const Rect rect{{1, 2, 3}, 16, 256};
  CHECK(rectRows(rect, {0, 4, 4}).empty());
  CHECK(rectRows(rect, {8, 0, 4}).empty());
  CHECK(rectRows(rect, {8, 4, 0}).empty());
}

TEST_CASE("the bytes are relative to the object: large offsets are not truncated", "[rect]") {
  const size_t row = size_t(1) << 20, slice = size_t(1) << 33; // 8 GiB slices
  const Rect rect{{0, 0, 1}, row, slice};
  const RangeSet rows = rectRows(rect, {16, 1, 2});
  CHECK(rows == (RangeSet{{slice, slice + 16}, {2 * slice, 2 * slice + 16}}));
  CHECK(rows.bytes() == 32);
}
