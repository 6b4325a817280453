// Parsing of clBuildProgram option strings (OpenCL 1.2 spec, section 5.6.4).
#include "analysis/frontend/BuildOptions.h"

#include "support/Log.h"

#include <algorithm>
#include <array>
#include <optional>

namespace clsplit::analysis::frontend {

namespace {

// Options Clang accepts verbatim and that can change what the program means.
constexpr std::array<std::string_view, 9> kSemanticFlags = {
    "-cl-single-precision-constant",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-mad-enable",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-cl-uniform-work-group-size",
    "-cl-strict-aliasing",
};

OpenCLVersion parseClStd(std::string_view value) { // as Clang spells them, either case
  if (value == "CL" || value == "cl" || value == "CL1.0" || value == "cl1.0") return 100;
  if (value == "CL1.1" || value == "cl1.1") return 110;
  if (value == "CL1.2" || value == "cl1.2") return 120;
  if (value == "CL2.0" || value == "cl2.0") return 200;
  if (value == "CL3.0" || value == "cl3.0") return 300;
  return 0;
}

bool isMacroName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

} // namespace

std::vector<std::string> splitOptionWords(std::string_view options) {
  std::vector<std::string> words;
  std::string current;
  bool inWord = false;
  char quote = 0;
  for (size_t i = 0; i < options.size(); ++i) {
    char c = options[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < options.size() &&
                 (options[i + 1] == '"' || options[i + 1] == '\\')) {
        current += options[++i];
      } else {
        current += c;
      }
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (inWord) words.push_back(std::move(current));
      current.clear();
      inWord = false;
      continue;
    }
    inWord = true;
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '\\' && i + 1 < options.size()) {
      current += options[++i];
    } else {
      current += c;
    }
  }
  if (inWord) words.push_back(std::move(current));
  return words;
}

BuildOptions parseBuildOptions(std::string_view options) {
  BuildOptions out;
  std::vector<std::string> words = splitOptionWords(options);
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    // Options whose value may be attached ("-DX") or the next word ("-D X").
    auto value = [&](std::string_view flag) -> std::optional<std::string> {
      if (w.size() > flag.size()) return w.substr(flag.size());
      if (i + 1 < words.size()) return words[++i];
      return std::nullopt;
    };
    if (w.rfind("-D", 0) == 0 || w.rfind("-U", 0) == 0) {
      bool undefine = w[1] == 'U';
      auto def = value(undefine ? "-U" : "-D");
      std::string_view name = def ? std::string_view(*def).substr(0, def->find('=')) : "";
      if (def && isMacroName(name) && !(undefine && def->find('=') != std::string::npos)) {
        out.macros.push_back({*def, undefine});
      } else {
        out.ignored.push_back(w + (def ? " " + *def : std::string()));
        log().debug("clsplit front end: ignoring malformed macro option '{}'", out.ignored.back());
      }
    } else if (w.rfind("-I", 0) == 0) {
      if (auto dir = value("-I"); dir && !dir->empty()) out.includeDirs.push_back(*dir);
    } else if (w.rfind("-cl-std=", 0) == 0) {
      OpenCLVersion v = parseClStd(std::string_view(w).substr(8));
      if (v) {
        out.clStd = v;
      } else {
        out.ignored.push_back(w);
        log().debug("clsplit front end: unsupported '{}', analysing as OpenCL C 1.2", w);
      }
    } else if (std::find(kSemanticFlags.begin(), kSemanticFlags.end(), w) != kSemanticFlags.end()) {
      out.semanticFlags.push_back(w);
    } else if (w == "-cl-opt-disable") {
      out.optimizationDisabled = true;
    } else if (w == "-w") {
      out.suppressWarnings = true;
    } else if (w == "-Werror") {
      out.warningsAsErrors = true;
    } else {
      out.ignored.push_back(w);
      log().debug("clsplit front end: ignoring build option '{}'", w);
    }
  }
  return out;
}

} // namespace clsplit::analysis::frontend
