// The ADAPTIVE w/ COMM linear program (thesis Figure 4.6) in GLPK: ratios of every kernel of the
// sequence on every device, minimising the sum over kernels of compute time plus the parallel
// dependency-transfer time, with the split mismatch S_d linearised by two auxiliary variables per
// edge and boundary. Fixed costs (launch latency, host overhead per sub-launch, transfer latency)
// are not linear in the ratios: the LP is solved for a set of active (kernel, device) pairs and a
// local search over those sets, judged by the full CostModel, decides which devices take part.
// The GLPK problem is built once per sequence structure and updated in place; re-solves start
// from the previous basis.
#pragma once

#include "partitioner/CostModel.h"

#include <array>
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
    Ratios ratios; // rounded to work-groups
    ActiveSet active;
    double predictedNs = 0;   // CostModel prediction of `ratios`
    double lpObjectiveNs = 0; // the LP's own objective for the chosen active set
    unsigned solves = 0;      // simplex runs, local search included
    bool searched = false;    // set by the caller: the active-set search ran
  };

  // Solves for `model`, starting the active-set search at `start` (empty: every allowed pair).
  Result solve(const CostModel& model, const ActiveSet& start);

  // One LP solve for a fixed active set (exposed for tests and the benchmark).
  Result solveFixed(const CostModel& model, const ActiveSet& active);

  unsigned rebuilds() const { return rebuilds_; }

private:
  bool ensureStructure(const CostModel& model);
  void load(const CostModel& model, const ActiveSet& active);
  bool simplex(bool fromCrash);
  // The simplex basis (row and column statuses): candidates of the local search start from the
  // best solution's basis, and the problem is left at it for the next warm solve.
  struct Basis {
    std::vector<int> rows, cols;
  };
  Basis saveBasis() const;
  void restoreBasis(const Basis& b);
  void crashBasis(const CostModel& model, const ActiveSet& active);
  void setRow(int row, const std::vector<int>& ind, const std::vector<double>& val);
  void setRowBounds(int row, int type, double lb);
  void setColBounds(int col, int type, double lb, double ub);
  Ratios readRatios(const CostModel& model, const ActiveSet& active) const;
  Result evaluate(const CostModel& model, const ActiveSet& active);

  int yCol(unsigned k, unsigned d) const { return 1 + int(k * n_ + d); }
  int tCol(unsigned k) const { return 1 + int(m_ * n_ + k); }
  int cCol(unsigned k) const { return 1 + int(m_ * n_ + m_ + k); }
  // Per cross edge j and boundary b (after device b, b < n-1): the prefix-sum difference
  // P^k_b - P^h_b = pos - neg, so S_d = neg_{d-1} + pos_d.
  int posCol(unsigned j, unsigned b) const { return auxBase(j) + int(b); }
  int negCol(unsigned j, unsigned b) const { return auxBase(j) + int(n_ - 1 + b); }
  int auxBase(unsigned j) const { return 1 + int(m_ * n_ + 2 * m_ + j * 2 * (n_ - 1)); }
  int sumRow(unsigned k) const { return 1 + int(k); }
  int compRow(unsigned k, unsigned d) const { return 1 + int(m_ + k * n_ + d); }
  int commRow(unsigned k, unsigned d) const { return 1 + int(m_ + m_ * n_ + k * n_ + d); }
  int deltaRow(unsigned j, unsigned b) const { return 1 + int(m_ + 2 * m_ * n_ + j * (n_ - 1) + b); }

  glp_prob* lp_ = nullptr;
  unsigned m_ = 0, n_ = 0;
  std::vector<unsigned> crossEdges_;                     // model edge index per aux block
  std::vector<std::pair<unsigned, unsigned>> structure_; // (producer, consumer) of all edges
  std::vector<std::vector<std::pair<int, double>>> rowCache_;
  std::vector<std::pair<int, double>> rowBounds_;
  std::vector<std::array<double, 3>> colBounds_; // type, lower, upper
  unsigned rebuilds_ = 0;
  bool needCrash_ = false;
  unsigned solvesInCall_ = 0;
};

} // namespace clsplit::partition
