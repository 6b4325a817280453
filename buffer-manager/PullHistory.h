// What other devices fetched from one device's copy of a buffer, over its last two generations
// (a generation ends when a kernel writes the copy after something was fetched): the halo its
// next writer should produce first (planner/BoundaryFirst.h). Pure: the storage and the
// planner's simulation keep one per device copy.
#pragma once

#include "analysis/region/RangeSet.h"

namespace clsplit::buffer {

class PullHistory {
public:
  // Another device fetched `range` of this copy.
  void pulled(ByteRange range) { current_.add(range); }
  // A kernel wrote the copy: what was fetched since the last write stays known for one more.
  void written() {
    if (current_.empty()) return;
    previous_ = std::move(current_);
    current_ = {};
  }
  RangeSet recent() const { return current_.united(previous_); }

private:
  RangeSet current_, previous_;
};

} // namespace clsplit::buffer
