// Ground truth for the analysis on a real OpenCL device (PoCL, linked directly): for every
// corpus kernel (tests/unit/analysis/corpus/manifest.txt) and a fixed-seed batch of slices,
//  - soundness of writes: every byte the slice changes lies in its write or atomic region
//    (two runs with different sentinels in written-only buffers, so no write hides);
//  - soundness of reads: poisoning every byte outside the read (and atomic) regions changes
//    nothing the slice writes, and writes nowhere else;
//  - precision (for the manifest's `exact` buffers): the write region equals the observed
//    bytes and is flagged exact; the read region is flagged exact and the first and last word
//    of each of its ranges, and one in between, are really read (poisoning them changes the
//    output);
//  - the union of several slices' results (merged by write regions, atomic regions reduced)
//    equals the unsplit run.
// The analysis comes from analyzeProgram() (front end + transformer + analyzer). Slices run
// the partition-ready vendor source with a real global offset and the hidden arguments
// (original offset and size); a kernel the transformer left alone runs the original source
// with NDRange-dependent built-ins redefined as macros over the original NDRange.
#include "analysis/Analysis.h"
#include "analysis/module/AnalyzerModule.h"
#include "analysis/region/Instantiate.h"

#include <CL/cl.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#ifndef CLSPLIT_CORPUS_DIR
#error "CLSPLIT_CORPUS_DIR must point at tests/unit/analysis/corpus"
#endif

using namespace clsplit;
using namespace clsplit::analysis;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The analysis as the ICD gets it: from libclsplit-analyzer.so, loaded privately (RTLD_LOCAL),
// because PoCL 3.1 loads Clang 15 into this process and libclang-cpp's unversioned symbols
// would clash with Clang 16's in the global scope.
ProgramAnalysis analyze(const std::string& source, const std::string& options) {
  return module::loadingAnalyzer()(source, options, AnalysisOptions{});
}

// Parameter names of `kernel` as written in the source.
std::vector<std::string> parameterNames(const std::string& source, const std::string& kernel,
                                        const ProgramAnalysis& analysis) {
  for (const auto& k : analysis.kernels)
    if (k.name == kernel) {
      std::vector<std::string> names;
      for (const auto& a : k.args) names.push_back(a.name);
      return names;
    }
  return {};
}

// ---------------------------------------------------------------------------- manifest ----
struct BufferSpec {
  std::string name;
  uint64_t bytes = 0;
  std::string init;
  bool out = false;
};

struct ArgSpec {
  enum Kind { Buffer, Local, Scalar } kind = Scalar;
  std::string name;
  BufferSpec buffer;
  uint64_t localBytes = 0;
  std::vector<std::byte> bytes; // scalar / struct value
};

struct TestSpec {
  std::string name, file, kernel, options;
  NDRange range;
  std::vector<ArgSpec> args;
  std::map<std::string, bool> exactRead, exactWrite;
  bool unsplittable = false;
  bool overlapping = false;
  std::vector<unsigned> dims;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

template <typename T>
void append(std::vector<std::byte>& b, T v) {
  size_t at = b.size();
  b.resize(at + sizeof v);
  std::memcpy(b.data() + at, &v, sizeof v);
}

std::vector<TestSpec> readManifest() {
  std::string text = readFile(std::string(CLSPLIT_CORPUS_DIR) + "/manifest.txt");
  REQUIRE_FALSE(text.empty());
  std::vector<TestSpec> tests;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "test") {
      tests.emplace_back();
      words >> tests.back().name;
      tests.back().kernel = tests.back().name;
      tests.back().file = tests.back().name + ".cl";
      continue;
    }
    REQUIRE_FALSE(tests.empty());
    TestSpec& t = tests.back();
    if (key == "file")
      words >> t.file;
    else if (key == "kernel")
      words >> t.kernel;
    else if (key == "options")
      std::getline(words, t.options);
    else if (key == "range") {
      std::string global, local, offset;
      words >> t.range.dims >> global >> local >> offset;
      auto g = split(global, ','), l = split(local, ',');
      REQUIRE(g.size() == t.range.dims);
      REQUIRE(l.size() == t.range.dims);
      for (unsigned d = 0; d < t.range.dims; ++d) {
        t.range.global[d] = std::stoull(g[d]);
        t.range.local[d] = std::stoull(l[d]);
      }
      if (!offset.empty()) {
        auto o = split(offset, ',');
        for (unsigned d = 0; d < o.size() && d < 3; ++d) t.range.offset[d] = std::stoull(o[d]);
      }
    } else if (key == "buffer") {
      ArgSpec a;
      a.kind = ArgSpec::Buffer;
      std::string flag;
      words >> a.name >> a.buffer.bytes >> a.buffer.init >> flag;
      a.buffer.name = a.name;
      a.buffer.out = flag == "out";
      t.args.push_back(a);
    } else if (key == "local") {
      ArgSpec a;
      a.kind = ArgSpec::Local;
      words >> a.name >> a.localBytes;
      t.args.push_back(a);
    } else if (key == "scalar") {
      ArgSpec a;
      std::string type, value;
      words >> a.name >> type >> value;
      if (type == "int")
        append(a.bytes, static_cast<int32_t>(std::stol(value)));
      else if (type == "uint")
        append(a.bytes, static_cast<uint32_t>(std::stoul(value)));
      else if (type == "long")
        append(a.bytes, static_cast<int64_t>(std::stoll(value)));
      else if (type == "float")
        append(a.bytes, std::stof(value));
      else
        FAIL("unknown scalar type " << type);
      t.args.push_back(a);
    } else if (key == "struct") {
      ArgSpec a;
      std::string fields;
      words >> a.name >> fields;
      for (const auto& f : split(fields, ',')) {
        auto kv = split(f, ':');
        REQUIRE(kv.size() == 2);
        if (kv[0] == "i32")
          append(a.bytes, static_cast<int32_t>(std::stol(kv[1])));
        else if (kv[0] == "f32")
          append(a.bytes, std::stof(kv[1]));
        else
          FAIL("unknown struct field type " << kv[0]);
      }
      while (a.bytes.size() % 4) a.bytes.push_back(std::byte{0});
      t.args.push_back(a);
    } else if (key == "exact") {
      std::string kind, name;
      words >> kind;
      while (words >> name) (kind == "read" ? t.exactRead : t.exactWrite)[name] = true;
    } else if (key == "unsplittable") {
      t.unsplittable = true;
    } else if (key == "overlapping") {
      t.overlapping = true;
    } else if (key == "dims") {
      std::string list;
      words >> list;
      for (const auto& d : split(list, ',')) t.dims.push_back(static_cast<unsigned>(std::stoul(d)));
    } else {
      FAIL("unknown manifest key " << key << " in test " << t.name);
    }
  }
  return tests;
}

// ---------------------------------------------------------------------------- data ----
using Bytes = std::vector<uint8_t>;

template <typename T>
void put(Bytes& b, size_t i, T v) {
  if ((i + 1) * sizeof(T) <= b.size()) std::memcpy(b.data() + i * sizeof(T), &v, sizeof(T));
}

// The SOTL data set (1-D, CELL_SIZE 1): atoms sorted by cell, then moved by at most one cell.
struct SotlData {
  static constexpr int kCells = 40, kAtoms = 96;
  std::vector<float> sortedPos, pos, speed;
  std::vector<int32_t> sortedCells, countsPos, scanPos;
  explicit SotlData(std::mt19937& rng) {
    std::uniform_real_distribution<float> frac(0.1f, 0.9f), sp(-1.0f, 1.0f);
    std::uniform_int_distribution<int> move(-1, 1);
    // Increasing cells in [3, kCells - 4].
    std::vector<int> cellOf(kAtoms);
    for (int i = 0; i < kAtoms; ++i) cellOf[i] = 3 + (i * (kCells - 7)) / kAtoms;
    for (int i = 0; i < kAtoms; ++i) {
      sortedPos.push_back(static_cast<float>(cellOf[i]) + frac(rng));
      pos.push_back(sortedPos.back() + static_cast<float>(move(rng)));
      speed.push_back(sp(rng));
    }
    sortedCells.assign(kCells + 1, 0);
    countsPos.assign(kCells + 1, 0);
    scanPos.assign(kCells + 1, 0);
    for (int c = 0; c <= kCells; ++c)
      sortedCells[c] = static_cast<int32_t>(std::count_if(cellOf.begin(), cellOf.end(), [&](int x) { return x < c; }));
    for (float p : pos) ++countsPos[static_cast<int>(p)];
    for (int c = 1; c <= kCells; ++c) scanPos[c] = scanPos[c - 1] + countsPos[c - 1];
  }
};

Bytes initialData(const BufferSpec& b, std::mt19937& rng) {
  Bytes d(b.bytes, 0);
  auto parts = split(b.init, ':');
  const std::string& kind = parts[0];
  size_t words = b.bytes / 4;
  if (kind == "zero") return d;
  if (kind == "random_float") {
    std::uniform_real_distribution<float> u(0.5f, 2.0f);
    for (size_t i = 0; i < words; ++i) put(d, i, u(rng));
  } else if (kind == "random_double") {
    std::uniform_real_distribution<double> u(0.5, 2.0);
    for (size_t i = 0; i < b.bytes / 8; ++i) put(d, i, u(rng));
  } else if (kind == "random_int") {
    std::uniform_int_distribution<int32_t> u(std::stoi(parts.at(1)), std::stoi(parts.at(2)));
    for (size_t i = 0; i < words; ++i) put(d, i, u(rng));
  } else if (kind == "random_uint") {
    for (size_t i = 0; i < words; ++i) put(d, i, static_cast<uint32_t>(rng()));
  } else if (kind == "random_bytes") {
    for (auto& x : d) x = static_cast<uint8_t>(rng());
  } else if (kind == "increasing") {
    std::uniform_int_distribution<int32_t> step(0, std::stoi(parts.at(1)));
    int32_t v = 0;
    for (size_t i = 0; i < words; ++i) {
      put(d, i, v);
      v += step(rng);
    }
  } else if (kind == "perm") {
    std::vector<int32_t> p(words);
    for (size_t i = 0; i < words; ++i) p[i] = static_cast<int32_t>(i);
    std::shuffle(p.begin(), p.end(), rng);
    for (size_t i = 0; i < words; ++i) put(d, i, p[i]);
  } else if (kind == "sotl") {
    std::mt19937 fixed(1234); // one data set shared by all SOTL kernels
    SotlData s(fixed);
    const std::string& which = parts.at(1);
    auto fill = [&](const auto& v) {
      for (size_t i = 0; i < v.size(); ++i) put(d, i, v[i]);
    };
    if (which == "sorted_pos")
      fill(s.sortedPos);
    else if (which == "pos")
      fill(s.pos);
    else if (which == "speed")
      fill(s.speed);
    else if (which == "sorted_cells")
      fill(s.sortedCells);
    else if (which == "counts_pos")
      fill(s.countsPos);
    else if (which == "scan_pos")
      fill(s.scanPos);
    else
      FAIL("unknown sotl array " << which);
  } else if (kind == "csr") {
    // 64 rows of 0..6 entries, 48 columns.
    std::mt19937 fixed(99);
    std::uniform_int_distribution<int> nnz(0, 6), col(0, 47);
    std::vector<int32_t> rowptr{0}, cols;
    for (int r = 0; r < 64; ++r) {
      int n = nnz(fixed);
      for (int k = 0; k < n; ++k) cols.push_back(col(fixed));
      rowptr.push_back(static_cast<int32_t>(cols.size()));
    }
    const auto& v = parts.at(1) == "rowptr" ? rowptr : cols;
    for (size_t i = 0; i < v.size(); ++i) put(d, i, v[i]);
  } else {
    FAIL("unknown init " << b.init);
  }
  return d;
}

// ---------------------------------------------------------------------------- OpenCL ----
#define CL_CHECK(call)                                                                                                 \
  do {                                                                                                                 \
    cl_int err_ = (call);                                                                                              \
    REQUIRE(err_ == CL_SUCCESS);                                                                                       \
  } while (0)

struct Device {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
};

Device& pocl() {
  static Device d = [] {
    Device dev;
    cl_uint n = 0;
    clGetPlatformIDs(0, nullptr, &n);
    std::vector<cl_platform_id> platforms(n);
    if (n) clGetPlatformIDs(n, platforms.data(), nullptr);
    for (auto p : platforms) {
      char name[256] = {};
      clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
      if (std::string(name).find("Portable Computing Language") == std::string::npos) continue;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev.device, nullptr) != CL_SUCCESS) continue;
      cl_int err = CL_SUCCESS;
      dev.context = clCreateContext(nullptr, 1, &dev.device, nullptr, nullptr, &err);
      dev.queue = clCreateCommandQueue(dev.context, dev.device, 0, &err);
      break;
    }
    return dev;
  }();
  return d;
}

constexpr const char* kPrologue =
    "#define get_global_size(d) ((size_t)((d) == 0 ? __CLS_GS0 : (d) == 1 ? __CLS_GS1 : __CLS_GS2))\n"
    "#define get_global_offset(d) ((size_t)((d) == 0 ? __CLS_GO0 : (d) == 1 ? __CLS_GO1 : __CLS_GO2))\n"
    "#define get_num_groups(d) (get_global_size(d) / get_local_size(d))\n"
    "#define get_group_id(d) ((get_global_id(d) - get_global_offset(d)) / get_local_size(d))\n";

class Runner {
public:
  // partitionReady: `source` is the vendor source, whose kernel takes the hidden arguments.
  Runner(const TestSpec& t, const std::string& source, bool partitionReady) : t_(t), partitionReady_(partitionReady) {
    Device& dev = pocl();
    REQUIRE(dev.context);
    std::string full = partitionReady ? source : std::string(kPrologue) + "#line 1\n" + source;
    const char* text = full.c_str();
    cl_int err = CL_SUCCESS;
    program_ = clCreateProgramWithSource(dev.context, 1, &text, nullptr, &err);
    REQUIRE(err == CL_SUCCESS);
    std::string options = t.options + " -w";
    for (unsigned d = 0; d < 3; ++d) {
      options += " -D__CLS_GS" + std::to_string(d) + "=" + std::to_string(d < t.range.dims ? t.range.global[d] : 1);
      options += " -D__CLS_GO" + std::to_string(d) + "=" + std::to_string(d < t.range.dims ? t.range.offset[d] : 0);
    }
    if (clBuildProgram(program_, 1, &dev.device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      size_t len = 0;
      clGetProgramBuildInfo(program_, dev.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
      std::string log(len, '\0');
      clGetProgramBuildInfo(program_, dev.device, CL_PROGRAM_BUILD_LOG, len, log.data(), nullptr);
      FAIL("PoCL build failed: " << log);
    }
    kernel_ = clCreateKernel(program_, t.kernel.c_str(), &err);
    REQUIRE(err == CL_SUCCESS);
  }
  ~Runner() {
    if (kernel_) clReleaseKernel(kernel_);
    if (program_) clReleaseProgram(program_);
  }

  // Runs work-groups [begin, end) of `dim` on copies of `data` (one entry per argument,
  // empty for non-buffers); returns the buffers' contents afterwards.
  std::vector<Bytes> run(const std::vector<Bytes>& data, unsigned dim, uint64_t begin, uint64_t end) {
    Device& dev = pocl();
    std::vector<cl_mem> mems(t_.args.size(), nullptr);
    for (size_t i = 0; i < t_.args.size(); ++i) {
      const ArgSpec& a = t_.args[i];
      cl_uint idx = static_cast<cl_uint>(i);
      if (a.kind == ArgSpec::Buffer) {
        cl_int err = CL_SUCCESS;
        mems[i] = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data[i].size(),
                                 const_cast<uint8_t*>(data[i].data()), &err);
        REQUIRE(err == CL_SUCCESS);
        CL_CHECK(clSetKernelArg(kernel_, idx, sizeof(cl_mem), &mems[i]));
      } else if (a.kind == ArgSpec::Local) {
        CL_CHECK(clSetKernelArg(kernel_, idx, a.localBytes, nullptr));
      } else {
        CL_CHECK(clSetKernelArg(kernel_, idx, a.bytes.size(), a.bytes.data()));
      }
    }
    if (partitionReady_) {
      cl_ulong4 goffset{}, gsize{};
      for (unsigned d = 0; d < 3; ++d) {
        goffset.s[d] = d < t_.range.dims ? t_.range.offset[d] : 0;
        gsize.s[d] = d < t_.range.dims ? t_.range.global[d] : 1;
      }
      cl_uint first = static_cast<cl_uint>(t_.args.size());
      CL_CHECK(clSetKernelArg(kernel_, first, sizeof goffset, &goffset));
      CL_CHECK(clSetKernelArg(kernel_, first + 1, sizeof gsize, &gsize));
      cl_uint shift = first + 2; // one window shift per buffer: whole buffers here
      for (const ArgSpec& a : t_.args)
        if (a.kind == ArgSpec::Buffer) {
          const cl_long none = 0;
          CL_CHECK(clSetKernelArg(kernel_, shift++, sizeof none, &none));
        }
    }
    size_t offset[3], global[3], local[3];
    for (unsigned d = 0; d < t_.range.dims; ++d) {
      offset[d] = t_.range.offset[d];
      global[d] = t_.range.global[d];
      local[d] = t_.range.local[d];
    }
    offset[dim] += begin * t_.range.local[dim];
    global[dim] = (end - begin) * t_.range.local[dim];
    CL_CHECK(clEnqueueNDRangeKernel(dev.queue, kernel_, t_.range.dims, offset, global, local, 0, nullptr, nullptr));
    std::vector<Bytes> out(t_.args.size());
    for (size_t i = 0; i < t_.args.size(); ++i) {
      if (!mems[i]) continue;
      out[i].resize(data[i].size());
      CL_CHECK(clEnqueueReadBuffer(dev.queue, mems[i], CL_TRUE, 0, out[i].size(), out[i].data(), 0, nullptr, nullptr));
      clReleaseMemObject(mems[i]);
    }
    CL_CHECK(clFinish(dev.queue));
    return out;
  }

private:
  const TestSpec& t_;
  bool partitionReady_ = false;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
};

// ---------------------------------------------------------------------------- checks ----
class InitialValues : public LaunchValues {
public:
  InitialValues(const TestSpec& t, const std::vector<Bytes>& data) : t_(t), data_(data) {}
  std::span<const std::byte> scalarBytes(unsigned arg) const override {
    if (arg >= t_.args.size() || t_.args[arg].kind != ArgSpec::Scalar) return {};
    return t_.args[arg].bytes;
  }
  uint64_t bufferSize(unsigned arg) const override {
    return arg < t_.args.size() && t_.args[arg].kind == ArgSpec::Buffer ? data_[arg].size() : 0;
  }
  std::optional<ScalarValue> readElement(unsigned arg, uint64_t offset, ScalarType type) const override {
    unsigned size = scalarSize(type);
    if (arg >= data_.size() || size == 0 || offset + size > data_[arg].size()) return std::nullopt;
    const uint8_t* p = data_[arg].data() + offset;
    ScalarValue v;
    v.isFloat = isFloat(type);
    if (type == ScalarType::F32) {
      float f;
      std::memcpy(&f, p, 4);
      v.f = f;
    } else if (type == ScalarType::F64) {
      std::memcpy(&v.f, p, 8);
    } else {
      uint64_t u = 0;
      std::memcpy(&u, p, size);
      if (isSigned(type) && size < 8 && (u >> (size * 8 - 1))) u |= ~uint64_t{0} << (size * 8);
      v.i = static_cast<int64_t>(u);
    }
    return v;
  }

private:
  const TestSpec& t_;
  const std::vector<Bytes>& data_;
};

RangeSet changedBytes(const Bytes& before, const Bytes& after) {
  std::vector<ByteRange> r;
  for (size_t i = 0; i < before.size(); ++i)
    if (before[i] != after[i]) r.push_back({i, i + 1});
  return RangeSet::fromRanges(std::move(r));
}

bool differsOn(const Bytes& a, const Bytes& b, const RangeSet& where) {
  for (const auto& r : where)
    for (uint64_t i = r.lo; i < r.hi && i < a.size(); ++i)
      if (a[i] != b[i]) return true;
  return false;
}

std::string describeRange(const RangeSet& s) {
  std::string text = s.str();
  return text.size() > 300 ? text.substr(0, 300) + "..." : text;
}

// Reduction of atomic regions, per element of the region's type.
void mergeAtomic(Bytes& merged, const Bytes& initial, const Bytes& result, const BufferRegions& r,
                 std::vector<bool>& touched) {
  unsigned size = scalarSize(r.atomicType);
  REQUIRE(size >= 4);
  for (const auto& range : r.atomic) {
    for (uint64_t at = range.lo - range.lo % size; at + size <= range.hi || at < range.hi; at += size) {
      if (at + size > merged.size()) break;
      int64_t m = 0, i = 0, x = 0;
      std::memcpy(&m, merged.data() + at, size);
      std::memcpy(&i, initial.data() + at, size);
      std::memcpy(&x, result.data() + at, size);
      bool first = !touched[at];
      touched[at] = true;
      int64_t out = m;
      bool sgn = isSigned(r.atomicType);
      auto sx = [&](int64_t v) { return size == 4 ? (sgn ? int64_t(int32_t(v)) : int64_t(uint32_t(v))) : v; };
      switch (r.atomicOp) {
      case AtomicOp::Add:
      case AtomicOp::Sub:
      case AtomicOp::Inc:
      case AtomicOp::Dec:
        out = m + (x - i);
        break;
      case AtomicOp::Min:
        out = first ? x : std::min(sx(m), sx(x));
        break;
      case AtomicOp::Max:
        out = first ? x : std::max(sx(m), sx(x));
        break;
      case AtomicOp::And:
        out = first ? x : (m & x);
        break;
      case AtomicOp::Or:
        out = first ? x : (m | x);
        break;
      case AtomicOp::Xor:
        out = m ^ (x ^ i);
        break;
      default:
        FAIL("unexpected atomic op");
      }
      std::memcpy(merged.data() + at, &out, size);
    }
  }
}

struct Counters {
  size_t slices = 0, exactWrites = 0, exactReads = 0, unions = 0;
};

void runTest(const TestSpec& t, Counters& counters) {
  INFO("corpus test " << t.name);
  std::string source = readFile(std::string(CLSPLIT_CORPUS_DIR) + "/" + t.file);
  REQUIRE_FALSE(source.empty());
  const ProgramAnalysis analysis = analyze(source, t.options);
  for (const auto& e : analysis.errors) FAIL_CHECK("analysis error: " << e.message);
  const KernelAnalysis* kernel = nullptr;
  for (const auto& k : analysis.kernels)
    if (k.name == t.kernel) kernel = &k;
  REQUIRE(kernel);
  INFO("regions:\n" << toString(kernel->regions, [&](unsigned i) { return kernel->args[i].name; }));
  CHECK(kernel->unsplittableReason.has_value() == t.unsplittable);

  // Arguments in parameter order.
  auto names = parameterNames(source, t.kernel, analysis);
  REQUIRE(names.size() == t.args.size());
  TestSpec spec = t;
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = std::find_if(t.args.begin(), t.args.end(), [&](const ArgSpec& a) { return a.name == names[i]; });
    REQUIRE(it != t.args.end());
    spec.args[i] = *it;
  }
  std::mt19937 rng(static_cast<uint32_t>(std::hash<std::string>{}(t.name)));
  std::vector<Bytes> initial(spec.args.size());
  for (size_t i = 0; i < spec.args.size(); ++i)
    if (spec.args[i].kind == ArgSpec::Buffer) initial[i] = initialData(spec.args[i].buffer, rng);
  // Written-only buffers get sentinels: two runs with different ones expose every write.
  auto withSentinel = [&](uint8_t sentinel) {
    std::vector<Bytes> d = initial;
    for (size_t i = 0; i < spec.args.size(); ++i)
      if (spec.args[i].kind == ArgSpec::Buffer && spec.args[i].buffer.out)
        std::fill(d[i].begin(), d[i].end(), sentinel);
    return d;
  };
  const std::vector<Bytes> sentinelA = withSentinel(0xA5), sentinelB = withSentinel(0x5A);

  const bool partitionReady = kernel->partitionReady;
  // Every splittable corpus kernel is rewritable (the runtime never splits the others).
  if (!t.unsplittable) CHECK(partitionReady);
  INFO((partitionReady ? "partition-ready vendor source" : "original source with NDRange macros"));
  Runner runner(spec, partitionReady ? analysis.vendorSource : source, partitionReady);
  InitialValues values(spec, initial);
  const std::vector<Bytes> whole = runner.run(initial, 0, 0, spec.range.groups(0));

  std::vector<unsigned> dims = t.dims;
  if (dims.empty())
    for (unsigned d = 0; d < spec.range.dims; ++d) dims.push_back(d);
  for (unsigned dim : dims) {
    const uint64_t groups = spec.range.groups(dim);
    std::vector<std::pair<uint64_t, uint64_t>> slices = {
        {0, groups}, {0, (groups + 1) / 2}, {(groups + 1) / 2, groups}, {0, 1}, {groups - 1, groups}};
    std::uniform_int_distribution<uint64_t> pick(0, groups - 1);
    for (int k = 0; k < 4; ++k) {
      uint64_t a = pick(rng), b = pick(rng);
      slices.push_back({std::min(a, b), std::max(a, b) + 1});
    }
    for (auto [begin, end] : slices) {
      if (begin >= end) continue;
      INFO("split dimension " << dim << ", work-groups [" << begin << ", " << end << ")");
      ++counters.slices;
      Slice slice{dim, begin, end};
      auto regions = instantiate(*kernel, spec.range, slice, values);
      REQUIRE(regions.size() >= spec.args.size());
      auto runA = runner.run(sentinelA, dim, begin, end);
      auto runB = runner.run(sentinelB, dim, begin, end);

      // Poison every byte outside read ∪ atomic (what a device lacking the rest would hold).
      std::vector<Bytes> poisoned = sentinelA;
      std::mt19937 prng(static_cast<uint32_t>(begin * 131 + end * 7 + dim));
      for (size_t i = 0; i < spec.args.size(); ++i) {
        if (spec.args[i].kind != ArgSpec::Buffer) continue;
        RangeSet keep = regions[i].read.united(regions[i].atomic);
        RangeSet all = RangeSet::of(0, poisoned[i].size());
        for (const auto& r : all.minus(keep))
          for (uint64_t x = r.lo; x < r.hi; ++x) poisoned[i][x] = static_cast<uint8_t>(prng());
      }
      auto runP = runner.run(poisoned, dim, begin, end);

      for (size_t i = 0; i < spec.args.size(); ++i) {
        if (spec.args[i].kind != ArgSpec::Buffer) continue;
        const std::string& name = spec.args[i].name;
        const BufferRegions& r = regions[i];
        INFO("buffer " << name << ": read " << describeRange(r.read) << (r.readExact ? " (exact)" : "") << ", write "
                       << describeRange(r.write) << (r.writeExact ? " (exact)" : "") << ", atomic "
                       << describeRange(r.atomic) << ", note '" << r.note << "'");
        RangeSet written = changedBytes(sentinelA[i], runA[i]).united(changedBytes(sentinelB[i], runB[i]));
        RangeSet allowed = r.write.united(r.atomic);
        INFO("observed writes " << describeRange(written));
        CHECK(allowed.contains(written)); // soundness of writes
        // Soundness of reads: same results, and no write outside the regions.
        RangeSet poisonWritten = changedBytes(poisoned[i], runP[i]);
        CHECK(allowed.contains(poisonWritten));
        CHECK_FALSE(differsOn(runA[i], runP[i], written.minus(r.atomic)));
        if (!r.atomic.empty()) CHECK_FALSE(differsOn(runA[i], runP[i], r.atomic));

        if (t.exactWrite.count(name)) {
          ++counters.exactWrites;
          CHECK(r.writeExact);
          if (spec.args[i].buffer.out) {
            CHECK(r.write == written);
          } else {
            // Read-and-written buffers hold real data: a written byte may keep its value.
            // Every written word must still show a change.
            std::vector<ByteRange> words;
            for (const auto& range : written) words.push_back({range.lo & ~uint64_t{3}, (range.hi + 3) & ~uint64_t{3}});
            CHECK(r.write == RangeSet::fromRanges(std::move(words)));
          }
        }
        if (t.exactRead.count(name)) {
          ++counters.exactReads;
          CHECK(r.readExact);
          // Each range's first and last word are really read: poisoning one changes a result.
          size_t checked = 0;
          for (const auto& range : r.read) {
            if (++checked > 6) break;
            uint64_t middle = (range.lo + (prng() % std::max<uint64_t>(range.size(), 1))) & ~uint64_t{3};
            for (uint64_t word : {range.lo & ~uint64_t{3}, (range.hi - 1) & ~uint64_t{3}, middle}) {
              std::vector<Bytes> probe = sentinelA;
              for (uint64_t x = word; x < word + 4 && x < probe[i].size(); ++x) probe[i][x] ^= 0x40;
              auto runQ = runner.run(probe, dim, begin, end);
              bool changed = false;
              for (size_t j = 0; j < spec.args.size() && !changed; ++j) {
                if (spec.args[j].kind != ArgSpec::Buffer) continue;
                RangeSet out = changedBytes(sentinelA[j], runA[j]).united(changedBytes(sentinelB[j], runB[j]));
                changed = differsOn(runA[j], runQ[j], out);
              }
              INFO("probing the word at byte " << word << " of " << name);
              CHECK(changed);
            }
          }
        }
      }
    }

    // Union: a 3-way split merged by write regions (atomic regions reduced) == the unsplit run.
    if (t.unsplittable || t.overlapping || groups < 3) continue;
    ++counters.unions;
    uint64_t c1 = 1 + pick(rng) % (groups - 2), c2 = c1 + 1 + pick(rng) % (groups - c1 - 1);
    std::vector<std::pair<uint64_t, uint64_t>> parts = {{0, c1}, {c1, c2}, {c2, groups}};
    INFO("union of slices [0," << c1 << ") [" << c1 << "," << c2 << ") [" << c2 << "," << groups << ") of dimension "
                               << dim);
    std::vector<Bytes> merged = initial;
    std::vector<std::vector<bool>> touched(spec.args.size());
    std::vector<RangeSet> claimed(spec.args.size());
    for (size_t i = 0; i < spec.args.size(); ++i) touched[i].assign(initial[i].size(), false);
    for (auto [begin, end] : parts) {
      auto regions = instantiate(*kernel, spec.range, Slice{dim, begin, end}, values);
      auto result = runner.run(initial, dim, begin, end);
      for (size_t i = 0; i < spec.args.size(); ++i) {
        if (spec.args[i].kind != ArgSpec::Buffer) continue;
        const BufferRegions& r = regions[i];
        CHECK_FALSE(claimed[i].intersects(r.write)); // slices write disjoint regions
        claimed[i].add(r.write);
        for (const auto& range : r.write)
          std::copy(result[i].begin() + range.lo, result[i].begin() + range.hi, merged[i].begin() + range.lo);
        if (!r.atomic.empty()) mergeAtomic(merged[i], initial[i], result[i], r, touched[i]);
      }
    }
    for (size_t i = 0; i < spec.args.size(); ++i) {
      if (spec.args[i].kind != ArgSpec::Buffer) continue;
      INFO("buffer " << spec.args[i].name);
      CHECK_FALSE(differsOn(merged[i], whole[i], RangeSet::of(0, merged[i].size())));
    }
  }
}

} // namespace

TEST_CASE("corpus kernels: regions are sound (and exact where affine) on PoCL") {
  auto tests = readManifest();
  CHECK(tests.size() >= 30);
  REQUIRE(pocl().context);
  const char* only = std::getenv("CLSPLIT_CORPUS_ONLY");
  Counters counters;
  for (const auto& t : tests) {
    if (only && t.name != only) continue;
    DYNAMIC_SECTION(t.name) { runTest(t, counters); }
  }
}
