// A minimal streaming JSON writer for the run report (keys and strings escaped, numbers finite).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clsplit::partition {

class JsonWriter {
public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(const std::string& k);
  JsonWriter& value(const std::string& s);
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(double x);       // non-finite numbers become null
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

std::string jsonEscape(const std::string& s);

} // namespace clsplit::partition
