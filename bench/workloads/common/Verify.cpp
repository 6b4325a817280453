// Tolerance checks against a CPU reference (see Verify.h).
#include "bench/workloads/common/Verify.h"

#include "bench/workloads/common/Result.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace clsplit::bench {

static constexpr int MaxMessages = 5;

void ToleranceCheck::note(const std::string& message) {
  if (MessagesKept < MaxMessages) {
    FirstMessages += "    " + message + "\n";
    ++MessagesKept;
  }
}

bool ToleranceCheck::compare(size_t index, double got, double expected, double tolerance) {
  ++Compared;
  double error = std::fabs(got - expected);
  bool ok = std::isfinite(got) && error <= tolerance;
  if (std::isfinite(error)) {
    MaxAbsError = std::max(MaxAbsError, error);
    if (tolerance > 0) WorstRatio = std::max(WorstRatio, error / tolerance);
  }
  if (!ok) {
    ++Failures;
    std::ostringstream message;
    message.precision(9);
    message << "[" << index << "] got " << got << ", expected " << expected << " (tolerance " << tolerance << ")";
    note(message.str());
    if (!std::isfinite(got) || !std::isfinite(error)) WorstRatio = INFINITY;
  }
  return ok;
}

bool ToleranceCheck::exact(size_t index, long long got, long long expected) {
  ++Compared;
  if (got == expected) return true;
  ++Failures;
  WorstRatio = INFINITY;
  note("[" + std::to_string(index) + "] got " + std::to_string(got) + ", expected " + std::to_string(expected));
  return false;
}

void ToleranceCheck::fail(const std::string& message) {
  ++Failures;
  WorstRatio = INFINITY;
  note(message);
}

void ToleranceCheck::merge(const ToleranceCheck& other) {
  Failures += other.Failures;
  Compared += other.Compared;
  MaxAbsError = std::max(MaxAbsError, other.MaxAbsError);
  WorstRatio = std::max(WorstRatio, other.WorstRatio);
  for (size_t pos = 0; pos < other.FirstMessages.size() && MessagesKept < MaxMessages;) {
    size_t end = other.FirstMessages.find('\n', pos);
    FirstMessages += other.FirstMessages.substr(pos, end - pos + 1);
    ++MessagesKept;
    pos = end + 1;
  }
}

void ToleranceCheck::print() const {
  if (passed())
    std::printf("VERIFY %s: ok (%zu values, max |err| %.3g, worst err/tol %.3g)\n", What.c_str(), Compared, MaxAbsError,
                WorstRatio);
  else
    std::printf("VERIFY %s: FAILED (%zu of %zu values; max |err| %.3g)\n%s", What.c_str(), Failures, Compared,
                MaxAbsError, FirstMessages.c_str());
  std::fflush(stdout);
}

void record(RunResult& result, const ToleranceCheck& check) {
  check.print();
  result.Verified = (result.ChecksRecorded == 0 || result.Verified) && check.passed();
  ++result.ChecksRecorded;
  result.MaxError = std::max(result.MaxError, check.maxAbsError());
  result.WorstRatio = std::max(result.WorstRatio, check.worstRatio());
}

} // namespace clsplit::bench
