// Which matrix entries a sampled check looks at. A device (or a slice of a split NDRange)
// owns whole rows or whole columns, so checking every row at a few columns and every column
// at a few rows touches every slice, its first and last rows and columns included.
#pragma once

#include "bench/workloads/common/Random.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace clsplit::bench {

/// \p count indices spread over [0, n): first, last, and random ones in between (sorted, unique).
inline std::vector<size_t> spreadIndices(size_t n, size_t count, uint64_t seed) {
  std::vector<size_t> picked;
  if (count >= n) {
    for (size_t k = 0; k < n; ++k) picked.push_back(k);
    return picked;
  }
  Rng rng(seed);
  picked.push_back(0);
  picked.push_back(n - 1);
  while (picked.size() < count) picked.push_back(static_cast<size_t>(rng.below(n)));
  std::sort(picked.begin(), picked.end());
  picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  return picked;
}

/// (row, column) pairs of an n x n matrix: every row at \p perLine columns and every column at
/// \p perLine rows, or every entry when \p all.
inline std::vector<std::pair<size_t, size_t>> crossSample(size_t n, size_t perLine, bool all, uint64_t seed) {
  std::vector<std::pair<size_t, size_t>> entries;
  if (all || perLine >= n) {
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) entries.emplace_back(i, j);
    return entries;
  }
  for (size_t j : spreadIndices(n, perLine, seed))
    for (size_t i = 0; i < n; ++i) entries.emplace_back(i, j);
  for (size_t i : spreadIndices(n, perLine, seed + 1))
    for (size_t j = 0; j < n; ++j) entries.emplace_back(i, j);
  return entries;
}

} // namespace clsplit::bench
