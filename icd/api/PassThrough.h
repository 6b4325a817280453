// When clsplit steps aside (config/PassThrough.h), the loader is handed the real platform
// itself: every call of the program then goes through the loader straight to the vendor, and
// what the loader looks up by name in clsplit's library is the vendor's.
#pragma once

#include "icd/objects/Environment.h"

namespace clsplit::icd::passthrough {

// The device the program is handed, or null when clsplit keeps its layer.
const DeviceSlot* target();
// The real platform the loader gets in place of clsplit's.
cl_platform_id platform(const DeviceSlot& target);
// The vendor's function `name` (a core entry point from its dispatch table, else its extension
// lookup); null for clIcdGetPlatformIDsKHR, which stays clsplit's.
void* entryPoint(const DeviceSlot& target, const char* name, bool* ownEntryPoint);

} // namespace clsplit::icd::passthrough
