// cpu/graph_ops.hpp: each operation on tiny hand-written matrices with known answers, on empty
// and rectangular shapes, with pattern and double values, its misuse, and on random matrices
// large enough for the parallel paths against a naive serial construction written here.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

#include "opsparse/cpu/graph_ops.hpp"
#include "opsparse/csr.hpp"
#include "opsparse/mask.hpp"

using namespace opsparse;

namespace {

/// A matrix from its rows, each a list of (column, value) in the order given.
host_csr<double> mat(index_t rows, index_t cols,
                     const std::vector<std::vector<std::pair<index_t, double>>>& r) {
  host_csr<double> a(rows, cols);
  for (index_t i = 0; i < rows; ++i) {
    if (static_cast<std::size_t>(i) < r.size())
      for (auto [j, v] : r[i]) {
        a.col.push_back(j);
        a.val.push_back(v);
      }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

host_csr<pattern> pat(index_t rows, index_t cols, const std::vector<std::vector<index_t>>& r) {
  host_csr<pattern> a(rows, cols);
  for (index_t i = 0; i < rows; ++i) {
    if (static_cast<std::size_t>(i) < r.size()) a.col.insert(a.col.end(), r[i].begin(), r[i].end());
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

template <class V>
void expect_same(const host_csr<V>& x, const host_csr<V>& y, const std::string& what = "") {
  EXPECT_EQ(x.rows, y.rows) << what;
  EXPECT_EQ(x.cols, y.cols) << what;
  EXPECT_EQ(x.rpt, y.rpt) << what;
  EXPECT_EQ(x.col, y.col) << what;
  EXPECT_EQ(x.val, y.val) << what;
}

/// Random rows: `per_row` entries on average in [0, cols), sorted or in random order, with
/// values that are not integers (so that folding order shows), some rows empty.
host_csr<double> random_matrix(index_t rows, index_t cols, int per_row, bool sorted,
                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  host_csr<double> a(rows, cols);
  std::vector<index_t> row;
  for (index_t i = 0; i < rows; ++i) {
    row.clear();
    const int len = cols == 0 || i % 7 == 3 ? 0 : static_cast<int>(rng() % (2 * per_row + 1));
    for (int k = 0; k < len; ++k) row.push_back(static_cast<index_t>(rng() % cols));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    if (!sorted) std::shuffle(row.begin(), row.end(), rng);
    for (index_t j : row) {
      a.col.push_back(j);
      a.val.push_back(static_cast<double>(rng() % 1000) / 7.0 - 50.0);
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

/// Entries as (i, j, v) in storage order.
std::vector<std::tuple<index_t, index_t, double>> triplets(const host_csr<double>& a) {
  std::vector<std::tuple<index_t, index_t, double>> t;
  for (index_t i = 0; i < a.rows; ++i)
    for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p) t.emplace_back(i, a.col[p], a.val[p]);
  return t;
}

/// A matrix of `rows` x `cols` from triplets, rows in the order the triplets come.
host_csr<double> from_triplets(index_t rows, index_t cols,
                               const std::vector<std::tuple<index_t, index_t, double>>& t) {
  host_csr<double> a(rows, cols);
  for (const auto& [i, j, v] : t) ++a.rpt[i + 1];
  for (index_t i = 0; i < rows; ++i) a.rpt[i + 1] += a.rpt[i];
  a.col.resize(t.size());
  a.val.resize(t.size());
  std::vector<offset_t> at(a.rpt.begin(), a.rpt.end() - 1);
  for (const auto& [i, j, v] : t) {
    a.col[at[i]] = j;
    a.val[at[i]++] = v;
  }
  return a;
}

host_csr<double> naive_transpose(const host_csr<double>& a) {
  std::vector<std::tuple<index_t, index_t, double>> t;
  for (const auto& [i, j, v] : triplets(a)) t.emplace_back(j, i, v);
  std::stable_sort(t.begin(), t.end(),
                   [](const auto& x, const auto& y) { return std::get<0>(x) < std::get<0>(y); });
  return from_triplets(a.cols, a.rows, t);
}

/// Runs f with `threads` OpenMP threads, restoring the default after.
template <class F>
auto with_threads(int threads, F f) {
  const int was = omp_get_max_threads();
  omp_set_num_threads(threads);
  auto r = f();
  omp_set_num_threads(was);
  return r;
}

const std::vector<std::pair<index_t, index_t>> empty_shapes = {{0, 0}, {3, 0}, {0, 4}, {3, 4}};

}  // namespace

// ---- transpose --------------------------------------------------------------------------------

TEST(CpuGraphOps, TransposeSmall) {
  // [1 0 2]
  // [0 3 0]   rows unsorted on purpose
  const auto a = mat(2, 3, {{{2, 2.0}, {0, 1.0}}, {{1, 3.0}}});
  const auto t = cpu::transpose(a);
  expect_same(t, mat(3, 2, {{{0, 1.0}}, {{1, 3.0}}, {{0, 2.0}}}));
  const auto tp = cpu::transpose(pat(2, 3, {{2, 0}, {1}}));
  expect_same(tp, pat(3, 2, {{0}, {1}, {0}}));
  EXPECT_TRUE(tp.val.empty());
  // Repeated (i, j) keep A's order.
  expect_same(cpu::transpose(mat(1, 2, {{{1, 5.0}, {1, 6.0}}})),
              mat(2, 1, {{}, {{0, 5.0}, {0, 6.0}}}));
  for (auto [r, c] : empty_shapes) {
    const auto e = cpu::transpose(host_csr<double>(r, c));
    expect_same(e, host_csr<double>(c, r));
  }
}

TEST(CpuGraphOps, TransposeRandom) {
  for (bool sorted : {true, false})
    for (auto [r, c, per] :
         {std::tuple{3000, 2500, 30}, std::tuple{200, 5000, 4}, std::tuple{40000, 300, 3}}) {
      const auto a = random_matrix(r, c, per, sorted, 11 + r);
      const auto t = cpu::transpose(a);
      expect_same(t, naive_transpose(a), "transpose");
      expect_same(with_threads(1, [&] { return cpu::transpose(a); }), t, "one thread");
      if (sorted) expect_same(cpu::transpose(t), a, "twice");
      validate(t);
      const auto tp = cpu::transpose(convert<pattern>(a));
      EXPECT_EQ(tp.col, t.col);
      EXPECT_EQ(tp.rpt, t.rpt);
    }
}

// ---- select -----------------------------------------------------------------------------------

TEST(CpuGraphOps, SelectSmall) {
  // [1 2 3]
  // [4 5 6]
  // [7 8 9]
  const auto a =
      mat(3, 3, {{{0, 1}, {1, 2}, {2, 3}}, {{0, 4}, {1, 5}, {2, 6}}, {{0, 7}, {1, 8}, {2, 9}}});
  expect_same(cpu::select(a, lower_triangle{0}),
              mat(3, 3, {{{0, 1}}, {{0, 4}, {1, 5}}, {{0, 7}, {1, 8}, {2, 9}}}));
  expect_same(cpu::select(a, lower_triangle{-1}), mat(3, 3, {{}, {{0, 4}}, {{0, 7}, {1, 8}}}));
  expect_same(cpu::select(a, upper_triangle{1}), mat(3, 3, {{{1, 2}, {2, 3}}, {{2, 6}}, {}}));
  expect_same(cpu::select(a, upper_triangle{-1}),
              mat(3, 3, {{{0, 1}, {1, 2}, {2, 3}}, {{0, 4}, {1, 5}, {2, 6}}, {{1, 8}, {2, 9}}}));
  expect_same(cpu::select(a, off_diagonal{}),
              mat(3, 3, {{{1, 2}, {2, 3}}, {{0, 4}, {2, 6}}, {{0, 7}, {1, 8}}}));
  expect_same(cpu::select(a, value_at_least{6}),
              mat(3, 3, {{}, {{2, 6}}, {{0, 7}, {1, 8}, {2, 9}}}));
  // A mask: the anti-diagonal, kept and removed.
  const auto m = pat(3, 3, {{2}, {1}, {0}});
  const auto sm = cpu::host_mask<structural_mask>(m);
  const auto cm = cpu::host_mask<complement_mask>(m);
  expect_same(cpu::select(a, in_mask<structural_mask>{sm}),
              mat(3, 3, {{{2, 3}}, {{1, 5}}, {{0, 7}}}));
  expect_same(cpu::select(a, in_mask<complement_mask>{cm}),
              mat(3, 3, {{{0, 1}, {1, 2}}, {{0, 4}, {2, 6}}, {{1, 8}, {2, 9}}}));
  // Pattern, rectangular, row order kept.
  const auto p = pat(2, 4, {{3, 0, 1}, {2, 1}});
  expect_same(cpu::select(p, lower_triangle{1}), pat(2, 4, {{0, 1}, {2, 1}}));
  // The predicate sees i, j and the value (pattern{} for patterns).
  const auto q =
      cpu::select(a, [](index_t i, index_t j, double v) { return (i + j) % 2 == 0 && v > 1; });
  expect_same(q, mat(3, 3, {{{2, 3}}, {{1, 5}}, {{0, 7}, {2, 9}}}));
  for (auto [r, c] : empty_shapes) {
    expect_same(cpu::select(host_csr<double>(r, c), lower_triangle{0}), host_csr<double>(r, c));
    expect_same(cpu::select(host_csr<pattern>(r, c), off_diagonal{}), host_csr<pattern>(r, c));
  }
}

TEST(CpuGraphOps, SelectRandomLowerAndUpperMakeA) {
  for (bool sorted : {true, false}) {
    const auto a = random_matrix(3000, 2000, 30, sorted, 5);
    const auto lo = cpu::select(a, lower_triangle{0});
    const auto up = cpu::select(a, upper_triangle{1});
    std::vector<std::tuple<index_t, index_t, double>> want_lo, want_up;
    for (const auto& t : triplets(a))
      (std::get<1>(t) <= std::get<0>(t) ? want_lo : want_up).push_back(t);
    expect_same(lo, from_triplets(a.rows, a.cols, want_lo), "lower");
    expect_same(up, from_triplets(a.rows, a.cols, want_up), "upper");
    if (sorted) expect_same(cpu::ewise_add(lo, up, union_with<plus_monoid<double>>{}), a, "union");
    const auto big = cpu::select(a, value_at_least{10.0});
    std::vector<std::tuple<index_t, index_t, double>> want_big;
    for (const auto& t : triplets(a))
      if (std::get<2>(t) >= 10.0) want_big.push_back(t);
    expect_same(big, from_triplets(a.rows, a.cols, want_big), "value");
  }
}

// ---- submatrix --------------------------------------------------------------------------------

TEST(CpuGraphOps, SubmatrixSmall) {
  // 3 x 5, row 1 unsorted, row 2 empty
  const auto a = mat(3, 5, {{{0, 1.0}, {2, 2.0}, {4, 3.0}}, {{3, 4.0}, {1, 5.0}, {2, 6.0}}, {}});
  expect_same(cpu::submatrix(a, 0, 2, 1, 4),
              mat(2, 3, {{{1, 2.0}}, {{2, 4.0}, {0, 5.0}, {1, 6.0}}}));
  expect_same(cpu::submatrix(a, 1, 3, 0, 5), mat(2, 5, {{{3, 4.0}, {1, 5.0}, {2, 6.0}}, {}}));
  expect_same(cpu::submatrix(a, 2, 2, 3, 3), mat(0, 0, {}));
  expect_same(cpu::submatrix(pat(2, 4, {{0, 3}, {1}}), 0, 2, 3, 4), pat(2, 1, {{0}, {}}));
  EXPECT_THROW(cpu::submatrix(a, 0, 4, 0, 5), std::invalid_argument);
  EXPECT_THROW(cpu::submatrix(a, 2, 1, 0, 5), std::invalid_argument);
  EXPECT_THROW(cpu::submatrix(a, 0, 3, -1, 5), std::invalid_argument);
  EXPECT_THROW(cpu::submatrix(a, 0, 3, 0, 6), std::invalid_argument);
}

TEST(CpuGraphOps, SubmatrixTilesMakeA) {
  // Cut into a 3 x 4 grid of tiles (parallel path for the big ones); each tile's entries are
  // exactly A's in its window, shifted, and together they are every entry once.
  for (bool sorted : {true, false}) {
    const auto a = random_matrix(5000, 3000, 25, sorted, 11);
    const index_t rc[] = {0, 1700, 1701, 5000}, cc[] = {0, 10, 1500, 2999, 3000};
    std::vector<std::tuple<index_t, index_t, double>> all;
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 4; ++q) {
        const auto t = cpu::submatrix(a, rc[p], rc[p + 1], cc[q], cc[q + 1]);
        std::vector<std::tuple<index_t, index_t, double>> want;
        for (const auto& [i, j, v] : triplets(a))
          if (i >= rc[p] && i < rc[p + 1] && j >= cc[q] && j < cc[q + 1])
            want.emplace_back(i - rc[p], j - cc[q], v);
        expect_same(t, from_triplets(rc[p + 1] - rc[p], cc[q + 1] - cc[q], want));
        for (const auto& [i, j, v] : triplets(t)) all.emplace_back(i + rc[p], j + cc[q], v);
      }
    std::sort(all.begin(), all.end());
    auto want = triplets(a);
    std::sort(want.begin(), want.end());
    EXPECT_EQ(all, want);
  }
}

// ---- permute ----------------------------------------------------------------------------------

TEST(CpuGraphOps, PermuteSmall) {
  // [1 0 2 0]
  // [0 3 0 0]
  // [4 0 0 5]
  const auto a = mat(3, 4, {{{0, 1}, {2, 2}}, {{1, 3}}, {{0, 4}, {3, 5}}});
  // Rows only: reordered, a subset, a repeat.
  expect_same(cpu::permute(a, {2, 0, 1}, nullptr),
              mat(3, 4, {{{0, 4}, {3, 5}}, {{0, 1}, {2, 2}}, {{1, 3}}}));
  expect_same(cpu::permute(a, {1, 1}, nullptr), mat(2, 4, {{{1, 3}}, {{1, 3}}}));
  expect_same(cpu::permute(a, {}, nullptr), host_csr<double>(0, 4));
  // Columns reversed: rows sorted by their new columns.
  const std::vector<index_t> rev{3, 2, 1, 0};
  expect_same(cpu::permute(a, {0, 1, 2}, &rev),
              mat(3, 4, {{{1, 2}, {3, 1}}, {{2, 3}}, {{0, 5}, {3, 4}}}));
  const auto p = pat(3, 4, {{0, 2}, {1}, {0, 3}});
  expect_same(cpu::permute(p, {2, 1}, &rev), pat(2, 4, {{0, 3}, {2}}));
  // A square graph relabelled: P·A·Pᵀ.
  const auto g = pat(3, 3, {{1, 2}, {0}, {0}});
  const std::vector<index_t> order{1, 2, 0};  // new -> old
  const auto inv = cpu::invert_permutation(order);
  expect_same(cpu::permute(g, order, &inv), pat(3, 3, {{2}, {2}, {0, 1}}));
  // Misuse.
  EXPECT_THROW(cpu::permute(a, {0, 3}, nullptr), std::invalid_argument);
  EXPECT_THROW(cpu::permute(a, {-1}, nullptr), std::invalid_argument);
  const std::vector<index_t> short_map{0, 1, 2};
  EXPECT_THROW(cpu::permute(a, {0}, &short_map), std::invalid_argument);
  const std::vector<index_t> bad_map{0, 1, 2, 4};
  EXPECT_THROW(cpu::permute(a, {0}, &bad_map), std::invalid_argument);
  for (auto [r, c] : empty_shapes) {
    std::vector<index_t> rows(static_cast<std::size_t>(r)), cols(static_cast<std::size_t>(c));
    std::iota(rows.begin(), rows.end(), 0);
    std::iota(cols.begin(), cols.end(), 0);
    expect_same(cpu::permute(host_csr<double>(r, c), rows, &cols), host_csr<double>(r, c));
  }
}

TEST(CpuGraphOps, PermuteRandomAndBack) {
  std::mt19937_64 rng(3);
  for (bool sorted : {true, false}) {
    const auto a = random_matrix(3000, 2400, 30, sorted, 17);
    std::vector<index_t> rows(3000), cols(2400);
    std::iota(rows.begin(), rows.end(), 0);
    std::iota(cols.begin(), cols.end(), 0);
    std::shuffle(rows.begin(), rows.end(), rng);
    std::shuffle(cols.begin(), cols.end(), rng);
    const auto b = cpu::permute(a, rows, &cols);
    // Naive: relabel the triplets, then sort each row by column.
    std::vector<std::tuple<index_t, index_t, double>> t;
    const auto inv_rows = cpu::invert_permutation(rows);
    for (const auto& [i, j, v] : triplets(a)) t.emplace_back(inv_rows[i], cols[j], v);
    std::stable_sort(t.begin(), t.end(), [](const auto& x, const auto& y) {
      return std::tie(std::get<0>(x), std::get<1>(x)) < std::tie(std::get<0>(y), std::get<1>(y));
    });
    expect_same(b, from_triplets(a.rows, a.cols, t), "permuted");
    validate(b);
    // And back: the inverse row order, the inverse column map.
    const auto inv_cols = cpu::invert_permutation(cols);
    const auto back = cpu::permute(b, inv_rows, &inv_cols);
    if (sorted) {
      expect_same(back, a, "back");
    } else {
      auto s = a;
      cpu::sort_rows(s);
      expect_same(back, s, "back, sorted");
    }
    // Rows only keeps each row's order.
    const auto r = cpu::permute(a, rows, nullptr);
    expect_same(cpu::permute(r, inv_rows, nullptr), a, "rows back");
  }
}

// ---- reductions -------------------------------------------------------------------------------

TEST(CpuGraphOps, ReduceSmall) {
  // [1 0 2]
  // [0 0 0]
  // [4 5 0]
  // [0 0 -3]
  const auto a = mat(4, 3, {{{0, 1}, {2, 2}}, {}, {{0, 4}, {1, 5}}, {{2, -3}}});
  std::vector<double> out;
  cpu::reduce_rows<plus_monoid<double>>(a, value_as<double>{}, out);
  EXPECT_EQ(out, (std::vector<double>{3, 0, 9, -3}));
  cpu::reduce_rows<max_monoid<double>>(a, value_as<double>{}, out);
  EXPECT_EQ(out, (std::vector<double>{2, std::numeric_limits<double>::lowest(), 5, -3}));
  std::vector<std::int64_t> cnt;
  cpu::reduce_rows<plus_monoid<std::int64_t>>(a, count_one<std::int64_t>{}, cnt);
  EXPECT_EQ(cnt, (std::vector<std::int64_t>{2, 0, 2, 1}));
  cpu::reduce_rows<plus_monoid<std::int64_t>>(a, count_one<std::int64_t>{}, cnt, true);
  EXPECT_EQ(cnt, (std::vector<std::int64_t>{4, 0, 4, 2}));
  cpu::reduce_cols<plus_monoid<double>>(a, value_as<double>{}, out);
  EXPECT_EQ(out, (std::vector<double>{5, 5, -1}));
  cpu::reduce_cols<min_monoid<double>>(a, value_as<double>{}, out);
  EXPECT_EQ(out, (std::vector<double>{1, 5, -3}));
  cpu::reduce_cols<plus_monoid<double>>(a, value_as<double>{}, out, true);
  EXPECT_EQ(out, (std::vector<double>{6, 10, -4}));
  std::vector<std::int64_t> ccnt{10, 20, 30};
  cpu::reduce_cols<plus_monoid<std::int64_t>>(a, count_one<std::int64_t>{}, ccnt, true);
  EXPECT_EQ(ccnt, (std::vector<std::int64_t>{12, 21, 32}));
  // Entry functions see (i, j, v).
  cpu::reduce_cols<plus_monoid<double>>(
      a, [](index_t i, index_t, double v) { return i * v; }, out);
  EXPECT_EQ(out, (std::vector<double>{8, 10, -9}));
  EXPECT_EQ(cpu::reduce<plus_monoid<double>>(a, value_as<double>{}), 9.0);
  EXPECT_EQ(cpu::reduce<max_monoid<double>>(a, value_as<double>{}), 5.0);
  EXPECT_EQ(cpu::reduce<plus_monoid<int>>(a, count_one<int>{}), 5);
  // Patterns: count the entries.
  const auto p = pat(2, 3, {{0, 1, 2}, {1}});
  std::vector<int> pc;
  cpu::reduce_cols<plus_monoid<int>>(p, count_one<int>{}, pc);
  EXPECT_EQ(pc, (std::vector<int>{1, 2, 1}));
  EXPECT_EQ(cpu::reduce<plus_monoid<int>>(p, count_one<int>{}), 4);
  // Misuse: accumulating into the wrong size.
  std::vector<double> wrong(3);
  EXPECT_THROW(cpu::reduce_rows<plus_monoid<double>>(a, value_as<double>{}, wrong, true),
               std::invalid_argument);
  wrong.resize(4);
  EXPECT_THROW(cpu::reduce_cols<plus_monoid<double>>(a, value_as<double>{}, wrong, true),
               std::invalid_argument);
  for (auto [r, c] : empty_shapes) {
    const host_csr<double> e(r, c);
    cpu::reduce_rows<plus_monoid<double>>(e, value_as<double>{}, out);
    EXPECT_EQ(out, std::vector<double>(static_cast<std::size_t>(r), 0.0));
    cpu::reduce_cols<min_monoid<double>>(e, value_as<double>{}, out);
    EXPECT_EQ(out,
              std::vector<double>(static_cast<std::size_t>(c), std::numeric_limits<double>::max()));
    EXPECT_EQ(cpu::reduce<plus_monoid<double>>(e, value_as<double>{}), 0.0);
  }
}

TEST(CpuGraphOps, ReduceRandomAgainstSerialFolds) {
  for (auto [r, c, per] :
       {std::tuple{3000, 2500, 30}, std::tuple{40000, 50, 3}, std::tuple{100, 30000, 800}}) {
    const auto a = random_matrix(r, c, per, false, 23 + c);
    // Counts are exact however they are folded.
    std::vector<std::int64_t> rows, cols, want_rows(static_cast<std::size_t>(r)),
        want_cols(static_cast<std::size_t>(c));
    cpu::reduce_rows<plus_monoid<std::int64_t>>(a, count_one<std::int64_t>{}, rows);
    cpu::reduce_cols<plus_monoid<std::int64_t>>(a, count_one<std::int64_t>{}, cols);
    for (index_t i = 0; i < r; ++i) want_rows[i] = a.rpt[i + 1] - a.rpt[i];
    for (index_t j : a.col) ++want_cols[j];
    EXPECT_EQ(rows, want_rows);
    EXPECT_EQ(cols, want_cols);
    cpu::reduce_cols<plus_monoid<std::int64_t>>(a, count_one<std::int64_t>{}, cols, true);
    for (auto& x : want_cols) x *= 2;
    EXPECT_EQ(cols, want_cols);
    EXPECT_EQ(cpu::reduce<plus_monoid<std::int64_t>>(a, count_one<std::int64_t>{}), a.nnz());
    // Values: row sums are serial folds, exactly; max is exact in any order; column and total
    // sums are the same on one thread and on several, and close to the serial fold.
    std::vector<double> sums, want(static_cast<std::size_t>(r), 0.0),
        colsum(static_cast<std::size_t>(c), 0.0);
    cpu::reduce_rows<plus_monoid<double>>(a, value_as<double>{}, sums);
    double total = 0, biggest = std::numeric_limits<double>::lowest();
    for (const auto& [i, j, v] : triplets(a)) {
      want[i] += v;
      colsum[j] += v;
      total += v;
      biggest = std::max(biggest, v);
    }
    EXPECT_EQ(sums, want);
    std::vector<double> cs;
    cpu::reduce_cols<plus_monoid<double>>(a, value_as<double>{}, cs);
    for (index_t j = 0; j < c; ++j) EXPECT_NEAR(cs[j], colsum[j], 1e-8 * (1 + std::abs(colsum[j])));
    const auto cs1 = with_threads(1, [&] {
      std::vector<double> o;
      cpu::reduce_cols<plus_monoid<double>>(a, value_as<double>{}, o);
      return o;
    });
    EXPECT_EQ(cs1, cs);
    const double t = cpu::reduce<plus_monoid<double>>(a, value_as<double>{});
    EXPECT_NEAR(t, total, 1e-8 * (1 + std::abs(total)));
    EXPECT_EQ(
        with_threads(1, [&] { return cpu::reduce<plus_monoid<double>>(a, value_as<double>{}); }),
        t);
    EXPECT_EQ(cpu::reduce<max_monoid<double>>(a, value_as<double>{}), biggest);
  }
}

// ---- apply, row_products, sort_rows -------------------------------------------------------------

TEST(CpuGraphOps, Apply) {
  auto a = mat(2, 3, {{{0, 2}, {2, -3}}, {{1, 0.5}}});
  cpu::apply(a, power{2});
  EXPECT_EQ(a.val, (std::vector<double>{4, 9, 0.25}));
  cpu::apply(a, scale_by{2});
  EXPECT_EQ(a.val, (std::vector<double>{8, 18, 0.5}));
  cpu::apply(a, [](double v) { return v - 1; });
  EXPECT_EQ(a.val, (std::vector<double>{7, 17, -0.5}));
  EXPECT_EQ(a.col, (std::vector<index_t>{0, 2, 1}));
  auto p = pat(2, 3, {{0}, {1, 2}});
  const auto before = p;
  cpu::apply(p, scale_by{3});
  expect_same(p, before);
  host_csr<double> e(0, 0);
  cpu::apply(e, power{3});
  expect_same(e, host_csr<double>(0, 0));
  auto big = random_matrix(3000, 100, 30, true, 2);
  auto want = big.val;
  for (double& v : want) v = 0.5 * v;
  cpu::apply(big, scale_by{0.5});
  EXPECT_EQ(big.val, want);
}

TEST(CpuGraphOps, RowProducts) {
  // A 2x3, B 3x4 with rows of 2, 0, 3 entries.
  const auto a = pat(2, 3, {{0, 2}, {1}});
  const auto b = mat(3, 4, {{{0, 1}, {1, 1}}, {}, {{0, 1}, {2, 1}, {3, 1}}});
  EXPECT_EQ(cpu::row_products(a, b), (std::vector<offset_t>{5, 0}));
  EXPECT_THROW(cpu::row_products(b, b), std::invalid_argument);
  EXPECT_TRUE(cpu::row_products(host_csr<double>(0, 3), b).empty());
  EXPECT_EQ(cpu::row_products(host_csr<double>(2, 3), b), (std::vector<offset_t>{0, 0}));
}

TEST(CpuGraphOps, SortRows) {
  auto a = mat(3, 5, {{{4, 1}, {0, 2}, {2, 3}}, {}, {{3, 4}, {1, 5}}});
  cpu::sort_rows(a);
  expect_same(a, mat(3, 5, {{{0, 2}, {2, 3}, {4, 1}}, {}, {{1, 5}, {3, 4}}}));
  auto d = mat(1, 3, {{{2, 1}, {0, 2}, {2, 3}, {0, 4}}});  // repeats keep their order
  cpu::sort_rows(d);
  expect_same(d, mat(1, 3, {{{0, 2}, {0, 4}, {2, 1}, {2, 3}}}));
  auto p = pat(2, 4, {{3, 1, 2}, {0}});
  cpu::sort_rows(p);
  expect_same(p, pat(2, 4, {{1, 2, 3}, {0}}));
  for (auto [r, c] : empty_shapes) {
    host_csr<pattern> e(r, c);
    cpu::sort_rows(e);
    expect_same(e, host_csr<pattern>(r, c));
  }
  auto big = random_matrix(3000, 2000, 30, false, 9);
  auto want = random_matrix(3000, 2000, 30, false, 9);
  auto t = triplets(want);
  std::stable_sort(t.begin(), t.end(), [](const auto& x, const auto& y) {
    return std::tie(std::get<0>(x), std::get<1>(x)) < std::tie(std::get<0>(y), std::get<1>(y));
  });
  cpu::sort_rows(big);
  expect_same(big, from_triplets(3000, 2000, t));
}

// ---- degree_order, invert_permutation, gather ---------------------------------------------------

TEST(CpuGraphOps, RowsLongerThan) {
  // Row lengths 2, 0, 3, 2, 0.
  const auto a = pat(5, 4, {{0, 1}, {}, {0, 1, 2}, {2, 3}, {}});
  EXPECT_EQ(cpu::rows_longer_than(a, 0), (std::vector<index_t>{0, 2, 3}));
  EXPECT_EQ(cpu::rows_longer_than(a, 2), (std::vector<index_t>{2}));
  EXPECT_TRUE(cpu::rows_longer_than(a, 3).empty());
  EXPECT_TRUE(cpu::rows_longer_than(host_csr<double>(0, 0), 0).empty());
}

TEST(CpuGraphOps, DegreeOrder) {
  // Row lengths 2, 0, 3, 2, 0.
  const auto a = pat(5, 4, {{0, 1}, {}, {0, 1, 2}, {2, 3}, {}});
  EXPECT_EQ(cpu::degree_order(a, true), (std::vector<index_t>{1, 4, 0, 3, 2}));
  EXPECT_EQ(cpu::degree_order(a, false), (std::vector<index_t>{2, 0, 3, 1, 4}));
  EXPECT_TRUE(cpu::degree_order(host_csr<double>(0, 0), true).empty());
  EXPECT_EQ(cpu::degree_order(host_csr<double>(3, 0), false), (std::vector<index_t>{0, 1, 2}));
  const auto big = random_matrix(20000, 500, 10, true, 4);
  for (bool asc : {true, false}) {
    std::vector<index_t> want(20000);
    std::iota(want.begin(), want.end(), 0);
    auto deg = [&](index_t v) { return big.rpt[v + 1] - big.rpt[v]; };
    std::stable_sort(want.begin(), want.end(),
                     [&](index_t x, index_t y) { return asc ? deg(x) < deg(y) : deg(x) > deg(y); });
    EXPECT_EQ(cpu::degree_order(big, asc), want);
  }
}

TEST(CpuGraphOps, InvertPermutationAndGather) {
  EXPECT_EQ(cpu::invert_permutation({2, 0, 1}), (std::vector<index_t>{1, 2, 0}));
  EXPECT_TRUE(cpu::invert_permutation({}).empty());
  EXPECT_THROW(cpu::invert_permutation({0, 0}), std::invalid_argument);
  EXPECT_THROW(cpu::invert_permutation({0, 2}), std::invalid_argument);
  EXPECT_THROW(cpu::invert_permutation({-1, 0}), std::invalid_argument);
  const std::vector<double> src{10, 20, 30};
  EXPECT_EQ(cpu::gather(src, {2, 2, 0}), (std::vector<double>{30, 30, 10}));
  EXPECT_TRUE(cpu::gather(src, {}).empty());
  EXPECT_THROW(cpu::gather(src, {3}), std::invalid_argument);
  EXPECT_THROW(cpu::gather(src, {-1}), std::invalid_argument);
  std::vector<index_t> order(100000);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(8));
  const auto inv = cpu::invert_permutation(order);
  std::vector<index_t> id(order.size());
  std::iota(id.begin(), id.end(), 0);
  EXPECT_EQ(cpu::gather(inv, order), id);
}

// ---- ewise_add ---------------------------------------------------------------------------------

TEST(CpuGraphOps, EwiseAddSmall) {
  const auto a = mat(2, 4, {{{0, 1}, {2, 2}}, {{3, 3}}});
  const auto b = mat(2, 4, {{{1, 10}, {2, 20}}, {}});
  expect_same(cpu::ewise_add(a, b, union_with<plus_monoid<double>>{}),
              mat(2, 4, {{{0, 1}, {1, 10}, {2, 22}}, {{3, 3}}}));
  expect_same(cpu::ewise_add(a, b, union_with<max_monoid<double>>{}),
              mat(2, 4, {{{0, 1}, {1, 10}, {2, 20}}, {{3, 3}}}));
  // BFS: visited levels ∪ a pattern frontier at level 7; the result's type is the rule's.
  host_csr<std::int32_t> visited(2, 4);
  visited.rpt = {0, 1, 2};
  visited.col = {1, 0};
  visited.val = {0, 1};
  const auto frontier = pat(2, 4, {{1, 3}, {2}});
  const host_csr<std::int32_t> v = cpu::ewise_add(visited, frontier, union_fill<std::int32_t>{7});
  EXPECT_EQ(v.rpt, (std::vector<offset_t>{0, 2, 4}));
  EXPECT_EQ(v.col, (std::vector<index_t>{1, 3, 0, 2}));
  EXPECT_EQ(v.val, (std::vector<std::int32_t>{0, 7, 1, 7}));
  // A rule of pattern results.
  struct pattern_union {
    pattern both(pattern, pattern) const { return {}; }
    pattern left(pattern) const { return {}; }
    pattern right(pattern) const { return {}; }
  };
  const auto pu = cpu::ewise_add(pat(1, 3, {{0, 2}}), pat(1, 3, {{1, 2}}), pattern_union{});
  expect_same(pu, pat(1, 3, {{0, 1, 2}}));
  EXPECT_THROW(cpu::ewise_add(a, host_csr<double>(2, 3), union_with<plus_monoid<double>>{}),
               std::invalid_argument);
  EXPECT_THROW(cpu::ewise_add(a, host_csr<double>(3, 4), union_with<plus_monoid<double>>{}),
               std::invalid_argument);
  for (auto [r, c] : empty_shapes)
    expect_same(cpu::ewise_add(host_csr<double>(r, c), host_csr<double>(r, c),
                               union_with<plus_monoid<double>>{}),
                host_csr<double>(r, c));
  expect_same(cpu::ewise_add(a, host_csr<double>(2, 4), union_with<plus_monoid<double>>{}), a);
  expect_same(cpu::ewise_add(host_csr<double>(2, 4), a, union_with<plus_monoid<double>>{}), a);
}

TEST(CpuGraphOps, EwiseAddRandom) {
  const auto a = random_matrix(3000, 1500, 20, true, 31);
  const auto b = random_matrix(3000, 1500, 20, true, 32);
  std::map<std::pair<index_t, index_t>, double> want;
  for (const auto& [i, j, v] : triplets(a)) want[{i, j}] = v;
  for (const auto& [i, j, v] : triplets(b)) {
    auto [it, fresh] = want.emplace(std::pair{i, j}, 3 * v);
    if (!fresh) it->second = it->second * 100 + v;  // both
  }
  struct rule {
    double both(double x, double y) const { return x * 100 + y; }
    double left(double x) const { return x; }
    double right(double y) const { return 3 * y; }
  };
  const auto c = cpu::ewise_add(a, b, rule{});
  std::vector<std::tuple<index_t, index_t, double>> t;
  for (const auto& [ij, v] : want) t.emplace_back(ij.first, ij.second, v);
  expect_same(c, from_triplets(3000, 1500, t));
  validate(c);
}
