// mcl's diagnostics of its own run, as this program computes them: clm's measures as mcl
// -analyze y takes them (clm.hpp), mcl's interpretation of an iterand (its -dump cls and dag), the
// column sums of its start matrix (-dump ite) and a run's hooks (run_options::on_iterand,
// on_limit). Hand-made matrices with known answers; the expected values are mcl 22-282's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <utility>
#include <vector>

#include "clm.hpp"
#include "mcl_test_util.hpp"
#include "test_support.hpp"

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

using clusters = std::vector<std::vector<index_t>>;

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

/// Whether `got` holds `want`'s values, to float's precision (sums of float cells).
::testing::AssertionResult near(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " values";
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-6 * want[i]))
      return ::testing::AssertionFailure()
             << "value " << i << ": " << got[i] << ", not " << want[i];
  return ::testing::AssertionSuccess();
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

// Node 0 is an attractor alone, 1 and 2 one system of two; 3 reaches both (0.9 to 0, 0.1 to 1),
// 6 reaches 0 only, 4 and 5 reach each other and no attractor. 3's loop (0.0005) is below the
// DAG's bar. mcl interprets an iterand without the limit's thinning (which drops 3's 0.1) and
// keeps its clusters in the order of their attractor systems, the larger system first.
const host_csr<double> iterand = rows_of({{{0, 1.0}},
                                          {{1, 0.5}, {2, 0.5}},
                                          {{1, 0.5}, {2, 0.5}},
                                          {{0, 0.9}, {1, 0.1}, {3, 0.0005}},
                                          {{5, 1.0}},
                                          {{4, 1.0}},
                                          {{0, 1.0}}});

TEST(MclIterandInterpretation, KeepsOverlapUnthinnedInMclsOrder) {
  const clustering c = interpret_iterand(iterand);
  EXPECT_EQ(c.clusters, (clusters{{1, 2, 3}, {0, 3, 6}, {4, 5}}));
  EXPECT_EQ(c.overlap, 1u);
  EXPECT_EQ(c.missing, 2u);
  // The limit's rules: 3's 0.1 thinned away, clusters in revsize order.
  EXPECT_EQ(interpret(iterand, overlap_mode::keep).clusters, (clusters{{0, 3, 6}, {1, 2}, {4, 5}}));
}

TEST(MclIterandInterpretation, DagKeepsTheIterandsValuesAboveTheBar) {
  const host_csr<double> dag = iterand_dag(iterand);
  const host_csr<double> want =
      rows_of({{{0, 1.0}},
               {{1, 0.5}, {2, 0.5}},
               {{1, 0.5}, {2, 0.5}},
               {{0, 0.9}, {1, 0.1}},  // the loop is below 0.999 * 0.0005 + 0.001 * 0.9
               {{5, 1.0}},
               {{4, 1.0}},
               {{0, 1.0}}});
  EXPECT_EQ(dag.rpt, want.rpt);
  EXPECT_EQ(dag.col, want.col);
  EXPECT_EQ(dag.val, want.val);
}

TEST(MclStartColumnSums, AreTheSumsEachColumnIsDividedBy) {
  params p;
  // Loops as heavy as the heaviest edge (mcl -dump ite's ite-0: 0:3 1:3 2:3.5 ...).
  EXPECT_TRUE(near(start_column_sums(example_graph(), p), {3, 3, 3.5, 3.5, 3, 3.2, 2.2, 2}));
  p.discard_loops = false;  // no loops added
  EXPECT_TRUE(near(start_column_sums(example_graph(), p), {2, 2, 2.5, 2.5, 2, 2.2, 1.2, 1}));
  // -c 3 triples the loops; the start matrix is the graph divided by them.
  p = params{};
  p.loop_scale = 3;
  const std::vector<double> sums = start_column_sums(example_graph(), p);
  EXPECT_TRUE(near(sums, {5, 5, 5.5, 5.5, 5, 5.2, 4.2, 4}));
  const host_csr<double> g = example_graph(), start = start_matrix(g, p);
  auto weight = [&](index_t i, index_t j) {
    for (offset_t k = g.rpt[i]; k < g.rpt[i + 1]; ++k)
      if (g.col[k] == j) return g.val[k];
    return 3.0;  // the loop: -c 3 times the heaviest edge, 1 for every node here
  };
  for (index_t i = 0; i < start.rows; ++i)
    for (offset_t k = start.rpt[i]; k < start.rpt[i + 1]; ++k)
      EXPECT_NEAR(start.val[k], weight(i, start.col[k]) / sums[static_cast<std::size_t>(i)], 1e-7)
          << i;
}

TEST(MclIterandHooks, SeeEveryIterandAndTheLimitAndChangeNothing) {
  const fs::path dir = scratch_dir("hooks");
  write_text(dir / "g.abc", planted_abc(4, 15, 0.4, 0.05, true, 16));
  const host_csr<double> start = start_matrix(io::read_abc((dir / "g.abc").string()).adj, params{});
  fs::remove_all(dir);
  std::vector<std::pair<int, bool>> calls;
  host_csr<double> last, limit;
  run_options o;
  o.wants_iterand = [](int it, bool inflated) { return inflated || it % 2 == 1; };
  o.on_iterand = [&](int it, bool inflated, const host_csr<double>& x) {
    calls.emplace_back(it, inflated);
    if (inflated) last = x;
  };
  o.on_limit = [&limit](const host_csr<double>& l) { limit = l; };
  const cluster_result r = cluster(start, params{}, false, precision::float32, {}, o);
  const cluster_result plain = cluster(start, params{}, false, precision::float32);
  EXPECT_EQ(r.result.clusters, plain.result.clusters);
  ASSERT_GT(r.iterations, 3);
  std::vector<std::pair<int, bool>> want;
  for (int it = 1; it <= r.iterations; ++it) {
    if (it % 2 == 1) want.emplace_back(it, false);
    want.emplace_back(it, true);
  }
  EXPECT_EQ(calls, want);
  EXPECT_TRUE(opsparse::test::csr_near(limit, last, 0.0));
}

}  // namespace
