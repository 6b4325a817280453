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

double shareThatFits(double memoryBytes, double launchBytes, double maxAlloc, double largestBuffer) {
  // A window is aligned and may carry halos: a 32nd of the allocation left for them.
  return std::min(shareThatFits(memoryBytes, launchBytes), shareThatFits(maxAlloc - maxAlloc / 32, largestBuffer));
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
