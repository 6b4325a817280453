// SvmAllocations: which SVM allocation of a context a pointer lies in (pure bookkeeping).
#include "icd/objects/SvmAllocations.h"

#include <catch2/catch.hpp>

#include <array>

using clsplit::icd::SvmAllocations;

TEST_CASE("a pointer is found in the allocation that holds it, and only there", "[svm]") {
  std::array<std::byte, 256> memory{};
  std::byte* a = memory.data();      // [0, 64)
  std::byte* b = memory.data() + 64; // [64, 96): adjacent to a
  std::byte* c = memory.data() + 128;
  SvmAllocations svm;
  CHECK(svm.empty());
  svm.add(a, 64, 1);
  svm.add(b, 32, 2);
  svm.add(c, 16, 4);
  CHECK_FALSE(svm.empty());

  REQUIRE(svm.find(a));
  CHECK(svm.find(a)->base == a);
  CHECK(svm.find(a + 63)->base == a);
  CHECK(svm.find(a + 64)->base == b); // the next allocation's first byte
  CHECK(svm.find(b + 31)->flags == 2);
  CHECK_FALSE(svm.find(b + 32)); // the gap between b and c
  CHECK_FALSE(svm.find(c + 16)); // one past the last
  CHECK_FALSE(svm.find(memory.data() - 1));

  CHECK(svm.contains(a + 8, 56));
  CHECK_FALSE(svm.contains(a + 8, 57)); // runs into b: not one allocation
  CHECK(svm.contains(c, 16));
  CHECK_FALSE(svm.contains(b + 32, 1));
}

TEST_CASE("removed allocations are forgotten; only their base removes them", "[svm]") {
  std::array<std::byte, 64> memory{};
  SvmAllocations svm;
  svm.add(memory.data(), 64, 0);
  CHECK_FALSE(svm.remove(memory.data() + 1)); // not a base
  CHECK(svm.find(memory.data() + 1));
  CHECK(svm.remove(memory.data()));
  CHECK_FALSE(svm.find(memory.data()));
  CHECK_FALSE(svm.remove(memory.data()));
  CHECK(svm.empty());
}
