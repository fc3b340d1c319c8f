#pragma once
// Helpers shared by the triangle tests: small graphs, a brute-force reference, every method
// (those of every program are tests/apps/common/app_test_util.hpp's).
#include <cstdint>
#include <utility>
#include <vector>

#include "app_test_util.hpp"
#include "opsparse/csr.hpp"
#include "triangle/triangle.hpp"

namespace triangle_test {

using namespace app_test;  // host_csr, index_t, offset_t, pattern, adjacency, tsv_rows

constexpr opsparse::triangle::method all_methods[] = {
    opsparse::triangle::method::ul,         opsparse::triangle::method::sandia_ll,
    opsparse::triangle::method::sandia_uu,  opsparse::triangle::method::sandia_lut,
    opsparse::triangle::method::sandia_ult, opsparse::triangle::method::cohen,
    opsparse::triangle::method::burkhardt};

inline host_csr<double> complete_graph(index_t n) {
  std::vector<std::pair<index_t, index_t>> e;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = i + 1; j < n; ++j) e.emplace_back(i, j);
  return adjacency(n, e);
}

/// Triangles through each vertex of a simple undirected pattern, by intersecting the sorted
/// neighbour lists of every edge u < v and taking the common neighbours w > v.
inline std::vector<std::int64_t> brute_force_per_vertex(const host_csr<pattern>& a) {
  std::vector<std::int64_t> t(static_cast<std::size_t>(a.rows), 0);
  for (index_t u = 0; u < a.rows; ++u)
    for (offset_t p = a.rpt[u]; p < a.rpt[u + 1]; ++p) {
      const index_t v = a.col[p];
      if (v <= u) continue;
      offset_t x = a.rpt[u], y = a.rpt[v];
      while (x < a.rpt[u + 1] && y < a.rpt[v + 1]) {
        if (a.col[x] < a.col[y]) {
          ++x;
        } else if (a.col[y] < a.col[x]) {
          ++y;
        } else {
          const index_t w = a.col[x];
          if (w > v) {
            ++t[u];
            ++t[v];
            ++t[w];
          }
          ++x;
          ++y;
        }
      }
    }
  return t;
}

inline std::int64_t total_of(const std::vector<std::int64_t>& per_vertex) {
  std::int64_t s = 0;
  for (auto v : per_vertex) s += v;
  return s / 3;
}

}  // namespace triangle_test
