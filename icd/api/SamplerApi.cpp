// Entry points about samplers: with no image support, sampler creation fails as the
// specification says, and no sampler handle is ever valid.
#include "icd/api/Api.h"
#include "icd/objects/Context.h"

namespace clsplit::icd::api {

cl_sampler clCreateSampler(cl_context context, cl_bool, cl_addressing_mode, cl_filter_mode, cl_int*) {
  Context::from(context);
  throw Error(CL_INVALID_OPERATION, "the clsplit device does not support images or samplers");
}

cl_int clRetainSampler(cl_sampler) { throw Error(CL_INVALID_SAMPLER, "no sampler exists"); }
cl_int clReleaseSampler(cl_sampler) { throw Error(CL_INVALID_SAMPLER, "no sampler exists"); }
cl_int clGetSamplerInfo(cl_sampler, cl_sampler_info, size_t, void*, size_t*) {
  throw Error(CL_INVALID_SAMPLER, "no sampler exists");
}

} // namespace clsplit::icd::api
