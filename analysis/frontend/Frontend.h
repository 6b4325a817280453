// clsplit's OpenCL C front end: compiles a program's *analysis copy* (clsplit pragmas lowered
// to marker calls, see PragmaMarkers.h) with Clang 16 to LLVM IR for the analyzer, and hands
// the Clang AST to AST clients (the transformer). Headers come from the library itself.
//
// IR contract (what compileToIR returns, when CompileOptions::simplifyIR is true):
//  - target spir64-unknown-unknown: address space 1 = __global, 2 = __constant, 3 = __local,
//    0 = private; kernels have calling convention spir_kernel and keep their source names;
//    kernel arguments are in source order, one IR argument per OpenCL parameter;
//  - the front end has already made every function SSA and fully inlined: every call to a
//    program function (helpers, and kernels called from kernels) is always-inlined, helpers
//    are then deleted, and SROA, EarlyCSE, InstCombine, SimplifyCFG, LoopSimplify and LCSSA
//    run on each kernel. The analyzer may run more passes itself;
//  - `#pragma clang __debug ...` lines are dropped (they crash or hang Clang on purpose);
//  - OpenCL built-ins stay external calls with mangled names (get_global_id -> _Z13get_global_idj);
//  - debug line locations (!dbg) give the source line of every instruction (line tables
//    only); lines are those of the user's source, pragmas included;
//  - clsplit pragmas appear as calls to the markers of PragmaMarkers.h.
// With simplifyIR false the IR is Clang's unoptimised output (allocas, no inlining, but
// without optnone/noinline, so any pipeline can run on it).
#pragma once

#include "analysis/Analysis.h"
#include "analysis/frontend/PragmaLowering.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace clang {
class CompilerInstance;
}
namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace clsplit::analysis::frontend {

struct ParsedProgram;

// Runs once the whole translation unit is parsed, while the AST and SourceManager are alive
// (also when Clang reported errors: check ParsedProgram::hasErrors).
using AstClient = std::function<void(clang::CompilerInstance&, const ParsedProgram&)>;

// A pragma to apply as if written at `offset` of the program's source (a hint; the offset
// must be in the analysis copy, e.g. the closing brace of a kernel body the AST showed).
struct InjectedPragma {
  unsigned offset = 0;
  std::string text;   // "#pragma read B[0, n - 1]"
  std::string origin; // where it comes from, for diagnostics (a hint file)
  unsigned line = 0;  // line in `origin`
};

struct CompileOptions {
  bool emitIR = true;                          // false: parse and check only
  bool simplifyIR = true;                      // see the IR contract above
  bool lowerPragmas = true;                    // false: compile the text as it is (e.g. to check a vendor copy)
  AstClient astClient;                         // optional
  std::vector<InjectedPragma> injectedPragmas; // lowered into the analysis copy too
  // Predefined macros whose value, or absence, is the same for every vendor and in this
  // compile (the reported device's: its builds pin them, and so do the -D/-U options here):
  // `#if` chains on them take the same branch everywhere (ConditionalRecorder).
  std::vector<std::string> pinnedMacros;
  // Text included after Clang's default header and before the program (the reported device's
  // macros: analysis::AnalysisOptions::devicePrelude).
  std::string prelude;
  // A unit of clCompileProgram (ParsedProgram::compiledUnit) and its embedded headers
  // (analysis::AnalysisOptions::headers).
  bool compiledUnit = false;
  std::vector<std::pair<std::string, std::string>> headers;
};

struct CompileResult {
  CompileResult();
  CompileResult(CompileResult&&) noexcept;
  CompileResult& operator=(CompileResult&&) noexcept;
  ~CompileResult(); // out of line: llvm::Module is incomplete here

  std::unique_ptr<llvm::Module> module; // null unless the program compiled without errors
  // Malformed clsplit pragmas (syntax, unknown buffer, expression that does not compile,
  // misplaced): the program's build must fail with these.
  std::vector<Diagnostic> pragmaErrors;
  // Every other error Clang reported (the program may still be valid for a vendor compiler).
  std::vector<Diagnostic> errors;
  std::vector<Diagnostic> warnings;
  std::string log; // all diagnostics, one per line, "file:line:col: level: message"
  // Pragmas found in the files that were compiled (active or not), for reports and tests.
  std::vector<PragmaRecord> pragmas;
  bool crashed = false; // Clang hit a fatal error or crashed; nothing else is meaningful

  bool ok() const { return !crashed && errors.empty() && pragmaErrors.empty(); }
};

// Compiles `source` (a whole OpenCL C program) with the clBuildProgram option string
// `buildOptions`. Never throws and never aborts the process on a Clang fatal error or crash.
// Thread-safe (calls are serialised: Clang's crash recovery is process-global).
CompileResult compile(llvm::LLVMContext& context, std::string_view source, std::string_view buildOptions,
                      const CompileOptions& options = {});

// The analyzer's entry point: the analysis copy of `source` as simplified IR (see above), or
// null on any error, with every diagnostic appended to *diagnostics when given.
std::unique_ptr<llvm::Module> compileToIR(llvm::LLVMContext& context, std::string_view source,
                                          std::string_view buildOptions, std::string* diagnostics = nullptr);

// Runs `work` on a thread with a large stack, with LLVM fatal errors and crashes (SIGSEGV,
// ...) contained: returns false (and why, when asked) instead of ending the process. State the
// work leaves behind when interrupted is leaked. Serialised with compile() (one lock): never
// call it from inside compile(), e.g. from an AstClient. For LLVM-based work outside
// compile(), e.g. the analyzer.
bool runGuarded(const std::function<void()>& work, std::string* failure = nullptr);

// How many times Clang was run in this process (tests use it to prove a cache hit is free).
uint64_t clangInvocationCount();

} // namespace clsplit::analysis::frontend
