// The wrapper every dispatch-table slot goes through: implementations throw Error, the wrapper
// turns that into the OpenCL return value or *errcode_ret (with a debug line saying why), and
// no C++ exception ever crosses into the application.
#pragma once

#include "device/Error.h"
#include "device/Submission.h"
#include "icd/objects/Handles.h"
#include "icd/runtime/HostTime.h"
#include "support/Log.h"

#include <atomic>
#include <new>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace clsplit::icd {

namespace detail {

template <class... A>
constexpr bool lastIsErrcode() {
  if constexpr (sizeof...(A) == 0)
    return false;
  else
    return std::is_same_v<std::tuple_element_t<sizeof...(A) - 1, std::tuple<A...>>, cl_int*>;
}

template <class... A>
void setErrcode(cl_int code, A... args) {
  if constexpr (lastIsErrcode<A...>()) {
    cl_int* errcode = std::get<sizeof...(A) - 1>(std::tuple<A...>(args...));
    if (errcode) *errcode = code;
  }
}

// The value an entry point returns on failure: the code itself for cl_int functions, a null
// handle (with errcode_ret set) for the others.
template <class R, class... A>
R failure(cl_int code, A... args) {
  setErrcode(code, args...);
  if constexpr (std::is_same_v<R, cl_int>)
    return code;
  else if constexpr (!std::is_void_v<R>)
    return R{};
}

} // namespace detail

// The entry points that may leave vendor calls deferred to the submission thread
// (device/Submission.h) and make none that must follow them. Every other entry point waits for
// the deferred calls first, so the vendors see every call in the program's order.
template <class Tag>
constexpr bool runsAheadOfSubmission() {
  constexpr std::string_view name = Tag::name;
  return name == "clEnqueueNDRangeKernel" || name == "clSetKernelArg";
}

template <auto Impl, class Tag>
struct Entry;

template <class R, class... A, R (*Impl)(A...), class Tag>
struct Entry<Impl, Tag> {
  static R CL_API_CALL call(A... args) noexcept {
    std::optional<runtime::EntryTimer> timer; // the run report's host_time
    if (runtime::HostTime::on()) timer.emplace(runtime::HostTime::of<Tag>());
    try {
      if constexpr (!runsAheadOfSubmission<Tag>()) device::submission::drain();
      if constexpr (std::is_void_v<R>) {
        Impl(args...);
      } else {
        R result = Impl(args...);
        detail::setErrcode(CL_SUCCESS, args...);
        return result;
      }
    } catch (const Error& e) {
      log().debug("{} -> {}: {}", Tag::name, errorName(e.code()), e.what());
      return detail::failure<R>(e.code(), args...);
    } catch (const std::bad_alloc&) {
      log().error("{}: out of host memory", Tag::name);
      return detail::failure<R>(CL_OUT_OF_HOST_MEMORY, args...);
    } catch (const std::exception& e) {
      log().error("{}: internal error: {}", Tag::name, e.what());
      return detail::failure<R>(CL_OUT_OF_RESOURCES, args...);
    } catch (...) {
      log().error("{}: unknown internal error", Tag::name);
      return detail::failure<R>(CL_OUT_OF_RESOURCES, args...);
    }
  }
};

// A dispatch slot the clsplit platform does not offer: returns `Code` (logged once).
template <class Fn, cl_int Code, class Tag>
struct Unsupported;

template <class R, class... A, cl_int Code, class Tag>
struct Unsupported<R(CL_API_CALL*)(A...), Code, Tag> {
  static R CL_API_CALL call(A... args) noexcept {
    static std::atomic_flag logged = ATOMIC_FLAG_INIT;
    if (!logged.test_and_set())
      log().info("{} is not supported by the clsplit platform (returns {})", Tag::name, errorName(Code));
    return detail::failure<R>(Code, args...);
  }
};

// Slots typed void* in cl_icd.h (interop APIs of other operating systems): a loader that calls
// one still gets an error code instead of a crash.
template <cl_int Code, class Tag>
struct Unsupported<void*, Code, Tag> {
  static cl_int CL_API_CALL call() noexcept {
    log().info("{} is not supported by the clsplit platform", Tag::name);
    return Code;
  }
};

} // namespace clsplit::icd
