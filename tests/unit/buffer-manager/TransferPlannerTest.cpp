// planTransfers(): source choice, coalescing and token collection on hand-written scenarios.
#include "buffer-manager/TransferPlanner.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace clsplit;
using namespace clsplit::buffer;

namespace {
constexpr Holder kDev0 = deviceHolder(0);
constexpr Holder kDev1 = deviceHolder(1);
constexpr Holder kDev2 = deviceHolder(2);

// Device-to-device is cheap, anything through the host is expensive.
double peerCheaper(Holder from, Holder to, uint64_t bytes) {
  double perByte = (isDevice(from) && isDevice(to)) ? 1.0 : 10.0;
  return perByte * double(bytes);
}
} // namespace

TEST_CASE("nothing is planned for bytes already valid on the target") {
  Directory<int> dir(100, kHost, 0);
  dir.addCopy(RangeSet::of(0, 100), kDev0, 1);
  CHECK(planTransfers(dir, RangeSet::of(0, 100), kDev0, peerCheaper).empty());
  CHECK(planTransfers(dir, RangeSet{}, kDev1, peerCheaper).empty());
}

TEST_CASE("the cheapest valid source is chosen per piece") {
  Directory<int> dir(100, kHost, 0);
  dir.addCopy(RangeSet::of(0, 50), kDev0, 1); // [0,50) on host and dev0, [50,100) host only
  auto plan = planTransfers(dir, RangeSet::of(0, 100), kDev1, peerCheaper);
  REQUIRE(plan.size() == 2);
  CHECK(plan[0].range == ByteRange{0, 50});
  CHECK(plan[0].from == kDev0);
  CHECK(plan[0].tokens == std::vector<int>{1});
  CHECK(plan[1].range == ByteRange{50, 100});
  CHECK(plan[1].from == kHost);
  CHECK(plan[1].tokens == std::vector<int>{0});
}

TEST_CASE("adjacent pieces from one source coalesce and keep every distinct token") {
  Directory<int> dir(100, kHost, 0);
  dir.setOnly(RangeSet::of(0, 30), kDev0, 1);
  dir.setOnly(RangeSet::of(30, 60), kDev0, 2);
  dir.setOnly(RangeSet::of(60, 70), kDev0, 1);
  dir.addCopy(RangeSet::of(20, 40), kDev2, 3); // dev2 valid on part: does not split the plan
  auto plan = planTransfers(dir, RangeSet::of(10, 70), kDev1, peerCheaper);
  // Every piece costs the same per byte from dev0 and dev2; ties go to the previous source.
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].range == ByteRange{10, 70});
  CHECK(plan[0].from == kDev0);
  CHECK(plan[0].tokens == std::vector<int>{1, 2});
}

TEST_CASE("pieces separated by needed-and-valid bytes or by gaps stay separate") {
  Directory<int> dir(100, kHost, 0);
  dir.addCopy(RangeSet::of(40, 50), kDev1, 1);
  auto plan = planTransfers(dir, RangeSet{{0, 10}, {20, 60}}, kDev1, peerCheaper);
  REQUIRE(plan.size() == 3);
  CHECK(plan[0].range == ByteRange{0, 10});
  CHECK(plan[1].range == ByteRange{20, 40});
  CHECK(plan[2].range == ByteRange{50, 60});
  for (const auto& t : plan) CHECK(t.from == kHost);
}

TEST_CASE("small gaps the source also holds are bridged into one transfer") {
  Directory<int> dir(100, kHost, 0);
  dir.addCopy(RangeSet::of(40, 50), kDev1, 1);
  // Strided need (a stencil's border columns): gaps of 10 bytes, valid on the host.
  auto plan = planTransfers(dir, RangeSet{{0, 10}, {20, 60}}, kDev1, peerCheaper, 10);
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].range == ByteRange{0, 60});
  CHECK(plan[0].from == kHost);
  CHECK(plan[0].tokens == std::vector<int>{0});
  // A gap larger than the bridge stays a gap.
  plan = planTransfers(dir, RangeSet{{0, 10}, {20, 60}}, kDev1, peerCheaper, 9);
  REQUIRE(plan.size() == 3);
}

TEST_CASE("a gap is bridged only when the chosen source holds all of it, and its tokens are kept") {
  Directory<int> dir(100, kHost, 0);
  dir.setOnly(RangeSet::of(0, 10), kDev0, 1);
  dir.setOnly(RangeSet::of(10, 20), kDev2, 2); // the gap lives elsewhere: no bridge
  dir.setOnly(RangeSet::of(20, 30), kDev0, 3);
  auto plan = planTransfers(dir, RangeSet{{0, 10}, {20, 30}}, kDev1, peerCheaper, 64);
  REQUIRE(plan.size() == 2);
  CHECK(plan[0].range == ByteRange{0, 10});
  CHECK(plan[1].range == ByteRange{20, 30});

  dir.addCopy(RangeSet::of(10, 20), kDev0, 4); // now dev0 holds the gap too
  plan = planTransfers(dir, RangeSet{{0, 10}, {20, 30}}, kDev1, peerCheaper, 64);
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].range == ByteRange{0, 30});
  CHECK(plan[0].from == kDev0);
  CHECK(plan[0].tokens == std::vector<int>{1, 4, 3});
}

TEST_CASE("a piece switches source when another holder is strictly cheaper") {
  Directory<int> dir(100, kHost, 0);
  dir.addCopy(RangeSet::of(50, 100), kDev0, 4);
  auto plan = planTransfers(dir, RangeSet::of(0, 100), kDev2, peerCheaper);
  REQUIRE(plan.size() == 2);
  CHECK(plan[0].from == kHost);
  CHECK(plan[0].range == ByteRange{0, 50});
  CHECK(plan[1].from == kDev0);
  CHECK(plan[1].range == ByteRange{50, 100});
  CHECK(plan[1].tokens == std::vector<int>{4});
}

TEST_CASE("a NaN cost never wins and an empty cost function picks the lowest holder") {
  Directory<int> dir(10, kDev0, 1);
  dir.addCopy(RangeSet::of(0, 10), kDev2, 2);
  auto nanForDev0 = [](Holder from, Holder, uint64_t) {
    return from == kDev0 ? std::numeric_limits<double>::quiet_NaN() : 5.0;
  };
  auto plan = planTransfers(dir, RangeSet::of(0, 10), kHost, nanForDev0);
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].from == kDev2);
  plan = planTransfers(dir, RangeSet::of(0, 10), kHost, CostFunction{});
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].from == kDev0);
}

TEST_CASE("need past the end of the buffer plans only existing bytes") {
  Directory<int> dir(64, kHost, 0);
  auto plan = planTransfers(dir, RangeSet::of(32, 1000), kDev0, peerCheaper);
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].range == ByteRange{32, 64});
  CHECK_THROWS_AS(planTransfers(dir, RangeSet::of(0, 1), 64, peerCheaper), std::invalid_argument);
}
