// ImageLayout: packed image bytes <-> image boxes.
#include "buffer-manager/storage/ImageLayout.h"

namespace clsplit::buffer {

namespace {

size_t channels(cl_channel_order order) {
  switch (order) {
  case CL_R:
  case CL_A:
  case CL_INTENSITY:
  case CL_LUMINANCE:
  case CL_Rx:
  case CL_DEPTH:
    return 1;
  case CL_RG:
  case CL_RA:
  case CL_RGx:
    return 2;
  case CL_RGB:
  case CL_RGBx:
    return 3;
  case CL_RGBA:
  case CL_BGRA:
  case CL_ARGB:
  case CL_ABGR:
  case CL_sRGBA:
  case CL_sBGRA:
    return 4;
  case CL_sRGB:
  case CL_sRGBx:
    return 3;
  default:
    return 0;
  }
}

size_t channelBytes(cl_channel_type type) {
  switch (type) {
  case CL_SNORM_INT8:
  case CL_UNORM_INT8:
  case CL_SIGNED_INT8:
  case CL_UNSIGNED_INT8:
    return 1;
  case CL_SNORM_INT16:
  case CL_UNORM_INT16:
  case CL_SIGNED_INT16:
  case CL_UNSIGNED_INT16:
  case CL_HALF_FLOAT:
    return 2;
  case CL_SIGNED_INT32:
  case CL_UNSIGNED_INT32:
  case CL_FLOAT:
    return 4;
  default:
    return 0;
  }
}

} // namespace

size_t pixelSize(const cl_image_format& f) {
  switch (f.image_channel_data_type) {
  // Packed types: one value holds every channel, of the RGB orders only.
  case CL_UNORM_SHORT_565:
  case CL_UNORM_SHORT_555:
    return f.image_channel_order == CL_RGB || f.image_channel_order == CL_RGBx ? 2 : 0;
  case CL_UNORM_INT_101010:
    return f.image_channel_order == CL_RGB || f.image_channel_order == CL_RGBx ? 4 : 0;
  default:
    return channels(f.image_channel_order) * channelBytes(f.image_channel_data_type);
  }
}

ImageLayout::ImageLayout(const cl_image_format& format, const cl_image_desc& desc, cl_mem_flags access)
    : format_(format), access_(access), pixel_(pixelSize(format)) {
  desc_.image_type = desc.image_type;
  desc_.image_width = desc.image_width;
  rowPitch_ = desc.image_width * pixel_;
  switch (desc.image_type) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    desc_.image_array_size = desc.image_array_size;
    slices_ = desc.image_array_size;
    break;
  case CL_MEM_OBJECT_IMAGE2D:
    desc_.image_height = desc.image_height;
    rowsPerSlice_ = desc.image_height;
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    desc_.image_height = desc.image_height;
    desc_.image_array_size = desc.image_array_size;
    rowsPerSlice_ = desc.image_height;
    slices_ = desc.image_array_size;
    break;
  case CL_MEM_OBJECT_IMAGE3D:
    desc_.image_height = desc.image_height;
    desc_.image_depth = desc.image_depth;
    rowsPerSlice_ = desc.image_height;
    slices_ = desc.image_depth;
    break;
  default:
    break; // 1-D: one row
  }
  const bool layered = desc.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
                       desc.image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY || desc.image_type == CL_MEM_OBJECT_IMAGE3D;
  slicePitch_ = layered ? rowPitch_ * rowsPerSlice_ : 0;
}

std::array<size_t, 3> ImageLayout::extent() const {
  switch (desc_.image_type) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    return {desc_.image_width, desc_.image_array_size, 1};
  case CL_MEM_OBJECT_IMAGE2D:
    return {desc_.image_width, desc_.image_height, 1};
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    return {desc_.image_width, desc_.image_height, desc_.image_array_size};
  case CL_MEM_OBJECT_IMAGE3D:
    return {desc_.image_width, desc_.image_height, desc_.image_depth};
  default:
    return {desc_.image_width, 1, 1};
  }
}

ImageBox ImageLayout::toEnqueue(size_t row, size_t rows, size_t slice, size_t slices) const {
  ImageBox b;
  b.region[0] = desc_.image_width;
  if (desc_.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY) { // a layer is a row
    b.origin[1] = slice;
    b.region[1] = slices;
  } else {
    b.origin[1] = row;
    b.region[1] = rows;
    b.origin[2] = slice;
    b.region[2] = slices;
  }
  return b;
}

ImageBox ImageLayout::whole() const { return toEnqueue(0, rowsPerSlice_, 0, slices_); }

std::optional<std::vector<ImageBox>> ImageLayout::boxesOf(ByteRange range) const {
  if (!rowPitch_ || range.lo % rowPitch_ || range.hi % rowPitch_ || range.hi > bytes()) return std::nullopt;
  std::vector<ImageBox> boxes;
  size_t first = range.lo / rowPitch_, last = range.hi / rowPitch_; // global rows [first, last)
  // A partial slice at the start.
  if (first < last && first % rowsPerSlice_) {
    const size_t slice = first / rowsPerSlice_, end = std::min(last, (slice + 1) * rowsPerSlice_);
    boxes.push_back(toEnqueue(first % rowsPerSlice_, end - first, slice, 1));
    first = end;
  }
  // Whole slices.
  if (last - first >= rowsPerSlice_) {
    const size_t n = (last - first) / rowsPerSlice_;
    boxes.push_back(toEnqueue(0, rowsPerSlice_, first / rowsPerSlice_, n));
    first += n * rowsPerSlice_;
  }
  // A partial slice at the end.
  if (first < last) boxes.push_back(toEnqueue(0, last - first, first / rowsPerSlice_, 1));
  return boxes;
}

RangeSet ImageLayout::bytesOf(const ImageBox& box) const {
  // Back from enqueue coordinates to (x, row in slice, slice).
  size_t row = box.origin[1], rows = box.region[1], slice = box.origin[2], slices = box.region[2];
  if (desc_.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY) row = 0, rows = 1, slice = box.origin[1], slices = box.region[1];
  RangeSet out;
  const size_t slicePitch = rowPitch_ * rowsPerSlice_;
  for (size_t s = slice; s < slice + slices; ++s) {
    if (box.origin[0] == 0 && box.region[0] == desc_.image_width) { // whole rows: one range
      const uint64_t lo = s * slicePitch + row * rowPitch_;
      out.add(ByteRange{lo, lo + rows * rowPitch_});
      continue;
    }
    for (size_t r = row; r < row + rows; ++r) {
      const uint64_t lo = s * slicePitch + r * rowPitch_ + box.origin[0] * pixel_;
      out.add(ByteRange{lo, lo + box.region[0] * pixel_});
    }
  }
  return out;
}

bool ImageLayout::contains(const ImageBox& box, std::string* why) const {
  const auto e = extent();
  static const char* names[] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    if (box.region[d] == 0) {
      if (why) *why = std::string("region[") + names[d] + "] is 0";
      return false;
    }
    if (box.origin[d] >= e[d] || box.region[d] > e[d] - box.origin[d]) {
      if (why) *why = std::string("origin + region exceeds the image along ") + names[d];
      return false;
    }
  }
  return true;
}

} // namespace clsplit::buffer
