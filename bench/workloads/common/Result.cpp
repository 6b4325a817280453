// The RESULT line and the exception-to-exit-status wrapper (see Result.h).
#include "bench/workloads/common/Result.h"

#include "bench/workloads/common/Args.h"
#include "bench/workloads/common/ClError.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <exception>

namespace clsplit::bench {

/// Values must not contain blanks or '=' so that the line splits trivially.
static std::string token(const std::string& text) {
  std::string out;
  for (char c : text) out += (std::isspace(static_cast<unsigned char>(c)) || c == '=') ? '_' : c;
  return out.empty() ? "-" : out;
}

void printResult(const RunResult& r) {
  std::string line = "RESULT workload=" + token(r.Workload);
  if (!r.Variant.empty()) line += " variant=" + token(r.Variant);
  char numbers[256];
  std::snprintf(numbers, sizeof numbers, " size=%ld iters=%d seconds=%.6f total_seconds=%.6f verified=%d", r.Size,
                r.Iterations, r.Seconds, r.TotalSeconds, r.Verified ? 1 : 0);
  line += numbers;
  line += " check=" + token(r.Check);
  std::snprintf(numbers, sizeof numbers, " max_err=%.3g err_ratio=%.3g", r.MaxError,
                std::isfinite(r.WorstRatio) ? r.WorstRatio : 1e300);
  line += numbers;
  for (const auto& [key, value] : r.Extra) line += " " + token(key) + "=" + token(value);
  line += " device=" + token(r.Device) + " platform=" + token(r.Platform);
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

int guardedMain(const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s (run with --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 3;
  }
}

} // namespace clsplit::bench
