// clm's measures as mcl -analyze y takes them (clm.hpp): over a matrix with its own loops, and of
// clusters that overlap. The expected values are mcl 22-282's.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "clm.hpp"
#include "mcl_test_util.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl;
using namespace opsparse::mcl::test;

/// A matrix from its rows (mcl's columns): (column, value) pairs, sorted.
host_csr<double> rows_of(const std::vector<std::vector<std::pair<index_t, double>>>& rows) {
  const index_t n = static_cast<index_t>(rows.size());
  host_csr<double> m(n, n);
  for (index_t i = 0; i < n; ++i) {
    for (const auto& [c, v] : rows[static_cast<std::size_t>(i)]) {
      m.col.push_back(c);
      m.val.push_back(v);
    }
    m.rpt[static_cast<std::size_t>(i) + 1] = static_cast<offset_t>(m.col.size());
  }
  return m;
}

/// The graph of the examples: two triangles and a pair on a path, weights 1, 0.5 and 0.2.
host_csr<double> example_graph() {
  const std::vector<std::tuple<index_t, index_t, double>> edges = {
      {0, 1, 1}, {1, 2, 1}, {0, 2, 1},   {2, 3, 0.5}, {3, 4, 1},
      {4, 5, 1}, {3, 5, 1}, {5, 6, 0.2}, {6, 7, 1}};
  std::vector<std::vector<std::pair<index_t, double>>> rows(8);
  for (const auto& [a, b, w] : edges) {
    rows[static_cast<std::size_t>(a)].emplace_back(b, w);
    rows[static_cast<std::size_t>(b)].emplace_back(a, w);
  }
  for (auto& r : rows) std::sort(r.begin(), r.end());
  return rows_of(rows);
}

TEST(ClmMeasure, CountsAMatrixsOwnLoopsAndEveryMembership) {
  // mcl -analyze y measures its start matrix with the loops it has: -c 3 makes them three times
  // the heaviest edge before the columns are normalised (mcl: eff=0.79389 mf=0.96651), where
  // clm info's loops, as heavy as the heaviest edge, give what mcl gives without -c (0.97667,
  // 0.94511: the fractions do not change when a column is scaled).
  params p;
  p.loop_scale = 3;
  clm::partition part;
  part.nodes = 8;
  part.clusters = {{0, 1, 2}, {3, 4, 5}, {6, 7}};
  const host_csr<double> start = start_matrix(example_graph(), p);
  const clm::info own = clm::measure(start, part, clm::loop_weights::as_given);
  EXPECT_NEAR(own.efficiency, 0.79389, 5e-6);
  EXPECT_NEAR(own.mass_fraction, 0.96651, 5e-6);
  const clm::info max = clm::measure(start, part, clm::loop_weights::heaviest_edge);
  EXPECT_NEAR(max.efficiency, 0.97667, 5e-6);
  EXPECT_NEAR(max.mass_fraction, 0.94511, 5e-6);
  EXPECT_EQ(own.modularity, max.modularity);  // loops take no part
  // Overlap (mcl -overlap keep on a path of five nodes): n2 in both clusters counts in each, and
  // eff, mf and ctr are averaged over the six memberships (mcl: eff=0.72222 mf=0.88889 ctr=3.0).
  const host_csr<double> path = rows_of({{{0, 0.5}, {1, 0.5}},
                                         {{0, 1 / 3.0}, {1, 1 / 3.0}, {2, 1 / 3.0}},
                                         {{1, 1 / 3.0}, {2, 1 / 3.0}, {3, 1 / 3.0}},
                                         {{2, 1 / 3.0}, {3, 1 / 3.0}, {4, 1 / 3.0}},
                                         {{3, 0.5}, {4, 0.5}}});
  part.nodes = 5;
  part.clusters = {{0, 1, 2}, {2, 3, 4}};
  const clm::info o = clm::measure(path, part, clm::loop_weights::as_given);
  EXPECT_NEAR(o.efficiency, 13.0 / 18, 1e-12);
  EXPECT_NEAR(o.mass_fraction, 8.0 / 9, 1e-12);
  EXPECT_EQ(o.center, 3.0);
  EXPECT_EQ(o.average, 2.5);  // nodes per cluster
}

}  // namespace
