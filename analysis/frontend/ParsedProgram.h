// What the front end learned about a program's files while parsing it: which files clsplit
// changed (pragmas), how they include each other, which blocks the preprocessor skipped.
// Handed, with the Clang AST, to AST clients such as the transformer.
#pragma once

#include "analysis/frontend/BuildOptions.h"
#include "analysis/frontend/PragmaLowering.h"

#include <clang/Basic/SourceLocation.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace clsplit::analysis::frontend {

// One #include directive the preprocessor processed in a user file (main or included).
struct IncludeRecord {
  clang::FileID includer;
  unsigned hashOffset = 0;  // the '#' in the includer's buffer
  unsigned endOffset = 0;   // end of the directive's line (the newline is not included)
  std::string resolvedPath; // absolute path of the file found, "" if none
  clang::FileID included;   // invalid when skipped (include guard, #pragma once)
};

// One #if/#ifdef ... #endif chain of a user file: from the start of its first directive's line
// to the end of its #endif line, and whether another vendor could take another branch of it
// (see VendorConditionals.h).
struct ConditionalChain {
  unsigned begin = 0;
  unsigned end = 0;
  bool vendorDependent = true;
};

struct ParsedProgram {
  clang::FileID mainFile;
  BuildOptions options;
  // User files in the order the preprocessor entered them (main first). A file included
  // twice appears twice, with two FileIDs.
  std::vector<clang::FileID> userFiles;
  // The clsplit view of each user file whose text clsplit changed (it holds pragmas). The
  // buffer Clang parsed for that FileID is `analysisText` (PragmaRecord::loweredBegin/End
  // locate each pragma in it).
  std::map<clang::FileID, std::shared_ptr<const LoweredFile>> lowered;
  std::vector<IncludeRecord> includes;
  // Byte ranges the preprocessor skipped (#if 0 ...), per file.
  std::map<clang::FileID, std::vector<std::pair<unsigned, unsigned>>> skipped;
  // Every conditional chain closed in a user file, per file (inner chains before outer ones).
  std::map<clang::FileID, std::vector<ConditionalChain>> conditionals;
  bool hasErrors = false; // Clang reported errors: the AST may be incomplete
  // One unit of clCompileProgram: other units may call its functions of external linkage.
  bool compiledUnit = false;
  // Entries of the embedded headers clCompileProgram was given (in userFiles): no vendor finds
  // them on disk, so the vendor copy inlines them.
  std::set<clang::FileID> embeddedFiles;

  bool isUserFile(clang::FileID id) const {
    for (auto f : userFiles)
      if (f == id) return true;
    return false;
  }
  bool isSkipped(clang::FileID id, unsigned offset) const {
    auto it = skipped.find(id);
    if (it == skipped.end()) return false;
    for (auto [b, e] : it->second)
      if (offset >= b && offset < e) return true;
    return false;
  }
  // Whether the code skipped at `offset` of `file` may be compiled by another vendor: the
  // innermost chain holding it depends on the vendor (or no chain is known there).
  bool vendorMayCompile(clang::FileID file, unsigned offset) const {
    auto it = conditionals.find(file);
    if (it == conditionals.end()) return true;
    const ConditionalChain* innermost = nullptr;
    for (const auto& c : it->second)
      if (offset >= c.begin && offset < c.end && (!innermost || c.end - c.begin < innermost->end - innermost->begin))
        innermost = &c;
    return !innermost || innermost->vendorDependent;
  }
  // The pragma whose directive covers `offset` of `file`, if any.
  const PragmaRecord* pragmaAt(clang::FileID file, unsigned offset) const {
    auto it = lowered.find(file);
    if (it == lowered.end()) return nullptr;
    for (const auto& p : it->second->pragmas)
      if (offset >= p.loweredBegin && offset <= p.loweredEnd) return &p;
    return nullptr;
  }
};

} // namespace clsplit::analysis::frontend
