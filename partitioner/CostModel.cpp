// Evaluating the iteration model for a given split.
#include "partitioner/CostModel.h"

#include "partitioner/MemoryFit.h"

#include "partitioner/DependencyModel.h"
#include "partitioner/KernelTimeModel.h"

#include <algorithm>
#include <cmath>

namespace clsplit::partition {

namespace {
constexpr double kEps = 1e-12;

bool close(double a, double b, double tol) {
  return std::abs(a - b) <= tol * std::max({std::abs(a), std::abs(b), 1e-9});
}
} // namespace

CostModel::Link CostModel::inbound(const std::vector<bool>& active, unsigned to) const {
  Link sum;
  unsigned count = 0;
  for (unsigned s = 0; s < devices; ++s) {
    if (s == to || !active[s]) continue;
    sum.perByteNs += deviceLinks[s][to].perByteNs;
    sum.latencyNs += deviceLinks[s][to].latencyNs;
    ++count;
  }
  if (count == 0) {
    // No other active device: whatever arrives comes from a holder elsewhere; take the worst.
    for (unsigned s = 0; s < devices; ++s) {
      if (s == to) continue;
      sum.perByteNs = std::max(sum.perByteNs, deviceLinks[s][to].perByteNs);
      sum.latencyNs = std::max(sum.latencyNs, deviceLinks[s][to].latencyNs);
    }
    return sum;
  }
  return {sum.perByteNs / count, sum.latencyNs / count};
}

double CostModel::computeNs(unsigned p, const std::vector<double>& y) const {
  const auto& pos = positions[p];
  double t = 0;
  for (unsigned d = 0; d < devices; ++d)
    if (y[d] > kEps)
      t = std::max(t, shareTimeNs(pos.launchNs[d], pos.nsPerGroup[d], pos.groups * y[d], pos.floorGroups(d)));
  return t;
}

double CostModel::maxRatio(unsigned k, unsigned d) const {
  if (k >= positions.size()) return 1.0;
  const double memory = d < memoryBytes.size() ? shareThatFits(memoryBytes[d], positions[k].bytes) : 1.0;
  return std::min(memory, allocRatio(k, d));
}

double CostModel::allocRatio(unsigned k, unsigned d) const {
  if (d >= maxAllocBytes.size() || k >= positions.size()) return 1.0;
  return allocationShare(maxAllocBytes[d], positions[k].largest);
}

std::vector<double> CostModel::maxShares(unsigned k) const {
  std::vector<double> shares(devices);
  for (unsigned d = 0; d < devices; ++d) shares[d] = maxRatio(k, d);
  return shares;
}

std::vector<double> CostModel::shareBounds(unsigned k, const std::vector<bool>& active) const {
  if (memoryBytes.empty() && maxAllocBytes.empty()) return {};
  std::vector<double> alloc(devices);
  for (unsigned d = 0; d < devices; ++d) alloc[d] = allocRatio(k, d);
  return boundsThatHold(maxShares(k), alloc, active);
}

bool CostModel::fitsOn(unsigned k, const std::vector<bool>& active) const { return roomForAll(maxShares(k), active); }

CostModel::Breakdown CostModel::predict(const Ratios& y) const {
  Breakdown b;
  std::vector<bool> active(devices);
  for (unsigned k = 0; k < positions.size(); ++k) {
    unsigned used = 0;
    for (unsigned d = 0; d < devices; ++d) {
      active[d] = y[k][d] > kEps;
      used += active[d];
    }
    b.computeNs += computeNs(k, y[k]);
    b.hostNs += hostOverheadNs * used;

    double transfer = 0;
    for (unsigned d = 0; d < devices; ++d) {
      if (!active[d]) continue;
      Link in = inbound(active, d);
      double t = 0;
      for (const auto& e : edges) {
        if (e.consumer != k) continue;
        double bytes = e.haloBytes * sharedBoundaries(y[k], d);
        if (e.producer != e.consumer) bytes += e.bytesPerMismatch * splitMismatch(y[e.producer], y[k], d);
        if (bytes > 0.5) t += in.latencyNs + in.perByteNs * bytes;
      }
      double fromHost = positions[k].hostBytes * y[k][d];
      if (fromHost > 0.5) t += hostLinks[d].latencyNs + hostLinks[d].perByteNs * fromHost;
      transfer = std::max(transfer, t);
    }
    b.transferNs += transfer;
    if (!holds(k, y[k])) b.memoryNs += kUnfitNs;
  }
  return b;
}

bool CostModel::holds(unsigned k, const std::vector<double>& y) const {
  if (memoryBytes.empty() && maxAllocBytes.empty()) return true;
  return sharesFit(shareBounds(k, positions[k].allowed), positions[k].allowed, y, positions[k].groups);
}

double CostModel::transitionNs(const Ratios& from, const Ratios& to) const {
  const std::vector<bool> active(devices, true); // the rows come from the other devices
  double worst = 0;
  for (unsigned d = 0; d < devices; ++d) {
    double bytes = 0;
    for (const auto& e : edges) {
      if (e.producer >= from.size() || e.consumer >= to.size() || e.producer >= to.size()) continue;
      // A producer later in the sequence (or the consumer itself: the previous iteration) last
      // ran with the old split; an earlier one already runs with the new.
      if (e.producer < e.consumer) continue;
      const double extra =
          splitMismatch(from[e.producer], to[e.consumer], d) - splitMismatch(to[e.producer], to[e.consumer], d);
      if (extra > 0) bytes += e.bytesPerMismatch * extra;
    }
    if (bytes <= 0.5) continue;
    const Link in = inbound(active, d);
    worst = std::max(worst, in.latencyNs + in.perByteNs * bytes);
  }
  return worst;
}

bool CostModel::sameStructure(const CostModel& o) const {
  if (devices != o.devices || positions.size() != o.positions.size() || edges.size() != o.edges.size() ||
      memoryBytes != o.memoryBytes || maxAllocBytes != o.maxAllocBytes)
    return false;
  for (size_t i = 0; i < edges.size(); ++i)
    if (edges[i].producer != o.edges[i].producer || edges[i].consumer != o.edges[i].consumer) return false;
  for (size_t k = 0; k < positions.size(); ++k)
    if (positions[k].kernel != o.positions[k].kernel || positions[k].allowed != o.positions[k].allowed ||
        positions[k].concurrentGroups != o.positions[k].concurrentGroups)
      return false;
  return true;
}

bool CostModel::closeTo(const CostModel& o, double tol) const {
  if (!sameStructure(o) || !close(hostOverheadNs, o.hostOverheadNs, tol)) return false;
  for (size_t k = 0; k < positions.size(); ++k) {
    const auto &a = positions[k], &b = o.positions[k];
    if (!close(a.groups, b.groups, tol) || !close(a.hostBytes, b.hostBytes, tol) || !close(a.bytes, b.bytes, tol) ||
        !close(a.largest, b.largest, tol))
      return false;
    for (unsigned d = 0; d < devices; ++d)
      if (!close(a.nsPerGroup[d], b.nsPerGroup[d], tol) || !close(a.launchNs[d], b.launchNs[d], tol)) return false;
  }
  for (size_t i = 0; i < edges.size(); ++i)
    if (!close(edges[i].bytesPerMismatch, o.edges[i].bytesPerMismatch, tol) ||
        !close(edges[i].haloBytes, o.edges[i].haloBytes, tol))
      return false;
  for (unsigned s = 0; s < devices; ++s) {
    if (!close(hostLinks[s].perByteNs, o.hostLinks[s].perByteNs, tol) ||
        !close(hostLinks[s].latencyNs, o.hostLinks[s].latencyNs, tol))
      return false;
    for (unsigned d = 0; d < devices; ++d)
      if (!close(deviceLinks[s][d].perByteNs, o.deviceLinks[s][d].perByteNs, tol) ||
          !close(deviceLinks[s][d].latencyNs, o.deviceLinks[s][d].latencyNs, tol))
        return false;
  }
  return true;
}

} // namespace clsplit::partition
