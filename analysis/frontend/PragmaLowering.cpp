// Pragma lowering: a small C lexer that only tracks what matters for finding directives
// (comments, string/char literals, line continuations, brace depth).
#include "analysis/frontend/PragmaLowering.h"

#include <cctype>

namespace clsplit::analysis::frontend {

namespace {

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool isIdentifier(std::string_view s) {
  if (s.empty() || !isIdentStart(s[0])) return false;
  for (char c : s)
    if (!isIdentChar(c)) return false;
  return true;
}

// One directive as the preprocessor sees it: continuations joined, comments replaced by a
// space, and where it lies in the file.
struct Directive {
  size_t begin = 0, end = 0; // '#' .. newline (exclusive)
  unsigned lineCount = 1;
  std::string logical; // text after '#'
};

// Reads the directive starting at text[pos] == '#'. Block comments and continuations may
// span lines; a string literal cannot (it ends at the newline, like an unterminated one).
Directive readDirective(std::string_view text, size_t pos) {
  Directive d;
  d.begin = pos;
  size_t i = pos + 1;
  char quote = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      i += (text[i + 1] == '\r' && i + 2 < text.size() && text[i + 2] == '\n') ? 3 : 2;
      ++d.lineCount;
      continue;
    }
    if (c == '\n') break;
    if (quote) {
      d.logical += c;
      if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
        d.logical += text[++i];
      } else if (c == quote) {
        quote = 0;
      }
      ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      d.logical += c;
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
          ++d.lineCount; // a continued line comment swallows the next line
          ++i;
        }
        ++i;
      }
      break;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i += 2;
      while (i < text.size() && !(text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/')) {
        if (text[i] == '\n') ++d.lineCount;
        ++i;
      }
      i = std::min(text.size(), i + 2);
      d.logical += ' ';
      continue;
    }
    if (c != '\r') d.logical += c;
    ++i;
  }
  d.end = i;
  return d;
}

// Splits "e1, e2" / "e1 : e2" at the separator that is outside brackets. A top-level comma
// wins; otherwise the first ':' not consumed by a '?' of a conditional expression.
bool splitBounds(std::string_view inside, std::string& first, std::string& last) {
  auto scan = [&](char sep) -> size_t {
    int depth = 0, pendingQuestion = 0;
    for (size_t i = 0; i < inside.size(); ++i) {
      char c = inside[i];
      if (c == '(' || c == '[' || c == '{')
        ++depth;
      else if (c == ')' || c == ']' || c == '}')
        --depth;
      else if (depth == 0 && c == '?')
        ++pendingQuestion;
      else if (depth == 0 && c == sep) {
        if (sep == ':' && pendingQuestion > 0) {
          --pendingQuestion;
          continue;
        }
        return i;
      }
    }
    return std::string_view::npos;
  };
  size_t at = scan(',');
  if (at == std::string_view::npos) at = scan(':');
  if (at == std::string_view::npos) return false;
  first = std::string(trim(inside.substr(0, at)));
  last = std::string(trim(inside.substr(at + 1)));
  return true;
}

// Parses the arguments of read/write/atomic: `B[e1,e2] (, C[e3,e4])*`.
std::string parseRegions(std::string_view args, std::vector<PragmaRegion>& out) {
  size_t i = 0;
  auto skipSpace = [&] {
    while (i < args.size() && std::isspace(static_cast<unsigned char>(args[i]))) ++i;
  };
  while (true) {
    skipSpace();
    size_t nameBegin = i;
    while (i < args.size() && isIdentChar(args[i])) ++i;
    std::string_view name = args.substr(nameBegin, i - nameBegin);
    if (!isIdentifier(name)) return "expected a buffer name followed by [first, last]";
    skipSpace();
    if (i >= args.size() || args[i] != '[') return "expected '[' after buffer name '" + std::string(name) + "'";
    size_t open = i++;
    int depth = 1;
    while (i < args.size() && depth > 0) {
      if (args[i] == '[' || args[i] == '(')
        ++depth;
      else if (args[i] == ']' || args[i] == ')')
        --depth;
      ++i;
    }
    if (depth != 0 || args[i - 1] != ']') return "missing ']' closing the region of '" + std::string(name) + "'";
    std::string_view inside = args.substr(open + 1, i - open - 2);
    PragmaRegion region;
    region.buffer = std::string(name);
    if (!splitBounds(inside, region.first, region.last))
      return "region of '" + region.buffer + "' must be [first, last] or [first:last]";
    if (region.first.empty() || region.last.empty()) return "empty bound in the region of '" + region.buffer + "'";
    out.push_back(std::move(region));
    skipSpace();
    if (i >= args.size()) return {};
    if (args[i] != ',')
      return "unexpected '" + std::string(args.substr(i)) + "' after the region of '" + out.back().buffer + "'";
    ++i;
  }
}

// Parses the arguments of the monotone pragmas: identifiers separated by commas or spaces.
std::string parseBufferList(std::string_view args, std::vector<std::string>& out) {
  size_t i = 0;
  while (i < args.size()) {
    char c = args[i];
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
      ++i;
      continue;
    }
    size_t b = i;
    while (i < args.size() && isIdentChar(args[i])) ++i;
    std::string_view name = args.substr(b, i - b);
    if (!isIdentifier(name)) return "expected buffer names, found '" + std::string(args.substr(b)) + "'";
    out.emplace_back(name);
  }
  if (out.empty()) return "expected at least one buffer name";
  return {};
}

// Fills `record` if `d` is one of clsplit's pragmas; false for any other directive.
bool parsePragma(const Directive& d, PragmaRecord& record) {
  std::string_view s = trim(d.logical);
  if (s.substr(0, 6) != "pragma" || (s.size() > 6 && isIdentChar(s[6]))) return false;
  s = trim(s.substr(6));
  size_t n = 0;
  while (n < s.size() && isIdentChar(s[n])) ++n;
  std::string_view name = s.substr(0, n);
  std::string_view args = trim(s.substr(n));
  if (name == kReadPragma)
    record.kind = MarkerKind::Read;
  else if (name == kWritePragma)
    record.kind = MarkerKind::Write;
  else if (name == kAtomicPragma)
    record.kind = MarkerKind::Atomic;
  else if (name == kIncreasingPragma)
    record.kind = MarkerKind::Increasing;
  else if (name == kDecreasingPragma)
    record.kind = MarkerKind::Decreasing;
  else
    return false;
  record.text = "#" + std::string(trim(d.logical));
  if (record.kind == MarkerKind::Increasing || record.kind == MarkerKind::Decreasing)
    record.error = parseBufferList(args, record.buffers);
  else
    record.error = parseRegions(args, record.regions);
  if (!record.error.empty()) {
    record.regions.clear();
    record.buffers.clear();
  }
  return true;
}

bool isClangDebugPragma(const Directive& d) {
  std::string_view s = trim(d.logical);
  if (s.substr(0, 6) != "pragma") return false;
  s = trim(s.substr(6));
  if (s.substr(0, 5) != "clang" || (s.size() > 5 && isIdentChar(s[5]))) return false;
  return trim(s.substr(5)).substr(0, 7) == "__debug";
}

std::string_view markerName(MarkerKind kind) {
  switch (kind) {
  case MarkerKind::Read:
    return kReadMarker;
  case MarkerKind::Write:
    return kWriteMarker;
  case MarkerKind::Atomic:
    return kAtomicMarker;
  case MarkerKind::Increasing:
    return kIncreasingMarker;
  case MarkerKind::Decreasing:
    return kDecreasingMarker;
  }
  return kReadMarker;
}

// Replaces text[b, e) by `with` followed by as many newlines as the range held, so every later
// line keeps its number.
void replaceKeepingLines(std::string& out, std::string_view text, size_t b, size_t e, std::string_view with) {
  out += with;
  for (size_t i = b; i < e; ++i)
    if (text[i] == '\n') out += '\n';
}

} // namespace

std::string markerStatement(const PragmaRecord& pragma) {
  std::string out;
  std::string_view name = markerName(pragma.kind);
  if (pragma.kind == MarkerKind::Increasing || pragma.kind == MarkerKind::Decreasing) {
    for (const auto& b : pragma.buffers) out += std::string(name) + "(" + b + "); ";
  } else {
    for (const auto& r : pragma.regions)
      out += std::string(name) + "(" + r.buffer + ", (long)(" + r.first + "), (long)(" + r.last +
             "), (ulong)sizeof(*(" + r.buffer + "))); ";
  }
  if (!out.empty()) out.pop_back();
  return out;
}

LoweredFile lowerPragmas(std::string_view text) {
  LoweredFile result;
  int braceDepth = 0;
  bool atLineStart = true;
  unsigned line = 1;
  size_t lineBegin = 0;
  size_t copiedUpTo = 0; // text[0, copiedUpTo) is already in both outputs
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineBegin = i + 1;
      atLineStart = true;
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') { // continuation in code
      ++line;
      i += 2;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i += 2;
      while (i < text.size() && !(text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/')) {
        if (text[i] == '\n') {
          ++line;
          lineBegin = i + 1;
        }
        ++i;
      }
      i = std::min(text.size(), i + 2);
      continue; // a comment does not end "line start" (`/* x */ #pragma` is a directive)
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '#' && atLineStart) {
      Directive d = readDirective(text, i);
      PragmaRecord record;
      if (isClangDebugPragma(d)) {
        // `#pragma clang __debug crash|llvm_fatal_error|overflow_stack|...` make Clang crash,
        // abort or loop on purpose: clsplit's analysis copy does without them.
        std::string_view before = text.substr(copiedUpTo, d.begin - copiedUpTo);
        result.analysisText += before;
        result.vendorText += before;
        replaceKeepingLines(result.analysisText, text, d.begin, d.end, "");
        result.vendorText += text.substr(d.begin, d.end - d.begin);
        copiedUpTo = d.end;
      } else if (parsePragma(d, record)) {
        record.line = line;
        record.column = static_cast<unsigned>(i - lineBegin + 1);
        record.lineCount = d.lineCount;
        record.begin = d.begin;
        record.end = d.end;
        record.fileScope = braceDepth <= 0;
        std::string marker;
        if (record.error.empty() && !record.fileScope) marker = markerStatement(record);
        if (record.error.empty() && record.fileScope && !record.regions.empty())
          record.error = "#pragma " +
                         std::string(record.kind == MarkerKind::Read    ? kReadPragma
                                     : record.kind == MarkerKind::Write ? kWritePragma
                                                                        : kAtomicPragma) +
                         " must be written inside a function body";
        std::string_view before = text.substr(copiedUpTo, d.begin - copiedUpTo);
        result.analysisText += before;
        result.vendorText += before;
        record.loweredBegin = result.analysisText.size();
        replaceKeepingLines(result.analysisText, text, d.begin, d.end, marker);
        record.loweredEnd = result.analysisText.size();
        replaceKeepingLines(result.vendorText, text, d.begin, d.end, "");
        copiedUpTo = d.end;
        result.pragmas.push_back(std::move(record));
      }
      for (size_t k = d.begin; k < d.end; ++k)
        if (text[k] == '\n') {
          ++line;
          lineBegin = k + 1;
        }
      i = d.end;
      atLineStart = false;
      continue;
    }
    atLineStart = false;
    if (c == '"' || c == '\'') {
      char quote = c;
      ++i;
      while (i < text.size() && text[i] != quote && text[i] != '\n') {
        if (text[i] == '\\' && i + 1 < text.size()) {
          if (text[i + 1] == '\n') {
            ++line;
            lineBegin = i + 2;
          }
          ++i;
        }
        ++i;
      }
      if (i < text.size() && text[i] == quote) ++i;
      continue;
    }
    if (c == '{')
      ++braceDepth;
    else if (c == '}')
      --braceDepth;
    ++i;
  }
  std::string_view rest = text.substr(copiedUpTo);
  result.analysisText += rest;
  result.vendorText += rest;
  return result;
}

} // namespace clsplit::analysis::frontend
