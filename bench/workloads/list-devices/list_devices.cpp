// Prints every OpenCL device the loader shows, in the format of `clsplit --list-devices --json`
// ([{"index","name","platform","vendor","type","compute_units","global_mem_bytes","icd",
// "platform_index","device_index"}]), with "icd": null since the loader does not tell which
// library serves a platform. Exit status 0 even with no platform (then it prints []).
#include "bench/workloads/common/ClError.h"
#include "bench/workloads/common/Result.h"

#include <CL/cl.h>

#include <cstdio>
#include <string>
#include <vector>

using namespace clsplit::bench;

namespace {

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

template <typename Getter, typename Object, typename Info>
std::string infoString(Getter getter, Object object, Info what) {
  size_t size = 0;
  if (getter(object, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  getter(object, what, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

const char* typeName(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
  return "OTHER";
}

int run() {
  cl_uint platformCount = 0;
  cl_int status = clGetPlatformIDs(0, nullptr, &platformCount);
  std::vector<cl_platform_id> platforms(platformCount);
  if (status == CL_SUCCESS && platformCount > 0)
    check(clGetPlatformIDs(platformCount, platforms.data(), nullptr), "clGetPlatformIDs");

  std::string json = "[";
  int index = 0;
  for (cl_uint p = 0; p < platforms.size(); ++p) {
    cl_uint deviceCount = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &deviceCount) != CL_SUCCESS || deviceCount == 0)
      continue;
    std::vector<cl_device_id> devices(deviceCount);
    check(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, deviceCount, devices.data(), nullptr), "clGetDeviceIDs");
    std::string platformName = infoString(clGetPlatformInfo, platforms[p], CL_PLATFORM_NAME);
    for (cl_uint d = 0; d < deviceCount; ++d) {
      cl_device_type type = 0;
      cl_uint units = 0;
      cl_ulong memory = 0;
      clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, nullptr);
      clGetDeviceInfo(devices[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
      clGetDeviceInfo(devices[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof memory, &memory, nullptr);
      char numbers[256];
      std::snprintf(numbers, sizeof numbers,
                    ",\"type\":\"%s\",\"compute_units\":%u,\"global_mem_bytes\":%llu,"
                    "\"icd\":null,\"platform_index\":%u,\"device_index\":%u}",
                    typeName(type), units, static_cast<unsigned long long>(memory), p, d);
      json += std::string(index == 0 ? "" : ",") + "\n  {\"index\":" + std::to_string(index) +
              ",\"name\":" + jsonString(infoString(clGetDeviceInfo, devices[d], CL_DEVICE_NAME)) +
              ",\"platform\":" + jsonString(platformName) +
              ",\"vendor\":" + jsonString(infoString(clGetDeviceInfo, devices[d], CL_DEVICE_VENDOR)) + numbers;
      ++index;
    }
  }
  json += index == 0 ? "]" : "\n]";
  std::printf("%s\n", json.c_str());
  return 0;
}

} // namespace

int main() { return guardedMain(run); }
