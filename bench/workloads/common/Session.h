// One device, one context, one in-order queue: the set-up of an ordinary single-device OpenCL
// program. The device is chosen the way the calling program's authors chose it (DevicePolicy),
// unless --platform/--device name it explicitly.
#pragma once

#include "bench/workloads/common/Args.h"
#include "bench/workloads/common/ClError.h"
#include "bench/workloads/common/ClHandle.h"
#include "bench/workloads/common/Result.h"

#include <optional>
#include <string>
#include <vector>

namespace clsplit::bench {

/// The device-selection idioms found in real OpenCL programs; the workloads use different ones
/// on purpose, so that a layer under them is exercised the way programs really use OpenCL.
enum class DevicePolicy {
  FirstPlatformDefault, ///< first platform, clGetDeviceIDs(CL_DEVICE_TYPE_DEFAULT), first device
  FirstPlatformAll,     ///< first platform, clGetDeviceIDs(CL_DEVICE_TYPE_ALL), first device
  GpuThenAny,           ///< first GPU of any platform, else the first device of any type
  TypeFromEnvOrFlag,    ///< --device-type, else $OCL_DEVICE_TYPE, else all: first match
  ContextFromType,      ///< clCreateContextFromType on the first platform, first context device
};

/// Options every workload accepts.
struct CommonOptions {
  long Size = 0;
  int Iterations = 0;
  std::optional<long> PlatformIndex; ///< with DeviceIndex: explicit choice, overrides the policy
  std::optional<long> DeviceIndex;
  std::optional<std::string> DeviceType; ///< cpu|gpu|accelerator|default|all
  bool FullVerification = false;         ///< --verify full: no sampling even when expensive
  unsigned long Seed = 1;
};

CommonOptions parseCommonOptions(ArgParser& args, long defaultSize, long minSize, long maxSize, int defaultIterations);

class Session {
public:
  /// \p contextType is the type ContextFromType asks for (other policies ignore it).
  static Session open(const CommonOptions& options, DevicePolicy policy,
                      cl_device_type contextType = CL_DEVICE_TYPE_ALL);

  cl_context context() const { return Ctx.get(); }
  cl_command_queue queue() const { return CmdQueue.get(); }
  cl_device_id device() const { return Device; }
  const std::string& deviceName() const { return DeviceName; }
  const std::string& platformName() const { return PlatformName; }
  bool deviceSupportsDouble() const;
  size_t maxWorkGroupSize() const;

  /// Builds \p source for the session's device; on failure the build log is in the exception.
  Program buildProgram(const char* source, const std::string& options = "") const;
  Kernel createKernel(const Program& program, const char* name) const;
  Buffer createBuffer(cl_mem_flags flags, size_t bytes) const;

  template <typename T>
  void write(const Buffer& buffer, const std::vector<T>& data) const {
    check(clEnqueueWriteBuffer(queue(), buffer.get(), CL_TRUE, 0, data.size() * sizeof(T), data.data(), 0, nullptr,
                               nullptr),
          "clEnqueueWriteBuffer");
  }
  template <typename T>
  void read(const Buffer& buffer, std::vector<T>& data) const {
    check(clEnqueueReadBuffer(queue(), buffer.get(), CL_TRUE, 0, data.size() * sizeof(T), data.data(), 0, nullptr,
                              nullptr),
          "clEnqueueReadBuffer");
  }
  /// Enqueues \p kernel over \p global (rounded by the caller); \p local may be empty (NULL).
  void run(const Kernel& kernel, const std::vector<size_t>& global, const std::vector<size_t>& local = {}) const;
  void finish() const { check(clFinish(queue()), "clFinish"); }

private:
  Context Ctx;
  Queue CmdQueue;
  cl_device_id Device = nullptr;
  std::string DeviceName;
  std::string PlatformName;
};

/// Local-memory argument of a given byte size, for setArgs.
struct LocalBytes {
  size_t Bytes;
};

namespace detail {
template <typename T>
void setArg(cl_kernel kernel, cl_uint index, const T& value) {
  check(clSetKernelArg(kernel, index, sizeof(T), &value), "clSetKernelArg");
}
inline void setArg(cl_kernel kernel, cl_uint index, const Buffer& buffer) {
  cl_mem mem = buffer.get();
  check(clSetKernelArg(kernel, index, sizeof(cl_mem), &mem), "clSetKernelArg");
}
inline void setArg(cl_kernel kernel, cl_uint index, const LocalBytes& local) {
  check(clSetKernelArg(kernel, index, local.Bytes, nullptr), "clSetKernelArg");
}
} // namespace detail

/// Sets all arguments of \p kernel in order: buffers, scalars (exact OpenCL types) or LocalBytes.
template <typename... Args>
void setArgs(const Kernel& kernel, const Args&... args) {
  cl_uint index = 0;
  (detail::setArg(kernel.get(), index++, args), ...);
}

/// Smallest multiple of \p multiple that is >= \p value (global sizes with an explicit local size).
inline size_t roundUp(size_t value, size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

/// What every workload's run ends with: the session's device and platform into \p result, its
/// RESULT line printed, and the exit status returned (0: verified, 1: not).
int finishRun(RunResult& result, const Session& session);

} // namespace clsplit::bench
