// Ring: a bounded FIFO whose pushes overwrite the oldest element and reuse its storage.
#include "support/Ring.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using clsplit::Ring;

namespace {
std::vector<int> contents(const Ring<int>& ring) {
  std::vector<int> v;
  for (int x : ring) v.push_back(x);
  return v;
}
} // namespace

TEST_CASE("a ring keeps the newest elements, oldest first") {
  Ring<int> ring(3);
  CHECK(ring.empty());
  ring.push(1);
  ring.push(2);
  CHECK(contents(ring) == std::vector<int>{1, 2});
  ring.push(3);
  ring.push(4);
  ring.push(5);
  CHECK(ring.size() == 3);
  CHECK(contents(ring) == std::vector<int>{3, 4, 5});
  CHECK(ring.front() == 3);
  CHECK(ring.back() == 5);
  CHECK(ring[1] == 4);
  for (int i = 6; i < 100; ++i) ring.push(i);
  CHECK(contents(ring) == std::vector<int>{97, 98, 99});
  ring.clear();
  CHECK(ring.empty());
  ring.push(7);
  CHECK(contents(ring) == std::vector<int>{7});
}

TEST_CASE("a full ring hands back the oldest slot with its storage") {
  Ring<std::vector<double>> ring(2);
  ring.push().assign(100, 1.0);
  ring.push().assign(100, 2.0);
  auto& reused = ring.push(); // the first element's slot
  CHECK(reused.size() == 100);
  CHECK(reused.front() == 1.0);
  const auto* storage = reused.data();
  reused.assign(50, 3.0); // fits: no new allocation
  CHECK(reused.data() == storage);
  CHECK(ring.size() == 2);
  CHECK(ring.front().front() == 2.0);
  CHECK(ring.back().front() == 3.0);
}

TEST_CASE("a ring of capacity zero holds one element") {
  Ring<std::string> ring(0);
  CHECK(ring.capacity() == 1);
  ring.push("a");
  ring.push("b");
  CHECK(ring.size() == 1);
  CHECK(ring.back() == "b");
}
