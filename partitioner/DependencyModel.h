// Transfer volumes between data-dependent kernels (thesis section 4.2.1): the bytes device d must
// receive before consumer k that producer h wrote are modelled as A * S_d + c * nb_d, with S_d the
// over-approximated mismatch between the two splits (a fraction of the index space), nb_d the
// number of d's slice boundaries shared with other devices (halos), and A, c >= 0 fitted by
// least squares on the volumes the runtime measured. The same fit with S = y_d and c = 0 models
// the bytes that come from the host before every launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace clsplit::partition {

// S_d of the thesis in ratio units: with P the prefix sums of the ratios in device order,
// max(P^h_{d-1} - P^k_{d-1}, 0) + max(P^k_d - P^h_d, 0); zero when d gets no share of k.
double splitMismatch(const std::vector<double>& producer, const std::vector<double>& consumer, unsigned device);
// How many of d's slice boundaries touch another device's slice (0, 1 or 2); 0 if d has none.
unsigned sharedBoundaries(const std::vector<double>& ratios, unsigned device);

class DependencyVolume {
public:
  // `priorBytesPerMismatch`: the volume at S = 1 assumed until measured (e.g. the bytes of the
  // buffers the edge carries, an over-approximation).
  explicit DependencyVolume(double priorBytesPerMismatch = 0) : prior_(priorBytesPerMismatch) {}

  // Bytes observed for the launch/device `key`; a second report with the same key adds to it.
  void observe(uint64_t key, double mismatch, double boundaries, double bytes);
  // Same, but only creates the observation (with 0 bytes) if the key was not seen: "nothing
  // was reported for this launch" is a measurement too.
  void observeNothing(uint64_t key, double mismatch, double boundaries);

  struct Fit {
    double bytesPerMismatch = 0; // A
    double haloBytes = 0;        // c
  };
  Fit fit() const;
  double prior() const { return prior_; }
  void setPrior(double bytes) { prior_ = bytes; }
  size_t samples() const { return observations_.size(); }

private:
  struct Observation {
    uint64_t key;
    double mismatch, boundaries, bytes;
  };
  Observation* find(uint64_t key);

  double prior_;
  std::deque<Observation> observations_;
};

} // namespace clsplit::partition
