// Images and samplers: supported formats, images made from pitched host data (2-D, 3-D, 2-D
// arrays, 1-D; clCreateImageWithProperties where the platform is OpenCL 3.0), image and sampler
// queries, read/write/copy/fill of sub-regions, copies between images and buffers, maps, kernels
// that sample with a sampler argument and a program-scope sampler, kernels that write images
// which later kernels read (a ping-pong chain), and a USE_HOST_PTR image written by a kernel.
// Every value is exact (UNORM8 data is read back as integers, float data holds small integers
// or dyadic fractions), so every vendor prints the same bytes; each result is checked on the host.
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#include "itest.h"

#include <cmath>

using namespace itest;

namespace {

const char* kSource = R"CLC(
const sampler_t kBorder = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
#define U8(v) convert_int4_rte((v) * 255.0f)

// 3x3 box sum of the red channel (edges clamped by the sampler argument), times 1/8.
kernel void blurRed(read_only image2d_t img, sampler_t s, global float* out) {
  int x = get_global_id(0), y = get_global_id(1), sum = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) sum += U8(read_imagef(img, s, (int2)(x + dx, y + dy))).x;
  out[y * get_global_size(0) + x] = (float)sum * 0.125f;
}

// Green two pixels left, alpha two pixels up (float coordinates); 0 beyond the border.
kernel void crossBorder(read_only image2d_t img, global float* out) {
  int x = get_global_id(0), y = get_global_id(1);
  int4 a = U8(read_imagef(img, kBorder, (int2)(x - 2, y)));
  int4 b = U8(read_imagef(img, kBorder, (float2)(x + 0.5f, y - 1.5f)));
  out[y * get_global_size(0) + x] = (float)(a.y * 1000 + b.w);
}

kernel void fillFromBuffer(global const int4* src, write_only image2d_t dst) {
  int x = get_global_id(0), y = get_global_id(1);
  write_imagef(dst, (int2)(x, y), convert_float4(src[y * get_image_width(dst) + x]));
}

#define AT(dx, dy) convert_int4(read_imagef(src, (int2)(clamp(x + dx, 0, w - 1), clamp(y + dy, 0, h - 1))))
kernel void stencilStep(read_only image2d_t src, write_only image2d_t dst, int k) {
  int x = get_global_id(0), y = get_global_id(1), w = get_image_width(src), h = get_image_height(src);
  int4 v = AT(0, 0) * 3 + AT(-1, 0) + AT(1, 0) * 2 + AT(0, -1) + AT(0, 1) * 5 + (int4)(k, k + 1, k + 2, k + 3);
  write_imagef(dst, (int2)(x, y), convert_float4(v % 1009));
}

kernel void toBuffer(read_only image2d_t src, global float4* dst) {
  int x = get_global_id(0), y = get_global_id(1);
  dst[y * get_image_width(src) + x] = read_imagef(src, (int2)(x, y));
}

kernel void writeUint(global const uint* src, write_only image2d_t dst, uint k) {
  int x = get_global_id(0), y = get_global_id(1);
  write_imageui(dst, (int2)(x, y), (uint4)(src[y * get_image_width(dst) + x] * 2654435761u + k, 0, 0, 1));
}

kernel void readUint(read_only image2d_t src, global uint* dst) {
  int x = get_global_id(0), y = get_global_id(1);
  dst[y * get_image_width(src) + x] = read_imageui(src, (int2)(x, y)).x ^ (uint)((x << 8) | y);
}

kernel void pixelSums(global const uchar4* in, uint first, global uint* out) {
  size_t i = get_global_id(0);
  uchar4 p = in[first + i];
  out[i] = p.x + 2u * p.y + 3u * p.z + 5u * p.w;
}

kernel void read3d(read_only image3d_t v, global float* out) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  int w = get_image_width(v), h = get_image_height(v), d = get_image_depth(v);
  float c = read_imagef(v, (int4)(x, y, z, 0)).x;
  float r = read_imagef(v, (int4)(min(x + 1, w - 1), y, z, 0)).x;
  float n = read_imagef(v, (int4)(x, y, (z + 1) % d, 0)).x;
  out[(z * h + y) * w + x] = c * 2.0f - r + n;
}

kernel void readArray(read_only image2d_array_t a, global uint* out) {
  int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);
  int w = get_image_width(a), h = get_image_height(a);
  out[(l * h + y) * w + x] = read_imageui(a, (int4)(x, y, l, 0)).x * (uint)(l + 1) + (uint)x;
}

kernel void read1d(read_only image1d_t img, global float4* out) {
  int i = get_global_id(0), w = get_image_width(img);
  out[i] = read_imagef(img, i) + read_imagef(img, (i * 5) % w) * 2.0f;
}

kernel void writeGradient(write_only image2d_t img, int k) {
  int x = get_global_id(0), y = get_global_id(1);
  write_imagef(img, (int2)(x, y), convert_float4((int4)(x * 8, y * 16, (x ^ y) + k, 200)) * (1.0f / 255.0f));
}
)CLC";

constexpr size_t W = 64, H = 48; // the photo, the ping-pong images and the uint image

bool gUseProperties = false; // the platform is OpenCL 3.0: some images use clCreateImageWithProperties

cl_image_desc imageDesc(cl_mem_object_type type, size_t w, size_t h = 1, size_t d = 1, size_t array = 1,
                        size_t rowPitch = 0, size_t slicePitch = 0) {
  cl_image_desc desc{};
  desc.image_type = type;
  desc.image_width = w;
  desc.image_height = h;
  desc.image_depth = d;
  desc.image_array_size = array;
  desc.image_row_pitch = rowPitch;
  desc.image_slice_pitch = slicePitch;
  return desc;
}

// An image; with `optional`, a failure is printed (not counted) and NULL returned.
cl_mem createImage(const Env& env, const char* label, cl_mem_flags flags, cl_channel_order order, cl_channel_type type,
                   const cl_image_desc& desc, void* host, bool withProperties, bool optional = false) {
  cl_image_format format{order, type};
  cl_int err = CL_SUCCESS;
  cl_mem image = withProperties && gUseProperties
                     ? clCreateImageWithProperties(env.context, nullptr, flags, &format, &desc, host, &err)
                     : clCreateImage(env.context, flags, &format, &desc, host, &err);
  if (err == CL_SUCCESS && image) return image;
  if (optional) {
    std::printf("%s: not created (%d), skipped\n", label, err);
    return nullptr;
  }
  fail("creating %s returned %d", label, err);
  std::exit(finish());
}

const char* orderName(cl_channel_order o) { return o == CL_RGBA ? "RGBA" : o == CL_R ? "R" : "other"; }
const char* typeName(cl_channel_type t) {
  return t == CL_UNORM_INT8       ? "UNORM_INT8"
         : t == CL_FLOAT          ? "FLOAT"
         : t == CL_UNSIGNED_INT32 ? "UNSIGNED_INT32"
                                  : "other";
}

bool formatSupported(const Env& env, cl_mem_flags flags, cl_mem_object_type type, cl_channel_order order,
                     cl_channel_type channel) {
  cl_uint n = 0;
  CHECK(clGetSupportedImageFormats(env.context, flags, type, 0, nullptr, &n));
  std::vector<cl_image_format> formats(n);
  if (n) CHECK(clGetSupportedImageFormats(env.context, flags, type, n, formats.data(), nullptr));
  for (const auto& f : formats)
    if (f.image_channel_order == order && f.image_channel_data_type == channel) return true;
  return false;
}

void printImageInfo(const char* label, cl_mem image) {
  cl_image_format format{};
  size_t element = 0, w = 0, h = 0, d = 0, array = 0;
  cl_mem_object_type type = 0;
  cl_mem_flags flags = 0;
  CHECK(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof format, &format, nullptr));
  CHECK(clGetImageInfo(image, CL_IMAGE_ELEMENT_SIZE, sizeof element, &element, nullptr));
  CHECK(clGetImageInfo(image, CL_IMAGE_WIDTH, sizeof w, &w, nullptr));
  CHECK(clGetImageInfo(image, CL_IMAGE_HEIGHT, sizeof h, &h, nullptr));
  CHECK(clGetImageInfo(image, CL_IMAGE_DEPTH, sizeof d, &d, nullptr));
  CHECK(clGetImageInfo(image, CL_IMAGE_ARRAY_SIZE, sizeof array, &array, nullptr));
  CHECK(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof type, &type, nullptr));
  CHECK(clGetMemObjectInfo(image, CL_MEM_FLAGS, sizeof flags, &flags, nullptr));
  // Height, depth and array size only where the image type has them (rusticl reports 1, not 0, for
  // the others).
  std::printf("%s: %s/%s, element %zu bytes, width %zu", label, orderName(format.image_channel_order),
              typeName(format.image_channel_data_type), element, w);
  if (type != CL_MEM_OBJECT_IMAGE1D) std::printf(" height %zu", h);
  if (type == CL_MEM_OBJECT_IMAGE3D) std::printf(" depth %zu", d);
  if (type == CL_MEM_OBJECT_IMAGE2D_ARRAY) std::printf(" array %zu", array);
  std::printf(", mem type %#x, flags %#llx\n", type, (unsigned long long)flags);
}

void expectEventType(cl_event event, cl_command_type expected, const char* label) {
  cl_command_type type = 0;
  CHECK(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  if (type != expected) fail("%s: event command type %#x, expected %#x", label, type, expected);
}

void launch(const Env& env, cl_kernel kernel, cl_uint dims, const size_t* global, const size_t* local,
            cl_event* event = nullptr) {
  CHECK(clEnqueueNDRangeKernel(env.queue, kernel, dims, nullptr, global, local, 0, nullptr, event));
}

template <class T>
std::vector<T> readBuffer(const Env& env, cl_mem buffer, size_t count, cl_event wait = nullptr) {
  std::vector<T> out(count);
  CHECK(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, count * sizeof(T), out.data(), wait ? 1 : 0,
                            wait ? &wait : nullptr, nullptr));
  return out;
}

template <class T>
std::vector<T> readImage(const Env& env, cl_mem image, size_t w, size_t h, size_t d, size_t perPixel) {
  std::vector<T> out(w * h * d * perPixel);
  size_t origin[3] = {0, 0, 0}, region[3] = {w, h, d};
  CHECK(clEnqueueReadImage(env.queue, image, CL_TRUE, origin, region, 0, 0, out.data(), 0, nullptr, nullptr));
  return out;
}

template <class T>
void compare(const char* label, const std::vector<T>& got, const std::vector<T>& expected) {
  for (size_t i = 0; i < expected.size(); ++i)
    if (i >= got.size() || std::memcmp(&got[i], &expected[i], sizeof(T)) != 0) {
      fail("%s: element %zu differs from the host's value", label, i);
      return;
    }
  printChecksum(label, got);
}

int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
unsigned char photoPixel(size_t x, size_t y, size_t c) {
  return static_cast<unsigned char>((x * 7 + y * 13 + c * 29 + (x * y) % 11) & 255);
}

} // namespace

int main() {
  Env env = setup();
  cl_bool imageSupport = CL_FALSE;
  CHECK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof imageSupport, &imageSupport, nullptr));
  if (!imageSupport) {
    std::printf("no image support\n");
    env.release();
    return finish();
  }
  size_t versionSize = 0;
  CHECK(clGetPlatformInfo(env.platform, CL_PLATFORM_VERSION, 0, nullptr, &versionSize));
  std::string version(versionSize + 1, '\0');
  CHECK(clGetPlatformInfo(env.platform, CL_PLATFORM_VERSION, versionSize, version.data(), nullptr));
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "OpenCL %d.%d", &major, &minor) == 2 && major >= 3) gUseProperties = true;

  // 1. Formats.
  struct Format {
    cl_mem_flags flags;
    cl_mem_object_type type;
    cl_channel_order order;
    cl_channel_type channel;
    const char* what;
  };
  const Format formats[] = {
      {CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNORM_INT8, "image2d"},
      {CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_FLOAT, "image2d"},
      {CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, CL_R, CL_UNSIGNED_INT32, "image2d"},
      {CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE3D, CL_R, CL_FLOAT, "image3d"},
      {CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_R, CL_UNSIGNED_INT32, "image2d_array"},
      {CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE1D, CL_RGBA, CL_FLOAT, "image1d"},
  };
  bool supported[6];
  for (int i = 0; i < 6; ++i) {
    const Format& f = formats[i];
    supported[i] = formatSupported(env, f.flags, f.type, f.order, f.channel);
    std::printf("format %s/%s %s: %s\n", orderName(f.order), typeName(f.channel), f.what,
                supported[i] ? "supported" : "not supported");
  }
  if (!supported[0] || !supported[1] || !supported[2]) {
    fail("a 2-D format every OpenCL 1.2 image device has is missing");
    return finish();
  }
  cl_program program = buildProgram(env, kSource);
  auto kernel = [&](const char* name) { return createKernel(program, name); };
  cl_kernel blurRed = kernel("blurRed"), crossBorder = kernel("crossBorder"), fill = kernel("fillFromBuffer"),
            stencil = kernel("stencilStep"), toBuffer = kernel("toBuffer"), writeUint = kernel("writeUint"),
            readUint = kernel("readUint"), pixelSums = kernel("pixelSums"), read3d = kernel("read3d"),
            readArray = kernel("readArray"), read1d = kernel("read1d"), writeGradient = kernel("writeGradient");
  const size_t global2[2] = {W, H}, local2[2] = {8, 8};

  // 2. A 2-D UNORM8 image from pitched host data.
  std::printf("-- 2-D image from host data\n");
  const size_t pitch = (W + 5) * 4;
  std::vector<unsigned char> pitched(pitch * H, 0x5A), photo(W * H * 4);
  for (size_t y = 0; y < H; ++y)
    for (size_t x = 0; x < W; ++x)
      for (size_t c = 0; c < 4; ++c) pitched[y * pitch + x * 4 + c] = photo[(y * W + x) * 4 + c] = photoPixel(x, y, c);
  cl_image_desc photoDesc = imageDesc(CL_MEM_OBJECT_IMAGE2D, W, H, 1, 1, pitch);
  cl_mem photoImage = createImage(env, "photo", CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_UNORM_INT8,
                                  photoDesc, pitched.data(), false);
  printImageInfo("photo", photoImage);
  compare("photo as created", readImage<unsigned char>(env, photoImage, W, H, 1, 4), photo);

  // 3. Sub-region read with a host row pitch; sub-region write; whole read.
  {
    const size_t hostPitch = 24 * 4;
    std::vector<unsigned char> sub(hostPitch * 10, 0xEE), expected(sub);
    size_t origin[3] = {5, 3, 0}, region[3] = {20, 10, 1};
    for (size_t y = 0; y < 10; ++y)
      for (size_t x = 0; x < 80; ++x) expected[y * hostPitch + x] = photo[((3 + y) * W + 5) * 4 + x];
    CHECK(clEnqueueReadImage(env.queue, photoImage, CL_TRUE, origin, region, hostPitch, 0, sub.data(), 0, nullptr,
                             nullptr));
    compare("sub-region read with host row pitch 96", sub, expected);

    const size_t srcPitch = 18 * 4;
    std::vector<unsigned char> src(srcPitch * 8);
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 11 + 3);
    size_t wOrigin[3] = {10, 20, 0}, wRegion[3] = {16, 8, 1};
    cl_event written = nullptr;
    CHECK(clEnqueueWriteImage(env.queue, photoImage, CL_FALSE, wOrigin, wRegion, srcPitch, 0, src.data(), 0, nullptr,
                              &written));
    CHECK(clWaitForEvents(1, &written)); // (its type is not checked: rusticl says WRITE_BUFFER_RECT)
    CHECK(clReleaseEvent(written));
    for (size_t y = 0; y < 8; ++y)
      for (size_t x = 0; x < 64; ++x) photo[((20 + y) * W + 10) * 4 + x] = src[y * srcPitch + x];
    compare("photo after sub-region write", readImage<unsigned char>(env, photoImage, W, H, 1, 4), photo);
    const unsigned char* p = &photo[(22 * W + 12) * 4];
    std::printf("pixel (12,22): %u %u %u %u\n", p[0], p[1], p[2], p[3]);
  }

  // 4. Sampling kernels: a sampler argument and a program-scope sampler.
  std::printf("-- samplers\n");
  cl_int err = CL_SUCCESS;
  cl_sampler sampler = clCreateSampler(env.context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
  CHECK(err);
  {
    cl_bool normalized = CL_TRUE;
    cl_addressing_mode addressing = 0;
    cl_filter_mode filter = 0;
    CHECK(clGetSamplerInfo(sampler, CL_SAMPLER_NORMALIZED_COORDS, sizeof normalized, &normalized, nullptr));
    CHECK(clGetSamplerInfo(sampler, CL_SAMPLER_ADDRESSING_MODE, sizeof addressing, &addressing, nullptr));
    CHECK(clGetSamplerInfo(sampler, CL_SAMPLER_FILTER_MODE, sizeof filter, &filter, nullptr));
    std::printf("sampler: normalized %u, addressing %#x, filter %#x\n", normalized, addressing, filter);
  }
  cl_mem blurOut = createBuffer(env.context, CL_MEM_READ_WRITE, W * H * sizeof(float));
  cl_mem crossOut = createBuffer(env.context, CL_MEM_READ_WRITE, W * H * sizeof(float));
  {
    cl_event blurred = nullptr;
    SET_ARG(blurRed, 0, photoImage);
    SET_ARG(blurRed, 1, sampler);
    SET_ARG(blurRed, 2, blurOut);
    launch(env, blurRed, 2, global2, local2, &blurred);
    SET_ARG(crossBorder, 0, photoImage);
    SET_ARG(crossBorder, 1, crossOut);
    launch(env, crossBorder, 2, global2, local2);
    std::vector<float> blur(W * H), cross(W * H);
    auto red = [&](int x, int y) { return photo[(clampi(y, 0, int(H) - 1) * W + clampi(x, 0, int(W) - 1)) * 4]; };
    auto at = [&](int x, int y, int c) {
      return x < 0 || y < 0 || x >= int(W) || y >= int(H) ? 0 : photo[(y * W + x) * 4 + c];
    };
    for (int y = 0; y < int(H); ++y)
      for (int x = 0; x < int(W); ++x) {
        int sum = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) sum += red(x + dx, y + dy);
        blur[y * W + x] = float(sum) * 0.125f;
        cross[y * W + x] = float(at(x - 2, y, 1) * 1000 + at(x, y - 2, 3));
      }
    auto gotBlur = readBuffer<float>(env, blurOut, W * H, blurred);
    expectEventType(blurred, CL_COMMAND_NDRANGE_KERNEL, "kernel");
    CHECK(clReleaseEvent(blurred));
    compare("blur of the red channel (sampler argument)", gotBlur, blur);
    std::printf("blur samples: %.3f %.3f %.3f\n", gotBlur[0], gotBlur[W * 20 + 33], gotBlur[W * H - 1]);
    auto gotCross = readBuffer<float>(env, crossOut, W * H);
    compare("border reads (program-scope sampler)", gotCross, cross);
    std::printf("border samples: %.0f %.0f %.0f\n", gotCross[0], gotCross[W * 2 + 2], gotCross[W * 30 + 40]);
  }
  CHECK(clFinish(env.queue));

  // 5. Kernels writing images that later kernels read: a float ping-pong chain, a uint image.
  std::printf("-- images written by kernels\n");
  cl_image_desc desc2 = imageDesc(CL_MEM_OBJECT_IMAGE2D, W, H);
  cl_mem imageA = createImage(env, "A", CL_MEM_READ_WRITE, CL_RGBA, CL_FLOAT, desc2, nullptr, false);
  cl_mem imageB = createImage(env, "B", CL_MEM_READ_WRITE, CL_RGBA, CL_FLOAT, desc2, nullptr, true);
  printImageInfo("B", imageB);
  std::vector<float> model(W * H * 4);
  {
    std::vector<cl_int> init(W * H * 4);
    for (size_t i = 0; i < init.size(); ++i) model[i] = float(init[i] = cl_int((i * 37 + (i & 3) * 101) % 1009));
    cl_mem initBuffer =
        createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, init.size() * 4, init.data());
    SET_ARG(fill, 0, initBuffer);
    SET_ARG(fill, 1, imageA);
    launch(env, fill, 2, global2, local2);
    for (int it = 0; it < 10; ++it) {
      cl_mem src = it % 2 ? imageB : imageA, dst = it % 2 ? imageA : imageB;
      SET_ARG(stencil, 0, src);
      SET_ARG(stencil, 1, dst);
      SET_ARG(stencil, 2, cl_int(it * 3));
      launch(env, stencil, 2, global2, local2);
      std::vector<float> next(model.size());
      auto m = [&](int x, int y, int c) {
        return int(model[(clampi(y, 0, int(H) - 1) * W + clampi(x, 0, int(W) - 1)) * 4 + c]);
      };
      for (int y = 0; y < int(H); ++y)
        for (int x = 0; x < int(W); ++x)
          for (int c = 0; c < 4; ++c)
            next[(y * W + x) * 4 + c] = float((m(x, y, c) * 3 + m(x - 1, y, c) + m(x + 1, y, c) * 2 + m(x, y - 1, c) +
                                               m(x, y + 1, c) * 5 + it * 3 + c) %
                                              1009);
      model.swap(next);
      if (it == 4) compare("B after 5 steps (read image)", readImage<float>(env, imageB, W, H, 1, 4), model);
    }
    CHECK(clReleaseMemObject(initBuffer));
  }
  cl_mem floatOut = createBuffer(env.context, CL_MEM_READ_WRITE, W * H * 4 * sizeof(float));
  auto imageToBuffer = [&](cl_mem image) {
    SET_ARG(toBuffer, 0, image);
    SET_ARG(toBuffer, 1, floatOut);
    launch(env, toBuffer, 2, global2, local2);
    return readBuffer<float>(env, floatOut, W * H * 4);
  };
  auto afterChain = imageToBuffer(imageA);
  compare("A after 10 steps (kernel read)", afterChain, model);
  compare("A after 10 steps (read image)", readImage<float>(env, imageA, W, H, 1, 4), model);
  std::printf("chain samples: %.0f %.0f %.0f\n", afterChain[0], afterChain[(W * 7 + 9) * 4 + 2], afterChain.back());

  cl_mem imageU = createImage(env, "U", CL_MEM_READ_WRITE, CL_R, CL_UNSIGNED_INT32, desc2, nullptr, false);
  std::vector<cl_uint> modelU(W * H);
  cl_mem uintOut = createBuffer(env.context, CL_MEM_READ_WRITE, W * H * sizeof(cl_uint));
  auto readU = [&](const char* label) {
    SET_ARG(readUint, 0, imageU);
    SET_ARG(readUint, 1, uintOut);
    launch(env, readUint, 2, global2, local2);
    std::vector<cl_uint> expected(W * H);
    for (size_t y = 0; y < H; ++y)
      for (size_t x = 0; x < W; ++x) expected[y * W + x] = modelU[y * W + x] ^ cl_uint((x << 8) | y);
    compare(label, readBuffer<cl_uint>(env, uintOut, W * H), expected);
  };
  {
    std::vector<cl_uint> src(W * H);
    for (size_t i = 0; i < src.size(); ++i) {
      src[i] = cl_uint(i * 7919) ^ cl_uint(i >> 3);
      modelU[i] = src[i] * 2654435761u + 5u;
    }
    cl_mem srcBuffer = createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, src.size() * 4, src.data());
    SET_ARG(writeUint, 0, srcBuffer);
    SET_ARG(writeUint, 1, imageU);
    SET_ARG(writeUint, 2, cl_uint(5));
    launch(env, writeUint, 2, global2, local2);
    readU("uint image (kernel read)");
    compare("uint image (read image)", readImage<cl_uint>(env, imageU, W, H, 1, 1), modelU);
    CHECK(clReleaseMemObject(srcBuffer));
  }
  CHECK(clFinish(env.queue));

  // 6. Copies and fills.
  std::printf("-- copies and fills\n");
  const size_t CW = 40, CH = 30;
  cl_mem canvas = createImage(env, "canvas", CL_MEM_READ_WRITE, CL_RGBA, CL_UNORM_INT8,
                              imageDesc(CL_MEM_OBJECT_IMAGE2D, CW, CH), nullptr, false);
  std::vector<unsigned char> canvasModel(CW * CH * 4);
  {
    auto fillCanvas = [&](const unsigned char* color, size_t ox, size_t oy, size_t rw, size_t rh, cl_event* event) {
      cl_float4 c;
      for (int i = 0; i < 4; ++i) c.s[i] = color[i] / 255.0f;
      size_t origin[3] = {ox, oy, 0}, region[3] = {rw, rh, 1};
      CHECK(clEnqueueFillImage(env.queue, canvas, &c, origin, region, 0, nullptr, event));
      for (size_t y = oy; y < oy + rh; ++y)
        for (size_t x = ox; x < ox + rw; ++x) std::memcpy(&canvasModel[(y * CW + x) * 4], color, 4);
    };
    const unsigned char c1[4] = {51, 102, 153, 255}, c2[4] = {255, 0, 17, 34};
    cl_event filled = nullptr, copied = nullptr; // (the fill's type is not checked: rusticl says FILL_BUFFER)
    fillCanvas(c1, 0, 0, CW, CH, &filled);
    fillCanvas(c2, 2, 3, 12, 5, nullptr);
    size_t so[3] = {4, 6, 0}, dO[3] = {10, 8, 0}, region[3] = {24, 16, 1};
    CHECK(clEnqueueCopyImage(env.queue, photoImage, canvas, so, dO, region, 1, &filled, &copied));
    CHECK(clWaitForEvents(1, &copied));
    expectEventType(copied, CL_COMMAND_COPY_IMAGE, "copy image");
    CHECK(clReleaseEvent(filled));
    CHECK(clReleaseEvent(copied));
    for (size_t y = 0; y < 16; ++y)
      std::memcpy(&canvasModel[((8 + y) * CW + 10) * 4], &photo[((6 + y) * W + 4) * 4], 24 * 4);
    compare("canvas after fills and a copy", readImage<unsigned char>(env, canvas, CW, CH, 1, 4), canvasModel);

    // Image to buffer (at an offset); a kernel consumes the buffer.
    std::vector<unsigned char> zeros(64 + 20 * 12 * 4, 0);
    cl_mem staging = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.size(), zeros.data());
    cl_mem sums = createBuffer(env.context, CL_MEM_READ_WRITE, 240 * sizeof(cl_uint));
    size_t io[3] = {8, 6, 0}, ir[3] = {20, 12, 1};
    cl_event toBuf = nullptr;
    CHECK(clEnqueueCopyImageToBuffer(env.queue, canvas, staging, io, ir, 64, 0, nullptr, &toBuf));
    std::vector<unsigned char> stagingModel = zeros;
    for (size_t y = 0; y < 12; ++y) std::memcpy(&stagingModel[64 + y * 80], &canvasModel[((6 + y) * CW + 8) * 4], 80);
    SET_ARG(pixelSums, 0, staging);
    SET_ARG(pixelSums, 1, cl_uint(16));
    SET_ARG(pixelSums, 2, sums);
    const size_t n = 240, local = 16;
    CHECK(clEnqueueNDRangeKernel(env.queue, pixelSums, 1, nullptr, &n, &local, 1, &toBuf, nullptr));
    expectEventType(toBuf, CL_COMMAND_COPY_IMAGE_TO_BUFFER, "copy image to buffer");
    CHECK(clReleaseEvent(toBuf));
    std::vector<cl_uint> sumModel(n);
    for (size_t i = 0; i < n; ++i) {
      const unsigned char* p = &stagingModel[64 + i * 4];
      sumModel[i] = p[0] + 2u * p[1] + 3u * p[2] + 5u * p[3];
    }
    compare("pixel sums of the copied buffer", readBuffer<cl_uint>(env, sums, n), sumModel);
    compare("buffer copied from the canvas", readBuffer<unsigned char>(env, staging, zeros.size()), stagingModel);
    CHECK(clReleaseMemObject(sums));
    CHECK(clReleaseMemObject(staging));

    // A uint fill, then buffer to image (from an offset).
    cl_uint4 fillColor = {{0xABCD1234u, 7, 8, 9}};
    size_t fo[3] = {30, 40, 0}, fr[3] = {20, 6, 1};
    CHECK(clEnqueueFillImage(env.queue, imageU, &fillColor, fo, fr, 0, nullptr, nullptr));
    for (size_t y = 40; y < 46; ++y)
      for (size_t x = 30; x < 50; ++x) modelU[y * W + x] = 0xABCD1234u;
    std::vector<cl_uint> values(2 + 16 * 10);
    for (size_t i = 0; i < values.size(); ++i) values[i] = cl_uint(0x1000 + i * 3);
    cl_mem valuesBuffer =
        createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, values.size() * 4, values.data());
    size_t bo[3] = {3, 2, 0}, br[3] = {16, 10, 1};
    cl_event toImage = nullptr;
    CHECK(clEnqueueCopyBufferToImage(env.queue, valuesBuffer, imageU, 8, bo, br, 0, nullptr, &toImage));
    CHECK(clWaitForEvents(1, &toImage));
    expectEventType(toImage, CL_COMMAND_COPY_BUFFER_TO_IMAGE, "copy buffer to image");
    CHECK(clReleaseEvent(toImage));
    for (size_t y = 0; y < 10; ++y)
      for (size_t x = 0; x < 16; ++x) modelU[(2 + y) * W + 3 + x] = values[2 + y * 16 + x];
    compare("uint image after a fill and a buffer copy", readImage<cl_uint>(env, imageU, W, H, 1, 1), modelU);
    readU("uint image after a fill and a buffer copy (kernel read)");
    CHECK(clReleaseMemObject(valuesBuffer));

    // A float fill.
    cl_float4 fc = {{1.5f, -2.25f, 1000.0f, 0.125f}};
    size_t ffo[3] = {0, 0, 0}, ffr[3] = {8, 8, 1};
    CHECK(clEnqueueFillImage(env.queue, imageA, &fc, ffo, ffr, 0, nullptr, nullptr));
    for (size_t y = 0; y < 8; ++y)
      for (size_t x = 0; x < 8; ++x) std::memcpy(&model[(y * W + x) * 4], fc.s, 16);
  }
  CHECK(clFinish(env.queue));

  // 7. Maps: a read map of the photo, a write map of A, then a kernel reads A.
  std::printf("-- maps\n");
  {
    size_t origin[3] = {8, 4, 0}, region[3] = {16, 12, 1}, rowPitch = 0, slicePitch = 0;
    cl_event mapped = nullptr;
    auto* p = static_cast<unsigned char*>(clEnqueueMapImage(env.queue, photoImage, CL_TRUE, CL_MAP_READ, origin, region,
                                                            &rowPitch, &slicePitch, 0, nullptr, &mapped, &err));
    CHECK(err);
    if (!p) return finish();
    expectEventType(mapped, CL_COMMAND_MAP_IMAGE, "map image");
    CHECK(clReleaseEvent(mapped));
    expect(rowPitch >= 16 * 4, "read map row pitch holds a row");
    std::vector<unsigned char> got(16 * 12 * 4), expected(got.size());
    for (size_t y = 0; y < 12; ++y) {
      std::memcpy(&got[y * 64], p + y * rowPitch, 64);
      std::memcpy(&expected[y * 64], &photo[((4 + y) * W + 8) * 4], 64);
    }
    CHECK(clEnqueueUnmapMemObject(env.queue, photoImage, p, 0, nullptr, nullptr));
    compare("read map of the photo", got, expected);

    size_t wo[3] = {20, 10, 0}, wr[3] = {6, 5, 1};
    auto* f = static_cast<float*>(clEnqueueMapImage(env.queue, imageA, CL_TRUE, CL_MAP_WRITE, wo, wr, &rowPitch,
                                                    &slicePitch, 0, nullptr, nullptr, &err));
    CHECK(err);
    if (!f) return finish();
    bool sawKernelData = true;
    for (size_t y = 0; y < 5; ++y)
      for (size_t x = 0; x < 6 * 4; ++x) {
        float* v = reinterpret_cast<float*>(reinterpret_cast<char*>(f) + y * rowPitch) + x;
        float& m = model[((10 + y) * W + 20) * 4 + x];
        if (*v != m) sawKernelData = false;
        *v = m = *v * 2.0f + 1.0f;
      }
    expect(sawKernelData, "write map holds the chain's data");
    CHECK(clEnqueueUnmapMemObject(env.queue, imageA, f, 0, nullptr, nullptr));
    compare("A after a fill and a write map (kernel read)", imageToBuffer(imageA), model);
  }
  CHECK(clFinish(env.queue));

  // 8. A 3-D image, a 2-D image array and a 1-D image.
  std::printf("-- 3-D, array and 1-D images\n");
  if (supported[3]) {
    const size_t X = 16, Y = 8, Z = 4, rowPitch = 18 * 4, slicePitch = rowPitch * 9;
    std::vector<unsigned char> host(slicePitch * Z, 0x77);
    std::vector<float> v(X * Y * Z);
    for (size_t z = 0; z < Z; ++z)
      for (size_t y = 0; y < Y; ++y)
        for (size_t x = 0; x < X; ++x) {
          v[(z * Y + y) * X + x] = float(int((x + 3 * y + 5 * z * z) % 37) - 10);
          std::memcpy(&host[z * slicePitch + y * rowPitch + x * 4], &v[(z * Y + y) * X + x], 4);
        }
    cl_mem volume = createImage(env, "volume", CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, CL_R, CL_FLOAT,
                                imageDesc(CL_MEM_OBJECT_IMAGE3D, X, Y, Z, 1, rowPitch, slicePitch), host.data(), false);
    printImageInfo("volume", volume);
    cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, v.size() * sizeof(float));
    SET_ARG(read3d, 0, volume);
    SET_ARG(read3d, 1, out);
    const size_t g3[3] = {X, Y, Z}, l3[3] = {4, 4, 2};
    launch(env, read3d, 3, g3, l3);
    std::vector<float> expected(v.size());
    for (size_t z = 0; z < Z; ++z)
      for (size_t y = 0; y < Y; ++y)
        for (size_t x = 0; x < X; ++x)
          expected[(z * Y + y) * X + x] = v[(z * Y + y) * X + x] * 2.0f - v[(z * Y + y) * X + std::min(x + 1, X - 1)] +
                                          v[(((z + 1) % Z) * Y + y) * X + x];
    compare("3-D image read by a kernel", readBuffer<float>(env, out, v.size()), expected);
    std::vector<float> box(6 * 5 * 2, -99.0f), boxModel(box);
    size_t bo[3] = {2, 1, 1}, br[3] = {5, 4, 2};
    CHECK(clEnqueueReadImage(env.queue, volume, CL_TRUE, bo, br, 6 * 4, 6 * 4 * 5, box.data(), 0, nullptr, nullptr));
    for (size_t z = 0; z < 2; ++z)
      for (size_t y = 0; y < 4; ++y)
        for (size_t x = 0; x < 5; ++x) boxModel[(z * 5 + y) * 6 + x] = v[((1 + z) * Y + 1 + y) * X + 2 + x];
    compare("3-D sub-box read with host pitches", box, boxModel);
    CHECK(clReleaseMemObject(out));
    CHECK(clReleaseMemObject(volume));
  }
  if (supported[4]) {
    const size_t X = 16, Y = 8, L = 3;
    std::vector<cl_uint> layers(X * Y * L), expected(layers.size());
    for (size_t i = 0; i < layers.size(); ++i) layers[i] = cl_uint(i * 131 + (i / (X * Y)) * 1009);
    cl_mem array = createImage(env, "image2d_array", CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, CL_R, CL_UNSIGNED_INT32,
                               imageDesc(CL_MEM_OBJECT_IMAGE2D_ARRAY, X, Y, 1, L), layers.data(), false, true);
    if (array) {
      printImageInfo("image2d_array", array);
      cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, layers.size() * 4);
      SET_ARG(readArray, 0, array);
      SET_ARG(readArray, 1, out);
      const size_t g3[3] = {X, Y, L}, l3[3] = {8, 4, 1};
      launch(env, readArray, 3, g3, l3);
      for (size_t i = 0; i < layers.size(); ++i) expected[i] = layers[i] * cl_uint(i / (X * Y) + 1) + cl_uint(i % X);
      compare("2-D image array read by a kernel", readBuffer<cl_uint>(env, out, layers.size()), expected);
      CHECK(clReleaseMemObject(out));
      CHECK(clReleaseMemObject(array));
    }
  }
  if (supported[5]) {
    const size_t N = 64;
    std::vector<float> line(N * 4), expected(N * 4);
    for (size_t i = 0; i < line.size(); ++i) line[i] = float(i / 4) * 0.25f + float(i % 4) * 10.0f;
    cl_mem image1d = createImage(env, "image1d", CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_FLOAT,
                                 imageDesc(CL_MEM_OBJECT_IMAGE1D, N), line.data(), true, true);
    if (image1d) {
      printImageInfo("image1d", image1d);
      cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, line.size() * sizeof(float));
      SET_ARG(read1d, 0, image1d);
      SET_ARG(read1d, 1, out);
      const size_t g = N, l = 16;
      launch(env, read1d, 1, &g, &l);
      for (size_t i = 0; i < N; ++i)
        for (size_t c = 0; c < 4; ++c) expected[i * 4 + c] = line[i * 4 + c] + line[((i * 5) % N) * 4 + c] * 2.0f;
      compare("1-D image read by a kernel", readBuffer<float>(env, out, line.size()), expected);
      CHECK(clReleaseMemObject(out));
      CHECK(clReleaseMemObject(image1d));
    }
  }
  CHECK(clFinish(env.queue));

  // 9. A 1-D image over a buffer: kernels and image commands see the buffer's bytes, and buffer
  //    commands see what the image's kernels wrote.
  std::printf("-- 1-D buffer image\n");
  if (formatSupported(env, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_RGBA, CL_UNSIGNED_INT32)) {
    const char* source = R"CLC(
kernel void scaleTexels(read_only image1d_buffer_t in, write_only image1d_buffer_t out, uint k) {
  int i = get_global_id(0);
  write_imageui(out, i, read_imageui(in, i) * k + (uint4)(i, 0, 1, 2));
}
)CLC";
    cl_program bp = buildProgram(env, source);
    cl_kernel scale = createKernel(bp, "scaleTexels");
    const size_t N = 256;
    std::vector<cl_uint> values(N * 4), expected(N * 4);
    for (size_t i = 0; i < values.size(); ++i) values[i] = cl_uint(i * 7 + 1);
    cl_mem inBuffer =
        createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, values.size() * 4, values.data());
    cl_mem outBuffer = createBuffer(env.context, CL_MEM_READ_WRITE, values.size() * 4);
    cl_image_desc d = imageDesc(CL_MEM_OBJECT_IMAGE1D_BUFFER, N);
    d.buffer = inBuffer;
    cl_mem inImage = createImage(env, "1-D buffer image", 0, CL_RGBA, CL_UNSIGNED_INT32, d, nullptr, false);
    d.buffer = outBuffer;
    cl_mem outImage =
        createImage(env, "1-D buffer image", CL_MEM_WRITE_ONLY, CL_RGBA, CL_UNSIGNED_INT32, d, nullptr, false);
    cl_mem associated = nullptr;
    CHECK(clGetMemObjectInfo(inImage, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, nullptr));
    expect(associated == inBuffer, "a 1-D buffer image's associated object is its buffer");
    SET_ARG(scale, 0, inImage);
    SET_ARG(scale, 1, outImage);
    SET_ARG(scale, 2, cl_uint(3));
    const size_t g = N, l = 32;
    launch(env, scale, 1, &g, &l);
    for (size_t i = 0; i < N; ++i)
      for (size_t c = 0; c < 4; ++c)
        expected[i * 4 + c] = values[i * 4 + c] * 3 + (c == 0 ? cl_uint(i) : cl_uint(c - 1));
    compare("buffer under a 1-D image a kernel wrote", readBuffer<cl_uint>(env, outBuffer, values.size()), expected);
    // The buffer changes; the image reads the new bytes.
    for (size_t i = 0; i < values.size(); ++i) values[i] = cl_uint(i * 13 + 5);
    CHECK(clEnqueueWriteBuffer(env.queue, inBuffer, CL_TRUE, 0, values.size() * 4, values.data(), 0, nullptr, nullptr));
    SET_ARG(scale, 2, cl_uint(5));
    launch(env, scale, 1, &g, &l);
    for (size_t i = 0; i < N; ++i)
      for (size_t c = 0; c < 4; ++c)
        expected[i * 4 + c] = values[i * 4 + c] * 5 + (c == 0 ? cl_uint(i) : cl_uint(c - 1));
    std::vector<cl_uint> viaImage(values.size());
    size_t origin[3] = {0, 0, 0}, region[3] = {N, 1, 1};
    CHECK(clEnqueueReadImage(env.queue, outImage, CL_TRUE, origin, region, 0, 0, viaImage.data(), 0, nullptr, nullptr));
    compare("1-D buffer image read after a buffer write and a launch", viaImage, expected);
    CHECK(clFinish(env.queue));
    for (cl_mem m : {inImage, outImage, inBuffer, outBuffer}) CHECK(clReleaseMemObject(m));
    CHECK(clReleaseKernel(scale));
    CHECK(clReleaseProgram(bp));
  } else {
    std::printf("1-D buffer images: format not supported\n");
  }

  // 10. A USE_HOST_PTR image written by a kernel, then mapped.
  std::printf("-- USE_HOST_PTR image\n");
  {
    const size_t X = 32, Y = 16;
    std::vector<unsigned char> host(X * Y * 4), expected(host.size());
    for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<unsigned char>(i * 3);
    cl_mem image = createImage(env, "USE_HOST_PTR image", CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, CL_RGBA,
                               CL_UNORM_INT8, imageDesc(CL_MEM_OBJECT_IMAGE2D, X, Y), host.data(), true);
    void* hostPtr = nullptr;
    CHECK(clGetMemObjectInfo(image, CL_MEM_HOST_PTR, sizeof hostPtr, &hostPtr, nullptr));
    expect(hostPtr == host.data(), "CL_MEM_HOST_PTR is the host pointer");
    compare("USE_HOST_PTR image as created", readImage<unsigned char>(env, image, X, Y, 1, 4), host);
    SET_ARG(writeGradient, 0, image);
    SET_ARG(writeGradient, 1, cl_int(3));
    const size_t g[2] = {X, Y};
    cl_event written = nullptr;
    launch(env, writeGradient, 2, g, local2, &written);
    for (size_t y = 0; y < Y; ++y)
      for (size_t x = 0; x < X; ++x) {
        unsigned char* p = &expected[(y * X + x) * 4];
        p[0] = (unsigned char)(x * 8), p[1] = (unsigned char)(y * 16), p[2] = (unsigned char)((x ^ y) + 3), p[3] = 200;
      }
    size_t origin[3] = {0, 0, 0}, region[3] = {X, Y, 1}, rowPitch = 0, slicePitch = 0;
    auto* p = static_cast<unsigned char*>(clEnqueueMapImage(env.queue, image, CL_TRUE, CL_MAP_READ, origin, region,
                                                            &rowPitch, &slicePitch, 1, &written, nullptr, &err));
    CHECK(err);
    CHECK(clReleaseEvent(written));
    if (!p) return finish();
    expect(p == host.data(), "map of a USE_HOST_PTR image returns its host pointer");
    expect(rowPitch == X * 4, "its row pitch is the host's");
    std::vector<unsigned char> got(host.size());
    for (size_t y = 0; y < Y; ++y) std::memcpy(&got[y * X * 4], p + y * rowPitch, X * 4);
    compare("USE_HOST_PTR image mapped after a kernel wrote it", got, expected);
    compare("its host memory while mapped", host, expected);
    CHECK(clEnqueueUnmapMemObject(env.queue, image, p, 0, nullptr, nullptr));
    size_t po[3] = {4, 2, 0}, pr[3] = {8, 4, 1};
    p = static_cast<unsigned char*>(clEnqueueMapImage(env.queue, image, CL_TRUE, CL_MAP_READ, po, pr, &rowPitch,
                                                      &slicePitch, 0, nullptr, nullptr, &err));
    CHECK(err);
    if (!p) return finish();
    std::vector<unsigned char> part(8 * 4 * 4), partModel(part.size());
    for (size_t y = 0; y < 4; ++y) {
      std::memcpy(&part[y * 32], p + y * rowPitch, 32);
      std::memcpy(&partModel[y * 32], &expected[((2 + y) * X + 4) * 4], 32);
    }
    CHECK(clEnqueueUnmapMemObject(env.queue, image, p, 0, nullptr, nullptr));
    compare("partial map of the USE_HOST_PTR image", part, partModel);
    CHECK(clFinish(env.queue));
    CHECK(clReleaseMemObject(image));
  }

  // 11. Release everything.
  for (cl_mem m : {photoImage, imageA, imageB, imageU, canvas, blurOut, crossOut, floatOut, uintOut})
    CHECK(clReleaseMemObject(m));
  CHECK(clReleaseSampler(sampler));
  for (cl_kernel k : {blurRed, crossBorder, fill, stencil, toBuffer, writeUint, readUint, pixelSums, read3d, readArray,
                      read1d, writeGradient})
    CHECK(clReleaseKernel(k));
  CHECK(clReleaseProgram(program));
  env.release();
  std::printf("done\n");
  return finish();
}
