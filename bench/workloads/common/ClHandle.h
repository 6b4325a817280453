// Move-only owners of OpenCL objects, so that every exit path of a workload releases what it
// created (a run through clsplit checks reference counting too).
#pragma once

#include <CL/cl.h>

#include <utility>

namespace clsplit::bench {

template <typename Handle, cl_int (*Release)(Handle)>
class ClHandle {
public:
  ClHandle() = default;
  explicit ClHandle(Handle handle) : Owned(handle) {}
  ClHandle(const ClHandle&) = delete;
  ClHandle& operator=(const ClHandle&) = delete;
  ClHandle(ClHandle&& other) noexcept : Owned(std::exchange(other.Owned, nullptr)) {}
  ClHandle& operator=(ClHandle&& other) noexcept {
    if (this != &other) {
      reset();
      Owned = std::exchange(other.Owned, nullptr);
    }
    return *this;
  }
  ~ClHandle() { reset(); }

  Handle get() const { return Owned; }
  explicit operator bool() const { return Owned != nullptr; }

  void reset() {
    if (Owned) Release(Owned);
    Owned = nullptr;
  }

private:
  Handle Owned = nullptr;
};

using Context = ClHandle<cl_context, clReleaseContext>;
using Queue = ClHandle<cl_command_queue, clReleaseCommandQueue>;
using Program = ClHandle<cl_program, clReleaseProgram>;
using Kernel = ClHandle<cl_kernel, clReleaseKernel>;
using Buffer = ClHandle<cl_mem, clReleaseMemObject>;

} // namespace clsplit::bench
