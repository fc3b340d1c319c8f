// The execution spaces (opsparse/space.hpp, opsparse/gpu_space.cuh): one function written once
// over a space, run on cpu_space and on gpu_space, gives the same matrices, vectors and scalars
// (a relabelling by degree twice, triangular selections, masked products with and without the
// fused reduction, row and column sums, gathers), on empty, small and skewed graphs.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "opsparse/cpu/graph.hpp"
#include "opsparse/gpu_space.cuh"
#include "opsparse/space.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;
using count_t = long long;

struct outcome {
  host_csr<pattern> relabelled, lower;
  host_csr<count_t> c;
  std::vector<index_t> order, composed;
  std::vector<count_t> rows_and_cols, gathered;
  count_t sum = 0, fused = 0;
  offset_t products = 0;
};

/// The same steps on any space: what a graph algorithm written over the spaces does.
template <class Space>
outcome steps(Space& sp, const host_csr<pattern>& g) {
  using mat = typename Space::template matrix<pattern>;
  using idx = typename Space::template vector<index_t>;
  using cnt = typename Space::template vector<count_t>;
  const index_t n = g.rows;
  outcome o;
  mat a, b, l;
  typename Space::template matrix<count_t> c;
  idx order, step, order2, step2, composed;
  cnt sums;
  upload(sp, g, a);
  degree_order(sp, a, false, order);
  invert_permutation(sp, order, n, step);
  permute(sp, a, order, step, b);
  degree_order(sp, b, true, order2);  // a second relabelling, composed with the first
  invert_permutation(sp, order2, n, step2);
  gather(sp, step2, step, n, composed);
  select(sp, b, lower_triangle{-1}, l);
  spgemm<plus_pair<count_t>>(sp, l, l, l, c);
  o.products = products(sp);
  o.sum = reduce<plus_monoid<count_t>>(sp, c, value_as<count_t>{});
  o.fused = spgemm_reduce<plus_pair<count_t>>(sp, l, l, l);
  zero(sp, sums, n);
  reduce_rows<plus_monoid<count_t>>(sp, c, value_as<count_t>{}, sums, true);
  reduce_cols<plus_monoid<count_t>>(sp, c, value_as<count_t>{}, sums, true);
  cnt gathered;
  gather(sp, sums, composed, n, gathered);
  synchronize(sp);
  o.relabelled = to_host(sp, b);
  o.lower = to_host(sp, l);
  o.c = to_host(sp, c);
  o.order = to_host(sp, order, n);
  o.composed = to_host(sp, composed, n);
  o.rows_and_cols = to_host(sp, sums, n);
  o.gathered = to_host(sp, gathered, n);
  return o;
}

template <class V>
void expect_same(const host_csr<V>& x, const host_csr<V>& y, const std::string& what) {
  EXPECT_EQ(x.rows, y.rows) << what;
  EXPECT_EQ(x.rpt, y.rpt) << what;
  EXPECT_EQ(x.col, y.col) << what;
  if constexpr (has_values_v<V>) EXPECT_EQ(x.val, y.val) << what;
}

TEST(Spaces, OneFunctionOverBothSpacesGivesTheSameResults) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  struct graph {
    index_t n;
    double per_row;
  };
  for (const graph gr : {graph{0, 0}, graph{1, 0}, graph{7, 2}, graph{300, 8}, graph{2000, 40}}) {
    const host_csr<double> r = test::random_csr<double>(gr.n, gr.n, gr.per_row, 17 + gr.n);
    const host_csr<pattern> g = cpu::undirected_simple(r);
    cpu_space cpu(2);
    gpu_space gpu;
    const outcome want = steps(cpu, g), got = steps(gpu, g);
    const std::string what = std::to_string(gr.n) + " vertices";
    expect_same(got.relabelled, want.relabelled, what + ": P·A·Pᵀ");
    expect_same(got.lower, want.lower, what + ": tril");
    expect_same(got.c, want.c, what + ": C<L> = L·L");
    EXPECT_EQ(got.order, want.order) << what;
    EXPECT_EQ(got.composed, want.composed) << what;
    EXPECT_EQ(got.rows_and_cols, want.rows_and_cols) << what;
    EXPECT_EQ(got.gathered, want.gathered) << what;
    EXPECT_EQ(got.sum, want.sum) << what;
    EXPECT_EQ(got.fused, want.sum) << what << ": the fused reduction";
    EXPECT_EQ(want.fused, want.sum) << what;
    if (gr.n >= 300) EXPECT_GT(want.sum, 0) << what << ": a graph with triangles";
  }
}

}  // namespace
