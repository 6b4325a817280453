// The cache file format: "CLSPLITA", format version, regions format version, key, payload,
// then an FNV-1a 64 checksum of everything before it. Integers are little-endian.
#include "analysis/cache/AnalysisCache.h"

#include "support/Log.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace clsplit::analysis::cache {

namespace {

constexpr std::string_view kMagic = "CLSPLITA";

uint64_t fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

class Writer {
public:
  void u8(uint8_t v) { out_ += static_cast<char>(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  void str(std::string_view s) {
    u64(s.size());
    out_ += s;
  }
  void diagnostics(const std::vector<Diagnostic>& list) {
    u32(static_cast<uint32_t>(list.size()));
    for (const auto& d : list) {
      str(d.where.file);
      u32(d.where.line);
      u32(d.where.column);
      str(d.message);
    }
  }
  std::string& bytes() { return out_; }

private:
  std::string out_;
};

// Every read is bounds-checked; the first failure sticks and all later reads return zero.
class Reader {
public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool atEnd() const { return pos_ == in_.size(); }
  uint8_t u8() { return static_cast<uint8_t>(take(1)[0]); }
  uint32_t u32() {
    std::string_view b = take(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(static_cast<unsigned char>(b[i])) << (8 * i);
    return v;
  }
  uint64_t u64() {
    std::string_view b = take(8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(b[i])) << (8 * i);
    return v;
  }
  std::string str() {
    uint64_t n = u64();
    if (n > in_.size() - pos_) {
      ok_ = false;
      return {};
    }
    return std::string(take(n));
  }
  // A count of items each at least `minBytes` long: rejects absurd counts before allocating.
  uint32_t count(size_t minBytes) {
    uint32_t n = u32();
    if (static_cast<uint64_t>(n) * minBytes > in_.size() - pos_) ok_ = false;
    return ok_ ? n : 0;
  }
  std::vector<Diagnostic> diagnostics() {
    std::vector<Diagnostic> list(count(24));
    for (auto& d : list) {
      d.where.file = str();
      d.where.line = u32();
      d.where.column = u32();
      d.message = str();
    }
    return list;
  }

private:
  std::string_view take(size_t n) {
    static const char zeros[8] = {};
    if (!ok_ || n > in_.size() - pos_) {
      ok_ = false;
      return std::string_view(zeros, n <= 8 ? n : 0);
    }
    std::string_view b = in_.substr(pos_, n);
    pos_ += n;
    return b;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

} // namespace

std::string defaultCacheDirectory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (std::filesystem::path(xdg) / "clsplit").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (std::filesystem::path(home) / ".cache" / "clsplit").string();
  return {};
}

std::string cacheFilePath(const std::string& directory, std::string_view key) {
  return (std::filesystem::path(directory) / (std::string(key) + ".analysis")).string();
}

std::string encode(const ProgramAnalysis& analysis, std::string_view key) {
  Writer w;
  w.bytes() += kMagic;
  w.u32(kCacheFormatVersion);
  w.u32(kRegionsFormatVersion);
  w.str(key);
  w.str(analysis.vendorSource);
  w.str(analysis.buildLogNotes);
  w.diagnostics(analysis.errors);
  w.u8(analysis.externalCallsKnown ? 1 : 0);
  w.u32(static_cast<uint32_t>(analysis.includedFiles.size()));
  for (const auto& [path, digest] : analysis.includedFiles) {
    w.str(path);
    w.str(digest);
  }
  w.u32(static_cast<uint32_t>(analysis.externalCalls.size()));
  for (const ExternalCall& call : analysis.externalCalls) {
    w.str(call.name);
    w.u8(call.hiddenArguments ? 1 : 0);
  }
  w.u32(static_cast<uint32_t>(analysis.kernels.size()));
  for (const KernelAnalysis& k : analysis.kernels) {
    w.str(k.name);
    w.u32(static_cast<uint32_t>(k.args.size()));
    for (const KernelArg& a : k.args) {
      w.str(a.name);
      w.u8(static_cast<uint8_t>(a.kind));
      w.u8(static_cast<uint8_t>(a.scalarType));
      w.u8(a.readOnlyImage ? 1 : 0);
    }
    w.u8(k.partitionReady ? 1 : 0);
    w.u8(k.unsplittableReason ? 1 : 0);
    w.str(k.unsplittableReason.value_or(""));
    w.diagnostics(k.imprecisions);
    w.str(serialize(k.regions));
  }
  w.u64(fnv1a(w.bytes()));
  return std::move(w.bytes());
}

std::optional<ProgramAnalysis> decode(std::string_view bytes, std::string_view key, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<ProgramAnalysis> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  if (bytes.size() < kMagic.size() + 16 || bytes.substr(0, kMagic.size()) != kMagic)
    return fail("not a clsplit cache file");
  std::string_view body = bytes.substr(0, bytes.size() - 8);
  Reader checksum(bytes.substr(bytes.size() - 8));
  if (checksum.u64() != fnv1a(body)) return fail("checksum mismatch (corrupt file)");
  Reader r(body.substr(kMagic.size()));
  if (r.u32() != kCacheFormatVersion) return fail("cache format version differs");
  if (r.u32() != kRegionsFormatVersion) return fail("regions format version differs");
  if (r.str() != key) return fail("stored under another key");
  ProgramAnalysis a;
  a.vendorSource = r.str();
  a.buildLogNotes = r.str();
  a.errors = r.diagnostics();
  a.externalCallsKnown = r.u8() != 0;
  a.includedFiles.resize(r.count(16));
  for (auto& [path, digest] : a.includedFiles) {
    path = r.str();
    digest = r.str();
  }
  a.externalCalls.resize(r.count(9));
  for (ExternalCall& call : a.externalCalls) {
    call.name = r.str();
    call.hiddenArguments = r.u8() != 0;
  }
  a.kernels.resize(r.count(16));
  for (KernelAnalysis& k : a.kernels) {
    k.name = r.str();
    k.args.resize(r.count(10));
    for (KernelArg& arg : k.args) {
      arg.name = r.str();
      uint8_t kind = r.u8(), type = r.u8();
      if (kind > static_cast<uint8_t>(ArgKind::Sampler) || type > static_cast<uint8_t>(ScalarType::F64))
        return fail("invalid argument description");
      arg.kind = static_cast<ArgKind>(kind);
      arg.scalarType = static_cast<ScalarType>(type);
      arg.readOnlyImage = r.u8() != 0;
    }
    k.partitionReady = r.u8() != 0;
    bool hasReason = r.u8() != 0;
    std::string reason = r.str();
    if (hasReason) k.unsplittableReason = std::move(reason);
    k.imprecisions = r.diagnostics();
    std::string regionBytes = r.str();
    if (!r.ok()) break;
    std::string regionError;
    auto regions = deserialize(regionBytes, &regionError);
    if (!regions) return fail("regions of kernel '" + k.name + "': " + regionError);
    k.regions = std::move(*regions);
  }
  if (!r.ok() || !r.atEnd()) return fail("truncated or malformed payload");
  return a;
}

std::optional<ProgramAnalysis> load(const std::string& directory, std::string_view key, std::string* error) {
  std::ifstream in(cacheFilePath(directory, key), std::ios::binary);
  if (!in) {
    if (error) *error = "no cache file";
    return std::nullopt;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return decode(bytes, key, error);
}

bool store(const std::string& directory, std::string_view key, const ProgramAnalysis& analysis, std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) {
    if (error) *error = "cannot create " + directory + ": " + ec.message();
    return false;
  }
  std::string bytes = encode(analysis, key);
  std::random_device random;
  fs::path temp = fs::path(directory) /
                  ("." + std::string(key) + "." + std::to_string(getpid()) + "." + std::to_string(random()) + ".tmp");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      fs::remove(temp, ec);
      if (error) *error = "cannot write " + temp.string();
      return false;
    }
  }
  fs::rename(temp, cacheFilePath(directory, key), ec);
  if (ec) {
    fs::remove(temp, ec);
    if (error) *error = "cannot rename into " + cacheFilePath(directory, key);
    return false;
  }
  return true;
}

} // namespace clsplit::analysis::cache
