// OpenCL error reporting for the workloads: every failing call becomes an exception that names
// the call and the error code, so a broken run ends with a clear message, never a crash.
#pragma once

#include <CL/cl.h>

#include <stdexcept>
#include <string>

namespace clsplit::bench {

class ClError : public std::runtime_error {
public:
  ClError(const std::string& what, cl_int code);
  cl_int code() const { return Code; }

private:
  cl_int Code;
};

/// The symbolic name of an OpenCL status code ("CL_OUT_OF_RESOURCES"), or its number.
std::string clErrorName(cl_int code);

inline void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw ClError(call, status);
}

} // namespace clsplit::bench
