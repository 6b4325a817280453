// RangeSet: sorted disjoint byte ranges with set algebra.
#include "analysis/region/RangeSet.h"

#include <algorithm>

namespace clsplit {

RangeSet::RangeSet(std::initializer_list<ByteRange> ranges) {
  for (const auto& r : ranges) add(r);
}

void RangeSet::add(ByteRange r) {
  if (r.empty()) return;
  // First range whose end reaches r.lo (touching ranges merge).
  auto first =
      std::lower_bound(ranges_.begin(), ranges_.end(), r.lo, [](const ByteRange& x, uint64_t lo) { return x.hi < lo; });
  auto last = first;
  while (last != ranges_.end() && last->lo <= r.hi) {
    r.lo = std::min(r.lo, last->lo);
    r.hi = std::max(r.hi, last->hi);
    ++last;
  }
  if (first == last) {
    ranges_.insert(first, r);
  } else {
    *first = r;
    ranges_.erase(first + 1, last);
  }
}

RangeSet RangeSet::fromRanges(std::vector<ByteRange> ranges) {
  auto byLo = [](const ByteRange& a, const ByteRange& b) { return a.lo < b.lo; };
  if (!std::is_sorted(ranges.begin(), ranges.end(), byLo)) std::sort(ranges.begin(), ranges.end(), byLo);
  RangeSet out;
  auto& v = out.ranges_;
  v.reserve(ranges.size());
  for (const auto& r : ranges) {
    if (r.empty()) continue;
    if (!v.empty() && r.lo <= v.back().hi)
      v.back().hi = std::max(v.back().hi, r.hi);
    else
      v.push_back(r);
  }
  return out;
}

void RangeSet::add(const RangeSet& other) {
  if (ranges_.empty()) {
    ranges_ = other.ranges_;
    return;
  }
  if (other.ranges_.size() <= 2) {
    for (const auto& r : other.ranges_) add(r);
    return;
  }
  // Linear merge of two sorted lists (repeated insertion would be quadratic).
  std::vector<ByteRange> out;
  out.reserve(ranges_.size() + other.ranges_.size());
  auto a = ranges_.cbegin(), b = other.ranges_.cbegin();
  auto push = [&out](const ByteRange& r) {
    if (!out.empty() && r.lo <= out.back().hi)
      out.back().hi = std::max(out.back().hi, r.hi);
    else
      out.push_back(r);
  };
  while (a != ranges_.cend() || b != other.ranges_.cend()) {
    if (b == other.ranges_.cend() || (a != ranges_.cend() && a->lo <= b->lo))
      push(*a++);
    else
      push(*b++);
  }
  ranges_.swap(out);
}

void RangeSet::subtract(ByteRange r) {
  if (r.empty()) return;
  std::vector<ByteRange> out;
  out.reserve(ranges_.size() + 1);
  for (const auto& x : ranges_) {
    if (x.hi <= r.lo || x.lo >= r.hi) {
      out.push_back(x);
      continue;
    }
    if (x.lo < r.lo) out.push_back({x.lo, r.lo});
    if (x.hi > r.hi) out.push_back({r.hi, x.hi});
  }
  ranges_.swap(out);
}

void RangeSet::subtract(const RangeSet& other) {
  if (ranges_.empty() || other.ranges_.empty()) return;
  if (other.ranges_.size() == 1) return subtract(other.ranges_.front());
  // One sweep over both sorted lists (a pass per subtracted range would be quadratic).
  std::vector<ByteRange> out;
  out.reserve(ranges_.size() + 1);
  auto b = other.ranges_.cbegin();
  for (ByteRange x : ranges_) {
    while (b != other.ranges_.cend() && b->hi <= x.lo) ++b; // ranges wholly before x
    for (auto c = b; c != other.ranges_.cend() && c->lo < x.hi; ++c) {
      if (c->lo > x.lo) out.push_back({x.lo, c->lo});
      x.lo = std::max(x.lo, c->hi);
      if (x.lo >= x.hi) break;
    }
    if (x.lo < x.hi) out.push_back(x);
  }
  ranges_.swap(out);
}

RangeSet RangeSet::intersected(ByteRange r) const {
  RangeSet out;
  for (const auto& x : ranges_) {
    ByteRange y{std::max(x.lo, r.lo), std::min(x.hi, r.hi)};
    if (!y.empty()) out.ranges_.push_back(y);
  }
  return out;
}

RangeSet RangeSet::intersected(const RangeSet& other) const {
  RangeSet out;
  auto a = ranges_.begin(), b = other.ranges_.begin();
  while (a != ranges_.end() && b != other.ranges_.end()) {
    ByteRange y{std::max(a->lo, b->lo), std::min(a->hi, b->hi)};
    if (!y.empty()) out.ranges_.push_back(y);
    if (a->hi < b->hi)
      ++a;
    else
      ++b;
  }
  return out;
}

RangeSet RangeSet::united(const RangeSet& other) const {
  RangeSet out = *this;
  out.add(other);
  return out;
}

RangeSet RangeSet::minus(const RangeSet& other) const {
  RangeSet out = *this;
  out.subtract(other);
  return out;
}

RangeSet RangeSet::shifted(int64_t delta) const {
  RangeSet out;
  for (const auto& x : ranges_) {
    auto move = [delta](uint64_t v) -> uint64_t {
      if (delta < 0 && v < static_cast<uint64_t>(-delta)) return 0;
      return v + static_cast<uint64_t>(delta);
    };
    ByteRange y{move(x.lo), move(x.hi)};
    if (!y.empty()) out.ranges_.push_back(y);
  }
  return out;
}

uint64_t RangeSet::bytes() const {
  uint64_t n = 0;
  for (const auto& x : ranges_) n += x.size();
  return n;
}

ByteRange RangeSet::hull() const {
  if (ranges_.empty()) return {};
  return {ranges_.front().lo, ranges_.back().hi};
}

bool RangeSet::contains(ByteRange r) const {
  if (r.empty()) return true;
  auto it =
      std::upper_bound(ranges_.begin(), ranges_.end(), r.lo, [](uint64_t lo, const ByteRange& x) { return lo < x.hi; });
  return it != ranges_.end() && it->lo <= r.lo && r.hi <= it->hi;
}

bool RangeSet::contains(const RangeSet& other) const {
  for (const auto& r : other.ranges_)
    if (!contains(r)) return false;
  return true;
}

bool RangeSet::intersects(const RangeSet& other) const {
  if (empty() || other.empty()) return false;
  // Disjoint hulls (the common case: two devices' halves) answer at once.
  if (ranges_.back().hi <= other.ranges_.front().lo || other.ranges_.back().hi <= ranges_.front().lo) return false;
  // Otherwise a merge that jumps (binary search) past the ranges ending before the other's
  // current one: a halo row against a slice's rows costs O(log n), not a walk over the slice.
  auto endsAfter = [](auto from, auto to, uint64_t lo) {
    return std::upper_bound(from, to, lo, [](uint64_t v, const ByteRange& r) { return v < r.hi; });
  };
  auto a = ranges_.begin(), b = other.ranges_.begin();
  while (a != ranges_.end() && b != other.ranges_.end()) {
    if (a->hi <= b->lo)
      a = endsAfter(a + 1, ranges_.end(), b->lo);
    else if (b->hi <= a->lo)
      b = endsAfter(b + 1, other.ranges_.end(), a->lo);
    else
      return true;
  }
  return false;
}

std::string RangeSet::str() const {
  std::string s;
  for (const auto& x : ranges_) {
    if (!s.empty()) s += ' ';
    s += '[' + std::to_string(x.lo) + ',' + std::to_string(x.hi) + ')';
  }
  return s.empty() ? "{}" : s;
}

} // namespace clsplit
