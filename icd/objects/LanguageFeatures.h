// The OpenCL C versions and optional 3.0 features the virtual device offers, from what the real
// devices report: what every one of them has, limited to what clsplit can split or run whole
// with unchanged semantics. Pure: no OpenCL calls (unit-tested without a device).
#pragma once

#include "device/OpenCL.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace clsplit::icd {

using NameVersions = std::vector<cl_name_version>;

// Whether clsplit may offer this OpenCL C 3.0 feature (__opencl_c_*) when every device has it.
// Offered: those whose effects stay inside a work-item or work-group, or that the analysis
// follows (int64, fp64, the atomics' orders and scopes, work-group collectives, dot products).
// Not offered: program-scope globals (one copy per device), generic pointers, subgroups,
// device-side enqueue and pipes. The image features only with `images` (every device has
// images: kernels using them then run whole on one device).
bool offersFeature(std::string_view name, bool images = false);

// The features every device lists (CL_DEVICE_OPENCL_C_FEATURES; a device that answers nothing,
// an OpenCL 1.x one, has none) that clsplit offers, each at the lowest version reported.
NameVersions commonFeatures(const std::vector<NameVersions>& perDevice, bool images = false);

// CL_DEVICE_OPENCL_C_ALL_VERSIONS: 1.0 up to `common1x` (the lowest CL_DEVICE_OPENCL_C_VERSION),
// and 2.0/3.0 where every device lists them (`perDevice` empty for a device that answers nothing).
NameVersions commonCVersions(const std::vector<NameVersions>& perDevice, std::pair<int, int> common1x);

// Whether `versions` holds OpenCL C major.minor.
bool hasCVersion(const NameVersions& versions, int major, int minor);

// The feature macro names clsplit pins: the specification's, those Clang 16 defines for its
// SPIR target (clsplit's own compiler) and `known` (those the real devices list).
std::vector<std::string> featureMacroNames(const std::vector<std::string>& known);

// Lines placed before a program's source for the real compilers, so kernels see the device
// clsplit reports, not the real one: __IMAGE_SUPPORT__ as `images` says (the device reports
// images), __OPENCL_VERSION__ as reported, and of the feature macros (featureMacroNames) exactly
// the `reported` ones, in OpenCL C 3.0 only. Ends with `#line 1`, so build logs keep the
// program's own line numbers.
std::string kernelPrelude(int openclVersion, const NameVersions& reported, const std::vector<std::string>& known,
                          bool images = false);

// The predefined macros the prelude makes the same for every vendor and for clsplit's analysis
// (which includes the same text: analysis::AnalysisOptions::devicePrelude): `#if` chains on them
// need not stop the split (analysis::AnalysisOptions::pinnedMacros).
std::vector<std::string> pinnedMacroNames(const std::vector<std::string>& known);

} // namespace clsplit::icd
