// A virtual sampler: the application's sampler state, and one real sampler per real context
// (made on first use by a kernel launched there).
#pragma once

#include "device/Real.h"
#include "icd/objects/Context.h"

#include <mutex>
#include <vector>

namespace clsplit::icd {

class Sampler final : public TypedObject<Sampler, _cl_sampler, ObjectKind::Sampler, CL_INVALID_SAMPLER> {
public:
  // Validated by the caller. `properties`: the list given to clCreateSamplerWithProperties
  // (CL_SAMPLER_PROPERTIES), empty for clCreateSampler.
  Sampler(std::shared_ptr<Context> context, bool normalized, cl_addressing_mode addressing, cl_filter_mode filter,
          std::vector<cl_sampler_properties> properties);

  Context& context() const { return *context_; }
  // The real sampler of `slot`'s real context.
  cl_sampler realFor(unsigned slot);
  cl_int info(cl_sampler_info param, size_t size, void* value, size_t* sizeRet) const;

private:
  std::shared_ptr<Context> context_;
  bool normalized_;
  cl_addressing_mode addressing_;
  cl_filter_mode filter_;
  std::vector<cl_sampler_properties> properties_;
  std::mutex mutex_;
  std::vector<device::RealSampler> real_; // per slot (slots of one real context share theirs)
};

} // namespace clsplit::icd
