// Largest-remainder rounding of ratios to work-group counts.
#include "partitioner/GroupSplit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace clsplit::partition {

namespace {
// Per-device scratch on the stack for the usual handful of devices (this runs every launch).
template <class T>
class Scratch {
public:
  explicit Scratch(size_t n) : data_(n <= kSmall ? small_.data() : (big_.resize(n), big_.data())) {}
  T& operator[](size_t i) { return data_[i]; }
  T* begin() { return data_; }

private:
  static constexpr size_t kSmall = 16;
  std::array<T, kSmall> small_{};
  std::vector<T> big_;
  T* data_;
};
} // namespace

std::vector<uint64_t> ratiosToGroups(const std::vector<double>& ratios, uint64_t groups) {
  const size_t n = ratios.size();
  std::vector<uint64_t> out(n, 0);
  if (n == 0) return out;
  Scratch<double> r(n);
  double sum = 0;
  for (size_t d = 0; d < n; ++d) {
    r[d] = (std::isfinite(ratios[d]) && ratios[d] > 0) ? ratios[d] : 0.0;
    sum += r[d];
  }
  if (!(sum > 0) || !std::isfinite(sum)) {
    out[0] = groups;
    return out;
  }
  // 128-bit bookkeeping: group counts near 2^64 must neither overflow nor loop.
  using Wide = unsigned __int128;
  const double total = double(groups);
  Wide assigned = 0;
  Scratch<double> remainder(n);
  for (size_t d = 0; d < n; ++d) {
    double exact = r[d] / sum * total;
    double whole = std::floor(exact);
    // Converting a double at or above 2^64 is undefined: clamp first.
    out[d] = whole >= total ? groups : static_cast<uint64_t>(whole);
    remainder[d] = exact - whole;
    assigned += out[d];
  }
  // Floating point can over-assign in extreme cases: take it back from the largest counts.
  while (assigned > groups) {
    auto it = std::max_element(out.begin(), out.end());
    Wide excess = assigned - groups;
    uint64_t take = uint64_t(std::min<Wide>(excess, *it));
    *it -= take;
    assigned -= take;
  }
  Scratch<size_t> order(n);
  std::iota(order.begin(), order.begin() + n, size_t(0));
  // Largest remainder first; ties to the larger ratio, then the lower device (a total order:
  // std::sort suffices, and unlike stable_sort it allocates nothing - this runs every launch).
  std::sort(order.begin(), order.begin() + n, [&](size_t a, size_t b) {
    if (remainder[a] != remainder[b]) return remainder[a] > remainder[b];
    if (r[a] != r[b]) return r[a] > r[b];
    return a < b;
  });
  // Fewer groups remain than devices with a positive ratio (up to rounding), so one group each
  // in remainder order; a device with ratio 0 never gets a group.
  Scratch<size_t> positive(n);
  size_t positives = 0;
  for (size_t i = 0; i < n; ++i)
    if (r[order[i]] > 0) positive[positives++] = order[i];
  for (size_t i = 0; i < positives && assigned < groups; ++i) {
    ++out[positive[i]];
    ++assigned;
  }
  // Only with counts beyond double precision can something remain: to the largest share.
  if (assigned < groups) {
    size_t largest = *std::max_element(positive.begin(), positive.begin() + positives,
                                       [&](size_t a, size_t b) { return r[a] < r[b]; });
    out[largest] += uint64_t(Wide(groups) - assigned);
  }
  return out;
}

std::vector<double> groupsToRatios(const std::vector<uint64_t>& groups) {
  uint64_t total = 0;
  for (auto g : groups) total += g;
  std::vector<double> out(groups.size(), 0.0);
  if (total == 0) return out;
  for (size_t d = 0; d < groups.size(); ++d) out[d] = double(groups[d]) / double(total);
  return out;
}

} // namespace clsplit::partition
