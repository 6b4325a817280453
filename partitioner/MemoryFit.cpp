// Shares within the devices' memory (MemoryFit.h).
#include "partitioner/MemoryFit.h"

#include <algorithm>

namespace clsplit::partition {

namespace {
double shareOf(const std::vector<double>& maxShare, size_t d) { return d < maxShare.size() ? maxShare[d] : 1.0; }
} // namespace

double shareThatFits(double memoryBytes, double launchBytes) {
  if (memoryBytes <= 0 || launchBytes <= 0) return 1.0;
  return std::min(1.0, memoryBytes / launchBytes);
}

double allocationShare(double maxAlloc, double largestBuffer) {
  // A window is aligned and may carry halos: a 32nd of the allocation left for them.
  return shareThatFits(maxAlloc - maxAlloc / 32, largestBuffer);
}

double shareThatFits(double memoryBytes, double launchBytes, double maxAlloc, double largestBuffer) {
  return std::min(shareThatFits(memoryBytes, launchBytes), allocationShare(maxAlloc, largestBuffer));
}

std::vector<double> boundsThatHold(const std::vector<double>& maxShare, const std::vector<double>& allocShare,
                                   const std::vector<bool>& allowed) {
  if (maxShare.empty() && allocShare.empty()) return {};
  std::vector<double> both(std::max(maxShare.size(), allocShare.size()));
  for (size_t d = 0; d < both.size(); ++d) both[d] = std::min(shareOf(maxShare, d), shareOf(allocShare, d));
  if (roomForAll(both, allowed)) return both;
  if (!allocShare.empty() && roomForAll(allocShare, allowed)) return allocShare;
  return {};
}

std::vector<double> withinShares(std::vector<double> ratios, const std::vector<double>& maxShare) {
  double room = 0;
  for (size_t d = 0; d < ratios.size(); ++d) room += shareOf(maxShare, d);
  if (room < 1.0 - 1e-9) return ratios;
  std::vector<bool> capped(ratios.size(), false);
  for (size_t round = 0; round < ratios.size(); ++round) { // each round caps one device at least
    double excess = 0, free = 0;
    for (size_t d = 0; d < ratios.size(); ++d)
      if (!capped[d] && ratios[d] > shareOf(maxShare, d)) {
        excess += ratios[d] - shareOf(maxShare, d);
        ratios[d] = shareOf(maxShare, d);
        capped[d] = true;
      }
    if (excess <= 0) break;
    for (size_t d = 0; d < ratios.size(); ++d)
      if (!capped[d]) free += ratios[d];
    for (size_t d = 0; d < ratios.size(); ++d)
      if (!capped[d]) ratios[d] += free > 0 ? excess * ratios[d] / free : 0;
    if (free <= 0) { // the devices left had no share: the excess goes to those with room, evenly
      size_t open = 0;
      for (size_t d = 0; d < ratios.size(); ++d) open += !capped[d];
      for (size_t d = 0; d < ratios.size(); ++d)
        if (!capped[d]) ratios[d] += excess / double(open);
    }
  }
  return ratios;
}

bool roomForAll(const std::vector<double>& maxShare, const std::vector<bool>& allowed) {
  double room = 0;
  for (size_t d = 0; d < allowed.size(); ++d)
    if (allowed[d]) room += shareOf(maxShare, d);
  return room >= 1.0 - 1e-9;
}

bool sharesFit(const std::vector<double>& maxShare, const std::vector<bool>& allowed, const std::vector<double>& y,
               double groups) {
  if (maxShare.empty() || !roomForAll(maxShare, allowed)) return true;
  const double oneGroup = 1.0 / std::max(1.0, groups);
  for (size_t d = 0; d < y.size(); ++d)
    if (y[d] > shareOf(maxShare, d) + oneGroup + 1e-9) return false;
  return true;
}

} // namespace clsplit::partition
