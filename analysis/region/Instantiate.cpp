// instantiate() and chooseSplitDimension(): parametric regions -> byte ranges of one slice.
#include "analysis/region/Instantiate.h"

#include "analysis/Analysis.h"
#include "analysis/region/Evaluator.h"

#include <algorithm>
#include <cstring>

namespace clsplit::analysis {

ScalarValue decodeScalar(const std::byte* bytes, ScalarType type) {
  ScalarValue v;
  auto as = [&](auto sample) {
    decltype(sample) x;
    std::memcpy(&x, bytes, sizeof x);
    return x;
  };
  switch (type) {
  case ScalarType::I8:
    v.i = as(int8_t{});
    break;
  case ScalarType::U8:
    v.i = as(uint8_t{});
    break;
  case ScalarType::I16:
    v.i = as(int16_t{});
    break;
  case ScalarType::U16:
    v.i = as(uint16_t{});
    break;
  case ScalarType::I32:
    v.i = as(int32_t{});
    break;
  case ScalarType::U32:
    v.i = as(uint32_t{});
    break;
  case ScalarType::I64:
    v.i = as(int64_t{});
    break;
  case ScalarType::U64:
    v.i = static_cast<int64_t>(as(uint64_t{}));
    break;
  case ScalarType::F32:
    v.isFloat = true;
    v.f = as(float{});
    break;
  case ScalarType::F64:
    v.isFloat = true;
    v.f = as(double{});
    break;
  case ScalarType::Unknown:
    break;
  }
  return v;
}

namespace {

struct Accumulator {
  std::vector<ByteRange> read, write, atomic;          // ranges of every statement
  std::vector<detail::Strided> readS, writeS, atomicS; // single-strided statements
  bool readExact = true, writeExact = true;
  AtomicOp atomicOp = AtomicOp::None;
  ScalarType atomicType = ScalarType::Unknown;
  bool atomicMixed = false;
  std::string readNote, writeNote, atomicNote;
};

bool additive(AtomicOp op) {
  return op == AtomicOp::Add || op == AtomicOp::Sub || op == AtomicOp::Inc || op == AtomicOp::Dec;
}

void appendNote(std::string& note, std::string_view kind, const std::string& why) {
  if (why.empty()) return;
  if (!note.empty()) note += "; ";
  note += kind;
  note += ": ";
  note += why;
}

} // namespace

std::vector<BufferRegions> instantiate(const KernelAnalysis& kernel, const NDRange& range, const Slice& slice,
                                       const LaunchValues& values, const std::vector<bool>* only, uint64_t maxRanges) {
  auto limit = [maxRanges](uint64_t usual) { return maxRanges ? std::min(usual, maxRanges) : usual; };
  const uint64_t readLimit = limit(detail::kMaxRangesPerStatement), writeLimit = limit(detail::kMaxWriteRanges);
  const KernelRegions& regions = kernel.regions;
  size_t nargs = kernel.args.size();
  for (const auto& s : regions.statements) nargs = std::max<size_t>(nargs, s.arg + 1);
  std::vector<BufferRegions> out(nargs);
  std::vector<Accumulator> acc(nargs);
  std::vector<uint64_t> sizes(nargs, 0);
  std::vector<bool> sized(nargs, false);

  if (!slice.empty()) {
    detail::Evaluator ev(regions, range, slice, values);
    // Statements of one block share their guards: their effect on the variables is reused.
    const std::vector<std::shared_ptr<const Guard>>* lastGuards = nullptr;
    bool lastRuns = true, lastExact = true;
    detail::Evaluator::GuardState lastState;
    for (const auto& s : regions.statements) {
      if (only && (s.arg >= only->size() || !(*only)[s.arg])) continue;
      if (!sized[s.arg]) {
        sizes[s.arg] = values.bufferSize(s.arg);
        sized[s.arg] = true;
      }
      const uint64_t size = sizes[s.arg];
      if (size == 0 || !s.offset) continue;
      Accumulator& a = acc[s.arg];
      bool guardsExact = true, runs = true;
      if (lastGuards && *lastGuards == s.guards) {
        ev.restoreGuards(lastState);
        runs = lastRuns;
        guardsExact = lastExact;
      } else {
        ev.resetStatement();
        for (const auto& g : s.guards) {
          if (!g || !g->lhs || !g->rhs) {
            guardsExact = false;
            continue;
          }
          if (!ev.applyGuard(*g, guardsExact)) {
            runs = false;
            break;
          }
        }
        lastGuards = &s.guards;
        lastRuns = runs;
        lastExact = guardsExact;
        lastState = ev.saveGuards();
      }
      if (!runs) continue;
      bool exact = guardsExact && s.exact && !s.fromPragma;
      detail::Value v = ev.evaluate(*s.offset);
      ev.normaliseWorkItems(v);
      switch (s.kind) {
      case AccessKind::Read:
        ev.appendRanges(v, s.width, size, a.read, a.readS, exact, a.readNote, readLimit);
        a.readExact = a.readExact && exact;
        break;
      case AccessKind::Write:
        ev.appendRanges(v, s.width, size, a.write, a.writeS, exact, a.writeNote, writeLimit);
        a.writeExact = a.writeExact && exact;
        break;
      case AccessKind::Atomic: {
        size_t before = a.atomic.size() + a.atomicS.size();
        ev.appendRanges(v, s.width, size, a.atomic, a.atomicS, exact, a.atomicNote, readLimit);
        if (a.atomic.size() + a.atomicS.size() == before) break;
        if (a.atomicOp == AtomicOp::None) {
          a.atomicOp = s.atomicOp;
          a.atomicType = s.atomicType;
        } else if (a.atomicType != s.atomicType) {
          a.atomicMixed = true;
        } else if (a.atomicOp != s.atomicOp) {
          if (additive(a.atomicOp) && additive(s.atomicOp))
            a.atomicOp = AtomicOp::Add;
          else
            a.atomicMixed = true;
        }
        break;
      }
      }
    }
  }

  for (size_t i = 0; i < nargs; ++i) {
    Accumulator& a = acc[i];
    BufferRegions& r = out[i];
    const uint64_t size = sizes[i];
    detail::mergeStrided(a.readS, size, a.read, a.readExact, a.readNote, readLimit);
    detail::mergeStrided(a.writeS, size, a.write, a.writeExact, a.writeNote, writeLimit);
    bool atomicExact = true;
    detail::mergeStrided(a.atomicS, size, a.atomic, atomicExact, a.atomicNote, readLimit);
    r.read = RangeSet::fromRanges(std::move(a.read));
    r.write = RangeSet::fromRanges(std::move(a.write));
    r.atomic = RangeSet::fromRanges(std::move(a.atomic));
    r.readExact = a.readExact;
    r.writeExact = a.writeExact;
    appendNote(r.note, "read", a.readNote);
    appendNote(r.note, "write", a.writeNote);
    appendNote(r.note, "atomic", a.atomicNote);
    if (r.atomic.empty()) continue;
    if (a.atomicMixed || a.atomicOp == AtomicOp::None) {
      // Different reductions on one buffer cannot be merged: every device's result matters.
      r.write.add(r.atomic);
      r.atomic = RangeSet();
      r.writeExact = false;
      appendNote(r.note, "atomic", "atomic operations of different kinds, treated as writes");
      continue;
    }
    RangeSet both = r.atomic.intersected(r.write);
    if (!both.empty()) {
      // Plainly written bytes that are also atomically updated are not a reduction.
      r.atomic.subtract(both);
      r.writeExact = false;
      appendNote(r.note, "atomic", "bytes both written and atomically updated, treated as writes");
    }
    if (!r.atomic.empty()) {
      r.atomicOp = a.atomicOp;
      r.atomicType = a.atomicType;
    }
  }
  return out;
}

// Every range of a region is a separate transfer (and directory update): its fixed cost is
// counted as this many bytes when comparing dimensions.
constexpr uint64_t kBytesPerRange = 4096;

uint32_t defaultSplitDimension(const NDRange& range) {
  const unsigned dims = std::clamp<unsigned>(range.dims, 1, 3);
  uint32_t best = dims - 1;
  for (unsigned d = 0; d < dims; ++d)
    if (range.groups(d) >= 2) best = d;
  return best;
}

bool splitDimensionIsAChoice(const NDRange& range) {
  const unsigned dims = std::clamp<unsigned>(range.dims, 1, 3);
  unsigned candidates = 0;
  for (unsigned d = 0; d < dims; ++d) candidates += range.groups(d) >= 2;
  return candidates > 1;
}

uint32_t chooseSplitDimension(const KernelAnalysis& kernel, const NDRange& range, const LaunchValues& values) {
  if (!splitDimensionIsAChoice(range)) return defaultSplitDimension(range); // no instantiation
  const unsigned dims = std::clamp<unsigned>(range.dims, 1, 3);
  uint32_t best = dims - 1;
  // (the halves' writes overlap, cost): a 2-way uniform split per candidate dimension; the
  // cost is the bytes both halves read (what neighbours must exchange) plus the fixed cost of
  // the extra ranges a strided region brings. Ties go to the outermost dimension.
  std::pair<int, uint64_t> bestScore{2, 0};
  for (int d = static_cast<int>(dims) - 1; d >= 0; --d) {
    uint64_t groups = range.groups(static_cast<unsigned>(d));
    if (groups < 2) continue;
    Slice lower{static_cast<uint32_t>(d), 0, groups / 2};
    Slice upper{static_cast<uint32_t>(d), groups / 2, groups};
    auto a = instantiate(kernel, range, lower, values, nullptr, kChoiceMaxRanges);
    auto b = instantiate(kernel, range, upper, values, nullptr, kChoiceMaxRanges);
    int overlap = 0;
    uint64_t cost = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (a[i].write.intersects(b[i].write)) overlap = 1;
      cost += a[i].read.intersected(b[i].read).bytes();
      for (const RangeSet* set : {&a[i].read, &a[i].write, &b[i].read, &b[i].write})
        if (set->count() > 1) cost += kBytesPerRange * (set->count() - 1);
    }
    std::pair<int, uint64_t> score{overlap, cost};
    if (score < bestScore) {
      bestScore = score;
      best = static_cast<uint32_t>(d);
    }
  }
  return best;
}

} // namespace clsplit::analysis
