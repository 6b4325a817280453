// Runs one kernel on a real OpenCL device (PoCL) either whole or as slices of its NDRange
// (the partition-ready copy, with the hidden arguments set as the runtime would), and returns
// every buffer's final bytes so the two can be compared byte for byte.
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace clsplit::test {

struct KernelArgSpec {
  enum Kind { Buffer, Scalar, Local } kind = Buffer;
  std::vector<uint8_t> bytes; // Buffer: initial contents; Scalar: the value
  size_t localBytes = 0;      // Local
  static KernelArgSpec buffer(std::vector<uint8_t> init) { return {Buffer, std::move(init), 0}; }
  static KernelArgSpec local(size_t n) { return {Local, {}, n}; }
  template <class T>
  static KernelArgSpec scalar(const T& v) {
    std::vector<uint8_t> b(sizeof(T));
    std::memcpy(b.data(), &v, sizeof(T));
    return {Scalar, std::move(b), 0};
  }
};

struct Launch {
  cl_uint dims = 1;
  std::array<size_t, 3> offset{0, 0, 0};
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{1, 1, 1};
};

// Deterministic non-trivial bytes.
inline std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> out(n);
  uint32_t x = seed * 2654435761u + 12345u;
  for (auto& b : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<uint8_t>(x);
  }
  return out;
}

// Floats in [-4, 4) (bit patterns of random bytes would include NaNs, which compare poorly).
inline std::vector<uint8_t> floatPattern(size_t count, uint32_t seed) {
  auto raw = pattern(count * 4, seed);
  std::vector<uint8_t> out(count * 4);
  for (size_t i = 0; i < count; ++i) {
    float f = static_cast<float>(raw[4 * i] % 64) / 8.0f - 4.0f;
    std::memcpy(out.data() + 4 * i, &f, 4);
  }
  return out;
}

class Device {
public:
  // The first device of the first platform whose name contains $CLSPLIT_TEST_PLATFORM
  // (default "Portable Computing Language", i.e. PoCL).
  Device() {
    const char* wanted = std::getenv("CLSPLIT_TEST_PLATFORM");
    std::string platformName = wanted && *wanted ? wanted : "Portable Computing Language";
    cl_uint count = 0;
    clGetPlatformIDs(0, nullptr, &count);
    std::vector<cl_platform_id> platforms(count);
    if (count) clGetPlatformIDs(count, platforms.data(), nullptr);
    for (cl_platform_id p : platforms) {
      char name[256] = {};
      clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
      if (std::string(name).find(platformName) == std::string::npos) continue;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &device_, nullptr) == CL_SUCCESS) break;
    }
    if (!device_) throw std::runtime_error("no OpenCL platform named like '" + platformName + "'");
    char deviceName[256] = {};
    clGetDeviceInfo(device_, CL_DEVICE_NAME, sizeof deviceName, deviceName, nullptr);
    name_ = deviceName;
    cl_int err = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    queue_ = clCreateCommandQueue(context_, device_, 0, &err);
    check(err, "clCreateCommandQueue");
  }
  ~Device() {
    if (queue_) clReleaseCommandQueue(queue_);
    if (context_) clReleaseContext(context_);
  }
  Device(const Device&) = delete;
  const std::string& name() const { return name_; }
  Device& operator=(const Device&) = delete;

  // Builds `source`; throws with the build log on failure.
  // Window shifts are compiled in (as clsplit does for several devices): sliced runs prove
  // the kernels address the same bytes through a shifted buffer.
  cl_program build(const std::string& programSource, const std::string& options) {
    const std::string source = "#define __CLSPLIT_WINDOWS 1\n" + programSource;
    const char* text = source.c_str();
    size_t length = source.size();
    cl_int err = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &err);
    check(err, "clCreateProgramWithSource");
    if (clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      size_t size = 0;
      clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      clReleaseProgram(program);
      throw std::runtime_error("build failed:\n" + log + "\nsource:\n" + source);
    }
    return program;
  }

  // Runs the kernel over the whole launch: the reference.
  std::vector<std::vector<uint8_t>> runWhole(cl_program program, const std::string& kernel,
                                             const std::vector<KernelArgSpec>& args, const Launch& launch) {
    return run(program, kernel, args, launch, -1, {});
  }

  // Runs the partition-ready kernel as consecutive slices of `groupBounds` (work-group
  // indices, first = 0, last = number of groups) along dimension `dim`.
  std::vector<std::vector<uint8_t>> runSliced(cl_program program, const std::string& kernel,
                                              const std::vector<KernelArgSpec>& args, const Launch& launch,
                                              unsigned dim, const std::vector<size_t>& groupBounds) {
    return run(program, kernel, args, launch, static_cast<int>(dim), groupBounds);
  }

private:
  static void check(cl_int err, const char* what) {
    if (err != CL_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + std::to_string(err));
  }

  std::vector<std::vector<uint8_t>> run(cl_program program, const std::string& name,
                                        const std::vector<KernelArgSpec>& args, const Launch& launch, int dim,
                                        const std::vector<size_t>& bounds) {
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program, name.c_str(), &err);
    check(err, "clCreateKernel");
    std::vector<cl_mem> buffers(args.size(), nullptr);
    // Sliced runs give each buffer as a window that starts kPad bytes before it (a shift of
    // -kPad), so that every kernel also proves its pointers are rebased by the window shift.
    const size_t pad = dim < 0 ? 0 : kPad;
    cl_uint shifts = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      const KernelArgSpec& a = args[i];
      if (a.kind == KernelArgSpec::Buffer) {
        std::vector<uint8_t> padded(pad, 0xEE);
        padded.insert(padded.end(), a.bytes.begin(), a.bytes.end());
        buffers[i] =
            clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, padded.size(), padded.data(), &err);
        check(err, "clCreateBuffer");
        check(clSetKernelArg(kernel, i, sizeof(cl_mem), &buffers[i]), "clSetKernelArg(buffer)");
        if (dim >= 0) {
          const cl_long shift = -static_cast<cl_long>(pad);
          check(clSetKernelArg(kernel, args.size() + 2 + shifts++, sizeof shift, &shift), "clSetKernelArg(shift)");
        }
      } else if (a.kind == KernelArgSpec::Local) {
        check(clSetKernelArg(kernel, i, a.localBytes, nullptr), "clSetKernelArg(local)");
      } else {
        check(clSetKernelArg(kernel, i, a.bytes.size(), a.bytes.data()), "clSetKernelArg(scalar)");
      }
    }
    if (dim < 0) {
      check(clEnqueueNDRangeKernel(queue_, kernel, launch.dims, launch.offset.data(), launch.global.data(),
                                   launch.local.data(), 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel(whole)");
    } else {
      cl_ulong4 goffset{}, gsize{};
      for (unsigned d = 0; d < 3; ++d) {
        goffset.s[d] = d < launch.dims ? launch.offset[d] : 0;
        gsize.s[d] = d < launch.dims ? launch.global[d] : 1;
      }
      check(clSetKernelArg(kernel, args.size(), sizeof goffset, &goffset), "clSetKernelArg(goffset)");
      check(clSetKernelArg(kernel, args.size() + 1, sizeof gsize, &gsize), "clSetKernelArg(gsize)");
      for (size_t s = 0; s + 1 < bounds.size(); ++s) {
        if (bounds[s + 1] <= bounds[s]) continue;
        std::array<size_t, 3> offset = launch.offset, global = launch.global;
        offset[dim] = launch.offset[dim] + bounds[s] * launch.local[dim];
        global[dim] = (bounds[s + 1] - bounds[s]) * launch.local[dim];
        check(clEnqueueNDRangeKernel(queue_, kernel, launch.dims, offset.data(), global.data(), launch.local.data(), 0,
                                     nullptr, nullptr),
              "clEnqueueNDRangeKernel(slice)");
      }
    }
    std::vector<std::vector<uint8_t>> out;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!buffers[i]) continue;
      std::vector<uint8_t> bytes(args[i].bytes.size());
      check(clEnqueueReadBuffer(queue_, buffers[i], CL_TRUE, pad, bytes.size(), bytes.data(), 0, nullptr, nullptr),
            "clEnqueueReadBuffer");
      out.push_back(std::move(bytes));
      clReleaseMemObject(buffers[i]);
    }
    clReleaseKernel(kernel);
    return out;
  }

  static constexpr size_t kPad = 4096;
  cl_device_id device_ = nullptr;
  std::string name_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
};

} // namespace clsplit::test
