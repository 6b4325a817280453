// The clGet*Info protocol in one place (size checks, param_value_size_ret), and the small
// table type every object uses to answer its queries.
#pragma once

#include "device/Error.h"
#include "icd/objects/Handles.h"

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace clsplit::icd {

// The bytes of one answer.
class InfoValue {
public:
  InfoValue() = default;
  template <class T>
  requires std::is_trivially_copyable_v<T>
  static InfoValue of(const T& value) {
    InfoValue v;
    v.bytes_.resize(sizeof(T));
    std::memcpy(v.bytes_.data(), &value, sizeof(T));
    return v;
  }
  static InfoValue string(std::string_view s) { // NUL-terminated, as OpenCL strings are
    InfoValue v;
    v.bytes_.resize(s.size() + 1);
    std::memcpy(v.bytes_.data(), s.data(), s.size());
    return v;
  }
  template <class T>
  static InfoValue array(const std::vector<T>& values) {
    InfoValue v;
    v.bytes_.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(v.bytes_.data(), values.data(), v.bytes_.size());
    return v;
  }
  static InfoValue raw(std::vector<std::byte> bytes) {
    InfoValue v;
    v.bytes_ = std::move(bytes);
    return v;
  }
  const std::vector<std::byte>& bytes() const { return bytes_; }

private:
  std::vector<std::byte> bytes_;
};

// Copies `answer` out following the specification: CL_INVALID_VALUE when param_value is
// given and param_value_size is smaller than the answer.
inline cl_int writeInfo(const InfoValue& answer, size_t size, void* value, size_t* sizeRet) {
  const auto& bytes = answer.bytes();
  if (value) {
    require(size >= bytes.size(), CL_INVALID_VALUE, "param_value_size is smaller than the value");
    if (!bytes.empty()) std::memcpy(value, bytes.data(), bytes.size());
  }
  if (sizeRet) *sizeRet = bytes.size();
  return CL_SUCCESS;
}

template <class Object>
struct InfoEntry {
  cl_uint param;
  InfoValue (*get)(const Object&);
};

// Answers `param` from `table`, or CL_INVALID_VALUE for a name the table does not know.
template <class Object, size_t N>
cl_int answerInfo(const InfoEntry<Object> (&table)[N], const Object& object, cl_uint param, size_t size, void* value,
                  size_t* sizeRet) {
  for (const auto& entry : table)
    if (entry.param == param) return writeInfo(entry.get(object), size, value, sizeRet);
  throw Error(CL_INVALID_VALUE, "unknown param_name " + std::to_string(param));
}

} // namespace clsplit::icd
