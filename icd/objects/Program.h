// A virtual program: the application's source, its analysis (regions + partition-ready
// source) and one real program per real platform, built from the partition-ready source.
#pragma once

#include "analysis/Analysis.h"
#include "icd/objects/Context.h"
#include "icd/objects/ProgramBinary.h"

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace clsplit::icd {

class Program final : public TypedObject<Program, _cl_program, ObjectKind::Program, CL_INVALID_PROGRAM> {
public:
  enum class Kind { Source, Binary, Compiled, Linked };

  Program(std::shared_ptr<Context> context, std::string source, Kind kind = Kind::Source);
  // A program from a clsplit binary: its source and the options it was built with.
  void setBinaryOptions(std::string options) { binaryOptions_ = std::move(options); }

  Context& context() const { return *context_; }
  const std::shared_ptr<Context>& contextRef() const { return context_; }
  const std::string& source() const { return source_; }
  Kind kind() const { return kind_; }

  // clBuildProgram: analysis, rewrite, real builds on every platform in use.
  void build(const std::string& options);
  // clCompileProgram / clLinkProgram: each unit analysed and made partition-ready on its own
  // (a kernel reaching a function of another unit runs whole); the linked program's kernels
  // are split like those of a built one.
  void compile(const std::string& options, const std::vector<std::pair<std::string, Program*>>& headers);
  static std::shared_ptr<Program> link(std::shared_ptr<Context> context, const std::string& options,
                                       const std::vector<std::shared_ptr<Program>>& inputs);

  bool built() const { return status_ == CL_BUILD_SUCCESS; }
  cl_build_status buildStatus() const { return status_; }
  // The real program of real platform `platform` (built), or nullptr.
  cl_program realProgram(unsigned platform) const;
  // Whether the vendors build this program for slot `slot`'s device (all, except where one
  // device runs every launch: that one alone). Kernels have real kernels on these slots only.
  bool builtFor(unsigned slot) const;
  // The analysis of the kernel `name`, or nullptr (not analysed, or analysis unavailable).
  const analysis::KernelAnalysis* kernelAnalysis(const std::string& name) const;
  // Whether the vendors built the partition-ready source (its kernels take the hidden range
  // arguments and can run any slice). Not when one device runs every launch: the application's
  // own source is built then, and its kernels run exactly as they would directly.
  bool partitionReadyBuild() const { return partitionReadyBuild_; }
  const std::string& programHash() const { return hash_; }
  // Whether its kernels may be launched with a local size that does not divide the global size
  // (built as OpenCL C 2.0 or later without -cl-uniform-work-group-size).
  bool nonUniformWorkGroups() const { return nonUniformWorkGroups_.load(std::memory_order_relaxed); }
  std::vector<std::string> kernelNames() const;

  void attachKernel() { ++kernels_; }
  void detachKernel() { --kernels_; }

  cl_int info(cl_program_info param, size_t size, void* value, size_t* sizeRet) const;
  cl_int buildInfo(cl_program_build_info param, size_t size, void* value, size_t* sizeRet) const;

  // A program rebuilt from a clsplit binary (ProgramBinary.h): an executable's is built by
  // clBuildProgram as from source; objects are compiled and linked programs linked here.
  static std::shared_ptr<Program> fromBinary(std::shared_ptr<Context> context, const ProgramBinary& binary);
  // What CL_PROGRAM_BINARIES returns once the program is built, compiled or linked (empty before).
  std::string binary() const;

private:
  // The analysis of the program's source (a unit of clCompileProgram with its embedded
  // headers); throws the build's or compile's failure on malformed pragmas or hints.
  std::shared_ptr<const analysis::ProgramAnalysis> analyse(const std::string& options, const ProgramHeaders& headers);
  void addNotes(const std::string& notes);                                     // under mutex_
  void compileUnit(const std::string& options, const ProgramHeaders& headers); // compile()'s work
  void buildOn(unsigned platform, const std::string& source, const std::string& options, std::string& log,
               cl_int& status);

  std::shared_ptr<Context> context_;
  std::string source_;
  Kind kind_;
  mutable std::mutex mutex_;
  cl_build_status status_ = CL_BUILD_NONE;
  std::string options_;
  std::string binaryOptions_;
  std::string log_;
  std::string hash_;
  std::shared_ptr<const analysis::ProgramAnalysis> analysis_;
  bool partitionReadyBuild_ = false;
  std::optional<ProgramBinary> recipe_;          // how to rebuild it (its binary), once built
  bool fromBinary_ = false;                      // made by clCreateProgramWithBinary
  std::map<unsigned, device::RealProgram> real_; // by real platform
  std::atomic<int> kernels_{0};
  std::atomic<bool> nonUniformWorkGroups_{false};
};

} // namespace clsplit::icd
