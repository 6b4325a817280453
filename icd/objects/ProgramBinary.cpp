// ProgramBinary: a length-prefixed text format. Executables keep the first format
// ("CLSPLIT-PROGRAM-1", options then source), so binaries saved by older builds still load.
#include "icd/objects/ProgramBinary.h"

#include <sstream>
#include <string_view>

namespace clsplit::icd {

namespace {

constexpr std::string_view kExecutableMagic = "CLSPLIT-PROGRAM-1\n";
constexpr std::string_view kMagic = "CLSPLIT-PROGRAM-2\n";

void put(std::string& out, std::string_view field) {
  out += std::to_string(field.size());
  out += '\n';
  out += field;
}

// Reads one field put() wrote; false when the text ends or is malformed.
bool take(std::string_view& in, std::string& field) {
  auto newline = in.find('\n');
  if (newline == std::string_view::npos || newline == 0 || newline > 20) return false;
  size_t length = 0;
  for (char c : in.substr(0, newline)) {
    if (c < '0' || c > '9') return false;
    length = length * 10 + static_cast<size_t>(c - '0');
  }
  in.remove_prefix(newline + 1);
  if (length > in.size()) return false;
  field = std::string(in.substr(0, length));
  in.remove_prefix(length);
  return true;
}

bool takeCount(std::string_view& in, size_t& count) {
  std::string text;
  if (!take(in, text) || text.empty() || text.size() > 6) return false;
  count = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    count = count * 10 + static_cast<size_t>(c - '0');
  }
  return true;
}

std::optional<ProgramBinary> decodeText(std::string_view in, int depth);

bool decodeBody(std::string_view& in, ProgramBinary& out, int depth) {
  std::string type;
  if (!take(in, type) || type.size() != 1) return false;
  if (!take(in, out.options)) return false;
  switch (type[0]) {
  case 'E':
    out.type = ProgramBinary::Type::Executable;
    return take(in, out.source);
  case 'O': {
    out.type = ProgramBinary::Type::Object;
    size_t headers = 0;
    if (!take(in, out.source) || !takeCount(in, headers)) return false;
    for (size_t i = 0; i < headers; ++i) {
      std::string name, source;
      if (!take(in, name) || !take(in, source)) return false;
      out.headers.emplace_back(std::move(name), std::move(source));
    }
    return true;
  }
  case 'L': {
    out.type = ProgramBinary::Type::Linked;
    size_t inputs = 0;
    if (!takeCount(in, inputs) || inputs == 0) return false;
    for (size_t i = 0; i < inputs; ++i) {
      std::string nested;
      if (!take(in, nested)) return false;
      auto input = decodeText(nested, depth + 1);
      if (!input || input->type == ProgramBinary::Type::Executable) return false;
      out.inputs.push_back(std::move(*input));
    }
    return true;
  }
  default:
    return false;
  }
}

std::optional<ProgramBinary> decodeText(std::string_view in, int depth) {
  if (depth > 16) return std::nullopt; // libraries of libraries: bounded, not a stack overflow
  ProgramBinary out;
  if (in.substr(0, kExecutableMagic.size()) == kExecutableMagic) {
    in.remove_prefix(kExecutableMagic.size());
    auto newline = in.find('\n');
    if (newline == std::string_view::npos) return std::nullopt;
    size_t length = 0;
    for (char c : in.substr(0, newline)) {
      if (c < '0' || c > '9') return std::nullopt;
      length = length * 10 + static_cast<size_t>(c - '0');
    }
    in.remove_prefix(newline + 1);
    if (length > in.size()) return std::nullopt;
    out.options = std::string(in.substr(0, length));
    out.source = std::string(in.substr(length));
    return out;
  }
  if (in.substr(0, kMagic.size()) != kMagic) return std::nullopt;
  in.remove_prefix(kMagic.size());
  if (!decodeBody(in, out, depth) || !in.empty()) return std::nullopt;
  return out;
}

} // namespace

bool ProgramBinary::library() const {
  if (type != Type::Linked) return false;
  std::istringstream words(options);
  std::string word;
  while (words >> word)
    if (word == "-create-library") return true;
  return false;
}

std::string ProgramBinary::encode() const {
  if (type == Type::Executable) {
    std::string out(kExecutableMagic);
    out += std::to_string(options.size()) + "\n" + options + source;
    return out;
  }
  std::string out(kMagic);
  put(out, type == Type::Object ? "O" : "L");
  put(out, options);
  if (type == Type::Object) {
    put(out, source);
    put(out, std::to_string(headers.size()));
    for (const auto& [name, text] : headers) {
      put(out, name);
      put(out, text);
    }
  } else {
    put(out, std::to_string(inputs.size()));
    for (const auto& input : inputs) put(out, input.encode());
  }
  return out;
}

std::optional<ProgramBinary> ProgramBinary::decode(const unsigned char* data, size_t size) {
  if (!data) return std::nullopt;
  return decodeText(std::string_view(reinterpret_cast<const char*>(data), size), 0);
}

} // namespace clsplit::icd
