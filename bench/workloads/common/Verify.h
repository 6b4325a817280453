// Tolerance checks against a CPU reference. Each workload states (and justifies in a comment)
// the tolerance it passes; this class counts mismatches, keeps the worst error and reports the
// first few so that a failing run says where it went wrong.
#pragma once

#include <cstddef>
#include <string>

namespace clsplit::bench {

struct RunResult;

class ToleranceCheck {
public:
  explicit ToleranceCheck(std::string what) : What(std::move(what)) {}

  /// Passes when |got - expected| <= tolerance; NaN or infinity never passes.
  bool compare(size_t index, double got, double expected, double tolerance);
  /// Integer equality (counts, indices, permutations).
  bool exact(size_t index, long long got, long long expected);
  /// A failed structural property (e.g. "atom 17 appears twice").
  void fail(const std::string& message);
  /// Folds in a check done on another thread (same kind of comparisons).
  void merge(const ToleranceCheck& other);

  bool passed() const { return Failures == 0; }
  size_t failures() const { return Failures; }
  size_t compared() const { return Compared; }
  double maxAbsError() const { return MaxAbsError; }
  /// Largest |error| / tolerance seen; <= 1 on success. 0 when nothing was compared.
  double worstRatio() const { return WorstRatio; }
  /// One line: "VERIFY <what>: ok (...)" or "VERIFY <what>: FAILED ...", printed to stdout.
  void print() const;

private:
  void note(const std::string& message);

  std::string What;
  size_t Failures = 0;
  size_t Compared = 0;
  double MaxAbsError = 0;
  double WorstRatio = 0;
  std::string FirstMessages;
  int MessagesKept = 0;
};

/// Prints \p check's VERIFY line and folds it into \p result: verified only if every recorded
/// check passed.
void record(RunResult& result, const ToleranceCheck& check);

} // namespace clsplit::bench
