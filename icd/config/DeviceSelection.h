// CLSPLIT_DEVICES: which real devices clsplit splits across.
#pragma once

#include "device/Vendors.h"

#include <string>
#include <vector>

namespace clsplit::icd {

// Parses CLSPLIT_DEVICES against the real devices: "" (all GPUs, else all), "all", "0,2".
// Returns global device indices; unknown indices are reported in `problems`.
std::vector<unsigned> selectDevices(const std::string& spec, const std::vector<device::RealDevice>& devices,
                                    std::vector<std::string>& problems);

} // namespace clsplit::icd
