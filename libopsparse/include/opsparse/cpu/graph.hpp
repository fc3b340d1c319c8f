#pragma once
// Host graph preparation shared by the apps (OpenMP, header-only like the CPU engine):
// the undirected simple graph on a matrix's structure, S = pattern(A + Aᵀ) without the diagonal,
// rows sorted and free of repeats. Triangle counting and undirected BFS start from it.
//
// In parallel: in-degrees counted with atomics, each row's own entries copied and its transposed
// entries placed through atomic cursors, then every row sorted and deduplicated on its own, and
// the rows packed. A's rows need not be sorted nor free of repeats.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "opsparse/csr.hpp"

namespace opsparse::cpu {

template <class V>
host_csr<pattern> undirected_simple(const host_csr<V>& a) {
  if (a.rows != a.cols)
    throw std::invalid_argument("a graph needs a square adjacency matrix, not " +
                                std::to_string(a.rows) + " x " + std::to_string(a.cols));
  const index_t n = a.rows;
  const long long nn = n;
  // A team woken for a small graph costs more than the work (and spins on a busy machine).
  const bool par = a.col.size() + static_cast<std::size_t>(n) >= (std::size_t(1) << 16);
  // Room per row: its own off-diagonal entries plus those of its column.
  std::vector<offset_t> own(static_cast<std::size_t>(n), 0),
      room(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(dynamic, 4096) if (par)
  for (long long i = 0; i < nn; ++i) {
    offset_t k = 0;
    for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p) {
      const index_t j = a.col[p];
      if (j == i) continue;
      ++k;
#pragma omp atomic
      ++room[static_cast<std::size_t>(j) + 1];
    }
    own[i] = k;
  }
  for (index_t i = 0; i < n; ++i) room[i + 1] += room[i] + own[i];
  std::vector<index_t> buf(static_cast<std::size_t>(room[n]));
  std::vector<offset_t> cursor(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (par)
  for (long long i = 0; i < nn; ++i) cursor[i] = room[i] + own[i];
#pragma omp parallel for schedule(dynamic, 4096) if (par)
  for (long long i = 0; i < nn; ++i) {
    offset_t at = room[i];
    for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p) {
      const index_t j = a.col[p];
      if (j == i) continue;
      buf[at++] = j;
      offset_t slot;
#pragma omp atomic capture
      slot = cursor[j]++;
      buf[slot] = static_cast<index_t>(i);
    }
  }
  // Sort and deduplicate every row in place; its length goes into `own`.
#pragma omp parallel for schedule(dynamic, 1024) if (par)
  for (long long i = 0; i < nn; ++i) {
    const auto b = buf.begin() + room[i], e = buf.begin() + room[i + 1];
    std::sort(b, e);
    own[i] = static_cast<offset_t>(std::unique(b, e) - b);
  }
  host_csr<pattern> s(n, n);
  for (index_t i = 0; i < n; ++i) s.rpt[i + 1] = s.rpt[i] + own[i];
  s.col.resize(static_cast<std::size_t>(s.rpt[n]));
#pragma omp parallel for schedule(dynamic, 4096) if (par)
  for (long long i = 0; i < nn; ++i)
    std::copy(buf.begin() + room[i], buf.begin() + room[i] + own[i], s.col.begin() + s.rpt[i]);
  return s;
}

}  // namespace opsparse::cpu
