// Sequence detection from kernel identities.
#include "partitioner/KernelSequence.h"

#include <catch2/catch.hpp>

using namespace clsplit::partition;

namespace {
// Feeds `ids` and returns the position assigned to each launch (-1: none).
std::vector<int> feed(KernelSequence& s, const std::vector<uint32_t>& ids) {
  std::vector<int> out;
  for (auto id : ids) {
    auto step = s.observe(id);
    out.push_back(step.position ? int(*step.position) : -1);
  }
  return out;
}
} // namespace

TEST_CASE("a repeated pair is found after two passes") {
  KernelSequence s;
  auto pos = feed(s, {7, 1, 2, 1, 2, 1, 2});
  CHECK(pos == std::vector<int>{-1, -1, -1, -1, 1, 0, 1});
  CHECK(s.locked());
  CHECK(s.sequence() == std::vector<uint32_t>{1, 2});
  CHECK(s.generation() == 1);
}

TEST_CASE("ping-pong launches of one kernel are a sequence of one") {
  // Swapped buffers and changing scalars do not change the kernel identity.
  KernelSequence s;
  auto pos = feed(s, {3, 3, 3, 3});
  CHECK(pos == std::vector<int>{-1, 0, 0, 0});
  CHECK(s.sequence() == std::vector<uint32_t>{3});
  CHECK(s.iterations() == 3);
}

TEST_CASE("iteration starts are flagged") {
  KernelSequence s;
  feed(s, {1, 2, 3, 1, 2, 3});
  REQUIRE(s.locked());
  auto a = s.observe(1), b = s.observe(2);
  CHECK(a.iterationStart);
  CHECK_FALSE(b.iterationStart);
  CHECK(s.iterations() == 2);
}

TEST_CASE("a repeated kernel inside a longer step is not mistaken for the step") {
  // Step = stencil, stencil, copy: "a a" locks a period of one until 'b' breaks it; after two
  // full steps the real period of three holds.
  KernelSequence s;
  std::vector<uint32_t> ids;
  for (int i = 0; i < 6; ++i) ids.insert(ids.end(), {1, 1, 2});
  feed(s, ids);
  CHECK(s.locked());
  CHECK(s.sequence().size() == 3);
  auto before = s.generation();
  feed(s, {1, 1, 2, 1, 1, 2});
  CHECK(s.generation() == before); // stays locked
}

TEST_CASE("leaving the loop breaks the lock; non-iterative programs never lock") {
  KernelSequence s;
  feed(s, {1, 2, 1, 2, 1, 2});
  REQUIRE(s.locked());
  auto step = s.observe(9);
  CHECK_FALSE(step.position);
  CHECK_FALSE(s.locked());
  CHECK(s.breaks() == 1);

  KernelSequence once;
  auto pos = feed(once, {1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(std::all_of(pos.begin(), pos.end(), [](int p) { return p == -1; }));
  CHECK_FALSE(once.locked());
}

TEST_CASE("sequences longer than the limit are not locked") {
  KernelSequence s(4);
  std::vector<uint32_t> ids;
  for (int r = 0; r < 4; ++r)
    for (uint32_t k = 0; k < 6; ++k) ids.push_back(k);
  feed(s, ids);
  CHECK_FALSE(s.locked());
  KernelSequence t(8);
  feed(t, ids);
  CHECK(t.locked());
  CHECK(t.sequence().size() == 6);
}
