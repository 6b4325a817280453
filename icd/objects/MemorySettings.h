// CLSPLIT_WINDOWS and CLSPLIT_DEVICE_MEMORY, read once: how much of a buffer each device holds,
// and how much memory clsplit's copies may take per device (buffer-manager/storage/DeviceMemory.h).
#pragma once

#include "buffer-manager/storage/DeviceMemory.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace clsplit::icd {

class Settings;

struct MemorySettings {
  buffer::WindowPolicy policy = buffer::WindowPolicy::Auto;
  std::optional<uint64_t> cap; // per real device; none: the device's CL_DEVICE_GLOBAL_MEM_SIZE
};

// A bad value is logged (once) and the default used.
const MemorySettings& memorySettings(const Settings& settings);
// "512M", "2G", "65536" (bytes; K, M, G binary multiples); nullopt if malformed.
std::optional<uint64_t> parseByteSize(std::string_view text);

} // namespace clsplit::icd
