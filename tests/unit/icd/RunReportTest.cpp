// icd/runtime/RunReport.h without devices: what launches and transfers are counted, the caps on
// reasons and per-launch records, and the JSON (docs/report-format.md) and summary text.
#include "icd/runtime/RunReport.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using clsplit::buffer::TransferKind;
using clsplit::buffer::TransferLog;
using clsplit::icd::runtime::RunFacts;
using clsplit::icd::runtime::RunReport;

namespace {

// A JSON reader just strict enough to reject what a reader of the report would (scripts/report.py
// uses Python's json): the report is hand-written text, so a misplaced comma is a real risk.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  std::string text; // a string's value, a number's digits
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members; // in document order

  const Json& operator[](const std::string& key) const {
    if (kind != Object) throw std::runtime_error("not an object, looking for " + key);
    for (const auto& [k, v] : members)
      if (k == key) return v;
    throw std::runtime_error("no member " + key);
  }
  const Json& operator[](size_t i) const { return items.at(i); }
  bool has(const std::string& key) const {
    for (const auto& m : members)
      if (m.first == key) return true;
    return false;
  }
  uint64_t u() const {
    if (kind != Number) throw std::runtime_error("not a number");
    return std::stoull(text);
  }
  std::vector<uint64_t> list() const {
    std::vector<uint64_t> out;
    for (const auto& i : items) out.push_back(i.u());
    return out;
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& m : members) out.push_back(m.first);
    return out;
  }
};

class JsonReader {
public:
  static Json parse(const std::string& s) {
    JsonReader r(s);
    Json v = r.value();
    r.space();
    if (r.pos_ != s.size()) r.fail("text after the document");
    return v;
  }

private:
  explicit JsonReader(const std::string& s) : s_(s) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(what + " at offset " + std::to_string(pos_) + ": " + s_.substr(pos_, 40));
  }
  void space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  char peek() {
    space();
    if (pos_ == s_.size()) fail("end of text");
    return s_[pos_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected ") + c);
    ++pos_;
  }
  bool word(const char* w) {
    const std::string_view v(w);
    if (s_.compare(pos_, v.size(), v) != 0) return false;
    pos_ += v.size();
    return true;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (pos_ == s_.size()) fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ == s_.size()) fail("unterminated escape");
      switch (char e = s_[pos_++]) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u': {
        if (pos_ + 4 > s_.size()) fail("short \\u escape");
        unsigned long code = std::strtoul(s_.substr(pos_, 4).c_str(), nullptr, 16);
        if (code >= 0x80) fail("non-ASCII \\u escape (not written by jsonString)");
        out += static_cast<char>(code);
        pos_ += 4;
        break;
      }
      default:
        fail("unknown escape");
      }
    }
  }
  Json value() {
    Json v;
    char c = peek();
    if (c == '{') {
      v.kind = Json::Object;
      ++pos_;
      if (peek() == '}') return ++pos_, v;
      while (true) {
        std::string key = string();
        if (v.has(key)) fail("duplicate member " + key);
        expect(':');
        v.members.emplace_back(std::move(key), value());
        if (peek() == '}') return ++pos_, v;
        expect(',');
      }
    }
    if (c == '[') {
      v.kind = Json::Array;
      ++pos_;
      if (peek() == ']') return ++pos_, v;
      while (true) {
        v.items.push_back(value());
        if (peek() == ']') return ++pos_, v;
        expect(',');
      }
    }
    if (c == '"') {
      v.kind = Json::String;
      v.text = string();
      return v;
    }
    if (word("null")) return v;
    if (word("true")) {
      v.kind = Json::Bool;
      v.boolean = true;
      return v;
    }
    if (word("false")) {
      v.kind = Json::Bool;
      return v;
    }
    // The report writes only non-negative integers.
    const size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    if (pos_ == start) fail("not a value");
    if (s_[start] == '0' && pos_ - start > 1) fail("leading zero");
    v.kind = Json::Number;
    v.text = s_.substr(start, pos_ - start);
    return v;
  }
  const std::string& s_;
  size_t pos_ = 0;
};

const std::function<bool()> untimed = [] { return false; };

RunFacts twoDevices() {
  RunFacts facts;
  facts.strategy = "uniform";
  facts.devices = {{0, 3, "gpu \"A\"", "Vendor One", "GPU"}, {1, 5, "cpu B", "Vendor Two", "CPU"}};
  return facts;
}

RunFacts devices(unsigned n) {
  RunFacts facts;
  facts.strategy = "adaptive-comm";
  for (unsigned s = 0; s < n; ++s) facts.devices.push_back({s, s, "dev" + std::to_string(s), "P", "CPU"});
  return facts;
}

Json parsed(const RunReport& report, const RunFacts& facts, const std::string& partitioner = "") {
  return JsonReader::parse(report.json(facts, partitioner));
}

clsplit::buffer::TransferRecord transfer(TransferKind kind, int from, int to, uint64_t bytes) {
  clsplit::buffer::TransferRecord t;
  t.kind = kind;
  t.from = from;
  t.to = to;
  t.bytes = bytes;
  return t;
}

using Groups = std::vector<uint64_t>;
using Reason = std::optional<std::string>;
const std::vector<std::pair<unsigned, clsplit::device::FenceRef>> noSubKernels;

} // namespace

TEST_CASE("the test's JSON reader rejects malformed text", "[run_report]") {
  CHECK_NOTHROW(JsonReader::parse("{\"a\": [1, 2], \"b\": {\"c\": null, \"d\": \"x\\\"y\"}, \"e\": true}\n"));
  CHECK_THROWS(JsonReader::parse("{\"a\": [1, 2,], \"b\": 1}"));
  CHECK_THROWS(JsonReader::parse("{\"a\": 1,}"));
  CHECK_THROWS(JsonReader::parse("{\"a\": 1 \"b\": 2}"));
  CHECK_THROWS(JsonReader::parse("{\"a\": 1, \"a\": 2}"));
  CHECK_THROWS(JsonReader::parse("{\"a\": \"x\ny\"}"));
  CHECK_THROWS(JsonReader::parse("{\"a\": 1}}"));
  CHECK_THROWS(JsonReader::parse("{\"a\": }"));
}

TEST_CASE("launches are counted per kernel: split, whole with the reason why, resident, halo first", "[run_report]") {
  RunReport report(2, true, true, untimed);
  report.noteLaunch("stencil", {3, 5}, true, std::nullopt, noSubKernels, {}, /*boundaryFirst=*/true);
  // A reason given with a split launch is not a reason it ran whole.
  report.noteLaunch("stencil", {4, 4}, true, Reason("not whole after all"), noSubKernels, {});
  report.noteLaunch("stencil", {1, 0, 9}, false, Reason("one work-group"), noSubKernels, {}); // beyond the slots
  report.noteLaunch("reduce", {0, 7}, false, Reason("writes overlap"), noSubKernels, {}, false, /*resident=*/true);
  report.noteLaunch("reduce", {7, 0}, false, std::nullopt, noSubKernels, {}, false, /*resident=*/true);

  const Json doc = parsed(report, twoDevices());
  const Json& kernels = doc["kernels"];
  CHECK(kernels.keys() == std::vector<std::string>{"reduce", "stencil"}); // by name

  const Json& stencil = kernels["stencil"];
  CHECK(stencil["launches"].u() == 3);
  CHECK(stencil["split_launches"].u() == 2);
  CHECK(stencil["boundary_first_launches"].u() == 1);
  CHECK(stencil["resident_launches"].u() == 0);
  CHECK(stencil["fallback_reason"].text == "one work-group");
  CHECK(stencil["fallback_reasons"].keys() == std::vector<std::string>{"one work-group"});
  CHECK(stencil["fallback_reasons"]["one work-group"].u() == 1);
  CHECK(stencil["groups_per_device"].list() == Groups{8, 9});
  CHECK(stencil["time_ns_per_device"].list() == Groups{0, 0});

  const Json& reduce = kernels["reduce"];
  CHECK(reduce["launches"].u() == 2);
  CHECK(reduce["split_launches"].u() == 0);
  CHECK(reduce["resident_launches"].u() == 2);
  CHECK(reduce["fallback_reasons"].keys() == std::vector<std::string>{"writes overlap"});
  CHECK(reduce["fallback_reasons"]["writes overlap"].u() == 1); // the launch without a reason is not counted
  CHECK(reduce["groups_per_device"].list() == Groups{7, 7});

  // The format itself: scripts read it as JSON, people read it as these lines.
  const std::string text = report.json(twoDevices(), "");
  CHECK(text.find("\n    \"reduce\": {\"launches\": 2, \"split_launches\": 0, \"boundary_first_launches\": 0, "
                  "\"resident_launches\": 2, \"fallback_reason\": \"writes overlap\", \"fallback_reasons\": "
                  "{\"writes overlap\": 1}, \"groups_per_device\": [7, 7], \"time_ns_per_device\": [0, 0]},\n") !=
        std::string::npos);
}

TEST_CASE("a kernel split on every launch has no fallback reason", "[run_report]") {
  RunReport report(2, true, false, untimed);
  report.noteLaunch("k", {1, 1}, true, std::nullopt, noSubKernels, {});
  const Json doc = parsed(report, twoDevices());
  CHECK(doc["kernels"]["k"]["fallback_reason"].kind == Json::Null);
  CHECK(doc["kernels"]["k"]["fallback_reasons"].members.empty());
}

TEST_CASE("at most eight reasons per kernel, later ones counted in the eighth; the most frequent is named",
          "[run_report]") {
  RunReport report(1, true, false, untimed);
  for (int i = 0; i < 10; ++i)
    report.noteLaunch("many", {1}, false, Reason("reason " + std::to_string(i)), noSubKernels, {});
  for (int i = 0; i < 3; ++i) report.noteLaunch("many", {1}, false, Reason("reason 3"), noSubKernels, {});
  report.noteLaunch("many", {1}, false, Reason("reason 9"), noSubKernels, {});
  // Among equals, the first seen (not the first by name).
  report.noteLaunch("tied", {1}, false, Reason("zebra"), noSubKernels, {});
  report.noteLaunch("tied", {1}, false, Reason("aardvark"), noSubKernels, {});

  const Json doc = parsed(report, devices(1));
  const Json& reasons = doc["kernels"]["many"]["fallback_reasons"];
  REQUIRE(reasons.members.size() == 8);
  for (size_t i = 0; i < 8; ++i) CHECK(reasons.members[i].first == "reason " + std::to_string(i)); // first seen first
  CHECK(reasons["reason 0"].u() == 1);
  CHECK(reasons["reason 3"].u() == 4);
  CHECK(reasons["reason 7"].u() == 4); // itself, 8, 9 and 9 again
  uint64_t total = 0;
  for (const auto& [reason, count] : reasons.members) total += count.u();
  // Every whole launch is counted somewhere.
  CHECK(total == doc["kernels"]["many"]["launches"].u());
  CHECK(doc["kernels"]["many"]["fallback_reason"].text == "reason 3"); // 4 like reason 7, seen first

  CHECK(doc["kernels"]["tied"]["fallback_reason"].text == "zebra");

  const std::string summary = report.summary(devices(1));
  CHECK(summary.find("      not split (4x): reason 3\n") != std::string::npos);
  CHECK(summary.find("      not split (4x): reason 7\n") != std::string::npos);
  CHECK(summary.find("reason 8") == std::string::npos);
}

TEST_CASE("each launch is recorded with its groups and the bytes each device received for it", "[run_report]") {
  RunReport report(2, true, true, untimed);
  const TransferLog moved{transfer(TransferKind::HostToDevice, -1, 1, 100),
                          transfer(TransferKind::DeviceToDevice, 1, 0, 30),
                          transfer(TransferKind::DeviceToHost, 0, -1, 50), // to the host: no device received it
                          transfer(TransferKind::HostToDevice, -1, 1, 20)};
  report.noteLaunch("a", {2, 3}, true, std::nullopt, noSubKernels, moved);
  report.noteLaunch("b", {5, 0}, false, Reason("x"), noSubKernels, {});
  report.noteLaunch("a", {1, 1}, true, std::nullopt, noSubKernels, {transfer(TransferKind::HostToDevice, -1, 0, 8)});

  const Json doc = parsed(report, twoDevices());
  const Json& launches = doc["launches"];
  REQUIRE(launches.items.size() == 3);
  CHECK(launches[0]["kernel"].text == "a");
  CHECK(launches[0]["groups"].list() == Groups{2, 3});
  CHECK(launches[0]["time_ns"].list() == Groups{0, 0});
  CHECK(launches[0]["bytes_in"].list() == Groups{30, 120});
  CHECK(launches[1]["kernel"].text == "b");
  CHECK(launches[1]["groups"].list() == Groups{5, 0});
  CHECK(launches[1]["bytes_in"].list() == Groups{0, 0});
  CHECK(launches[2]["kernel"].text == "a");
  CHECK(launches[2]["bytes_in"].list() == Groups{8, 0});
  // A launch's transfers give its bytes_in only: the totals come from noteTransfers (Launch.cpp
  // notes both), so they are not counted twice.
  CHECK(doc["transfers"]["count"].u() == 0);
  CHECK(doc["transfers"]["host_to_device_bytes"].list() == Groups{0, 0});

  CHECK(report.json(twoDevices(), "")
            .find("\n    {\"kernel\": \"b\", \"groups\": [5, 0], \"time_ns\": [0, 0], "
                  "\"bytes_in\": [0, 0]},\n") != std::string::npos);
}

TEST_CASE("without per-launch records the launches list is empty, the kernels still counted", "[run_report]") {
  RunReport report(2, true, false, untimed);
  report.noteLaunch("a", {2, 3}, true, std::nullopt, noSubKernels, {});
  const std::string text = report.json(twoDevices(), "");
  CHECK(text.find("\n  \"launches\": [\n  ],\n") != std::string::npos);
  const Json doc = JsonReader::parse(text);
  CHECK(doc["launches"].items.empty());
  CHECK(doc["kernels"]["a"]["launches"].u() == 1);
}

TEST_CASE("per-launch records stop at 200000 launches; the kernels keep counting", "[run_report]") {
  RunReport report(1, true, true, untimed);
  const Groups one{1};
  for (int i = 0; i < 200001; ++i) report.noteLaunch("k", one, false, std::nullopt, noSubKernels, {});
  const Json doc = parsed(report, devices(1));
  CHECK(doc["launches"].items.size() == 200000);
  CHECK(doc["kernels"]["k"]["launches"].u() == 200001);
  CHECK(doc["kernels"]["k"]["groups_per_device"].list() == Groups{200001});
}

TEST_CASE("transfers are summed by kind: to the device they reach, from the device read back", "[run_report]") {
  RunReport report(3, true, true, untimed);
  report.noteTransfers({transfer(TransferKind::HostToDevice, -1, 2, 64), transfer(TransferKind::HostToDevice, -1, 0, 8),
                        transfer(TransferKind::DeviceToHost, 1, -1, 16),
                        transfer(TransferKind::DeviceToDevice, 0, 1, 32),
                        transfer(TransferKind::DeviceToDevice, 2, 1, 4)});
  report.noteTransfers({transfer(TransferKind::HostToDevice, -1, 2, 1)});
  report.noteTransfers({});

  const Json doc = parsed(report, devices(3));
  const Json& transfers = doc["transfers"];
  CHECK(transfers["count"].u() == 6);
  CHECK(transfers["host_to_device_bytes"].list() == Groups{8, 0, 65});
  CHECK(transfers["device_to_host_bytes"].list() == Groups{0, 16, 0});
  CHECK(transfers["device_to_device_bytes"].list() == Groups{0, 36, 0});
  CHECK(report.summary(devices(3)).find("  bytes moved: host->device 73, device->host 16, device->device 36\n") !=
        std::string::npos);
}

TEST_CASE("a report not asked for records nothing and asks nothing", "[run_report]") {
  int asked = 0;
  RunReport report(2, false, true, [&] { return ++asked, true; });
  CHECK_FALSE(report.enabled());
  report.noteLaunch("a", {2, 3}, false, Reason("x"), noSubKernels, {transfer(TransferKind::HostToDevice, -1, 0, 8)});
  report.noteTransfers({transfer(TransferKind::HostToDevice, -1, 0, 8)});
  const Json doc = parsed(report, twoDevices());
  CHECK(doc["kernels"].members.empty());
  CHECK(doc["launches"].items.empty());
  CHECK(doc["transfers"]["count"].u() == 0);
  CHECK(doc["transfers"]["host_to_device_bytes"].list() == Groups{0, 0});
  CHECK(asked == 0);
}

TEST_CASE("with timing, sub-kernels without a real event are not waited for", "[run_report]") {
  int asked = 0;
  RunReport report(2, true, true, [&] { return ++asked, true; });
  const auto fence = std::make_shared<clsplit::device::HostFence>();
  report.noteLaunch("a", {2, 3}, true, std::nullopt, {{0, fence}, {1, fence}}, {});
  CHECK(asked == 1);
  const Json doc = parsed(report, twoDevices());
  CHECK(doc["unmeasured_sub_kernels"].u() == 0); // nothing that could ever report a device time
  CHECK(doc["kernels"]["a"]["time_ns_per_device"].list() == Groups{0, 0});
  fence->complete(CL_COMPLETE);
  CHECK(parsed(report, twoDevices())["kernels"]["a"]["time_ns_per_device"].list() == Groups{0, 0});
}

TEST_CASE("the facts of the run are written as given, in the documented order", "[run_report]") {
  RunReport report(2, true, true, untimed);
  RunFacts facts = twoDevices();
  facts.deferredLaunches = 12;
  facts.analyzerLoaded = true;
  facts.pinned.pinnedBytes = 4096;
  facts.pinned.lentBytes = 999; // not reported
  facts.pinned.buffersMade = 3;
  facts.pinned.lends = 40;
  facts.pinned.misses = 2;
  facts.pinned.slabs = 1;
  facts.ring = {5, 1024};
  facts.memory = {7000, 8000, 4, 1};
  facts.hostTime = {{"clEnqueueNDRangeKernel", 4, 10000, 2000, 6},
                    {"clFinish", 2, 100, 300, 2}}; // more vendor time than in all (clocks): own time 0
  facts.driverCalls = {{"clFlush", 5, 50}, {"clEnqueueNDRangeKernel", 9, 900}, {"dispatch slot 99", 1, 1}};
  facts.callbacks = 3;
  facts.callbackNs = 30;
  facts.callbackMaxNs = 20;

  const std::string text = report.json(facts, "{\"strategy\": \"uniform\"}");
  const Json doc = JsonReader::parse(text);
  CHECK(doc.keys() == std::vector<std::string>{"clsplit_version", "strategy", "unmeasured_sub_kernels",
                                               "deferred_launches", "analyzer_loaded", "devices", "kernels", "launches",
                                               "transfers", "pinned_host", "device_memory", "host_time", "driver_calls",
                                               "driver_callbacks", "partitioner"});
  CHECK(doc["clsplit_version"].text == CLSPLIT_VERSION);
  CHECK(doc["strategy"].text == "uniform");
  CHECK(doc["deferred_launches"].u() == 12);
  CHECK(doc["analyzer_loaded"].kind == Json::Bool);
  CHECK(doc["analyzer_loaded"].boolean);

  REQUIRE(doc["devices"].items.size() == 2);
  CHECK(doc["devices"][0]["name"].text == "gpu \"A\"");
  CHECK(doc["devices"][1]["slot"].u() == 1);
  CHECK(doc["devices"][1]["index"].u() == 5);
  CHECK(doc["devices"][1]["platform"].text == "Vendor Two");
  CHECK(doc["devices"][1]["type"].text == "CPU");
  CHECK(text.find("  \"devices\": [\n    {\"slot\": 0, \"index\": 3, \"name\": \"gpu \\\"A\\\"\", \"platform\": "
                  "\"Vendor One\", \"type\": \"GPU\"},\n    {\"slot\": 1, \"index\": 5, \"name\": \"cpu B\", "
                  "\"platform\": \"Vendor Two\", \"type\": \"CPU\"}\n  ],\n") != std::string::npos);

  const Json& pinned = doc["pinned_host"];
  CHECK(pinned.keys() ==
        std::vector<std::string>{"peak_bytes", "buffers_made", "lends", "misses", "slabs", "ring_moves", "ring_bytes"});
  CHECK(pinned["peak_bytes"].u() == 4096);
  CHECK(pinned["buffers_made"].u() == 3);
  CHECK(pinned["lends"].u() == 40);
  CHECK(pinned["misses"].u() == 2);
  CHECK(pinned["slabs"].u() == 1);
  CHECK(pinned["ring_moves"].u() == 5);
  CHECK(pinned["ring_bytes"].u() == 1024);
  const Json& memory = doc["device_memory"];
  CHECK(memory["peak_bytes"].u() == 7000);
  CHECK(memory["cap_bytes"].u() == 8000);
  CHECK(memory["windows"].u() == 4);
  CHECK(memory["evictions"].u() == 1);

  const Json& host = doc["host_time"];
  REQUIRE(host.items.size() == 2);
  CHECK(host[0]["entry"].text == "clEnqueueNDRangeKernel");
  CHECK(host[0]["calls"].u() == 4);
  CHECK(host[0]["total_ns"].u() == 10000);
  CHECK(host[0]["driver_ns"].u() == 2000);
  CHECK(host[0]["driver_calls"].u() == 6);
  CHECK(host[0]["own_ns_per_call"].u() == 2000); // (10000 - 2000) / 4
  CHECK(host[1]["own_ns_per_call"].u() == 0);

  const Json& driver = doc["driver_calls"];
  REQUIRE(driver.items.size() == 3);
  CHECK(driver[0]["function"].text == "clEnqueueNDRangeKernel"); // most calls first
  CHECK(driver[0]["calls"].u() == 9);
  CHECK(driver[0]["ns"].u() == 900);
  CHECK(driver[1]["function"].text == "clFlush");
  CHECK(driver[2]["function"].text == "dispatch slot 99");
  CHECK(doc["driver_callbacks"]["calls"].u() == 3);
  CHECK(doc["driver_callbacks"]["ns"].u() == 30);
  CHECK(doc["driver_callbacks"]["max_ns"].u() == 20);

  CHECK(doc["partitioner"]["strategy"].text == "uniform"); // written as given
  CHECK(text.substr(text.size() - 2) == "}\n");
}

TEST_CASE("an empty run is a complete document", "[run_report]") {
  RunReport report(0, true, true, untimed);
  RunFacts facts;
  facts.strategy = "single";
  const std::string text = report.json(facts, "");
  const Json doc = JsonReader::parse(text);
  CHECK(doc["devices"].items.empty());
  CHECK(doc["kernels"].members.empty());
  CHECK(doc["host_time"].items.empty());
  CHECK(doc["driver_calls"].items.empty());
  CHECK(doc["analyzer_loaded"].kind == Json::Bool);
  CHECK_FALSE(doc["analyzer_loaded"].boolean);
  CHECK(doc["partitioner"].kind == Json::Null);
  CHECK(doc["transfers"]["host_to_device_bytes"].items.empty());
  // The beginning and end as docs/report-format.md shows them.
  CHECK(text.rfind(std::string("{\n  \"clsplit_version\": \"") + CLSPLIT_VERSION + "\",\n  \"strategy\": \"single\",\n",
                   0) == 0);
  CHECK(
      text.find("\n  \"driver_callbacks\": {\"calls\": 0, \"ns\": 0, \"max_ns\": 0},\n  \"partitioner\": null\n}\n") !=
      std::string::npos);
}

TEST_CASE("the summary: devices, a row per kernel with its reasons, bytes moved, host time per launch",
          "[run_report]") {
  RunReport report(2, true, false, untimed);
  report.noteLaunch("stencil", {3, 5}, true, std::nullopt, noSubKernels, {});
  report.noteLaunch("stencil", {1, 0}, false, Reason("one work-group"), noSubKernels, {});
  report.noteLaunch("a_kernel_name_longer_than_the_column", {2, 0}, false, Reason("r"), noSubKernels, {});
  report.noteTransfers(
      {transfer(TransferKind::HostToDevice, -1, 1, 10), transfer(TransferKind::DeviceToHost, 0, -1, 3)});
  RunFacts facts = twoDevices();
  facts.hostTime = {{"clFinish", 1, 50000, 0, 1}, {"clEnqueueNDRangeKernel", 4, 8000, 2000, 6}};

  CHECK(report.summary(facts) == "clsplit summary (strategy uniform)\n"
                                 "  device 0: gpu \"A\"\n"
                                 "  device 1: cpu B\n"
                                 "  kernel                        launches     split  groups / ms per device\n"
                                 "  a_kernel_name_longer_than_th         1         0  2/0.00  0/0.00\n"
                                 "      not split (1x): r\n"
                                 "  stencil                              2         1  4/0.00  5/0.00\n"
                                 "      not split (1x): one work-group\n"
                                 "  bytes moved: host->device 10, device->host 3, device->device 0\n"
                                 "  host time per launch: 2.0 us (0.5 us in 1.5 vendor calls)\n");

  // No launches through the entry point: no host time line.
  facts.hostTime.pop_back();
  CHECK(report.summary(facts).find("host time per launch") == std::string::npos);
}
