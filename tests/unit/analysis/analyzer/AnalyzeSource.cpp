// Test support: source -> IR (front end) -> regions (analyzer).
#include "AnalyzeSource.h"

#include "analysis/frontend/Frontend.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace clsplit::analysis::testing {

std::vector<std::string> parameterNames(std::string_view source, std::string_view kernel) {
  auto isIdent = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  size_t at = 0;
  while ((at = source.find(kernel, at)) != std::string_view::npos) {
    size_t end = at + kernel.size();
    bool whole = (at == 0 || !isIdent(source[at - 1])) && end < source.size() && !isIdent(source[end]);
    size_t open = end;
    while (open < source.size() && std::isspace(static_cast<unsigned char>(source[open]))) ++open;
    if (!whole || open >= source.size() || source[open] != '(') {
      at = end;
      continue;
    }
    // Is this a definition preceded by `kernel`? Look back for the keyword on the same statement.
    size_t semi = source.rfind(';', at), brace = source.rfind('}', at);
    size_t from = std::max(semi == std::string_view::npos ? 0 : semi, brace == std::string_view::npos ? 0 : brace);
    std::string_view head = source.substr(from, at - from);
    if (head.find("kernel") == std::string_view::npos) {
      at = end;
      continue;
    }
    std::vector<std::string> names;
    int depth = 0;
    size_t i = open + 1, paramStart = i;
    for (; i < source.size(); ++i) {
      char c = source[i];
      if (c == '(') ++depth;
      if ((c == ',' && depth == 0) || (c == ')' && depth == 0)) {
        std::string_view p = source.substr(paramStart, i - paramStart);
        size_t e = p.size();
        while (e > 0 && !isIdent(p[e - 1])) --e;
        size_t b = e;
        while (b > 0 && isIdent(p[b - 1])) --b;
        if (e > b) names.emplace_back(p.substr(b, e - b));
        paramStart = i + 1;
        if (c == ')') break;
      }
      if (c == ')') --depth;
    }
    if (names.size() == 1 && names[0] == "void") names.clear();
    return names;
  }
  return {};
}

ModuleAnalysis analyzeSource(std::string_view source, std::string_view buildOptions) {
  llvm::LLVMContext context;
  std::string diagnostics;
  auto module = frontend::compileToIR(context, source, buildOptions, &diagnostics);
  ModuleAnalysis result;
  if (!module) {
    result.errors.push_back({{}, "compilation failed: " + diagnostics});
    return result;
  }
  AnalyzerOptions options;
  std::string text(source);
  options.argumentNames = [text](const std::string& kernel) { return parameterNames(text, kernel); };
  return analyzeModule(*module, options);
}

ProgramAnalysis analyzeProgramForTests(std::string_view source, std::string_view buildOptions) {
  ModuleAnalysis m = analyzeSource(source, buildOptions);
  ProgramAnalysis p;
  p.vendorSource = std::string(source);
  p.kernels = std::move(m.kernels);
  p.errors = std::move(m.errors);
  return p;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace clsplit::analysis::testing
