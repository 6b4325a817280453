// Hint files: reading, section handling, digest.
#include "analysis/frontend/Hints.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace clsplit::analysis::frontend {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// `defaultKernel` empty: lines outside sections apply to every kernel of `kernelNames`.
void readFile(const std::filesystem::path& path, const std::string& defaultKernel,
              const std::vector<std::string>& kernelNames, ProgramHints& out) {
  std::ifstream in(path);
  if (!in) return;
  std::string line;
  unsigned number = 0;
  std::string section = defaultKernel;
  bool inSection = false;
  while (std::getline(in, line)) {
    ++number;
    std::string t = trim(line);
    if (t.empty() || t.rfind("//", 0) == 0) continue;
    SourceLocation where{path.string(), number, 1};
    if (t.front() == '[') {
      std::string inner = t.back() == ']' ? trim(t.substr(1, t.size() - 2)) : std::string();
      if (inner.rfind("kernel", 0) != 0 || trim(inner.substr(6)).empty()) {
        out.errors.push_back({where, "expected '[kernel NAME]', found '" + t + "'"});
        continue;
      }
      section = trim(inner.substr(6));
      inSection = true;
      continue;
    }
    if (t.front() != '#') {
      out.errors.push_back({where, "expected a '#pragma' line, found '" + t + "'"});
      continue;
    }
    HintLine hint{path.string(), number, t};
    if (inSection || !section.empty()) {
      if (std::find(kernelNames.begin(), kernelNames.end(), section) != kernelNames.end())
        out.kernels[section].push_back(hint);
      else if (inSection)
        out.errors.push_back({where, "the program has no kernel named '" + section + "'"});
    } else {
      for (const auto& k : kernelNames) out.kernels[k].push_back(hint);
    }
  }
}

} // namespace

ProgramHints readHints(const std::string& directory, const std::string& programHash,
                       const std::vector<std::string>& kernelNames) {
  ProgramHints hints;
  if (directory.empty()) return hints;
  std::filesystem::path dir(directory);
  readFile(dir / (programHash + ".hints"), "", kernelNames, hints);
  for (const auto& k : kernelNames) readFile(dir / (k + ".hints"), k, kernelNames, hints);
  return hints;
}

std::string hintsDigest(const std::string& directory) {
  if (directory.empty()) return {};
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec))
    if (entry.path().extension() == ".hints") files.push_back(entry.path());
  if (files.empty()) return {};
  std::sort(files.begin(), files.end());
  std::string digest;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    digest += f.filename().string() + '\0' + std::to_string(content.str().size()) + '\0' + content.str();
  }
  return digest;
}

} // namespace clsplit::analysis::frontend
