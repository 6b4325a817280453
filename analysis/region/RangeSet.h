// Byte ranges: the currency shared by analysis (instantiated regions), the buffer manager
// (directory queries, transfer plans) and the partitioner (transfer volumes).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace clsplit {

// A half-open byte interval [lo, hi). Empty when lo >= hi.
struct ByteRange {
  uint64_t lo = 0;
  uint64_t hi = 0;

  uint64_t size() const { return hi > lo ? hi - lo : 0; }
  bool empty() const { return hi <= lo; }
  bool operator==(const ByteRange&) const = default;
};

// A set of bytes kept as sorted, disjoint, non-adjacent half-open ranges (adjacent ranges are
// merged on insertion, so the representation of a set is unique).
class RangeSet {
public:
  RangeSet() = default;
  RangeSet(std::initializer_list<ByteRange> ranges);
  static RangeSet of(uint64_t lo, uint64_t hi) { return RangeSet{{lo, hi}}; }
  // Any ranges, in any order, overlapping or not (O(n log n)).
  static RangeSet fromRanges(std::vector<ByteRange> ranges);

  void add(ByteRange r);
  void add(const RangeSet& other);
  void subtract(ByteRange r);
  void subtract(const RangeSet& other);

  RangeSet intersected(const RangeSet& other) const;
  RangeSet intersected(ByteRange r) const;
  RangeSet united(const RangeSet& other) const;
  RangeSet minus(const RangeSet& other) const;
  // Every range moved by +delta (ranges that would go below 0 are clipped at 0).
  RangeSet shifted(int64_t delta) const;

  bool empty() const { return ranges_.empty(); }
  uint64_t bytes() const; // total number of bytes in the set
  size_t count() const { return ranges_.size(); }
  ByteRange hull() const; // smallest single range covering the set
  bool contains(const RangeSet& other) const;
  bool contains(ByteRange r) const;
  bool intersects(const RangeSet& other) const;

  const std::vector<ByteRange>& ranges() const { return ranges_; }
  auto begin() const { return ranges_.begin(); }
  auto end() const { return ranges_.end(); }

  bool operator==(const RangeSet&) const = default;
  std::string str() const; // "[0,16) [32,48)"

private:
  std::vector<ByteRange> ranges_;
};

} // namespace clsplit
