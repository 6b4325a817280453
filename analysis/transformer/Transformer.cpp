// Partition-ready rewriting with Clang's Rewriter. Built-ins are redirected by macros in the
// prelude (so uses inside macros, including -D ones, are covered); the transformer's job is to
// put the hidden values in scope wherever those macros expand: as parameters of kernels and of
// every function that (transitively) needs them, or, where a signature cannot change, as
// locals holding the launch's own values (correct only for whole launches, so the kernels
// reaching such a function are never split).
#include "analysis/transformer/Transformer.h"

#include "analysis/frontend/ParsedProgram.h"
#include "analysis/transformer/Prelude.h"
#include "support/Log.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/TypeLoc.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace clsplit::analysis::transformer {

namespace {

const std::string kHiddenParams = std::string("ulong4 ") + kHiddenOffsetName + ", ulong4 " + kHiddenSizeName;
const std::string kHiddenArgs = std::string(kHiddenOffsetName) + ", " + kHiddenSizeName;

struct FunctionInfo {
  const clang::FunctionDecl* canonical = nullptr;
  const clang::FunctionDecl* definition = nullptr;
  std::string name;
  bool isKernel = false;
  bool usesBuiltin = false;
  std::vector<const clang::CallExpr*> calls;       // calls to user functions in its body
  std::vector<const clang::FunctionDecl*> callees; // their canonical declarations
  std::vector<std::string> externalCallees;        // declared in the program, defined nowhere
  std::string signatureProblem;                    // empty: every declaration can be rewritten
  std::string callSiteProblem;                     // empty: every call to it can be rewritten
  bool takesParams = false;
  bool needsValues = false;
};

class CallCollector : public clang::RecursiveASTVisitor<CallCollector> {
public:
  CallCollector(std::vector<const clang::CallExpr*>& calls, bool& usesBlocks)
      : calls_(calls), usesBlocks_(usesBlocks) {}
  bool VisitCallExpr(clang::CallExpr* call) {
    calls_.push_back(call);
    return true;
  }
  bool VisitBlockExpr(clang::BlockExpr*) {
    usesBlocks_ = true;
    return true;
  }

private:
  std::vector<const clang::CallExpr*>& calls_;
  bool& usesBlocks_;
};

ScalarType scalarTypeOf(clang::QualType type, const clang::ASTContext& context) {
  type = type.getCanonicalType().getUnqualifiedType();
  if (const auto* e = type->getAs<clang::EnumType>()) type = e->getDecl()->getIntegerType();
  const auto* b = type->getAs<clang::BuiltinType>();
  if (!b) return ScalarType::Unknown;
  if (b->isFloatingPoint()) {
    uint64_t bits = context.getTypeSize(type);
    return bits == 32 ? ScalarType::F32 : bits == 64 ? ScalarType::F64 : ScalarType::Unknown;
  }
  if (!b->isInteger() || b->getKind() == clang::BuiltinType::Bool) return ScalarType::Unknown;
  bool isSigned = b->isSignedInteger();
  switch (context.getTypeSize(type)) {
  case 8:
    return isSigned ? ScalarType::I8 : ScalarType::U8;
  case 16:
    return isSigned ? ScalarType::I16 : ScalarType::U16;
  case 32:
    return isSigned ? ScalarType::I32 : ScalarType::U32;
  case 64:
    return isSigned ? ScalarType::I64 : ScalarType::U64;
  default:
    return ScalarType::Unknown;
  }
}

KernelArg describeParameter(const clang::ParmVarDecl* param, const clang::ASTContext& context,
                            std::string& unsupported) {
  KernelArg arg;
  arg.name = param->getNameAsString();
  clang::QualType type = param->getType().getCanonicalType();
  if (type->isPointerType()) {
    clang::QualType pointee = type->getPointeeType();
    switch (pointee.getAddressSpace()) {
    case clang::LangAS::opencl_global:
      arg.kind = ArgKind::GlobalBuffer;
      break;
    case clang::LangAS::opencl_constant:
      arg.kind = ArgKind::ConstantBuffer;
      break;
    case clang::LangAS::opencl_local:
      arg.kind = ArgKind::LocalBuffer;
      break;
    default:
      unsupported = "parameter '" + arg.name + "' is a pointer to private memory";
      break;
    }
    arg.scalarType = scalarTypeOf(pointee, context);
  } else if (type->isImageType()) {
    arg.kind = ArgKind::Image;
    // Image types carry their access qualifier ("__read_only image2d_t"; read_only by default).
    const std::string spelled = type.getAsString();
    arg.readOnlyImage =
        spelled.find("write_only") == std::string::npos && spelled.find("read_write") == std::string::npos;
  } else if (type->isSamplerT()) {
    arg.kind = ArgKind::Sampler;
  } else if (type->isPipeType() || type->isQueueT() || type->isClkEventT()) {
    unsupported = "parameter '" + arg.name + "' has a type clsplit cannot split (" + type.getAsString() + ")";
  } else {
    arg.kind = ArgKind::Scalar;
    arg.scalarType = scalarTypeOf(type, context);
  }
  return arg;
}

class ProgramTransformer {
public:
  ProgramTransformer(clang::CompilerInstance& ci, const frontend::ParsedProgram& program)
      : ci_(ci), sm_(ci.getSourceManager()), context_(ci.getASTContext()), program_(program),
        version_(program.options.effectiveVersion()) {
    for (auto name : rewrittenBuiltins(version_)) builtins_.insert(std::string(name));
  }

  TransformResult run() {
    TransformResult result;
    collectFunctions();
    describeKernels(result);
    std::set<std::string> embedded;
    for (const auto& r : program_.includes)
      if (r.included.isValid() && program_.embeddedFiles.count(r.included)) embedded.insert(r.resolvedPath);
    for (const auto& r : program_.includes)
      if (!r.resolvedPath.empty() && !embedded.count(r.resolvedPath) &&
          std::find(result.includedFiles.begin(), result.includedFiles.end(), r.resolvedPath) ==
              result.includedFiles.end())
        result.includedFiles.push_back(r.resolvedPath);

    clang::Rewriter stripped(sm_, ci_.getLangOpts());
    std::set<clang::FileID> strippedEdits;
    blankPragmas(stripped, strippedEdits);
    result.strippedSource = finalize(stripped, strippedEdits);

    if (program_.hasErrors) {
      for (auto& k : result.kernels) {
        k.partitionReady = false;
        k.unsplittableReason = "clsplit's compiler could not compile the program";
      }
      result.failure = "the program did not compile with clsplit's front end";
      result.vendorSource = result.strippedSource;
      result.externalCallsKnown = false; // the AST may lack some
      return result;
    }

    decide();
    std::string failure = programLevelProblem();
    if (failure.empty()) failure = rewrite(result);
    if (!failure.empty()) {
      result.failure = failure;
      result.vendorSource = result.strippedSource;
      for (auto& k : result.kernels) {
        k.partitionReady = false;
        k.unsplittableReason = "the program cannot be made partition-ready: " + failure;
      }
      listExternalCalls(result, false);
      return result;
    }
    result.rewritten = true;
    return result;
  }

private:
  // --- Inventory -------------------------------------------------------------------------

  bool inUserFile(clang::SourceLocation loc) const {
    if (loc.isInvalid()) return false;
    return program_.isUserFile(sm_.getFileID(sm_.getFileLoc(loc)));
  }

  // Written in the program. Built-ins declared on demand by -fdeclare-opencl-builtins are
  // implicit declarations located at their first use, hence the isImplicit() test.
  bool isUserFunction(const clang::FunctionDecl* fn) const {
    const clang::FunctionDecl* first = fn->getFirstDecl();
    return !first->isImplicit() && inUserFile(first->getLocation());
  }

  bool isRewrittenBuiltin(const clang::FunctionDecl* fn) const {
    return builtins_.count(fn->getNameAsString()) && !isUserFunction(fn);
  }

  void collectFunctions() {
    for (clang::Decl* decl : context_.getTranslationUnitDecl()->decls()) {
      auto* fn = llvm::dyn_cast<clang::FunctionDecl>(decl);
      if (!fn || !isUserFunction(fn)) continue;
      const clang::FunctionDecl* canonical = fn->getCanonicalDecl();
      FunctionInfo& info = functions_[canonical];
      if (!info.canonical) {
        info.canonical = canonical;
        info.name = fn->getNameAsString();
        order_.push_back(canonical);
      }
      if (fn->hasAttr<clang::OpenCLKernelAttr>()) info.isKernel = true;
      if (fn->doesThisDeclarationHaveABody()) info.definition = fn;
    }
    for (const clang::FunctionDecl* canonical : order_) {
      FunctionInfo& info = functions_[canonical];
      if (!info.definition) continue;
      std::vector<const clang::CallExpr*> calls;
      CallCollector(calls, usesBlocks_).TraverseDecl(const_cast<clang::FunctionDecl*>(info.definition));
      for (const clang::CallExpr* call : calls) {
        const clang::FunctionDecl* callee = call->getDirectCallee();
        if (!callee) continue; // blocks: their bodies were traversed as part of this function
        if (isRewrittenBuiltin(callee)) {
          info.usesBuiltin = true;
        } else if (isUserFunction(callee)) {
          auto it = functions_.find(callee->getCanonicalDecl());
          if (it == functions_.end()) continue;
          if (!it->second.definition) {
            info.externalCallees.push_back(it->second.name);
            // Another unit's kernel (clCompileProgram) takes the hidden arguments there: the
            // call passes them like a call to a kernel of this program.
            if (!(program_.compiledUnit && it->second.isKernel)) continue;
          }
          info.calls.push_back(call);
          info.callees.push_back(it->first);
          callers_[it->first].push_back(call);
        }
      }
    }
  }

  void describeKernels(TransformResult& result) {
    for (const clang::FunctionDecl* canonical : order_) {
      const FunctionInfo& info = functions_[canonical];
      if (!info.isKernel || !info.definition) continue;
      TransformedKernel k;
      k.name = info.name;
      std::string unsupported;
      for (const clang::ParmVarDecl* p : info.definition->parameters()) {
        k.args.push_back(describeParameter(p, context_, unsupported));
      }
      if (!unsupported.empty()) k.unsplittableReason = unsupported;
      if (auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(info.definition->getBody())) {
        clang::SourceLocation end = body->getRBracLoc();
        if (end.isFileID() && sm_.getFileID(end) == program_.mainFile) k.bodyEndOffset = sm_.getFileOffset(end);
      }
      result.kernels.push_back(std::move(k));
    }
  }

  // --- Decisions -----------------------------------------------------------------------------

  // Problems that make the whole program unsafe to rewrite.
  std::string programLevelProblem() const {
    // A block runs as its own launch (enqueue_kernel): the built-ins inside it describe that
    // launch, not the one whose values the hidden arguments carry.
    if (usesBlocks_) return "it uses blocks (device-side enqueue)";
    // The prelude's helpers must stay private to each unit, and OpenCL C 1.0/1.1 has no
    // `static` functions: every unit would define them, and the link would fail.
    if (program_.compiledUnit && version_ < 120)
      return "a unit compiled as OpenCL C 1.0 or 1.1 cannot keep clsplit's helpers private";
    for (const clang::FunctionDecl* canonical : order_) {
      const FunctionInfo& info = functions_.at(canonical);
      if (builtins_.count(info.name) && info.definition) return "it defines its own function named '" + info.name + "'";
      if (llvm::StringRef(info.name).startswith(kReservedPrefix))
        return "it defines '" + info.name + "', a name reserved by clsplit";
    }
    // Code the preprocessor skipped here may be compiled by a vendor whose predefined macros
    // differ (`#ifdef __NV_CL_C_VERSION`): if it uses what the rewrite changes, the vendor copy
    // could silently compute with slice-local values or fail to build. A branch chosen by the
    // program's own macros (-D options, its #defines; `#if 0`) is skipped by every vendor alike.
    for (const auto& [fid, ranges] : program_.skipped) {
      if (!program_.isUserFile(fid)) continue;
      llvm::StringRef buffer = sm_.getBufferData(fid);
      for (auto [begin, end] : ranges) {
        if (end > buffer.size() || begin >= end) continue;
        if (!program_.vendorMayCompile(fid, begin)) continue;
        const std::string text = withoutComments(buffer.substr(begin, end - begin));
        for (const std::string& name : sensitiveNames())
          if (containsIdentifier(text, name))
            return "a preprocessor branch clsplit did not compile (line " +
                   std::to_string(sm_.getLineNumber(fid, begin)) + ") uses '" + name +
                   "', and its condition depends on macros a vendor predefines";
      }
    }
    return {};
  }

  // `text` with its comments blanked out (a kernel's name in a comment is not a use of it).
  static std::string withoutComments(llvm::StringRef text) {
    std::string out = text.str();
    for (size_t i = 0; i + 1 < out.size(); ++i) {
      if (out[i] == '/' && out[i + 1] == '/') {
        while (i < out.size() && out[i] != '\n') out[i++] = ' ';
      } else if (out[i] == '/' && out[i + 1] == '*') {
        size_t close = out.find("*/", i + 2);
        size_t stop = close == std::string::npos ? out.size() : close + 2;
        for (; i < stop; ++i)
          if (out[i] != '\n') out[i] = ' ';
        --i;
      }
    }
    return out;
  }

  static bool containsIdentifier(llvm::StringRef text, llvm::StringRef name) {
    size_t at = 0;
    while ((at = text.find(name, at)) != llvm::StringRef::npos) {
      auto isIdent = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      bool startOk = at == 0 || !isIdent(text[at - 1]);
      bool endOk = at + name.size() >= text.size() || !isIdent(text[at + name.size()]);
      if (startOk && endOk) return true;
      at += name.size();
    }
    return false;
  }

  std::vector<std::string> sensitiveNames() const {
    std::vector<std::string> names(builtins_.begin(), builtins_.end());
    for (const auto& [canonical, info] : functions_)
      if (info.takesParams) names.push_back(info.name);
    return names;
  }

  // Where hidden parameters go in one declaration, or why they cannot.
  std::string signatureProblem(const clang::FunctionDecl* decl) const {
    clang::FunctionTypeLoc loc = decl->getFunctionTypeLoc();
    if (!loc) return "it is declared through a typedef";
    if (!loc.getLParenLoc().isFileID() || !loc.getRParenLoc().isFileID())
      return "its parameter list comes from a macro";
    if (!inUserFile(loc.getRParenLoc())) return "it is declared outside the program's files";
    if (decl->isVariadic()) return "it is variadic";
    return {};
  }

  // The location the hidden arguments are inserted before, in the file where that `)` is
  // spelled (a macro argument or a macro body of the program), or invalid.
  clang::SourceLocation callInsertionPoint(const clang::CallExpr* call) const {
    clang::SourceLocation rparen = call->getRParenLoc();
    clang::SourceLocation spelling = rparen.isFileID() ? rparen : sm_.getSpellingLoc(rparen);
    if (!spelling.isFileID() || !program_.isUserFile(sm_.getFileID(spelling))) return {};
    return spelling;
  }

  void decide() {
    // Call sites: rewritable, and not shared (through a macro body) with calls to other functions.
    std::map<unsigned, std::set<const clang::FunctionDecl*>> calleesAt;
    for (const auto& [canonical, info] : functions_)
      for (size_t i = 0; i < info.calls.size(); ++i) {
        clang::SourceLocation at = callInsertionPoint(info.calls[i]);
        if (at.isValid()) calleesAt[at.getRawEncoding()].insert(info.callees[i]);
      }
    for (auto& [canonical, info] : functions_) {
      // Another unit of the linked program may call it with the signature it has here.
      if (program_.compiledUnit && !info.isKernel && canonical->isExternallyVisible())
        info.signatureProblem = "another compiled unit may call it (it is not static)";
      for (const clang::FunctionDecl* redecl : canonical->redecls()) {
        if (!info.signatureProblem.empty()) break;
        if (redecl->isImplicit()) continue;
        std::string problem = signatureProblem(redecl);
        if (!problem.empty()) {
          info.signatureProblem = problem;
          break;
        }
      }
      for (const clang::CallExpr* call : callers_[canonical]) {
        clang::SourceLocation at = callInsertionPoint(call);
        if (at.isInvalid()) {
          info.callSiteProblem = "a call to it comes from a macro defined outside the program's "
                                 "source (e.g. with -D)";
          break;
        }
        if (calleesAt[at.getRawEncoding()].size() > 1) {
          info.callSiteProblem = "a macro calls it and other functions from the same text";
          break;
        }
      }
    }
    // Least fixed point of: a helper takes the hidden parameters when it needs the values and
    // can; a function needs them when it uses a rewritten built-in or calls one that takes them.
    for (auto& [canonical, info] : functions_)
      info.takesParams = info.isKernel && (info.definition || program_.compiledUnit) && eligible(info);
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto& [canonical, info] : functions_) {
        bool needs = info.usesBuiltin;
        for (const clang::FunctionDecl* callee : info.callees) needs |= functions_[callee].takesParams;
        bool takes = info.isKernel ? info.takesParams : (needs && eligible(info));
        if (needs != info.needsValues || takes != info.takesParams) {
          info.needsValues = needs;
          info.takesParams = takes;
          changed = true;
        }
      }
    }
  }

  // Buffer parameters (__global or __constant pointers) of a kernel, in order: each takes a
  // hidden window shift (analysis::windowShiftCount).
  static std::vector<const clang::ParmVarDecl*> bufferParams(const clang::FunctionDecl* fn) {
    std::vector<const clang::ParmVarDecl*> out;
    for (const clang::ParmVarDecl* p : fn->parameters()) {
      clang::QualType type = p->getType().getCanonicalType();
      if (!type->isPointerType()) continue;
      const clang::LangAS as = type->getPointeeType().getAddressSpace();
      if (as == clang::LangAS::opencl_global || as == clang::LangAS::opencl_constant) out.push_back(p);
    }
    return out;
  }

  std::string hiddenParams(const FunctionInfo& info) const {
    std::string text = kHiddenParams;
    if (info.isKernel)
      for (size_t k = 0; k < bufferParams(info.canonical).size(); ++k)
        text += ", long " + std::string(kWindowShiftPrefix) + std::to_string(k);
    return text;
  }

  // A kernel called as a function gets pointers its caller already rebased: shifts of 0.
  std::string hiddenArgs(const FunctionInfo& info) const {
    std::string text = kHiddenArgs;
    if (info.isKernel)
      for (size_t k = 0; k < bufferParams(info.canonical).size(); ++k) text += ", 0L";
    return text;
  }

  // A device may hold only a window of a buffer (buffer-manager/storage/DeviceMemory.h): the
  // kernel receives that window's memory and how far the window starts into the buffer, and
  // moves its pointer back by as much at entry, so that every index the program computes
  // addresses the same byte as in the whole buffer. A pointer declared const gets a renamed
  // parameter and a local of the original name instead.
  std::string rebaseBuffers(clang::Rewriter& rw, const FunctionInfo& info) {
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(info.definition->getBody());
    if (!body || !body->getLBracLoc().isFileID() || !inUserFile(body->getLBracLoc()))
      return "the body of kernel '" + info.name + "' starts inside a macro";
    clang::PrintingPolicy policy(ci_.getLangOpts());
    std::string text;
    const auto params = bufferParams(info.definition);
    for (size_t k = 0; k < params.size(); ++k) {
      const clang::ParmVarDecl* p = params[k];
      const std::string name = p->getNameAsString();
      if (name.empty()) continue; // never used
      const std::string castType = p->getType().getUnqualifiedType().getAsString(policy);
      const bool constant =
          p->getType().getCanonicalType()->getPointeeType().getAddressSpace() == clang::LangAS::opencl_constant;
      const std::string bytes = constant ? "__constant char *" : "__global char *";
      const std::string shift = std::string(kWindowShiftPrefix) + std::to_string(k);
      if (!p->getType().isConstQualified()) {
        text += " __CLSPLIT_REBASE(" + castType + ", " + bytes + ", " + name + ", " + shift + ");";
        continue;
      }
      clang::SourceLocation at = p->getLocation();
      if (!at.isFileID() || !inUserFile(at))
        return "the name of kernel '" + info.name + "''s parameter '" + name + "' comes from a macro";
      const std::string window = std::string(kReservedPrefix) + "window_" + name;
      rw.ReplaceText(at, static_cast<unsigned>(name.size()), window);
      text += " " + p->getType().getAsString(policy) + " " + name + " = __CLSPLIT_REBASED(" + castType + ", " + bytes +
              ", " + window + ", " + shift + ");";
    }
    if (!text.empty()) rw.InsertTextAfterToken(body->getLBracLoc(), text);
    return {};
  }

  static bool eligible(const FunctionInfo& info) {
    return info.signatureProblem.empty() && info.callSiteProblem.empty();
  }

  // Why a kernel would compute differently as a slice, or "" when it would not.
  std::string sliceProblem(const FunctionInfo& kernel) {
    std::set<const clang::FunctionDecl*> seen;
    std::vector<const clang::FunctionDecl*> work{kernel.canonical};
    while (!work.empty()) {
      const FunctionInfo& f = functions_[work.back()];
      work.pop_back();
      if (!seen.insert(f.canonical).second) continue;
      if (!f.externalCallees.empty())
        return "it calls '" + f.externalCallees.front() + "', which " +
               (program_.compiledUnit ? "another compiled unit defines (each unit is analysed alone)"
                                      : "this program does not define");
      if (f.needsValues && !f.takesParams && f.canonical != kernel.canonical) {
        std::string why = !f.signatureProblem.empty() ? f.signatureProblem : f.callSiteProblem;
        return "it calls '" + f.name + "', which uses NDRange built-ins but cannot receive the original NDRange (" +
               why + ")";
      }
      for (const clang::FunctionDecl* callee : f.callees) work.push_back(callee);
    }
    return {};
  }

  // --- Rewriting -----------------------------------------------------------------------------

  std::string rewrite(TransformResult& result) {
    clang::Rewriter rw(sm_, ci_.getLangOpts());
    std::set<clang::FileID> edits;
    blankPragmas(rw, edits);

    auto edit = [&](clang::SourceLocation at) { edits.insert(sm_.getFileID(at)); };
    std::set<unsigned> insertedCalls;
    for (const clang::FunctionDecl* canonical : order_) {
      FunctionInfo& info = functions_[canonical];
      if (info.takesParams) {
        const std::string params = hiddenParams(info), args = hiddenArgs(info);
        for (const clang::FunctionDecl* redecl : canonical->redecls()) {
          if (redecl->isImplicit()) continue;
          clang::FunctionTypeLoc loc = redecl->getFunctionTypeLoc();
          if (redecl->getNumParams() == 0) {
            clang::SourceLocation inside = loc.getLParenLoc().getLocWithOffset(1);
            unsigned length = sm_.getFileOffset(loc.getRParenLoc()) - sm_.getFileOffset(inside);
            rw.ReplaceText(inside, length, params);
          } else {
            rw.InsertTextBefore(loc.getRParenLoc(), ", " + params);
          }
          edit(loc.getRParenLoc());
        }
        for (const clang::CallExpr* call : callers_[canonical]) {
          clang::SourceLocation at = callInsertionPoint(call);
          if (!insertedCalls.insert(at.getRawEncoding()).second) continue;
          rw.InsertTextBefore(at, call->getNumArgs() ? ", " + args : args);
          edit(at);
        }
        if (info.isKernel && info.definition) {
          if (std::string problem = rebaseBuffers(rw, info); !problem.empty()) return problem;
          edit(llvm::cast<clang::CompoundStmt>(info.definition->getBody())->getLBracLoc());
        }
      } else if (info.needsValues && info.definition) {
        auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(info.definition->getBody());
        if (!body || !body->getLBracLoc().isFileID()) return "the body of '" + info.name + "' starts inside a macro";
        rw.InsertTextAfterToken(body->getLBracLoc(), std::string(" ulong4 ") + kHiddenOffsetName + " = " +
                                                         std::string(kWholeOffsetCall) + "; ulong4 " + kHiddenSizeName +
                                                         " = " + std::string(kWholeSizeCall) + ";");
        edit(body->getLBracLoc());
      }
    }
    // The program's own prototypes of rewritten built-ins would be expanded by the macros.
    for (clang::Decl* decl : context_.getTranslationUnitDecl()->decls()) {
      auto* fn = llvm::dyn_cast<clang::FunctionDecl>(decl);
      if (!fn || fn->isImplicit() || !builtins_.count(fn->getNameAsString()) || !inUserFile(fn->getLocation()) ||
          isUserFunction(fn))
        continue;
      clang::SourceLocation begin = fn->getBeginLoc(), end = fn->getEndLoc();
      if (!begin.isFileID() || !end.isFileID()) return "it redeclares '" + fn->getNameAsString() + "' through a macro";
      clang::SourceLocation after =
          clang::Lexer::findLocationAfterToken(end, clang::tok::semi, sm_, ci_.getLangOpts(), false);
      if (after.isInvalid()) after = clang::Lexer::getLocForEndOfToken(end, 0, sm_, ci_.getLangOpts());
      rw.ReplaceText(clang::SourceRange(begin, after.getLocWithOffset(-1)), "");
      edit(begin);
    }

    // The prelude goes first in the main file (after a byte-order mark, if any).
    llvm::StringRef mainText = sm_.getBufferData(program_.mainFile);
    unsigned preludeAt = mainText.startswith("\xEF\xBB\xBF") ? 3 : 0;
    rw.InsertTextBefore(sm_.getLocForStartOfFile(program_.mainFile).getLocWithOffset(preludeAt), prelude(version_));

    for (auto& k : result.kernels) {
      const FunctionInfo* info = nullptr;
      for (const auto& [canonical, f] : functions_)
        if (f.isKernel && f.name == k.name) info = &f;
      if (!info) continue;
      k.partitionReady = info->takesParams;
      if (k.unsplittableReason) continue;
      if (!info->takesParams) {
        std::string why = !info->signatureProblem.empty() ? info->signatureProblem : info->callSiteProblem;
        k.unsplittableReason = "its parameter list cannot be rewritten (" + why + ")";
      } else if (std::string problem = sliceProblem(*info); !problem.empty()) {
        k.unsplittableReason = problem;
      }
    }
    result.vendorSource = finalize(rw, edits);
    listExternalCalls(result, true);
    return {};
  }

  // The functions the program calls and another unit defines, and whether the calls pass the
  // hidden arguments (`rewritten`: the vendor copy is the partition-ready one).
  void listExternalCalls(TransformResult& result, bool rewritten) const {
    result.externalCalls.clear();
    for (const clang::FunctionDecl* canonical : order_) {
      const FunctionInfo& info = functions_.at(canonical);
      if (info.definition) continue;
      bool called = false;
      for (const auto& [other, f] : functions_)
        called |= std::find(f.externalCallees.begin(), f.externalCallees.end(), info.name) != f.externalCallees.end();
      if (called) result.externalCalls.push_back({info.name, rewritten && info.takesParams});
    }
  }

  void blankPragmas(clang::Rewriter& rw, std::set<clang::FileID>& edits) {
    for (const auto& [fid, lowered] : program_.lowered) {
      clang::SourceLocation start = sm_.getLocForStartOfFile(fid);
      for (const frontend::PragmaRecord& p : lowered->pragmas) {
        if (p.loweredEnd <= p.loweredBegin) continue;
        std::string newlines(p.lineCount - 1, '\n');
        rw.ReplaceText(start.getLocWithOffset(p.loweredBegin), p.loweredEnd - p.loweredBegin, newlines);
      }
      edits.insert(fid);
    }
  }

  std::string fileText(clang::Rewriter& rw, clang::FileID fid) const {
    if (const clang::RewriteBuffer* buffer = rw.getRewriteBufferFor(fid))
      return std::string(buffer->begin(), buffer->end());
    return std::string(sm_.getBufferData(fid));
  }

  // Text of an included file for inlining: `#pragma once` would now apply to the includer.
  static std::string inlinable(std::string text) {
    size_t lineStart = 0;
    while (lineStart < text.size()) {
      size_t lineEnd = text.find('\n', lineStart);
      if (lineEnd == std::string::npos) lineEnd = text.size();
      llvm::StringRef line = llvm::StringRef(text).slice(lineStart, lineEnd).trim();
      if (line.consume_front("#")) {
        line = line.ltrim();
        if (line.consume_front("pragma") && line.ltrim().startswith("once") &&
            line.ltrim().drop_front(4).trim().empty())
          text.replace(lineStart, lineEnd - lineStart, std::string());
      }
      lineStart = text.find('\n', lineStart);
      if (lineStart == std::string::npos) break;
      ++lineStart;
    }
    if (text.empty() || text.back() != '\n') text += '\n';
    return text;
  }

  // Inlines every included file clsplit changed (and every file including one), points every
  // other resolved #include at the absolute path analysed, and returns the main file's text.
  std::string finalize(clang::Rewriter& rw, const std::set<clang::FileID>& edits) {
    std::set<clang::FileID> inlined;
    std::set<std::string> inlinedPaths;
    for (auto it = program_.userFiles.rbegin(); it != program_.userFiles.rend(); ++it) {
      if (*it == program_.mainFile) continue;
      // Where embedded headers are used, every file is inlined: a file on disk that includes
      // one by name (a second time, skipped by its guard here) would find a file on disk of
      // that name when the vendor compiled it at its own path.
      bool must = edits.count(*it) > 0 || !program_.embeddedFiles.empty();
      for (const auto& r : program_.includes)
        if (r.includer == *it && r.included.isValid() && inlined.count(r.included)) must = true;
      if (!must) continue;
      inlined.insert(*it);
      for (const auto& r : program_.includes)
        if (r.included == *it) inlinedPaths.insert(r.resolvedPath);
    }
    for (auto it = program_.userFiles.rbegin(); it != program_.userFiles.rend(); ++it) {
      clang::FileID fid = *it;
      if (fid != program_.mainFile && !inlined.count(fid)) continue;
      for (const auto& r : program_.includes) {
        if (r.includer != fid || r.endOffset <= r.hashOffset) continue;
        clang::SourceLocation at = sm_.getLocForStartOfFile(fid).getLocWithOffset(r.hashOffset);
        unsigned length = r.endOffset - r.hashOffset;
        if (r.included.isValid() && inlined.count(r.included)) {
          rw.ReplaceText(at, length, inlinable(fileText(rw, r.included)));
        } else if (!r.included.isValid() && inlinedPaths.count(r.resolvedPath)) {
          rw.ReplaceText(at, length, "");
        } else if (!r.resolvedPath.empty() && r.resolvedPath.find('"') == std::string::npos) {
          rw.ReplaceText(at, length, "#include \"" + r.resolvedPath + "\"");
        }
      }
    }
    return fileText(rw, program_.mainFile);
  }

  clang::CompilerInstance& ci_;
  clang::SourceManager& sm_;
  clang::ASTContext& context_;
  const frontend::ParsedProgram& program_;
  unsigned version_;
  std::set<std::string> builtins_;
  std::map<const clang::FunctionDecl*, FunctionInfo> functions_;
  std::vector<const clang::FunctionDecl*> order_; // source order, for stable output
  bool usesBlocks_ = false;
  std::map<const clang::FunctionDecl*, std::vector<const clang::CallExpr*>> callers_;
};

} // namespace

TransformResult transformProgram(clang::CompilerInstance& compiler, const frontend::ParsedProgram& program) {
  try {
    return ProgramTransformer(compiler, program).run();
  } catch (const std::exception& e) {
    TransformResult failed;
    failed.failure = std::string("internal error: ") + e.what();
    log().error("clsplit transformer: {}", failed.failure);
    return failed;
  }
}

} // namespace clsplit::analysis::transformer
