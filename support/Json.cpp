// JSON writing with escaping.
#include "support/Json.h"

#include <cmath>
#include <cstdio>

namespace clsplit {

std::string jsonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += char(c);
      }
    }
  }
  return out + "\"";
}

void JsonWriter::separate() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::beginObject() {
  separate();
  out_ += '{';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::endObject() {
  out_ += '}';
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::beginArray() {
  separate();
  out_ += '[';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::endArray() {
  out_ += ']';
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::key(const std::string& k) {
  separate();
  out_ += jsonString(k);
  out_ += ':';
  afterKey_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(const std::string& s) {
  separate();
  out_ += jsonString(s);
  return *this;
}
JsonWriter& JsonWriter::value(double x) {
  separate();
  if (!std::isfinite(x)) {
    out_ += "null";
    return *this;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  out_ += buf;
  return *this;
}
JsonWriter& JsonWriter::value(uint64_t x) {
  separate();
  out_ += std::to_string(x);
  return *this;
}
JsonWriter& JsonWriter::value(int64_t x) {
  separate();
  out_ += std::to_string(x);
  return *this;
}
JsonWriter& JsonWriter::value(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}
JsonWriter& JsonWriter::numbers(const std::vector<double>& xs) {
  beginArray();
  for (double x : xs) value(x);
  return endArray();
}

} // namespace clsplit
