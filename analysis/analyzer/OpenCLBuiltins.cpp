// OpenCL built-in recognition from mangled names. Only the subset of the Itanium grammar that
// Clang emits for OpenCL built-in declarations is parsed (builtin types, vectors, pointers with
// address-space and cv qualifiers, substitutions for repeated types).
#include "analysis/analyzer/OpenCLBuiltins.h"

#include <cctype>

namespace clsplit::analysis::analyzer {

namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

ScalarType builtinType(char c, bool& known) {
  known = true;
  switch (c) {
  case 'c':
  case 'a':
    return ScalarType::I8;
  case 'h':
    return ScalarType::U8;
  case 's':
    return ScalarType::I16;
  case 't':
    return ScalarType::U16;
  case 'i':
    return ScalarType::I32;
  case 'j':
    return ScalarType::U32;
  case 'l':
  case 'x':
    return ScalarType::I64;
  case 'm':
  case 'y':
    return ScalarType::U64;
  case 'f':
    return ScalarType::F32;
  case 'd':
    return ScalarType::F64;
  case 'b':
    return ScalarType::U8;
  case 'v':
    return ScalarType::Unknown;
  default:
    known = false;
    return ScalarType::Unknown;
  }
}

class ParamParser {
public:
  explicit ParamParser(std::string_view s) : s_(s) {}

  bool parseAll(std::vector<MangledParam>& out) {
    while (pos_ < s_.size()) {
      MangledParam p;
      if (!parse(p)) return false;
      out.push_back(p);
    }
    return true;
  }

private:
  bool parse(MangledParam& p) {
    if (pos_ >= s_.size()) return false;
    size_t start = pos_;
    char c = s_[pos_];
    if (c == 'S') { // substitution S_, S0_, S1_ ...
      ++pos_;
      size_t idx = 0;
      if (pos_ < s_.size() && s_[pos_] != '_') {
        while (pos_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[pos_]))) {
          char d = s_[pos_++];
          idx = idx * 36 + (std::isdigit(static_cast<unsigned char>(d)) ? d - '0' : d - 'A' + 10);
        }
        ++idx;
      }
      if (pos_ >= s_.size() || s_[pos_] != '_') return false;
      ++pos_;
      if (idx >= subs_.size()) return false;
      p = subs_[idx];
      return true;
    }
    if (c == 'P') {
      ++pos_;
      p.pointer = true;
      // Qualifiers: U3AS<n> (address space), K (const), V (volatile), r (restrict).
      for (;;) {
        if (startsWith(s_.substr(pos_), "U3AS")) {
          pos_ += 4;
          if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_]))) return false;
          p.addressSpace = static_cast<unsigned>(s_[pos_++] - '0');
          continue;
        }
        if (pos_ < s_.size() && (s_[pos_] == 'K' || s_[pos_] == 'V' || s_[pos_] == 'r')) {
          ++pos_;
          continue;
        }
        break;
      }
      MangledParam pointee;
      if (!parse(pointee)) return false;
      p.element = pointee.element;
      p.vectorWidth = pointee.vectorWidth;
      p.isHalf = pointee.isHalf;
      subs_.push_back(p);
      (void)start;
      return true;
    }
    if (c == 'D' && pos_ + 1 < s_.size() && s_[pos_ + 1] == 'v') { // Dv4_f
      pos_ += 2;
      unsigned n = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
        n = n * 10 + static_cast<unsigned>(s_[pos_++] - '0');
      if (pos_ >= s_.size() || s_[pos_] != '_') return false;
      ++pos_;
      MangledParam elem;
      if (!parse(elem)) return false;
      p = elem;
      p.vectorWidth = n;
      subs_.push_back(p);
      return true;
    }
    if (c == 'D' && pos_ + 1 < s_.size() && s_[pos_ + 1] == 'h') {
      pos_ += 2;
      p.isHalf = true;
      return true;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) { // a named type: 9ocl_event
      size_t len = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
        len = len * 10 + static_cast<size_t>(s_[pos_++] - '0');
      if (pos_ + len > s_.size()) return false;
      pos_ += len;
      subs_.push_back(p);
      return true;
    }
    bool known = false;
    p.element = builtinType(c, known);
    if (!known) return false;
    ++pos_;
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::vector<MangledParam> subs_;
};

unsigned parseUnsigned(std::string_view s) {
  unsigned n = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
    n = n * 10 + static_cast<unsigned>(c - '0');
  }
  return n;
}

} // namespace

MangledName demangle(std::string_view mangled) {
  MangledName out;
  if (!startsWith(mangled, "_Z")) {
    out.base = std::string(mangled);
    return out;
  }
  size_t pos = 2;
  size_t len = 0;
  while (pos < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[pos])))
    len = len * 10 + static_cast<size_t>(mangled[pos++] - '0');
  if (len == 0 || pos + len > mangled.size()) {
    out.base = std::string(mangled);
    return out;
  }
  out.base = std::string(mangled.substr(pos, len));
  ParamParser parser(mangled.substr(pos + len));
  if (!parser.parseAll(out.params)) out.params.clear();
  return out;
}

Builtin classifyBuiltin(std::string_view calleeName) {
  Builtin b;
  b.name = demangle(calleeName);
  const std::string& n = b.name.base;
  auto is = [&](std::initializer_list<std::string_view> names) {
    for (auto x : names)
      if (n == x) return true;
    return false;
  };
  if (is({"get_global_id", "get_local_id", "get_group_id"}))
    b.kind = BuiltinKind::WorkItem;
  else if (is({"get_global_size", "get_local_size", "get_num_groups", "get_global_offset", "get_work_dim",
               "get_enqueued_local_size"}))
    b.kind = BuiltinKind::Launch;
  else if (is({"min", "max", "clamp", "abs", "mul24", "mad24"}))
    b.kind = BuiltinKind::IntMath;
  else if (is({"floor", "ceil", "trunc", "fabs", "fmin", "fmax"}))
    b.kind = BuiltinKind::FloatMath;
  else if (startsWith(n, "convert_"))
    b.kind = BuiltinKind::Convert;
  else if (startsWith(n, "vload")) {
    b.kind = BuiltinKind::VLoad;
    std::string_view rest = std::string_view(n).substr(5);
    bool aligned = startsWith(rest, "a_half");
    if (aligned) rest.remove_prefix(1);
    if (startsWith(rest, "_half")) {
      b.halfElements = true;
      rest.remove_prefix(5);
    }
    unsigned count = rest.empty() ? 1 : parseUnsigned(rest);
    if (count == 0) b.kind = BuiltinKind::None;
    b.vectorCount = count;
    b.vectorStride = (aligned && count == 3) ? 4 : count;
  } else if (startsWith(n, "vstore")) {
    b.kind = BuiltinKind::VStore;
    std::string_view rest = std::string_view(n).substr(6);
    bool aligned = startsWith(rest, "a_half");
    if (aligned) rest.remove_prefix(1);
    if (startsWith(rest, "_half")) {
      b.halfElements = true;
      rest.remove_prefix(5);
    }
    // Rounding-mode suffix: _rte, _rtz, _rtp, _rtn.
    if (rest.size() >= 4 && rest[rest.size() - 4] == '_' && rest.substr(rest.size() - 3, 2) == "rt")
      rest.remove_suffix(4);
    unsigned count = rest.empty() ? 1 : parseUnsigned(rest);
    if (count == 0) b.kind = BuiltinKind::None;
    b.vectorCount = count;
    b.vectorStride = (aligned && count == 3) ? 4 : count;
  } else if (startsWith(n, "atomic_") || startsWith(n, "atom_")) {
    b.kind = BuiltinKind::Atomic;
  } else if (is({"async_work_group_copy", "async_work_group_strided_copy"})) {
    b.kind = BuiltinKind::AsyncCopy;
  } else if (is({"prefetch", "printf", "barrier", "work_group_barrier", "mem_fence", "read_mem_fence",
                 "write_mem_fence", "wait_group_events"})) {
    b.kind = BuiltinKind::NoMemoryEffect;
  }
  return b;
}

} // namespace clsplit::analysis::analyzer
