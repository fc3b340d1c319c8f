// cpu::k_truss and cpu::jaccard (cpu/graph_algorithms.hpp) against set-based references that
// follow the definitions: the k-truss by NetworkX's loop (drop every edge on fewer than k - 2
// triangles of what is left, until none goes), Jaccard by std::set intersections and unions.
// Graphs: empty, without edges, a clique, a path, sparse and dense random graphs, one with a hub.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <set>
#include <vector>

#include "opsparse/cpu/graph.hpp"
#include "opsparse/cpu/graph_algorithms.hpp"
#include "opsparse/csr.hpp"

using namespace opsparse;

namespace {

using adjacency = std::vector<std::set<index_t>>;

adjacency sets_of(const host_csr<pattern>& a) {
  adjacency s(static_cast<std::size_t>(a.rows));
  for (index_t i = 0; i < a.rows; ++i)
    s[i].insert(a.col.begin() + a.rpt[i], a.col.begin() + a.rpt[i + 1]);
  return s;
}

host_csr<pattern> matrix_of(const adjacency& s) {
  const auto n = static_cast<index_t>(s.size());
  host_csr<pattern> a(n, n);
  for (index_t i = 0; i < n; ++i) {
    a.col.insert(a.col.end(), s[i].begin(), s[i].end());
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

std::size_t common(const std::set<index_t>& x, const std::set<index_t>& y) {
  std::vector<index_t> both;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
  return both.size();
}

/// NetworkX's k_truss loop on sets.
adjacency truss_by_sets(adjacency s, long long k) {
  for (bool dropped = true; dropped;) {
    dropped = false;
    std::vector<std::pair<index_t, index_t>> drop;
    for (index_t u = 0; u < static_cast<index_t>(s.size()); ++u)
      for (index_t v : s[u])
        if (u < v && static_cast<long long>(common(s[u], s[v])) < k - 2) drop.emplace_back(u, v);
    for (auto [u, v] : drop) {
      s[u].erase(v);
      s[v].erase(u);
      dropped = true;
    }
  }
  return s;
}

/// The undirected simple graph of a random matrix: n vertices, about `per_row` edges each,
/// vertex 0 joined to every `hub_every`-th vertex (0: no hub).
host_csr<pattern> random_graph(index_t n, int per_row, int hub_every, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  host_csr<double> a(n, n);
  for (index_t i = 0; i < n; ++i) {
    std::set<index_t> row;
    for (int k = 0; k < per_row && n > 0; ++k) row.insert(static_cast<index_t>(rng() % n));
    if (hub_every > 0 && i % hub_every == 0) row.insert(0);
    for (index_t j : row) {
      a.col.push_back(j);
      a.val.push_back(1.0);
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return cpu::undirected_simple(a);
}

std::vector<host_csr<pattern>> graphs() {
  std::vector<host_csr<pattern>> g;
  g.push_back(host_csr<pattern>(0, 0));
  g.push_back(host_csr<pattern>(5, 5));  // no edges
  adjacency clique(7), path(9);
  for (index_t i = 0; i < 7; ++i)
    for (index_t j = 0; j < 7; ++j)
      if (i != j) clique[i].insert(j);
  for (index_t i = 0; i + 1 < 9; ++i) {
    path[i].insert(i + 1);
    path[i + 1].insert(i);
  }
  g.push_back(matrix_of(clique));
  g.push_back(matrix_of(path));
  g.push_back(random_graph(60, 3, 0, 1));
  g.push_back(random_graph(40, 12, 0, 2));
  g.push_back(random_graph(300, 6, 4, 3));
  g.push_back(random_graph(2000, 8, 50, 4));  // past the parallel threshold of the merges
  return g;
}

TEST(CpuGraphAlgorithms, KTrussMatchesNetworkXsLoop) {
  for (const auto& a : graphs()) {
    const adjacency s = sets_of(a);
    for (long long k : {-1LL, 2LL, 3LL, 4LL, 5LL, 8LL}) {
      int iterations = -1;
      const host_csr<pattern> t = cpu::k_truss(a, k, {}, &iterations);
      EXPECT_EQ(check(t), "");
      EXPECT_EQ(sets_of(t), truss_by_sets(s, k)) << a.rows << " vertices, k = " << k;
      if (k <= 2)
        EXPECT_EQ(iterations, 0);
      else
        EXPECT_GE(iterations, 1);
    }
  }
}

TEST(CpuGraphAlgorithms, KTrussOfACliqueWithATail) {
  // K5 (every edge on 3 triangles) with a path 4-5-6 hanging off it: the 5-truss is K5 alone
  // (a vertex left without edges keeps its empty row), the 6-truss is empty.
  adjacency s(7);
  auto join = [&](index_t u, index_t v) {
    s[u].insert(v);
    s[v].insert(u);
  };
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = i + 1; j < 5; ++j) join(i, j);
  join(4, 5);
  join(5, 6);
  const host_csr<pattern> a = matrix_of(s);
  const host_csr<pattern> t5 = cpu::k_truss(a, 5);
  EXPECT_EQ(t5.nnz(), 20);
  EXPECT_EQ(t5.rpt[6] - t5.rpt[5], 0);
  EXPECT_EQ(cpu::k_truss(a, 6).nnz(), 0);
  EXPECT_EQ(cpu::k_truss(a, 3).nnz(), 20);
  EXPECT_EQ(cpu::k_truss(a, 2).nnz(), a.nnz());
}

TEST(CpuGraphAlgorithms, JaccardMatchesSets) {
  std::mt19937_64 rng(7);
  for (const auto& a : graphs()) {
    const adjacency s = sets_of(a);
    const index_t n = a.rows;
    // pairs: random ones, each vertex with itself, and the edges of a few rows
    adjacency want(static_cast<std::size_t>(n));
    for (index_t u = 0; u < n; ++u) {
      for (int k = 0; k < 4; ++k) want[u].insert(static_cast<index_t>(rng() % n));
      want[u].insert(u);
      if (u % 5 == 0) want[u].insert(s[u].begin(), s[u].end());
    }
    const host_csr<pattern> pairs = matrix_of(want);
    for (int threads : {1, 2}) {
      cpu::options opt;
      opt.threads = threads;
      const host_csr<double> j = cpu::jaccard(a, pairs, opt);
      ASSERT_EQ(j.rpt, pairs.rpt);
      ASSERT_EQ(j.col, pairs.col);
      for (index_t u = 0; u < n; ++u)
        for (offset_t p = j.rpt[u]; p < j.rpt[u + 1]; ++p) {
          const index_t v = j.col[p];
          std::set<index_t> either = s[u];
          either.insert(s[v].begin(), s[v].end());
          const double expected = either.empty() ? 0.0
                                                 : static_cast<double>(common(s[u], s[v])) /
                                                       static_cast<double>(either.size());
          EXPECT_EQ(j.val[p], expected) << "(" << u << ", " << v << ") of " << n;
        }
    }
  }
}

TEST(CpuGraphAlgorithms, JaccardOfKnownPairs) {
  // path 0-1-2-3: N(0) = {1} and N(2) = {1, 3} give 1/2; N(0) and N(3) = {2} give 0
  adjacency s(4);
  for (index_t i = 0; i + 1 < 4; ++i) {
    s[i].insert(i + 1);
    s[i + 1].insert(i);
  }
  adjacency want(4);
  want[0] = {2, 3};
  const host_csr<double> j = cpu::jaccard(matrix_of(s), matrix_of(want));
  ASSERT_EQ(j.val.size(), 2u);
  EXPECT_EQ(j.val[0], 0.5);
  EXPECT_EQ(j.val[1], 0.0);
  // two isolated vertices: no neighbours at all, coefficient 0
  adjacency one_pair(2);
  one_pair[0] = {1};
  const host_csr<double> none = cpu::jaccard(host_csr<pattern>(2, 2), matrix_of(one_pair));
  ASSERT_EQ(none.val.size(), 1u);
  EXPECT_EQ(none.val[0], 0.0);
}

TEST(CpuGraphAlgorithms, RefusesMismatchedShapes) {
  EXPECT_THROW(cpu::k_truss(host_csr<pattern>(3, 4), 3), std::invalid_argument);
  EXPECT_THROW(cpu::jaccard(host_csr<pattern>(3, 3), host_csr<pattern>(3, 4)),
               std::invalid_argument);
}

}  // namespace
