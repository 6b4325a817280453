// SvmAllocations: an interval map of the context's SVM allocations.
#include "icd/objects/SvmAllocations.h"

namespace clsplit::icd {

void SvmAllocations::add(void* base, size_t size, uint64_t flags) {
  std::lock_guard lock(mutex_);
  byBase_[reinterpret_cast<uintptr_t>(base)] = Allocation{base, size, flags};
}

bool SvmAllocations::remove(void* base) {
  std::lock_guard lock(mutex_);
  return byBase_.erase(reinterpret_cast<uintptr_t>(base)) > 0;
}

std::optional<SvmAllocations::Allocation> SvmAllocations::find(const void* pointer) const {
  const auto at = reinterpret_cast<uintptr_t>(pointer);
  std::lock_guard lock(mutex_);
  auto it = byBase_.upper_bound(at);
  if (it == byBase_.begin()) return std::nullopt;
  --it;
  if (at - it->first >= it->second.size) return std::nullopt;
  return it->second;
}

bool SvmAllocations::contains(const void* pointer, size_t size) const {
  auto a = find(pointer);
  if (!a) return false;
  const auto offset = reinterpret_cast<uintptr_t>(pointer) - reinterpret_cast<uintptr_t>(a->base);
  return size <= a->size - offset;
}

bool SvmAllocations::empty() const {
  std::lock_guard lock(mutex_);
  return byBase_.empty();
}

} // namespace clsplit::icd
