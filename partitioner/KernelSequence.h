// Kernel sequence detection: finds the application's time step (the iterated sequence of
// launches) in the stream of kernel identities, so that one linear program can cover a whole
// iteration. Identities ignore buffer and scalar arguments, so ping-pong swaps and changing
// scalars do not disturb it.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace clsplit::partition {

class KernelSequence {
public:
  explicit KernelSequence(unsigned maxLength = 64);

  struct Step {
    std::optional<unsigned> position; // place in the locked sequence; none while unlocked
    bool iterationStart = false;      // this launch begins a new pass (position 0)
    bool newSequence = false;         // a (new) sequence was locked by this launch
  };

  // Observes the next launch, identified by an interned kernel id.
  Step observe(uint32_t kernel);

  bool locked() const { return !sequence_.empty(); }
  // The locked sequence of kernel ids (empty when unlocked).
  const std::vector<uint32_t>& sequence() const { return sequence_; }
  // Bumped every time a sequence is locked: positions of different generations are unrelated.
  uint64_t generation() const { return generation_; }
  // Passes of the current sequence begun since it was locked.
  uint64_t iterations() const { return iterations_; }
  // Times the lock was lost because a launch did not follow the sequence.
  uint64_t breaks() const { return breaks_; }

private:
  // The smallest period p whose last two repetitions end the history, if any.
  std::optional<unsigned> findPeriod() const;

  unsigned maxLength_;
  std::deque<uint32_t> history_;
  std::vector<uint32_t> sequence_;
  unsigned phase_ = 0; // position expected next
  uint64_t generation_ = 0;
  uint64_t iterations_ = 0;
  uint64_t breaks_ = 0;
};

} // namespace clsplit::partition
