// An image's packed bytes and the boxes of its enqueue calls, without a device: runs of whole
// rows become at most three boxes (a partial slice at either end, whole slices between), each
// box's bytes are exactly the rows it names, and anything else is refused.
#include "buffer-manager/storage/ImageLayout.h"

#include <catch2/catch.hpp>

using namespace clsplit;
using clsplit::buffer::ImageBox;
using clsplit::buffer::ImageLayout;

namespace {

cl_image_desc desc(cl_mem_object_type type, size_t w, size_t h = 0, size_t d = 0, size_t layers = 0) {
  cl_image_desc out{};
  out.image_type = type;
  out.image_width = w;
  out.image_height = h;
  out.image_depth = d;
  out.image_array_size = layers;
  out.image_row_pitch = 4096; // the application's pitches are not the storage's
  return out;
}

const cl_image_format rgba8{CL_RGBA, CL_UNORM_INT8};
const cl_image_format rFloat{CL_R, CL_FLOAT};

RangeSet bytesOfAll(const ImageLayout& l, const std::vector<ImageBox>& boxes) {
  RangeSet out;
  for (const auto& b : boxes) out.add(l.bytesOf(b));
  return out;
}

} // namespace

TEST_CASE("pixel sizes of the formats OpenCL defines", "[image]") {
  CHECK(buffer::pixelSize(rgba8) == 4);
  CHECK(buffer::pixelSize({CL_RGBA, CL_FLOAT}) == 16);
  CHECK(buffer::pixelSize({CL_RG, CL_HALF_FLOAT}) == 4);
  CHECK(buffer::pixelSize({CL_RGB, CL_UNORM_SHORT_565}) == 2);
  CHECK(buffer::pixelSize({CL_RGB, CL_UNORM_INT_101010}) == 4);
  CHECK(buffer::pixelSize({CL_RGBA, CL_UNORM_SHORT_565}) == 0); // packed types need an RGB order
  CHECK(buffer::pixelSize({CL_RGBA, 0x7777}) == 0);
  CHECK(buffer::pixelSize({0x7777, CL_FLOAT}) == 0);
}

TEST_CASE("a 3-D image: packed slices, row runs as partial and whole slices", "[image]") {
  const ImageLayout l(rFloat, desc(CL_MEM_OBJECT_IMAGE3D, 16, 8, 4), CL_MEM_READ_WRITE);
  CHECK(l.rowPitch() == 64);
  CHECK(l.slicePitch() == 512);
  CHECK(l.bytes() == 2048);
  CHECK(l.desc().image_row_pitch == 0); // real images are made packed
  CHECK(l.extent() == std::array<size_t, 3>{16, 8, 4});

  auto whole = l.boxesOf({0, 2048});
  REQUIRE(whole);
  REQUIRE(whole->size() == 1);
  CHECK(whole->front() == l.whole());
  CHECK(whole->front() == ImageBox{{0, 0, 0}, {16, 8, 4}});

  // Rows 6..(8+8+3) = the last two rows of slice 0, slices 1 and 2 whole, three rows of slice 3.
  auto run = l.boxesOf({6 * 64, (8 * 3 + 3) * 64});
  REQUIRE(run);
  REQUIRE(run->size() == 3);
  CHECK((*run)[0] == ImageBox{{0, 6, 0}, {16, 2, 1}});
  CHECK((*run)[1] == ImageBox{{0, 0, 1}, {16, 8, 2}});
  CHECK((*run)[2] == ImageBox{{0, 0, 3}, {16, 3, 1}});
  CHECK(bytesOfAll(l, *run) == RangeSet::of(6 * 64, 27 * 64));

  // Inside one slice: one box.
  auto inside = l.boxesOf({(8 + 2) * 64, (8 + 5) * 64});
  REQUIRE(inside);
  REQUIRE(inside->size() == 1);
  CHECK(inside->front() == ImageBox{{0, 2, 1}, {16, 3, 1}});

  // Not whole rows, or outside: refused.
  CHECK_FALSE(l.boxesOf({10, 640}));
  CHECK_FALSE(l.boxesOf({0, 2048 + 64}));
}

TEST_CASE("a box's bytes: one range per row, or per slice when rows are whole", "[image]") {
  const ImageLayout l(rgba8, desc(CL_MEM_OBJECT_IMAGE2D, 8, 4), CL_MEM_READ_ONLY);
  CHECK(l.access() == CL_MEM_READ_ONLY);
  CHECK(l.slicePitch() == 0);
  CHECK(l.bytesOf(ImageBox{{2, 1, 0}, {3, 2, 1}}) == RangeSet({{32 + 8, 32 + 20}, {64 + 8, 64 + 20}}));
  CHECK(l.bytesOf(ImageBox{{0, 1, 0}, {8, 2, 1}}) == RangeSet::of(32, 96));
}

TEST_CASE("1-D arrays: a layer is a row, and the second coordinate", "[image]") {
  const ImageLayout l(rgba8, desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 10, 0, 0, 5), CL_MEM_READ_WRITE);
  CHECK(l.rowsPerSlice() == 1);
  CHECK(l.slices() == 5);
  CHECK(l.extent() == std::array<size_t, 3>{10, 5, 1});
  auto run = l.boxesOf({40, 160});
  REQUIRE(run);
  REQUIRE(run->size() == 1);
  CHECK(run->front() == ImageBox{{0, 1, 0}, {10, 3, 1}});
  CHECK(l.bytesOf(run->front()) == RangeSet::of(40, 160));
}

TEST_CASE("2-D arrays and 1-D images", "[image]") {
  const ImageLayout a(rFloat, desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, 0, 2), CL_MEM_READ_WRITE);
  CHECK(a.bytes() == 4 * 4 * 3 * 2);
  auto layer1 = a.boxesOf({48, 96});
  REQUIRE(layer1);
  CHECK(layer1->front() == ImageBox{{0, 0, 1}, {4, 3, 1}});
  const ImageLayout one(rgba8, desc(CL_MEM_OBJECT_IMAGE1D, 32), CL_MEM_READ_WRITE);
  CHECK(one.bytes() == 128);
  CHECK(one.whole() == ImageBox{{0, 0, 0}, {32, 1, 1}});
}

TEST_CASE("boxes inside and outside the image", "[image]") {
  const ImageLayout l(rgba8, desc(CL_MEM_OBJECT_IMAGE2D, 8, 4), CL_MEM_READ_WRITE);
  std::string why;
  CHECK(l.contains(ImageBox{{4, 2, 0}, {4, 2, 1}}));
  CHECK_FALSE(l.contains(ImageBox{{5, 0, 0}, {4, 1, 1}}, &why));
  CHECK(why.find("x") != std::string::npos);
  CHECK_FALSE(l.contains(ImageBox{{0, 0, 0}, {1, 0, 1}}, &why));
  CHECK(why.find("region") != std::string::npos);
  CHECK_FALSE(l.contains(ImageBox{{0, 0, 1}, {1, 1, 1}})); // a 2-D image has one slice
}
