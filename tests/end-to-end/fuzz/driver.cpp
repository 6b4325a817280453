// Host driver of the differential fuzzer: runs one generated program description (tests/end-to-end/
// fuzz/generate.py writes them; the format is in tests/end-to-end/fuzz/README.md) on the first OpenCL device it
// sees and prints an FNV-1a hash of every buffer. Run directly on PoCL it gives the reference;
// run through clsplit it must print the same lines, byte for byte.
//
//   fuzz_driver PROGRAM.desc
//
// Exit status: 0 ran; 1 an OpenCL call failed; 2 the description is malformed or unreadable.
#include <CL/cl.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct BufferSpec {
  std::string name;
  bool isFloat = false;
  size_t count = 0;
  std::string init; // zero | rand | values
  uint64_t seed = 0;
  long long lo = 0, hi = 0;
  std::vector<int32_t> values;
};

struct Arg {
  char kind = 'i'; // b: buffer, i: int scalar, l: local bytes
  std::string buffer;
  long long value = 0;
};

struct Launch {
  std::string kernel;
  cl_uint dims = 1;
  size_t global[2] = {1, 1};
  size_t local[2] = {1, 1};
  bool nullLocal = true;
  size_t offset[2] = {0, 0};
  bool hasOffset = false;
  std::vector<Arg> args;
};

struct Description {
  int iterations = 1;
  bool readbackEach = false;
  std::vector<BufferSpec> buffers;
  std::vector<Launch> launches;
  std::string source;
};

[[noreturn]] void malformed(const std::string& what) {
  std::fprintf(stderr, "fuzz_driver: malformed description: %s\n", what.c_str());
  std::exit(2);
}

std::vector<size_t> parseSizes(const std::string& text, cl_uint dims, const char* what) {
  std::vector<size_t> out;
  std::stringstream s(text);
  std::string part;
  while (std::getline(s, part, ',')) {
    try {
      out.push_back(static_cast<size_t>(std::stoull(part)));
    } catch (...) {
      malformed(std::string("bad ") + what + " '" + text + "'");
    }
  }
  if (out.size() != dims) malformed(std::string(what) + " '" + text + "' does not have one size per dimension");
  return out;
}

Description parse(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "fuzz_driver: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  Description d;
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "clsplit-fuzz") {
      header = true;
    } else if (key == "seed") {
      // informational
    } else if (key == "iterations") {
      if (!(words >> d.iterations) || d.iterations < 1) malformed("iterations");
    } else if (key == "readback_each") {
      int v = 0;
      if (!(words >> v)) malformed("readback_each");
      d.readbackEach = v != 0;
    } else if (key == "buffer") {
      BufferSpec b;
      std::string type;
      if (!(words >> b.name >> type >> b.count >> b.init)) malformed("buffer line: " + line);
      if (type != "int" && type != "float") malformed("buffer type " + type);
      b.isFloat = type == "float";
      if (b.count == 0) malformed("empty buffer " + b.name);
      if (b.init == "rand") {
        if (!(words >> b.seed >> b.lo >> b.hi) || b.hi < b.lo) malformed("rand buffer " + b.name);
      } else if (b.init == "values") {
        long long v;
        while (words >> v) b.values.push_back(static_cast<int32_t>(v));
        if (b.values.size() != b.count) malformed("buffer " + b.name + " lists a wrong number of values");
      } else if (b.init != "zero") {
        malformed("buffer init " + b.init);
      }
      d.buffers.push_back(std::move(b));
    } else if (key == "launch") {
      Launch l;
      std::string global, local, offset;
      if (!(words >> l.kernel >> l.dims >> global >> local >> offset) || l.dims < 1 || l.dims > 2)
        malformed("launch line: " + line);
      auto g = parseSizes(global, l.dims, "global size");
      for (cl_uint i = 0; i < l.dims; ++i) l.global[i] = g[i];
      if (local != "null") {
        l.nullLocal = false;
        auto s = parseSizes(local, l.dims, "local size");
        for (cl_uint i = 0; i < l.dims; ++i) l.local[i] = s[i];
      }
      if (offset != "none") {
        l.hasOffset = true;
        auto s = parseSizes(offset, l.dims, "offset");
        for (cl_uint i = 0; i < l.dims; ++i) l.offset[i] = s[i];
      }
      std::string a;
      while (words >> a) {
        if (a.size() < 3 || a[1] != ':') malformed("argument " + a);
        Arg arg;
        arg.kind = a[0];
        if (arg.kind == 'b') {
          arg.buffer = a.substr(2);
        } else if (arg.kind == 'i' || arg.kind == 'l') {
          try {
            arg.value = std::stoll(a.substr(2));
          } catch (...) {
            malformed("argument " + a);
          }
        } else {
          malformed("argument kind " + a);
        }
        l.args.push_back(arg);
      }
      d.launches.push_back(std::move(l));
    } else if (key == "source") {
      std::stringstream rest;
      rest << in.rdbuf();
      d.source = rest.str();
      break;
    } else {
      malformed("unknown line: " + line);
    }
  }
  if (!header) malformed("no 'clsplit-fuzz' header");
  if (d.source.empty()) malformed("no source");
  return d;
}

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Initial contents: 4-byte elements. Random floats are multiples of 1/4 so that the generated
// kernels' float arithmetic (sums, halving, doubling) stays exact.
std::vector<uint32_t> initialContents(const BufferSpec& b) {
  std::vector<uint32_t> words(b.count, 0);
  if (b.init == "values") {
    for (size_t i = 0; i < b.count; ++i) words[i] = static_cast<uint32_t>(b.values[i]);
  } else if (b.init == "rand") {
    uint64_t state = b.seed;
    for (size_t i = 0; i < b.count; ++i) {
      if (b.isFloat) {
        uint64_t span = static_cast<uint64_t>((b.hi - b.lo) * 4 + 1);
        float f = static_cast<float>(b.lo * 4 + static_cast<long long>(splitmix(state) % span)) / 4.0f;
        std::memcpy(&words[i], &f, 4);
      } else {
        uint64_t span = static_cast<uint64_t>(b.hi - b.lo + 1);
        words[i] = static_cast<uint32_t>(static_cast<int32_t>(b.lo + static_cast<long long>(splitmix(state) % span)));
      }
    }
  }
  return words;
}

uint64_t fnv(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

bool ok(cl_int err, const char* what) {
  if (err == CL_SUCCESS) return true;
  std::fprintf(stderr, "fuzz_driver: %s failed: %d\n", what, err);
  return false;
}

int run(const Description& d) {
  cl_platform_id platform;
  cl_uint count = 0;
  if (!ok(clGetPlatformIDs(1, &platform, &count), "clGetPlatformIDs") || count == 0) return 1;
  cl_device_id device;
  if (!ok(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs")) return 1;
  cl_int err;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  if (!ok(err, "clCreateContext")) return 1;
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  if (!ok(err, "clCreateCommandQueue")) return 1;
  const char* text = d.source.c_str();
  size_t length = d.source.size();
  cl_program program = clCreateProgramWithSource(context, 1, &text, &length, &err);
  if (!ok(err, "clCreateProgramWithSource")) return 1;
  if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    std::fprintf(stderr, "fuzz_driver: clBuildProgram failed:\n%s\n", log.c_str());
    return 1;
  }

  std::vector<cl_mem> buffers;
  for (const auto& b : d.buffers) {
    auto words = initialContents(b);
    buffers.push_back(
        clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b.count * 4, words.data(), &err));
    if (!ok(err, "clCreateBuffer")) return 1;
  }
  auto bufferIndex = [&](const std::string& name) -> int {
    for (size_t i = 0; i < d.buffers.size(); ++i)
      if (d.buffers[i].name == name) return static_cast<int>(i);
    return -1;
  };

  // One kernel object per launch: arguments are set once, launches may differ in them.
  std::vector<cl_kernel> kernels;
  for (const auto& l : d.launches) {
    cl_kernel k = clCreateKernel(program, l.kernel.c_str(), &err);
    if (!ok(err, ("clCreateKernel " + l.kernel).c_str())) return 1;
    for (cl_uint a = 0; a < l.args.size(); ++a) {
      const Arg& arg = l.args[a];
      if (arg.kind == 'b') {
        int i = bufferIndex(arg.buffer);
        if (i < 0) malformed("unknown buffer " + arg.buffer);
        err = clSetKernelArg(k, a, sizeof(cl_mem), &buffers[i]);
      } else if (arg.kind == 'i') {
        cl_int v = static_cast<cl_int>(arg.value);
        err = clSetKernelArg(k, a, sizeof(v), &v);
      } else {
        err = clSetKernelArg(k, a, static_cast<size_t>(arg.value), nullptr);
      }
      if (!ok(err, ("clSetKernelArg " + l.kernel + " #" + std::to_string(a)).c_str())) return 1;
    }
    kernels.push_back(k);
  }

  auto printHashes = [&](const char* prefix) -> bool {
    for (size_t i = 0; i < d.buffers.size(); ++i) {
      std::vector<uint32_t> words(d.buffers[i].count);
      if (!ok(clEnqueueReadBuffer(queue, buffers[i], CL_TRUE, 0, words.size() * 4, words.data(), 0, nullptr, nullptr),
              "clEnqueueReadBuffer"))
        return false;
      std::printf("%s%s: %zu bytes, fnv %016" PRIx64 "\n", prefix, d.buffers[i].name.c_str(), words.size() * 4,
                  fnv(words.data(), words.size() * 4));
    }
    return true;
  };

  for (int it = 0; it < d.iterations; ++it) {
    for (size_t n = 0; n < d.launches.size(); ++n) {
      const Launch& l = d.launches[n];
      err = clEnqueueNDRangeKernel(queue, kernels[n], l.dims, l.hasOffset ? l.offset : nullptr, l.global,
                                   l.nullLocal ? nullptr : l.local, 0, nullptr, nullptr);
      if (!ok(err, ("clEnqueueNDRangeKernel " + l.kernel).c_str())) return 1;
    }
    if (d.readbackEach && it + 1 < d.iterations) {
      std::string prefix = "iteration " + std::to_string(it) + " ";
      if (!printHashes(prefix.c_str())) return 1;
    }
  }
  if (!ok(clFinish(queue), "clFinish")) return 1;
  if (!printHashes("")) return 1;

  for (auto k : kernels) clReleaseKernel(k);
  for (auto b : buffers) clReleaseMemObject(b);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  std::fflush(stdout);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_driver PROGRAM.desc\n");
    return 2;
  }
  return run(parse(argv[1]));
}
