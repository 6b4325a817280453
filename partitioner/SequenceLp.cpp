// GLPK model of the kernel-sequence LP, its in-place updates, and the active-set local search.
#include "partitioner/SequenceLp.h"

#include "partitioner/DependencyModel.h"
#include "partitioner/GroupSplit.h"
#include "partitioner/KernelTimeModel.h"
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

  const unsigned edges = unsigned(crossEdges_.size());
  glp_set_obj_dir(lp_, GLP_MIN);
  glp_add_cols(lp_, int(m * n + 2 * m + edges * 2 * (n - 1)));
  glp_add_rows(lp_, int(m + 2 * m * n + edges * (n - 1)));

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

  // pos - neg - P^k_b + P^h_b = 0: at the optimum pos = max(P^k_b - P^h_b, 0) and
  // neg = max(P^h_b - P^k_b, 0) wherever they carry a cost.
  for (unsigned j = 0; j < edges; ++j) {
    const auto& e = model.edges[crossEdges_[j]];
    for (unsigned b = 0; b + 1 < n; ++b) {
      glp_set_col_bnds(lp_, posCol(j, b), GLP_LO, 0.0, 0.0);
      glp_set_col_bnds(lp_, negCol(j, b), GLP_LO, 0.0, 0.0);
      std::vector<int> ind{0, posCol(j, b), negCol(j, b)};
      std::vector<double> val{0, 1.0, -1.0};
      for (unsigned i = 0; i <= b; ++i) {
        ind.push_back(yCol(e.consumer, i));
        val.push_back(-1.0);
        ind.push_back(yCol(e.producer, i));
        val.push_back(1.0);
      }
      glp_set_mat_row(lp_, deltaRow(j, b), int(ind.size() - 1), ind.data(), val.data());
      glp_set_row_bnds(lp_, deltaRow(j, b), GLP_FX, 0.0, 0.0);
    }
  }
  glp_std_basis(lp_);
  needCrash_ = true;
  rowCache_.assign(size_t(glp_get_num_rows(lp_)) + 1, {});
  rowBounds_.assign(size_t(glp_get_num_rows(lp_)) + 1, {-1, 0.0});
  colBounds_.assign(size_t(glp_get_num_cols(lp_)) + 1, {-1.0, 0.0, 0.0});
  return true;
}

// Cached updates: GLPK drops its basis factorisation whenever the matrix changes, so rows whose
// coefficients did not change are not touched (bound changes keep the factorisation).
void SequenceLp::setRow(int row, const std::vector<int>& ind, const std::vector<double>& val) {
  std::vector<std::pair<int, double>> entries;
  for (size_t i = 1; i < ind.size(); ++i) entries.push_back({ind[i], val[i]});
  if (rowCache_[row] == entries) return;
  glp_set_mat_row(lp_, row, int(ind.size() - 1), ind.data(), val.data());
  rowCache_[row] = std::move(entries);
}

void SequenceLp::setRowBounds(int row, int type, double lb) {
  if (rowBounds_[row] == std::pair{type, lb}) return;
  glp_set_row_bnds(lp_, row, type, lb, 0.0);
  rowBounds_[row] = {type, lb};
}

void SequenceLp::setColBounds(int col, int type, double lb, double ub) {
  // After the build: y columns between [0,1] and fixed at 0, t columns' lower bounds.
  const std::array<double, 3> key{double(type), lb, ub};
  if (colBounds_[col] == key) return;
  glp_set_col_bnds(lp_, col, type, lb, ub);
  colBounds_[col] = key;
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
    // T_k >= L_d + f_d * C_d for active pairs: a device that runs C_d groups at once takes at
    // least that long for any share (shareTimeNs).
    double floorNs = 0;
    for (unsigned d = 0; d < n_; ++d)
      if (act[d] && pos.floorGroups(d) > 0)
        floorNs = std::max(floorNs, shareTimeNs(pos.launchNs[d], pos.nsPerGroup[d], 0, pos.floorGroups(d)));
    setColBounds(tCol(k), GLP_LO, finite(floorNs * kUs), 0.0);

    // A device's share is at most what its memory and its largest allocation hold, where the
    // active devices hold the whole launch together; where their memory cannot (evictions will
    // make room), at most what its largest allocation holds, which no eviction changes; where
    // even those cannot, unbounded (bounds no split fits would make the LP infeasible).
    const std::vector<double> bounds = model.shareBounds(k, act);
    for (unsigned d = 0; d < n_; ++d) {
      const double most = d < bounds.size() ? bounds[d] : 1.0;
      setColBounds(yCol(k, d), act[d] ? GLP_DB : GLP_FX, 0.0, act[d] ? most : 0.0);

      // Compute: T_k >= L_d + f_d * groups * y_kd, for active pairs.
      ind.assign({0, tCol(k), yCol(k, d)});
      val.assign({0, 1.0, finite(-pos.nsPerGroup[d] * pos.groups * kUs)});
      setRow(compRow(k, d), ind, val);
      if (act[d])
        setRowBounds(compRow(k, d), GLP_LO, finite(pos.launchNs[d] * kUs));
      else
        setRowBounds(compRow(k, d), GLP_FR, 0.0);

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
          if (d >= 1) { // S_d = neg_{d-1} + pos_d
            ind.push_back(negCol(j, d - 1));
            val.push_back(coef);
          }
          if (d + 1 < n_) {
            ind.push_back(posCol(j, d));
            val.push_back(coef);
          }
        }
        if (pos.hostBytes > 0.5) {
          ind.push_back(yCol(k, d));
          val.push_back(finite(-model.hostLinks[d].perByteNs * pos.hostBytes * kUs));
          constant += model.hostLinks[d].latencyNs;
        }
      }
      setRow(commRow(k, d), ind, val);
      if (act[d])
        setRowBounds(commRow(k, d), GLP_LO, finite(constant * kUs));
      else
        setRowBounds(commRow(k, d), GLP_FR, 0.0);
    }
  }
}

SequenceLp::Basis SequenceLp::saveBasis() const {
  Basis b;
  const int rows = glp_get_num_rows(lp_), cols = glp_get_num_cols(lp_);
  b.rows.resize(size_t(rows) + 1);
  b.cols.resize(size_t(cols) + 1);
  for (int i = 1; i <= rows; ++i) b.rows[i] = glp_get_row_stat(lp_, i);
  for (int j = 1; j <= cols; ++j) b.cols[j] = glp_get_col_stat(lp_, j);
  return b;
}

void SequenceLp::restoreBasis(const Basis& b) {
  const int rows = glp_get_num_rows(lp_), cols = glp_get_num_cols(lp_);
  if (b.rows.size() != size_t(rows) + 1 || b.cols.size() != size_t(cols) + 1) return;
  for (int i = 1; i <= rows; ++i) glp_set_row_stat(lp_, i, b.rows[i]);
  for (int j = 1; j <= cols; ++j) glp_set_col_stat(lp_, j, b.cols[j]);
}

bool SequenceLp::simplex(bool fromCrash) {
  glp_term_out(GLP_OFF);
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  if (fromCrash) {
    // The crash basis is primal feasible (balanced splits): primal simplex, with textbook
    // pricing, whose cheaper iterations win on these small problems (8 x 4: ~50 iterations,
    // 25 % less time than steepest edge's ~43; the dual from there takes ~75).
    parm.meth = GLP_PRIMAL;
    parm.pricing = GLP_PT_STD;
  } else {
    parm.meth = GLP_DUALP; // bounds change between solves: the old basis stays dual feasible
  }
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
    for (unsigned d = 0; d < n_; ++d) y[d] = active[k][d] ? std::max(0.0, glp_get_col_prim(lp_, yCol(k, d))) : 0.0;
    auto groups = ratiosToGroups(y, uint64_t(std::max(1.0, std::round(model.positions[k].groups))));
    out[k] = groupsToRatios(groups);
  }
  return out;
}

// A starting basis for a freshly built problem: every kernel at its own balanced split
// (ADAPTIVE w/o COMM: equal finish times over its active devices), transfers ignored. From
// there the simplex only has to account for the coupling, instead of starting from nothing.
void SequenceLp::crashBasis(const CostModel& model, const ActiveSet& active) {
  std::vector<std::vector<double>> y(m_, std::vector<double>(n_, 0.0));
  for (unsigned k = 0; k < m_; ++k) {
    const auto& pos = model.positions[k];
    // Water-filling over the active devices: the common finish time t of the devices in `in`
    // (every device's f * y + L equal, sum y = 1); devices whose latency alone exceeds t drop out.
    auto work = [&](unsigned d) { return std::max(pos.nsPerGroup[d] * pos.groups, 1e-9); };
    auto finishTime = [&](const std::vector<bool>& in) {
      double sumInv = 0, sumLat = 0;
      for (unsigned d = 0; d < n_; ++d)
        if (in[d]) {
          sumInv += 1 / work(d);
          sumLat += pos.launchNs[d] / work(d);
        }
      return sumInv > 0 ? (1 + sumLat) / sumInv : -1.0;
    };
    std::vector<bool> in(n_);
    for (unsigned d = 0; d < n_; ++d) in[d] = active[k][d];
    for (double t = finishTime(in); t >= 0; t = finishTime(in)) {
      int worst = -1;
      for (unsigned d = 0; d < n_; ++d)
        if (in[d] && pos.launchNs[d] > t && (worst < 0 || pos.launchNs[d] > pos.launchNs[worst])) worst = int(d);
      if (worst < 0) break;
      in[worst] = false;
    }
    if (std::none_of(in.begin(), in.end(), [](bool b) { return b; }))
      for (unsigned d = 0; d < n_; ++d) in[d] = active[k][d];
    // The balanced split itself (tentative column values, used below to pick the basis).
    const double t = std::max(0.0, finishTime(in));
    for (unsigned d = 0; d < n_; ++d) y[k][d] = in[d] ? std::max(0.0, (t - pos.launchNs[d]) / work(d)) : 0.0;

    glp_set_row_stat(lp_, sumRow(k), GLP_NS);
    glp_set_col_stat(lp_, tCol(k), GLP_BS);
    glp_set_col_stat(lp_, cCol(k), GLP_BS);
    for (unsigned d = 0; d < n_; ++d) {
      glp_set_col_stat(lp_, yCol(k, d), in[d] ? GLP_BS : (active[k][d] ? GLP_NL : GLP_NS));
      glp_set_row_stat(lp_, compRow(k, d), in[d] ? GLP_NL : GLP_BS);
    }
  }
  // Each mismatch pair at the sign the tentative splits give it (the other at zero), so the
  // start is primal feasible where the balanced splits are.
  std::vector<double> aux(size_t(glp_get_num_cols(lp_)) + 1, 0.0);
  for (unsigned j = 0; j < crossEdges_.size(); ++j) {
    const auto& e = model.edges[crossEdges_[j]];
    double pk = 0, ph = 0;
    for (unsigned b = 0; b + 1 < n_; ++b) {
      pk += y[e.consumer][b];
      ph += y[e.producer][b];
      const bool positive = pk - ph >= 0;
      glp_set_row_stat(lp_, deltaRow(j, b), GLP_NS);
      glp_set_col_stat(lp_, posCol(j, b), positive ? GLP_BS : GLP_NL);
      glp_set_col_stat(lp_, negCol(j, b), positive ? GLP_NL : GLP_BS);
      aux[size_t(positive ? posCol(j, b) : negCol(j, b))] = std::abs(pk - ph);
    }
  }
  // C_k is bound by the transfer row that needs the most at these values.
  for (unsigned k = 0; k < m_; ++k)
    for (unsigned d = 0; d < n_; ++d) aux[size_t(yCol(k, d))] = y[k][d];
  std::vector<int> ind(size_t(glp_get_num_cols(lp_)) + 1);
  std::vector<double> val(ind.size());
  for (unsigned k = 0; k < m_; ++k) {
    int tight = -1;
    double need = -INFINITY;
    for (unsigned d = 0; d < n_; ++d) {
      if (!active[k][d]) continue;
      const int row = commRow(k, d);
      double required = glp_get_row_lb(lp_, row);
      const int len = glp_get_mat_row(lp_, row, ind.data(), val.data());
      for (int i = 1; i <= len; ++i) {
        if (ind[i] == cCol(k)) continue;
        required -= val[i] * aux[size_t(ind[i])];
      }
      if (required > need) need = required, tight = int(d);
    }
    for (unsigned d = 0; d < n_; ++d) glp_set_row_stat(lp_, commRow(k, d), int(d) == tight ? GLP_NL : GLP_BS);
  }
}

SequenceLp::Result SequenceLp::evaluate(const CostModel& model, const ActiveSet& active) {
  Result r;
  load(model, active);
  bool crashed = false;
  if (needCrash_) {
    // Scaled once per fresh problem (the coefficients span ns-per-group to bytes): the simplex
    // from the crash basis then takes far fewer steps; later updates keep these factors.
    glp_term_out(GLP_OFF); // GLPK prints its scaling otherwise, into the application's output
    glp_scale_prob(lp_, GLP_SF_AUTO);
    crashBasis(model, active);
    needCrash_ = false;
    crashed = true;
  }
  if (!simplex(crashed)) return r;
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
  Basis bestBasis = saveBasis();
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

  // Local search over active sets. Dropping a device (from every kernel or from one) is
  // screened cheaply: its share is spread over the kernel's other devices in proportion and the
  // model judges the result; only the most promising drops are re-solved as LPs. Bringing a
  // device back needs the LP to find its share, so it is tried per device.
  auto rounded = [&](Ratios y) {
    for (unsigned k = 0; k < m; ++k) {
      double sum = 0;
      for (double v : y[k]) sum += v;
      if (sum > 0)
        for (double& v : y[k]) v /= sum;
      y[k] = groupsToRatios(ratiosToGroups(y[k], uint64_t(std::max(1.0, std::round(model.positions[k].groups)))));
    }
    return y;
  };
  constexpr unsigned kLpChecksPerRound = 3;
  for (unsigned round = 0; round < n + 2; ++round) {
    struct Screened {
      ActiveSet active;
      double predictedNs;
    };
    std::vector<Screened> drops;
    auto screenDrop = [&](ActiveSet a, Ratios y) {
      if (!valid(a)) return;
      drops.push_back({std::move(a), model.predict(rounded(std::move(y))).total()});
    };
    for (unsigned d = 0; d < n; ++d) {
      ActiveSet a = best.active;
      Ratios y = best.ratios;
      bool any = false;
      for (unsigned k = 0; k < m; ++k) {
        any |= a[k][d];
        a[k][d] = false;
        y[k][d] = 0;
      }
      if (any) screenDrop(std::move(a), std::move(y));
    }
    for (unsigned k = 0; k < m; ++k) {
      unsigned used = 0;
      for (unsigned d = 0; d < n; ++d) used += best.active[k][d];
      if (used < 2) continue;
      for (unsigned d = 0; d < n; ++d) {
        if (!best.active[k][d]) continue;
        ActiveSet a = best.active;
        Ratios y = best.ratios;
        a[k][d] = false;
        y[k][d] = 0;
        screenDrop(std::move(a), std::move(y));
      }
    }
    std::sort(drops.begin(), drops.end(),
              [](const Screened& a, const Screened& b) { return a.predictedNs < b.predictedNs; });

    Result roundBest = best;
    Basis roundBasis = bestBasis;
    auto consider = [&](const ActiveSet& a) {
      restoreBasis(bestBasis);
      Result r = evaluate(model, a);
      if (r.ok && r.predictedNs < roundBest.predictedNs * (1 - 1e-4)) {
        roundBest = std::move(r);
        roundBasis = saveBasis();
      }
    };
    for (unsigned i = 0; i < drops.size() && i < kLpChecksPerRound; ++i)
      if (drops[i].predictedNs < best.predictedNs * (1 + 0.05)) consider(drops[i].active);
    {
      for (unsigned d = 0; d < n; ++d) {
        ActiveSet a = best.active;
        bool added = false;
        for (unsigned k = 0; k < m; ++k)
          if (model.positions[k].allowed[d] && !a[k][d]) {
            a[k][d] = true;
            added = true;
          }
        if (added) consider(a);
      }
    }
    if (roundBest.predictedNs >= best.predictedNs * (1 - 1e-4)) break;
    best = std::move(roundBest);
    bestBasis = std::move(roundBasis);
  }
  // Leave the problem at the chosen solution: the next solve starts from its basis.
  load(model, best.active);
  restoreBasis(bestBasis);
  best.solves = solvesInCall_;
  return best;
}

} // namespace clsplit::partition
