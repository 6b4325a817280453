// When clsplit steps aside (config/PassThrough.h), the loader is handed the real platform
// itself: every call of the program then goes through the loader straight to the vendor, and
// what the loader looks up by name in clsplit's library is the vendor's. Where that platform has
// other devices too, it gets a platform of clsplit's that lists the one device alone
// (OneDevicePlatform.cpp) and answers the calls that take the platform; all others still go
// straight to the vendor.
#pragma once

#include "icd/objects/Environment.h"

namespace clsplit::icd::passthrough {

// The device the program is handed, or null when clsplit keeps its layer.
const DeviceSlot* target();
// The platform the loader gets in place of clsplit's: the real one, or oneDevicePlatform().
cl_platform_id platform(const DeviceSlot& target);
// Whether the target's real platform has other devices, which the program must not see.
bool sharesItsPlatform(const DeviceSlot& target);
// The platform listing the target alone, and its own functions by name (null for the others).
cl_platform_id oneDevicePlatform();
void* oneDevicePlatformEntry(const char* name);
// The vendor's function `name` (a core entry point from its dispatch table, else its extension
// lookup); null for clIcdGetPlatformIDsKHR, which stays clsplit's.
void* entryPoint(const DeviceSlot& target, const char* name, bool* ownEntryPoint);

} // namespace clsplit::icd::passthrough
