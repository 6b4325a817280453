// Which `#if` chains of a program can take another branch on another vendor: those whose
// conditions depend on macros a vendor predefines (__OPENCL_VERSION__, extension macros,
// device-type or vendor macros), not only on the program's own macros and -D options.
#pragma once

#include "analysis/frontend/ParsedProgram.h"

#include <clang/Lex/PPCallbacks.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace clang {
class Preprocessor;
class SourceManager;
} // namespace clang

namespace clsplit::analysis::frontend {

// Whether an identifier that is not a macro here could be one elsewhere: a vendor predefines
// only names of the reserved kinds (a leading underscore, `cl_`/`CL_` extension and version
// macros, `FP_FAST_FMA*`); `#ifdef USE_CPU` with USE_CPU undefined is the same for everyone.
bool mayBeVendorMacro(llvm::StringRef name);

// The identifiers of one directive's condition text (literals, numbers and `defined` left
// out), up to the end of its logical line.
std::vector<std::string> conditionIdentifiers(llvm::StringRef text);

// The macros a block of source text defines or undefines (`#define NAME`, `# undef NAME`).
std::vector<std::string> directiveMacroNames(llvm::StringRef text);

// Records, into ParsedProgram::conditionals, every conditional chain of the program's files
// with whether some vendor could take a different branch of it than clsplit's compiler did.
// A chain depends on the vendor when a condition evaluated up to the branch taken here uses a
// macro the vendor may predefine, directly, through the program's macros, or through a macro
// the program defined or undefined inside such a chain.
class ConditionalRecorder final : public clang::PPCallbacks {
public:
  // `pinned`: predefined macros whose value (or absence) is the same on every vendor.
  ConditionalRecorder(clang::Preprocessor& pp, ParsedProgram& program, const std::vector<std::string>& pinned = {});

  void If(clang::SourceLocation loc, clang::SourceRange condition, ConditionValueKind value) override;
  void Elif(clang::SourceLocation loc, clang::SourceRange condition, ConditionValueKind value,
            clang::SourceLocation ifLoc) override;
  void Ifdef(clang::SourceLocation loc, const clang::Token& name, const clang::MacroDefinition& md) override;
  void Ifndef(clang::SourceLocation loc, const clang::Token& name, const clang::MacroDefinition& md) override;
  void Elifdef(clang::SourceLocation loc, const clang::Token& name, const clang::MacroDefinition& md) override;
  void Elifdef(clang::SourceLocation loc, clang::SourceRange condition, clang::SourceLocation ifLoc) override;
  void Elifndef(clang::SourceLocation loc, const clang::Token& name, const clang::MacroDefinition& md) override;
  void Elifndef(clang::SourceLocation loc, clang::SourceRange condition, clang::SourceLocation ifLoc) override;
  void Else(clang::SourceLocation loc, clang::SourceLocation ifLoc) override;
  void Endif(clang::SourceLocation loc, clang::SourceLocation ifLoc) override;
  // A block not compiled here: macros it (un)defines may differ for a vendor that compiles it.
  void SourceRangeSkipped(clang::SourceRange range, clang::SourceLocation endifLoc) override;
  void MacroDefined(const clang::Token& name, const clang::MacroDirective* md) override;
  void MacroUndefined(const clang::Token& name, const clang::MacroDefinition& md,
                      const clang::MacroDirective* undef) override;

private:
  struct Chain {
    clang::SourceLocation ifLoc;
    bool dependent = false; // a condition evaluated so far may differ on another vendor
    bool taken = false;     // a branch was taken here: later conditions are nobody's
    // `#ifndef X` with X undefined: an include guard if the branch's first #define is X.
    std::string guard;
  };

  void open(clang::SourceLocation loc, bool dependent, bool taken);
  void next(clang::SourceLocation ifLoc, bool dependent, bool taken);
  Chain* find(clang::SourceLocation ifLoc);
  bool conditionDepends(clang::SourceLocation directive);
  bool identifierDepends(llvm::StringRef name, unsigned depth);
  bool insideDependentBranch() const;
  // Whether `name` is a pinned macro named outside the program's own files.
  bool pinnedOutsideProgram(const clang::Token& name) const;

  clang::Preprocessor& pp_;
  clang::SourceManager& sm_;
  ParsedProgram& program_;
  std::set<std::string> commandLineMacros_; // -D names: the same text for every vendor
  std::set<std::string> pinned_;            // predefined, but the same for every vendor
  clang::SourceLocation lastEndif_;         // the #endif that closed the last chain,
  bool lastEndifDependent_ = false;         // and whether that chain was dependent
  std::map<std::string, bool> tainted_;     // macro -> (re)defined or undefined in a dependent branch
  std::vector<Chain> open_;                 // innermost last
};

} // namespace clsplit::analysis::frontend
