// support/Sha256.h against the FIPS 180-4 / NIST test vectors, fed whole and in odd pieces.
#include "support/Sha256.h"

#include <catch2/catch.hpp>

#include <string>

using clsplit::Sha256;

namespace {
std::string hexOf(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.finalHex();
}
} // namespace

TEST_CASE("SHA-256 gives the standard's digests", "[sha256]") {
  CHECK(hexOf("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hexOf("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hexOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(hexOf("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
              "mnopqrstnopqrstu") == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(hexOf(std::string(1'000'000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("SHA-256 does not depend on how the input is cut", "[sha256]") {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += char('a' + i % 26) + std::to_string(i);
  const std::string whole = hexOf(text);
  for (size_t piece : {1, 3, 55, 56, 63, 64, 65, 127}) {
    Sha256 h;
    for (size_t at = 0; at < text.size(); at += piece) h.update(std::string_view(text).substr(at, piece));
    CHECK(h.finalHex() == whole);
  }
}
