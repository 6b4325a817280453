// Pass-through lookups: ApiTable.def names every dispatch slot, so a core entry point is found
// in the vendor's own table by name; anything else is the vendor's extension.
#include "icd/api/PassThrough.h"

#include "device/RealCall.h"
#include "icd/runtime/Runtime.h"

#include <cstring>

namespace clsplit::icd::passthrough {

namespace {

template <class Slot>
void* slotAddress(Slot slot) {
  if constexpr (std::is_pointer_v<Slot>)
    return reinterpret_cast<void*>(slot);
  else
    return nullptr;
}

struct NamedSlot {
  const char* name;
  void* (*address)(const cl_icd_dispatch&);
};

const NamedSlot kSlots[] = {
#define CLSPLIT_API(fn) {#fn, [](const cl_icd_dispatch& d) { return slotAddress(d.fn); }},
#define CLSPLIT_UNSUPPORTED(fn, code) CLSPLIT_API(fn)
#include "icd/api/ApiTable.def"
#undef CLSPLIT_API
#undef CLSPLIT_UNSUPPORTED
};

} // namespace

const DeviceSlot* target() {
  // Settled the first time a loader asks (a lookup by name or the platform list, before the
  // program makes any call): a platform that cannot list the one device keeps the layer.
  static const DeviceSlot* const chosen = []() -> const DeviceSlot* {
    const DeviceSlot* slot = runtime::Runtime::get().passThroughSlot();
    if (slot && sharesItsPlatform(*slot) && !listOneDevice(platform(*slot), slot->device->handle)) return nullptr;
    return slot;
  }();
  return chosen;
}

bool sharesItsPlatform(const DeviceSlot& target) {
  return runtime::Runtime::get().vendors().platforms()[target.platform].devices.size() > 1;
}

cl_platform_id platform(const DeviceSlot& target) {
  return runtime::Runtime::get().vendors().platforms()[target.platform].handle;
}

void* entryPoint(const DeviceSlot& target, const char* name) {
  if (sharesItsPlatform(target)) {
    if (void* own = oneDevicePlatformEntry(name)) return own;
    // Not cl_khr_icd 2's loader-managed dispatch: the loader would give the platform a table of
    // its own in place of the one listing the device alone (a vendor whose table is marked for
    // it keeps clsplit's layer; one that only offers it serves its objects from its own tables).
    if (std::strcmp(name, "clIcdGetFunctionAddressForPlatformKHR") == 0 ||
        std::strcmp(name, "clIcdSetPlatformDispatchDataKHR") == 0)
      return nullptr;
  }
  const device::RealPlatform& real = runtime::Runtime::get().vendors().platforms()[target.platform];
  // As a loader that had loaded the vendor itself would be answered: its library's exported
  // lookup first (ICD 2 functions may be found only there), then its dispatch table by name (the
  // core entry points ocl-icd asks for, clGetPlatformInfo), then its per-platform lookup, which
  // an OpenCL 1.1 vendor's table does not reach.
  if (real.exportedLookup)
    if (void* found = real.exportedLookup(name)) return found;
  for (const auto& slot : kSlots)
    if (std::strcmp(slot.name, name) == 0) return slot.address(device::dispatchOf(real.handle));
  if (device::openclVersion(real.version) < std::pair{1, 2}) return nullptr;
  try { // reached from the exported clGetExtensionFunctionAddress, where nothing may throw
    return device::call(&cl_icd_dispatch::clGetExtensionFunctionAddressForPlatform, real.handle, name);
  } catch (const std::exception&) {
    return nullptr;
  }
}

} // namespace clsplit::icd::passthrough
