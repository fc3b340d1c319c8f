// The GPU graph operations (opsparse/graph_ops.cuh) against their CPU twins
// (opsparse/cpu/graph_ops.hpp): the same matrices, vectors and scalars, on empty, rectangular,
// square and skewed shapes, patterns and values.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "opsparse/cpu/graph_ops.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/graph_ops.cuh"
#include "test_support.hpp"

namespace {

using namespace opsparse;

struct shape {
  index_t rows, cols;
  double per_row;
};
/// Empty, without rows, without columns, rectangular both ways, square sparse, square with
/// rows longer than a warp, and a few rows of thousands of entries (the reductions' long-row
/// kernels, as BFS's per-source rows take them).
const shape shapes[] = {{0, 0, 0},    {0, 7, 0},     {9, 0, 0},      {7, 3, 2},      {40, 300, 12},
                        {300, 40, 5}, {500, 500, 3}, {200, 200, 60}, {5, 9000, 3000}};

template <class V>
host_csr<V> matrix(const shape& s, std::uint64_t seed) {
  return opsparse::test::random_csr<V>(s.rows, s.cols, s.per_row, seed);
}

template <class T>
std::vector<T> download(const T* d, std::size_t n, context& ctx) {
  std::vector<T> h(n);
  ctx.synchronize();
  if (n) OPSPARSE_CUDA_TRY(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
template <class T>
device_buffer<T> upload(const std::vector<T>& h) {
  device_buffer<T> d(std::max<std::size_t>(1, h.size()));
  if (!h.empty())
    OPSPARSE_CUDA_TRY(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class V>
::testing::AssertionResult same(const host_csr<V>& gpu, const host_csr<V>& cpu) {
  if (gpu.rows != cpu.rows || gpu.cols != cpu.cols)
    return ::testing::AssertionFailure()
           << "shape " << gpu.rows << "x" << gpu.cols << " vs " << cpu.rows << "x" << cpu.cols;
  if (gpu.rpt != cpu.rpt) return ::testing::AssertionFailure() << "row pointers differ";
  if (gpu.col != cpu.col) return ::testing::AssertionFailure() << "columns differ";
  if constexpr (has_values_v<V>)
    if (gpu.val != cpu.val) return ::testing::AssertionFailure() << "values differ";
  return ::testing::AssertionSuccess();
}

template <class T>
::testing::AssertionResult near(const std::vector<T>& gpu, const std::vector<T>& cpu) {
  if (gpu.size() != cpu.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    const double x = static_cast<double>(gpu[i]), y = static_cast<double>(cpu[i]);
    if (std::abs(x - y) > 1e-12 * std::max({std::abs(x), std::abs(y), 1.0}))
      return ::testing::AssertionFailure() << "entry " << i << ": " << x << " vs " << y;
  }
  return ::testing::AssertionSuccess();
}

std::vector<index_t> random_permutation(index_t n, std::uint64_t seed) {
  std::vector<index_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

class GraphOps : public ::testing::Test {
 protected:
  void SetUp() override { OPSPARSE_SKIP_WITHOUT_GPU(); }
};

template <class V>
void check_transpose(context& ctx, const shape& s, std::uint64_t seed) {
  const auto a = matrix<V>(s, seed);
  const auto da = device_csr<V>::upload(a, ctx.stream());
  device_csr<V> at;
  transpose(ctx, da.view(), at);
  EXPECT_TRUE(same(at.download(ctx.stream()), cpu::transpose(a))) << s.rows << "x" << s.cols;
}

TEST_F(GraphOps, TransposeEqualsTheCpu) {
  context ctx;
  std::uint64_t seed = 1;
  for (const shape& s : shapes) {
    check_transpose<double>(ctx, s, seed++);
    check_transpose<pattern>(ctx, s, seed++);
  }
}

template <class V, class Keep>
void check_select(context& ctx, const host_csr<V>& a, Keep keep, const char* what) {
  const auto da = device_csr<V>::upload(a, ctx.stream());
  device_csr<V> out;
  select(ctx, da.view(), keep, out);
  EXPECT_TRUE(same(out.download(ctx.stream()), cpu::select(a, keep)))
      << what << " on " << a.rows << "x" << a.cols;
}

TEST_F(GraphOps, SelectEqualsTheCpu) {
  context ctx;
  std::uint64_t seed = 100;
  for (const shape& s : shapes) {
    const auto a = matrix<double>(s, seed++);
    const auto p = matrix<pattern>(s, seed++);
    check_select(ctx, a, lower_triangle{-1}, "tril(A,-1)");
    check_select(ctx, a, upper_triangle{1}, "triu(A,1)");
    check_select(ctx, p, lower_triangle{0}, "tril(P)");
    check_select(ctx, p, upper_triangle{-2}, "triu(P,-2)");
    check_select(ctx, p, off_diagonal{}, "offdiag(P)");
    check_select(ctx, a, value_at_least{1.0}, "A >= 1");
    // by mask: a second matrix of the same shape, structural and complemented
    const auto m = matrix<pattern>(s, seed++);
    const auto dm = device_csr<pattern>::upload(m, ctx.stream());
    const auto da = device_csr<double>::upload(a, ctx.stream());
    for (int complemented = 0; complemented < 2; ++complemented) {
      device_csr<double> out;
      host_csr<double> want;
      if (complemented) {
        select(ctx, da.view(), in_mask<complement_mask>{device_mask<complement_mask>(dm)}, out);
        want = cpu::select(a, in_mask<complement_mask>{make_mask<complement_mask>(
                                  m.rows, m.cols, m.rpt.data(), m.col.data())});
      } else {
        select(ctx, da.view(), in_mask<structural_mask>{device_mask<structural_mask>(dm)}, out);
        want = cpu::select(a, in_mask<structural_mask>{make_mask<structural_mask>(
                                  m.rows, m.cols, m.rpt.data(), m.col.data())});
      }
      EXPECT_TRUE(same(out.download(ctx.stream()), want)) << "mask " << complemented;
    }
  }
}

TEST_F(GraphOps, PermuteEqualsTheCpu) {
  context ctx;
  std::uint64_t seed = 200;
  for (const shape& s : shapes) {
    const auto a = matrix<double>(s, seed++);
    const auto rows = random_permutation(s.rows, seed++);
    const auto cols = random_permutation(s.cols, seed++);
    const auto da = device_csr<double>::upload(a, ctx.stream());
    auto d_rows = upload(rows);
    auto d_cols = upload(cols);
    device_csr<double> out;
    permute(ctx, da.view(), s.rows, d_rows.data(), static_cast<const index_t*>(nullptr), out);
    EXPECT_TRUE(same(out.download(ctx.stream()), cpu::permute(a, rows, nullptr))) << "rows only";
    permute(ctx, da.view(), s.rows, d_rows.data(), d_cols.data(), out);
    EXPECT_TRUE(same(out.download(ctx.stream()), cpu::permute(a, rows, &cols)))
        << "rows and columns";
    // fewer rows than A: the first half of the order
    const index_t half = s.rows / 2;
    const std::vector<index_t> some(rows.begin(), rows.begin() + half);
    permute(ctx, da.view(), half, d_rows.data(), d_cols.data(), out);
    EXPECT_TRUE(same(out.download(ctx.stream()), cpu::permute(a, some, &cols))) << "half the rows";
  }
}

TEST_F(GraphOps, ReductionsEqualTheCpu) {
  context ctx;
  std::uint64_t seed = 300;
  for (const shape& s : shapes) {
    const auto a = matrix<double>(s, seed++);
    const auto da = device_csr<double>::upload(a, ctx.stream());
    device_buffer<double> d_rows(std::max<index_t>(1, s.rows)),
        d_cols(std::max<index_t>(1, s.cols));
    device_buffer<long long> d_count(std::max<index_t>(1, s.rows)),
        d_ccount(std::max<index_t>(1, s.cols));
    std::vector<double> h;
    std::vector<long long> hc;

    reduce_rows<plus_monoid<double>>(ctx, da.view(), value_as<double>{}, d_rows.data());
    cpu::reduce_rows<plus_monoid<double>>(a, value_as<double>{}, h);
    EXPECT_TRUE(near(download(d_rows.data(), s.rows, ctx), h)) << "row sums";
    reduce_rows<max_monoid<double>>(ctx, da.view(), value_as<double>{}, d_rows.data());
    cpu::reduce_rows<max_monoid<double>>(a, value_as<double>{}, h);
    EXPECT_TRUE(near(download(d_rows.data(), s.rows, ctx), h)) << "row maxima";
    reduce_rows<plus_monoid<long long>>(ctx, da.view(), count_one<long long>{}, d_count.data());
    cpu::reduce_rows<plus_monoid<long long>>(a, count_one<long long>{}, hc);
    EXPECT_EQ(download(d_count.data(), s.rows, ctx), hc) << "row counts";
    // accumulate: a second pass adds the same again
    reduce_rows<plus_monoid<long long>>(ctx, da.view(), count_one<long long>{}, d_count.data(),
                                        true);
    cpu::reduce_rows<plus_monoid<long long>>(a, count_one<long long>{}, hc, true);
    EXPECT_EQ(download(d_count.data(), s.rows, ctx), hc) << "row counts accumulated";

    reduce_cols<plus_monoid<double>>(ctx, da.view(), value_as<double>{}, d_cols.data());
    cpu::reduce_cols<plus_monoid<double>>(a, value_as<double>{}, h);
    EXPECT_TRUE(near(download(d_cols.data(), s.cols, ctx), h)) << "column sums";
    reduce_cols<min_monoid<double>>(ctx, da.view(), value_as<double>{}, d_cols.data());
    cpu::reduce_cols<min_monoid<double>>(a, value_as<double>{}, h);
    EXPECT_TRUE(near(download(d_cols.data(), s.cols, ctx), h)) << "column minima";
    reduce_cols<plus_monoid<long long>>(ctx, da.view(), count_one<long long>{}, d_ccount.data());
    cpu::reduce_cols<plus_monoid<long long>>(a, count_one<long long>{}, hc);
    EXPECT_EQ(download(d_ccount.data(), s.cols, ctx), hc) << "column counts";

    const double total = reduce<plus_monoid<double>>(ctx, da.view(), value_as<double>{});
    const double want = cpu::reduce<plus_monoid<double>>(a, value_as<double>{});
    EXPECT_NEAR(total, want, 1e-12 * std::max(1.0, want));
    EXPECT_EQ((reduce<plus_monoid<long long>>(ctx, da.view(), count_one<long long>{})), a.nnz());
    EXPECT_EQ((reduce<max_monoid<double>>(ctx, da.view(), value_as<double>{})),
              (cpu::reduce<max_monoid<double>>(a, value_as<double>{})));
  }
}

TEST_F(GraphOps, ApplySortAndRowProductsEqualTheCpu) {
  context ctx;
  std::uint64_t seed = 400;
  for (const shape& s : shapes) {
    auto a = matrix<double>(s, seed++);
    auto da = device_csr<double>::upload(a, ctx.stream());
    // CUDA's pow is within 2 ulp of the correctly rounded power, glibc's within 1: values near
    apply(ctx, da, power{2.5});
    cpu::apply(a, power{2.5});
    EXPECT_TRUE(opsparse::test::csr_near(da.download(ctx.stream()), a, 1e-15)) << "power 2.5";
    a = da.download(ctx.stream());  // the device's powers from here on: the rest is exact
    apply(ctx, da, scale_by{0.25});
    cpu::apply(a, scale_by{0.25});
    EXPECT_TRUE(same(da.download(ctx.stream()), a)) << "scale";

    // rows shuffled on the host, sorted on the device
    host_csr<double> shuffled = a;
    std::mt19937_64 rng(seed++);
    for (index_t i = 0; i < a.rows; ++i) {
      std::vector<std::size_t> idx(static_cast<std::size_t>(a.rpt[i + 1] - a.rpt[i]));
      std::iota(idx.begin(), idx.end(), static_cast<std::size_t>(a.rpt[i]));
      std::shuffle(idx.begin(), idx.end(), rng);
      for (std::size_t k = 0; k < idx.size(); ++k) {
        shuffled.col[a.rpt[i] + k] = a.col[idx[k]];
        shuffled.val[a.rpt[i] + k] = a.val[idx[k]];
      }
    }
    auto ds = device_csr<double>::upload(shuffled, ctx.stream());
    sort_rows(ctx, ds);
    cpu::sort_rows(shuffled);
    EXPECT_TRUE(same(ds.download(ctx.stream()), shuffled)) << "sort_rows";
    EXPECT_TRUE(same(shuffled, a)) << "sorting the shuffled rows gives A back";

    // products per row of A·B with B of A.cols rows
    const auto b = matrix<pattern>({s.cols, 50, 4}, seed++);
    const auto db = device_csr<pattern>::upload(b, ctx.stream());
    device_buffer<offset_t> d_prod(std::max<index_t>(1, s.rows));
    row_products(ctx, da.view(), db.view(), d_prod.data());
    EXPECT_EQ(download(d_prod.data(), s.rows, ctx), cpu::row_products(a, b));
  }
}

TEST_F(GraphOps, OrdersAndVectorsEqualTheCpu) {
  context ctx;
  std::uint64_t seed = 500;
  for (const shape& s : shapes) {
    const auto a = matrix<pattern>(s, seed++);
    const auto da = device_csr<pattern>::upload(a, ctx.stream());
    device_buffer<index_t> d_order(std::max<index_t>(1, s.rows)),
        d_inv(std::max<index_t>(1, s.rows));
    for (bool ascending : {true, false}) {
      degree_order(ctx, da.view(), ascending, d_order.data());
      EXPECT_EQ(download(d_order.data(), s.rows, ctx), cpu::degree_order(a, ascending))
          << ascending;
    }
    for (offset_t length : {offset_t{0}, offset_t{3}, offset_t{1} << 40}) {
      const std::vector<index_t> want = cpu::rows_longer_than(a, length);
      const index_t got = rows_longer_than(ctx, da.view(), length, d_order.data());
      ASSERT_EQ(static_cast<std::size_t>(got), want.size()) << "length " << length;
      EXPECT_EQ(download(d_order.data(), got, ctx), want) << "length " << length;
    }
    const auto perm = random_permutation(s.rows, seed++);
    auto d_perm = upload(perm);
    invert_permutation(ctx, d_perm.data(), s.rows, d_inv.data());
    EXPECT_EQ(download(d_inv.data(), s.rows, ctx), cpu::invert_permutation(perm));
    std::vector<long long> src(static_cast<std::size_t>(s.rows));
    std::iota(src.begin(), src.end(), 1000);
    auto d_src = upload(src);
    device_buffer<long long> d_out(std::max<index_t>(1, s.rows));
    gather(ctx, d_src.data(), d_perm.data(), s.rows, d_out.data());
    EXPECT_EQ(download(d_out.data(), s.rows, ctx), cpu::gather(src, perm));
  }
}

TEST_F(GraphOps, UnionEqualsTheCpu) {
  context ctx;
  std::uint64_t seed = 600;
  for (const shape& s : shapes) {
    const auto a = matrix<double>(s, seed++);
    const auto b = matrix<double>(s, seed++);
    const auto da = device_csr<double>::upload(a, ctx.stream());
    const auto db = device_csr<double>::upload(b, ctx.stream());
    device_csr<double> out;
    ewise_add(ctx, da.view(), db.view(), union_with<plus_monoid<double>>{}, out);
    EXPECT_TRUE(
        same(out.download(ctx.stream()), cpu::ewise_add(a, b, union_with<plus_monoid<double>>{})))
        << "A + B";
    ewise_add(ctx, da.view(), da.view(), union_with<max_monoid<double>>{}, out);
    EXPECT_TRUE(same(out.download(ctx.stream()), a)) << "max(A, A) = A";
    // BFS's merge: levels ∪ a pattern frontier outside them, the frontier's entries at level 7
    host_csr<int> levels = convert<int>(a);
    for (auto& v : levels.val) v = 3;
    const auto front =
        cpu::select(matrix<pattern>(s, seed++), in_mask<complement_mask>{make_mask<complement_mask>(
                                                    a.rows, a.cols, a.rpt.data(), a.col.data())});
    const auto dl = device_csr<int>::upload(levels, ctx.stream());
    const auto df = device_csr<pattern>::upload(front, ctx.stream());
    device_csr<int> merged;
    const auto want = cpu::ewise_add(levels, front, union_fill<int>{7});
    for (bool disjoint : {false, true}) {
      ewise_add(ctx, dl.view(), df.view(), union_fill<int>{7}, merged, disjoint);
      EXPECT_TRUE(same(merged.download(ctx.stream()), want)) << "disjoint " << disjoint;
    }
  }
}

TEST_F(GraphOps, MisuseThrows) {
  context ctx;
  const auto a = matrix<double>({5, 4, 2}, 1);
  const auto da = device_csr<double>::upload(a, ctx.stream());
  device_buffer<offset_t> d(8);
  EXPECT_THROW(row_products(ctx, da.view(), da.view(), d.data()), std::invalid_argument);
  device_csr<double> out;
  const auto b = matrix<double>({4, 5, 2}, 2);
  const auto db = device_csr<double>::upload(b, ctx.stream());
  EXPECT_THROW(ewise_add(ctx, da.view(), db.view(), union_with<plus_monoid<double>>{}, out),
               std::invalid_argument);
}

TEST_F(GraphOps, GrowingKeepsTheEntries) {
  context ctx;
  const auto a = matrix<double>({50, 60, 6}, 9);
  auto d = device_csr<double>::upload(a, ctx.stream());
  const auto cap = d.nnz_capacity();
  d.grow_nnz(static_cast<offset_t>(cap) * 3 + 5, ctx.memory(), ctx.stream());
  EXPECT_GE(d.nnz_capacity(), cap * 3 + 5);
  d.grow_nnz(a.nnz(), ctx.memory(), ctx.stream());
  EXPECT_TRUE(same(d.download(ctx.stream()), a));
}

}  // namespace
