// Program building: analysis first, then the vendors' compilers on the partition-ready source
// (falling back to the original source, unsplit, if a vendor rejects the rewrite).
#include "icd/objects/Program.h"

#include "analysis/cli/KernelReport.h"
#include "analysis/frontend/BuildOptions.h"
#include "analysis/module/AnalyzerModule.h"
#include "icd/objects/Device.h"
#include "icd/objects/Environment.h"
#include "icd/objects/InfoQuery.h"
#include "support/Log.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace clsplit::icd {

using device::call;
using device::invoke;

namespace {

// Whether the vendors build for `slot`'s device: every device, except where one device runs
// every launch (one selected, or `single`): then that one alone, as a direct run of it builds
// for it alone (building for PoCL's second device too took a short program's start-up from
// 66 to 98 ms on the 2-core machine).
bool builtForSlot(const Context& context, unsigned slot) {
  const std::optional<unsigned> only = environment().partitioner().onlyDevice();
  return !only || *only >= context.slots().size() || context.slot(slot).device == context.slot(*only).device;
}

std::vector<cl_device_id> platformDevices(const Context& context, unsigned platform) {
  std::vector<cl_device_id> devices;
  for (unsigned i = 0; i < context.slots().size(); ++i) { // a device selected twice is built for once
    const auto& s = context.slot(i);
    if (s.platform == platform && builtForSlot(context, i) &&
        std::find(devices.begin(), devices.end(), s.device) == devices.end())
      devices.push_back(s.device);
  }
  return devices;
}

cl_context platformContext(const Context& context, unsigned platform) {
  for (const auto& s : context.slots())
    if (s.platform == platform) return s.context;
  return nullptr;
}

std::vector<unsigned> platformsOf(const Context& context) {
  std::vector<unsigned> platforms;
  for (unsigned i = 0; i < context.slots().size(); ++i) {
    const unsigned platform = context.slot(i).platform;
    if (builtForSlot(context, i) && std::find(platforms.begin(), platforms.end(), platform) == platforms.end())
      platforms.push_back(platform);
  }
  return platforms;
}

std::string realBuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (call(&cl_icd_dispatch::clGetProgramBuildInfo, program, device, cl_program_build_info(CL_PROGRAM_BUILD_LOG),
           size_t(0), static_cast<void*>(nullptr), &size) != CL_SUCCESS)
    return {};
  std::string log(size, '\0');
  call(&cl_icd_dispatch::clGetProgramBuildInfo, program, device, cl_program_build_info(CL_PROGRAM_BUILD_LOG), size,
       static_cast<void*>(log.data()), static_cast<size_t*>(nullptr));
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::string defaultCacheDir(const std::string& setting) {
  if (setting == "off") return {};
  if (!setting.empty()) return setting;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/clsplit";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/clsplit";
  return {};
}

} // namespace

Program::Program(std::shared_ptr<Context> context, std::string source, Kind kind)
    : context_(std::move(context)), source_(std::move(source)), kind_(kind) {}

bool Program::builtFor(unsigned slot) const { return builtForSlot(*context_, slot); }

cl_program Program::realProgram(unsigned platform) const {
  std::lock_guard lock(mutex_);
  auto it = real_.find(platform);
  return it == real_.end() ? nullptr : it->second.get();
}

const analysis::KernelAnalysis* Program::kernelAnalysis(const std::string& name) const {
  std::lock_guard lock(mutex_);
  return analysis_ ? analysis_->find(name) : nullptr;
}

namespace {
// A kernel must see the device clsplit reports, not the real one (the conformance suite's
// kernel_preprocessor_macros and features_macro check both): the real builds get the device's
// prelude first (no __IMAGE_SUPPORT__, its __OPENCL_VERSION__, only its feature macros;
// Device::kernelPrelude), and -cl-std of its OpenCL C version unless the program gives one:
// without it a compiler uses "the highest OpenCL C 1.x version the device supports" - the real
// device's, which may be newer than the one clsplit reports (PoCL 3.1 compiles OpenCL C 3.0).
// -cl-uniform-work-group-size is left out: clsplit enforces it at each launch
// (clEnqueueNDRangeKernel), and NVIDIA's compiler rejects the option (PoCL 5 warns that it
// ignores it), so a program that passes it builds wherever it would build without it.
std::string asReportedOptions(std::string options, const Device& device) {
  static constexpr std::string_view kUniform = "-cl-uniform-work-group-size";
  for (size_t at = options.find(kUniform); at != std::string::npos; at = options.find(kUniform, at)) {
    const size_t end = at + kUniform.size();
    const bool word = (at == 0 || std::isspace(static_cast<unsigned char>(options[at - 1]))) &&
                      (end == options.size() || std::isspace(static_cast<unsigned char>(options[end])));
    if (word)
      options.erase(at, kUniform.size());
    else
      at = end;
  }
  if (options.find("-cl-std=") != std::string::npos) return options;
  const auto [major, minor] = device.cLanguageVersion();
  return options + (options.empty() ? "" : " ") + "-cl-std=CL" + std::to_string(major) + "." + std::to_string(minor);
}

std::string asReportedDevice(const std::string& source, const Device& device) {
  return device.kernelPrelude() + source;
}

// OpenCL C 2.0 and later let a launch's last work-group be smaller than the others unless the
// program asks for uniform ones; OpenCL C 1.x (clsplit's default, as the vendors') does not.
bool allowsNonUniformWorkGroups(const std::string& options) {
  if (analysis::frontend::parseBuildOptions(options).effectiveVersion() < 200) return false;
  const auto words = analysis::frontend::splitOptionWords(options);
  return std::find(words.begin(), words.end(), "-cl-uniform-work-group-size") == words.end();
}
} // namespace

namespace {
// What a vendor compiles for `programSource`. Kernels move their buffer pointers by the window
// shifts only where windows may exist, and add slices' id bases only where launches may be
// split (analysis/transformer/Prelude.cpp): neither costs a kernel on one device anything.
std::string vendorText(const Context& context, const std::string& programSource) {
  return std::string(context.deviceMemory() ? "#define __CLSPLIT_WINDOWS 1\n" : "") +
         (context.slots().size() > 1 ? "#define __CLSPLIT_SPLITS 1\n" : "") +
         asReportedDevice(programSource, context.device());
}

// One platform's clCompileProgram of `programSource` with the embedded headers: the real
// object, or nothing (the vendor's log in `log` either way).
std::optional<device::RealProgram> compileUnitOn(const Context& context, unsigned platform,
                                                 const std::string& programSource, const std::string& options,
                                                 const ProgramHeaders& headers, std::string& log, cl_int& status) {
  cl_context ctx = platformContext(context, platform);
  auto devices = platformDevices(context, platform);
  std::vector<device::RealProgram> headerPrograms;
  std::vector<cl_program> headerHandles;
  std::vector<const char*> headerNames;
  for (const auto& [name, text] : headers) {
    const char* chars = text.c_str();
    size_t length = text.size();
    cl_int err = CL_SUCCESS;
    cl_program h = call(&cl_icd_dispatch::clCreateProgramWithSource, ctx, 1u, &chars, &length, &err);
    device::check(err, "clCreateProgramWithSource (header)");
    headerPrograms.push_back(device::RealProgram::adopt(h));
    headerHandles.push_back(h);
    headerNames.push_back(name.c_str());
  }
  const std::string source = vendorText(context, programSource);
  const char* text = source.c_str();
  size_t length = source.size();
  cl_int err = CL_SUCCESS;
  cl_program real = call(&cl_icd_dispatch::clCreateProgramWithSource, ctx, 1u, &text, &length, &err);
  device::check(err, "clCreateProgramWithSource");
  auto program = device::RealProgram::adopt(real);
  const std::string realOptions = asReportedOptions(options, context.device());
  err = call(&cl_icd_dispatch::clCompileProgram, real, static_cast<cl_uint>(devices.size()), devices.data(),
             realOptions.c_str(), static_cast<cl_uint>(headerHandles.size()),
             headerHandles.empty() ? nullptr : headerHandles.data(), headerNames.empty() ? nullptr : headerNames.data(),
             static_cast<void(CL_CALLBACK*)(cl_program, void*)>(nullptr), static_cast<void*>(nullptr));
  for (cl_device_id d : devices) {
    std::string l = realBuildLog(real, d);
    if (!l.empty()) log += (log.empty() ? "" : "\n") + l;
  }
  status = err;
  if (err != CL_SUCCESS) return std::nullopt;
  return program;
}

// A unit clsplit could not parse (its external calls unknown): every identifier of its text
// and embedded headers counts as a call that passes no hidden arguments, so that the link
// falls back only where it may call a kernel of another unit that takes them.
std::shared_ptr<const analysis::ProgramAnalysis>
withCallsFromText(const analysis::ProgramAnalysis& analysis, const std::string& source, const ProgramHeaders& headers) {
  auto known = std::make_shared<analysis::ProgramAnalysis>(analysis);
  std::set<std::string> names;
  auto scan = [&](const std::string& text) {
    for (size_t i = 0; i < text.size();) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (std::isalpha(c) || c == '_') {
        size_t end = i;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
        names.insert(text.substr(i, end - i));
        i = end;
      } else if (std::isdigit(c)) {
        while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
      } else {
        ++i;
      }
    }
  };
  scan(source);
  for (const auto& [name, text] : headers) scan(text);
  known->externalCalls.clear();
  for (const std::string& name : names) known->externalCalls.push_back({name, false});
  known->externalCallsKnown = true;
  return known;
}

// `analysis` as of a unit its vendors compiled from the application's own source.
std::shared_ptr<const analysis::ProgramAnalysis> asOwnSource(const analysis::ProgramAnalysis& analysis,
                                                             const std::string& reason) {
  auto own = std::make_shared<analysis::ProgramAnalysis>(analysis);
  for (auto& kernel : own->kernels) {
    if (kernel.partitionReady && !kernel.unsplittableReason) kernel.unsplittableReason = reason;
    kernel.partitionReady = false;
  }
  for (auto& call : own->externalCalls) call.hiddenArguments = false;
  return own;
}

// The objects of `recipe` compiled for `platform` from the application's own sources (no
// rewrite), libraries expanded into their objects: the inputs of a link that must not be
// partition-ready. False when one does not compile.
bool ownObjectsOn(const Context& context, unsigned platform, const ProgramBinary& recipe,
                  std::vector<device::RealProgram>& objects, std::string& log) {
  if (recipe.type == ProgramBinary::Type::Linked) {
    for (const ProgramBinary& input : recipe.inputs)
      if (!ownObjectsOn(context, platform, input, objects, log)) return false;
    return true;
  }
  cl_int status = CL_SUCCESS;
  auto object = compileUnitOn(context, platform, recipe.source, recipe.options, recipe.headers, log, status);
  if (!object) return false;
  objects.push_back(std::move(*object));
  return true;
}
} // namespace

void Program::buildOn(unsigned platform, const std::string& programSource, const std::string& options, std::string& log,
                      cl_int& status) {
  cl_context ctx = platformContext(*context_, platform);
  auto devices = platformDevices(*context_, platform);
  const std::string source = vendorText(*context_, programSource);
  const char* text = source.c_str();
  size_t length = source.size();
  cl_int err = CL_SUCCESS;
  cl_program real = call(&cl_icd_dispatch::clCreateProgramWithSource, ctx, 1u, &text, &length, &err);
  if (err != CL_SUCCESS) {
    status = err;
    log = std::string("clCreateProgramWithSource failed: ") + errorName(err);
    return;
  }
  auto program = device::RealProgram::adopt(real);
  const std::string realOptions = asReportedOptions(options, context_->device());
  err = call(&cl_icd_dispatch::clBuildProgram, real, static_cast<cl_uint>(devices.size()), devices.data(),
             realOptions.c_str(), static_cast<void(CL_CALLBACK*)(cl_program, void*)>(nullptr),
             static_cast<void*>(nullptr));
  status = err;
  const bool ok = err == CL_SUCCESS;
  const auto& env = environment();
  for (cl_device_id d : devices) {
    std::string deviceLog = realBuildLog(real, d);
    if (deviceLog.empty()) continue;
    std::string name;
    for (const auto& s : env.slots())
      if (s.device->handle == d) name = s.device->name;
    log += (log.empty() ? "" : "\n") + std::string("--- ") + name + " ---\n" + deviceLog;
  }
  if (ok) {
    std::lock_guard lock(mutex_);
    real_[platform] = std::move(program);
  }
}

namespace {
// CLSPLIT_HINTS_DUMP: the program's source and its kernels' verdicts, named after its hash (the
// name its hint file takes). A failure to write is logged, never the application's problem.
void dumpForHints(const std::string& dir, const std::string& programSource, const analysis::ProgramAnalysis& analysis,
                  const std::string& hash, const std::string& options) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::filesystem::path base = std::filesystem::path(dir) / hash;
  std::ofstream source(base.string() + ".cl");
  source << programSource;
  std::ofstream text(base.string() + ".txt");
  text << analysis::hintsDump(analysis, hash, options);
  if (!source || !text)
    log().warn("cannot write the hint dump of program {} into {}", hash, dir);
  else
    log().info("hint dump of program {} written to {}.txt", hash, base.string());
}
} // namespace

std::shared_ptr<const analysis::ProgramAnalysis> Program::analyse(const std::string& options,
                                                                  const ProgramHeaders& headers) {
  // Analysed even when nothing will be split (strategy single, one device): the argument
  // descriptions and precise regions still serve validation and transfers. (Cached on disk.)
  const auto& env = environment();
  const Device& device = context_->device();
  analysis::AnalysisOptions ao;
  ao.cacheDir = defaultCacheDir(env.settings().value("CLSPLIT_CACHE_DIR"));
  ao.hintsDir = env.settings().value("CLSPLIT_HINTS");
  ao.devicePrelude = device.kernelPrelude();
  ao.pinnedMacros = device.pinnedMacros();
  ao.compiledUnit = kind_ == Kind::Compiled;
  ao.headers = headers;
  EnvironmentSpan span("analysis");
  auto result = std::make_shared<const analysis::ProgramAnalysis>(
      analysis::analyzeCached(source_, options, ao, analysis::module::loadingAnalyzer()));
  if (result->errors.empty()) return result;
  std::string log;
  for (const auto& e : result->errors)
    log += (e.where.file.empty() ? "<source>" : e.where.file) + ":" + std::to_string(e.where.line) +
           ": error: " + e.message + "\n";
  const bool unit = kind_ == Kind::Compiled;
  // Logged too: a closed program may never show its build log.
  clsplit::log().error("{} fails on clsplit pragmas or hint files:\n{}", unit ? "clCompileProgram" : "clBuildProgram",
                       log);
  std::lock_guard lock(mutex_);
  log_ = log;
  status_ = CL_BUILD_ERROR;
  throw Error(unit ? CL_COMPILE_PROGRAM_FAILURE : CL_BUILD_PROGRAM_FAILURE, "clsplit pragma error (see the build log)");
}

void Program::addNotes(const std::string& notes) {
  // Notes (over-approximated accesses, kernels that will not split, applied hints) are for
  // whoever tunes the split; programs that warn on any compiler output (pyopencl) get none.
  if (notes.empty()) return;
  if (environment().settings().value("CLSPLIT_BUILD_NOTES") == "1")
    log_ += (log_.empty() ? "" : "\n") + notes;
  else
    clsplit::log().info("analysis notes of a program:\n{}", notes);
}

void Program::build(const std::string& requested) {
  // A clsplit binary carries the options it was built with; they come first.
  const std::string options = binaryOptions_.empty() ? requested : binaryOptions_ + " " + requested;
  require(kernels_.load() == 0, CL_INVALID_OPERATION, "kernel objects are attached to the program");
  // The binary of a linked program was linked again when it was loaded: building it is the
  // specification's formality (PoCL accepts it for libraries too).
  if (kind_ == Kind::Linked && fromBinary_) return;
  require(kind_ == Kind::Source || kind_ == Kind::Binary, CL_INVALID_OPERATION,
          "program was not created from source or binary");
  {
    std::lock_guard lock(mutex_);
    status_ = CL_BUILD_IN_PROGRESS;
    options_ = options;
    log_.clear();
    real_.clear();
    analysis_.reset();
  }
  auto& env = environment();
  std::shared_ptr<const analysis::ProgramAnalysis> result = analyse(options, {});
  const std::string notes = result->buildLogNotes;
  hash_ = analysis::programHash(source_, options);
  if (const auto& dir = env.settings().value("CLSPLIT_HINTS_DUMP"); !dir.empty())
    dumpForHints(dir, source_, *result, hash_, options);

  // Builds every platform at once; returns the first vendor error (CL_SUCCESS if none).
  auto compileAll = [&](const std::string& source, std::string& log) {
    auto platforms = platformsOf(*context_);
    std::vector<std::string> logs(platforms.size());
    std::vector<cl_int> statuses(platforms.size(), CL_BUILD_PROGRAM_FAILURE);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < platforms.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          buildOn(platforms[i], source, options, logs[i], statuses[i]);
        } catch (const std::exception& e) {
          logs[i] = e.what();
        }
      });
    for (auto& t : threads) t.join();
    log.clear();
    for (auto& l : logs)
      if (!l.empty()) log += (log.empty() ? "" : "\n") + l;
    // Vendors answer invalid options differently (NVIDIA: a failed build, PoCL: invalid
    // options); the application gets the specific answer if any vendor gave it.
    if (std::find(statuses.begin(), statuses.end(), CL_INVALID_BUILD_OPTIONS) != statuses.end())
      return cl_int(CL_INVALID_BUILD_OPTIONS);
    for (cl_int s : statuses)
      if (s != CL_SUCCESS) return s;
    return cl_int(CL_SUCCESS);
  };

  std::string buildLog;
  EnvironmentSpan buildSpan("vendor builds");
  // One device runs every launch (one selected, or `single`): nothing is ever sliced, so the
  // vendors build the application's source. The rewrite's hidden arguments cost PoCL 0.2-0.5 us
  // per launch, and its index arithmetic runs in every work-item.
  bool partitionReady = result && !env.partitioner().onlyDevice();
  cl_int status = compileAll(partitionReady ? result->vendorSource : source_, buildLog);
  bool ok = status == CL_SUCCESS;
  // Invalid options are the application's error whatever the source: report them as such.
  if (!ok && status != CL_INVALID_BUILD_OPTIONS && partitionReady && result->vendorSource != source_) {
    // The partition-ready source must compile wherever the original does: if a vendor rejects
    // it, run this program unsplit rather than fail the application's build.
    std::string rewriteLog = buildLog;
    {
      std::lock_guard lock(mutex_);
      real_.clear();
    }
    status = compileAll(source_, buildLog);
    ok = status == CL_SUCCESS;
    if (ok) {
      log().warn("the partition-ready source of a program failed to build; its kernels run "
                 "unsplit. Vendor log:\n{}",
                 rewriteLog);
      result.reset();
      partitionReady = false;
    }
  }
  std::lock_guard lock(mutex_);
  analysis_ = result;
  partitionReadyBuild_ = ok && partitionReady;
  if (ok) recipe_ = ProgramBinary{ProgramBinary::Type::Executable, source_, options, {}, {}};
  log_ = buildLog;
  if (ok) addNotes(notes);
  nonUniformWorkGroups_ = ok && allowsNonUniformWorkGroups(options_);
  status_ = ok ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
  if (status == CL_INVALID_BUILD_OPTIONS) throw Error(status, "the build options are invalid");
  if (!ok) throw Error(CL_BUILD_PROGRAM_FAILURE, "the program failed to build (see the build log)");
}

void Program::compile(const std::string& options, const std::vector<std::pair<std::string, Program*>>& headerPrograms) {
  require(kernels_.load() == 0, CL_INVALID_OPERATION, "kernel objects are attached to the program");
  require(kind_ == Kind::Source || kind_ == Kind::Compiled, CL_INVALID_OPERATION,
          "program was not created from source");
  ProgramHeaders headers;
  for (const auto& [name, header] : headerPrograms) headers.emplace_back(name, header->source());
  {
    std::lock_guard lock(mutex_);
    kind_ = Kind::Compiled;
    status_ = CL_BUILD_IN_PROGRESS;
    options_ = options;
    log_.clear();
    real_.clear();
    analysis_.reset();
    recipe_.reset();
  }
  try {
    compileUnit(options, headers);
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (status_ == CL_BUILD_IN_PROGRESS) status_ = CL_BUILD_ERROR;
    throw;
  }
}

void Program::compileUnit(const std::string& options, const ProgramHeaders& headers) {
  // A unit is analysed and rewritten like a whole program, except that functions other units
  // may call keep their signatures (analysis::AnalysisOptions::compiledUnit).
  std::shared_ptr<const analysis::ProgramAnalysis> result = analyse(options, headers);
  if (!result->externalCallsKnown) result = withCallsFromText(*result, source_, headers);
  std::map<unsigned, device::RealProgram> objects;
  bool invalidOptions = false;
  auto compileAll = [&](const std::string& source, std::string& log) {
    objects.clear();
    log.clear();
    bool ok = true;
    for (unsigned platform : platformsOf(*context_)) {
      cl_int status = CL_SUCCESS;
      auto object = compileUnitOn(*context_, platform, source, options, headers, log, status);
      invalidOptions |= status == CL_INVALID_COMPILER_OPTIONS;
      if (object)
        objects.emplace(platform, std::move(*object));
      else
        ok = false;
    }
    return ok;
  };
  std::string log;
  bool partitionReady = !environment().partitioner().onlyDevice();
  bool ok = compileAll(partitionReady ? result->vendorSource : source_, log);
  // Invalid options are the application's error whatever the source.
  if (!ok && !invalidOptions && partitionReady && result->vendorSource != source_) {
    const std::string rewriteLog = log;
    ok = compileAll(source_, log);
    if (ok)
      clsplit::log().warn("the partition-ready source of a compiled program failed to compile; its kernels run "
                          "unsplit. Vendor log:\n{}",
                          rewriteLog);
    partitionReady = false;
  }
  // What the link checks is what the vendors compiled: from the unit's own source, no kernel
  // takes the hidden arguments and no call passes them.
  if (!partitionReady) result = asOwnSource(*result, "its unit was compiled from its own source");
  std::lock_guard lock(mutex_);
  hash_ = analysis::programHash(source_, options);
  real_ = std::move(objects);
  analysis_ = result;
  partitionReadyBuild_ = ok && partitionReady;
  nonUniformWorkGroups_ = allowsNonUniformWorkGroups(options);
  log_ = log;
  status_ = ok ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
  if (ok) {
    recipe_ = ProgramBinary{ProgramBinary::Type::Object, source_, options, headers, {}};
    if (result) addNotes(result->buildLogNotes);
  }
  if (invalidOptions) throw Error(CL_INVALID_COMPILER_OPTIONS, "the compile options are invalid");
  if (!ok) throw Error(CL_COMPILE_PROGRAM_FAILURE, "the program failed to compile (see the build log)");
}

namespace {
// The analyses of a link's inputs as one program (each as its vendors compiled it).
std::shared_ptr<analysis::ProgramAnalysis>
linkedAnalysis(const std::vector<std::shared_ptr<const analysis::ProgramAnalysis>>& units) {
  auto linked = std::make_shared<analysis::ProgramAnalysis>();
  linked->externalCallsKnown = true;
  for (const auto& unit : units) {
    linked->kernels.insert(linked->kernels.end(), unit->kernels.begin(), unit->kernels.end());
    for (const analysis::ExternalCall& call : unit->externalCalls)
      if (std::find(linked->externalCalls.begin(), linked->externalCalls.end(), call) == linked->externalCalls.end())
        linked->externalCalls.push_back(call);
    linked->externalCallsKnown &= unit->externalCallsKnown;
  }
  return linked;
}

// Why the linked units disagree on a kernel's signature, or "": a unit calls another unit's
// kernel with the hidden arguments where that kernel does not take them, or the other way
// round (one of the two units compiled from its own source), or a unit whose calls are unknown
// (clsplit could not parse it) may call a kernel that takes them.
std::string signatureMismatch(const analysis::ProgramAnalysis& linked) {
  for (const analysis::ExternalCall& call : linked.externalCalls)
    if (const auto* kernel = linked.find(call.name); kernel && kernel->partitionReady != call.hiddenArguments)
      return "kernel '" + call.name + "' is called from another compiled unit " +
             (call.hiddenArguments ? "with" : "without") + " the hidden arguments it " +
             (kernel->partitionReady ? "takes" : "does not take");
  if (!linked.externalCallsKnown)
    for (const auto& kernel : linked.kernels)
      if (kernel.partitionReady) return "a compiled unit clsplit could not parse may call kernel '" + kernel.name + "'";
  return {};
}
} // namespace

std::shared_ptr<Program> Program::link(std::shared_ptr<Context> context, const std::string& options,
                                       const std::vector<std::shared_ptr<Program>>& inputs) {
  auto linked = std::make_shared<Program>(context, "", Kind::Linked);
  std::vector<std::shared_ptr<const analysis::ProgramAnalysis>> units;
  ProgramBinary recipe{ProgramBinary::Type::Linked, "", options, {}, {}};
  bool known = true;
  std::string hashes;
  bool partitionReady = false;
  for (const auto& p : inputs) {
    std::lock_guard lock(p->mutex_);
    require(p->status_ == CL_BUILD_SUCCESS, CL_INVALID_OPERATION, "an input program is not compiled");
    if (p->analysis_) units.push_back(p->analysis_);
    partitionReady |= p->partitionReadyBuild_;
    hashes += p->hash_ + "\n";
    if (p->recipe_)
      recipe.inputs.push_back(*p->recipe_);
    else
      known = false;
  }
  auto analysis = linkedAnalysis(units);
  // Units that disagree on a kernel's signature would call it with the wrong arguments: such a
  // program is linked from objects compiled from the application's own sources, and runs
  // unsplit.
  const std::string mismatch = signatureMismatch(*analysis);
  if (!mismatch.empty()) {
    clsplit::log().warn("{}: the program is linked from its units' own sources and its kernels run unsplit", mismatch);
    require(known, CL_LINK_PROGRAM_FAILURE, "an input program cannot be compiled again from its source");
  }
  std::string log;
  bool ok = true;
  bool invalidOptions = false;
  for (unsigned platform : platformsOf(*context)) {
    cl_context ctx = platformContext(*context, platform);
    auto devices = platformDevices(*context, platform);
    std::vector<cl_program> parts;
    std::vector<device::RealProgram> ownObjects;
    if (mismatch.empty()) {
      for (const auto& p : inputs) {
        cl_program real = p->realProgram(platform);
        require(real != nullptr, CL_INVALID_OPERATION, "an input program is not compiled");
        parts.push_back(real);
      }
    } else {
      bool compiled = true;
      for (const ProgramBinary& input : recipe.inputs)
        if (!ownObjectsOn(*context, platform, input, ownObjects, log)) compiled = false;
      if (!compiled) {
        ok = false;
        break;
      }
      for (const auto& object : ownObjects) parts.push_back(object.get());
    }
    // Linked on every platform even after a link failed on one: a vendor may call invalid
    // options a link failure (NVIDIA's, on a context of two GPUs) where another names them.
    // (Objects that cannot be compiled again end the loop above: nothing to link.)
    cl_int err = CL_SUCCESS;
    cl_program real =
        invoke(ctx, &cl_icd_dispatch::clLinkProgram, ctx, static_cast<cl_uint>(devices.size()), devices.data(),
               options.c_str(), static_cast<cl_uint>(parts.size()), parts.data(),
               static_cast<void(CL_CALLBACK*)(cl_program, void*)>(nullptr), static_cast<void*>(nullptr), &err);
    if (real) {
      for (cl_device_id d : devices) {
        std::string l = realBuildLog(real, d);
        if (!l.empty()) log += (log.empty() ? "" : "\n") + l;
      }
    }
    invalidOptions |= err == CL_INVALID_LINKER_OPTIONS;
    if (err != CL_SUCCESS || !real) {
      ok = false;
      if (real) call(&cl_icd_dispatch::clReleaseProgram, real);
    } else {
      linked->real_[platform] = device::RealProgram::adopt(real);
    }
  }
  linked->options_ = options;
  linked->log_ = log;
  linked->status_ = ok ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
  linked->hash_ = analysis::programHash(hashes, options);
  if (ok) {
    linked->analysis_ = mismatch.empty() ? std::shared_ptr<const analysis::ProgramAnalysis>(std::move(analysis))
                                         : asOwnSource(*analysis, mismatch + ": linked from the units' own sources");
    linked->partitionReadyBuild_ = partitionReady && mismatch.empty();
  }
  // Each object was compiled for uniform work-groups or not; the program allows non-uniform
  // ones where every object does.
  linked->nonUniformWorkGroups_ =
      ok && std::all_of(inputs.begin(), inputs.end(), [](const auto& p) { return p->nonUniformWorkGroups_.load(); });
  if (ok && known) linked->recipe_ = std::move(recipe);
  if (invalidOptions) throw Error(CL_INVALID_LINKER_OPTIONS, "the link options are invalid: " + log);
  if (!ok) throw Error(CL_LINK_PROGRAM_FAILURE, "the program failed to link: " + log);
  return linked;
}

std::vector<std::string> Program::kernelNames() const {
  std::vector<std::string> names;
  cl_program real = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (!real_.empty()) real = real_.begin()->second.get();
  }
  if (!real) return names;
  size_t size = 0;
  if (call(&cl_icd_dispatch::clGetProgramInfo, real, cl_program_info(CL_PROGRAM_KERNEL_NAMES), size_t(0),
           static_cast<void*>(nullptr), &size) == CL_SUCCESS &&
      size) {
    std::string all(size, '\0');
    call(&cl_icd_dispatch::clGetProgramInfo, real, cl_program_info(CL_PROGRAM_KERNEL_NAMES), size,
         static_cast<void*>(all.data()), static_cast<size_t*>(nullptr));
    all.resize(std::strlen(all.c_str()));
    std::stringstream in(all);
    std::string name;
    while (std::getline(in, name, ';'))
      if (!name.empty()) names.push_back(name);
  }
  return names;
}

std::string Program::binary() const {
  std::lock_guard lock(mutex_);
  return status_ == CL_BUILD_SUCCESS && recipe_ ? recipe_->encode() : std::string();
}

std::shared_ptr<Program> Program::fromBinary(std::shared_ptr<Context> context, const ProgramBinary& binary) {
  std::shared_ptr<Program> program;
  switch (binary.type) {
  case ProgramBinary::Type::Executable:
    program = std::make_shared<Program>(context, binary.source, Kind::Binary);
    program->setBinaryOptions(binary.options);
    break;
  case ProgramBinary::Type::Object: {
    std::vector<std::shared_ptr<Program>> keep;
    std::vector<std::pair<std::string, Program*>> headers;
    for (const auto& [name, text] : binary.headers) {
      keep.push_back(std::make_shared<Program>(context, text));
      headers.emplace_back(name, keep.back().get());
    }
    program = std::make_shared<Program>(context, binary.source);
    program->compile(binary.options, headers);
    break;
  }
  case ProgramBinary::Type::Linked: {
    std::vector<std::shared_ptr<Program>> inputs;
    for (const auto& input : binary.inputs) inputs.push_back(fromBinary(context, input));
    program = link(context, binary.options, inputs);
    break;
  }
  }
  program->fromBinary_ = true;
  return program;
}

cl_int Program::info(cl_program_info param, size_t size, void* value, size_t* sizeRet) const {
  switch (param) {
  case CL_PROGRAM_REFERENCE_COUNT:
    return writeInfo(InfoValue::of(referenceCount()), size, value, sizeRet);
  case CL_PROGRAM_CONTEXT:
    return writeInfo(InfoValue::of(context_->handle()), size, value, sizeRet);
  case CL_PROGRAM_NUM_DEVICES:
    return writeInfo(InfoValue::of(cl_uint(1)), size, value, sizeRet);
  case CL_PROGRAM_DEVICES:
    return writeInfo(InfoValue::of(context_->device().handle()), size, value, sizeRet);
  case CL_PROGRAM_SOURCE:
    return writeInfo(InfoValue::string(source_), size, value, sizeRet);
  case CL_PROGRAM_BINARY_SIZES:
    return writeInfo(InfoValue::of(binary().size()), size, value, sizeRet);
  case CL_PROGRAM_BINARIES: {
    writeInfo(InfoValue::of(static_cast<unsigned char*>(nullptr)), size, nullptr, sizeRet);
    if (value) {
      require(size >= sizeof(unsigned char*), CL_INVALID_VALUE, "param_value_size too small");
      auto* target = *static_cast<unsigned char**>(value);
      if (target) {
        std::string bytes = binary();
        std::memcpy(target, bytes.data(), bytes.size());
      }
    }
    return CL_SUCCESS;
  }
  case CL_PROGRAM_NUM_KERNELS:
  case CL_PROGRAM_KERNEL_NAMES: {
    require(built(), CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built");
    auto names = kernelNames();
    if (param == CL_PROGRAM_NUM_KERNELS) return writeInfo(InfoValue::of(names.size()), size, value, sizeRet);
    std::string joined;
    for (const auto& n : names) joined += (joined.empty() ? "" : ";") + n;
    return writeInfo(InfoValue::string(joined), size, value, sizeRet);
  }
  // OpenCL 2.1/2.2 queries of features the device does not offer (IL programs, program-scope
  // global constructors and destructors).
  case CL_PROGRAM_IL:
    return writeInfo(InfoValue::raw({}), size, value, sizeRet);
  case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
  case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
    return writeInfo(InfoValue::of(cl_bool(CL_FALSE)), size, value, sizeRet);
  default:
    throw Error(CL_INVALID_VALUE, "unknown program info");
  }
}

cl_int Program::buildInfo(cl_program_build_info param, size_t size, void* value, size_t* sizeRet) const {
  std::lock_guard lock(mutex_);
  switch (param) {
  case CL_PROGRAM_BUILD_STATUS:
    return writeInfo(InfoValue::of(status_), size, value, sizeRet);
  case CL_PROGRAM_BUILD_OPTIONS:
    return writeInfo(InfoValue::string(options_), size, value, sizeRet);
  case CL_PROGRAM_BUILD_LOG:
    return writeInfo(InfoValue::string(log_), size, value, sizeRet);
  case CL_PROGRAM_BINARY_TYPE: {
    cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
    if (status_ == CL_BUILD_SUCCESS)
      type = kind_ == Kind::Compiled                                  ? CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
             : kind_ == Kind::Linked && recipe_ && recipe_->library() ? CL_PROGRAM_BINARY_TYPE_LIBRARY
                                                                      : CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    return writeInfo(InfoValue::of(type), size, value, sizeRet);
  }
  case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: // no program-scope globals offered
    return writeInfo(InfoValue::of(size_t(0)), size, value, sizeRet);
  default:
    throw Error(CL_INVALID_VALUE, "unknown program build info");
  }
}

} // namespace clsplit::icd
