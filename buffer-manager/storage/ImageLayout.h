// How clsplit keeps an image's contents: packed rows (no padding), then the rows of the next
// slice or array layer, so that a run of whole rows of its bytes is a few rectangles of the
// real images (clEnqueueReadImage/WriteImage/CopyImage). Pure: no OpenCL calls.
#pragma once

#include "analysis/region/RangeSet.h"
#include "device/OpenCL.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace clsplit::buffer {

// Bytes per pixel of `format`, or 0 where the channel order or type is unknown (or the pair is
// not one OpenCL allows: packed types only with RGB/RGBx orders).
size_t pixelSize(const cl_image_format& format);

// A box of an image in the coordinates its enqueue calls take (origin, region: for a 1-D array
// the layer is the second coordinate, for a 2-D array the third).
struct ImageBox {
  std::array<size_t, 3> origin{0, 0, 0};
  std::array<size_t, 3> region{1, 1, 1};
  bool operator==(const ImageBox&) const = default;
};

class ImageLayout {
public:
  // `desc` as the application gave it (its pitches and buffer are not kept: clsplit's copies
  // are packed); `access`: the image's kernel access flags, which its real images get too.
  ImageLayout(const cl_image_format& format, const cl_image_desc& desc, cl_mem_flags access);

  const cl_image_format& format() const { return format_; }
  // The description of each real image (packed: pitches 0, no host pointer or buffer).
  const cl_image_desc& desc() const { return desc_; }
  cl_mem_object_type type() const { return desc_.image_type; }
  cl_mem_flags access() const { return access_; }
  size_t pixel() const { return pixel_; }
  size_t rowPitch() const { return rowPitch_; }     // width * pixel
  size_t slicePitch() const { return slicePitch_; } // rowPitch * rows per slice (0 for 1-D, 2-D)
  size_t rowsPerSlice() const { return rowsPerSlice_; }
  size_t slices() const { return slices_; } // depth, array size, or 1
  size_t bytes() const { return rowPitch_ * rowsPerSlice_ * slices_; }
  // width, height, depth (1 where the type has none) and the array size (1 if not an array).
  std::array<size_t, 3> extent() const;

  // The boxes of `range`, which must start and end on row boundaries (else nullopt), in order:
  // one per partial slice at either end, one for the whole slices between.
  std::optional<std::vector<ImageBox>> boxesOf(ByteRange range) const;
  // The packed bytes of `box` (rows: one range per row).
  RangeSet bytesOf(const ImageBox& box) const;
  // Whether `box` lies inside the image (CL_INVALID_VALUE otherwise); `why` says what is wrong.
  bool contains(const ImageBox& box, std::string* why = nullptr) const;
  // The box of the whole image.
  ImageBox whole() const;

private:
  // Converts (x, row in slice, slice) to the enqueue coordinates of this image type, and back.
  ImageBox toEnqueue(size_t row, size_t rows, size_t slice, size_t slices) const;

  cl_image_format format_;
  cl_image_desc desc_{};
  cl_mem_flags access_;
  size_t pixel_ = 0, rowPitch_ = 0, slicePitch_ = 0, rowsPerSlice_ = 1, slices_ = 1;
};

} // namespace clsplit::buffer
