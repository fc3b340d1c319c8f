// Sparse SUMMA (dist::spgemm) against the CPU engine on every grid shape of the world:
// rectangular matrices with empty rows and empty blocks, R-MAT power-law graphs, more ranks than
// rows, several memory phases, a user's local engine, and the failures that must reach every rank.
// Exact semirings (integers, plus-pair, patterns, integer-valued doubles) are compared exactly;
// plus-times over real values with a tight relative tolerance, since the stages' partial sums are
// added in another association than the CPU engine's single pass; summed in order (in_order),
// exactly.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "dist_support.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/distributed/spgemm.hpp"
#include "opsparse_datasets/generators.hpp"
#include "test_support.hpp"

namespace {

using opsparse::host_csr;
using opsparse::index_t;
using opsparse::offset_t;
using opsparse::pattern;
namespace cpu = opsparse::cpu;
namespace dist = opsparse::dist;
namespace test = opsparse::test;
using plus_times = opsparse::plus_times<double>;

/// m x n with about `per_row` entries a row, every fifth row empty, and no entries in the columns
/// [n/3, n/2) (so that some blocks of a wide grid are empty). Integer values 1..4 when `whole`.
host_csr<double> sparse(index_t m, index_t n, double per_row, std::uint64_t seed, bool whole) {
  const host_csr<double> a = test::random_csr(m, n, per_row, seed);
  host_csr<double> out(m, n);
  for (index_t i = 0; i < m; ++i) {
    for (offset_t k = a.rpt[i]; k < a.rpt[i + 1] && i % 5 != 4; ++k) {
      if (a.col[k] >= n / 3 && a.col[k] < n / 2) continue;
      out.col.push_back(a.col[k]);
      out.val.push_back(whole ? static_cast<double>(1 + (a.col[k] + i) % 4) : a.val[k]);
    }
    out.rpt[i + 1] = static_cast<offset_t>(out.col.size());
  }
  return out;
}

template <class V>
::testing::AssertionResult exactly_equal(const host_csr<V>& x, const host_csr<V>& y) {
  if (x.rows != y.rows || x.cols != y.cols)
    return ::testing::AssertionFailure()
           << "shape " << x.rows << "x" << x.cols << " vs " << y.rows << "x" << y.cols;
  if (x.rpt != y.rpt || x.col != y.col) return ::testing::AssertionFailure() << "structure differs";
  if constexpr (opsparse::has_values_v<V>)
    for (std::size_t k = 0; k < x.val.size(); ++k)
      if (!(x.val[k] == y.val[k]))
        return ::testing::AssertionFailure()
               << "entry " << k << ": " << x.val[k] << " vs " << y.val[k];
  return ::testing::AssertionSuccess();
}

/// gather(spgemm(scatter(a), scatter(b))) against cpu::spgemm(a, b) on every grid shape, exactly
/// when rel < 0, else within rel. Returns the info of the last shape.
template <class S, class VA, class VB, class Engine = dist::cpu_engine<S>>
dist::spgemm_info check_product(const host_csr<VA>& a, const host_csr<VB>& b, double rel,
                                dist::spgemm_options opt = {}, const Engine& engine = {}) {
  using T = typename S::value_type;
  const host_csr<T> want = test::world_rank() == 0 ? cpu::spgemm<S>(a, b) : host_csr<T>();
  dist::spgemm_info info;
  opt.info = &info;
  for (const auto s : test::all_shapes()) {
    const dist::grid g(MPI_COMM_WORLD, s.rows, s.cols);
    const auto da = dist::scatter(g, a), db = dist::scatter(g, b);
    const dist::dist_csr<T> dc = dist::spgemm<S>(g, da, db, opt, engine);
    EXPECT_EQ(opsparse::check(dc.block), "") << test::shape_name(g);
    EXPECT_EQ(dc.rows, a.rows);
    EXPECT_EQ(dc.cols, b.cols);
    if (s.rows == s.cols) EXPECT_EQ(info.stages, std::min<index_t>(s.rows, a.cols));
    EXPECT_LE(info.stages, s.rows + s.cols - 1);
    EXPECT_GE(info.products, dc.block.nnz());
    const host_csr<T> got = dist::gather(g, dc);
    if (g.rank() != 0) continue;
    if (rel < 0)
      EXPECT_TRUE(exactly_equal(got, want)) << test::shape_name(g);
    else
      EXPECT_TRUE(test::csr_near(got, want, rel)) << test::shape_name(g);
  }
  return info;
}

TEST(DistSpgemm, RectangularIntegerValuedExact) {
  const host_csr<double> a = sparse(37, 53, 5.0, 1, true), b = sparse(53, 29, 4.0, 2, true);
  // Integer values: every partial sum is exact, whatever the association.
  check_product<plus_times>(a, b, -1);
  check_product<opsparse::plus_times<long long>>(opsparse::convert<long long>(a),
                                                 opsparse::convert<long long>(b), -1);
}

TEST(DistSpgemm, RectangularRealValuesWithinTolerance) {
  const host_csr<double> a = sparse(37, 53, 5.0, 3, false), b = sparse(53, 29, 4.0, 4, false);
  check_product<plus_times>(a, b, 1e-14);
}

TEST(DistSpgemm, OtherSemiringsExact) {
  const host_csr<double> a = sparse(41, 30, 4.0, 5, true), b = sparse(30, 47, 4.0, 6, true);
  check_product<opsparse::plus_pair<long long>>(a, b, -1);
  check_product<opsparse::min_plus<double>>(a, b, -1);
  check_product<opsparse::any_pair>(opsparse::convert<pattern>(a), opsparse::convert<pattern>(b),
                                    -1);
}

TEST(DistSpgemm, PowerLawRmat) {
  // Graph500's R-MAT: a few rows with hundreds of entries, most with a handful.
  const host_csr<double> g = opsparse::datasets::rmat(8, 8.0, 0.57, 0.19, 0.19, 42);
  ASSERT_GT(g.nnz(), 1000);
  check_product<plus_times>(g, g, 1e-13);
  check_product<opsparse::plus_pair<long long>>(g, g, -1);
  // A power-law matrix times a rectangular one.
  check_product<plus_times>(g, sparse(256, 19, 3.0, 7, true), 1e-13);
}

TEST(DistSpgemm, ManyRows) {
  // 8192 rows: blocks of more than 4096 rows take the merge's OpenMP path.
  const host_csr<double> g = opsparse::datasets::rmat(13, 2.0, 0.57, 0.19, 0.19, 7);
  check_product<opsparse::plus_pair<long long>>(g, g, -1);
}

TEST(DistSpgemm, MoreRanksThanRows) {
  // 2x3 times 3x2: most blocks of four or six ranks are empty, in rows, columns or both.
  host_csr<double> a(2, 3), b(3, 2);
  a.rpt = {0, 2, 3};
  a.col = {0, 2, 1};
  a.val = {1, 2, 3};
  b.rpt = {0, 1, 2, 4};
  b.col = {1, 0, 0, 1};
  b.val = {4, 5, 6, 7};
  check_product<plus_times>(a, b, -1);
  // The inner dimension empty: no stage at all, an empty product.
  const dist::spgemm_info info =
      check_product<plus_times>(host_csr<double>(3, 0), host_csr<double>(0, 4), -1);
  EXPECT_EQ(info.stages, 0);
  EXPECT_EQ(info.products, 0);
}

TEST(DistSpgemm, SeveralMemoryPhases) {
  const host_csr<double> a = sparse(37, 53, 5.0, 8, true), b = sparse(53, 29, 4.0, 9, true);
  dist::spgemm_options opt;
  opt.memory_budget = 256;  // bytes: a few dozen products a phase
  const dist::spgemm_info info = check_product<plus_times>(a, b, -1, opt);
  EXPECT_GT(info.phases, 1);
  EXPECT_EQ(info.budget, 256u);
  EXPECT_GE(info.estimated_bytes, info.products * 2 * (sizeof(index_t) + sizeof(double)));
  EXPECT_TRUE(test::same_on_every_rank(info.phases));
  // More phases than a block has columns: some phases are empty.
  opt.memory_budget = 0;
  opt.phases = 40;
  EXPECT_EQ(check_product<plus_times>(a, b, -1, opt).phases, 40);
}

/// A user's local engine: the CPU engine, counting its calls (a GPU engine would upload, multiply
/// and download here).
struct counting_engine {
  std::atomic<int>* calls;
  host_csr<double> operator()(const host_csr<double>& a, const host_csr<double>& b) const {
    ++*calls;
    return cpu::spgemm<plus_times>(a, b);
  }
};

TEST(DistSpgemm, InOrderEqualsTheCpuEngineBitForBit) {
  // Real values, where the merge of partial sums differs in the last bits: summed in order, every
  // entry adds its products as cpu::spgemm does, on every shape, in one phase or many.
  const host_csr<double> g = opsparse::datasets::rmat(8, 8.0, 0.57, 0.19, 0.19, 43);
  const host_csr<double> a = sparse(37, 53, 5.0, 19, false), b = sparse(53, 29, 4.0, 20, false);
  dist::spgemm_options opt;
  opt.in_order = true;
  check_product<plus_times>(g, g, -1, opt);
  check_product<plus_times>(a, b, -1, opt);
  // Float cells summed in double (apps/mcl's iterates).
  check_product<plus_times>(opsparse::convert<float>(g), opsparse::convert<float>(g), -1, opt);
  opt.phases = 3;
  check_product<plus_times>(g, g, -1, opt);
  check_product<opsparse::plus_pair<long long>>(a, b, -1, opt);
  // An engine without accumulate cannot sum in order: refused on every rank.
  const dist::grid grid;
  const auto da = dist::scatter(grid, a), db = dist::scatter(grid, b);
  std::atomic<int> calls{0};
  EXPECT_THROW(dist::spgemm<plus_times>(grid, da, db, opt, counting_engine{&calls}),
               std::invalid_argument);
  EXPECT_EQ(calls.load(), 0);
}

/// spgemm_row_phases on every shape, its phases' blocks laid back in their rows, against
/// cpu::spgemm (exactly: integer values or in order). Checks what each phase holds.
template <class S>
dist::spgemm_info check_row_phases(const host_csr<double>& a, const host_csr<double>& b,
                                   dist::spgemm_options opt, int parts = 0) {
  using T = typename S::value_type;
  const host_csr<T> want = test::world_rank() == 0 ? cpu::spgemm<S>(a, b) : host_csr<T>();
  dist::spgemm_info info;
  opt.info = &info;
  for (const auto s : test::all_shapes()) {
    const dist::grid g(MPI_COMM_WORLD, s.rows, s.cols);
    const auto da = dist::scatter(g, a), db = dist::scatter(g, b);
    // Rows of this rank's block of C, filled by the phases.
    std::vector<host_csr<T>> rows(static_cast<std::size_t>(da.block.rows));
    std::vector<int> seen(rows.size(), 0);
    int calls = 0;
    dist::spgemm_row_phases<S>(
        g, da, db,
        [&](const dist::row_phase& rp, host_csr<T>&& block) {
          EXPECT_EQ(rp.phase, calls++);
          EXPECT_EQ(block.rows, rp.rows());
          EXPECT_EQ(block.cols, db.block.cols);
          EXPECT_EQ(opsparse::check(block), "");
          index_t at = 0;
          for (std::size_t d = 0; d < rp.begin.size(); ++d)
            for (index_t i = rp.begin[d]; i < rp.end[d]; ++i, ++at) {
              rows[i] = cpu::submatrix(block, at, at + 1, 0, block.cols);
              ++seen[i];
            }
        },
        opt, dist::cpu_engine<S>{}, parts);
    EXPECT_EQ(calls, info.phases);
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }))
        << "every row of the block exactly once, " << test::shape_name(g);
    dist::dist_csr<T> dc;
    dc.rows = a.rows;
    dc.cols = b.cols;
    dc.row_begin = da.row_begin;
    dc.col_begin = db.col_begin;
    dc.block = host_csr<T>(da.block.rows, db.block.cols);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      dc.block.col.insert(dc.block.col.end(), rows[i].col.begin(), rows[i].col.end());
      dc.block.val.insert(dc.block.val.end(), rows[i].val.begin(), rows[i].val.end());
      dc.block.rpt[i + 1] = static_cast<offset_t>(dc.block.col.size());
    }
    const host_csr<T> got = dist::gather(g, dc);
    if (g.rank() == 0) EXPECT_TRUE(exactly_equal(got, want)) << test::shape_name(g);
  }
  return info;
}

TEST(DistSpgemm, RowPhasesHandOverEveryRowOnce) {
  const host_csr<double> a = sparse(37, 53, 5.0, 21, true), b = sparse(53, 29, 4.0, 22, true);
  dist::spgemm_options opt;
  EXPECT_EQ(check_row_phases<plus_times>(a, b, opt).phases, 1);
  // A budget of a few dozen products a phase: many phases, the same on every rank.
  opt.memory_budget = 256;
  const dist::spgemm_info info = check_row_phases<plus_times>(a, b, opt);
  EXPECT_GT(info.phases, 1);
  EXPECT_TRUE(test::same_on_every_rank(info.phases));
  // Forced phases, more than a part has rows (empty slices), other part counts, in order.
  opt.memory_budget = 0;
  opt.phases = 5;
  EXPECT_EQ(check_row_phases<plus_times>(a, b, opt, 3).phases, 5);
  opt.in_order = true;
  const host_csr<double> r = sparse(37, 53, 5.0, 23, false), q = sparse(53, 29, 4.0, 24, false);
  check_row_phases<plus_times>(r, q, opt);
  check_row_phases<plus_times>(r, q, opt, 1);
  // At most a part's rows: 37 rows in one part allow 37 phases.
  opt.phases = 0;
  opt.memory_budget = 1;
  EXPECT_LE(check_row_phases<plus_times>(r, q, opt, 1).phases, 37);
}

TEST(DistSpgemm, RowPhaseSlicesCoverEachPart) {
  for (const index_t h : {0, 1, 7, 100})
    for (const int parts : {1, 2, 3, 8})
      for (const int phases : {1, 2, 5, 13}) {
        std::vector<index_t> next(static_cast<std::size_t>(parts));
        for (int d = 0; d < parts; ++d) next[d] = dist::split_point(h, parts, d);
        for (int p = 0; p < phases; ++p) {
          const dist::row_phase rp = dist::row_phase_of(h, parts, phases, p);
          ASSERT_EQ(rp.begin.size(), static_cast<std::size_t>(parts));
          for (int d = 0; d < parts; ++d) {
            EXPECT_EQ(rp.begin[d], next[d]) << "slices follow one another";
            EXPECT_LE(rp.begin[d], rp.end[d]);
            next[d] = rp.end[d];
          }
        }
        for (int d = 0; d < parts; ++d) EXPECT_EQ(next[d], dist::split_point(h, parts, d + 1));
      }
}

TEST(DistSpgemm, BudgetFromTheEnvironment) {
  const host_csr<double> a = sparse(37, 53, 5.0, 10, true), b = sparse(53, 29, 4.0, 11, true);
  {
    const test::env_scope env("OPSPARSE_DIST_MEMORY", std::string("1k"));
    const dist::spgemm_info info = check_product<plus_times>(a, b, -1);
    EXPECT_EQ(info.budget, 1024u);
  }
  const test::env_scope env("OPSPARSE_DIST_MEMORY", std::string("lots"));
  const dist::grid g;
  const auto da = dist::scatter(g, a), db = dist::scatter(g, b);
  EXPECT_THROW(dist::spgemm<plus_times>(g, da, db), std::invalid_argument);
}

TEST(DistSpgemm, UserEngine) {
  const host_csr<double> a = sparse(37, 53, 5.0, 12, true), b = sparse(53, 29, 4.0, 13, true);
  std::atomic<int> calls{0};
  check_product<plus_times>(a, b, -1, {}, counting_engine{&calls});
  int total = calls.load();
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GE(total, test::world_size());  // every rank's block has products here
}

TEST(DistSpgemm, WrongOperandsThrowOnEveryRank) {
  const host_csr<double> a = sparse(37, 53, 5.0, 14, true), b = sparse(52, 29, 4.0, 15, true);
  const dist::grid g;
  const auto da = dist::scatter(g, a), db = dist::scatter(g, b);
  EXPECT_THROW(dist::spgemm<plus_times>(g, da, db), std::invalid_argument);
  // A block that does not belong to this rank's place (here on the last rank only).
  auto moved = dist::scatter(g, sparse(53, 29, 4.0, 16, true));
  if (g.rank() == g.size() - 1) moved.col_begin += 1;
  try {
    dist::spgemm<plus_times>(g, da, moved);
    ADD_FAILURE() << "no exception on rank " << g.rank();
  } catch (const std::invalid_argument& e) {
    // Every rank names the block at fault.
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(g.size() - 1) + " holds"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(test::all_ranks(true));
}

/// Fails on rank 0 only.
struct failing_engine {
  host_csr<double> operator()(const host_csr<double>& a, const host_csr<double>& b) const {
    if (test::world_rank() == 0) throw std::domain_error("engine failed on purpose");
    return cpu::spgemm<plus_times>(a, b);
  }
};

TEST(DistSpgemm, EngineFailureReachesEveryRank) {
  const host_csr<double> a = sparse(37, 53, 5.0, 17, true), b = sparse(53, 29, 4.0, 18, true);
  const dist::grid g;
  const auto da = dist::scatter(g, a), db = dist::scatter(g, b);
  try {
    dist::spgemm<plus_times>(g, da, db, {}, failing_engine{});
    ADD_FAILURE() << "no exception on rank " << g.rank();
  } catch (const std::domain_error& e) {
    EXPECT_EQ(g.rank(), 0) << e.what();  // the engine's own exception, where it was thrown
  } catch (const std::runtime_error& e) {
    // Elsewhere: the failing rank's message.
    EXPECT_NE(g.rank(), 0);
    EXPECT_NE(std::string(e.what()).find("failed on rank 0: engine failed on purpose"),
              std::string::npos)
        << e.what();
  }
  // The ranks are still in step: a product afterwards works.
  const auto dc = dist::spgemm<plus_times>(g, da, db);
  const host_csr<double> c = dist::gather(g, dc);
  if (g.rank() == 0) EXPECT_TRUE(exactly_equal(c, cpu::spgemm<plus_times>(a, b)));
}

}  // namespace
