// support/BulkCopy.h: the same bytes as memcpy, whether one thread copies or several.
#include "support/BulkCopy.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

using clsplit::bulkCopy;

TEST_CASE("bulkCopy copies every byte, below and above its threshold and at odd sizes", "[bulkcopy]") {
  for (size_t size : {size_t(0), size_t(1), size_t(4097), (size_t(64) << 20) - 1, (size_t(96) << 20) + 12345}) {
    std::vector<uint8_t> src(size), dst(size + 16, 0xAB);
    for (size_t i = 0; i < size; ++i) src[i] = uint8_t(i * 131 + (i >> 12));
    bulkCopy(dst.data() + 8, src.data(), size);
    size_t wrong = 0;
    for (size_t i = 0; i < size; ++i) wrong += dst[8 + i] != src[i];
    CHECK(wrong == 0);
    // Nothing outside the destination range is touched.
    for (size_t i = 0; i < 8; ++i) {
      CHECK(dst[i] == 0xAB);
      CHECK(dst[8 + size + i] == 0xAB);
    }
  }
}
