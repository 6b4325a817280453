// Command-line parsing for the workloads (see Args.h).
#include "bench/workloads/common/Args.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace clsplit::bench {

ArgParser::ArgParser(int argc, char** argv, std::string description)
    : ProgramName(argc > 0 ? argv[0] : "workload"), Description(std::move(description)) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      HelpRequested = true;
      continue;
    }
    // Split --name=value into two tokens so that both spellings share one code path.
    auto eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      Args.push_back(arg.substr(0, eq));
      Args.push_back(arg.substr(eq + 1));
    } else {
      Args.push_back(arg);
    }
  }
  Consumed.assign(Args.size(), false);
}

std::optional<std::string> ArgParser::take(const std::string& name) {
  std::optional<std::string> value;
  for (size_t i = 0; i < Args.size(); ++i) {
    if (Consumed[i] || Args[i] != name) continue;
    if (i + 1 >= Args.size()) throw UsageError(name + " needs a value");
    Consumed[i] = Consumed[i + 1] = true;
    value = Args[i + 1]; // the last occurrence wins, as with most command-line tools
    ++i;
  }
  return value;
}

static long parseLong(const std::string& name, const std::string& text, long min, long max) {
  errno = 0;
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0' || errno == ERANGE) throw UsageError(name + ": '" + text + "' is not an integer");
  if (value < min || value > max)
    throw UsageError(name + ": " + text + " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return value;
}

long ArgParser::integer(const std::string& name, long defaultValue, long min, long max, const std::string& help) {
  HelpLines.push_back(name + " N   " + help + " (default " + std::to_string(defaultValue) + ")");
  auto text = take(name);
  return text ? parseLong(name, *text, min, max) : defaultValue;
}

std::optional<long> ArgParser::optionalInteger(const std::string& name, long min, long max, const std::string& help) {
  HelpLines.push_back(name + " N   " + help);
  auto text = take(name);
  if (!text) return std::nullopt;
  return parseLong(name, *text, min, max);
}

double ArgParser::real(const std::string& name, double defaultValue, double min, double max, const std::string& help) {
  std::ostringstream line;
  line << name << " X   " << help << " (default " << defaultValue << ")";
  HelpLines.push_back(line.str());
  auto text = take(name);
  if (!text) return defaultValue;
  char* end = nullptr;
  double value = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0') throw UsageError(name + ": '" + *text + "' is not a number");
  if (!(value >= min && value <= max)) throw UsageError(name + ": " + *text + " is out of range");
  return value;
}

static std::string joinChoices(const std::vector<std::string>& allowed) {
  std::string joined;
  for (const auto& a : allowed) joined += (joined.empty() ? "" : "|") + a;
  return joined;
}

std::string ArgParser::choice(const std::string& name, const std::string& defaultValue,
                              const std::vector<std::string>& allowed, const std::string& help) {
  auto value = optionalChoice(name, allowed, help);
  HelpLines.back() += " (default " + defaultValue + ")";
  return value.value_or(defaultValue);
}

std::optional<std::string> ArgParser::optionalChoice(const std::string& name, const std::vector<std::string>& allowed,
                                                     const std::string& help) {
  HelpLines.push_back(name + " " + joinChoices(allowed) + "   " + help);
  auto text = take(name);
  if (!text) return std::nullopt;
  for (const auto& a : allowed)
    if (*text == a) return text;
  throw UsageError(name + ": '" + *text + "' is not one of " + joinChoices(allowed));
}

std::string ArgParser::usage() const {
  std::string text = "usage: " + ProgramName + " [options]\n" + Description + "\n";
  for (const auto& line : HelpLines) text += "  " + line + "\n";
  return text;
}

void ArgParser::finish() {
  if (HelpRequested) {
    std::fputs(usage().c_str(), stdout);
    std::exit(0);
  }
  for (size_t i = 0; i < Args.size(); ++i)
    if (!Consumed[i]) throw UsageError("unexpected argument '" + Args[i] + "'");
}

} // namespace clsplit::bench
