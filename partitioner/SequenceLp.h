// The ADAPTIVE w/ COMM linear program (thesis Figure 4.6) in GLPK: ratios of every kernel of the
// sequence on every device, minimising the sum over kernels of compute time plus the parallel
// dependency-transfer time, with the split mismatch S_d linearised by two auxiliary variables per
// edge and device. Fixed costs (launch latency, host overhead per sub-launch, transfer latency)
// are not linear in the ratios: the LP is solved for a set of active (kernel, device) pairs and a
// local search over those sets, judged by the full CostModel, decides which devices take part.
// The GLPK problem is built once per sequence structure and updated in place; re-solves start
// from the previous basis.
#pragma once

#include "partitioner/CostModel.h"

#include <cstdint>
#include <vector>

struct glp_prob;

namespace clsplit::partition {

using ActiveSet = std::vector<std::vector<bool>>; // [position][device]

class SequenceLp {
public:
  SequenceLp();
  ~SequenceLp();
  SequenceLp(const SequenceLp&) = delete;
  SequenceLp& operator=(const SequenceLp&) = delete;

  struct Result {
    bool ok = false;
    Ratios ratios;               // rounded to work-groups
    ActiveSet active;
    double predictedNs = 0;      // CostModel prediction of `ratios`
    double lpObjectiveNs = 0;    // the LP's own objective for the chosen active set
    unsigned solves = 0;         // simplex runs, local search included
  };

  // Solves for `model`, starting the active-set search at `start` (empty: every allowed pair).
  Result solve(const CostModel& model, const ActiveSet& start);

  // One LP solve for a fixed active set (exposed for tests and the benchmark).
  Result solveFixed(const CostModel& model, const ActiveSet& active);

  unsigned rebuilds() const { return rebuilds_; }

private:
  bool ensureStructure(const CostModel& model);
  void load(const CostModel& model, const ActiveSet& active);
  bool simplex();
  Ratios readRatios(const CostModel& model, const ActiveSet& active) const;
  Result evaluate(const CostModel& model, const ActiveSet& active);

  int yCol(unsigned k, unsigned d) const { return 1 + int(k * n_ + d); }
  int tCol(unsigned k) const { return 1 + int(m_ * n_ + k); }
  int cCol(unsigned k) const { return 1 + int(m_ * n_ + m_ + k); }
  int uCol(unsigned j, unsigned d) const { return auxBase(j) + int(d) - 1; }       // d >= 1
  int vCol(unsigned j, unsigned d) const { return auxBase(j) + int(n_ - 1 + d); }  // d <= n-2
  int auxBase(unsigned j) const { return 1 + int(m_ * n_ + 2 * m_ + j * 2 * (n_ - 1)); }
  int sumRow(unsigned k) const { return 1 + int(k); }
  int compRow(unsigned k, unsigned d) const { return 1 + int(m_ + k * n_ + d); }
  int commRow(unsigned k, unsigned d) const { return 1 + int(m_ + m_ * n_ + k * n_ + d); }
  int uRow(unsigned j, unsigned d) const { return auxRowBase(j) + int(d) - 1; }
  int vRow(unsigned j, unsigned d) const { return auxRowBase(j) + int(n_ - 1 + d); }
  int auxRowBase(unsigned j) const { return 1 + int(m_ + 2 * m_ * n_ + j * 2 * (n_ - 1)); }

  glp_prob* lp_ = nullptr;
  unsigned m_ = 0, n_ = 0;
  std::vector<unsigned> crossEdges_;                        // model edge index per aux block
  std::vector<std::pair<unsigned, unsigned>> structure_;   // (producer, consumer) of all edges
  unsigned rebuilds_ = 0;
  unsigned solvesInCall_ = 0;
};

} // namespace clsplit::partition
