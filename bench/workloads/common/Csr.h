// Sparse matrices in CSR form for the SpMV workloads, generated with a chosen row-length
// profile (that profile is the workload's irregularity) and a double-precision reference
// product. Rows have random-sign values normalised to unit 2-norm: repeated products then keep
// the vector's magnitude roughly constant (no overflow, no decay to zero), so an error made in
// any iteration stays visible in the final vector instead of being averaged away.
#pragma once

#include "bench/workloads/common/Parallel.h"
#include "bench/workloads/common/Random.h"

#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

namespace clsplit::bench {

struct CsrMatrix {
  size_t Rows = 0;
  std::vector<cl_int> RowPtr; ///< Rows + 1 offsets, non-decreasing
  std::vector<cl_int> Cols;   ///< sorted within a row
  std::vector<float> Values;
  size_t MaxRowLength = 0;
  size_t nonZeros() const { return Values.size(); }
};

/// n x n matrix whose row i holds rowLength(i) entries: half within +-64 of the diagonal, half
/// uniformly anywhere (irregular access to the vector). Deterministic for a given seed
/// whatever the thread count (each row has its own stream).
inline CsrMatrix makeCsr(size_t n, const std::function<size_t(size_t)>& rowLength, uint64_t seed) {
  CsrMatrix m;
  m.Rows = n;
  m.RowPtr.resize(n + 1);
  size_t nonZeros = 0;
  for (size_t i = 0; i < n; ++i) {
    m.RowPtr[i] = static_cast<cl_int>(nonZeros);
    size_t length = std::max<size_t>(1, rowLength(i));
    m.MaxRowLength = std::max(m.MaxRowLength, length);
    nonZeros += length;
    if (nonZeros > 0x7fffffffu) throw std::runtime_error("sparse matrix too large for 32-bit CSR indices");
  }
  m.RowPtr[n] = static_cast<cl_int>(nonZeros);
  m.Cols.resize(nonZeros);
  m.Values.resize(nonZeros);
  parallelFor(0, n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      Rng rng(seed * 0x100000001b3ull + i);
      size_t first = m.RowPtr[i], last = m.RowPtr[i + 1];
      double norm = 0;
      for (size_t k = first; k < last; ++k) {
        long col;
        if (rng.next() & 1)
          col = static_cast<long>(i) + static_cast<long>(rng.below(129)) - 64;
        else
          col = static_cast<long>(rng.below(n));
        m.Cols[k] = static_cast<cl_int>(std::clamp<long>(col, 0, static_cast<long>(n) - 1));
        double v = rng.uniform(-1.0, 1.0);
        m.Values[k] = static_cast<float>(v);
        norm += static_cast<double>(m.Values[k]) * m.Values[k];
      }
      std::sort(m.Cols.begin() + first, m.Cols.begin() + last);
      float scale = static_cast<float>(1.0 / std::sqrt(std::max(norm, 1e-30)));
      for (size_t k = first; k < last; ++k) m.Values[k] *= scale;
    }
  });
  return m;
}

/// y = m x in double (the reference), parallel over rows.
inline void multiply(const CsrMatrix& m, const std::vector<double>& x, std::vector<double>& y) {
  parallelFor(0, m.Rows, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      double sum = 0;
      for (cl_int k = m.RowPtr[i]; k < m.RowPtr[i + 1]; ++k) sum += static_cast<double>(m.Values[k]) * x[m.Cols[k]];
      y[i] = sum;
    }
  });
}

/// Rigorous bound on |fl(row i . x) - row i . x| for a float dot product of the row's length in
/// any order, fma or not: (length + 2) u sum |a_ik x_k|, u = 2^-24 (plus a tiny absolute floor).
inline void rowErrorBounds(const CsrMatrix& m, const std::vector<float>& x, std::vector<double>& bound) {
  parallelFor(0, m.Rows, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      double absSum = 0;
      for (cl_int k = m.RowPtr[i]; k < m.RowPtr[i + 1]; ++k)
        absSum += std::fabs(static_cast<double>(m.Values[k]) * x[m.Cols[k]]);
      bound[i] = (m.RowPtr[i + 1] - m.RowPtr[i] + 2) * 0x1.0p-24 * 1.01 * absSum + 1e-30;
    }
  });
}

} // namespace clsplit::bench
