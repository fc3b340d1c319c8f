#pragma once
// Helpers shared by the triangle tests: small graphs, a brute-force reference, reference tables.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/csr.hpp"

namespace triangle_test {

using opsparse::host_csr;
using opsparse::index_t;
using opsparse::offset_t;
using opsparse::pattern;

/// An n-vertex adjacency matrix with the listed (directed) entries; repeats collapse, as in CSR.
inline host_csr<double> adjacency(index_t n, std::vector<std::pair<index_t, index_t>> edges) {
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  host_csr<double> a(n, n);
  for (const auto& [u, v] : edges) {
    a.col.push_back(v);
    a.val.push_back(1.0);
    ++a.rpt[u + 1];
  }
  for (index_t i = 0; i < n; ++i) a.rpt[i + 1] += a.rpt[i];
  return a;
}

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

/// Tab-separated rows of a reference table, '#' lines skipped.
inline std::vector<std::vector<std::string>> tsv_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, '\t')) fields.push_back(f);
    rows.push_back(std::move(fields));
  }
  return rows;
}

}  // namespace triangle_test
