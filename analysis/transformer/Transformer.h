// The kernel transformer: rewrites a parsed program into its partition-ready vendor copy
// (hidden NDRange arguments, rewritten built-ins, clsplit pragmas removed) and describes each
// kernel's user-visible arguments. Runs as a front-end AST client (frontend::AstClient).
#pragma once

#include "analysis/Analysis.h"

#include <optional>
#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
}

namespace clsplit::analysis::frontend {
struct ParsedProgram;
}

namespace clsplit::analysis::transformer {

struct TransformedKernel {
  std::string name;
  std::vector<KernelArg> args; // user parameters, in order
  bool partitionReady = false; // its signature ends with the two hidden arguments
  // Why splitting it would change its results (it then runs whole); set even when it is
  // partition-ready, e.g. when a helper it calls could not receive the hidden arguments.
  std::optional<std::string> unsplittableReason;
  // Offset of the closing brace of its body in the main file as parsed (the analysis copy),
  // when the body is written there: where hint pragmas go.
  std::optional<unsigned> bodyEndOffset;
};

struct TransformResult {
  // The partition-ready program (when `rewritten`), else the program with only clsplit's
  // pragmas removed. Every #include the program resolved is either inlined (when clsplit had
  // to change that file) or rewritten to the absolute path that was analysed, so vendors
  // compile exactly what clsplit analysed whatever their include search rules.
  std::string vendorSource;
  // The program with only clsplit's pragmas removed (and includes handled likewise): the
  // fallback when the partition-ready copy is refused.
  std::string strippedSource;
  bool rewritten = false;
  std::string failure; // why the program could not be rewritten at all (rewritten == false)
  std::vector<TransformedKernel> kernels;
  std::vector<ExternalCall> externalCalls; // functions called, declared, defined nowhere here
  bool externalCallsKnown = true;          // false when the program had errors
  std::vector<std::string> includedFiles;  // files on disk it included (absolute paths)
};

// Never throws. When the program had errors (ParsedProgram::hasErrors) it only lists kernels.
TransformResult transformProgram(clang::CompilerInstance& compiler, const frontend::ParsedProgram& program);

} // namespace clsplit::analysis::transformer
