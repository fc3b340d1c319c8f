// The GPU graph algorithms (opsparse/graph_algorithms.cuh) against their CPU twins
// (opsparse/cpu/graph_algorithms.hpp, which tests/unit/cpu holds to set-based references): the
// same matrices, bit for bit, on empty graphs, graphs without edges, sparse and dense random
// graphs and one with a hub.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "opsparse/cpu/graph.hpp"
#include "opsparse/cpu/graph_algorithms.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/graph_algorithms.cuh"
#include "test_support.hpp"

namespace {

using namespace opsparse;

/// The undirected simple graph of a random matrix, vertex 0 joined to every `hub_every`-th
/// vertex (0: no hub).
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
  return {host_csr<pattern>(0, 0),    host_csr<pattern>(6, 6),      random_graph(50, 3, 0, 1),
          random_graph(40, 12, 0, 2), random_graph(3000, 8, 20, 3), random_graph(20000, 4, 2, 4)};
}

/// Random pairs, about `per_row` a vertex, each vertex with itself among them.
host_csr<pattern> random_pairs(index_t n, int per_row, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  host_csr<pattern> p(n, n);
  for (index_t u = 0; u < n; ++u) {
    std::set<index_t> row{u};
    for (int k = 0; k < per_row; ++k) row.insert(static_cast<index_t>(rng() % n));
    p.col.insert(p.col.end(), row.begin(), row.end());
    p.rpt[u + 1] = static_cast<offset_t>(p.col.size());
  }
  return p;
}

template <class V>
::testing::AssertionResult same(const host_csr<V>& gpu, const host_csr<V>& cpu) {
  if (gpu.rows != cpu.rows || gpu.cols != cpu.cols)
    return ::testing::AssertionFailure() << "shapes differ";
  if (gpu.rpt != cpu.rpt) return ::testing::AssertionFailure() << "row pointers differ";
  if (gpu.col != cpu.col) return ::testing::AssertionFailure() << "columns differ";
  if constexpr (has_values_v<V>)
    if (gpu.val != cpu.val) return ::testing::AssertionFailure() << "values differ";
  return ::testing::AssertionSuccess();
}

class GraphAlgorithms : public ::testing::Test {
 protected:
  void SetUp() override { OPSPARSE_SKIP_WITHOUT_GPU(); }
};

TEST_F(GraphAlgorithms, KTrussEqualsTheCpu) {
  context ctx;
  plan p;
  for (const auto& a : graphs()) {
    const auto da = device_csr<pattern>::upload(a, ctx.stream());
    for (long long k : {2LL, 3LL, 4LL, 6LL}) {
      device_csr<pattern> out;
      int cpu_products = 0;
      const int products = k_truss(ctx, p, da.view(), k, out);
      const host_csr<pattern> want = cpu::k_truss(a, k, {}, &cpu_products);
      EXPECT_TRUE(same(out.download(ctx.stream()), want)) << a.rows << " vertices, k = " << k;
      EXPECT_EQ(products, cpu_products) << a.rows << " vertices, k = " << k;
    }
  }
}

TEST_F(GraphAlgorithms, JaccardEqualsTheCpu) {
  context ctx;
  plan p;
  std::uint64_t seed = 10;
  for (const auto& a : graphs()) {
    const host_csr<pattern> pairs = random_pairs(a.rows, 5, seed++);
    const auto da = device_csr<pattern>::upload(a, ctx.stream());
    const auto dp = device_csr<pattern>::upload(pairs, ctx.stream());
    device_csr<double> out;
    jaccard(ctx, p, da.view(), dp.view(), out);
    EXPECT_TRUE(same(out.download(ctx.stream()), cpu::jaccard(a, pairs))) << a.rows << " vertices";
    // the edges themselves as the pairs
    jaccard(ctx, p, da.view(), da.view(), out);
    EXPECT_TRUE(same(out.download(ctx.stream()), cpu::jaccard(a, a)))
        << a.rows << " vertices, edges as pairs";
  }
}

}  // namespace
