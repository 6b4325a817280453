// Element and argument scalar types shared by the region language and the analysis contracts.
#pragma once

#include <cstdint>
#include <string_view>

namespace clsplit::analysis {

enum class ScalarType : uint8_t { Unknown, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64 };

// Commutative atomic updates whose result the kernel does not use: slices that overlap on
// such a region are merged by a reduction (thesis 3.1.4) instead of being serialised.
enum class AtomicOp : uint8_t { None, Add, Sub, Inc, Dec, Min, Max, And, Or, Xor };

inline unsigned scalarSize(ScalarType t) {
  switch (t) {
  case ScalarType::I8:
  case ScalarType::U8:
    return 1;
  case ScalarType::I16:
  case ScalarType::U16:
    return 2;
  case ScalarType::I32:
  case ScalarType::U32:
  case ScalarType::F32:
    return 4;
  case ScalarType::I64:
  case ScalarType::U64:
  case ScalarType::F64:
    return 8;
  case ScalarType::Unknown:
    return 0;
  }
  return 0;
}
inline bool isFloat(ScalarType t) { return t == ScalarType::F32 || t == ScalarType::F64; }
inline bool isSigned(ScalarType t) {
  return t == ScalarType::I8 || t == ScalarType::I16 || t == ScalarType::I32 || t == ScalarType::I64;
}

std::string_view name(ScalarType t); // "int", "uint", "float", ... ("?" for Unknown)
std::string_view name(AtomicOp op);  // "add", "min", ... ("none")

} // namespace clsplit::analysis
