// When clsplit steps aside (config/PassThrough.h), the loader is handed the real platform
// itself: every call of the program then goes through the loader straight to the vendor, and
// what the loader looks up by name in clsplit's library is the vendor's. Where that platform has
// other devices too, clsplit first gives it a dispatch table that lists the one device alone
// (OneDevicePlatform.cpp).
#pragma once

#include "icd/objects/Environment.h"

namespace clsplit::icd::passthrough {

// The device the program is handed, or null when clsplit keeps its layer.
const DeviceSlot* target();
// The real platform the loader gets in place of clsplit's.
cl_platform_id platform(const DeviceSlot& target);
// Whether the target's real platform has other devices, which the program must not see.
bool sharesItsPlatform(const DeviceSlot& target);
// Makes `platform` list `device` alone (OneDevicePlatform.cpp), once; false where it cannot
// (clsplit then keeps its layer).
bool listOneDevice(cl_platform_id platform, cl_device_id device);
// The functions of that table that are clsplit's, by name (null for the others).
void* oneDevicePlatformEntry(const char* name);
// The vendor's function `name` (a core entry point from its dispatch table, else its extension
// lookup). Not asked for clIcdGetPlatformIDsKHR, which stays clsplit's (loaderEntryPoint).
void* entryPoint(const DeviceSlot& target, const char* name);

} // namespace clsplit::icd::passthrough
