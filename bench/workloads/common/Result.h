// The one machine-readable line every workload prints, and the main() wrapper that turns
// errors into exit statuses: 0 verified, 1 verification failed, 2 bad command line,
// 3 OpenCL or other runtime error.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace clsplit::bench {

struct RunResult {
  std::string Workload;
  std::string Variant; ///< empty when the workload has a single variant
  long Size = 0;
  int Iterations = 0;
  double Seconds = 0;      ///< timed region: first iteration's enqueue to the final blocking read
  double TotalSeconds = 0; ///< the same plus the initial host-to-device writes
  bool Verified = false;
  std::string Check;     ///< how it was verified: full | sampled | ... (see the workload)
  double MaxError = 0;   ///< largest |device - reference| over all checks
  double WorstRatio = 0; ///< largest error / tolerance over all checks (<= 1 when verified)
  std::string Device;
  std::string Platform;
  std::vector<std::pair<std::string, std::string>> Extra; ///< workload-specific key=value
  int ChecksRecorded = 0;
};

/// Prints "RESULT workload=... size=... iters=... seconds=... verified=0|1 ..." on stdout.
void printResult(const RunResult& result);

/// Runs \p body and maps exceptions to exit statuses; body returns 0 (verified) or 1.
int guardedMain(const std::function<int()>& body);

} // namespace clsplit::bench
