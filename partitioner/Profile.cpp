// Warm start (CLSPLIT_PROFILE): the learned model saved as a small tab-separated text file,
// keyed by kernel identity and device name, and loaded back so a second run starts balanced.
//
//   clsplit-profile <TAB> 1
//   device <TAB> key <TAB> latencyNs <TAB> h2d perByte latency <TAB> d2h ... <TAB> d2d ...
//   kernel <TAB> identity <TAB> device key <TAB> work-items per group of the split dimension <TAB> groups <TAB> timeNs
//   edge <TAB> producer identity <TAB> consumer identity <TAB> bytesPerMismatch
//
// Device keys are the name plus "#ordinal" among devices of that name (two identical GPUs stay
// two entries). Text fields are percent-escaped.
#include "partitioner/DynamicPartitioner.h"

#include "support/Log.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace clsplit::partition {

namespace {

constexpr const char* kMagic = "clsplit-profile";

std::string escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '%' || c == '\t' || c == '\n' || c == '\r' || c < 0x20) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out;
}

bool unescape(const std::string& s, std::string& out) {
  out.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return false;
    char hex[3] = {s[i + 1], s[i + 2], 0};
    char* end = nullptr;
    long v = std::strtol(hex, &end, 16);
    if (end != hex + 2) return false;
    out += char(v);
    i += 2;
  }
  return true;
}

std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, '\t')) fields.push_back(field);
  return fields;
}

bool number(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out) && out >= 0;
}

std::vector<std::string> deviceKeys(const std::vector<DeviceInfo>& devices) {
  std::vector<std::string> keys;
  for (size_t d = 0; d < devices.size(); ++d) {
    unsigned ordinal = 0;
    for (size_t e = 0; e < d; ++e) ordinal += devices[e].name == devices[d].name;
    keys.push_back(devices[d].name + "#" + std::to_string(ordinal));
  }
  return keys;
}

const Direction kDirections[] = {Direction::HostToDevice, Direction::DeviceToHost, Direction::DeviceToDevice};

} // namespace

bool DynamicPartitioner::saveProfile(const std::string& path) const {
  std::lock_guard lock(mutex_);
  std::ofstream out(path, std::ios::trunc);
  if (!out) {
    log().warn("partitioner: cannot write profile '{}'", path);
    return false;
  }
  char buf[64];
  auto num = [&](double x) {
    std::snprintf(buf, sizeof buf, "%.9g", x);
    return std::string(buf);
  };
  out << kMagic << "\t1\n";
  auto keys = deviceKeys(devices_);
  for (unsigned d = 0; d < n_; ++d) {
    out << "device\t" << escape(keys[d]) << '\t' << num(latency(d));
    for (auto dir : kDirections) {
      auto c = transfers_.cost(d, dir);
      out << '\t' << num(c.perByteNs) << '\t' << num(c.latencyNs);
    }
    out << '\n';
  }
  for (const auto& k : kernels_)
    for (unsigned d = 0; d < n_; ++d)
      if (k.devices[d].known())
        out << "kernel\t" << escape(k.name) << '\t' << escape(keys[d]) << '\t' << uint64_t(itemsPerRow(k)) << '\t'
            << k.devices[d].groups() << '\t' << num(k.devices[d].timeNs()) << '\n';
  for (const auto& [key, volume] : seq_.edges) {
    if (key.first >= seq_.kernels.size() || key.second >= seq_.kernels.size()) continue;
    out << "edge\t" << escape(kernels_[seq_.kernels[key.first]].name) << '\t'
        << escape(kernels_[seq_.kernels[key.second]].name) << '\t' << num(volume.fit().bytesPerMismatch) << '\n';
  }
  out.flush();
  if (!out) {
    log().warn("partitioner: writing profile '{}' failed", path);
    return false;
  }
  return true;
}

bool DynamicPartitioner::loadProfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    log().warn("partitioner: cannot read profile '{}'", path);
    return false;
  }
  struct DeviceEntry {
    double latency;
    std::array<TransferPrior, 3> transfers;
  };
  struct KernelEntry {
    std::string kernel, device;
    double groupSize, groups, timeNs;
  };
  std::map<std::string, DeviceEntry> deviceEntries;
  std::vector<KernelEntry> kernelEntries;
  std::map<std::pair<std::string, std::string>, double> edgeEntries;

  // Parse everything first: a malformed file changes nothing.
  std::string line;
  unsigned lineNo = 0;
  auto bad = [&](const char* why) {
    log().warn("partitioner: profile '{}' line {}: {}; profile ignored", path, lineNo, why);
    return false;
  };
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    auto f = splitTabs(line);
    if (lineNo == 1) {
      if (f.size() != 2 || f[0] != kMagic || f[1] != "1") return bad("not a clsplit profile");
      continue;
    }
    if (f[0] == "device") {
      if (f.size() != 9) return bad("device needs 8 fields");
      std::string key;
      DeviceEntry e{};
      if (!unescape(f[1], key) || !number(f[2], e.latency)) return bad("bad device entry");
      for (int i = 0; i < 3; ++i)
        if (!number(f[3 + 2 * i], e.transfers[i].perByteNs) || !number(f[4 + 2 * i], e.transfers[i].latencyNs))
          return bad("bad transfer cost");
      deviceEntries[key] = e;
    } else if (f[0] == "kernel") {
      KernelEntry e;
      if (f.size() != 6 || !unescape(f[1], e.kernel) || !unescape(f[2], e.device) || !number(f[3], e.groupSize) ||
          !number(f[4], e.groups) || !number(f[5], e.timeNs))
        return bad("bad kernel entry");
      kernelEntries.push_back(std::move(e));
    } else if (f[0] == "edge") {
      std::string producer, consumer;
      double bytes = 0;
      if (f.size() != 4 || !unescape(f[1], producer) || !unescape(f[2], consumer) || !number(f[3], bytes))
        return bad("bad edge entry");
      edgeEntries[{producer, consumer}] = bytes;
    } else {
      return bad("unknown entry");
    }
  }
  if (lineNo == 0) return bad("empty file");

  std::lock_guard lock(mutex_);
  auto keys = deviceKeys(devices_);
  auto deviceIndex = [&](const std::string& key) -> int {
    for (unsigned d = 0; d < n_; ++d)
      if (keys[d] == key) return int(d);
    return -1;
  };
  for (const auto& [key, e] : deviceEntries) {
    int d = deviceIndex(key);
    if (d < 0) continue;
    launchLatency_[d].setPrior(e.latency);
    for (int i = 0; i < 3; ++i) transfers_.setPrior(unsigned(d), kDirections[i], e.transfers[i]);
  }
  unsigned applied = 0;
  ++modelVersion_;
  ++transferVersion_;
  for (const auto& e : kernelEntries) {
    int d = deviceIndex(e.device);
    if (d < 0 || e.groups < 1) continue;
    auto& ks = kernels_[intern(e.kernel)];
    ks.groupSize = std::max<uint64_t>(1, uint64_t(e.groupSize)); // work-items per row (otherGroups 1)
    ks.otherGroups = 1;
    if (!ks.devices[d].known()) {
      ks.devices[d].seed(uint64_t(e.groups), e.timeNs);
      ++applied;
    }
  }
  for (const auto& [names, bytes] : edgeEntries) profileEdges_[names] = bytes;
  log().info("partitioner: profile '{}' loaded ({} kernel models)", path, applied);
  return true;
}

} // namespace clsplit::partition
