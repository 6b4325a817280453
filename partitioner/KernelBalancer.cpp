// Water-filling with latencies, greedy device-set choice, Broyden iteration.
#include "partitioner/KernelBalancer.h"

#include "partitioner/KernelTimeModel.h"
#include "partitioner/MemoryFit.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace clsplit::partition {

namespace {

constexpr double kMinNsPerGroup = 1e-6;

// Equal finish times T over `set`: y_d = (T - L_d) / (f_d * G), sum y = 1; devices whose
// latency alone exceeds T leave the set.
std::vector<double> waterFill(const KernelCosts& c, std::vector<bool> set) {
  const size_t n = c.nsPerGroup.size();
  std::vector<double> y(n, 0.0);
  const double G = std::max(c.groups, 1e-9);
  while (true) {
    double sumInv = 0, sumLatency = 0;
    for (size_t d = 0; d < n; ++d) {
      if (!set[d]) continue;
      double f = std::max(c.nsPerGroup[d], kMinNsPerGroup);
      sumInv += 1 / f;
      sumLatency += c.launchNs[d] / f;
    }
    if (sumInv == 0) return y;
    double T = (G + sumLatency) / sumInv;
    size_t worst = n;
    double worstLatency = T;
    for (size_t d = 0; d < n; ++d)
      if (set[d] && c.launchNs[d] > worstLatency) {
        worst = d;
        worstLatency = c.launchNs[d];
      }
    if (worst == n) {
      for (size_t d = 0; d < n; ++d)
        if (set[d]) y[d] = (T - c.launchNs[d]) / (std::max(c.nsPerGroup[d], kMinNsPerGroup) * G);
      double s = std::accumulate(y.begin(), y.end(), 0.0);
      for (auto& v : y) v = std::max(0.0, v / s);
      return y;
    }
    set[worst] = false;
  }
}

} // namespace

namespace {
double capOf(const std::vector<double>& bounds, size_t d) { return d < bounds.size() ? bounds[d] : 1.0; }
bool allowedOn(const KernelCosts& c, size_t d) { return d >= c.allowed.size() || c.allowed[d]; }
std::vector<bool> allowedDevices(const KernelCosts& c) {
  std::vector<bool> allowed(c.nsPerGroup.size());
  for (size_t d = 0; d < allowed.size(); ++d) allowed[d] = allowedOn(c, d);
  return allowed;
}
} // namespace

std::vector<double> shareBounds(const KernelCosts& c) {
  if (c.maxRatio.empty() && c.allocRatio.empty()) return {};
  return boundsThatHold(c.maxRatio, c.allocRatio, allowedDevices(c));
}

bool sharesFit(const KernelCosts& c, const std::vector<double>& y) {
  if (c.maxRatio.empty() && c.allocRatio.empty()) return true;
  return sharesFit(shareBounds(c), allowedDevices(c), y, c.groups);
}

std::vector<double> capShares(const KernelCosts& c, std::vector<double> y) {
  const std::vector<double> bounds = shareBounds(c);
  if (bounds.empty()) return y;
  for (size_t round = 0; round < y.size(); ++round) {
    double excess = 0, weight = 0;
    for (size_t d = 0; d < y.size(); ++d)
      if (y[d] > capOf(bounds, d)) {
        excess += y[d] - capOf(bounds, d);
        y[d] = capOf(bounds, d);
      }
    if (excess <= 1e-12) break;
    std::vector<double> w(y.size(), 0.0);
    for (size_t d = 0; d < y.size(); ++d)
      if (allowedOn(c, d) && y[d] < capOf(bounds, d)) weight += w[d] = 1 / std::max(c.nsPerGroup[d], kMinNsPerGroup);
    if (weight <= 0) break;
    for (size_t d = 0; d < y.size(); ++d) y[d] += excess * w[d] / weight;
  }
  return y;
}

double predictKernel(const KernelCosts& c, const std::vector<double>& y) {
  double t = 0;
  unsigned used = 0;
  for (size_t d = 0; d < y.size(); ++d) {
    if (!(y[d] > 1e-12)) continue;
    ++used;
    const double floor = d < c.concurrentGroups.size() ? c.concurrentGroups[d] : 0;
    t = std::max(t, shareTimeNs(c.launchNs[d], c.nsPerGroup[d], c.groups * y[d], floor));
  }
  return t + c.hostOverheadNs * used + (sharesFit(c, y) ? 0.0 : kUnfitNs);
}

std::vector<double> balanceKernel(const KernelCosts& c) {
  const size_t n = c.nsPerGroup.size();
  std::vector<bool> set(n);
  for (size_t d = 0; d < n; ++d) set[d] = d < c.allowed.size() ? c.allowed[d] : true;
  if (std::none_of(set.begin(), set.end(), [](bool b) { return b; })) set.assign(n, true);

  std::vector<double> best = capShares(c, waterFill(c, set));
  double bestTime = predictKernel(c, best);
  // Greedy: drop the device whose removal helps most, while it helps.
  while (true) {
    std::vector<double> roundBest;
    double roundTime = bestTime;
    std::vector<bool> roundSet;
    // From the last device down: on a tie the lower-numbered device stays.
    for (size_t d = n; d-- > 0;) {
      if (!set[d] || std::count(set.begin(), set.end(), true) < 2) continue;
      auto s = set;
      s[d] = false;
      auto y = capShares(c, waterFill(c, s));
      double t = predictKernel(c, y);
      if (t < roundTime) {
        roundTime = t;
        roundBest = y;
        roundSet = s;
      }
    }
    if (roundBest.empty()) break;
    best = roundBest;
    bestTime = roundTime;
    set = roundSet;
  }
  // The best single device, in case greedy removal missed it.
  for (size_t d = 0; d < n; ++d) {
    if (d < c.allowed.size() && !c.allowed[d]) continue;
    std::vector<double> y(n, 0.0);
    y[d] = 1;
    y = capShares(c, std::move(y)); // (a split, where that device alone cannot hold the launch)
    double t = predictKernel(c, y);
    if (t < bestTime) {
      bestTime = t;
      best = y;
    }
  }
  return best;
}

std::vector<double> Relaxation::step(const std::vector<double>& current, const std::vector<double>& target) {
  const size_t n = current.size();
  std::vector<double> delta(n);
  for (size_t i = 0; i < n; ++i) delta[i] = target[i] - current[i];
  // A step that switches devices on or off is a change of regime: take it whole.
  bool sameSupport = lastStep_.size() == n;
  for (size_t i = 0; i < n; ++i)
    if ((current[i] > 1e-12) != (target[i] > 1e-12)) sameSupport = false;
  if (!sameSupport) {
    beta_ = 1;
  } else {
    double dot = 0;
    for (size_t i = 0; i < n; ++i) dot += delta[i] * lastStep_[i];
    if (dot < 0)
      beta_ = std::max(beta_ / 2, 1.0 / 16);
    else if (dot > 0)
      beta_ = std::min(beta_ * 2, 1.0);
  }
  lastStep_ = delta;
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = current[i] + beta_ * delta[i];
  return out;
}

void BroydenSolver::reset() {
  prevX_.clear();
  prevG_.clear();
  inverseJacobian_.clear();
}

std::vector<double> BroydenSolver::next(const std::vector<double>& x, const std::vector<double>& fx) {
  const size_t n = x.size();
  std::vector<double> g(n);
  for (size_t i = 0; i < n; ++i) g[i] = x[i] - fx[i];

  auto restart = [&] {
    inverseJacobian_.assign(n, std::vector<double>(n, 0.0));
    for (size_t i = 0; i < n; ++i) inverseJacobian_[i][i] = 1.0;
  };
  // A change of the device set (a share appearing or vanishing) changes F's shape: restart.
  bool sameSupport = prevX_.size() == n;
  for (size_t i = 0; sameSupport && i < n; ++i)
    sameSupport = (prevX_[i] > 1e-12) == (x[i] > 1e-12) && (fx[i] > 1e-12) == (x[i] > 1e-12);
  if (!sameSupport || inverseJacobian_.size() != n) {
    restart();
  } else {
    // Good Broyden, inverse form: B += (dx - B dg) dx^T B / (dx^T B dg).
    std::vector<double> dx(n), dg(n), bdg(n, 0.0), dxb(n, 0.0);
    for (size_t i = 0; i < n; ++i) {
      dx[i] = x[i] - prevX_[i];
      dg[i] = g[i] - prevG_[i];
    }
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        bdg[i] += inverseJacobian_[i][j] * dg[j];
        dxb[j] += dx[i] * inverseJacobian_[i][j];
      }
    double den = 0, dxNorm = 0;
    for (size_t i = 0; i < n; ++i) {
      den += dx[i] * bdg[i];
      dxNorm += dx[i] * dx[i];
    }
    if (dxNorm > 1e-12 && std::abs(den) > 1e-9 * dxNorm) {
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) inverseJacobian_[i][j] += (dx[i] - bdg[i]) * dxb[j] / den;
    }
  }
  prevX_ = x;
  prevG_ = g;

  std::vector<double> step(n, 0.0), out(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) step[i] += inverseJacobian_[i][j] * g[j];
  double gNorm = 0, stepNorm = 0, sum = 0;
  for (size_t i = 0; i < n; ++i) {
    gNorm += g[i] * g[i];
    stepNorm += step[i] * step[i];
    out[i] = x[i] - step[i];
    // Devices F leaves out stay out.
    if (!(fx[i] > 1e-12)) out[i] = 0;
    if (!std::isfinite(out[i])) out[i] = -1;
  }
  bool bad = std::any_of(out.begin(), out.end(), [](double v) { return v < -0.05; }) || stepNorm > 4 * gNorm + 1e-12;
  if (bad) {
    restart();
    return fx;
  }
  for (auto& v : out) {
    v = std::max(0.0, v);
    sum += v;
  }
  if (!(sum > 0)) {
    restart();
    return fx;
  }
  for (auto& v : out) v /= sum;
  return out;
}

} // namespace clsplit::partition
