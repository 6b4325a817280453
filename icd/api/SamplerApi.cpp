// Entry points about samplers (offered where the device offers images).
#include "icd/api/Api.h"
#include "icd/objects/Device.h"
#include "icd/objects/Sampler.h"

namespace clsplit::icd::api {

namespace {

cl_sampler createSampler(cl_context context, cl_bool normalized, cl_addressing_mode addressing, cl_filter_mode filter,
                         std::vector<cl_sampler_properties> properties) {
  auto c = Context::from(context);
  require(c->device().imageSupport(), CL_INVALID_OPERATION, "the clsplit device does not support images");
  require(normalized == CL_TRUE || normalized == CL_FALSE, CL_INVALID_VALUE, "normalized_coords is not a cl_bool");
  require(addressing == CL_ADDRESS_NONE || addressing == CL_ADDRESS_CLAMP_TO_EDGE || addressing == CL_ADDRESS_CLAMP ||
              addressing == CL_ADDRESS_REPEAT || addressing == CL_ADDRESS_MIRRORED_REPEAT,
          CL_INVALID_VALUE, "unknown addressing mode");
  require(filter == CL_FILTER_NEAREST || filter == CL_FILTER_LINEAR, CL_INVALID_VALUE, "unknown filter mode");
  return std::make_shared<Sampler>(c, normalized == CL_TRUE, addressing, filter, std::move(properties))
      ->publishHandle();
}

} // namespace

cl_sampler clCreateSampler(cl_context context, cl_bool normalized, cl_addressing_mode addressing, cl_filter_mode filter,
                           cl_int*) {
  return createSampler(context, normalized, addressing, filter, {});
}

cl_sampler clCreateSamplerWithProperties(cl_context context, const cl_sampler_properties* properties, cl_int*) {
  Context::from(context);
  cl_bool normalized = CL_TRUE;
  cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
  cl_filter_mode filter = CL_FILTER_NEAREST;
  std::vector<cl_sampler_properties> list;
  bool seen[3] = {false, false, false};
  for (const cl_sampler_properties* p = properties; p && p[0]; p += 2) {
    int which = p[0] == CL_SAMPLER_NORMALIZED_COORDS ? 0
                : p[0] == CL_SAMPLER_ADDRESSING_MODE ? 1
                : p[0] == CL_SAMPLER_FILTER_MODE     ? 2
                                                     : -1;
    require(which >= 0, CL_INVALID_VALUE, "unknown sampler property");
    require(!seen[which], CL_INVALID_VALUE, "a sampler property is given twice");
    seen[which] = true;
    if (which == 0)
      normalized = static_cast<cl_bool>(p[1]);
    else if (which == 1)
      addressing = static_cast<cl_addressing_mode>(p[1]);
    else
      filter = static_cast<cl_filter_mode>(p[1]);
    list.insert(list.end(), {p[0], p[1]});
  }
  if (properties) list.push_back(0);
  return createSampler(context, normalized, addressing, filter, std::move(list));
}

cl_int clRetainSampler(cl_sampler sampler) {
  Sampler::from(sampler)->retain();
  return CL_SUCCESS;
}

cl_int clReleaseSampler(cl_sampler sampler) {
  Sampler::from(sampler)->releaseHandle();
  return CL_SUCCESS;
}

cl_int clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param, size_t size, void* value, size_t* size_ret) {
  return Sampler::from(sampler)->info(param, size, value, size_ret);
}

} // namespace clsplit::icd::api
