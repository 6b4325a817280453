// The analysis library's front door: one call per program at clBuildProgram time that returns
// the partition-ready source for vendors and, per kernel, what the runtime needs to split it.
#pragma once

#include "analysis/region/KernelRegions.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace clsplit::analysis {

// Every partition-ready kernel gets exactly these parameters appended after the user's:
//   ulong4 __clsplit_goffset   original global work offset (x, y, z); w: the slice's id base
//                              on its split dimension, as base * 4 + dimension (0: none)
//   ulong4 __clsplit_gsize     original global work size   (x, y, z); w = 1: the launch is whole
// A sub-launch sets its real global offset/size to its slice; the rewritten built-ins compute
// the original values from these (get_group_id adds (real_offset + id base - orig_offset) /
// local_size; get_global_id adds the id base, so that no real offset reaches 2^31).
inline constexpr unsigned kHiddenArgCount = 2;
inline constexpr const char* kHiddenOffsetName = "__clsplit_goffset";
inline constexpr const char* kHiddenSizeName = "__clsplit_gsize";
// After those, a partition-ready kernel takes one `long` per buffer argument (__global or
// __constant pointer, in order): how many bytes into the buffer the memory it is given starts
// (a device holding a window of the buffer), subtracted from the pointer at entry.
inline constexpr const char* kWindowShiftPrefix = "__clsplit_shift";

enum class ArgKind : uint8_t {
  GlobalBuffer,   // __global T*
  ConstantBuffer, // __constant T*
  LocalBuffer,    // __local T*  (size only, no data)
  Scalar,         // by-value scalar, vector or struct
  Image,          // image2d_t, image3d_t, ...
  Sampler,        // sampler_t
};

// Whether `type` (an argument's type name without qualifiers) is an OpenCL image type: exactly,
// since a program's own types may contain "image" (the conformance suite passes
// `image_kernel_data*`, whose accesses were once ignored as an image's).
inline bool isImageTypeName(std::string_view type) {
  static constexpr std::string_view names[] = {"image1d_t",
                                               "image1d_array_t",
                                               "image1d_buffer_t",
                                               "image2d_t",
                                               "image2d_array_t",
                                               "image3d_t",
                                               "image2d_depth_t",
                                               "image2d_array_depth_t",
                                               "image2d_msaa_t",
                                               "image2d_array_msaa_t",
                                               "image2d_msaa_depth_t",
                                               "image2d_array_msaa_depth_t"};
  for (auto n : names)
    if (n == type) return true;
  return false;
}

// The bytes the runtime gives for an image argument (planner::ArgInput::scalar), which the
// analysis reads as the results of the image's queries: six 32-bit values, width, height, depth,
// array size, channel data type and channel order (0 where the image type has no such size).
inline constexpr size_t kImageQueryBytes = 24;
inline std::optional<uint32_t> imageQueryOffset(std::string_view builtin) {
  static constexpr std::string_view names[] = {"get_image_width",
                                               "get_image_height",
                                               "get_image_depth",
                                               "get_image_array_size",
                                               "get_image_channel_data_type",
                                               "get_image_channel_order"};
  for (uint32_t i = 0; i < 6; ++i)
    if (names[i] == builtin) return i * 4;
  return std::nullopt;
}

struct KernelArg {
  std::string name;
  ArgKind kind = ArgKind::Scalar;
  ScalarType scalarType = ScalarType::Unknown; // Scalar args: their type; buffers: pointee if scalar
  bool readOnlyImage = false;                  // Image args: declared read_only (the default), never written
};

struct SourceLocation {
  std::string file; // "" for the program source itself
  unsigned line = 0;
  unsigned column = 0;
};

struct Diagnostic {
  SourceLocation where;
  std::string message;
};

struct KernelAnalysis {
  std::string name;
  std::vector<KernelArg> args; // the user-visible arguments, in order
  // True when the vendor source gives this kernel the hidden arguments; a kernel the
  // transformer could not rewrite keeps its original signature and is never split.
  bool partitionReady = false;
  // Set when splitting this kernel is unsafe (the reason is shown to users); it then runs whole.
  std::optional<std::string> unsplittableReason;
  // Where the analysis lost precision (access location + what defeated it), for users.
  std::vector<Diagnostic> imprecisions;
  KernelRegions regions; // parametric regions; use instantiate() (Instantiate.h)
};

// A function a program calls but does not define: a unit of clCompileProgram calling into
// another. Calls of a kernel declared there pass the hidden arguments where the unit was made
// partition-ready (its definition takes them in its own unit); clLinkProgram checks both agree.
struct ExternalCall {
  std::string name;
  bool hiddenArguments = false;
  bool operator==(const ExternalCall&) const = default;
};

struct ProgramAnalysis {
  std::string vendorSource; // partition-ready source: what each vendor compiles
  std::vector<KernelAnalysis> kernels;
  std::vector<Diagnostic> errors; // non-empty: the build must fail (e.g. a malformed pragma)
  std::string buildLogNotes;      // human notes appended to the program's build log
  std::vector<ExternalCall> externalCalls;
  bool externalCallsKnown = false; // externalCalls lists every such call (the program parsed)
  // The files on disk the program included (absolute path, fileDigest): a cached analysis is
  // used only while each still has the same contents.
  std::vector<std::pair<std::string, std::string>> includedFiles;

  const KernelAnalysis* find(std::string_view kernel) const {
    for (const auto& k : kernels)
      if (k.name == kernel) return &k;
    return nullptr;
  }
};

struct AnalysisOptions {
  std::string cacheDir; // "" disables the on-disk cache
  std::string hintsDir; // CLSPLIT_HINTS: hint files keyed by source hash / kernel name
  // Preprocessor lines that set the macros the reported device predefines (__OPENCL_VERSION__,
  // feature macros; icd/objects/LanguageFeatures.h): the same text every vendor's build gets
  // before the program, included here after Clang's own header, so both compilers see the
  // same values (frontend::CompileOptions::prelude).
  std::string devicePrelude;
  // The predefined macros that text makes the same for every vendor and here
  // (frontend::CompileOptions::pinnedMacros): branches on them do not stop the split.
  std::vector<std::string> pinnedMacros;
  // clCompileProgram: the program is one unit of a program linked later. Functions another
  // unit may call (external linkage) keep their signatures, so a kernel reaching one that uses
  // NDRange built-ins runs whole; kernels still take the hidden arguments (clLinkProgram checks
  // that no other unit calls them as functions).
  bool compiledUnit = false;
  // clCompileProgram's embedded headers: (name as the program #includes it, text). They are
  // found before files of that name on disk and inlined into the vendor copy.
  std::vector<std::pair<std::string, std::string>> headers;
};

// Parses, analyses and rewrites one program: the analysis proper (front end, transformer,
// analyzer), without the cache. Clang and LLVM: in clsplit_analysis only (analysis/Analyzer.cpp).
// The ICD does not link it but loads it as a module on a cache miss (analysis/module/), so that
// a program whose analyses are cached never loads Clang (~40 ms of every start).
ProgramAnalysis analyzeUncached(std::string_view source, std::string_view buildOptions, const AnalysisOptions& options);
using UncachedAnalyzer = ProgramAnalysis (*)(std::string_view source, std::string_view buildOptions,
                                             const AnalysisOptions& options);

// The cache around `analyzer`: the cached result if there is one, else the analyzer's (stored
// unless it has errors). Never throws: an internal failure (the analyzer's, or a module that
// cannot be loaded) yields runsWhole() with the reason, not cached.
ProgramAnalysis analyzeCached(std::string_view source, std::string_view buildOptions, const AnalysisOptions& options,
                              UncachedAnalyzer analyzer);

// analyzeCached() with the analyzer linked in (clsplit_analysis): tools and tests.
ProgramAnalysis analyzeProgram(std::string_view source, std::string_view buildOptions, const AnalysisOptions& options);

// A result that runs every kernel of `source` whole, for `reason`; vendorSource is the source.
ProgramAnalysis runsWhole(std::string_view source, const std::string& reason);

// Stable hash of (source, options, clsplit version): the cache key and the hint-file name.
std::string programHash(std::string_view source, std::string_view buildOptions);
// The analysis cache's key for the program (changes with the hints and the analysis code).
std::string analysisCacheKey(std::string_view source, std::string_view buildOptions, const AnalysisOptions& options);
// A digest of the file's contents ("" when it cannot be read).
std::string fileDigest(const std::string& path);
// A hash of the analysis sources this library was built from (part of the cache key; the ICD
// loads only an analyzer module built from the same sources).
const char* analysisBuildId();

} // namespace clsplit::analysis
