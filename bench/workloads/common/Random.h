// Deterministic pseudo-random numbers for inputs and for the EP kernel's CPU reference. Written
// out (not <random> distributions) so that the same seed gives the same inputs on every
// standard library, and so that the OpenCL kernels can compute the very same sequence.
#pragma once

#include "bench/workloads/common/Parallel.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace clsplit::bench {

/// SplitMix64 finaliser: a bijective 64-bit mix; splitmix64(counter) is a counter-based generator.
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Uniform double in [0, 1) from the top 53 bits.
inline double unitInterval(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

class Rng {
public:
  explicit Rng(uint64_t seed) : State(splitmix64(seed)) {}
  uint64_t next() { return splitmix64(State++); }
  double uniform() { return unitInterval(next()); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, bound); the modulo bias is irrelevant for benchmark inputs.
  uint64_t below(uint64_t bound) { return bound == 0 ? 0 : next() % bound; }

private:
  uint64_t State;
};

/// Fills \p values with uniform numbers in [lo, hi), in parallel: fixed chunks of 2^16 elements,
/// each with its own stream, so the result depends on the seed only (not on the thread count).
/// Large inputs (a 8192^2 grid) would otherwise take longer to generate than to compute.
template <typename T>
void fillUniform(std::vector<T>& values, uint64_t seed, double lo = 0.0, double hi = 1.0) {
  constexpr size_t Chunk = size_t(1) << 16;
  const size_t chunks = (values.size() + Chunk - 1) / Chunk;
  parallelFor(0, chunks, [&](size_t first, size_t last) {
    for (size_t c = first; c < last; ++c) {
      Rng rng(seed * 0x9E3779B97F4A7C15ull + c);
      const size_t end = std::min(values.size(), (c + 1) * Chunk);
      for (size_t k = c * Chunk; k < end; ++k) values[k] = static_cast<T>(rng.uniform(lo, hi));
    }
  });
}

} // namespace clsplit::bench
