// The analysis proper (analyzeUncached): front end (pragma lowering, Clang, IR) with the
// transformer on its AST -> check that the vendor copy compiles -> analyzer. Every failure
// degrades to "run whole": original (or pragma-free) source, kernels unsplit. Clang and LLVM.
#include "analysis/Analysis.h"

#include "analysis/analyzer/KernelAnalyzer.h"
#include "analysis/frontend/Frontend.h"
#include "analysis/frontend/Hints.h"
#include "analysis/frontend/ParsedProgram.h"
#include "analysis/transformer/Transformer.h"
#include "support/Log.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <memory>

#ifndef CLSPLIT_VERSION
#define CLSPLIT_VERSION "unknown"
#endif

namespace clsplit::analysis {

namespace {

std::string firstMessage(const std::vector<Diagnostic>& list) {
  if (list.empty()) return "unknown error";
  const Diagnostic& d = list.front();
  std::string where =
      d.where.line ? (d.where.file.empty() ? "line " : d.where.file + ":") + std::to_string(d.where.line) + ": " : "";
  return where + d.message;
}

// Runs the analyzer (analysis/analyzer/) on the program's IR and merges its per-kernel
// regions, reasons and imprecisions into `result`; false when the analyzer itself failed.
bool attachRegions(ProgramAnalysis& result, const llvm::Module& module) {
  AnalyzerOptions options;
  std::map<std::string, std::vector<std::string>> names;
  for (const auto& k : result.kernels)
    for (const auto& a : k.args) names[k.name].push_back(a.name);
  options.argumentNames = [&names](const std::string& kernel) {
    auto it = names.find(kernel);
    return it == names.end() ? std::vector<std::string>{} : it->second;
  };
  // On the heap: if the analyzer dies half-way, its partial state is leaked, not destroyed.
  auto analysed = std::make_unique<ModuleAnalysis>();
  std::string why;
  if (!frontend::runGuarded([&] { *analysed = analyzeModule(module, options); }, &why)) {
    (void)analysed.release();
    for (KernelAnalysis& k : result.kernels)
      if (!k.unsplittableReason) k.unsplittableReason = "the kernel analyzer failed: " + why;
    result.buildLogNotes += "clsplit: the kernel analyzer failed (" + why + "); kernels run whole\n";
    return false;
  }
  for (KernelAnalysis& k : result.kernels) {
    auto it = std::find_if(analysed->kernels.begin(), analysed->kernels.end(),
                           [&](const KernelAnalysis& a) { return a.name == k.name; });
    if (it == analysed->kernels.end()) {
      if (!k.unsplittableReason) k.unsplittableReason = "the kernel analyzer did not report it";
      continue;
    }
    k.regions = std::move(it->regions);
    k.imprecisions = std::move(it->imprecisions);
    if (!k.unsplittableReason && it->unsplittableReason) k.unsplittableReason = std::move(it->unsplittableReason);
  }
  result.errors.insert(result.errors.end(), analysed->errors.begin(), analysed->errors.end());
  return true;
}

// Recompiles the analysis copy with the hint pragmas that apply to its kernels placed at the
// end of their bodies; the vendor copy is unaffected. Returns the IR to analyse instead, or
// null (with errors or reasons set) when the hints cannot be applied.
std::unique_ptr<llvm::Module> applyHints(ProgramAnalysis& result, llvm::LLVMContext& context, std::string_view source,
                                         std::string_view buildOptions, const AnalysisOptions& analysisOptions,
                                         const std::vector<transformer::TransformedKernel>& kernels) {
  std::vector<std::string> names;
  for (const auto& k : kernels) names.push_back(k.name);
  frontend::ProgramHints hints =
      frontend::readHints(analysisOptions.hintsDir, programHash(source, buildOptions), names);
  if (hints.empty()) return nullptr;
  result.errors.insert(result.errors.end(), hints.errors.begin(), hints.errors.end());
  frontend::CompileOptions options;
  options.prelude = analysisOptions.devicePrelude;
  options.pinnedMacros = analysisOptions.pinnedMacros;
  options.compiledUnit = analysisOptions.compiledUnit;
  options.headers = analysisOptions.headers;
  for (const auto& k : kernels) {
    auto it = hints.kernels.find(k.name);
    if (it == hints.kernels.end()) continue;
    if (!k.bodyEndOffset) {
      result.errors.push_back(
          {{it->second.front().file, it->second.front().line, 1},
           "hints for kernel '" + k.name + "' cannot be applied: its body is not written in the program's source"});
      continue;
    }
    for (const auto& line : it->second)
      options.injectedPragmas.push_back({*k.bodyEndOffset, line.text, line.file, line.line});
  }
  if (!result.errors.empty()) return nullptr;
  frontend::CompileResult compiled = frontend::compile(context, source, buildOptions, options);
  result.errors.insert(result.errors.end(), compiled.pragmaErrors.begin(), compiled.pragmaErrors.end());
  if (!compiled.ok() && compiled.pragmaErrors.empty())
    result.errors.push_back({{}, "the program does not compile with its hints: " + firstMessage(compiled.errors)});
  if (!result.errors.empty()) return nullptr;
  result.buildLogNotes += "clsplit: applied " + std::to_string(options.injectedPragmas.size()) +
                          " hint pragma(s) from " + analysisOptions.hintsDir + "\n";
  return std::move(compiled.module);
}

} // namespace

ProgramAnalysis analyzeUncached(std::string_view source, std::string_view buildOptions,
                                const AnalysisOptions& analysisOptions) {
  llvm::LLVMContext context;
  transformer::TransformResult transformed;
  bool transformerRan = false;
  frontend::CompileOptions options;
  options.prelude = analysisOptions.devicePrelude;
  options.pinnedMacros = analysisOptions.pinnedMacros;
  options.compiledUnit = analysisOptions.compiledUnit;
  options.headers = analysisOptions.headers;
  options.astClient = [&](clang::CompilerInstance& ci, const frontend::ParsedProgram& program) {
    transformed = transformer::transformProgram(ci, program);
    transformerRan = true;
  };
  frontend::CompileResult compiled = frontend::compile(context, source, buildOptions, options);
  if (compiled.crashed || !transformerRan)
    return runsWhole(source, "clsplit's compiler failed: " + firstMessage(compiled.errors));

  ProgramAnalysis result;
  result.externalCalls = transformed.externalCalls;
  result.externalCallsKnown = transformed.externalCallsKnown;
  for (const std::string& path : transformed.includedFiles) result.includedFiles.emplace_back(path, fileDigest(path));
  for (auto& k : transformed.kernels) {
    KernelAnalysis ka;
    ka.name = k.name;
    ka.args = std::move(k.args);
    ka.partitionReady = k.partitionReady;
    ka.unsplittableReason = std::move(k.unsplittableReason);
    result.kernels.push_back(std::move(ka));
  }
  std::string& notes = result.buildLogNotes;

  if (!compiled.pragmaErrors.empty()) {
    result.errors = compiled.pragmaErrors;
    result.vendorSource = std::string(source);
    for (auto& k : result.kernels) {
      k.partitionReady = false;
      k.unsplittableReason = "the program has malformed clsplit pragmas";
    }
    notes += compiled.log;
    return result;
  }
  if (!compiled.errors.empty()) {
    // Vendors may accept what Clang 16 refuses (extensions, vendor built-ins): let them try.
    result.vendorSource = transformed.strippedSource;
    std::string reason = "clsplit's compiler could not compile the program: " + firstMessage(compiled.errors);
    for (auto& k : result.kernels) {
      k.partitionReady = false;
      k.unsplittableReason = reason;
    }
    for (ExternalCall& call : result.externalCalls) call.hiddenArguments = false;
    notes += "clsplit: kernels will not be split: " + reason + "\n";
    return result;
  }

  result.vendorSource = transformed.rewritten ? transformed.vendorSource : transformed.strippedSource;
  if (transformed.rewritten) {
    // The rewrite must never turn a valid program into one a vendor refuses.
    llvm::LLVMContext checkContext;
    frontend::CompileOptions check;
    check.prelude = analysisOptions.devicePrelude;
    check.emitIR = false;
    check.lowerPragmas = false;
    frontend::CompileResult verified = frontend::compile(checkContext, transformed.vendorSource, buildOptions, check);
    if (!verified.ok()) {
      std::string reason = "the partition-ready copy does not compile: " + firstMessage(verified.errors);
      log().warn("clsplit: {}", reason);
      result.vendorSource = transformed.strippedSource;
      for (auto& k : result.kernels) {
        k.partitionReady = false;
        k.unsplittableReason = reason;
      }
      for (ExternalCall& call : result.externalCalls) call.hiddenArguments = false;
    }
  } else {
    notes += "clsplit: the program was not made partition-ready: " + transformed.failure + "\n";
  }

  std::unique_ptr<llvm::Module> hinted;
  if (!analysisOptions.hintsDir.empty())
    hinted = applyHints(result, context, source, buildOptions, analysisOptions, transformed.kernels);
  const llvm::Module* module = hinted ? hinted.get() : compiled.module.get();
  if (!result.errors.empty()) {
    // Malformed hints: the build fails, as for a malformed pragma in the source.
  } else if (module) {
    attachRegions(result, *module);
  } else {
    for (KernelAnalysis& k : result.kernels)
      if (!k.unsplittableReason) k.unsplittableReason = "no IR to analyse";
  }
  if (!result.errors.empty()) {
    // Pragma misuse found by the analyzer, or malformed hints: the build fails.
    result.vendorSource = std::string(source);
    for (auto& k : result.kernels) {
      k.partitionReady = false;
      if (!k.unsplittableReason) k.unsplittableReason = "the program has malformed clsplit pragmas";
    }
    for (const auto& e : result.errors)
      notes += (e.where.line ? "line " + std::to_string(e.where.line) + ": " : std::string()) + e.message + "\n";
    return result;
  }
  for (const auto& k : result.kernels) {
    if (k.unsplittableReason)
      notes += "clsplit: kernel '" + k.name + "' will run whole: " + *k.unsplittableReason + "\n";
    for (const auto& imprecision : k.imprecisions)
      notes += "clsplit: kernel '" + k.name + "'" +
               (imprecision.where.line ? " line " + std::to_string(imprecision.where.line) : std::string()) + ": " +
               imprecision.message + "\n";
  }
  return result;
}

ProgramAnalysis analyzeProgram(std::string_view source, std::string_view buildOptions, const AnalysisOptions& options) {
  return analyzeCached(source, buildOptions, options, &analyzeUncached);
}

} // namespace clsplit::analysis
