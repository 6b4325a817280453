// The Clang invocation behind compile()/compileToIR(): in-memory headers, pragma lowering of
// every user file through a virtual file system, diagnostics mapped back to pragmas, code
// generation, and crash containment. This is the only translation unit that drives Clang.
#include "analysis/frontend/Frontend.h"

#include "analysis/frontend/BuildOptions.h"
#include "analysis/frontend/EmbeddedHeaders.h"
#include "analysis/frontend/IRPipeline.h"
#include "analysis/frontend/ParsedProgram.h"
#include "analysis/frontend/PragmaLowering.h"
#include "analysis/frontend/VendorConditionals.h"
#include "support/Log.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ParentMap.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Basic/Stack.h>
#include <clang/Basic/TargetInfo.h>
#include <clang/CodeGen/ModuleBuilder.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Lex/PreprocessorOptions.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <set>

namespace clsplit::analysis::frontend {

namespace {

// Where the embedded headers live; no real machine has this directory.
constexpr const char* kVirtualRoot = "/__clsplit__";
constexpr const char* kVirtualInclude = "/__clsplit__/include";
constexpr const char* kMarkersHeader = "/__clsplit__/clsplit-pragma-markers.h";
// The embedded headers a second time, for `#include <name>` (an -I directory, as vendors give
// them one): outside kVirtualRoot, whose files are clsplit's own and not the program's.
constexpr const char* kEmbeddedInclude = "/__clsplit_embedded__";
// The program's name as Clang sees it; it lives in the working directory so that
// `#include "file.cl"` finds files there first, as with a file compiled from that directory.
constexpr const char* kMainFileName = "clsplit-program.cl";

std::atomic<uint64_t> gInvocations{0};
std::mutex gClangMutex; // crash recovery and the fatal-error handler are process-global

// ---------------------------------------------------------------------------------------------
// Virtual file system: every user file Clang opens is read through lowerPragmas().

class LoweredFileHandle final : public llvm::vfs::File {
public:
  LoweredFileHandle(llvm::vfs::Status status, std::shared_ptr<const LoweredFile> lowered)
      : status_(std::move(status)), lowered_(std::move(lowered)) {}
  llvm::ErrorOr<llvm::vfs::Status> status() override { return status_; }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const llvm::Twine& name, int64_t,
                                                               bool requiresNullTerminator, bool) override {
    return llvm::MemoryBuffer::getMemBuffer(lowered_->analysisText, name.str(), requiresNullTerminator);
  }
  std::error_code close() override { return {}; }

private:
  llvm::vfs::Status status_;
  std::shared_ptr<const LoweredFile> lowered_;
};

class LoweringFileSystem final : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override {
    auto st = ProxyFileSystem::status(path);
    if (!st || st->getType() != llvm::sys::fs::file_type::regular_file) return st;
    if (auto lowered = lower(path, *st)) return llvm::vfs::Status::copyWithNewSize(*st, lowered->analysisText.size());
    return st;
  }

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
    auto file = ProxyFileSystem::openFileForRead(path);
    if (!file) return file;
    auto st = (*file)->status();
    if (!st || st->getType() != llvm::sys::fs::file_type::regular_file) return file;
    if (auto lowered = lower(path, *st)) {
      return std::unique_ptr<llvm::vfs::File>(std::make_unique<LoweredFileHandle>(
          llvm::vfs::Status::copyWithNewSize(*st, lowered->analysisText.size()), lowered));
    }
    return file;
  }

  std::shared_ptr<const LoweredFile> find(llvm::sys::fs::UniqueID id) const {
    auto it = files_.find(id);
    return it == files_.end() ? nullptr : it->second;
  }

private:
  // The lowered view of a file holding clsplit pragmas; null for every other file.
  std::shared_ptr<const LoweredFile> lower(const llvm::Twine& path, const llvm::vfs::Status& st) {
    auto [it, inserted] = files_.try_emplace(st.getUniqueID());
    if (!inserted) return it->second;
    // Regular files only: a device such as /dev/zero has no end to read up to.
    if (st.getType() != llvm::sys::fs::file_type::regular_file) return nullptr;
    auto buffer = getUnderlyingFS().getBufferForFile(path);
    if (!buffer) return nullptr;
    llvm::StringRef text = (*buffer)->getBuffer();
    if (text.find("pragma") == llvm::StringRef::npos) return nullptr;
    auto lowered = std::make_shared<LoweredFile>(lowerPragmas(text));
    if (!lowered->pragmas.empty()) it->second = std::move(lowered);
    return it->second;
  }

  std::map<llvm::sys::fs::UniqueID, std::shared_ptr<const LoweredFile>> files_;
};

// ---------------------------------------------------------------------------------------------
// Diagnostics, kept with their file offsets so they can be matched to pragmas afterwards.

struct RawDiagnostic {
  clang::DiagnosticsEngine::Level level;
  clang::FileID file;
  unsigned offset = 0;
  std::string presumedFile;
  unsigned line = 0, column = 0;
  std::string message;
};

class DiagnosticCollector final : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    RawDiagnostic d;
    d.level = level;
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    d.message = std::string(text);
    if (info.getLocation().isValid() && info.hasSourceManager()) {
      const clang::SourceManager& sm = info.getSourceManager();
      clang::SourceLocation loc = sm.getFileLoc(info.getLocation());
      auto [fid, offset] = sm.getDecomposedLoc(loc);
      d.file = fid;
      d.offset = offset;
      clang::PresumedLoc presumed = sm.getPresumedLoc(loc);
      if (presumed.isValid()) {
        d.presumedFile = presumed.getFilename();
        d.line = presumed.getLine();
        d.column = presumed.getColumn();
      }
    }
    diagnostics.push_back(std::move(d));
  }
  std::vector<RawDiagnostic> diagnostics;
};

// ---------------------------------------------------------------------------------------------
// Preprocessor observation: user files, their includes, skipped blocks.

class PreprocessorRecorder final : public clang::PPCallbacks {
public:
  PreprocessorRecorder(clang::SourceManager& sm, clang::FileManager& fm, ParsedProgram& program,
                       const LoweringFileSystem& fs, std::shared_ptr<const LoweredFile> mainLowered,
                       std::set<llvm::sys::fs::UniqueID> embedded)
      : sm_(sm), fm_(fm), program_(program), fs_(fs), mainLowered_(std::move(mainLowered)),
        embedded_(std::move(embedded)) {}

  void FileChanged(clang::SourceLocation loc, FileChangeReason reason, clang::SrcMgr::CharacteristicKind,
                   clang::FileID) override {
    if (reason != EnterFile || !loc.isFileID()) return;
    clang::FileID fid = sm_.getFileID(loc);
    if (fid == sm_.getMainFileID()) {
      program_.mainFile = fid;
      program_.userFiles.push_back(fid);
      if (mainLowered_ && !mainLowered_->pragmas.empty()) program_.lowered[fid] = mainLowered_;
    } else if (pending_) {
      program_.includes[*pending_].included = fid;
      program_.userFiles.push_back(fid);
      if (auto entry = sm_.getFileEntryRefForID(fid)) {
        if (auto lowered = fs_.find(entry->getUniqueID())) program_.lowered[fid] = lowered;
        if (embedded_.count(entry->getUniqueID())) program_.embeddedFiles.insert(fid);
      }
    }
    pending_.reset();
  }

  void FileSkipped(const clang::FileEntryRef&, const clang::Token&, clang::SrcMgr::CharacteristicKind) override {
    pending_.reset();
  }

  void InclusionDirective(clang::SourceLocation hashLoc, const clang::Token&, llvm::StringRef, bool,
                          clang::CharSourceRange filenameRange, clang::OptionalFileEntryRef file, llvm::StringRef,
                          llvm::StringRef, const clang::Module*, clang::SrcMgr::CharacteristicKind) override {
    pending_.reset();
    if (!hashLoc.isFileID()) return;
    auto [includer, hashOffset] = sm_.getDecomposedLoc(hashLoc);
    if (!program_.isUserFile(includer)) return;
    if (file && llvm::StringRef(file->getName()).startswith(kVirtualRoot)) return;
    IncludeRecord record;
    record.includer = includer;
    record.hashOffset = hashOffset;
    llvm::StringRef buffer = sm_.getBufferData(includer);
    unsigned end = filenameRange.getEnd().isFileID() ? sm_.getFileOffset(filenameRange.getEnd()) : hashOffset;
    while (end < buffer.size() && buffer[end] != '\n') {
      if (buffer[end] == '\\' && end + 1 < buffer.size() && buffer[end + 1] == '\n') ++end;
      ++end;
    }
    record.endOffset = end;
    if (file) {
      llvm::StringRef canonical = fm_.getCanonicalName(&file->getFileEntry());
      record.resolvedPath = canonical.empty() ? std::string(file->getName()) : canonical.str();
    }
    program_.includes.push_back(std::move(record));
    if (file) pending_ = program_.includes.size() - 1;
  }

  void SourceRangeSkipped(clang::SourceRange range, clang::SourceLocation) override {
    if (!range.getBegin().isFileID() || !range.getEnd().isFileID()) return;
    auto [fid, begin] = sm_.getDecomposedLoc(range.getBegin());
    unsigned end = sm_.getFileOffset(range.getEnd());
    program_.skipped[fid].emplace_back(begin, end);
  }

private:
  clang::SourceManager& sm_;
  clang::FileManager& fm_;
  ParsedProgram& program_;
  const LoweringFileSystem& fs_;
  std::shared_ptr<const LoweredFile> mainLowered_;
  std::set<llvm::sys::fs::UniqueID> embedded_; // clCompileProgram's embedded headers
  std::optional<size_t> pending_;
};

// ---------------------------------------------------------------------------------------------
// AST checks of the lowered pragmas, module hand-over, and the AST client.

struct PragmaError {
  clang::FileID file;
  const PragmaRecord* pragma;
  std::string message;
};

bool isMarkerCall(const clang::CallExpr* call) {
  const clang::FunctionDecl* callee = call->getDirectCallee();
  return callee && callee->getName().startswith(kMarkerPrefix);
}

bool isBufferPointer(clang::QualType type) {
  if (!type->isPointerType()) return false;
  clang::LangAS as = type->getPointeeType().getAddressSpace();
  return as == clang::LangAS::opencl_global || as == clang::LangAS::opencl_constant;
}

class CheckConsumer final : public clang::ASTConsumer {
public:
  CheckConsumer(clang::CompilerInstance& ci, ParsedProgram& program, clang::CodeGenerator* codegen,
                const CompileOptions& options, std::unique_ptr<llvm::Module>& module, MonotoneArgs& monotone,
                std::vector<PragmaError>& errors, DiagnosticCollector& diagnostics)
      : ci_(ci), program_(program), codegen_(codegen), options_(options), module_(module), monotone_(monotone),
        errors_(errors), diagnostics_(diagnostics) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    program_.hasErrors = ci_.getDiagnostics().hasErrorOccurred();
    if (codegen_ && !program_.hasErrors) module_.reset(codegen_->ReleaseModule());
    if (!program_.lowered.empty()) {
      checkMarkerPlacement(context);
      collectFileScopeMonotone(context);
    }
    if (options_.astClient) options_.astClient(ci_, program_);
  }

private:
  const PragmaRecord* pragmaOf(clang::SourceLocation loc, clang::FileID* fidOut) {
    clang::SourceManager& sm = ci_.getSourceManager();
    loc = sm.getFileLoc(loc);
    auto [fid, offset] = sm.getDecomposedLoc(loc);
    if (fidOut) *fidOut = fid;
    return program_.pragmaAt(fid, offset);
  }

  // A marker must be a statement of its own: `if (c)\n#pragma read ...\nx = 1;` would otherwise
  // make the marker the body of the `if` in the analysis copy and change what it analyses.
  void checkMarkerPlacement(clang::ASTContext& context) {
    for (clang::Decl* decl : context.getTranslationUnitDecl()->decls()) {
      auto* fn = llvm::dyn_cast<clang::FunctionDecl>(decl);
      if (!fn || !fn->doesThisDeclarationHaveABody()) continue;
      clang::Stmt* body = fn->getBody();
      std::unique_ptr<clang::ParentMap> parents;
      std::vector<const clang::Stmt*> stack{body};
      while (!stack.empty()) {
        const clang::Stmt* s = stack.back();
        stack.pop_back();
        if (!s) continue;
        for (const clang::Stmt* child : s->children()) stack.push_back(child);
        auto* call = llvm::dyn_cast<clang::CallExpr>(s);
        if (!call || !isMarkerCall(call)) continue;
        clang::FileID fid;
        const PragmaRecord* pragma = pragmaOf(call->getBeginLoc(), &fid);
        if (!pragma) continue;
        if (!parents) parents = std::make_unique<clang::ParentMap>(body);
        const clang::Stmt* parent = parents->getParent(call);
        if (!parent || llvm::isa<clang::CompoundStmt, clang::CaseStmt, clang::DefaultStmt, clang::LabelStmt>(parent))
          continue;
        errors_.push_back({fid, pragma,
                           "a clsplit pragma must stand between statements (here it would "
                           "become the body of the enclosing '" +
                               std::string(parent->getStmtClassName()) +
                               "'); add braces around the statement it follows"});
      }
    }
  }

  void collectFileScopeMonotone(clang::ASTContext& context) {
    std::vector<const clang::FunctionDecl*> kernels;
    for (clang::Decl* decl : context.getTranslationUnitDecl()->decls())
      if (auto* fn = llvm::dyn_cast<clang::FunctionDecl>(decl))
        if (fn->hasAttr<clang::OpenCLKernelAttr>() && fn->isThisDeclarationADefinition()) kernels.push_back(fn);
    std::set<const PragmaRecord*> seen;
    for (auto& [fid, lowered] : program_.lowered) {
      for (const PragmaRecord& p : lowered->pragmas) {
        if (!p.fileScope || !p.error.empty() || p.buffers.empty()) continue;
        if (program_.isSkipped(fid, p.loweredBegin) || !seen.insert(&p).second) continue;
        for (const std::string& name : p.buffers) {
          bool found = false;
          for (const clang::FunctionDecl* k : kernels) {
            for (unsigned i = 0; i < k->getNumParams(); ++i) {
              const clang::ParmVarDecl* param = k->getParamDecl(i);
              if (param->getName() != name) continue;
              if (!isBufferPointer(param->getType())) {
                errors_.push_back({fid, &p,
                                   "parameter '" + name + "' of kernel '" + k->getNameAsString() +
                                       "' is not a __global or __constant buffer"});
                continue;
              }
              found = true;
              monotone_[k->getNameAsString()].emplace_back(i, p.kind);
            }
          }
          if (!found)
            errors_.push_back(
                {fid, &p, "no kernel has a __global or __constant buffer parameter named '" + name + "'"});
        }
      }
    }
  }

  clang::CompilerInstance& ci_;
  ParsedProgram& program_;
  clang::CodeGenerator* codegen_;
  const CompileOptions& options_;
  std::unique_ptr<llvm::Module>& module_;
  MonotoneArgs& monotone_;
  std::vector<PragmaError>& errors_;
  DiagnosticCollector& diagnostics_;
};

class AnalysisAction final : public clang::ASTFrontendAction {
public:
  AnalysisAction(llvm::LLVMContext& context, const CompileOptions& options, ParsedProgram& program,
                 const LoweringFileSystem& fs, std::shared_ptr<const LoweredFile> mainLowered,
                 std::set<llvm::sys::fs::UniqueID> embedded, std::unique_ptr<llvm::Module>& module,
                 MonotoneArgs& monotone, std::vector<PragmaError>& errors, DiagnosticCollector& diagnostics)
      : context_(context), options_(options), program_(program), fs_(fs), mainLowered_(std::move(mainLowered)),
        embedded_(std::move(embedded)), module_(module), monotone_(monotone), errors_(errors),
        diagnostics_(diagnostics) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    ci.getPreprocessor().addPPCallbacks(std::make_unique<PreprocessorRecorder>(
        ci.getSourceManager(), ci.getFileManager(), program_, fs_, mainLowered_, embedded_));
    // Pinned values depend on the OpenCL C version (features exist in 3.0 only): where this
    // compile does not take the program's -cl-std, it is not the vendors' version, and nothing
    // is pinned.
    const bool versionAsVendors = std::none_of(program_.options.ignored.begin(), program_.options.ignored.end(),
                                               [](const std::string& o) { return o.rfind("-cl-std=", 0) == 0; });
    ci.getPreprocessor().addPPCallbacks(std::make_unique<ConditionalRecorder>(
        ci.getPreprocessor(), program_, versionAsVendors ? options_.pinnedMacros : std::vector<std::string>{}));
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    clang::CodeGenerator* codegen = nullptr;
    if (options_.emitIR) {
      codegen =
          clang::CreateLLVMCodeGen(ci.getDiagnostics(), "clsplit-program", &ci.getVirtualFileSystem(),
                                   ci.getHeaderSearchOpts(), ci.getPreprocessorOpts(), ci.getCodeGenOpts(), context_);
      consumers.emplace_back(codegen);
    }
    consumers.push_back(
        std::make_unique<CheckConsumer>(ci, program_, codegen, options_, module_, monotone_, errors_, diagnostics_));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

private:
  llvm::LLVMContext& context_;
  const CompileOptions& options_;
  ParsedProgram& program_;
  const LoweringFileSystem& fs_;
  std::shared_ptr<const LoweredFile> mainLowered_;
  std::set<llvm::sys::fs::UniqueID> embedded_;
  std::unique_ptr<llvm::Module>& module_;
  MonotoneArgs& monotone_;
  std::vector<PragmaError>& errors_;
  DiagnosticCollector& diagnostics_;
};

// ---------------------------------------------------------------------------------------------

std::string versionFlag(OpenCLVersion v) {
  switch (v) {
  case 100:
    return "-cl-std=CL1.0";
  case 110:
    return "-cl-std=CL1.1";
  case 200:
    return "-cl-std=CL2.0";
  case 300:
    return "-cl-std=CL3.0";
  default:
    return "-cl-std=CL1.2";
  }
}

std::vector<std::string> clangArguments(const BuildOptions& build, bool lowerPragmas, bool embeddedHeaders) {
  std::vector<std::string> args = {
      "-triple",
      "spir64-unknown-unknown",
      versionFlag(build.effectiveVersion()),
      "-fdeclare-opencl-builtins",
      "-finclude-default-header",
      "-nostdsysteminc",
      "-nobuiltininc",
      "-resource-dir",
      kVirtualRoot,
      "-internal-isystem",
      kVirtualInclude,
      "-debug-info-kind=line-tables-only",
      "-main-file-name",
      kMainFileName,
      "-ferror-limit",
      "50",
  };
  if (build.optimizationDisabled) {
    args.insert(args.end(), {"-O0", "-disable-O0-optnone"});
  } else {
    args.push_back("-O1");
  }
  if (lowerPragmas) args.insert(args.end(), {"-include", kMarkersHeader});
  for (const auto& m : build.macros) args.push_back((m.undefine ? "-U" : "-D") + m.definition);
  for (const auto& dir : build.includeDirs) args.push_back("-I" + dir);
  if (embeddedHeaders) args.push_back(std::string("-I") + kEmbeddedInclude);
  for (const auto& flag : build.semanticFlags) args.push_back(flag);
  if (build.suppressWarnings) args.push_back("-w");
  if (build.warningsAsErrors) args.push_back("-Werror");
  return args;
}

std::string currentDirectory() {
  llvm::SmallString<256> cwd;
  if (llvm::sys::fs::current_path(cwd)) return "/";
  return std::string(cwd);
}

const char* levelName(clang::DiagnosticsEngine::Level level) {
  switch (level) {
  case clang::DiagnosticsEngine::Note:
    return "note";
  case clang::DiagnosticsEngine::Remark:
    return "remark";
  case clang::DiagnosticsEngine::Warning:
    return "warning";
  case clang::DiagnosticsEngine::Error:
    return "error";
  case clang::DiagnosticsEngine::Fatal:
    return "fatal error";
  default:
    return "diagnostic";
  }
}

void appendLog(std::string& log, const Diagnostic& d, const char* level) {
  log += d.where.file.empty() ? "<source>" : d.where.file;
  if (d.where.line) log += ":" + std::to_string(d.where.line) + ":" + std::to_string(d.where.column);
  log += std::string(": ") + level + ": " + d.message + "\n";
}

// Adds pragmas from elsewhere (hints) to the analysis copy at the given offsets, on the
// line already there so that no line moves; they are reported like the program's pragmas.
void injectPragmas(LoweredFile& file, const std::vector<InjectedPragma>& injected) {
  std::vector<InjectedPragma> sorted = injected;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.offset > b.offset; });
  for (const InjectedPragma& inject : sorted) {
    if (inject.offset > file.analysisText.size()) continue;
    LoweredFile parsed = lowerPragmas("void f() {\n" + inject.text + "\n}\n");
    PragmaRecord record;
    if (parsed.pragmas.size() == 1) {
      record = parsed.pragmas.front();
    } else {
      record.text = inject.text;
      record.error = "not a clsplit pragma";
    }
    record.origin = inject.origin;
    record.line = inject.line;
    record.column = 1;
    record.lineCount = 1;
    record.fileScope = false;
    std::string marker = record.error.empty() ? " " + markerStatement(record) + " " : std::string();
    record.loweredBegin = inject.offset;
    record.loweredEnd = inject.offset + marker.size();
    for (PragmaRecord& p : file.pragmas) {
      if (p.loweredBegin >= inject.offset) {
        p.loweredBegin += marker.size();
        p.loweredEnd += marker.size();
      }
    }
    file.analysisText.insert(inject.offset, marker);
    file.pragmas.push_back(std::move(record));
  }
  std::stable_sort(file.pragmas.begin(), file.pragmas.end(),
                   [](const auto& a, const auto& b) { return a.loweredBegin < b.loweredBegin; });
}

// Everything that needs Clang, run on a thread with a large stack under crash recovery.
void runClang(llvm::LLVMContext& context, std::string_view source, std::string_view buildOptions,
              const CompileOptions& options, CompileResult& result) {
  BuildOptions build = parseBuildOptions(buildOptions);
  auto mainLowered = std::make_shared<LoweredFile>();
  if (options.lowerPragmas) {
    *mainLowered = lowerPragmas(source);
    injectPragmas(*mainLowered, options.injectedPragmas);
  } else {
    mainLowered->analysisText = std::string(source);
    mainLowered->vendorText = std::string(source);
  }

  const std::string cwd = currentDirectory();
  llvm::SmallString<256> mainPath(cwd);
  llvm::sys::path::append(mainPath, kMainFileName);

  // clCompileProgram's embedded headers lie over the disk, named as the program includes them
  // (relative to the main file's folder, where a quoted #include looks first), and have their
  // pragmas lowered like files on disk.
  auto disk = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  std::vector<std::string> embeddedPaths;
  if (!options.headers.empty()) {
    auto embedded = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    for (const auto& [name, text] : options.headers) {
      llvm::SmallString<256> path(cwd);
      if (llvm::sys::path::is_absolute(name))
        path = name;
      else
        llvm::sys::path::append(path, name);
      llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
      if (embedded->addFile(path, 0, llvm::MemoryBuffer::getMemBufferCopy(text, path)))
        embeddedPaths.push_back(path.str().str());
      if (llvm::sys::path::is_absolute(name)) continue;
      llvm::SmallString<256> angled(kEmbeddedInclude);
      llvm::sys::path::append(angled, name);
      llvm::sys::path::remove_dots(angled, /*remove_dot_dot=*/true);
      if (embedded->addFile(angled, 0, llvm::MemoryBuffer::getMemBufferCopy(text, angled)))
        embeddedPaths.push_back(angled.str().str());
    }
    disk->pushOverlay(embedded);
  }
  auto lowering = llvm::makeIntrusiveRefCnt<LoweringFileSystem>(disk);
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> realView =
      options.lowerPragmas ? llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>(lowering)
                           : llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>(disk);
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  memory->addFile(std::string(kVirtualInclude) + "/opencl-c-base.h", 0,
                  llvm::MemoryBuffer::getMemBuffer(kOpenCLBaseHeader, "opencl-c-base.h", false));
  memory->addFile(kMarkersHeader, 0, llvm::MemoryBuffer::getMemBuffer(kMarkerDeclarations, kMarkersHeader, false));
  memory->addFile(mainPath, 0, llvm::MemoryBuffer::getMemBufferCopy(mainLowered->analysisText, mainPath));
  const std::string devicePrelude = std::string(kVirtualInclude) + "/clsplit-device-prelude.h";
  // Clang 16 declares built-ins on first use, the generic-pointer overloads (atomics of OpenCL
  // C 3.0) only under __opencl_c_generic_address_space and the global/local ones only under
  // this macro: a device without generic pointers (a prelude took the feature back) gets the
  // latter, as its vendors' headers declare them.
  const std::string preludeText = options.prelude + "\n#ifndef __opencl_c_generic_address_space\n"
                                                    "#define __opencl_c_named_address_space_builtins 1\n#endif\n";
  if (!options.prelude.empty())
    memory->addFile(devicePrelude, 0, llvm::MemoryBuffer::getMemBufferCopy(preludeText, devicePrelude));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(realView);
  overlay->pushOverlay(memory);
  overlay->setCurrentWorkingDirectory(cwd);

  DiagnosticCollector collector;
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  {
    std::vector<std::string> args = clangArguments(build, options.lowerPragmas, !options.headers.empty());
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    auto diagOptions = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    clang::DiagnosticsEngine argDiags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), diagOptions, &collector,
                                      false);
    if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, argDiags)) {
      for (auto& d : collector.diagnostics) result.errors.push_back({{}, "invalid build options: " + d.message});
      if (result.errors.empty()) result.errors.push_back({{}, "invalid build options"});
      for (const Diagnostic& d : result.errors) appendLog(result.log, d, "error");
      return;
    }
    collector.diagnostics.clear();
  }
  // After the default header (-finclude-default-header put it first): the header defines some
  // features itself, which the prelude then pins as the vendors' builds see them.
  if (!options.prelude.empty()) invocation->getPreprocessorOpts().Includes.push_back(devicePrelude);
  clang::FrontendInputFile input(mainPath, clang::InputKind(clang::Language::OpenCL));
  invocation->getFrontendOpts().Inputs = {input};

  clang::CompilerInstance ci;
  ci.setInvocation(invocation);
  ci.createDiagnostics(&collector, /*ShouldOwnClient=*/false);
  ci.createFileManager(overlay);
  ci.createSourceManager(ci.getFileManager());
  if (!ci.createTarget()) {
    result.errors.push_back({{}, "clsplit front end: cannot create the spir64 target"});
    return;
  }

  ParsedProgram program;
  program.options = build;
  program.compiledUnit = options.compiledUnit;
  std::set<llvm::sys::fs::UniqueID> embeddedIds;
  for (const std::string& path : embeddedPaths)
    if (auto status = ci.getFileManager().getVirtualFileSystem().status(path))
      embeddedIds.insert(status->getUniqueID());
  MonotoneArgs monotone;
  std::vector<PragmaError> pragmaErrors;
  std::unique_ptr<llvm::Module> module;
  {
    AnalysisAction action(context, options, program, *lowering, mainLowered, std::move(embeddedIds), module, monotone,
                          pragmaErrors, collector);
    if (action.BeginSourceFile(ci, input)) {
      if (llvm::Error e = action.Execute()) {
        result.errors.push_back({{}, llvm::toString(std::move(e))});
      }
      action.EndSourceFile();
    }
  }

  // Map every diagnostic: on a pragma's line it is that pragma's error.
  const clang::SourceManager& sm = ci.getSourceManager();
  auto where = [&](clang::FileID fid, const std::string& presumed, unsigned line, unsigned col) {
    SourceLocation loc;
    loc.file = (fid == program.mainFile || presumed == mainPath.str()) ? "" : presumed;
    loc.line = line;
    loc.column = col;
    return loc;
  };
  auto pragmaLocation = [&](clang::FileID fid, const PragmaRecord& p) {
    SourceLocation loc;
    if (!p.origin.empty())
      loc.file = p.origin;
    else if (fid != program.mainFile)
      if (auto entry = sm.getFileEntryRefForID(fid)) loc.file = std::string(entry->getName());
    loc.line = p.line;
    loc.column = p.column;
    return loc;
  };
  std::set<std::pair<const PragmaRecord*, std::string>> reported;
  auto reportPragma = [&](clang::FileID fid, const PragmaRecord& p, const std::string& message) {
    if (!reported.insert({&p, message}).second) return;
    result.pragmaErrors.push_back({pragmaLocation(fid, p), "malformed clsplit pragma '" + p.text + "': " + message});
  };

  // One error per pragma: Clang's first, or a plain statement when the "buffer" is not one.
  std::map<const PragmaRecord*, std::pair<clang::FileID, std::string>> pragmaClangErrors;
  for (const RawDiagnostic& raw : collector.diagnostics) {
    Diagnostic d{where(raw.file, raw.presumedFile, raw.line, raw.column), raw.message};
    bool isError = raw.level >= clang::DiagnosticsEngine::Error;
    const PragmaRecord* pragma = raw.file.isValid() ? program.pragmaAt(raw.file, raw.offset) : nullptr;
    if (pragma && isError) {
      auto [it, inserted] = pragmaClangErrors.try_emplace(pragma, raw.file, raw.message);
      bool notABuffer = raw.message.find("indirection requires pointer") != std::string::npos ||
                        raw.message.find(std::string(kMarkerPrefix)) != std::string::npos;
      if (notABuffer) {
        std::string names;
        for (const auto& r : pragma->regions) names += (names.empty() ? "'" : ", '") + r.buffer + "'";
        for (const auto& b : pragma->buffers) names += (names.empty() ? "'" : ", '") + b + "'";
        it->second.second = names + " must name a __global or __constant buffer (pointer)";
      }
    } else if (isError) {
      result.errors.push_back(d);
    } else if (raw.level == clang::DiagnosticsEngine::Warning) {
      result.warnings.push_back(d);
    }
    appendLog(result.log, d, levelName(raw.level));
  }
  for (const auto& [pragma, error] : pragmaClangErrors) reportPragma(error.first, *pragma, error.second);
  for (const auto& [fid, lowered] : program.lowered) {
    for (const PragmaRecord& p : lowered->pragmas) {
      if (!p.error.empty() && !program.isSkipped(fid, p.loweredBegin)) reportPragma(fid, p, p.error);
    }
  }
  for (const PragmaError& e : pragmaErrors) reportPragma(e.file, *e.pragma, e.message);
  for (const Diagnostic& d : result.pragmaErrors) appendLog(result.log, d, "error");

  std::set<const LoweredFile*> listed;
  for (const auto& [fid, lowered] : program.lowered)
    if (listed.insert(lowered.get()).second)
      result.pragmas.insert(result.pragmas.end(), lowered->pragmas.begin(), lowered->pragmas.end());

  if (!result.ok() || !module) return;
  insertMonotoneMarkers(*module, monotone);
  if (options.simplifyIR) simplifyForAnalysis(*module);
  std::string broken;
  llvm::raw_string_ostream brokenOut(broken);
  if (llvm::verifyModule(*module, &brokenOut)) {
    result.errors.push_back({{}, "clsplit front end produced invalid IR: " + brokenOut.str()});
    appendLog(result.log, result.errors.back(), "error");
    return;
  }
  result.module = std::move(module);
}

std::string gFatalReason; // written by the fatal-error handler, under gClangMutex

void onFatalError(void*, const char* reason, bool) {
  gFatalReason = reason ? reason : "unknown";
  // Unwinds to the enclosing CrashRecoveryContext instead of exiting the process.
  llvm::sys::Process::Exit(1);
}

} // namespace

CompileResult::CompileResult() = default;
CompileResult::CompileResult(CompileResult&&) noexcept = default;
CompileResult& CompileResult::operator=(CompileResult&&) noexcept = default;
CompileResult::~CompileResult() = default;

bool runGuarded(const std::function<void()>& work, std::string* failure) {
  std::lock_guard<std::mutex> lock(gClangMutex);
  gFatalReason.clear();
  llvm::CrashRecoveryContext::Enable();
  bool completed = false;
  {
    llvm::ScopedFatalErrorHandler handler(onFatalError);
    llvm::CrashRecoveryContext recovery;
    completed = recovery.RunSafelyOnThread(
        [&] {
          clang::noteBottomOfStack();
          work();
        },
        static_cast<unsigned>(clang::DesiredStackSize * 2));
  }
  llvm::CrashRecoveryContext::Disable();
  if (!completed && failure) *failure = gFatalReason.empty() ? "crashed" : "LLVM fatal error: " + gFatalReason;
  return completed;
}

CompileResult compile(llvm::LLVMContext& context, std::string_view source, std::string_view buildOptions,
                      const CompileOptions& options) {
  // On the heap: if Clang dies half-way through filling it, it is leaked rather than destroyed.
  auto result = std::make_unique<CompileResult>();
  ++gInvocations;
  std::string why;
  if (!runGuarded([&] { runClang(context, source, buildOptions, options, *result); }, &why)) {
    CompileResult crashed;
    crashed.crashed = true;
    crashed.errors.push_back({{}, "Clang " + why});
    crashed.log = "clsplit front end: Clang " + why + "\n";
    log().warn("clsplit front end: Clang {}", why);
    (void)result.release();
    return crashed;
  }
  return std::move(*result);
}

std::unique_ptr<llvm::Module> compileToIR(llvm::LLVMContext& context, std::string_view source,
                                          std::string_view buildOptions, std::string* diagnostics) {
  CompileResult result = compile(context, source, buildOptions);
  if (diagnostics) *diagnostics += result.log;
  if (!result.ok()) return nullptr;
  return std::move(result.module);
}

uint64_t clangInvocationCount() { return gInvocations.load(); }

} // namespace clsplit::analysis::frontend
