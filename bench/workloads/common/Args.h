// Command-line parsing for the workloads: `--name value` or `--name=value`, typed getters with
// range checks, and a usage text built from what the program asked for.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace clsplit::bench {

/// Thrown for malformed command lines; main() turns it into the usage text and exit status 2.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class ArgParser {
public:
  ArgParser(int argc, char** argv, std::string description);

  long integer(const std::string& name, long defaultValue, long min, long max, const std::string& help);
  std::optional<long> optionalInteger(const std::string& name, long min, long max, const std::string& help);
  double real(const std::string& name, double defaultValue, double min, double max, const std::string& help);
  std::string choice(const std::string& name, const std::string& defaultValue, const std::vector<std::string>& allowed,
                     const std::string& help);
  std::optional<std::string> optionalChoice(const std::string& name, const std::vector<std::string>& allowed,
                                            const std::string& help);

  /// Rejects anything not consumed by a getter; prints the usage and exits 0 on --help.
  void finish();

  std::string usage() const;
  const std::string& programName() const { return ProgramName; }

private:
  std::optional<std::string> take(const std::string& name);

  std::string ProgramName;
  std::string Description;
  std::vector<std::string> Args;
  std::vector<bool> Consumed;
  std::vector<std::string> HelpLines;
  bool HelpRequested = false;
};

} // namespace clsplit::bench
