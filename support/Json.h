// JSON text for every report clsplit writes (run report, partitioner, `clsplit regions`): one
// string escaper and a minimal streaming writer (keys and strings escaped, numbers finite).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clsplit {

class JsonWriter {
public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(const std::string& k);
  JsonWriter& value(const std::string& s);
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(double x); // non-finite numbers become null
  JsonWriter& value(uint64_t x);
  JsonWriter& value(int64_t x);
  JsonWriter& value(unsigned x) { return value(uint64_t(x)); }
  JsonWriter& value(int x) { return value(int64_t(x)); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  JsonWriter& numbers(const std::vector<double>& xs);

  const std::string& str() const { return out_; }

private:
  void separate();
  std::string out_;
  std::vector<bool> first_; // per open container: nothing written yet
  bool afterKey_ = false;
};

// `s` as a JSON string: quoted, with quotes, backslashes and control characters escaped.
std::string jsonString(std::string_view s);

} // namespace clsplit
