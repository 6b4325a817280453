// Shared helpers of the integration programs: calls checked by name, a byte checksum, and the
// set-up every program starts with (first platform, first device, one context and queue).
// Programs print only what must be identical on every conforming implementation; a failed
// check prints "FAIL" and makes the program exit with status 1.
#pragma once

#include <CL/cl.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace itest {

inline int& failures() {
  static int count = 0;
  return count;
}

inline void fail(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::printf("FAIL: ");
  std::vprintf(format, args);
  std::printf("\n");
  std::fflush(stdout);
  va_end(args);
  ++failures();
}

// A call that must succeed: a failure is printed (with the code) and counted.
inline cl_int check(cl_int err, const char* what, const char* file, int line) {
  if (err != CL_SUCCESS) fail("%s returned %d (%s:%d)", what, err, file, line);
  return err;
}

// A call that must fail with a given code.
inline void expectCode(cl_int got, cl_int expected, const char* what) {
  if (got == expected)
    std::printf("%s -> %d\n", what, expected);
  else
    fail("%s returned %d, expected %d", what, got, expected);
}

inline void expect(bool condition, const char* what) {
  if (condition)
    std::printf("ok %s\n", what);
  else
    fail("%s", what);
}

// FNV-1a over bytes: programs print checksums of every output byte.
inline uint64_t checksum(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

template <class T>
void printChecksum(const char* label, const std::vector<T>& v) {
  std::printf("%s: %zu bytes, fnv %016" PRIx64 "\n", label, v.size() * sizeof(T),
              checksum(v.data(), v.size() * sizeof(T)));
}

inline void printChecksum(const char* label, const void* data, size_t size) {
  std::printf("%s: %zu bytes, fnv %016" PRIx64 "\n", label, size, checksum(data, size));
}

inline void printInts(const char* label, const int* v, size_t n) {
  std::printf("%s:", label);
  for (size_t i = 0; i < n; ++i) std::printf(" %d", v[i]);
  std::printf("\n");
}

// Exit status of a program: 0 when every check passed.
inline int finish() {
  std::fflush(stdout);
  if (failures()) std::fprintf(stderr, "%d check(s) failed\n", failures());
  return failures() ? 1 : 0;
}

struct Env {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;

  void release() {
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
    queue = nullptr;
    context = nullptr;
  }
};

// First platform, first device, a context and an in-order queue with `properties`.
// Exits with status 2 when there is no device at all (nothing to test).
inline Env setup(cl_command_queue_properties properties = 0) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // what was printed survives a crash
  Env env;
  cl_uint n = 0;
  if (clGetPlatformIDs(1, &env.platform, &n) != CL_SUCCESS || n == 0) {
    std::fprintf(stderr, "no OpenCL platform\n");
    std::exit(2);
  }
  if (clGetDeviceIDs(env.platform, CL_DEVICE_TYPE_ALL, 1, &env.device, &n) != CL_SUCCESS || n == 0) {
    std::fprintf(stderr, "no OpenCL device\n");
    std::exit(2);
  }
  cl_int err = CL_SUCCESS;
  env.context = clCreateContext(nullptr, 1, &env.device, nullptr, nullptr, &err);
  check(err, "clCreateContext", __FILE__, __LINE__);
  env.queue = clCreateCommandQueue(env.context, env.device, properties, &err);
  check(err, "clCreateCommandQueue", __FILE__, __LINE__);
  if (!env.context || !env.queue) std::exit(itest::finish() ? 1 : 2);
  return env;
}

inline std::string buildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  return log;
}

// Builds `source` with `options`; on failure prints the build log and exits.
inline cl_program buildProgram(const Env& env, const char* source, const char* options = "") {
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(env.context, 1, &source, nullptr, &err);
  check(err, "clCreateProgramWithSource", __FILE__, __LINE__);
  err = clBuildProgram(program, 1, &env.device, options, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    fail("clBuildProgram returned %d; log:\n%s", err, buildLog(program, env.device).c_str());
    std::exit(finish());
  }
  return program;
}

inline cl_kernel createKernel(cl_program program, const char* name) {
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  if (err != CL_SUCCESS) {
    fail("clCreateKernel(%s) returned %d", name, err);
    std::exit(finish());
  }
  return kernel;
}

inline cl_mem createBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host = nullptr) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context, flags, size, host, &err);
  if (err != CL_SUCCESS) {
    fail("clCreateBuffer(flags %#llx, %zu bytes) returned %d", (unsigned long long)flags, size, err);
    std::exit(finish());
  }
  return mem;
}

template <class T>
void setArg(cl_kernel kernel, cl_uint index, const T& value, int line) {
  check(clSetKernelArg(kernel, index, sizeof(T), &value), "clSetKernelArg", __FILE__, line);
}

inline std::string deviceString(cl_device_id device, cl_device_info param) {
  size_t size = 0;
  clGetDeviceInfo(device, param, 0, nullptr, &size);
  std::string s(size, '\0');
  if (size) clGetDeviceInfo(device, param, size, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

inline bool hasExtension(cl_device_id device, const char* name) {
  std::string all = " " + deviceString(device, CL_DEVICE_EXTENSIONS) + " ";
  return all.find(std::string(" ") + name + " ") != std::string::npos;
}

} // namespace itest

#define CHECK(call) ::itest::check((call), #call, __FILE__, __LINE__)
#define SET_ARG(kernel, index, value) ::itest::setArg((kernel), (index), (value), __LINE__)
