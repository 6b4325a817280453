// Strategy names: parsing "single", "uniform", "static:r0,r1,...", "adaptive", "adaptive-comm"
// (and their small extensions), printing them back, and the one-line descriptions.
#include "partitioner/Partitioner.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace clsplit::partition {

namespace {

bool fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

// Strict number parsing: the whole token must be a finite number.
bool parseNumber(const std::string& token, double& out) {
  if (token.empty()) return false;
  const char* begin = token.c_str();
  char* end = nullptr;
  errno = 0;
  out = std::strtod(begin, &end);
  return errno == 0 && end == begin + token.size() && std::isfinite(out);
}

bool parseStatic(const std::string& list, StrategySpec& spec, std::string* error) {
  if (list.empty()) return fail(error, "static needs ratios, e.g. static:0.7,0.3");
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    std::string token = list.substr(start, comma == std::string::npos ? comma : comma - start);
    double r = 0;
    if (!parseNumber(token, r)) return fail(error, "static: '" + token + "' is not a number");
    if (r < 0) return fail(error, "static: ratio " + token + " is negative");
    spec.staticRatios.push_back(r);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  double sum = 0;
  for (double r : spec.staticRatios) sum += r;
  if (!(sum > 0)) return fail(error, "static: ratios must not all be zero");
  return true;
}

} // namespace

std::optional<StrategySpec> StrategySpec::parse(const std::string& text, std::string* error) {
  StrategySpec spec;
  std::string name = text, argument;
  bool hasArgument = false;
  if (auto colon = text.find(':'); colon != std::string::npos) {
    name = text.substr(0, colon);
    argument = text.substr(colon + 1);
    hasArgument = true;
  }
  if (name == "single") {
    spec.kind = StrategyKind::Single;
    if (hasArgument) {
      double d = 0;
      if (!parseNumber(argument, d) || d < 0 || d != std::floor(d) || d > 1e6) {
        fail(error, "single: '" + argument + "' is not a device index");
        return std::nullopt;
      }
      spec.singleDevice = static_cast<unsigned>(d);
      spec.singleDeviceNamed = true;
    }
    return spec;
  }
  if (name == "uniform" && !hasArgument) {
    spec.kind = StrategyKind::Uniform;
    return spec;
  }
  if (name == "static") {
    spec.kind = StrategyKind::Static;
    if (!parseStatic(argument, spec, error)) return std::nullopt;
    return spec;
  }
  if (name == "adaptive") {
    spec.kind = StrategyKind::Adaptive;
    if (hasArgument && argument == "broyden") {
      spec.broyden = true;
    } else if (hasArgument && argument != "fixed-point") {
      fail(error, "adaptive: unknown method '" + argument + "' (fixed-point or broyden)");
      return std::nullopt;
    }
    return spec;
  }
  if (name == "adaptive-comm" && !hasArgument) {
    spec.kind = StrategyKind::AdaptiveComm;
    return spec;
  }
  std::string known;
  for (const auto& [n, d] : strategyDescriptions()) known += (known.empty() ? "" : ", ") + n;
  fail(error, "unknown strategy '" + text + "' (known: " + known + ")");
  return std::nullopt;
}

std::string StrategySpec::mismatch(size_t devices) const {
  if (kind == StrategyKind::Static) {
    if (staticRatios.size() != devices)
      return "static gives " + std::to_string(staticRatios.size()) + " ratios for " + std::to_string(devices) +
             " devices";
    double sum = 0;
    for (double r : staticRatios) {
      if (!std::isfinite(r) || r < 0) return "static ratios must be finite and >= 0";
      sum += r;
    }
    if (!(sum > 0)) return "static ratios are all zero";
  }
  if (kind == StrategyKind::Single && singleDevice >= devices)
    return "single device " + std::to_string(singleDevice) + " out of range (" + std::to_string(devices) + " devices)";
  return {};
}

std::optional<std::vector<double>> StrategySpec::fixedRatios(unsigned devices) const {
  if (adaptive()) return std::nullopt;
  std::vector<double> r(devices, kind == StrategyKind::Uniform ? 1.0 / devices : 0.0);
  if (kind == StrategyKind::Single) r[std::min<size_t>(singleDevice, devices - 1)] = 1;
  if (kind == StrategyKind::Static)
    for (size_t d = 0; d < devices && d < staticRatios.size(); ++d) r[d] = staticRatios[d];
  return r;
}

std::optional<unsigned> StrategySpec::fixedDevice(unsigned devices) const {
  if (kind == StrategyKind::Single) return std::min(singleDevice, devices - 1);
  if (kind == StrategyKind::Static && !staticRatios.empty()) // a zero share means "not this device"
    return std::min(devices - 1,
                    unsigned(std::max_element(staticRatios.begin(), staticRatios.end()) - staticRatios.begin()));
  return std::nullopt;
}

std::string StrategySpec::str() const {
  switch (kind) {
  case StrategyKind::Single:
    return singleDeviceNamed ? "single:" + std::to_string(singleDevice) : "single";
  case StrategyKind::Uniform:
    return "uniform";
  case StrategyKind::Static: {
    std::string s = "static:";
    for (size_t i = 0; i < staticRatios.size(); ++i) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", staticRatios[i]);
      s += (i ? "," : "") + std::string(buf);
    }
    return s;
  }
  case StrategyKind::Adaptive:
    return broyden ? "adaptive:broyden" : "adaptive";
  case StrategyKind::AdaptiveComm:
    return "adaptive-comm";
  }
  return "?";
}

std::vector<std::pair<std::string, std::string>> strategyDescriptions() {
  return {
      {"single", "run every kernel whole on one device (single:N: device N of --list-devices; default: "
                 "CLSPLIT_SINGLE_DEVICE, else the first selected)"},
      {"uniform", "split every kernel into equal shares, one per device"},
      {"static", "split every kernel by fixed ratios, e.g. static:0.7,0.3 (one per device)"},
      {"adaptive", "per-kernel load balancing from measured kernel times, no transfer costs "
                   "(adaptive:broyden for Broyden updates)"},
      {"adaptive-comm", "default: one linear program over the detected kernel sequence, minimising compute plus "
                        "transfer time from measured timings and volumes"},
  };
}

} // namespace clsplit::partition
