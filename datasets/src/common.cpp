// Coordinate-list -> CSR builder, values and permutations shared by every generator.
#include "common.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace opsparse::datasets::detail {

void fill_values(host_csr<double>& m, value_kind values, std::uint64_t seed) {
  m.val.resize(m.col.size());
  if (values == value_kind::ones) {
    std::fill(m.val.begin(), m.val.end(), 1.0);
    return;
  }
#pragma omp parallel for schedule(dynamic, 4096)
  for (index_t i = 0; i < m.rows; ++i)
    for (offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k) m.val[k] = entry_value(seed, i, m.col[k]);
}

host_csr<double> build_csr(index_t rows, index_t cols, const std::vector<index_t>& r,
                           const std::vector<index_t>& c, bool mirror, value_kind values,
                           std::uint64_t seed) {
  if (r.size() != c.size()) throw std::invalid_argument("build_csr: coordinate arrays differ");
  if (mirror && rows != cols)
    throw std::invalid_argument("build_csr: mirror needs a square matrix");
  host_csr<double> m(rows, cols);
  const std::size_t n = r.size();
  // Counting sort by row: two linear passes, no comparison sort of the whole list.
  for (std::size_t k = 0; k < n; ++k) {
    if (r[k] < 0 || c[k] < 0) continue;
    ++m.rpt[static_cast<std::size_t>(r[k]) + 1];
    if (mirror) ++m.rpt[static_cast<std::size_t>(c[k]) + 1];
  }
  for (index_t i = 0; i < rows; ++i) m.rpt[i + 1] += m.rpt[i];
  m.col.resize(static_cast<std::size_t>(m.rpt.back()));
  {
    std::vector<offset_t> next(m.rpt.begin(), m.rpt.end() - 1);
    for (std::size_t k = 0; k < n; ++k) {
      if (r[k] < 0 || c[k] < 0) continue;
      m.col[next[r[k]]++] = c[k];
      if (mirror) m.col[next[c[k]]++] = r[k];
    }
  }
  // Sort and merge duplicates row by row (independent rows: the result does not depend on the
  // thread count), then compact.
  std::vector<offset_t> kept(static_cast<std::size_t>(rows), 0);
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t i = 0; i < rows; ++i) {
    auto first = m.col.begin() + m.rpt[i], last = m.col.begin() + m.rpt[i + 1];
    std::sort(first, last);
    kept[i] = std::unique(first, last) - first;
  }
  offset_t out = 0;
  for (index_t i = 0; i < rows; ++i) {
    const offset_t begin = m.rpt[i];
    if (out != begin)
      std::copy(m.col.begin() + begin, m.col.begin() + begin + kept[i], m.col.begin() + out);
    m.rpt[i] = out;
    out += kept[i];
  }
  m.rpt[rows] = out;
  m.col.resize(static_cast<std::size_t>(out));
  m.col.shrink_to_fit();
  fill_values(m, values, seed);
  return m;
}

std::vector<index_t> random_permutation(index_t n, std::uint64_t seed) {
  std::vector<index_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  rng g(seed);
  for (index_t i = n - 1; i > 0; --i)
    std::swap(p[i], p[g.below(static_cast<std::uint64_t>(i) + 1)]);
  return p;
}

}  // namespace opsparse::datasets::detail
