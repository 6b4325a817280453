// Directory and planTransfers against a byte-array model: every byte keeps its own holder -> token
// map; thousands of random operations must agree with it on every query and keep the invariant.
#include "buffer-manager/TransferPlanner.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>
#include <vector>

using namespace clsplit;
using namespace clsplit::buffer;

namespace {

using ByteState = std::map<Holder, int>; // holder -> token, for one byte

struct Model {
  std::vector<ByteState> bytes;

  Model(uint64_t size, Holder h, int token) : bytes(size, ByteState{{h, token}}) {}

  void addCopy(const RangeSet& r, Holder h, int token) {
    forEach(r, [&](ByteState& b) { b[h] = token; });
  }
  void setOnly(const RangeSet& r, Holder h, int token) {
    forEach(r, [&](ByteState& b) { b = ByteState{{h, token}}; });
  }
  void retoken(const RangeSet& r, Holder h, int token) {
    forEach(r, [&](ByteState& b) {
      if (b.count(h)) b[h] = token;
    });
  }
  RangeSet missing(const RangeSet& need, Holder h) const {
    RangeSet out;
    for (const auto& r : need)
      for (uint64_t i = r.lo; i < r.hi && i < bytes.size(); ++i)
        if (!bytes[i].count(h)) out.add({i, i + 1});
    return out;
  }
  size_t maximalRuns() const {
    size_t n = 0;
    for (size_t i = 0; i < bytes.size(); ++i)
      if (i == 0 || bytes[i] != bytes[i - 1]) ++n;
    return n;
  }

  template <class F>
  void forEach(const RangeSet& r, F&& f) {
    for (const auto& x : r)
      for (uint64_t i = x.lo; i < x.hi && i < bytes.size(); ++i) f(bytes[i]);
  }
};

ByteState stateOf(const Cell<int>& cell) {
  ByteState s;
  for (const auto& c : cell.copies) s[c.holder] = c.token;
  return s;
}

// The whole directory, byte by byte, equals the model; runs are maximal.
void checkAgainstModel(const Directory<int>& dir, const Model& model) {
  REQUIRE(dir.invariantHolds());
  uint64_t covered = 0;
  bool ok = true;
  dir.visit({0, dir.size()}, [&](ByteRange r, const Cell<int>& cell) {
    if (r.lo != covered) ok = false;
    covered = r.hi;
    ByteState s = stateOf(cell);
    for (uint64_t i = r.lo; i < r.hi; ++i)
      if (model.bytes[i] != s) ok = false;
  });
  REQUIRE(ok);
  REQUIRE(covered == dir.size());
  REQUIRE(dir.runCount() == model.maximalRuns());
}

RangeSet randomSet(std::mt19937_64& rng, uint64_t size) {
  RangeSet s;
  int pieces = std::uniform_int_distribution<int>(0, 3)(rng);
  // Sometimes past the end, to exercise clipping.
  std::uniform_int_distribution<uint64_t> pos(0, size + size / 8 + 1);
  for (int i = 0; i < pieces; ++i) {
    uint64_t a = pos(rng), b = pos(rng);
    if (a > b) std::swap(a, b);
    s.add({a, b});
  }
  return s;
}

} // namespace

TEST_CASE("random operations agree with the byte model") {
  std::mt19937_64 rng(GENERATE(1u, 2u, 3u, 4u, 5u));
  const uint64_t size = std::uniform_int_distribution<uint64_t>(1, 400)(rng);
  const Holder holders = 5; // host + 4 devices
  std::uniform_int_distribution<int> holderDist(0, holders - 1), tokenDist(0, 3), opDist(0, 9);

  // Per-byte linear costs, so "cheapest per piece" is "cheapest per byte" and checkable.
  double perByte[holders][holders];
  for (auto& row : perByte)
    for (auto& c : row) c = double(std::uniform_int_distribution<int>(1, 4)(rng));
  CostFunction cost = [&](Holder from, Holder to, uint64_t bytes) { return perByte[from][to] * double(bytes); };

  Directory<int> dir(size, kHost, 0);
  Model model(size, kHost, 0);
  checkAgainstModel(dir, model);

  for (int step = 0; step < 3000; ++step) {
    RangeSet r = randomSet(rng, size);
    Holder h = Holder(holderDist(rng));
    int token = tokenDist(rng);
    int op = opDist(rng);
    if (op < 4) {
      dir.addCopy(r, h, token);
      model.addCopy(r, h, token);
    } else if (op < 7) {
      dir.setOnly(r, h, token);
      model.setOnly(r, h, token);
    } else if (op < 8) {
      dir.retoken(r, h, token);
      model.retoken(r, h, token);
    } else {
      // Queries only.
      REQUIRE(dir.missing(r, h) == model.missing(r, h));
      RangeSet all = RangeSet::of(0, size);
      REQUIRE(dir.validOn(h) == all.minus(model.missing(all, h)));

      auto plan = planTransfers(dir, r, h, cost);
      RangeSet planned;
      for (size_t i = 0; i < plan.size(); ++i) {
        const auto& t = plan[i];
        REQUIRE_FALSE(t.range.empty());
        REQUIRE(t.from != h);
        // Never plan a byte twice; transfers come in address order.
        REQUIRE_FALSE(planned.intersects(RangeSet{t.range}));
        if (i) {
          REQUIRE(plan[i - 1].range.hi <= t.range.lo);
          // Fully coalesced: touching transfers have different sources.
          if (plan[i - 1].range.hi == t.range.lo) REQUIRE(plan[i - 1].from != t.from);
        }
        planned.add(t.range);
        std::set<int> expectedTokens;
        for (uint64_t b = t.range.lo; b < t.range.hi; ++b) {
          const auto& state = model.bytes[b];
          REQUIRE(state.count(t.from)); // the source is valid on every byte it sends
          expectedTokens.insert(state.at(t.from));
          for (const auto& [holder, tok] : state) REQUIRE(perByte[t.from][h] <= perByte[holder][h]);
        }
        REQUIRE(std::set<int>(t.tokens.begin(), t.tokens.end()) == expectedTokens);
        REQUIRE(t.tokens.size() == expectedTokens.size()); // distinct
      }
      REQUIRE(planned == model.missing(r, h));

      // Bridged plans: every missing byte once, every moved byte valid at its source, extra
      // bytes only in gaps of at most the bridge, tokens exactly those of the moved bytes.
      constexpr uint64_t kBridge = 24;
      auto bridged = planTransfers(dir, r, h, cost, kBridge);
      RangeSet moved;
      for (const auto& t : bridged) {
        REQUIRE(t.from != h);
        REQUIRE_FALSE(moved.intersects(RangeSet{t.range}));
        moved.add(t.range);
        std::set<int> expectedTokens;
        for (uint64_t b = t.range.lo; b < t.range.hi; ++b) {
          REQUIRE(model.bytes[b].count(t.from));
          expectedTokens.insert(model.bytes[b].at(t.from));
        }
        REQUIRE(std::set<int>(t.tokens.begin(), t.tokens.end()) == expectedTokens);
      }
      REQUIRE(moved.contains(model.missing(r, h)));
      REQUIRE(bridged.size() <= plan.size());
      for (const auto& extra : moved.minus(model.missing(r, h))) REQUIRE(extra.size() <= kBridge);
    }
    checkAgainstModel(dir, model);
  }
}

TEST_CASE("a long random run of writes and copies keeps the map small") {
  // A buffer split among 4 devices with moving boundaries: the run count is bounded by the
  // number of distinct states that can coexist, not by the number of operations.
  std::mt19937_64 rng(42);
  const uint64_t size = 1 << 20;
  Directory<int> dir(size, kHost, 0);
  for (int it = 0; it < 5000; ++it) {
    std::vector<uint64_t> cut{0};
    for (int d = 1; d < 4; ++d) cut.push_back(std::uniform_int_distribution<uint64_t>(0, size)(rng));
    cut.push_back(size);
    std::sort(cut.begin(), cut.end());
    for (unsigned d = 0; d < 4; ++d) {
      uint64_t lo = cut[d] > 64 ? cut[d] - 64 : 0, hi = std::min(size, cut[d + 1] + 64);
      dir.addCopy(dir.missing(RangeSet::of(lo, hi), deviceHolder(d)), deviceHolder(d), it);
    }
    for (unsigned d = 0; d < 4; ++d) dir.setOnly(RangeSet::of(cut[d], cut[d + 1]), deviceHolder(d), it);
    REQUIRE(dir.runCount() <= 4);
  }
  CHECK(dir.invariantHolds());
}
