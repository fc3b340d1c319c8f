// The process grid, the balanced splits, and scatter / gather / from_block of dist_csr, on every
// grid shape of the world.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <stdexcept>
#include <optional>
#include <string>
#include <utility>

#include "dist_support.hpp"
#include "opsparse/distributed/dist_csr.hpp"
#include "opsparse/distributed/error.hpp"
#include "test_support.hpp"

namespace {

using opsparse::host_csr;
using opsparse::index_t;
using opsparse::pattern;
namespace dist = opsparse::dist;
namespace test = opsparse::test;

TEST(DistGrid, MostSquareShapes) {
  const int p[] = {1, 2, 4, 6, 7, 9, 12, 16, 18};
  const int rows[] = {1, 1, 2, 2, 1, 3, 3, 4, 3};
  for (int t = 0; t < 9; ++t) {
    const dist::grid_shape s = dist::square_shape(p[t]);
    EXPECT_EQ(s.rows, rows[t]) << p[t] << " ranks";
    EXPECT_EQ(s.rows * s.cols, p[t]);
  }
  EXPECT_THROW(dist::square_shape(0), std::invalid_argument);
}

TEST(DistGrid, DefaultShapeAndCommunicators) {
  const dist::grid g;
  const dist::grid_shape s = dist::square_shape(test::world_size());
  EXPECT_EQ(g.rows(), s.rows);
  EXPECT_EQ(g.cols(), s.cols);
  EXPECT_EQ(g.rank(), test::world_rank());
  EXPECT_EQ(g.rank_of(g.row(), g.col()), g.rank());
  EXPECT_GE(g.ranks_on_node(), 1);
  int row_size = 0, row_rank = 0, col_size = 0, col_rank = 0;
  MPI_Comm_size(g.row_comm(), &row_size);
  MPI_Comm_rank(g.row_comm(), &row_rank);
  MPI_Comm_size(g.col_comm(), &col_size);
  MPI_Comm_rank(g.col_comm(), &col_rank);
  EXPECT_EQ(row_size, g.cols());
  EXPECT_EQ(row_rank, g.col());
  EXPECT_EQ(col_size, g.rows());
  EXPECT_EQ(col_rank, g.row());
}

TEST(DistGrid, EveryShapeAndMoves) {
  for (const auto s : test::all_shapes()) {
    dist::grid g(MPI_COMM_WORLD, s.rows, s.cols);
    EXPECT_EQ(g.row(), test::world_rank() / s.cols);
    EXPECT_EQ(g.col(), test::world_rank() % s.cols);
    dist::grid moved(std::move(g));
    EXPECT_EQ(moved.rows(), s.rows);
    EXPECT_EQ(g.comm(), MPI_COMM_NULL);  // NOLINT(bugprone-use-after-move): the moved-from state
  }
}

TEST(DistGrid, WrongShapeNamesBoth) {
  const int p = test::world_size();
  try {
    dist::grid g(MPI_COMM_WORLD, p + 1, 1);
    FAIL() << "a " << p + 1 << "x1 grid on " << p << " ranks was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(std::to_string(p + 1) + "x1"), std::string::npos) << what;
    EXPECT_NE(what.find("has " + std::to_string(p)), std::string::npos) << what;
  }
  EXPECT_THROW(dist::grid(MPI_COMM_WORLD, 0, p), std::invalid_argument);
}

TEST(DistGrid, MpiErrorsBecomeExceptions) {
  const dist::grid g;
  int value = 0;
  // A root outside the communicator: MPI_ERR_ROOT, returned (the grid's handler), then thrown.
  try {
    OPSPARSE_MPI_TRY(MPI_Bcast(&value, 1, MPI_INT, g.size() + 3, g.comm()));
    FAIL() << "no exception";
  } catch (const dist::mpi_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("MPI_Bcast"), std::string::npos) << what;
    EXPECT_NE(what.find("test_dist_grid.cpp"), std::string::npos) << what;
    EXPECT_NE(e.code(), MPI_SUCCESS);
  }
}

TEST(DistGrid, DefaultMemoryBudget) {
  const dist::grid g;
  {
    const test::env_scope env("OPSPARSE_DIST_MEMORY", std::nullopt);
    EXPECT_GT(dist::default_memory_budget(g), 0u);  // from /proc/meminfo, shared by the node
  }
  const std::pair<const char*, std::size_t> good[] = {
      {"4096", 4096}, {"2M", 2u << 20}, {"3g", std::size_t(3) << 30}};
  for (const auto& [text, bytes] : good) {
    const test::env_scope env("OPSPARSE_DIST_MEMORY", std::string(text));
    EXPECT_EQ(dist::default_memory_budget(g), bytes) << text;
  }
  for (const char* bad : {"", "-5", "0", "12q", "1.5G", "7 kB"}) {
    const test::env_scope env("OPSPARSE_DIST_MEMORY", std::string(bad));
    EXPECT_THROW(dist::default_memory_budget(g), std::invalid_argument) << '"' << bad << '"';
  }
}

TEST(DistSplit, PartsAreBalancedAndFindTheirIndices) {
  for (index_t n = 1; n <= 40; ++n)
    for (int parts = 1; parts <= 9; ++parts) {
      EXPECT_EQ(dist::split_point(n, parts, 0), 0);
      EXPECT_EQ(dist::split_point(n, parts, parts), n);
      for (int q = 0; q < parts; ++q) {
        const index_t size = dist::split_point(n, parts, q + 1) - dist::split_point(n, parts, q);
        EXPECT_TRUE(size == n / parts || size == n / parts + 1) << n << " " << parts << " " << q;
      }
      for (index_t k = 0; k < n; ++k) {
        const int q = dist::split_part(n, parts, k);
        EXPECT_LE(dist::split_point(n, parts, q), k);
        EXPECT_LT(k, dist::split_point(n, parts, q + 1)) << n << " " << parts << " " << k;
      }
    }
}

/// 37x53 with every fifth row empty and columns 20..29 empty (an empty block on wide grids).
host_csr<double> rectangular(std::uint64_t seed) {
  host_csr<double> a = test::random_csr(37, 53, 6.0, seed);
  host_csr<double> out(a.rows, a.cols);
  for (index_t i = 0; i < a.rows; ++i) {
    for (auto k = a.rpt[i]; k < a.rpt[i + 1] && i % 5 != 0; ++k) {
      if (a.col[k] >= 20 && a.col[k] < 30) continue;
      out.col.push_back(a.col[k]);
      out.val.push_back(a.val[k]);
    }
    out.rpt[i + 1] = static_cast<opsparse::offset_t>(out.col.size());
  }
  return out;
}

TEST(DistCsr, ScatterGatherRoundTrip) {
  const host_csr<double> m = rectangular(11);
  for (const auto s : test::all_shapes()) {
    const dist::grid g(MPI_COMM_WORLD, s.rows, s.cols);
    // Only the root's matrix counts: the others pass an empty one.
    const dist::dist_csr<double> d = dist::scatter(g, g.rank() == 0 ? m : host_csr<double>());
    EXPECT_EQ(d.rows, 37);
    EXPECT_EQ(d.cols, 53);
    EXPECT_EQ(d.block.rows, dist::split_point(37, g.rows(), g.row() + 1) - d.row_begin);
    EXPECT_EQ(d.block.cols, dist::split_point(53, g.cols(), g.col() + 1) - d.col_begin);
    EXPECT_EQ(opsparse::check(d.block), "");
    // Every entry of the block is the matrix's entry at the shifted position.
    for (index_t i = 0; i < d.block.rows; ++i)
      for (auto k = d.block.rpt[i]; k < d.block.rpt[i + 1]; ++k) {
        const index_t gi = d.row_begin + i, gj = d.col_begin + d.block.col[k];
        const auto b = m.col.begin() + m.rpt[gi], e = m.col.begin() + m.rpt[gi + 1];
        const auto it = std::lower_bound(b, e, gj);
        ASSERT_TRUE(it != e && *it == gj) << "(" << gi << ", " << gj << ") " << test::shape_name(g);
        EXPECT_EQ(d.block.val[k], m.val[it - m.col.begin()]);
      }
    const host_csr<double> back = dist::gather(g, d);
    if (g.rank() == 0)
      EXPECT_TRUE(test::csr_near(back, m, 0.0)) << test::shape_name(g);
    else
      EXPECT_EQ(back.nnz(), 0);
  }
}

TEST(DistCsr, PatternsAndOtherRoots) {
  const host_csr<pattern> m = opsparse::convert<pattern>(rectangular(12));
  const int root = test::world_size() - 1;
  const dist::grid g;
  const auto d = dist::scatter(g, g.rank() == root ? m : host_csr<pattern>(), root);
  const host_csr<pattern> back = dist::gather(g, d, root);
  if (g.rank() == root) {
    EXPECT_EQ(back.rpt, m.rpt);
    EXPECT_EQ(back.col, m.col);
    EXPECT_TRUE(back.val.empty());
  }
}

TEST(DistCsr, FromBlockChecksTheShape) {
  const host_csr<double> m = rectangular(13);
  const dist::grid g;
  const auto d = dist::scatter(g, g.rank() == 0 ? m : host_csr<double>());
  const auto same = dist::from_block(g, 37, 53, d.block);
  EXPECT_EQ(same.row_begin, d.row_begin);
  EXPECT_EQ(same.col_begin, d.col_begin);
  EXPECT_TRUE(test::csr_near(dist::gather(g, same), dist::gather(g, d), 0.0));
  EXPECT_THROW(dist::from_block(g, 37, 54 + g.cols(), d.block), std::invalid_argument);
}

TEST(DistCsr, InvalidMatrixThrowsOnEveryRank) {
  host_csr<double> bad = rectangular(14);
  index_t i = 0;
  while (bad.rpt[i + 1] - bad.rpt[i] < 2) ++i;
  std::swap(bad.col[bad.rpt[i]], bad.col[bad.rpt[i] + 1]);  // an unsorted row
  const dist::grid g;
  EXPECT_THROW(dist::scatter(g, bad), std::invalid_argument);
  // And the grid still works afterwards: no rank was left inside a collective.
  EXPECT_TRUE(test::all_ranks(true));
}

}  // namespace
