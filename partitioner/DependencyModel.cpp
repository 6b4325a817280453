// Split mismatch, shared boundaries, and the non-negative volume fit.
#include "partitioner/DependencyModel.h"

#include <algorithm>
#include <cmath>

namespace clsplit::partition {

namespace {
constexpr size_t kWindow = 48;
constexpr double kPriorWeight = 0.25;
constexpr double kEnoughMismatch = 0.05; // sum of squared mismatches that retires the prior
constexpr double kEps = 1e-12;
} // namespace

double splitMismatch(const std::vector<double>& producer, const std::vector<double>& consumer, unsigned device) {
  if (device >= consumer.size() || device >= producer.size() || !(consumer[device] > kEps)) return 0;
  double ph = 0, pk = 0; // prefix sums up to device - 1
  for (unsigned i = 0; i < device; ++i) {
    ph += producer[i];
    pk += consumer[i];
  }
  double before = std::max(ph - pk, 0.0);
  double after = std::max((pk + consumer[device]) - (ph + producer[device]), 0.0);
  return before + after;
}

unsigned sharedBoundaries(const std::vector<double>& ratios, unsigned device) {
  if (device >= ratios.size() || !(ratios[device] > kEps)) return 0;
  bool left = false, right = false;
  for (unsigned i = 0; i < ratios.size(); ++i) {
    if (!(ratios[i] > kEps)) continue;
    if (i < device) left = true;
    if (i > device) right = true;
  }
  return unsigned(left) + unsigned(right);
}

DependencyVolume::Observation* DependencyVolume::find(uint64_t key) {
  for (auto it = observations_.rbegin(); it != observations_.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

void DependencyVolume::observe(uint64_t key, double mismatch, double boundaries, double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) return;
  if (auto* o = find(key)) {
    o->bytes += bytes;
    return;
  }
  observations_.push_back({key, mismatch, boundaries, bytes});
  while (observations_.size() > kWindow) observations_.pop_front();
}

void DependencyVolume::observeNothing(uint64_t key, double mismatch, double boundaries) {
  if (find(key)) return;
  observations_.push_back({key, mismatch, boundaries, 0.0});
  while (observations_.size() > kWindow) observations_.pop_front();
}

DependencyVolume::Fit DependencyVolume::fit() const {
  // Weighted normal equations of bytes = A * s + c * nb, with the prior as one light sample at
  // s = 1, nb = 0.
  // The prior fades out as mismatched splits are observed: small mismatches have little
  // leverage, and a light sample at s = 1 would otherwise outweigh many of them.
  double evidence = 0;
  for (const auto& o : observations_) evidence += o.mismatch * o.mismatch;
  const double w0 = kPriorWeight * std::max(0.0, 1 - evidence / kEnoughMismatch);
  double ss = w0, sn = 0, nn = 0, sb = w0 * prior_, nb = 0;
  for (const auto& o : observations_) {
    ss += o.mismatch * o.mismatch;
    sn += o.mismatch * o.boundaries;
    nn += o.boundaries * o.boundaries;
    sb += o.mismatch * o.bytes;
    nb += o.boundaries * o.bytes;
  }
  Fit f;
  double det = ss * nn - sn * sn;
  if (nn > kEps && std::abs(det) > kEps * std::max(1.0, ss * nn)) {
    f.bytesPerMismatch = (sb * nn - nb * sn) / det;
    f.haloBytes = (ss * nb - sn * sb) / det;
  }
  if (!(nn > kEps) || f.bytesPerMismatch < 0 || f.haloBytes < 0 || std::abs(det) <= kEps) {
    // One coefficient at zero: refit the other alone and keep the better-fitting choice.
    Fit onlyA{ss > kEps ? std::max(0.0, sb / ss) : 0.0, 0.0};
    Fit onlyC{0.0, nn > kEps ? std::max(0.0, nb / nn) : 0.0};
    auto residual = [&](const Fit& g) {
      double r = w0 * std::pow(prior_ - g.bytesPerMismatch, 2);
      for (const auto& o : observations_)
        r += std::pow(o.bytes - g.bytesPerMismatch * o.mismatch - g.haloBytes * o.boundaries, 2);
      return r;
    };
    f = residual(onlyA) <= residual(onlyC) ? onlyA : onlyC;
  }
  return f;
}

} // namespace clsplit::partition
