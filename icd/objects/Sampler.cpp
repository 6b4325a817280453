// Samplers: real samplers per real context, queries.
#include "icd/objects/Sampler.h"

#include "icd/objects/InfoQuery.h"

namespace clsplit::icd {

Sampler::Sampler(std::shared_ptr<Context> context, bool normalized, cl_addressing_mode addressing,
                 cl_filter_mode filter, std::vector<cl_sampler_properties> properties)
    : context_(std::move(context)), normalized_(normalized), addressing_(addressing), filter_(filter),
      properties_(std::move(properties)), real_(context_->slots().size()) {}

cl_sampler Sampler::realFor(unsigned slot) {
  std::lock_guard lock(mutex_);
  auto& mine = real_.at(slot);
  if (mine) return mine.get();
  const cl_context realContext = context_->slot(slot).context;
  for (unsigned s = 0; s < real_.size(); ++s) // a slot of the same real context made one already
    if (real_[s] && context_->slot(s).context == realContext) return (mine = real_[s]).get();
  cl_int err = CL_SUCCESS;
  cl_sampler real = device::call(&cl_icd_dispatch::clCreateSampler, realContext,
                                 cl_bool(normalized_ ? CL_TRUE : CL_FALSE), addressing_, filter_, &err);
  device::check(err, "clCreateSampler (a real sampler)");
  mine = device::RealSampler::adopt(real);
  return real;
}

cl_int Sampler::info(cl_sampler_info param, size_t size, void* value, size_t* sizeRet) const {
  static const InfoEntry<Sampler> table[] = {
      {CL_SAMPLER_REFERENCE_COUNT, [](const Sampler& s) { return InfoValue::of(s.referenceCount()); }},
      {CL_SAMPLER_CONTEXT, [](const Sampler& s) { return InfoValue::of(s.context().handle()); }},
      {CL_SAMPLER_NORMALIZED_COORDS,
       [](const Sampler& s) { return InfoValue::of(cl_bool(s.normalized_ ? CL_TRUE : CL_FALSE)); }},
      {CL_SAMPLER_ADDRESSING_MODE, [](const Sampler& s) { return InfoValue::of(s.addressing_); }},
      {CL_SAMPLER_FILTER_MODE, [](const Sampler& s) { return InfoValue::of(s.filter_); }},
      {CL_SAMPLER_PROPERTIES, [](const Sampler& s) { return InfoValue::array(s.properties_); }},
  };
  return answerInfo(table, *this, param, size, value, sizeRet);
}

} // namespace clsplit::icd
