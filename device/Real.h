// Owning references to real (vendor) OpenCL objects: retain on copy, release on destruction.
#pragma once

#include "device/RealCall.h"

#include <atomic>
#include <utility>

namespace clsplit::device {

// References to real objects clsplit holds right now (tests check that a program which released
// everything leaves none behind).
inline std::atomic<long> liveRealReferences{0};

template <class H>
struct RealTraits;
#define CLSPLIT_REAL_TRAITS(H, Retain, Release)                                                                        \
  template <>                                                                                                          \
  struct RealTraits<H> {                                                                                               \
    static void retain(H h) { call(&cl_icd_dispatch::Retain, h); }                                                     \
    static void release(H h) { call(&cl_icd_dispatch::Release, h); }                                                   \
  };
CLSPLIT_REAL_TRAITS(cl_context, clRetainContext, clReleaseContext)
CLSPLIT_REAL_TRAITS(cl_command_queue, clRetainCommandQueue, clReleaseCommandQueue)
CLSPLIT_REAL_TRAITS(cl_mem, clRetainMemObject, clReleaseMemObject)
CLSPLIT_REAL_TRAITS(cl_program, clRetainProgram, clReleaseProgram)
CLSPLIT_REAL_TRAITS(cl_kernel, clRetainKernel, clReleaseKernel)
CLSPLIT_REAL_TRAITS(cl_event, clRetainEvent, clReleaseEvent)
CLSPLIT_REAL_TRAITS(cl_sampler, clRetainSampler, clReleaseSampler)
#undef CLSPLIT_REAL_TRAITS

template <class H>
class Real {
public:
  Real() = default;
  // Takes over one reference the caller owns (what clCreate* returns).
  static Real adopt(H h) {
    Real r;
    r.h_ = h;
    if (h) ++liveRealReferences;
    return r;
  }
  // Adds a reference of our own.
  static Real retainOf(H h) {
    if (h) RealTraits<H>::retain(h);
    return adopt(h);
  }
  Real(const Real& o) : h_(o.h_) {
    if (h_) {
      RealTraits<H>::retain(h_);
      ++liveRealReferences;
    }
  }
  Real(Real&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Real& operator=(Real o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  ~Real() {
    if (h_) {
      RealTraits<H>::release(h_);
      --liveRealReferences;
    }
  }

  H get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  bool operator==(const Real& o) const { return h_ == o.h_; }

private:
  H h_ = nullptr;
};

using RealContext = Real<cl_context>;
using RealQueue = Real<cl_command_queue>;
using RealMem = Real<cl_mem>;
using RealProgram = Real<cl_program>;
using RealKernel = Real<cl_kernel>;
using RealEvent = Real<cl_event>;
using RealSampler = Real<cl_sampler>;

} // namespace clsplit::device
