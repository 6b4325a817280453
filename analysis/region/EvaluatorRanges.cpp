// From values to bytes: the ranges an access touches over the slice, merged per stride.
#include "analysis/region/Evaluator.h"

#include <algorithm>

namespace clsplit::analysis::detail {

void Evaluator::normaliseWorkItems(Value& v) {
  if (!v.isInt()) return;
  unsigned dims = std::clamp<unsigned>(range_.dims, 1, 3);
  for (unsigned d = 0; d < dims; ++d) {
    const unsigned g = kGlobalVar + d, l = kLocalVar + d, p = kGroupVar + d;
    const uint16_t gBit = 1u << g, plBits = (1u << l) | (1u << p);
    int direct = -1;
    bool gViaDerived = false;
    uint16_t plUse = restricted_ & plBits;
    for (unsigned i = 0; i < v.nterms; ++i) {
      const Variable& x = vars_[v.terms[i].var];
      if (v.terms[i].var == g)
        direct = static_cast<int>(i);
      else if (x.deps & gBit)
        gViaDerived = true;
      plUse |= x.deps & plBits;
    }
    bool gUsed = direct >= 0 || gViaDerived;
    bool gRestricted = restricted_ & gBit;
    if (!gUsed && !(plUse && gRestricted)) continue;
    if (gUsed && !plUse) continue; // only global ids: the guard ranges already apply
    if (gViaDerived) {
      v.exact = false; // G and its (P, L) decomposition are treated as independent
      continue;
    }
    const i128 local = std::max<uint64_t>(range_.local[d], 1);
    const i128 offset = range_.offset[d];
    if (direct >= 0) {
      Term t = v.terms[direct];
      Value sub;
      sub.c = t.coeff * offset;
      sub.nterms = 2;
      sub.terms[0] = {static_cast<uint8_t>(p), t.coeff * local};
      sub.terms[1] = {static_cast<uint8_t>(l), t.coeff};
      v.terms[direct].coeff = 0;
      if (!addInto(v, sub, 1, vars_)) {
        v = Value::unknown("value out of range");
        return;
      }
    }
    if (gRestricted) {
      // Project the global-id range onto (group, local id).
      i128 a = vars_[g].lo - offset, b = vars_[g].hi - offset;
      i128 pa = floorDiv(a, local), pb = floorDiv(b, local);
      Variable& P = vars_[p];
      Variable& L = vars_[l];
      P.lo = std::max(P.lo, pa);
      P.hi = std::min(P.hi, pb);
      if (pa == pb) {
        L.lo = std::max(L.lo, a - pa * local);
        L.hi = std::min(L.hi, b - pa * local);
      } else if ((floorMod(a, local) != 0 || floorMod(b, local) != local - 1) && (plUse & (1u << l))) {
        // A group cut by the range: exact only if the value does not depend on the local id
        // (any work-item of the group then makes the same access).
        v.exact = false;
      }
      for (unsigned i = 0; i < v.nterms; ++i)
        if (v.terms[i].var >= kBaseVars && (vars_[v.terms[i].var].deps & plBits)) v.exact = false;
      if (P.lo > P.hi || L.lo > L.hi) {
        v = Value::empty();
        return;
      }
    }
  }
}

void Evaluator::appendRanges(const Value& value, uint32_t width, uint64_t size, std::vector<ByteRange>& out,
                             std::vector<Strided>& strided, bool& exact, std::string& note, uint64_t maxRanges) {
  auto whole = [&](std::string_view why) {
    out.push_back({0, size});
    exact = false;
    if (note.find(why) == std::string::npos) {
      if (!note.empty()) note += "; ";
      note += why;
    }
  };
  if (value.kind == Value::Kind::Empty || size == 0) return;
  if (value.kind == Value::Kind::Unknown) return whole(value.reason);
  if (value.kind == Value::Kind::Float) return whole("floating-point byte offset");
  Value v = value;
  if (!interpret(v, 64, true)) return whole(v.reason);
  if (!v.exact || v.hasResidual) exact = false;

  // Each base variable may feed the offset only once for the box to be exact.
  uint8_t uses[kBaseVars] = {};
  for (unsigned i = 0; i < v.nterms; ++i)
    for (unsigned b = 0; b < kBaseVars; ++b)
      if (vars_[v.terms[i].var].deps & (1u << b) && ++uses[b] > 1) exact = false;

  i128 base = v.c + (v.hasResidual ? v.rlo : 0);
  i128 len = static_cast<i128>(width) + (v.hasResidual ? v.rhi - v.rlo : 0);
  struct Dim {
    i128 stride, count;
  } dims[kMaxTerms];
  unsigned ndims = 0;
  for (unsigned i = 0; i < v.nterms; ++i) {
    const Variable& x = vars_[v.terms[i].var];
    if (x.hi < x.lo) return; // the variable has no value: the access never happens
    i128 a = v.terms[i].coeff, n = x.hi - x.lo + 1;
    if (n == 1 || a == 0) {
      base += a * x.lo;
    } else if (a > 0) {
      base += a * x.lo;
      dims[ndims++] = {a, n};
    } else {
      base += a * x.hi;
      dims[ndims++] = {-a, n};
    }
  }
  for (unsigned i = 1; i < ndims; ++i) // insertion sort by stride: a handful of entries
    for (unsigned j = i; j > 0 && dims[j].stride < dims[j - 1].stride; --j) std::swap(dims[j], dims[j - 1]);
  unsigned first = 0;
  while (first < ndims && dims[first].stride <= len) { // dense: merges into one run
    len += dims[first].stride * (dims[first].count - 1);
    ++first;
  }
  auto emit = [&](i128 lo, i128 hi) {
    i128 clo = std::max<i128>(lo, 0), chi = std::min<i128>(hi, size);
    if (clo < chi) out.push_back({static_cast<uint64_t>(clo), static_cast<uint64_t>(chi)});
  };
  if (ndims == first) return emit(base, base + len);
  if (ndims == first + 1) { // merged with the buffer's other statements later
    strided.push_back({base, len, dims[first].stride, dims[first].count});
    return;
  }
  i128 blocks = 1;
  for (unsigned i = first; i < ndims && blocks <= static_cast<i128>(maxRanges); ++i) blocks *= dims[i].count;
  if (blocks > static_cast<i128>(maxRanges)) {
    i128 span = len;
    for (unsigned i = first; i < ndims; ++i) span += dims[i].stride * (dims[i].count - 1);
    exact = false;
    std::string why = "more than " + std::to_string(maxRanges) + " disjoint ranges: covered by their hull";
    if (note.find(why) == std::string::npos) {
      if (!note.empty()) note += "; ";
      note += why;
    }
    return emit(base, base + span);
  }
  // Odometer over the outer dimensions, innermost (smallest stride) fastest, in 64-bit
  // arithmetic (every value is below 2^100 in magnitude, and a range this large is a hull).
  const i128 limit = static_cast<i128>(1) << 62;
  i128 span = len;
  for (unsigned i = first; i < ndims; ++i) span += dims[i].stride * (dims[i].count - 1);
  if (base <= -limit || base + span >= limit) return emit(base, base + span);
  const int64_t size64 = static_cast<int64_t>(std::min<uint64_t>(size, uint64_t{1} << 62));
  const int64_t len64 = static_cast<int64_t>(len);
  int64_t stride[kMaxTerms], count[kMaxTerms], idx[kMaxTerms] = {};
  unsigned n = 0;
  for (unsigned i = first; i < ndims; ++i, ++n) {
    stride[n] = static_cast<int64_t>(dims[i].stride);
    count[n] = static_cast<int64_t>(dims[i].count);
  }
  out.reserve(out.size() + static_cast<size_t>(blocks));
  int64_t off = static_cast<int64_t>(base);
  for (;;) {
    // The innermost dimension in one tight loop.
    int64_t lo = off;
    for (int64_t k = 0; k < count[0]; ++k, lo += stride[0]) {
      int64_t a = lo < 0 ? 0 : lo, b = lo + len64 > size64 ? size64 : lo + len64;
      if (a < b) out.push_back({static_cast<uint64_t>(a), static_cast<uint64_t>(b)});
    }
    unsigned i = 1;
    while (i < n) {
      off += stride[i];
      if (++idx[i] < count[i]) break;
      off -= stride[i] * count[i];
      idx[i++] = 0;
    }
    if (i >= n) break;
  }
}

void mergeStrided(std::vector<Strided>& sets, uint64_t size, std::vector<ByteRange>& out, bool& exact,
                  std::string& note, uint64_t maxRanges) {
  if (sets.empty()) return;
  auto emit = [&](i128 lo, i128 hi) {
    i128 clo = std::max<i128>(lo, 0), chi = std::min<i128>(hi, size);
    if (clo < chi) out.push_back({static_cast<uint64_t>(clo), static_cast<uint64_t>(chi)});
  };
  std::sort(sets.begin(), sets.end(), [](const Strided& a, const Strided& b) { return a.stride < b.stride; });
  for (size_t g = 0; g < sets.size();) {
    size_t end = g;
    while (end < sets.size() && sets[end].stride == sets[g].stride) ++end;
    const i128 S = sets[g].stride;
    // Period k of each set covers [k*S + r, k*S + r + len) for k in [q, q + count).
    struct Item {
      i128 q, qEnd, r, len;
    };
    std::vector<Item> items;
    std::vector<i128> cuts;
    i128 hullLo = 0, hullHi = 0;
    for (size_t i = g; i < end; ++i) {
      const Strided& x = sets[i];
      i128 q = floorDiv(x.base, S);
      items.push_back({q, q + x.count, x.base - q * S, x.len});
      cuts.push_back(q);
      cuts.push_back(q + x.count);
      i128 lo = x.base, hi = x.base + (x.count - 1) * S + x.len;
      hullLo = i == g ? lo : std::min(hullLo, lo);
      hullHi = i == g ? hi : std::max(hullHi, hi);
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    // Between consecutive cuts the same sets are active: one pattern P per segment. If one of
    // P's intervals spans a whole period, the segment is contiguous (plus P at its ends).
    struct Segment {
      i128 a, b;
      std::vector<std::pair<i128, i128>> pattern;
      bool contiguous;
    };
    std::vector<Segment> segments;
    i128 produced = 0;
    for (size_t c = 0; c + 1 < cuts.size(); ++c) {
      Segment seg{cuts[c], cuts[c + 1], {}, false};
      for (const auto& it : items)
        if (it.q <= seg.a && seg.b <= it.qEnd) seg.pattern.push_back({it.r, it.r + it.len});
      if (seg.pattern.empty()) continue;
      std::sort(seg.pattern.begin(), seg.pattern.end());
      std::vector<std::pair<i128, i128>> merged;
      for (const auto& iv : seg.pattern) {
        if (!merged.empty() && iv.first <= merged.back().second)
          merged.back().second = std::max(merged.back().second, iv.second);
        else
          merged.push_back(iv);
      }
      seg.pattern = std::move(merged);
      for (const auto& iv : seg.pattern) seg.contiguous = seg.contiguous || iv.second - iv.first >= S;
      produced += seg.contiguous ? 1 + 2 * static_cast<i128>(seg.pattern.size())
                                 : (seg.b - seg.a) * static_cast<i128>(seg.pattern.size());
      segments.push_back(std::move(seg));
    }
    if (produced > static_cast<i128>(maxRanges)) {
      exact = false;
      std::string why = "more than " + std::to_string(maxRanges) + " disjoint ranges: covered by their hull";
      if (note.find(why) == std::string::npos) {
        if (!note.empty()) note += "; ";
        note += why;
      }
      emit(hullLo, hullHi);
    } else {
      for (const auto& seg : segments) {
        auto copy = [&](i128 k) {
          for (const auto& iv : seg.pattern) emit(k * S + iv.first, k * S + iv.second);
        };
        if (seg.contiguous) {
          i128 a = 0, b = 0;
          for (const auto& iv : seg.pattern)
            if (iv.second - iv.first >= S) a = iv.first, b = iv.second;
          emit(seg.a * S + a, (seg.b - 1) * S + b);
          copy(seg.a);
          copy(seg.b - 1);
        } else {
          for (i128 k = seg.a; k < seg.b; ++k) copy(k);
        }
      }
    }
    g = end;
  }
}

} // namespace clsplit::analysis::detail
