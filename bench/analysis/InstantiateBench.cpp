// Micro-benchmark of the launch-path cost of the regions: instantiate() for one slice and a
// whole launch (chooseSplitDimension + one instantiate per device), on corpus kernels analysed
// for real. Not a test: it prints timings (median of repeated batches).
//   analysis_instantiate_bench [CORPUS_DIR [KERNEL]]
#include "AnalyzeSource.h"

#include "analysis/region/Instantiate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>

using namespace clsplit::analysis;

namespace {

class BenchValues : public LaunchValues {
public:
  std::map<unsigned, std::vector<std::byte>> scalars;
  std::map<unsigned, uint64_t> sizes;
  std::vector<int32_t> increasing; // contents of every buffer for indirections
  std::span<const std::byte> scalarBytes(unsigned arg) const override {
    auto it = scalars.find(arg);
    return it == scalars.end() ? std::span<const std::byte>() : std::span<const std::byte>(it->second);
  }
  uint64_t bufferSize(unsigned arg) const override {
    auto it = sizes.find(arg);
    return it == sizes.end() ? 0 : it->second;
  }
  std::optional<ScalarValue> readElement(unsigned, uint64_t offset, ScalarType type) const override {
    ScalarValue v;
    v.isFloat = isFloat(type);
    size_t i = offset / 4;
    v.i = i < increasing.size() ? increasing[i] : 0;
    v.f = static_cast<double>(v.i);
    return v;
  }
};

struct Case {
  const char* file;
  const char* kernel;
  const char* options;
  NDRange range;
  std::vector<std::pair<const char*, int32_t>> ints;
};

NDRange nd(unsigned dims, std::array<uint64_t, 3> global, std::array<uint64_t, 3> local) {
  NDRange r;
  r.dims = dims;
  r.global = global;
  r.local = local;
  return r;
}

template <typename F>
double medianMicros(F&& f, int inner) {
  std::vector<double> samples;
  for (int rep = 0; rep < 15; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < inner; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / inner);
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : CLSPLIT_CORPUS_DIR;
  const uint64_t N = 4096;
  std::vector<Case> cases = {
      {"copy.cl", "copy", "", nd(1, {1 << 20, 1, 1}, {256, 1, 1}), {}},
      {"stencil1d.cl", "stencil1d", "", nd(1, {1 << 20, 1, 1}, {256, 1, 1}), {{"n", 1 << 20}}},
      {"stencil2d.cl", "stencil2d", "", nd(2, {N, N, 1}, {16, 16, 1}), {{"m", int32_t(N)}, {"n", int32_t(N)}}},
      {"jacobi2d.cl", "jacobi2d", "", nd(2, {N, N, 1}, {16, 16, 1}), {}},
      {"stencil3d.cl", "stencil3d", "", nd(3, {256, 256, 256}, {8, 8, 4}), {{"nx", 256}, {"ny", 256}, {"nz", 256}}},
      {"gemm.cl", "gemm", "", nd(2, {2048, 2048, 1}, {16, 16, 1}), {{"N", 2048}}},
      {"gemm_tiled.cl", "gemm_tiled", "-DTILE=16", nd(2, {2048, 2048, 1}, {16, 16, 1}), {{"N", 2048}}},
      {"transpose.cl", "transpose", "", nd(2, {N, N, 1}, {16, 16, 1}), {{"width", int32_t(N)}, {"height", int32_t(N)}}},
      {"binning.cl", "binning", "", nd(1, {1 << 20, 1, 1}, {256, 1, 1}), {{"n", 1 << 20}}},
      {"sotl_force.cl", "sotl_force", "", nd(1, {1 << 20, 1, 1}, {256, 1, 1}), {}},
  };
  std::printf("%-14s %5s %10s %10s %12s %12s %8s %4s\n", "kernel", "stmts", "slice(us)", "choose(us)", "launch2(us)",
              "launch4(us)", "ranges", "dim");
  const char* only = argc > 2 ? argv[2] : nullptr;
  for (const auto& c : cases) {
    if (only && std::strcmp(only, c.kernel) != 0) continue;
    std::string source = testing::readFile(dir + "/" + c.file);
    if (source.empty()) {
      std::fprintf(stderr, "cannot read %s/%s\n", dir.c_str(), c.file);
      return 1;
    }
    ModuleAnalysis m = testing::analyzeSource(source, c.options);
    const KernelAnalysis* k = nullptr;
    for (const auto& x : m.kernels)
      if (x.name == c.kernel) k = &x;
    if (!k) {
      std::fprintf(stderr, "kernel %s not found\n", c.kernel);
      return 1;
    }
    BenchValues values;
    for (unsigned i = 0; i < k->args.size(); ++i) {
      if (k->args[i].kind == ArgKind::GlobalBuffer || k->args[i].kind == ArgKind::ConstantBuffer)
        values.sizes[i] = uint64_t{1} << 34;
      for (const auto& [name, v] : c.ints)
        if (k->args[i].name == name) {
          std::vector<std::byte> b(4);
          std::memcpy(b.data(), &v, 4);
          values.scalars[i] = b;
        }
    }
    for (int32_t i = 0; i < (1 << 21); ++i) values.increasing.push_back(i * 3);
    const NDRange& r = c.range;
    uint32_t dim = chooseSplitDimension(*k, r, values);
    uint64_t groups = r.groups(dim);
    Slice half{dim, 0, groups / 2};
    size_t ranges = 0;
    for (const auto& b : instantiate(*k, r, half, values))
      ranges += b.read.count() + b.write.count() + b.atomic.count();
    double slice = medianMicros([&] { (void)instantiate(*k, r, half, values); }, 200);
    auto launch = [&](unsigned devices) {
      uint32_t d = chooseSplitDimension(*k, r, values);
      uint64_t g = r.groups(d);
      for (unsigned i = 0; i < devices; ++i)
        (void)instantiate(*k, r, Slice{d, g * i / devices, g * (i + 1) / devices}, values);
    };
    double choose = medianMicros([&] { (void)chooseSplitDimension(*k, r, values); }, 50);
    double launch2 = medianMicros([&] { launch(2); }, 50);
    double launch4 = medianMicros([&] { launch(4); }, 50);
    std::printf("%-14s %5zu %10.2f %10.2f %12.2f %12.2f %8zu %4u\n", c.kernel, k->regions.statements.size(), slice,
                choose, launch2, launch4, ranges, dim);
  }
  std::printf("slice: one instantiate() of half the work-groups along the chosen dimension;\n"
              "launchN: chooseSplitDimension() + N instantiate() calls (one per device).\n");
  return 0;
}
