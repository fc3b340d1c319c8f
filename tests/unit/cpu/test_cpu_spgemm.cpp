// The CPU engine against naive references written here: a std::map per row for every semiring
// and mask, and plain dense loops for a few independent checks.
#include "opsparse/cpu/spgemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace {

using opsparse::host_csr;
using opsparse::index_t;
using opsparse::mask_kind;
using opsparse::offset_t;
using opsparse::pattern;
namespace cpu = opsparse::cpu;
namespace test = opsparse::test;

/// A semiring the library does not ship, in a few lines: (max, ×).
struct max_times {
  using value_type = double;
  static constexpr opsparse::add_kind kind = opsparse::add_kind::custom;
  static double identity() { return -INFINITY; }
  static double add(double a, double b) { return a > b ? a : b; }
  template <class A, class B>
  static double multiply(A a, B b) {
    return static_cast<double>(a) * static_cast<double>(b);
  }
};

template <class V>
auto value_of(const host_csr<V>& m, offset_t k) {
  if constexpr (opsparse::has_values_v<V>)
    return m.val[k];
  else
    return pattern{};
}

bool in_row(const host_csr<pattern>& m, index_t i, index_t j) {
  return std::binary_search(m.col.begin() + m.rpt[i], m.col.begin() + m.rpt[i + 1], j);
}

/// Naive C<M> = A·B: one std::map per row, products in A-row then B-row order.
template <class S, class VA, class VB>
host_csr<typename S::value_type> reference(const host_csr<VA>& a, const host_csr<VB>& b,
                                           mask_kind mk = mask_kind::none,
                                           const host_csr<pattern>* m = nullptr) {
  using T = typename S::value_type;
  host_csr<T> c(a.rows, b.cols);
  for (index_t i = 0; i < a.rows; ++i) {
    std::map<index_t, T> row;
    for (offset_t ka = a.rpt[i]; ka < a.rpt[i + 1]; ++ka) {
      const index_t k = a.col[ka];
      for (offset_t kb = b.rpt[k]; kb < b.rpt[k + 1]; ++kb) {
        const index_t j = b.col[kb];
        if (mk == mask_kind::structural && !in_row(*m, i, j)) continue;
        if (mk == mask_kind::complemented && in_row(*m, i, j)) continue;
        const T p = S::multiply(value_of(a, ka), value_of(b, kb));
        auto it = row.find(j);
        if (it == row.end())
          row.emplace(j, p);
        else
          it->second = S::add(it->second, p);
      }
    }
    for (const auto& [j, v] : row) {
      c.col.push_back(j);
      if constexpr (opsparse::has_values_v<T>) c.val.push_back(v);
    }
    c.rpt[i + 1] = static_cast<offset_t>(c.col.size());
  }
  return c;
}

/// Same structure as `m` with values v(k) for entry k.
template <class T, class V, class F>
host_csr<T> with_values(const host_csr<V>& m, F v) {
  host_csr<T> r = opsparse::convert<T>(opsparse::convert<pattern>(m));
  for (std::size_t k = 0; k < r.val.size(); ++k) r.val[k] = v(k);
  return r;
}

template <class T>
host_csr<T> random_int(index_t m, index_t n, double per_row, std::uint64_t seed) {
  // Values -3..3, zeros included: entries whose value is 0 or that cancel must stay entries.
  return with_values<T>(test::random_csr<pattern>(m, n, per_row, seed),
                        [](std::size_t k) { return static_cast<T>(static_cast<int>(k % 7) - 3); });
}

template <class T>
host_csr<T> identity(index_t n) {
  host_csr<T> r(n, n);
  for (index_t i = 0; i < n; ++i) {
    r.col.push_back(i);
    if constexpr (opsparse::has_values_v<T>) r.val.push_back(T(1));
    r.rpt[i + 1] = i + 1;
  }
  return r;
}

template <class T>
double tolerance() {
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  if constexpr (std::is_same_v<T, double>) return 1e-12;
  return 0.0;
}

/// Bitwise-identical results (same rpt, same columns in the same order, same values).
template <class T>
::testing::AssertionResult identical(const host_csr<T>& x, const host_csr<T>& y) {
  if (x.rows != y.rows || x.cols != y.cols || x.rpt != y.rpt || x.col != y.col)
    return ::testing::AssertionFailure() << "structure differs";
  if constexpr (opsparse::has_values_v<T>)
    if (x.val != y.val) return ::testing::AssertionFailure() << "values differ";
  return ::testing::AssertionSuccess();
}

/// Sorts each row's (column, value) pairs: makes a sorted=false result comparable.
template <class T>
host_csr<T> sort_rows(host_csr<T> m) {
  for (index_t i = 0; i < m.rows; ++i) {
    std::vector<std::pair<index_t, std::size_t>> e;
    for (offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k) e.emplace_back(m.col[k], k);
    std::sort(e.begin(), e.end());
    std::vector<T> v;
    for (std::size_t t = 0; t < e.size(); ++t) {
      m.col[m.rpt[i] + t] = e[t].first;
      if constexpr (opsparse::has_values_v<T>) v.push_back(m.val[e[t].second]);
    }
    if constexpr (opsparse::has_values_v<T>)
      std::copy(v.begin(), v.end(), m.val.begin() + m.rpt[i]);
  }
  return m;
}

/// Runs every engine variant (both accumulators, one thread, unsorted) against the reference.
template <class S, class VA, class VB, class Mask = opsparse::no_mask>
void check_variants(const host_csr<VA>& a, const host_csr<VB>& b, const Mask& mask = {},
                    const host_csr<pattern>* m = nullptr) {
  using T = typename S::value_type;
  const auto ref = reference<S>(a, b, Mask::kind, m);
  const double rel = tolerance<T>();

  const auto c = cpu::spgemm<S>(a, b, mask);
  EXPECT_EQ(opsparse::check(c), "");
  EXPECT_TRUE(test::csr_near(c, ref, rel));
  if constexpr (!opsparse::has_values_v<T>) {
    EXPECT_TRUE(c.val.empty());
  }

  for (auto kind : {cpu::accumulator_kind::dense, cpu::accumulator_kind::hash}) {
    cpu::options o;
    o.accumulator = kind;
    const auto ck = cpu::spgemm<S>(a, b, mask, o);
    EXPECT_TRUE(test::csr_near(ck, ref, rel)) << "accumulator " << static_cast<int>(kind);

    o.threads = 1;
    EXPECT_TRUE(identical(cpu::spgemm<S>(a, b, mask, o), ck)) << "threads=1";

    o.threads = 0;
    o.sorted = false;
    const auto cu = cpu::spgemm<S>(a, b, mask, o);
    EXPECT_EQ(cu.rpt, ref.rpt) << "unsorted: same entries per row";
    EXPECT_TRUE(test::csr_near(sort_rows(cu), ref, rel)) << "unsorted: same entries";
  }
}

// ---------------------------------------------------------------------------------------------
// Shapes

TEST(CpuSpgemm, EmptyShapes) {
  using S = opsparse::plus_times<double>;
  const auto c00 = cpu::spgemm<S>(host_csr<double>(0, 0), host_csr<double>(0, 0));
  EXPECT_EQ(c00.rows, 0);
  EXPECT_EQ(c00.cols, 0);
  EXPECT_EQ(opsparse::check(c00), "");

  const auto c03 = cpu::spgemm<S>(host_csr<double>(0, 5), test::random_csr<double>(5, 3, 2, 1));
  EXPECT_EQ(c03.rows, 0);
  EXPECT_EQ(c03.cols, 3);
  EXPECT_EQ(opsparse::check(c03), "");

  // Inner dimension 0: every product is empty, C is all-zero rows x cols.
  const auto c34 = cpu::spgemm<S>(host_csr<double>(3, 0), host_csr<double>(0, 4));
  EXPECT_EQ(c34.rows, 3);
  EXPECT_EQ(c34.cols, 4);
  EXPECT_EQ(c34.nnz(), 0);
  EXPECT_EQ(opsparse::check(c34), "");

  // No entries at all, and B with zero columns.
  check_variants<S>(host_csr<double>(4, 5), test::random_csr<double>(5, 6, 2, 2));
  check_variants<S>(test::random_csr<double>(4, 5, 2, 3), host_csr<double>(5, 0));
  EXPECT_EQ(cpu::count_products(host_csr<double>(0, 0), host_csr<double>(0, 0)), 0);
}

/// The 1 x 1 matrix [v].
template <class V>
host_csr<V> one_by_one(V v) {
  host_csr<V> m(1, 1);
  m.rpt = {0, 1}, m.col = {0}, m.val = {v};
  return m;
}

TEST(CpuSpgemm, OneByOne) {
  const host_csr<double> a = one_by_one(2.0), b = one_by_one(3.0);
  const auto c = cpu::spgemm<opsparse::plus_times<double>>(a, b);
  ASSERT_EQ(c.nnz(), 1);
  EXPECT_EQ(c.col[0], 0);
  EXPECT_EQ(c.val[0], 6.0);
  EXPECT_EQ(cpu::spgemm<opsparse::min_plus<double>>(a, b).val[0], 5.0);
  EXPECT_EQ(cpu::spgemm<max_times>(a, b).val[0], 6.0);
  EXPECT_EQ(cpu::count_products(a, b), 1);
}

TEST(CpuSpgemm, RectangularAgainstDenseLoops) {
  // An independent check of plus_times: dense triple loop, no map, no semiring code.
  const index_t m = 37, k = 53, n = 29;
  const auto a = test::random_csr<double>(m, k, 5, 11);
  const auto b = test::random_csr<double>(k, n, 4, 12);
  std::vector<double> da(m * k, 0), db(k * n, 0), dc(m * n, 0);
  std::vector<char> hit(m * n, 0);
  for (index_t i = 0; i < m; ++i)
    for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p) da[i * k + a.col[p]] = a.val[p];
  for (index_t i = 0; i < k; ++i)
    for (offset_t p = b.rpt[i]; p < b.rpt[i + 1]; ++p) db[i * n + b.col[p]] = b.val[p];
  for (index_t i = 0; i < m; ++i)
    for (index_t t = 0; t < k; ++t)
      if (da[i * k + t] != 0)
        for (index_t j = 0; j < n; ++j)
          if (db[t * n + j] != 0) {
            dc[i * n + j] += da[i * k + t] * db[t * n + j];
            hit[i * n + j] = 1;
          }
  const auto c = cpu::spgemm<opsparse::plus_times<double>>(a, b);
  ASSERT_EQ(opsparse::check(c), "");
  EXPECT_EQ(c.rows, m);
  EXPECT_EQ(c.cols, n);
  offset_t expected_nnz = 0;
  for (char h : hit) expected_nnz += h;
  EXPECT_EQ(c.nnz(), expected_nnz);
  for (index_t i = 0; i < m; ++i)
    for (offset_t p = c.rpt[i]; p < c.rpt[i + 1]; ++p) {
      EXPECT_TRUE(hit[i * n + c.col[p]]);
      EXPECT_NEAR(c.val[p], dc[i * n + c.col[p]], 1e-12);
    }
  check_variants<opsparse::plus_times<double>>(a, b);
}

TEST(CpuSpgemm, IdentityLeavesMatrixUnchanged) {
  const auto a = test::random_csr<double>(40, 60, 6, 21);
  using S = opsparse::plus_times<double>;
  EXPECT_TRUE(identical(cpu::spgemm<S>(identity<double>(40), a), a));
  EXPECT_TRUE(identical(cpu::spgemm<S>(a, identity<double>(60)), a));
  const auto p = opsparse::convert<pattern>(a);
  EXPECT_TRUE(identical(cpu::spgemm<opsparse::any_pair>(identity<pattern>(40), p), p));
}

TEST(CpuSpgemm, DenseRow) {
  // Row 3 of A is full: C's row 3 is the union of every row of B (a long row that makes the hash
  // table grow far past its initial size).
  auto a = test::random_csr<double>(8, 2000, 3, 31);
  host_csr<double> full(8, 2000);
  for (index_t i = 0; i < 8; ++i) {
    if (i == 3)
      for (index_t j = 0; j < 2000; ++j) full.col.push_back(j), full.val.push_back(1.0 + j % 3);
    else
      for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p)
        full.col.push_back(a.col[p]), full.val.push_back(a.val[p]);
    full.rpt[i + 1] = static_cast<offset_t>(full.col.size());
  }
  const auto b = test::random_csr<double>(2000, 5000, 4, 32);
  check_variants<opsparse::plus_times<double>>(full, b);
  const auto c = cpu::spgemm<opsparse::plus_times<double>>(full, b);
  EXPECT_GT(c.rpt[4] - c.rpt[3], 3000);
}

TEST(CpuSpgemm, RandomLarger) {
  const auto a = test::random_csr<double>(600, 400, 8, 41);
  const auto b = test::random_csr<double>(400, 700, 8, 42);
  check_variants<opsparse::plus_times<double>>(a, b);
}

TEST(CpuSpgemm, EntriesAreStructural) {
  // 1·1 + 1·(-1) = 0 is still an entry; so is a product whose value is the identity.
  host_csr<double> a(1, 2), b(2, 1);
  a.rpt = {0, 2}, a.col = {0, 1}, a.val = {1.0, 1.0};
  b.rpt = {0, 1, 2}, b.col = {0, 0}, b.val = {1.0, -1.0};
  const auto c = cpu::spgemm<opsparse::plus_times<double>>(a, b);
  ASSERT_EQ(c.nnz(), 1);
  EXPECT_EQ(c.val[0], 0.0);
  const host_csr<int> ai = one_by_one(0), bi = one_by_one(1);
  const auto ci = cpu::spgemm<opsparse::or_and<int>>(ai, bi);
  ASSERT_EQ(ci.nnz(), 1);
  EXPECT_EQ(ci.val[0], 0);
}

// ---------------------------------------------------------------------------------------------
// Semirings

TEST(CpuSpgemm, PlusTimesDouble) {
  check_variants<opsparse::plus_times<double>>(test::random_csr<double>(70, 50, 5, 51),
                                               test::random_csr<double>(50, 90, 5, 52));
}

TEST(CpuSpgemm, PlusTimesFloat) {
  check_variants<opsparse::plus_times<float>>(test::random_csr<float>(70, 50, 5, 53),
                                              test::random_csr<float>(50, 90, 5, 54));
}

TEST(CpuSpgemm, PlusTimesInt64) {
  check_variants<opsparse::plus_times<std::int64_t>>(random_int<std::int64_t>(70, 50, 6, 55),
                                                     random_int<std::int64_t>(50, 90, 6, 56));
}

TEST(CpuSpgemm, PlusTimesMixedInputTypes) {
  // double x int32 inputs into an int64-free double result: VA and VB need not match.
  check_variants<opsparse::plus_times<double>>(test::random_csr<double>(30, 40, 4, 57),
                                               random_int<std::int32_t>(40, 30, 4, 58));
}

TEST(CpuSpgemm, PlusPairOverPatterns) {
  const auto a = test::random_csr<pattern>(80, 60, 6, 61);
  const auto b = test::random_csr<pattern>(60, 70, 6, 62);
  check_variants<opsparse::plus_pair<std::int64_t>>(a, b);
  // Every product counts 1, so the values sum to the number of products.
  const auto c = cpu::spgemm<opsparse::plus_pair<std::int64_t>>(a, b);
  std::int64_t sum = 0;
  for (auto v : c.val) sum += v;
  EXPECT_EQ(sum, cpu::count_products(a, b));
}

TEST(CpuSpgemm, AnyPairOverPatterns) {
  const auto a = test::random_csr<pattern>(80, 60, 6, 63);
  const auto b = test::random_csr<pattern>(60, 70, 6, 64);
  check_variants<opsparse::any_pair>(a, b);
  // Same structure as any numeric product with positive values.
  const auto c = cpu::spgemm<opsparse::any_pair>(a, b);
  const auto d = cpu::spgemm<opsparse::plus_times<double>>(opsparse::convert<double>(a),
                                                           opsparse::convert<double>(b));
  EXPECT_EQ(c.rpt, d.rpt);
  EXPECT_EQ(c.col, d.col);
}

TEST(CpuSpgemm, OrAndInt) {
  const auto a = with_values<int>(test::random_csr<pattern>(60, 50, 5, 65),
                                  [](std::size_t k) { return static_cast<int>(k % 3 != 0); });
  const auto b = with_values<int>(test::random_csr<pattern>(50, 40, 5, 66),
                                  [](std::size_t k) { return static_cast<int>(k % 4 != 1); });
  check_variants<opsparse::or_and<int>>(a, b);
  for (int v : cpu::spgemm<opsparse::or_and<int>>(a, b).val) EXPECT_TRUE(v == 0 || v == 1);
}

TEST(CpuSpgemm, MinPlusDouble) {
  const auto a = test::random_csr<double>(60, 50, 5, 67);
  const auto b = test::random_csr<double>(50, 70, 5, 68);
  check_variants<opsparse::min_plus<double>>(a, b);
  // min over k of a(i,k) + b(k,j), checked by hand for one row.
  const auto c = cpu::spgemm<opsparse::min_plus<double>>(a, b);
  for (index_t i = 0; i < 3; ++i)
    for (offset_t p = c.rpt[i]; p < c.rpt[i + 1]; ++p) {
      double best = INFINITY;
      for (offset_t ka = a.rpt[i]; ka < a.rpt[i + 1]; ++ka)
        for (offset_t kb = b.rpt[a.col[ka]]; kb < b.rpt[a.col[ka] + 1]; ++kb)
          if (b.col[kb] == c.col[p]) best = std::min(best, a.val[ka] + b.val[kb]);
      EXPECT_EQ(c.val[p], best);
    }
}

TEST(CpuSpgemm, UserDefinedMaxTimes) {
  const auto a = test::random_csr<double>(50, 40, 5, 69);
  const auto b = test::random_csr<double>(40, 45, 5, 70);
  check_variants<max_times>(a, b);
  // Independently: dense max over k of a(i,k) * b(k,j).
  std::vector<double> best(50 * 45, -INFINITY);
  for (index_t i = 0; i < 50; ++i)
    for (offset_t ka = a.rpt[i]; ka < a.rpt[i + 1]; ++ka)
      for (offset_t kb = b.rpt[a.col[ka]]; kb < b.rpt[a.col[ka] + 1]; ++kb)
        best[i * 45 + b.col[kb]] = std::max(best[i * 45 + b.col[kb]], a.val[ka] * b.val[kb]);
  const auto c = cpu::spgemm<max_times>(a, b);
  offset_t entries = 0;
  for (double v : best) entries += v != -INFINITY;
  EXPECT_EQ(c.nnz(), entries);
  for (index_t i = 0; i < 50; ++i)
    for (offset_t p = c.rpt[i]; p < c.rpt[i + 1]; ++p) EXPECT_EQ(c.val[p], best[i * 45 + c.col[p]]);
}

// ---------------------------------------------------------------------------------------------
// Masks

TEST(CpuSpgemm, StructuralMask) {
  const auto a = test::random_csr<double>(90, 60, 6, 81);
  const auto b = test::random_csr<double>(60, 70, 6, 82);
  for (double density : {0.5, 5.0, 40.0}) {  // sparse, medium, nearly full mask rows
    const auto m = test::random_csr<pattern>(90, 70, density, 83);
    const auto mask = cpu::host_mask<opsparse::structural_mask>(m);
    check_variants<opsparse::plus_times<double>>(a, b, mask, &m);
    check_variants<opsparse::any_pair>(opsparse::convert<pattern>(a), opsparse::convert<pattern>(b),
                                       mask, &m);
    // C<M> is exactly the part of the unmasked C inside M.
    const auto full = cpu::spgemm<opsparse::plus_times<double>>(a, b);
    const auto c = cpu::spgemm<opsparse::plus_times<double>>(a, b, mask);
    offset_t inside = 0;
    for (index_t i = 0; i < 90; ++i)
      for (offset_t p = full.rpt[i]; p < full.rpt[i + 1]; ++p) inside += in_row(m, i, full.col[p]);
    EXPECT_EQ(c.nnz(), inside);
  }
}

TEST(CpuSpgemm, ComplementMask) {
  const auto a = test::random_csr<double>(90, 60, 6, 84);
  const auto b = test::random_csr<double>(60, 70, 6, 85);
  for (double density : {0.5, 5.0, 40.0}) {
    const auto m = test::random_csr<pattern>(90, 70, density, 86);
    const auto mask = cpu::host_mask<opsparse::complement_mask>(m);
    check_variants<opsparse::plus_times<double>>(a, b, mask, &m);
    check_variants<opsparse::plus_pair<std::int64_t>>(opsparse::convert<pattern>(a),
                                                      opsparse::convert<pattern>(b), mask, &m);
    // C<M> and C<¬M> split the unmasked C.
    const auto in = cpu::spgemm<opsparse::plus_times<double>>(
        a, b, cpu::host_mask<opsparse::structural_mask>(m));
    const auto out = cpu::spgemm<opsparse::plus_times<double>>(a, b, mask);
    EXPECT_EQ(in.nnz() + out.nnz(), cpu::spgemm<opsparse::plus_times<double>>(a, b).nnz());
  }
}

TEST(CpuSpgemm, StructuralMaskOverLongRowsOfB) {
  // B rows of about 60 entries, walked only within each mask row's columns when B is sorted:
  // mask rows in narrow windows (both ends of the B rows cut), single columns, and the whole
  // width; the same with B's rows shuffled, which must be walked whole.
  const auto a = test::random_csr<double>(200, 300, 4, 90);
  const auto b = test::random_csr<double>(300, 2000, 60, 91);
  host_csr<pattern> m(200, 2000);
  std::mt19937_64 rng(92);
  for (index_t i = 0; i < 200; ++i) {
    const index_t width = i % 3 == 0 ? 2000 : i % 3 == 1 ? 1 : 150;
    const index_t first = static_cast<index_t>(rng() % (2001 - width));
    for (index_t j = first; j < first + width; ++j)
      if (width == 1 || rng() % 4 == 0) m.col.push_back(j);
    m.rpt[i + 1] = static_cast<offset_t>(m.col.size());
  }
  const auto mask = cpu::host_mask<opsparse::structural_mask>(m);
  check_variants<opsparse::plus_times<double>>(a, b, mask, &m);
  check_variants<opsparse::plus_pair<std::int64_t>>(opsparse::convert<pattern>(a),
                                                    opsparse::convert<pattern>(b), mask, &m);
  host_csr<double> shuffled = b;
  for (index_t k = 0; k < b.rows; ++k) {
    std::vector<offset_t> perm(static_cast<std::size_t>(b.rpt[k + 1] - b.rpt[k]));
    std::iota(perm.begin(), perm.end(), b.rpt[k]);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (std::size_t t = 0; t < perm.size(); ++t) {
      shuffled.col[b.rpt[k] + t] = b.col[perm[t]];
      shuffled.val[b.rpt[k] + t] = b.val[perm[t]];
    }
  }
  check_variants<opsparse::plus_times<double>>(a, shuffled, mask, &m);
}

/// cpu::spgemm_reduce against the formed C<M>: every row's sum and the total, with both
/// accumulators and one thread or the default (the same bits either way).
template <class S, class VA, class VB>
void check_reduce(const host_csr<VA>& a, const host_csr<VB>& b, const host_csr<pattern>& m) {
  using T = typename S::value_type;
  const auto mask = cpu::host_mask<opsparse::structural_mask>(m);
  const auto c = cpu::spgemm<S>(a, b, mask);
  std::vector<T> want(static_cast<std::size_t>(a.rows), S::identity());
  T want_total = S::identity();
  for (index_t i = 0; i < a.rows; ++i) {
    for (offset_t p = c.rpt[i]; p < c.rpt[i + 1]; ++p) want[i] = S::add(want[i], c.val[p]);
    want_total = S::add(want_total, want[i]);
  }
  const double rel = tolerance<T>();
  for (auto kind : {cpu::accumulator_kind::automatic, cpu::accumulator_kind::dense,
                    cpu::accumulator_kind::hash}) {
    cpu::options o;
    o.accumulator = kind;
    std::vector<T> got(static_cast<std::size_t>(a.rows));
    const T total = cpu::spgemm_reduce<S>(a, b, mask, got.data(), o);
    auto near = [rel](T x, T y) {  // (min_plus: an empty row's +inf on both sides)
      return x == y || std::abs(static_cast<double>(x) - static_cast<double>(y)) <=
                           rel * (1 + std::abs(static_cast<double>(y)));
    };
    for (index_t i = 0; i < a.rows; ++i)
      ASSERT_TRUE(near(got[i], want[i])) << "row " << i << ": " << got[i] << " against " << want[i]
                                         << ", accumulator " << static_cast<int>(kind);
    EXPECT_TRUE(near(total, want_total)) << total << " against " << want_total;
    o.threads = 1;
    EXPECT_EQ(cpu::spgemm_reduce<S>(a, b, mask, nullptr, o), total) << "threads=1";
  }
}

TEST(CpuSpgemm, ReduceOfMaskedProduct) {
  using i64 = std::int64_t;
  const auto a = test::random_csr<double>(200, 300, 6, 93);
  const auto b = test::random_csr<double>(300, 250, 8, 94);
  for (double density : {0.5, 5.0, 60.0}) {
    const auto m = test::random_csr<pattern>(200, 250, density, 95);
    check_reduce<opsparse::plus_times<double>>(a, b, m);
    check_reduce<opsparse::plus_pair<i64>>(opsparse::convert<pattern>(a),
                                           opsparse::convert<pattern>(b), m);
    check_reduce<opsparse::min_plus<double>>(a, b, m);
  }
  // Triangles: sum(C<L> = L·L) on a small graph with two triangles (K4 less one edge).
  host_csr<pattern> l(4, 4);
  l.col = {0, 0, 1, 1, 2};
  l.rpt = {0, 0, 1, 3, 5};
  EXPECT_EQ(cpu::spgemm_reduce<opsparse::plus_pair<i64>>(
                l, l, cpu::host_mask<opsparse::structural_mask>(l)),
            2);
  // Empty operands, empty mask rows, and a mask of the wrong shape.
  const host_csr<pattern> none(200, 250);
  check_reduce<opsparse::plus_times<double>>(a, b, none);
  check_reduce<opsparse::plus_times<double>>(host_csr<double>(0, 300), b,
                                             host_csr<pattern>(0, 250));
  EXPECT_THROW(cpu::spgemm_reduce<opsparse::plus_times<double>>(
                   a, b, cpu::host_mask<opsparse::structural_mask>(host_csr<pattern>(200, 249))),
               std::invalid_argument);
}

TEST(CpuSpgemm, MaskSearchPath) {
  // One product per row against long mask rows: membership is looked up in the mask row rather
  // than marked into the accumulator. Both kinds of mask must still agree with the reference.
  const auto a = test::random_csr<double>(50, 400, 1, 87);
  const auto b = test::random_csr<double>(400, 300, 1, 88);
  const auto m = test::random_csr<pattern>(50, 300, 150, 89);
  check_variants<opsparse::plus_times<double>>(a, b, cpu::host_mask<opsparse::structural_mask>(m),
                                               &m);
  check_variants<opsparse::plus_times<double>>(a, b, cpu::host_mask<opsparse::complement_mask>(m),
                                               &m);
}

TEST(CpuSpgemm, EmptyAndRectangularMasks) {
  const auto a = test::random_csr<double>(20, 30, 4, 90);
  const auto b = test::random_csr<double>(30, 10, 4, 91);
  const host_csr<pattern> none(20, 10);
  EXPECT_EQ(cpu::spgemm<opsparse::plus_times<double>>(
                a, b, cpu::host_mask<opsparse::structural_mask>(none))
                .nnz(),
            0);
  EXPECT_TRUE(identical(cpu::spgemm<opsparse::plus_times<double>>(
                            a, b, cpu::host_mask<opsparse::complement_mask>(none)),
                        cpu::spgemm<opsparse::plus_times<double>>(a, b)));
  // A valued matrix works as a mask too: only its structure counts.
  const auto mv = test::random_csr<double>(20, 10, 3, 92);
  const auto mp = opsparse::convert<pattern>(mv);
  check_variants<opsparse::plus_times<double>>(a, b, cpu::host_mask<opsparse::structural_mask>(mv),
                                               &mp);
}

TEST(CpuSpgemm, DimensionMismatchThrows) {
  const auto a = test::random_csr<double>(3, 4, 2, 93);
  const auto b = test::random_csr<double>(4, 5, 2, 94);
  using S = opsparse::plus_times<double>;
  EXPECT_THROW(cpu::spgemm<S>(a, a), std::invalid_argument);  // 3x4 · 3x4
  EXPECT_THROW(cpu::count_products(a, a), std::invalid_argument);
  const host_csr<pattern> wrong_cols(3, 4), wrong_rows(4, 5), right(3, 5);
  EXPECT_THROW(cpu::spgemm<S>(a, b, cpu::host_mask<opsparse::structural_mask>(wrong_cols)),
               std::invalid_argument);
  EXPECT_THROW(cpu::spgemm<S>(a, b, cpu::host_mask<opsparse::complement_mask>(wrong_rows)),
               std::invalid_argument);
  EXPECT_NO_THROW(cpu::spgemm<S>(a, b, cpu::host_mask<opsparse::structural_mask>(right)));
}

TEST(CpuSpgemm, MalformedOperandThrows) {
  // The dense accumulator indexes by column: a bad column must be an exception, not a write out
  // of bounds.
  auto a = test::random_csr<double>(3, 4, 2, 95);
  auto b = test::random_csr<double>(4, 5, 2, 96);
  ASSERT_GT(b.nnz(), 0);
  b.col[0] = 7;
  EXPECT_THROW(cpu::spgemm<opsparse::plus_times<double>>(a, b), std::invalid_argument);
  b = test::random_csr<double>(4, 5, 2, 96);
  b.val.pop_back();
  EXPECT_THROW(cpu::spgemm<opsparse::plus_times<double>>(a, b), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Options, accumulators, counts

TEST(CpuSpgemm, ThreadsOneMatchesDefaultExactly) {
  const auto a = test::random_csr<double>(500, 300, 10, 101);
  const auto b = test::random_csr<double>(300, 400, 10, 102);
  cpu::options one;
  one.threads = 1;
  cpu::options three;
  three.threads = 3;
  using S = opsparse::plus_times<double>;
  const auto c = cpu::spgemm<S>(a, b);
  EXPECT_TRUE(identical(cpu::spgemm<S>(a, b, {}, one), c));
  EXPECT_TRUE(identical(cpu::spgemm<S>(a, b, {}, three), c));
}

TEST(CpuSpgemm, UnsortedHasSameEntries) {
  const auto a = test::random_csr<double>(200, 150, 8, 103);
  const auto b = test::random_csr<double>(150, 180, 8, 104);
  cpu::options o;
  o.sorted = false;
  using S = opsparse::plus_times<double>;
  const auto c = cpu::spgemm<S>(a, b);
  const auto u = cpu::spgemm<S>(a, b, {}, o);
  EXPECT_EQ(u.rpt, c.rpt);
  EXPECT_TRUE(identical(sort_rows(u), c));
}

TEST(CpuSpgemm, WideMatrixUsesHashAutomatically) {
  // 3M columns but a few hundred products: a dense array per thread would be wasted.
  const index_t wide = 3'000'000;
  EXPECT_FALSE(cpu::prefer_dense_accumulator(wide, 1000, 2));
  EXPECT_TRUE(cpu::prefer_dense_accumulator(1000, 10, 2));
  EXPECT_TRUE(cpu::prefer_dense_accumulator(wide, offset_t{wide} * 4, 2));
  const auto a = test::random_csr<double>(60, 80, 4, 105);
  const auto b = test::random_csr<double>(80, wide, 3, 106);
  check_variants<opsparse::plus_times<double>>(a, b);
}

TEST(CpuSpgemm, CountProducts) {
  const auto a = test::random_csr<pattern>(120, 90, 6, 107);
  const auto b = test::random_csr<double>(90, 70, 5, 108);
  offset_t expected = 0;
  std::vector<offset_t> per_row(120, 0);
  for (index_t i = 0; i < a.rows; ++i)
    for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p)
      per_row[i] += b.rpt[a.col[p] + 1] - b.rpt[a.col[p]];
  for (offset_t r : per_row) expected += r;
  static_assert(std::is_same_v<decltype(cpu::count_products(a, b)), offset_t>);
  EXPECT_EQ(cpu::count_products(a, b), expected);
  EXPECT_EQ(cpu::row_products(a, b), per_row);
}

}  // namespace
