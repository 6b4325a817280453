// Directory: the per-buffer holder map, checked on hand-written scenarios.
#include "buffer-manager/Directory.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace clsplit;
using namespace clsplit::buffer;

namespace {
constexpr Holder kDev0 = deviceHolder(0);
constexpr Holder kDev1 = deviceHolder(1);
} // namespace

TEST_CASE("a new directory has one run held by the initial holder") {
  Directory<int> dir(100, kHost, 7);
  CHECK(dir.size() == 100);
  CHECK(dir.runCount() == 1);
  CHECK(dir.invariantHolds());
  CHECK(dir.validOn(kHost) == RangeSet::of(0, 100));
  CHECK(dir.validOn(kDev0).empty());
  CHECK(dir.missing(RangeSet::of(10, 20), kDev0) == RangeSet::of(10, 20));
  CHECK(dir.missing(RangeSet::of(10, 20), kHost).empty());
}

TEST_CASE("holder helpers") {
  CHECK(deviceHolder(0) == 1);
  CHECK(deviceOf(deviceHolder(5)) == 5);
  CHECK_FALSE(isDevice(kHost));
  CHECK(isDevice(deviceHolder(0)));
  CHECK(bit(3) == 8);
}

TEST_CASE("addCopy adds a holder and replaces its token") {
  Directory<int> dir(100, kHost, 0);
  dir.addCopy(RangeSet{{10, 20}, {30, 40}}, kDev0, 1);
  CHECK(dir.invariantHolds());
  CHECK(dir.runCount() == 5);
  CHECK(dir.validOn(kDev0) == RangeSet({{10, 20}, {30, 40}}));
  CHECK(dir.validOn(kHost) == RangeSet::of(0, 100));
  CHECK(dir.missing(RangeSet::of(0, 50), kDev0) == RangeSet({{0, 10}, {20, 30}, {40, 50}}));

  dir.addCopy(RangeSet::of(15, 35), kDev0, 2);
  CHECK(dir.validOn(kDev0) == RangeSet::of(10, 40));
  int seen = 0;
  dir.visit({10, 40}, [&](ByteRange r, const Cell<int>& cell) {
    ++seen;
    REQUIRE(cell.tokenOf(kDev0));
    CHECK(*cell.tokenOf(kDev0) == ((r.lo >= 15 && r.hi <= 35) ? 2 : 1));
    CHECK(*cell.tokenOf(kHost) == 0);
    CHECK(cell.mask() == (bit(kHost) | bit(kDev0)));
  });
  CHECK(seen == 3);
  CHECK(dir.invariantHolds());
}

TEST_CASE("setOnly makes one holder the only valid one") {
  Directory<int> dir(64, kHost, 0);
  dir.addCopy(RangeSet::of(0, 64), kDev0, 1);
  dir.setOnly(RangeSet::of(16, 32), kDev1, 5);
  CHECK(dir.validOn(kHost) == RangeSet({{0, 16}, {32, 64}}));
  CHECK(dir.validOn(kDev0) == RangeSet({{0, 16}, {32, 64}}));
  CHECK(dir.validOn(kDev1) == RangeSet::of(16, 32));
  dir.visit({16, 32}, [&](ByteRange, const Cell<int>& cell) {
    REQUIRE(cell.copies.size() == 1);
    CHECK(cell.copies[0] == Copy<int>{kDev1, 5});
  });
  CHECK(dir.runCount() == 3);
  CHECK(dir.invariantHolds());
}

TEST_CASE("runs with equal cells merge back") {
  Directory<int> dir(1000, kHost, 0);
  dir.setOnly(RangeSet{{100, 200}, {300, 400}, {500, 600}}, kDev0, 1);
  CHECK(dir.runCount() == 7);
  // Writing the gaps with the same holder and token leaves one run for [100,600).
  dir.setOnly(RangeSet{{200, 300}, {400, 500}}, kDev0, 1);
  CHECK(dir.runCount() == 3);
  dir.setOnly(RangeSet{{0, 100}, {600, 1000}}, kDev0, 1);
  CHECK(dir.runCount() == 1);
  // Same holder but a different token is a different state: no merge.
  dir.setOnly(RangeSet::of(0, 10), kDev0, 2);
  CHECK(dir.runCount() == 2);
  CHECK(dir.invariantHolds());
}

TEST_CASE("retoken only touches bytes where the holder is valid") {
  Directory<int> dir(100, kHost, 0);
  dir.addCopy(RangeSet::of(20, 40), kDev0, 1);
  dir.retoken(RangeSet::of(0, 100), kDev0, 9);
  CHECK(dir.validOn(kDev0) == RangeSet::of(20, 40));
  dir.visit({0, 100}, [&](ByteRange r, const Cell<int>& cell) {
    if (r.lo >= 20 && r.hi <= 40) {
      REQUIRE(cell.tokenOf(kDev0));
      CHECK(*cell.tokenOf(kDev0) == 9);
    } else {
      CHECK(cell.tokenOf(kDev0) == nullptr);
    }
    CHECK(*cell.tokenOf(kHost) == 0);
  });
  // Retokening to the token the neighbours have lets runs merge.
  dir.setOnly(RangeSet::of(0, 100), kHost, 3);
  dir.setOnly(RangeSet::of(50, 60), kHost, 4);
  CHECK(dir.runCount() == 3);
  dir.retoken(RangeSet::of(50, 60), kHost, 3);
  CHECK(dir.runCount() == 1);
  CHECK(dir.invariantHolds());
}

TEST_CASE("visit clips to the requested range and to the buffer") {
  Directory<int> dir(50, kHost, 0);
  dir.addCopy(RangeSet::of(10, 20), kDev0, 1);
  std::vector<ByteRange> pieces;
  dir.visit({5, 15}, [&](ByteRange r, const Cell<int>&) { pieces.push_back(r); });
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[0] == ByteRange{5, 10});
  CHECK(pieces[1] == ByteRange{10, 15});
  pieces.clear();
  dir.visit({40, 500}, [&](ByteRange r, const Cell<int>&) { pieces.push_back(r); });
  REQUIRE(pieces.size() == 1);
  CHECK(pieces[0] == ByteRange{40, 50});
  pieces.clear();
  dir.visit({60, 70}, [&](ByteRange r, const Cell<int>&) { pieces.push_back(r); });
  dir.visit({30, 30}, [&](ByteRange r, const Cell<int>&) { pieces.push_back(r); });
  CHECK(pieces.empty());
}

TEST_CASE("ranges past the end are clipped, never stored") {
  Directory<int> dir(100, kHost, 0);
  dir.setOnly(RangeSet::of(90, 200), kDev0, 1);
  dir.addCopy(RangeSet::of(150, 300), kDev1, 1);
  CHECK(dir.validOn(kDev0) == RangeSet::of(90, 100));
  CHECK(dir.validOn(kDev1).empty());
  CHECK(dir.missing(RangeSet::of(80, 500), kDev0) == RangeSet::of(80, 90));
  CHECK(dir.runCount() == 2);
  CHECK(dir.invariantHolds());
}

TEST_CASE("bad holders are reported, not crashed on") {
  Directory<int> dir(10, kHost, 0);
  CHECK_THROWS_AS(dir.addCopy(RangeSet::of(0, 5), kMaxHolders, 1), std::invalid_argument);
  CHECK_THROWS_AS(dir.setOnly(RangeSet::of(0, 5), 200, 1), std::invalid_argument);
  CHECK_THROWS_AS(dir.missing(RangeSet::of(0, 5), 64), std::invalid_argument);
  CHECK_THROWS_AS(Directory<int>(10, 99, 0), std::invalid_argument);
  CHECK(dir.invariantHolds());
  CHECK(dir.runCount() == 1);
  // The highest legal holder works.
  dir.addCopy(RangeSet::of(0, 5), kMaxHolders - 1, 1);
  CHECK(dir.validOn(kMaxHolders - 1) == RangeSet::of(0, 5));
}

TEST_CASE("an empty buffer has no runs and answers queries") {
  Directory<int> dir(0, kHost, 0);
  CHECK(dir.runCount() == 0);
  CHECK(dir.invariantHolds());
  dir.setOnly(RangeSet::of(0, 10), kDev0, 1);
  CHECK(dir.missing(RangeSet::of(0, 10), kDev1).empty());
  CHECK(dir.validOn(kHost).empty());
}

TEST_CASE("an iterated two-device stencil does not grow the map") {
  // Jacobi-1D on 2 devices: each iteration device d writes its half and then needs a one-element
  // halo from the other half, with a fresh token (event) per launch.
  const uint64_t n = 4096, half = n / 2, halo = 8;
  Directory<int> in(n, kHost, 0), out(n, kHost, 0);
  size_t maxRuns = 0;
  for (int it = 1; it <= 2000; ++it) {
    int token = it;
    // Reads: device 0 needs [0, half + halo), device 1 needs [half - halo, n).
    in.addCopy(in.missing(RangeSet::of(0, half + halo), kDev0), kDev0, token);
    in.addCopy(in.missing(RangeSet::of(half - halo, n), kDev1), kDev1, token);
    out.setOnly(RangeSet::of(0, half), kDev0, token);
    out.setOnly(RangeSet::of(half, n), kDev1, token);
    // Copy kernel: out -> in with the same split.
    in.setOnly(RangeSet::of(0, half), kDev0, token);
    in.setOnly(RangeSet::of(half, n), kDev1, token);
    maxRuns = std::max({maxRuns, in.runCount(), out.runCount()});
    REQUIRE(in.invariantHolds());
    REQUIRE(out.invariantHolds());
  }
  CHECK(maxRuns <= 4);
  CHECK(in.runCount() == 2);
  CHECK(out.runCount() == 2);
}
