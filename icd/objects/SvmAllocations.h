// The shared virtual memory a context allocated (clSVMAlloc): which allocation a pointer lies in,
// so that kernel arguments, host pointers and frees can be checked without asking a vendor.
// Pure bookkeeping; the memory itself is the SVM device's (Device::svmSlot).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

namespace clsplit::icd {

class SvmAllocations {
public:
  struct Allocation {
    void* base = nullptr;
    size_t size = 0;
    uint64_t flags = 0; // cl_svm_mem_flags
  };

  void add(void* base, size_t size, uint64_t flags);
  // Forgets the allocation starting at `base`; false if there is none.
  bool remove(void* base);
  // The allocation holding `pointer` (anywhere in [base, base + size)).
  std::optional<Allocation> find(const void* pointer) const;
  // Whether [pointer, pointer + size) lies in one allocation.
  bool contains(const void* pointer, size_t size) const;
  bool empty() const;

private:
  mutable std::mutex mutex_;
  std::map<uintptr_t, Allocation> byBase_;
};

} // namespace clsplit::icd
