// Builds the dispatch table from ApiTable.def: implemented slots go through Entry, the others
// through Unsupported. Nothing here is written by hand per entry point.
#include "icd/api/Dispatch.h"

#include "device/DriverClock.h"
#include "icd/api/Api.h"
#include "icd/api/Entry.h"
#include "icd/api/PassThrough.h"

#include <cstring>

extern "C" cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint, cl_platform_id*, cl_uint*);

namespace clsplit::icd {

namespace tags {
#define CLSPLIT_API(fn)                                                                                                \
  struct fn {                                                                                                          \
    static constexpr const char* name = #fn;                                                                           \
  };
#define CLSPLIT_UNSUPPORTED(fn, code) CLSPLIT_API(fn)
#include "icd/api/ApiTable.def"
#undef CLSPLIT_API
#undef CLSPLIT_UNSUPPORTED
} // namespace tags

namespace {

template <class Slot, class Fn>
void assign(Slot& slot, Fn fn) {
  if constexpr (std::is_pointer_v<Slot> && !std::is_same_v<Slot, void*>)
    slot = fn;
  else
    slot = reinterpret_cast<void*>(fn);
}

cl_icd_dispatch makeTable() {
  cl_icd_dispatch table;
  std::memset(&table, 0, sizeof table);
  // The slots' names, for the run report's count of vendor calls (device/DriverClock.h).
#define CLSPLIT_API(fn) device::DriverClock::slotNames[device::DriverClock::slotIndex(&cl_icd_dispatch::fn)] = #fn;
#define CLSPLIT_UNSUPPORTED(fn, code) CLSPLIT_API(fn)
#include "icd/api/ApiTable.def"
#undef CLSPLIT_API
#undef CLSPLIT_UNSUPPORTED
#define CLSPLIT_API(fn) assign(table.fn, &Entry<&api::fn, tags::fn>::call);
#define CLSPLIT_UNSUPPORTED(fn, code)                                                                                  \
  assign(table.fn, &Unsupported<decltype(cl_icd_dispatch::fn), code, tags::fn>::call);
#include "icd/api/ApiTable.def"
#undef CLSPLIT_API
#undef CLSPLIT_UNSUPPORTED
  return table;
}

} // namespace

const cl_icd_dispatch* dispatchTable() {
  static const cl_icd_dispatch table = makeTable();
  return &table;
}

void* loaderEntryPoint(const char* name) noexcept {
  if (!name) return nullptr;
  // Loaders ask for this one before calling it: no start-up yet (a start-up failure is then
  // answered by clIcdGetPlatformIDsKHR, which catches it).
  if (std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0) return reinterpret_cast<void*>(&clIcdGetPlatformIDsKHR);
  try {
    if (const DeviceSlot* direct = passthrough::target()) return passthrough::entryPoint(*direct, name);
    return entryPointAddress(name);
  } catch (...) {
    return nullptr; // clsplit could not start: the loader then finds nothing of it
  }
}

void* entryPointAddress(const char* name) {
  if (!name) return nullptr;
  // cl_khr_icd's own function, and the core entry points by name: ICD loaders look some of
  // them up this way (ocl-icd asks for clGetPlatformInfo before using the dispatch table).
  if (std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0) return reinterpret_cast<void*>(&clIcdGetPlatformIDsKHR);
  struct Named {
    const char* name;
    void* address;
  };
  static const Named entries[] = {
#define CLSPLIT_API(fn) {#fn, reinterpret_cast<void*>(&Entry<&api::fn, tags::fn>::call)},
#define CLSPLIT_UNSUPPORTED(fn, code)
#include "icd/api/ApiTable.def"
#undef CLSPLIT_API
#undef CLSPLIT_UNSUPPORTED
  };
  for (const auto& e : entries)
    if (std::strcmp(e.name, name) == 0) return e.address;
  return nullptr;
}

} // namespace clsplit::icd
