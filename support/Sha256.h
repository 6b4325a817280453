// SHA-256 (FIPS 180-4), for the names clsplit gives programs and cached analyses: here rather
// than LLVM's so that what runs in every process (the ICD) needs no LLVM to compute them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace clsplit {

class Sha256 {
public:
  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  // The digest; the object is spent afterwards.
  std::array<uint8_t, 32> final();
  // The digest in lower-case hexadecimal.
  std::string finalHex();

private:
  void block(const uint8_t* data);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> pending_{};
  size_t pendingSize_ = 0;
  uint64_t totalBytes_ = 0;
};

} // namespace clsplit
