// Device selection and the single-device session (see Session.h).
#include "bench/workloads/common/Session.h"

#include <cstdlib>

namespace clsplit::bench {

CommonOptions parseCommonOptions(ArgParser& args, long defaultSize, long minSize, long maxSize, int defaultIterations) {
  CommonOptions options;
  options.Size = args.integer("--size", defaultSize, minSize, maxSize, "problem size");
  options.Iterations =
      static_cast<int>(args.integer("--iters", defaultIterations, 1, 1000000, "iterations of the timed loop"));
  options.PlatformIndex = args.optionalInteger("--platform", 0, 1000, "platform index (explicit device choice)");
  options.DeviceIndex = args.optionalInteger("--device", 0, 1000, "device index within the platform");
  options.DeviceType = args.optionalChoice("--device-type", {"cpu", "gpu", "accelerator", "default", "all"},
                                           "device type, for programs that pick a device by type");
  options.FullVerification = args.choice("--verify", "auto", {"auto", "full"},
                                         "auto samples when a full CPU reference would be slow") == "full";
  options.Seed = static_cast<unsigned long>(args.integer("--seed", 1, 0, 1L << 40, "seed of the input generator"));
  return options;
}

static std::vector<cl_platform_id> platforms() {
  cl_uint count = 0;
  check(clGetPlatformIDs(0, nullptr, &count), "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(count);
  if (count > 0) check(clGetPlatformIDs(count, ids.data(), nullptr), "clGetPlatformIDs");
  if (ids.empty()) throw ClError("clGetPlatformIDs", -1001);
  return ids;
}

/// Devices of \p type on \p platform; empty when it has none (not an error for a search).
static std::vector<cl_device_id> devicesOf(cl_platform_id platform, cl_device_type type) {
  cl_uint count = 0;
  cl_int status = clGetDeviceIDs(platform, type, 0, nullptr, &count);
  if (status == CL_DEVICE_NOT_FOUND || count == 0) return {};
  check(status, "clGetDeviceIDs");
  std::vector<cl_device_id> ids(count);
  check(clGetDeviceIDs(platform, type, count, ids.data(), nullptr), "clGetDeviceIDs");
  return ids;
}

static cl_device_type parseDeviceType(const std::string& name) {
  if (name == "cpu") return CL_DEVICE_TYPE_CPU;
  if (name == "gpu") return CL_DEVICE_TYPE_GPU;
  if (name == "accelerator") return CL_DEVICE_TYPE_ACCELERATOR;
  if (name == "default") return CL_DEVICE_TYPE_DEFAULT;
  if (name == "all") return CL_DEVICE_TYPE_ALL;
  throw UsageError("unknown device type '" + name + "' (cpu|gpu|accelerator|default|all)");
}

static std::string deviceString(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  check(clGetDeviceInfo(device, what, 0, nullptr, &size), "clGetDeviceInfo");
  std::string text(size, '\0');
  check(clGetDeviceInfo(device, what, size, text.data(), nullptr), "clGetDeviceInfo");
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

static std::string platformString(cl_platform_id platform, cl_platform_info what) {
  size_t size = 0;
  check(clGetPlatformInfo(platform, what, 0, nullptr, &size), "clGetPlatformInfo");
  std::string text(size, '\0');
  check(clGetPlatformInfo(platform, what, size, text.data(), nullptr), "clGetPlatformInfo");
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

namespace {
struct Choice {
  cl_platform_id Platform = nullptr;
  cl_device_id Device = nullptr;
};
} // namespace

static Choice chooseExplicit(long platformIndex, long deviceIndex) {
  auto all = platforms();
  if (platformIndex >= static_cast<long>(all.size()))
    throw UsageError("--platform " + std::to_string(platformIndex) + ": only " + std::to_string(all.size()) +
                     " platform(s)");
  auto devices = devicesOf(all[platformIndex], CL_DEVICE_TYPE_ALL);
  if (deviceIndex >= static_cast<long>(devices.size()))
    throw UsageError("--device " + std::to_string(deviceIndex) + ": platform " + std::to_string(platformIndex) +
                     " has " + std::to_string(devices.size()) + " device(s)");
  return {all[platformIndex], devices[deviceIndex]};
}

static Choice chooseByType(cl_device_type type, const std::string& typeName) {
  for (cl_platform_id platform : platforms()) {
    auto devices = devicesOf(platform, type);
    if (!devices.empty()) return {platform, devices.front()};
  }
  throw ClError("no OpenCL device of type '" + typeName + "': clGetDeviceIDs", CL_DEVICE_NOT_FOUND);
}

Session Session::open(const CommonOptions& options, DevicePolicy policy, cl_device_type contextType) {
  Session session;
  Choice choice;
  cl_int status = CL_SUCCESS;
  bool haveContext = false;

  if (options.PlatformIndex || options.DeviceIndex) {
    choice = chooseExplicit(options.PlatformIndex.value_or(0), options.DeviceIndex.value_or(0));
  } else {
    switch (policy) {
    case DevicePolicy::FirstPlatformDefault:
    case DevicePolicy::FirstPlatformAll: {
      cl_platform_id first = platforms().front();
      auto type = policy == DevicePolicy::FirstPlatformDefault ? CL_DEVICE_TYPE_DEFAULT : CL_DEVICE_TYPE_ALL;
      auto devices = devicesOf(first, type);
      if (devices.empty()) throw ClError("clGetDeviceIDs on the first platform", CL_DEVICE_NOT_FOUND);
      choice = {first, devices.front()};
      break;
    }
    case DevicePolicy::GpuThenAny:
      try {
        choice = chooseByType(CL_DEVICE_TYPE_GPU, "gpu");
      } catch (const ClError&) {
        choice = chooseByType(CL_DEVICE_TYPE_ALL, "all");
      }
      break;
    case DevicePolicy::TypeFromEnvOrFlag: {
      std::string typeName = "all";
      if (options.DeviceType)
        typeName = *options.DeviceType;
      else if (const char* env = std::getenv("OCL_DEVICE_TYPE"); env && *env)
        typeName = env;
      choice = chooseByType(parseDeviceType(typeName), typeName);
      break;
    }
    case DevicePolicy::ContextFromType: {
      cl_platform_id first = platforms().front();
      cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(first), 0};
      cl_context context = clCreateContextFromType(properties, contextType, nullptr, nullptr, &status);
      if (status == CL_DEVICE_NOT_FOUND && contextType != CL_DEVICE_TYPE_ALL)
        context = clCreateContextFromType(properties, CL_DEVICE_TYPE_ALL, nullptr, nullptr, &status);
      check(status, "clCreateContextFromType");
      session.Ctx = Context(context);
      size_t bytes = 0;
      check(clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, nullptr, &bytes), "clGetContextInfo");
      std::vector<cl_device_id> devices(bytes / sizeof(cl_device_id));
      if (devices.empty()) throw ClError("clGetContextInfo(CL_CONTEXT_DEVICES)", CL_DEVICE_NOT_FOUND);
      check(clGetContextInfo(context, CL_CONTEXT_DEVICES, bytes, devices.data(), nullptr), "clGetContextInfo");
      choice = {first, devices.front()};
      haveContext = true;
      break;
    }
    }
  }

  if (!haveContext) {
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(choice.Platform),
                                          0};
    session.Ctx = Context(clCreateContext(properties, 1, &choice.Device, nullptr, nullptr, &status));
    check(status, "clCreateContext");
  }
  session.Device = choice.Device;
  session.CmdQueue = Queue(clCreateCommandQueue(session.Ctx.get(), choice.Device, 0, &status));
  check(status, "clCreateCommandQueue");
  session.DeviceName = deviceString(choice.Device, CL_DEVICE_NAME);
  session.PlatformName = platformString(choice.Platform, CL_PLATFORM_NAME);
  return session;
}

bool Session::deviceSupportsDouble() const {
  cl_device_fp_config config = 0;
  check(clGetDeviceInfo(Device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(config), &config, nullptr),
        "clGetDeviceInfo(CL_DEVICE_DOUBLE_FP_CONFIG)");
  return config != 0;
}

size_t Session::maxWorkGroupSize() const {
  size_t size = 0;
  check(clGetDeviceInfo(Device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size), &size, nullptr),
        "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
  return size;
}

Program Session::buildProgram(const char* source, const std::string& options) const {
  cl_int status = CL_SUCCESS;
  Program program(clCreateProgramWithSource(context(), 1, &source, nullptr, &status));
  check(status, "clCreateProgramWithSource");
  status = clBuildProgram(program.get(), 1, &Device, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program.get(), Device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    if (size > 0) clGetProgramBuildInfo(program.get(), Device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    throw ClError("clBuildProgram (build log follows)\n" + log + "\n", status);
  }
  return program;
}

Kernel Session::createKernel(const Program& program, const char* name) const {
  cl_int status = CL_SUCCESS;
  Kernel kernel(clCreateKernel(program.get(), name, &status));
  check(status, (std::string("clCreateKernel(") + name + ")").c_str());
  return kernel;
}

Buffer Session::createBuffer(cl_mem_flags flags, size_t bytes) const {
  cl_int status = CL_SUCCESS;
  Buffer buffer(clCreateBuffer(context(), flags, bytes, nullptr, &status));
  check(status, "clCreateBuffer");
  return buffer;
}

void Session::run(const Kernel& kernel, const std::vector<size_t>& global, const std::vector<size_t>& local) const {
  check(clEnqueueNDRangeKernel(queue(), kernel.get(), static_cast<cl_uint>(global.size()), nullptr, global.data(),
                               local.empty() ? nullptr : local.data(), 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
}

int finishRun(RunResult& result, const Session& session) {
  result.Device = session.deviceName();
  result.Platform = session.platformName();
  printResult(result);
  return result.Verified ? 0 : 1;
}

} // namespace clsplit::bench
