// Conditional chains whose branch choice may differ between vendors (see VendorConditionals.h).
#include "analysis/frontend/VendorConditionals.h"

#include <clang/Basic/SourceManager.h>
#include <clang/Lex/MacroInfo.h>
#include <clang/Lex/Preprocessor.h>

#include <cctype>

namespace clsplit::analysis::frontend {

namespace {
bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A macro of the program's recursion through macros deeper than this is taken as dependent.
constexpr unsigned kMaxMacroDepth = 32;
} // namespace

bool mayBeVendorMacro(llvm::StringRef name) {
  return name.startswith("_") || name.startswith("cl_") || name.startswith("CL_") || name.startswith("FP_FAST_FMA");
}

std::vector<std::string> conditionIdentifiers(llvm::StringRef text) {
  std::vector<std::string> names;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') break; // the directive ends here
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      i += 2;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') break;
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t close = text.find("*/", i + 2);
      i = close == llvm::StringRef::npos ? text.size() : close + 2;
      continue;
    }
    if (c == '\'' || c == '"') { // a character or string literal
      ++i;
      while (i < text.size() && text[i] != c && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
      ++i;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      while (i < text.size() && (isIdentChar(text[i]) || text[i] == '.')) ++i; // a pp-number
      continue;
    }
    if (isIdentStart(c)) {
      size_t start = i;
      while (i < text.size() && isIdentChar(text[i])) ++i;
      llvm::StringRef name = text.substr(start, i - start);
      if (name != "defined") names.push_back(name.str());
      continue;
    }
    ++i;
  }
  return names;
}

std::vector<std::string> directiveMacroNames(llvm::StringRef text) {
  std::vector<std::string> names;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    line = line.ltrim();
    if (!line.consume_front("#")) continue;
    line = line.ltrim();
    if (!line.consume_front("define") && !line.consume_front("undef")) continue;
    if (line.empty() || !(line[0] == ' ' || line[0] == '\t')) continue; // `#defined_thing`
    line = line.ltrim();
    size_t n = 0;
    while (n < line.size() && isIdentChar(line[n])) ++n;
    if (n && isIdentStart(line[0])) names.push_back(line.substr(0, n).str());
  }
  return names;
}

ConditionalRecorder::ConditionalRecorder(clang::Preprocessor& pp, ParsedProgram& program,
                                         const std::vector<std::string>& pinned)
    : pp_(pp), sm_(pp.getSourceManager()), program_(program), pinned_(pinned.begin(), pinned.end()) {
  for (const auto& macro : program.options.macros) {
    std::string name = macro.definition.substr(0, macro.definition.find('='));
    if (macro.undefine)
      commandLineMacros_.erase(name);
    else
      commandLineMacros_.insert(name);
  }
}

bool ConditionalRecorder::identifierDepends(llvm::StringRef name, unsigned depth) {
  if (depth > kMaxMacroDepth) return true;
  auto taint = tainted_.find(name.str());
  if (taint != tainted_.end() && taint->second) return true;
  clang::IdentifierInfo* id = pp_.getIdentifierInfo(name);
  const clang::MacroInfo* macro = id ? pp_.getMacroInfo(id) : nullptr;
  const bool pinned = pinned_.count(name.str()) > 0;
  if (!macro) return !pinned && mayBeVendorMacro(name);
  clang::SourceLocation at = macro->getDefinitionLoc();
  const bool programs = at.isValid() && at.isFileID() && program_.isUserFile(sm_.getFileID(at));
  if (pinned && !programs) return false;
  // -D macros sit in the predefines buffer beside the compiler's own: told apart by name.
  const bool commandLine = !programs && commandLineMacros_.count(name.str()) && !mayBeVendorMacro(name);
  if (!programs && !commandLine) return true; // predefined, or from a header of the compiler
  for (const clang::Token& token : macro->tokens()) {
    const clang::IdentifierInfo* used = token.getIdentifierInfo();
    if (!used || used->getName() == "defined") continue;
    if (macro->isFunctionLike() && macro->getParameterNum(used) >= 0) continue;
    if (identifierDepends(used->getName(), depth + 1)) return true;
  }
  return false;
}

bool ConditionalRecorder::conditionDepends(clang::SourceLocation directive) {
  // The text after the directive's name (`if`, `elif`, ...), as written: the condition range
  // Clang gives starts inside a macro expansion when the condition starts with a macro.
  if (directive.isInvalid() || !directive.isFileID()) return true;
  auto [fid, offset] = sm_.getDecomposedLoc(directive);
  bool invalid = false;
  llvm::StringRef buffer = sm_.getBufferData(fid, &invalid);
  if (invalid || offset > buffer.size()) return true;
  while (offset < buffer.size() && isIdentChar(buffer[offset])) ++offset;
  for (const std::string& name : conditionIdentifiers(buffer.substr(offset)))
    if (identifierDepends(name, 0)) return true;
  return false;
}

bool ConditionalRecorder::insideDependentBranch() const {
  for (const Chain& chain : open_)
    if (chain.dependent) return true;
  return false;
}

ConditionalRecorder::Chain* ConditionalRecorder::find(clang::SourceLocation ifLoc) {
  for (auto it = open_.rbegin(); it != open_.rend(); ++it)
    if (it->ifLoc == ifLoc) return &*it;
  return open_.empty() ? nullptr : &open_.back();
}

void ConditionalRecorder::open(clang::SourceLocation loc, bool dependent, bool taken) {
  open_.push_back(Chain{loc, dependent, taken});
}

void ConditionalRecorder::next(clang::SourceLocation ifLoc, bool dependent, bool taken) {
  Chain* chain = find(ifLoc);
  if (!chain || chain->taken) return; // nobody evaluates what follows a branch taken by all
  chain->dependent = chain->dependent || dependent;
  chain->taken = taken;
}

void ConditionalRecorder::If(clang::SourceLocation loc, clang::SourceRange condition, ConditionValueKind value) {
  open(loc, conditionDepends(loc), value == CVK_True);
}

void ConditionalRecorder::Elif(clang::SourceLocation loc, clang::SourceRange, ConditionValueKind value,
                               clang::SourceLocation ifLoc) {
  Chain* chain = find(ifLoc);
  if (chain && !chain->taken) next(ifLoc, conditionDepends(loc), value == CVK_True);
}

void ConditionalRecorder::Ifdef(clang::SourceLocation loc, const clang::Token& name, const clang::MacroDefinition& md) {
  open(loc, identifierDepends(name.getIdentifierInfo()->getName(), 0), static_cast<bool>(md));
}

void ConditionalRecorder::Ifndef(clang::SourceLocation loc, const clang::Token& name,
                                 const clang::MacroDefinition& md) {
  open(loc, identifierDepends(name.getIdentifierInfo()->getName(), 0), !md);
  if (!md) open_.back().guard = name.getIdentifierInfo()->getName().str();
}

void ConditionalRecorder::Elifdef(clang::SourceLocation, const clang::Token& name, const clang::MacroDefinition& md) {
  if (open_.empty()) return;
  next(open_.back().ifLoc, identifierDepends(name.getIdentifierInfo()->getName(), 0), static_cast<bool>(md));
}

void ConditionalRecorder::Elifdef(clang::SourceLocation loc, clang::SourceRange, clang::SourceLocation ifLoc) {
  next(ifLoc, conditionDepends(loc), false);
}

void ConditionalRecorder::Elifndef(clang::SourceLocation, const clang::Token& name, const clang::MacroDefinition& md) {
  if (open_.empty()) return;
  next(open_.back().ifLoc, identifierDepends(name.getIdentifierInfo()->getName(), 0), !md);
}

void ConditionalRecorder::Elifndef(clang::SourceLocation loc, clang::SourceRange, clang::SourceLocation ifLoc) {
  next(ifLoc, conditionDepends(loc), false);
}

void ConditionalRecorder::Else(clang::SourceLocation, clang::SourceLocation ifLoc) { next(ifLoc, false, true); }

void ConditionalRecorder::Endif(clang::SourceLocation loc, clang::SourceLocation ifLoc) {
  Chain* chain = find(ifLoc);
  if (!chain) return;
  const Chain closed = *chain;
  open_.erase(open_.begin() + (chain - open_.data()), open_.end());
  lastEndif_ = loc;
  lastEndifDependent_ = closed.dependent;
  if (!closed.ifLoc.isFileID() || !loc.isFileID()) return;
  auto [fid, ifOffset] = sm_.getDecomposedLoc(closed.ifLoc);
  auto [endFid, endOffset] = sm_.getDecomposedLoc(loc);
  if (fid != endFid || !program_.isUserFile(fid)) return;
  llvm::StringRef buffer = sm_.getBufferData(fid);
  unsigned begin = ifOffset;
  while (begin > 0 && buffer[begin - 1] != '\n') --begin; // the directive's line, with its '#'
  unsigned end = endOffset;
  while (end < buffer.size() && buffer[end] != '\n') ++end;
  program_.conditionals[fid].push_back(ConditionalChain{begin, end, closed.dependent});
}

void ConditionalRecorder::SourceRangeSkipped(clang::SourceRange range, clang::SourceLocation endifLoc) {
  // The last block of a chain is reported after its #endif closed the chain (Clang calls
  // Endif first): that chain is the one whose dependence counts.
  const bool dependent = insideDependentBranch() || (endifLoc == lastEndif_ && lastEndifDependent_);
  if (!dependent || !range.getBegin().isFileID()) return;
  auto [fid, begin] = sm_.getDecomposedLoc(range.getBegin());
  auto [endFid, end] = sm_.getDecomposedLoc(range.getEnd());
  if (fid != endFid || end < begin || !program_.isUserFile(fid)) return;
  bool invalid = false;
  llvm::StringRef buffer = sm_.getBufferData(fid, &invalid);
  if (invalid || end > buffer.size()) return;
  for (const std::string& name : directiveMacroNames(buffer.substr(begin, end - begin))) tainted_[name] = true;
}

void ConditionalRecorder::MacroDefined(const clang::Token& name, const clang::MacroDirective*) {
  const std::string defined = name.getIdentifierInfo()->getName().str();
  if (!open_.empty() && !open_.back().guard.empty()) {
    // `#ifndef __X_H__` / `#define __X_H__`: the program's include guard, not a vendor's macro
    // (NAS's headers name theirs so).
    Chain& chain = open_.back();
    if (chain.guard == defined) chain.dependent = false;
    chain.guard.clear();
  }
  if (pinnedOutsideProgram(name)) return;
  tainted_[defined] = insideDependentBranch();
}

bool ConditionalRecorder::pinnedOutsideProgram(const clang::Token& name) const {
  // A pinned macro set by clsplit's own compiler and its headers (Clang 16's opencl-c-base.h
  // takes features back under `#if defined(__undef___opencl_c_...)`): its value here is the
  // pinned one whatever those branches do; only the program's own directives can change it.
  if (!pinned_.count(name.getIdentifierInfo()->getName().str())) return false;
  const clang::SourceLocation at = name.getLocation();
  return !(at.isValid() && at.isFileID() && program_.isUserFile(sm_.getFileID(at)));
}

void ConditionalRecorder::MacroUndefined(const clang::Token& name, const clang::MacroDefinition&,
                                         const clang::MacroDirective*) {
  // Undefined here, perhaps defined for a vendor that skipped this: only the taint matters.
  if (insideDependentBranch() && !pinnedOutsideProgram(name))
    tainted_[name.getIdentifierInfo()->getName().str()] = true;
}

} // namespace clsplit::analysis::frontend
