// `clsplit regions`: argument parsing, launch values from the command line, JSON output.
#include "analysis/cli/RegionsCommand.h"

#include "analysis/cli/KernelReport.h"

#include "analysis/region/Instantiate.h"
#include "support/Json.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

namespace clsplit::analysis {

namespace {

// Buffers of unknown size are instantiated as if they had this many bytes.
constexpr uint64_t kUnbounded = uint64_t{1} << 62;

struct Usage {
  std::string message;
};

std::optional<uint64_t> parseU64(std::string_view s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::vector<uint64_t> parseList(const std::string& text, const char* what) {
  std::vector<uint64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view part(text.data() + start, (comma == std::string::npos ? text.size() : comma) - start);
    auto v = parseU64(part);
    if (!v) throw Usage{std::string("bad ") + what + " '" + text + "'"};
    out.push_back(*v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.empty() || out.size() > 3) throw Usage{std::string(what) + " needs 1 to 3 values"};
  return out;
}

struct Options {
  std::string file;
  bool symbolic = false;
  std::string kernel;
  std::string buildOptions;
  std::vector<uint64_t> gws, lws, offset;
  std::optional<unsigned> splitDim;
  std::optional<std::pair<uint64_t, uint64_t>> groups;
  std::vector<std::pair<std::string, std::string>> argValues;
};

Options parse(const std::vector<std::string>& argsIn) {
  std::vector<std::string> args = argsIn;
  if (!args.empty() && args.front() == "regions") args.erase(args.begin());
  Options o;
  auto need = [&](size_t& i) -> const std::string& {
    if (i + 1 >= args.size()) throw Usage{args[i] + " needs a value"};
    return args[++i];
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--symbolic")
      o.symbolic = true;
    else if (a == "--kernel")
      o.kernel = need(i);
    else if (a == "--options")
      o.buildOptions = need(i);
    else if (a == "--gws")
      o.gws = parseList(need(i), "--gws");
    else if (a == "--lws")
      o.lws = parseList(need(i), "--lws");
    else if (a == "--offset")
      o.offset = parseList(need(i), "--offset");
    else if (a == "--split-dim") {
      auto v = parseU64(need(i));
      if (!v || *v > 2) throw Usage{"--split-dim must be 0, 1 or 2"};
      o.splitDim = static_cast<unsigned>(*v);
    } else if (a == "--groups") {
      const std::string& g = need(i);
      size_t colon = g.find(':');
      auto b = colon == std::string::npos ? std::nullopt : parseU64(std::string_view(g).substr(0, colon));
      auto e = colon == std::string::npos ? std::nullopt : parseU64(std::string_view(g).substr(colon + 1));
      if (!b || !e || *b >= *e) throw Usage{"--groups needs A:B with A < B"};
      o.groups = {{*b, *e}};
    } else if (a == "--arg") {
      const std::string& v = need(i);
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) throw Usage{"--arg needs NAME=VALUE"};
      o.argValues.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (!a.empty() && a[0] == '-') {
      throw Usage{"unknown option " + a};
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      throw Usage{"more than one input file"};
    }
  }
  if (o.file.empty()) throw Usage{"no input file"};
  if (!o.symbolic) {
    if (o.kernel.empty()) throw Usage{"--kernel is required (or --symbolic)"};
    if (o.gws.empty()) throw Usage{"--gws is required (or --symbolic)"};
    if (!o.lws.empty() && o.lws.size() != o.gws.size()) throw Usage{"--lws must have as many values as --gws"};
    if (!o.offset.empty() && o.offset.size() != o.gws.size()) throw Usage{"--offset must have as many values as --gws"};
  }
  return o;
}

class CommandLineValues : public LaunchValues {
public:
  std::map<unsigned, std::vector<std::byte>> scalars;
  std::map<unsigned, uint64_t> sizes;
  std::map<unsigned, std::vector<std::byte>> contents;
  std::vector<bool> buffer;

  std::span<const std::byte> scalarBytes(unsigned arg) const override {
    auto it = scalars.find(arg);
    return it == scalars.end() ? std::span<const std::byte>() : std::span<const std::byte>(it->second);
  }
  uint64_t bufferSize(unsigned arg) const override {
    if (arg >= buffer.size() || !buffer[arg]) return 0;
    auto it = sizes.find(arg);
    return it == sizes.end() ? kUnbounded : it->second;
  }
  mutable std::vector<unsigned> missing; // buffers whose contents an indirection needed

  std::optional<ScalarValue> readElement(unsigned arg, uint64_t offset, ScalarType type) const override {
    auto it = contents.find(arg);
    unsigned size = scalarSize(type);
    if (it == contents.end()) {
      if (std::find(missing.begin(), missing.end(), arg) == missing.end()) missing.push_back(arg);
      return std::nullopt;
    }
    if (size == 0 || offset + size > it->second.size()) return std::nullopt;
    const std::byte* p = it->second.data() + offset;
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
};

template <typename T>
std::vector<std::byte> bytesOf(T v) {
  std::vector<std::byte> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

std::vector<std::byte> encodeScalar(const std::string& text, ScalarType type, const std::string& name) {
  if (auto bytes = scalarFromText(text, type)) return *bytes;
  throw Usage{"bad value '" + text + "' for argument " + name};
}

void writeRanges(std::ostream& out, const RangeSet& set, uint64_t size) {
  out << "[";
  bool first = true;
  for (const auto& r : set) {
    out << (first ? "" : ", ") << "[" << r.lo << ", ";
    if (size == kUnbounded && r.hi == kUnbounded)
      out << "\"end\"";
    else
      out << r.hi;
    out << "]";
    first = false;
  }
  out << "]";
}

int run(const Options& o, std::ostream& out, std::ostream& err, const ProgramAnalyzer& analyze) {
  std::ifstream in(o.file, std::ios::binary);
  if (!in) {
    err << "clsplit regions: cannot read " << o.file << "\n";
    return 1;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  std::string source = buf.str();
  ProgramAnalysis program = analyze(source, o.buildOptions);
  for (const auto& e : program.errors)
    err << o.file << ":" << e.where.line << ":" << e.where.column << ": error: " << e.message << "\n";
  if (!program.errors.empty()) return 1;

  if (o.symbolic) {
    bool any = false;
    for (const auto& k : program.kernels) {
      if (!o.kernel.empty() && k.name != o.kernel) continue;
      if (any) out << "\n";
      describeKernel(out, k);
      any = true;
    }
    if (!any) {
      err << "clsplit regions: " << (o.kernel.empty() ? "no kernel in " + o.file : "no kernel named " + o.kernel)
          << "\n";
      return 1;
    }
    return 0;
  }

  const KernelAnalysis* kernel = program.find(o.kernel);
  if (!kernel) {
    err << "clsplit regions: no kernel named " << o.kernel << " in " << o.file << "\n";
    return 1;
  }
  NDRange range;
  range.dims = static_cast<uint32_t>(o.gws.size());
  for (unsigned d = 0; d < range.dims; ++d) {
    range.global[d] = o.gws[d];
    range.local[d] = o.lws.empty() ? 1 : o.lws[d];
    range.offset[d] = o.offset.empty() ? 0 : o.offset[d];
    if (range.local[d] == 0 || range.global[d] == 0 || range.global[d] % range.local[d] != 0) {
      err << "clsplit regions: the global size must be a non-zero multiple of the local size in dimension " << d
          << "\n";
      return 2;
    }
  }

  CommandLineValues values;
  values.buffer.resize(kernel->args.size());
  for (size_t i = 0; i < kernel->args.size(); ++i)
    values.buffer[i] = kernel->args[i].kind == ArgKind::GlobalBuffer || kernel->args[i].kind == ArgKind::ConstantBuffer;
  for (const auto& s : kernel->regions.statements)
    if (s.arg >= values.buffer.size()) values.buffer.resize(s.arg + 1, true);
  for (const auto& [name, text] : o.argValues) {
    std::optional<unsigned> index;
    for (size_t i = 0; i < kernel->args.size(); ++i)
      if (argNameOf(*kernel, static_cast<unsigned>(i)) == name) index = static_cast<unsigned>(i);
    if (!index) {
      err << "clsplit regions: kernel " << kernel->name << " has no argument " << name << "\n";
      return 2;
    }
    const KernelArg& arg = kernel->args[*index];
    bool isBuffer = values.buffer[*index];
    if (text.rfind("size:", 0) == 0) {
      auto size = parseU64(std::string_view(text).substr(5));
      if (!isBuffer || !size) {
        err << "clsplit regions: size:BYTES is for buffer arguments (" << name << ")\n";
        return 2;
      }
      values.sizes[*index] = *size;
    } else if (text.rfind("file:", 0) == 0) {
      std::ifstream f(text.substr(5), std::ios::binary);
      if (!isBuffer || !f) {
        err << "clsplit regions: cannot read buffer contents from " << text.substr(5) << "\n";
        return 2;
      }
      std::vector<char> data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      auto& c = values.contents[*index];
      c.resize(data.size());
      std::memcpy(c.data(), data.data(), data.size());
      if (!values.sizes.count(*index)) values.sizes[*index] = data.size();
    } else {
      if (isBuffer) {
        err << "clsplit regions: " << name << " is a buffer: use size:BYTES or file:PATH\n";
        return 2;
      }
      try {
        values.scalars[*index] = encodeScalar(text, arg.scalarType, name);
      } catch (const Usage& u) {
        err << "clsplit regions: " << u.message << "\n";
        return 2;
      }
    }
  }

  uint32_t suggested = chooseSplitDimension(*kernel, range, values);
  Slice slice;
  slice.dim = o.splitDim.value_or(suggested);
  if (slice.dim >= range.dims) {
    err << "clsplit regions: --split-dim " << slice.dim << " but the NDRange has " << range.dims << " dimension(s)\n";
    return 2;
  }
  uint64_t groups = range.groups(slice.dim);
  slice.groupBegin = o.groups ? o.groups->first : 0;
  slice.groupEnd = o.groups ? o.groups->second : groups;
  if (slice.groupEnd > groups) {
    err << "clsplit regions: --groups ends after the last work-group (" << groups << " in dimension " << slice.dim
        << ")\n";
    return 2;
  }
  values.missing.clear(); // chooseSplitDimension's probes do not count
  auto regions = instantiate(*kernel, range, slice, values);

  auto list = [&](const std::array<uint64_t, 3>& v) {
    std::string s = "[";
    for (unsigned d = 0; d < range.dims; ++d) s += (d ? ", " : "") + std::to_string(v[d]);
    return s + "]";
  };
  out << "{\n";
  out << "  \"kernel\": " << jsonString(kernel->name) << ",\n";
  out << "  \"ndrange\": {\"dims\": " << range.dims << ", \"offset\": " << list(range.offset)
      << ", \"global\": " << list(range.global) << ", \"local\": " << list(range.local) << "},\n";
  out << "  \"slice\": {\"dim\": " << slice.dim << ", \"groups\": [" << slice.groupBegin << ", " << slice.groupEnd
      << "]},\n";
  out << "  \"suggestedSplitDim\": " << suggested << ",\n";
  out << "  \"unsplittable\": " << (kernel->unsplittableReason ? jsonString(*kernel->unsplittableReason) : "null")
      << ",\n";
  out << "  \"buffers\": [";
  bool first = true;
  for (unsigned i = 0; i < regions.size(); ++i) {
    if (i >= values.buffer.size() || !values.buffer[i]) continue;
    const BufferRegions& r = regions[i];
    uint64_t size = values.bufferSize(i);
    out << (first ? "\n" : ",\n");
    first = false;
    out << "    {\"arg\": " << i << ", \"name\": " << jsonString(argNameOf(*kernel, i)) << ", \"size\": ";
    if (size == kUnbounded)
      out << "\"unbounded\"";
    else
      out << size;
    out << ",\n      \"read\": {\"ranges\": ";
    writeRanges(out, r.read, size);
    out << ", \"bytes\": " << r.read.bytes() << ", \"exact\": " << (r.readExact ? "true" : "false") << "},\n";
    out << "      \"write\": {\"ranges\": ";
    writeRanges(out, r.write, size);
    out << ", \"bytes\": " << r.write.bytes() << ", \"exact\": " << (r.writeExact ? "true" : "false") << "},\n";
    out << "      \"atomic\": {\"ranges\": ";
    writeRanges(out, r.atomic, size);
    out << ", \"bytes\": " << r.atomic.bytes()
        << ", \"op\": " << (r.atomicOp == AtomicOp::None ? "null" : jsonString(name(r.atomicOp)))
        << ", \"type\": " << (r.atomicOp == AtomicOp::None ? "null" : jsonString(name(r.atomicType))) << "},\n";
    out << "      \"note\": " << (r.note.empty() ? "null" : jsonString(r.note)) << "}";
  }
  out << (first ? "],\n" : "\n  ],\n");
  // Indirections cannot be instantiated without the index buffer's contents.
  out << "  \"needsData\": [";
  for (size_t i = 0; i < values.missing.size(); ++i)
    out << (i ? ", " : "") << jsonString(argNameOf(*kernel, values.missing[i]));
  out << "],\n";
  if (!values.missing.empty()) {
    err << "clsplit regions: regions that depend on the contents of";
    for (unsigned a : values.missing) err << " " << argNameOf(*kernel, a);
    err << " fell back to the whole buffer; give them with --arg NAME=file:PATH\n";
  }
  out << "  \"imprecisions\": [";
  for (size_t i = 0; i < kernel->imprecisions.size(); ++i) {
    const auto& d = kernel->imprecisions[i];
    out << (i ? ",\n" : "\n") << "    {\"line\": " << d.where.line << ", \"message\": " << jsonString(d.message) << "}";
  }
  out << (kernel->imprecisions.empty() ? "]\n" : "\n  ]\n");
  out << "}\n";
  return 0;
}

} // namespace

std::optional<std::vector<std::byte>> scalarFromText(const std::string& text, ScalarType type) {
  struct Bad {};
  auto bad = [] { return Bad{}; };
  try {
    size_t used = 0;
    switch (type) {
    case ScalarType::F32: {
      float f = std::stof(text, &used);
      if (used != text.size()) throw bad();
      return bytesOf(f);
    }
    case ScalarType::F64: {
      double d = std::stod(text, &used);
      if (used != text.size()) throw bad();
      return bytesOf(d);
    }
    default:
      break;
    }
    long long v = std::stoll(text, &used, 0);
    if (used != text.size()) throw bad();
    switch (type) {
    case ScalarType::I8:
    case ScalarType::U8:
      return bytesOf(static_cast<int8_t>(v));
    case ScalarType::I16:
    case ScalarType::U16:
      return bytesOf(static_cast<int16_t>(v));
    case ScalarType::I32:
    case ScalarType::U32:
      return bytesOf(static_cast<int32_t>(v));
    default:
      return bytesOf(static_cast<int64_t>(v)); // also covers 4-byte reads (little-endian)
    }
  } catch (...) {
    return std::nullopt;
  }
}

std::string regionsUsage() {
  return "usage: clsplit regions FILE.cl --symbolic [--kernel NAME] [--options \"BUILD OPTIONS\"]\n"
         "       clsplit regions FILE.cl --kernel NAME --gws X[,Y[,Z]] [--lws X[,Y[,Z]]] [--offset X[,Y[,Z]]]\n"
         "               [--split-dim D] [--groups A:B] [--arg NAME=VALUE]... [--options \"BUILD OPTIONS\"]\n"
         "  --arg NAME=VALUE      value of a scalar argument\n"
         "  --arg NAME=size:BYTES size of a buffer argument (default: unbounded)\n"
         "  --arg NAME=file:PATH  contents of a buffer argument (for indirections; sets its size)\n"
         "  --lws defaults to 1 in every dimension; --split-dim to the dimension clsplit would choose;\n"
         "  --groups to all work-groups of the split dimension.\n"
         "  Output: JSON with each buffer's read/write/atomic byte ranges [lo, hi) for that slice.\n";
}

int runRegionsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                      const ProgramAnalyzer& analyze) {
  Options o;
  try {
    o = parse(args);
  } catch (const Usage& u) {
    err << "clsplit regions: " << u.message << "\n" << regionsUsage();
    return 2;
  }
  return run(o, out, err, analyze);
}

int runRegionsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return runRegionsCommand(args, out, err, [](std::string_view source, std::string_view options) {
    return analyzeProgram(source, options, AnalysisOptions{});
  });
}

} // namespace clsplit::analysis
