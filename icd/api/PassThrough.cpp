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

const DeviceSlot* target() { return runtime::Runtime::get().passThroughSlot(); }

cl_platform_id platform(const DeviceSlot& target) {
  return runtime::Runtime::get().vendors().platforms()[target.platform].handle;
}

void* entryPoint(const DeviceSlot& target, const char* name, bool* ownEntryPoint) {
  *ownEntryPoint = std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0;
  if (*ownEntryPoint) return nullptr;
  cl_platform_id real = platform(target);
  for (const auto& slot : kSlots)
    if (std::strcmp(slot.name, name) == 0) return slot.address(device::dispatchOf(real));
  try { // reached from the exported clGetExtensionFunctionAddress too, where nothing may throw
    return device::call(&cl_icd_dispatch::clGetExtensionFunctionAddressForPlatform, real, name);
  } catch (const std::exception&) {
    return nullptr; // an OpenCL 1.1 vendor: none of its extensions is reachable so
  }
}

} // namespace clsplit::icd::passthrough
