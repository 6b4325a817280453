// The error clsplit code throws for OpenCL failures: an OpenCL error code plus why. The ICD's
// entry-point wrapper turns it into the return value / errcode_ret and a debug log line.
#pragma once

#include "device/OpenCL.h"

#include <stdexcept>
#include <string>

namespace clsplit {

class Error : public std::runtime_error {
public:
  Error(cl_int code, std::string why) : std::runtime_error(std::move(why)), code_(code) {}
  cl_int code() const { return code_; }

private:
  cl_int code_;
};

// Throws Error(code, why) unless `condition` holds.
inline void require(bool condition, cl_int code, const char* why) {
  if (!condition) throw Error(code, why);
}

// The symbolic name of an OpenCL error code ("CL_INVALID_VALUE"), for logs.
const char* errorName(cl_int code);

} // namespace clsplit
