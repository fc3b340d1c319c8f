// The CPU engine on the shared real data sets, against figures computed outside the project
// (scipy, SNAP): A·A products and structure, and triangle counts through C<L> = L·L.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

using opsparse::host_csr;
using opsparse::index_t;
using opsparse::offset_t;
using opsparse::pattern;
namespace cpu = opsparse::cpu;
namespace io = opsparse::io;

using opsparse::test::tsv_rows;

/// Strict lower triangle of the undirected simple graph on `adj`'s structure: edges in either
/// direction become one pair (max, min); loops and repeats are dropped.
host_csr<pattern> strict_lower(const host_csr<double>& adj) {
  std::vector<std::pair<index_t, index_t>> e;
  for (index_t i = 0; i < adj.rows; ++i)
    for (offset_t p = adj.rpt[i]; p < adj.rpt[i + 1]; ++p) {
      const index_t j = adj.col[p];
      if (i != j) e.emplace_back(std::max(i, j), std::min(i, j));
    }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  host_csr<pattern> l(adj.rows, adj.cols);
  for (const auto& [r, c] : e) {
    l.col.push_back(c);
    ++l.rpt[r + 1];
  }
  for (index_t i = 0; i < l.rows; ++i) l.rpt[i + 1] += l.rpt[i];
  return l;
}

TEST(CpuSpgemmDatasets, SquareProductsMatchReference) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string root = opsparse::test::datasets_dir();
  const auto rows = tsv_rows(root + "/reference/spgemm-A2.tsv");
  ASSERT_FALSE(rows.empty());
  int matched = 0;
  for (const auto& r : rows) {
    ASSERT_GE(r.size(), 5u);
    SCOPED_TRACE(r[0]);
    const auto a = io::read_matrix_market<pattern>(root + "/" + r[0]);
    EXPECT_EQ(a.rows, std::stoll(r[1]));
    EXPECT_EQ(a.nnz(), std::stoll(r[2]));
    const offset_t mults = std::stoll(r[3]);
    const offset_t structural_nnz = std::stoll(r[4]);
    const offset_t products = cpu::count_products(a, a);
    EXPECT_EQ(products, mults);

    const auto c = cpu::spgemm<opsparse::any_pair>(a, a);
    EXPECT_EQ(c.nnz(), structural_nnz);
    EXPECT_TRUE(c.val.empty());

    // (+, pair) counts every product once: same structure, values summing to the products.
    const auto counted = cpu::spgemm<opsparse::plus_pair<std::int64_t>>(a, a);
    EXPECT_EQ(counted.col, c.col);
    std::int64_t sum = 0;
    for (auto v : counted.val) sum += v;
    EXPECT_EQ(sum, mults);
    matched += a.rows == std::stoll(r[1]) && a.nnz() == std::stoll(r[2]) && products == mults &&
               c.nnz() == structural_nnz && sum == mults;
  }
  std::cout << "[ matched  ] " << matched << " of " << rows.size()
            << " rows of reference/spgemm-A2.tsv\n";
}

TEST(CpuSpgemmDatasets, MaskedTriangleCountsMatchReference) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string root = opsparse::test::datasets_dir();
  const auto rows = tsv_rows(root + "/reference/graph-facts.tsv");
  ASSERT_FALSE(rows.empty());
  // Two rows per file (two BFS sources): compute each file once, check every row against it.
  struct facts {
    offset_t vertices, edges;
    std::int64_t triangles;
  };
  std::map<std::string, facts> computed;
  int matched = 0;
  for (const auto& r : rows) {
    ASSERT_GE(r.size(), 4u);
    SCOPED_TRACE(r[0]);
    auto it = computed.find(r[0]);
    if (it == computed.end()) {
      const auto g = io::read_graph(root + "/" + r[0]);
      const auto l = strict_lower(g.adj);
      // C<L> = L·L over (+, pair): C(i,j) counts the k < j < i closing triangle (i, j, k).
      const auto c = cpu::spgemm<opsparse::plus_pair<std::int64_t>>(
          l, l, cpu::host_mask<opsparse::structural_mask>(l));
      std::int64_t triangles = 0;
      for (auto v : c.val) triangles += v;
      it = computed.emplace(r[0], facts{l.rows, l.nnz(), triangles}).first;
    }
    const facts& f = it->second;
    const bool ok = f.vertices == std::stoll(r[1]) && f.edges == std::stoll(r[2]) &&
                    f.triangles == std::stoll(r[3]);
    EXPECT_EQ(f.vertices, std::stoll(r[1])) << "vertices";
    EXPECT_EQ(f.edges, std::stoll(r[2])) << "undirected edges";
    EXPECT_EQ(f.triangles, std::stoll(r[3])) << "triangles";
    matched += ok;
  }
  std::cout << "[ matched  ] " << matched << " of " << rows.size() << " rows (" << computed.size()
            << " files) of reference/graph-facts.tsv\n";
}

}  // namespace
