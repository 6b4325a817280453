// Loads the ICD core module (IcdModule.cpp) once and hands out its dispatch table: the
// in-process tests call clsplit's entry points directly, without an ICD loader in between, so
// invalid handles reach clsplit itself (a loader would dereference them first).
#pragma once

#include "device/OpenCL.h" // the ICD's own view: every dispatch slot with its function type

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

namespace clsplit::test {

struct IcdModule {
  const cl_icd_dispatch* dispatch = nullptr;
  size_t (*liveHandles)() = nullptr;
  long (*liveRealReferences)() = nullptr; // references to vendor objects clsplit holds
  size_t (*liveHostBytes)() = nullptr;    // host memory clsplit owns (staging, host versions)
};

inline const IcdModule& icdModule() {
  static const IcdModule module = [] {
    IcdModule m;
    void* library = dlopen(CLSPLIT_TEST_ICD_MODULE, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      std::fprintf(stderr, "cannot load %s: %s\n", CLSPLIT_TEST_ICD_MODULE, dlerror());
      std::abort();
    }
    auto dispatch = reinterpret_cast<const cl_icd_dispatch* (*)()>(dlsym(library, "clsplitTestDispatch"));
    m.liveHandles = reinterpret_cast<size_t (*)()>(dlsym(library, "clsplitTestLiveHandles"));
    m.liveRealReferences = reinterpret_cast<long (*)()>(dlsym(library, "clsplitTestLiveRealReferences"));
    m.liveHostBytes = reinterpret_cast<size_t (*)()>(dlsym(library, "clsplitTestLiveHostBytes"));
    if (!dispatch || !m.liveHandles || !m.liveRealReferences || !m.liveHostBytes) {
      std::fprintf(stderr, "%s lacks the test entry points\n", CLSPLIT_TEST_ICD_MODULE);
      std::abort();
    }
    m.dispatch = dispatch();
    return m;
  }();
  return module;
}

} // namespace clsplit::test
