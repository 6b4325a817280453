// GLPK model of the kernel-sequence LP, its in-place updates, and the active-set local search.
#include "partitioner/SequenceLp.h"

#include "partitioner/DependencyModel.h"
#include "partitioner/GroupSplit.h"
#include "support/Log.h"

#include <glpk.h>

#include <algorithm>
#include <cmath>

namespace clsplit::partition {

namespace {

constexpr double kUs = 1e-3; // the LP works in microseconds: keeps coefficients moderate
constexpr double kHuge = 1e12;

// GLPK aborts the process on non-finite input: every number goes through here.
double finite(double x) {
  if (!std::isfinite(x)) return x > 0 ? kHuge : (x < 0 ? -kHuge : 0.0);
  return std::clamp(x, -kHuge, kHuge);
}

} // namespace

SequenceLp::SequenceLp() = default;

SequenceLp::~SequenceLp() {
  if (lp_) glp_delete_prob(lp_);
}

bool SequenceLp::ensureStructure(const CostModel& model) {
  std::vector<std::pair<unsigned, unsigned>> structure;
  for (const auto& e : model.edges) structure.push_back({e.producer, e.consumer});
  const unsigned m = unsigned(model.positions.size()), n = model.devices;
  if (lp_ && m == m_ && n == n_ && structure == structure_) return true;

  if (lp_) glp_delete_prob(lp_);
  lp_ = glp_create_prob();
  m_ = m;
  n_ = n;
  structure_ = structure;
  crossEdges_.clear();
  for (unsigned i = 0; i < model.edges.size(); ++i)
    if (model.edges[i].producer != model.edges[i].consumer) crossEdges_.push_back(i);
  ++rebuilds_;

  const unsigned aux = unsigned(crossEdges_.size()) * 2 * (n - 1);
  glp_set_obj_dir(lp_, GLP_MIN);
  glp_add_cols(lp_, int(m * n + 2 * m + aux));
  glp_add_rows(lp_, int(m + 2 * m * n + aux));

  for (unsigned k = 0; k < m; ++k) {
    for (unsigned d = 0; d < n; ++d) glp_set_col_bnds(lp_, yCol(k, d), GLP_DB, 0.0, 1.0);
    glp_set_col_bnds(lp_, tCol(k), GLP_LO, 0.0, 0.0);
    glp_set_col_bnds(lp_, cCol(k), GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(lp_, tCol(k), 1.0);
    glp_set_obj_coef(lp_, cCol(k), 1.0);

    // sum_d y = 1
    std::vector<int> ind(1);
    std::vector<double> val(1);
    for (unsigned d = 0; d < n; ++d) {
      ind.push_back(yCol(k, d));
      val.push_back(1.0);
    }
    glp_set_mat_row(lp_, sumRow(k), int(n), ind.data(), val.data());
    glp_set_row_bnds(lp_, sumRow(k), GLP_FX, 1.0, 1.0);
  }

  // u >= P^h_{d-1} - P^k_{d-1}  and  v >= P^k_d - P^h_d  (prefix sums of the ratios)
  for (unsigned j = 0; j < crossEdges_.size(); ++j) {
    const auto& e = model.edges[crossEdges_[j]];
    for (unsigned d = 1; d < n; ++d) {
      glp_set_col_bnds(lp_, uCol(j, d), GLP_LO, 0.0, 0.0);
      std::vector<int> ind{0, uCol(j, d)};
      std::vector<double> val{0, 1.0};
      for (unsigned i = 0; i < d; ++i) {
        ind.push_back(yCol(e.producer, i));
        val.push_back(-1.0);
        ind.push_back(yCol(e.consumer, i));
        val.push_back(1.0);
      }
      glp_set_mat_row(lp_, uRow(j, d), int(ind.size() - 1), ind.data(), val.data());
      glp_set_row_bnds(lp_, uRow(j, d), GLP_LO, 0.0, 0.0);
    }
    for (unsigned d = 0; d + 1 < n; ++d) {
      glp_set_col_bnds(lp_, vCol(j, d), GLP_LO, 0.0, 0.0);
      std::vector<int> ind{0, vCol(j, d)};
      std::vector<double> val{0, 1.0};
      for (unsigned i = 0; i <= d; ++i) {
        ind.push_back(yCol(e.consumer, i));
        val.push_back(-1.0);
        ind.push_back(yCol(e.producer, i));
        val.push_back(1.0);
      }
      glp_set_mat_row(lp_, vRow(j, d), int(ind.size() - 1), ind.data(), val.data());
      glp_set_row_bnds(lp_, vRow(j, d), GLP_LO, 0.0, 0.0);
    }
  }
  glp_std_basis(lp_);
  return true;
}

void SequenceLp::load(const CostModel& model, const ActiveSet& active) {
  std::vector<int> ind;
  std::vector<double> val;
  for (unsigned k = 0; k < m_; ++k) {
    const auto& pos = model.positions[k];
    std::vector<bool> act(n_);
    for (unsigned d = 0; d < n_; ++d) act[d] = active[k][d];
    unsigned used = 0;
    for (unsigned d = 0; d < n_; ++d) used += act[d];

    for (unsigned d = 0; d < n_; ++d) {
      glp_set_col_bnds(lp_, yCol(k, d), act[d] ? GLP_DB : GLP_FX, 0.0, act[d] ? 1.0 : 0.0);

      // Compute: T_k >= L_d + f_d * groups * y_kd, for active pairs.
      ind.assign({0, tCol(k), yCol(k, d)});
      val.assign({0, 1.0, finite(-pos.nsPerGroup[d] * pos.groups * kUs)});
      glp_set_mat_row(lp_, compRow(k, d), 2, ind.data(), val.data());
      if (act[d])
        glp_set_row_bnds(lp_, compRow(k, d), GLP_LO, finite(pos.launchNs[d] * kUs), 0.0);
      else
        glp_set_row_bnds(lp_, compRow(k, d), GLP_FR, 0.0, 0.0);

      // Transfers into d before k: C_k >= sum_e Omega * (A_e * (u + v) + c_e * nb) + latencies
      // + host bytes.
      ind.assign({0, cCol(k)});
      val.assign({0, 1.0});
      double constant = 0;
      if (act[d]) {
        const auto in = model.inbound(act, d);
        const unsigned nb = used > 1 ? (std::any_of(act.begin(), act.begin() + d, [](bool a) { return a; }) +
                                        std::any_of(act.begin() + d + 1, act.end(), [](bool a) { return a; }))
                                     : 0;
        for (unsigned i = 0; i < model.edges.size(); ++i) {
          const auto& e = model.edges[i];
          if (e.consumer != k) continue;
          double halo = e.haloBytes * nb;
          if (halo > 0.5) constant += in.latencyNs + in.perByteNs * halo;
        }
        for (unsigned j = 0; j < crossEdges_.size(); ++j) {
          const auto& e = model.edges[crossEdges_[j]];
          if (e.consumer != k || !(e.bytesPerMismatch > 0)) continue;
          double coef = finite(-in.perByteNs * e.bytesPerMismatch * kUs);
          if (d >= 1) {
            ind.push_back(uCol(j, d));
            val.push_back(coef);
          }
          if (d + 1 < n_) {
            ind.push_back(vCol(j, d));
            val.push_back(coef);
          }
        }
        if (pos.hostBytes > 0.5) {
          ind.push_back(yCol(k, d));
          val.push_back(finite(-model.hostLinks[d].perByteNs * pos.hostBytes * kUs));
          constant += model.hostLinks[d].latencyNs;
        }
      }
      glp_set_mat_row(lp_, commRow(k, d), int(ind.size() - 1), ind.data(), val.data());
      if (act[d])
        glp_set_row_bnds(lp_, commRow(k, d), GLP_LO, finite(constant * kUs), 0.0);
      else
        glp_set_row_bnds(lp_, commRow(k, d), GLP_FR, 0.0, 0.0);
    }
  }
}

bool SequenceLp::simplex() {
  glp_term_out(GLP_OFF);
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.meth = GLP_DUALP; // bounds change between solves: the old basis stays dual feasible
  ++solvesInCall_;
  int rc = glp_simplex(lp_, &parm);
  if (rc != 0 || glp_get_status(lp_) != GLP_OPT) {
    // A basis made singular or invalid by coefficient updates: restart from scratch once.
    glp_adv_basis(lp_, 0);
    parm.meth = GLP_PRIMAL;
    ++solvesInCall_;
    rc = glp_simplex(lp_, &parm);
  }
  return rc == 0 && glp_get_status(lp_) == GLP_OPT;
}

Ratios SequenceLp::readRatios(const CostModel& model, const ActiveSet& active) const {
  Ratios out(m_, std::vector<double>(n_, 0.0));
  for (unsigned k = 0; k < m_; ++k) {
    std::vector<double> y(n_);
    for (unsigned d = 0; d < n_; ++d)
      y[d] = active[k][d] ? std::max(0.0, glp_get_col_prim(lp_, yCol(k, d))) : 0.0;
    auto groups = ratiosToGroups(y, uint64_t(std::max(1.0, std::round(model.positions[k].groups))));
    out[k] = groupsToRatios(groups);
  }
  return out;
}

SequenceLp::Result SequenceLp::evaluate(const CostModel& model, const ActiveSet& active) {
  Result r;
  load(model, active);
  if (!simplex()) return r;
  r.ok = true;
  r.active = active;
  r.ratios = readRatios(model, active);
  r.predictedNs = model.predict(r.ratios).total();
  r.lpObjectiveNs = glp_get_obj_val(lp_) / kUs;
  return r;
}

SequenceLp::Result SequenceLp::solveFixed(const CostModel& model, const ActiveSet& active) {
  solvesInCall_ = 0;
  Result r;
  if (model.devices == 0 || model.positions.empty()) return r;
  ensureStructure(model);
  r = evaluate(model, active);
  r.solves = solvesInCall_;
  return r;
}

SequenceLp::Result SequenceLp::solve(const CostModel& model, const ActiveSet& start) {
  solvesInCall_ = 0;
  Result best;
  const unsigned m = unsigned(model.positions.size()), n = model.devices;
  if (n == 0 || m == 0) return best;
  ensureStructure(model);

  // The starting active set, restricted to allowed devices, never empty per position.
  ActiveSet active(m, std::vector<bool>(n, false));
  for (unsigned k = 0; k < m; ++k) {
    bool any = false;
    for (unsigned d = 0; d < n; ++d) {
      bool allowed = model.positions[k].allowed[d];
      active[k][d] = allowed && (start.size() != m || start[k][d]);
      any |= active[k][d];
    }
    if (!any)
      for (unsigned d = 0; d < n; ++d) active[k][d] = model.positions[k].allowed[d];
  }

  best = evaluate(model, active);
  if (!best.ok) {
    log().warn("partitioner: the LP could not be solved; keeping the previous split");
    best.solves = solvesInCall_;
    return best;
  }

  auto valid = [&](const ActiveSet& a) {
    for (unsigned k = 0; k < m; ++k)
      if (std::none_of(a[k].begin(), a[k].end(), [](bool x) { return x; })) return false;
    return true;
  };

  // Local search over active sets: whole devices in or out, and small shares dropped.
  for (unsigned round = 0; round < n + 2; ++round) {
    std::vector<ActiveSet> candidates;
    for (unsigned d = 0; d < n; ++d) {
      ActiveSet without = best.active, with = best.active;
      bool anyIn = false, anyOut = false;
      for (unsigned k = 0; k < m; ++k) {
        anyIn |= best.active[k][d];
        without[k][d] = false;
        if (model.positions[k].allowed[d] && !best.active[k][d]) {
          with[k][d] = true;
          anyOut = true;
        }
      }
      if (anyIn && valid(without)) candidates.push_back(std::move(without));
      if (anyOut) candidates.push_back(std::move(with));
    }
    for (unsigned k = 0; k < m; ++k) {
      unsigned used = 0;
      for (unsigned d = 0; d < n; ++d) used += best.active[k][d];
      if (used < 2) continue;
      for (unsigned d = 0; d < n; ++d) {
        // A share the LP left at zero, or one too small to pay for its fixed costs.
        if (!best.active[k][d]) continue;
        double share = best.ratios[k][d];
        const auto& pos = model.positions[k];
        double work = pos.nsPerGroup[d] * pos.groups * share;
        if (share > 0.25 && work > 4 * (pos.launchNs[d] + model.hostOverheadNs)) continue;
        ActiveSet a = best.active;
        a[k][d] = false;
        candidates.push_back(std::move(a));
      }
    }

    Result roundBest = best;
    for (const auto& c : candidates) {
      Result r = evaluate(model, c);
      if (r.ok && r.predictedNs < roundBest.predictedNs * (1 - 1e-4)) roundBest = std::move(r);
    }
    if (roundBest.predictedNs >= best.predictedNs * (1 - 1e-4)) break;
    best = std::move(roundBest);
  }
  best.solves = solvesInCall_;
  return best;
}

} // namespace clsplit::partition
