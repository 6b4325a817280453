// Element-wise merge of atomic partial results.
#include "buffer-manager/AtomicMerge.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace clsplit::buffer {

using analysis::AtomicOp;
using analysis::ScalarType;

bool atomicMergeable(AtomicOp op, ScalarType type) {
  bool integer =
      type == ScalarType::I32 || type == ScalarType::U32 || type == ScalarType::I64 || type == ScalarType::U64;
  return integer && op != AtomicOp::None;
}

namespace {

template <class T>
void mergeAs(AtomicOp op, std::byte* base, const std::vector<const std::byte*>& partials, size_t bytes) {
  using U = std::make_unsigned_t<T>; // wrapping arithmetic
  for (size_t at = 0; at + sizeof(T) <= bytes; at += sizeof(T)) {
    T b;
    std::memcpy(&b, base + at, sizeof b);
    T r = b;
    bool first = true;
    for (const std::byte* p : partials) {
      T v;
      std::memcpy(&v, p + at, sizeof v);
      switch (op) {
      case AtomicOp::Add:
      case AtomicOp::Sub:
      case AtomicOp::Inc:
      case AtomicOp::Dec:
        r = static_cast<T>(static_cast<U>(r) + (static_cast<U>(v) - static_cast<U>(b)));
        break;
      case AtomicOp::Min:
        r = first ? v : (v < r ? v : r);
        break;
      case AtomicOp::Max:
        r = first ? v : (v > r ? v : r);
        break;
      case AtomicOp::And:
        r = first ? v : static_cast<T>(r & v);
        break;
      case AtomicOp::Or:
        r = first ? v : static_cast<T>(r | v);
        break;
      case AtomicOp::Xor:
        r = static_cast<T>(r ^ (v ^ b));
        break;
      case AtomicOp::None:
        break;
      }
      first = false;
    }
    std::memcpy(base + at, &r, sizeof r);
  }
}

} // namespace

void mergeAtomic(AtomicOp op, ScalarType type, std::byte* base, const std::vector<const std::byte*>& partials,
                 size_t bytes) {
  switch (type) {
  case ScalarType::I32:
    mergeAs<int32_t>(op, base, partials, bytes);
    break;
  case ScalarType::U32:
    mergeAs<uint32_t>(op, base, partials, bytes);
    break;
  case ScalarType::I64:
    mergeAs<int64_t>(op, base, partials, bytes);
    break;
  case ScalarType::U64:
    mergeAs<uint64_t>(op, base, partials, bytes);
    break;
  default:
    break; // not mergeable: callers check atomicMergeable() first
  }
}

} // namespace clsplit::buffer
