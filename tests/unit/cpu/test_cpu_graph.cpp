// cpu::undirected_simple against a set-based construction: loops dropped, both directions of
// every edge, repeats merged, rows sorted, whatever the order and repeats of the input rows.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "opsparse/cpu/graph.hpp"
#include "opsparse/csr.hpp"

using namespace opsparse;

namespace {

host_csr<pattern> by_sets(const host_csr<double>& a) {
  std::vector<std::set<index_t>> rows(static_cast<std::size_t>(a.rows));
  for (index_t i = 0; i < a.rows; ++i)
    for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p)
      if (a.col[p] != i) {
        rows[i].insert(a.col[p]);
        rows[a.col[p]].insert(i);
      }
  host_csr<pattern> s(a.rows, a.cols);
  for (index_t i = 0; i < a.rows; ++i) {
    s.col.insert(s.col.end(), rows[i].begin(), rows[i].end());
    s.rpt[i + 1] = static_cast<offset_t>(s.col.size());
  }
  return s;
}

/// Rows in random order with repeats and loops, and a hub that every vertex points to.
host_csr<double> messy(index_t n, int per_row, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  host_csr<double> a(n, n);
  for (index_t i = 0; i < n; ++i) {
    for (int k = 0; k < per_row; ++k) {
      const index_t j = static_cast<index_t>(rng() % n);
      a.col.push_back(j);
      a.val.push_back(1.0);
      if (k % 3 == 0) {  // a repeat
        a.col.push_back(j);
        a.val.push_back(2.0);
      }
    }
    if (i % 5 == 0) {
      a.col.push_back(i);
      a.val.push_back(1.0);
    }  // a loop
    a.col.push_back(0);
    a.val.push_back(1.0);
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

}  // namespace

TEST(CpuGraph, UndirectedSimpleEqualsTheSetConstruction) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto a = messy(static_cast<index_t>(200 * seed), static_cast<int>(seed * 3), seed);
    const auto s = cpu::undirected_simple(a);
    const auto want = by_sets(a);
    EXPECT_EQ(s.rpt, want.rpt) << "seed " << seed;
    EXPECT_EQ(s.col, want.col) << "seed " << seed;
  }
  const auto empty = cpu::undirected_simple(host_csr<double>(0, 0));
  EXPECT_EQ(empty.rows, 0);
  EXPECT_EQ(empty.nnz(), 0);
  EXPECT_THROW(cpu::undirected_simple(host_csr<double>(2, 3)), std::invalid_argument);
}
