// The decisions of reads, writes, copies and fills, on hand-made directories.
#include "planner/CommandPlans.h"

#include <catch2/catch.hpp>

using namespace clsplit;
using namespace clsplit::planner;
using buffer::deviceHolder;
using buffer::Directory;
using buffer::DirectoryHolders;
using buffer::kHost;

TEST_CASE("a read takes host copies where the host holds the bytes, else a device's", "[commands]") {
  Directory<int> dir(1000, kHost, 0);
  dir.setOnly(RangeSet::of(100, 300), deviceHolder(1), 0);
  dir.setOnly(RangeSet::of(600, 700), deviceHolder(0), 0);
  auto pieces = planRead(DirectoryHolders<int>(dir), {0, 1000});
  REQUIRE(pieces.size() == 5);
  CHECK(pieces[0] == ReadPiece{{0, 100}, kHost});
  CHECK(pieces[1] == ReadPiece{{100, 300}, deviceHolder(1)});
  CHECK(pieces[2] == ReadPiece{{300, 600}, kHost});
  CHECK(pieces[3] == ReadPiece{{600, 700}, deviceHolder(0)});
  CHECK(pieces[4] == ReadPiece{{700, 1000}, kHost});
}

TEST_CASE("a device read runs on over small runs it also holds (a stencil's border columns)", "[commands]") {
  // Rows of 100 bytes: the device wrote the interior of each row, the host and the device hold
  // the two border bytes.
  Directory<int> dir(1000, kHost, 0);
  dir.addCopy(RangeSet::of(0, 1000), deviceHolder(0), 0);
  for (uint64_t row = 0; row < 10; ++row) dir.setOnly(RangeSet::of(row * 100 + 1, row * 100 + 99), deviceHolder(0), 0);
  auto pieces = planRead(DirectoryHolders<int>(dir), {1, 999});
  REQUIRE(pieces.size() == 1);
  CHECK(pieces[0] == ReadPiece{{1, 999}, deviceHolder(0)});
  // A large host-valid run breaks it: read from the host, which holds it.
  pieces = planRead(DirectoryHolders<int>(dir), {1, 999}, 1);
  CHECK(pieces.size() == 19);
}

TEST_CASE("a copy runs on the device holding most of the source", "[commands]") {
  Directory<int> dir(1000, kHost, 0);
  CHECK_FALSE(deviceHoldingMost(DirectoryHolders<int>(dir), RangeSet::of(0, 1000), 3));
  dir.setOnly(RangeSet::of(0, 300), deviceHolder(0), 0);
  dir.setOnly(RangeSet::of(300, 800), deviceHolder(2), 0);
  CHECK(deviceHoldingMost(DirectoryHolders<int>(dir), RangeSet::of(0, 1000), 3) == 2u);
  CHECK(deviceHoldingMost(DirectoryHolders<int>(dir), RangeSet::of(0, 400), 3) == 0u);
}

TEST_CASE("a host write goes to the one device, to the home device, or to a host version", "[commands]") {
  WriteInput in;
  in.devices = 2;
  in.heldBefore = {RangeSet{}, RangeSet{}};
  in.homeDevice = 1;
  SECTION("one device runs everything") {
    in.onlyDevice = 0u;
    auto plan = planWrite(in, {0, 64});
    CHECK(plan.direct == 0u);
  }
  SECTION("bytes no device holds go to the home device") {
    auto plan = planWrite(in, {0, 64});
    CHECK(plan.direct == 1u);
    CHECK(plan.alsoTo.empty());
  }
  SECTION("... and to every device that may run a slice of them and would fetch it through host memory") {
    in.devices = 4;
    in.heldBefore.assign(4, RangeSet{});
    // Two discrete GPUs of one context (1, 2), another vendor's GPU (0), a GPU selected twice (3 = 1).
    in.traits = {DeviceTraits{0, false, 0}, DeviceTraits{1, false, 1}, DeviceTraits{1, false, 2},
                 DeviceTraits{1, false, 1}};
    in.mayRun = {true, true, true, true};
    auto plan = planWrite(in, {0, 64});
    CHECK(plan.direct == 1u);
    CHECK(plan.alsoTo == std::vector<unsigned>{0, 2}); // not 3: a copy inside device 1's memory
    in.mayRun[2] = false;                              // a static share of 0
    CHECK(planWrite(in, {0, 64}).alsoTo == std::vector<unsigned>{0});
    // Devices sharing the host's memory in one context copy inside their driver instead.
    in.traits = {DeviceTraits{0, true, 0}, DeviceTraits{0, true, 1}, DeviceTraits{0, true, 2},
                 DeviceTraits{0, true, 3}};
    CHECK(planWrite(in, {0, 64}).alsoTo.empty());
  }
  SECTION("bytes devices hold: a host version, uploaded where they were") {
    in.heldBefore = {RangeSet::of(0, 32), RangeSet::of(32, 64)};
    auto plan = planWrite(in, {0, 64});
    CHECK_FALSE(plan.direct);
    REQUIRE(plan.uploads.size() == 2);
    CHECK(plan.uploads[0] == std::make_pair(0u, RangeSet::of(0, 32)));
    CHECK_FALSE(plan.uploadHome);
  }
  SECTION("the application's memory still being written: a host version after it, then the home device") {
    in.hostMemoryPending = true;
    auto plan = planWrite(in, {0, 64});
    CHECK_FALSE(plan.direct);
    CHECK(plan.uploadHome);
  }
  SECTION("windows only: bytes no device held stay on the host; those devices held are updated") {
    in.windowsOnly = true;
    auto plan = planWrite(in, {0, 64});
    CHECK_FALSE(plan.direct);
    CHECK(plan.uploads.empty());
    CHECK_FALSE(plan.uploadHome);
    in.heldBefore = {RangeSet::of(0, 16), RangeSet{}};
    plan = planWrite(in, {0, 64});
    CHECK_FALSE(plan.direct);
    REQUIRE(plan.uploads.size() == 1);
    CHECK(plan.uploads[0] == std::make_pair(0u, RangeSet::of(0, 16)));
    CHECK_FALSE(plan.uploadHome);
    // One device runs everything: its window is where every slice is, the write goes there.
    in.onlyDevice = 1u;
    CHECK(planWrite(in, {0, 64}).direct == 1u);
  }
  SECTION("eager uploads off: a host version only") {
    in.eagerUploads = false;
    auto plan = planWrite(in, {0, 64});
    CHECK_FALSE(plan.direct);
    CHECK(plan.uploads.empty());
    CHECK_FALSE(plan.uploadHome);
  }
}

TEST_CASE("a fill writes every device that has the buffer, else the fallback", "[commands]") {
  CHECK(planFill({false, false, false}, 2) == std::vector<unsigned>{2});
  CHECK(planFill({true, false, true}, 1) == std::vector<unsigned>{0, 2});
}
