// Period detection over the recent history of kernel identities.
#include "partitioner/KernelSequence.h"

#include <algorithm>

namespace clsplit::partition {

KernelSequence::KernelSequence(unsigned maxLength) : maxLength_(std::max(1u, maxLength)) {}

std::optional<unsigned> KernelSequence::findPeriod() const {
  const size_t n = history_.size();
  const size_t longest = std::min<size_t>(maxLength_, n / 2);
  for (size_t p = 1; p <= longest; ++p) {
    bool periodic = true;
    for (size_t i = 0; i < p && periodic; ++i) periodic = history_[n - 2 * p + i] == history_[n - p + i];
    if (periodic) return static_cast<unsigned>(p);
  }
  return std::nullopt;
}

KernelSequence::Step KernelSequence::observe(uint32_t kernel) {
  history_.push_back(kernel);
  if (history_.size() > 2 * size_t(maxLength_)) history_.pop_front();

  Step step;
  if (locked()) {
    if (sequence_[phase_] == kernel) {
      step.position = phase_;
      step.iterationStart = phase_ == 0;
      if (step.iterationStart) ++iterations_;
      phase_ = (phase_ + 1) % sequence_.size();
      return step;
    }
    // The application left its loop (or entered another): look for a new sequence at once.
    sequence_.clear();
    ++breaks_;
  }
  if (auto p = findPeriod()) {
    sequence_.assign(history_.end() - *p, history_.end());
    ++generation_;
    iterations_ = 1; // this launch closes the second observed pass
    phase_ = 0;
    step.position = *p - 1;
    step.newSequence = true;
  }
  return step;
}

} // namespace clsplit::partition
