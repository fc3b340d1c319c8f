#pragma once
// Host blocks of the distributed layer: merging the partial products of SUMMA's stages and
// laying the column phases of a product side by side (blocks are cut by cpu::submatrix).
// Every input has sorted rows, and so has every output.
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "opsparse/cpu/graph_ops.hpp"
#include "opsparse/csr.hpp"

namespace opsparse::dist::detail {

/// Entries per column of m.
template <class V>
std::vector<offset_t> column_counts(const host_csr<V>& m) {
  std::vector<offset_t> counts(static_cast<std::size_t>(m.cols), 0);
  for (const index_t j : m.col) ++counts[static_cast<std::size_t>(j)];
  return counts;
}

/// Walks the union of row i over `parts` (all of one shape) in column order, calling
/// emit(column, part, position) for the first entry of each column and add(part, position) for
/// every later entry of the same column, in the order of the parts. Picks the next column by a
/// scan over the parts: SUMMA has few of them (pr + pc - 1 at most).
template <class V, class Emit, class Add>
void merge_row(const std::vector<host_csr<V>>& parts, index_t i, std::vector<offset_t>& cursor,
               Emit&& emit, Add&& add) {
  const std::size_t n = parts.size();
  for (std::size_t p = 0; p < n; ++p) cursor[p] = parts[p].rpt[i];
  for (;;) {
    std::size_t first = n;
    index_t column = 0;
    for (std::size_t p = 0; p < n; ++p) {
      if (cursor[p] == parts[p].rpt[i + 1]) continue;
      const index_t j = parts[p].col[cursor[p]];
      if (first == n || j < column) first = p, column = j;
    }
    if (first == n) return;
    emit(column, first, cursor[first]++);
    for (std::size_t p = first + 1; p < n; ++p)
      if (cursor[p] < parts[p].rpt[i + 1] && parts[p].col[cursor[p]] == column) add(p, cursor[p]++);
  }
}

/// The ⊕ of the partial products (Semiring::add, in the order of `parts`: the order of the
/// stages), each rows × cols with sorted rows; a position is an entry when any part has it.
template <class Semiring, class V>
host_csr<V> merge_partials(std::vector<host_csr<V>>&& parts, index_t rows, index_t cols) {
  if (parts.empty()) return host_csr<V>(rows, cols);
  if (parts.size() == 1) return std::move(parts.front());
  host_csr<V> c(rows, cols);
  const bool parallel = rows > 4096;  // as cpu::row_products: below that, threads cost more
  // Lengths first (into rpt[i + 1]), then a scan and the allocation (outside the parallel
  // regions, where an exception could not leave them), then the entries; OpenMP over rows.
#pragma omp parallel if (parallel)
  {
    std::vector<offset_t> cursor(parts.size());
    auto nothing = [](std::size_t, offset_t) {};
#pragma omp for schedule(dynamic, 256)
    for (index_t i = 0; i < rows; ++i) {
      offset_t length = 0;
      merge_row(
          parts, i, cursor, [&](index_t, std::size_t, offset_t) { ++length; }, nothing);
      c.rpt[static_cast<std::size_t>(i) + 1] = length;
    }
  }
  for (index_t i = 0; i < rows; ++i) c.rpt[i + 1] += c.rpt[i];
  c.col.resize(static_cast<std::size_t>(c.nnz()));
  if constexpr (has_values_v<V>) c.val.resize(c.col.size());
#pragma omp parallel if (parallel)
  {
    std::vector<offset_t> cursor(parts.size());
#pragma omp for schedule(dynamic, 256)
    for (index_t i = 0; i < rows; ++i) {
      offset_t out = c.rpt[i] - 1;
      merge_row(
          parts, i, cursor,
          [&](index_t j, std::size_t p, offset_t k) {
            c.col[++out] = j;
            if constexpr (has_values_v<V>) c.val[out] = parts[p].val[k];
          },
          [&](std::size_t p, offset_t k) {
            if constexpr (has_values_v<V>) c.val[out] = Semiring::add(c.val[out], parts[p].val[k]);
          });
    }
  }
  return c;
}

/// Rows [begin[d], end[d]) of m for every d, one range after the other (row phases).
template <class V>
host_csr<V> take_rows(const host_csr<V>& m, const std::vector<index_t>& begin,
                      const std::vector<index_t>& end) {
  index_t rows = 0;
  offset_t nnz = 0;
  for (std::size_t d = 0; d < begin.size(); ++d) {
    rows += end[d] - begin[d];
    nnz += m.rpt[end[d]] - m.rpt[begin[d]];
  }
  host_csr<V> s(rows, m.cols);
  s.col.resize(static_cast<std::size_t>(nnz));
  if constexpr (has_values_v<V>) s.val.resize(s.col.size());
  index_t at = 0;
  for (std::size_t d = 0; d < begin.size(); ++d) {
    const offset_t first = m.rpt[begin[d]], last = m.rpt[end[d]], shift = s.rpt[at] - first;
    for (index_t i = begin[d]; i < end[d]; ++i) s.rpt[++at] = m.rpt[i + 1] + shift;
    std::copy(m.col.begin() + first, m.col.begin() + last, s.col.begin() + (first + shift));
    if constexpr (has_values_v<V>)
      std::copy(m.val.begin() + first, m.val.begin() + last, s.val.begin() + (first + shift));
  }
  return s;
}

/// The phases of one block side by side: phase p holds columns [starts[p], starts[p + 1]).
template <class V>
host_csr<V> concat_columns(std::vector<host_csr<V>>&& phases, const std::vector<index_t>& starts,
                           index_t rows) {
  if (phases.size() == 1) return std::move(phases.front());
  host_csr<V> c(rows, starts.back());
  offset_t nnz = 0;
  for (const auto& p : phases) nnz += p.nnz();
  c.col.reserve(static_cast<std::size_t>(nnz));
  if constexpr (has_values_v<V>) c.val.reserve(static_cast<std::size_t>(nnz));
  for (index_t i = 0; i < rows; ++i) {
    for (std::size_t p = 0; p < phases.size(); ++p) {
      const host_csr<V>& m = phases[p];
      for (offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k) c.col.push_back(m.col[k] + starts[p]);
      if constexpr (has_values_v<V>)
        c.val.insert(c.val.end(), m.val.begin() + m.rpt[i], m.val.begin() + m.rpt[i + 1]);
    }
    c.rpt[static_cast<std::size_t>(i) + 1] = static_cast<offset_t>(c.col.size());
  }
  return c;
}

}  // namespace opsparse::dist::detail
