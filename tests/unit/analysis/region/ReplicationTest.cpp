// replicateSlices(): widened slices own every byte that may be written, each owned byte's possible
// writers all run in its owner's slice, and impossible cases are refused. Checked on hand-made
// cases and on random "may-write windows" against a per-byte model of who may write what.
#include "analysis/region/Replication.h"

#include <catch2/catch.hpp>

#include <random>

using namespace clsplit;
using namespace clsplit::analysis;

namespace {

int kBufferA, kBufferB; // their addresses name two buffers

// Group g may write bytes [g*stride - before, g*stride + stride + after) of A (clipped at 0),
// the over-approximation of a kernel whose real writes are [g*stride, (g+1)*stride).
std::function<WriteRegions(uint64_t, uint64_t)> windows(uint64_t stride, uint64_t before, uint64_t after) {
  return [=](uint64_t b, uint64_t e) {
    uint64_t lo = b * stride > before ? b * stride - before : 0;
    return WriteRegions{{&kBufferA, RangeSet::of(lo, e * stride + after)}};
  };
}

RangeSet owned(const ReplicatedSlice& s, const void* buffer) {
  for (const auto& [key, set] : s.owned)
    if (key == buffer) return set;
  return {};
}

// The invariants every result must satisfy, against the per-group write function itself.
void checkPlan(const std::vector<ReplicatedSlice>& plan, uint64_t total,
               const std::function<WriteRegions(uint64_t, uint64_t)>& writesOf,
               const std::vector<const void*>& buffers) {
  for (const void* buffer : buffers) {
    RangeSet all;
    for (uint64_t g = 0; g < total; ++g)
      for (const auto& [key, set] : writesOf(g, g + 1))
        if (key == buffer) all.add(set);
    RangeSet union_;
    for (const auto& s : plan) {
      RangeSet mine = owned(s, buffer);
      REQUIRE_FALSE(union_.intersects(mine)); // one owner per byte
      union_.add(mine);
      // Every group that may write an owned byte runs in the owner's (widened) slice.
      for (uint64_t g = 0; g < total; ++g) {
        if (g >= s.begin && g < s.end) continue;
        for (const auto& [key, set] : writesOf(g, g + 1))
          if (key == buffer) REQUIRE_FALSE(set.intersects(mine));
      }
    }
    REQUIRE(union_.contains(all)); // every byte anyone may write has an owner
  }
}

} // namespace

TEST_CASE("overlapping may-write windows are resolved by widening neighbours") {
  // 4-byte elements, each group writes its 16 bytes but is bounded 12 bytes wider on each side
  // (the block reversal of the integration tests).
  auto writesOf = windows(16, 12, 12);
  std::vector<std::pair<uint64_t, uint64_t>> split{{0, 10}, {10, 20}};
  auto plan = replicateSlices(split, 20, writesOf);
  REQUIRE(plan.size() == 2);
  CHECK(plan[0].begin == 0);
  CHECK(plan[0].end == 11); // one group of overlap each way is enough
  CHECK(plan[1].begin == 9);
  CHECK(plan[1].end == 20);
  checkPlan(plan, 20, writesOf, {&kBufferA});
}

TEST_CASE("wider windows need wider replication; three slices widen on both inner sides") {
  auto writesOf = windows(8, 20, 20); // reaches 3 groups each way
  std::vector<std::pair<uint64_t, uint64_t>> split{{0, 16}, {16, 32}, {32, 48}};
  auto plan = replicateSlices(split, 48, writesOf);
  REQUIRE(plan.size() == 3);
  CHECK(plan[0].end - 16 == plan[1].end - 32); // the same width h at every boundary
  CHECK(plan[0].end > 16 + 2);                 // at least 3 groups: h = 4
  CHECK(plan[1].begin < 16);
  CHECK(plan[2].end == 48);
  checkPlan(plan, 48, writesOf, {&kBufferA});
}

TEST_CASE("a byte every group may write has no owner: no replication") {
  auto writesOf = [](uint64_t b, uint64_t e) {
    return WriteRegions{{&kBufferA, RangeSet::of(0, 4).united(RangeSet::of(100 + b * 4, 100 + e * 4))}};
  };
  CHECK(replicateSlices({{0, 8}, {8, 16}}, 16, writesOf).empty());
}

TEST_CASE("replication stops at the smallest slice") {
  auto writesOf = windows(4, 64, 64); // reaches 16 groups each way
  CHECK(replicateSlices({{0, 4}, {4, 8}}, 8, writesOf).empty());
  CHECK_FALSE(replicateSlices({{0, 40}, {40, 80}}, 80, writesOf).empty());
}

TEST_CASE("a single slice needs no replication") { CHECK(replicateSlices({{0, 8}}, 8, windows(4, 4, 4)).empty()); }

TEST_CASE("several buffers are owned independently") {
  auto writesOf = [](uint64_t b, uint64_t e) {
    return WriteRegions{{&kBufferA, RangeSet::of(b * 8 > 4 ? b * 8 - 4 : 0, e * 8 + 4)},
                        {&kBufferB, RangeSet::of(b * 2, e * 2)}}; // exact, disjoint
  };
  auto plan = replicateSlices({{0, 6}, {6, 12}}, 12, writesOf);
  REQUIRE(plan.size() == 2);
  checkPlan(plan, 12, writesOf, {&kBufferA, &kBufferB});
}

TEST_CASE("random may-write windows: ownership invariants hold whenever a plan is returned") {
  std::mt19937_64 rng(20261124);
  int planned = 0;
  for (int trial = 0; trial < 300; ++trial) {
    uint64_t stride = 1 + rng() % 16, before = rng() % 48, after = rng() % 48;
    uint64_t total = 4 + rng() % 60;
    unsigned parts = 2 + unsigned(rng() % 3);
    std::vector<std::pair<uint64_t, uint64_t>> split;
    uint64_t begin = 0;
    for (unsigned p = 0; p < parts; ++p) {
      uint64_t end = p + 1 == parts ? total : std::min(total - (parts - p - 1), begin + 1 + rng() % (total / parts));
      if (end <= begin) break;
      split.emplace_back(begin, end);
      begin = end;
    }
    if (split.size() < 2 || split.back().second != total) continue;
    // Sometimes a second buffer every group may write at one spot (never ownable).
    bool shared = rng() % 5 == 0;
    auto base = windows(stride, before, after);
    std::function<WriteRegions(uint64_t, uint64_t)> writesOf = [&](uint64_t b, uint64_t e) {
      auto w = base(b, e);
      if (shared) w.emplace_back(&kBufferB, RangeSet::of(0, 1));
      return w;
    };
    auto plan = replicateSlices(split, total, writesOf);
    if (shared) {
      CHECK(plan.empty());
      continue;
    }
    if (plan.empty()) continue;
    ++planned;
    REQUIRE(plan.size() == split.size());
    for (size_t i = 0; i < plan.size(); ++i) { // widened, never shrunk
      REQUIRE(plan[i].begin <= split[i].first);
      REQUIRE(plan[i].end >= split[i].second);
    }
    checkPlan(plan, total, writesOf, {&kBufferA});
  }
  CHECK(planned > 50);
}
