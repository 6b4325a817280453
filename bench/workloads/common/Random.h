// Deterministic pseudo-random numbers for inputs and for the EP kernel's CPU reference. Written
// out (not <random> distributions) so that the same seed gives the same inputs on every
// standard library, and so that the OpenCL kernels can compute the very same sequence.
#pragma once

#include <cstdint>

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

} // namespace clsplit::bench
