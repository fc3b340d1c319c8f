// Distributed MCL (run_distributed, mcl_dist.hpp) under mpirun against the single-process CPU
// backend (run() with make_cpu_backend): on every grid shape of the world and in the rows
// layout, the iterates after 1,
// 2 and 3 iterations and the limit are the CPU backend's bit for bit, float and double cells, on
// the shared PPI networks and on planted graphs with tight pruning (selection, both recoveries,
// mcl's emergency loops), with the expansion in many memory phases; the clusters interpreted
// from the limit are the same. A start matrix with negative values is refused on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "dist_support.hpp"
#include "core/mcl.hpp"
#include "distributed/mcl_dist.hpp"
#include "distributed/mcl_dist_checkpoint.hpp"
#include "opsparse/distributed/detail/blocks.hpp"
#include "mcl_test_util.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
namespace mcl = opsparse::mcl;
namespace test = opsparse::test;
using opsparse::host_csr;

template <class T>
::testing::AssertionResult identical(const host_csr<T>& x, const host_csr<T>& y) {
  if (x.rows != y.rows || x.cols != y.cols)
    return ::testing::AssertionFailure()
           << "shape " << x.rows << "x" << x.cols << " vs " << y.rows << "x" << y.cols;
  if (x.rpt != y.rpt || x.col != y.col)
    return ::testing::AssertionFailure()
           << "structure differs (nnz " << x.nnz() << " vs " << y.nnz() << ")";
  for (std::size_t k = 0; k < x.val.size(); ++k)
    if (!(x.val[k] == y.val[k]))  // bit for bit: no NaN here
      return ::testing::AssertionFailure()
             << "value " << k << ": " << x.val[k] << " vs " << y.val[k];
  return ::testing::AssertionSuccess();
}

/// The start matrix by rows as a program that read its parts holds it: rank r's rows split[r]
/// to split[r + 1] (`start` is every rank's here), the last rank none when there are several.
template <class T>
mcl::row_blocks<T> blocks_of(const host_csr<double>& start) {
  const int ranks = test::world_size(), me = test::world_rank();
  const int holding = ranks > 1 ? ranks - 1 : 1;
  mcl::row_blocks<T> b;
  b.n = start.rows;
  b.split.assign(static_cast<std::size_t>(ranks) + 1, start.rows);
  for (int r = 0; r < holding; ++r)
    b.split[r] = static_cast<opsparse::index_t>(static_cast<long long>(start.rows) * r / holding);
  b.rows = opsparse::dist::detail::take_rows(opsparse::convert<T>(start), {b.split[me]},
                                             {b.split[me + 1]});
  return b;
}

/// The distributed run of `start` (rank 0's) on every grid shape against the CPU backend's, for
/// max_iter 1, 2, 3 and to convergence; the same clusters. `what` names the case.
template <class T>
void check_runs(const host_csr<double>& start, mcl::params p, const std::string& what,
                bool check_clusters = true) {
  const host_csr<T> cells = test::world_rank() == 0 ? opsparse::convert<T>(start) : host_csr<T>();
  for (const int iterations : {1, 2, 3, 0}) {
    mcl::params q = p;
    if (iterations > 0) q.max_iter = iterations;
    mcl::run_result<T> want;
    if (test::world_rank() == 0) {
      auto backend = mcl::make_cpu_backend<T>(1);
      want = mcl::run(*backend, cells, q);
    }
    // the grid layout on every grid shape, the rows layout once (it does not use the shape)
    std::vector<std::pair<opsparse::dist::grid_shape, mcl::dist_layout>> runs;
    for (const auto shape : test::all_shapes()) runs.emplace_back(shape, mcl::dist_layout::grid);
    runs.emplace_back(runs.front().first, mcl::dist_layout::rows);
    // ... and both from the start matrix held by rows (as the program reads it in parts)
    const std::size_t from_root = runs.size();
    runs.emplace_back(runs.front().first, mcl::dist_layout::rows);
    runs.emplace_back(runs.front().first, mcl::dist_layout::grid);
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const auto& [shape, layout] = runs[k];
      const opsparse::dist::grid g(MPI_COMM_WORLD, shape.rows, shape.cols);
      const mcl::dist_run_result<T> got =
          k < from_root ? mcl::run_distributed<T>(g, cells, q, {}, 0, mcl::dist_engine::cpu, layout)
                        : mcl::run_distributed<T>(g, blocks_of<T>(start), q, {},
                                                  mcl::dist_engine::cpu, layout);
      if (g.rank() != 0) {
        EXPECT_TRUE(got.limit.rpt.size() <= 1) << "the limit belongs to rank 0 only";
        continue;
      }
      const std::string where =
          what + ", " +
          (layout == mcl::dist_layout::rows ? std::string("rows layout") : test::shape_name(g)) +
          (k < from_root ? "" : " from rows") + ", max_iter " + std::to_string(q.max_iter) +
          (sizeof(T) == 4 ? ", float" : ", double");
      EXPECT_EQ(got.iterations, want.iterations) << where;
      EXPECT_EQ(got.converged, want.converged) << where;
      EXPECT_TRUE(identical(got.limit, want.limit)) << where;
      if (iterations == 0 && check_clusters)
        EXPECT_EQ(mcl::interpret(got.limit, p.overlap).clusters,
                  mcl::interpret(want.limit, p.overlap).clusters)
            << where;
    }
  }
}

/// Every rank's start matrix from an ABC text or file (all ranks read it here; the program's
/// rank 0 reads alone).
host_csr<double> start_of(const std::string& path, const mcl::params& p) {
  const opsparse::io::labelled_graph g =
      opsparse::io::read_graph(path, opsparse::io::file_format::abc);
  return mcl::start_matrix(g.adj, p);
}

TEST(MclDist, PpiNetworksEqualTheCpuBackendBitForBit) {
  OPSPARSE_REQUIRE_DATASETS();
  const fs::path ppi = fs::path(test::datasets_dir()) / "ppi";
  if (!fs::is_directory(ppi)) GTEST_SKIP() << "no ppi/ in " << test::datasets_dir();
  // The small ones (the human network, the largest, is the benchmark's).
  for (const char* name : {"PPISB_yeast.abc", "PPISB_mouse.abc", "PPISB_E.coli.abc",
                           "ghsom_Ito_core.abc", "ghsom_Y2H_union.abc"}) {
    const fs::path f = ppi / name;
    ASSERT_TRUE(fs::exists(f)) << f;
    const host_csr<double> start = start_of(f.string(), mcl::params{});
    check_runs<float>(start, mcl::params{}, name);
    check_runs<double>(start, mcl::params{}, name);
  }
}

TEST(MclDist, TightPruningAndManyPhases) {
  // Selection and both recoveries in many columns; mcl's emergency loops (R = 0); -I 1.4.
  const std::string abc = mcl::test::planted_abc(8, 25, 0.35, 0.02, true, 11);
  const fs::path dir = mcl::test::scratch_dir("dist");
  const fs::path f = dir / "planted.abc";
  mcl::test::write_text(f, abc);
  mcl::params tight;
  tight.prune = 300, tight.select = 6, tight.recover = 9, tight.pct = 95;
  mcl::params emergency;
  emergency.prune = 40, emergency.select = 4, emergency.recover = 0;
  mcl::params soft;
  soft.inflation = 1.4;
  for (const auto& [p, what] :
       {std::pair{tight, "-P 300 -S 6 -R 9 -pct 95"}, std::pair{emergency, "-P 40 -S 4 -R 0"},
        std::pair{soft, "-I 1.4"}}) {
    const host_csr<double> start = start_of(f.string(), p);
    check_runs<float>(start, p, what);
  }
  // The expansion in many phases (a budget of 4 KiB a rank): the same iterates.
  {
    const test::env_scope env("OPSPARSE_DIST_MEMORY", std::string("4k"));
    check_runs<float>(start_of(f.string(), tight), tight, "4k phases");
    // ... and there were many: each phase pruned before the next.
    const opsparse::dist::grid g;
    const host_csr<float> cells = opsparse::convert<float>(start_of(f.string(), tight));
    int most = 0;
    mcl::run_distributed<float>(g, cells, tight, [&](const mcl::dist_iteration_info& i) {
      most = std::max(most, i.phases);
    });
    EXPECT_GT(most, 2);
  }
  // The row exchanges in messages of 7 elements (2^28 in a run): the same iterates.
  {
    const test::env_scope env("OPSPARSE_DIST_MESSAGE_ELEMENTS", std::string("7"));
    check_runs<float>(start_of(f.string(), tight), tight, "7-element messages");
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(MclDist, HashOfPiecesIsTheHashOfTheWhole) {
  // Every rank builds the same bytes and holds a piece of them (some pieces empty, some shorter
  // than a chunk, some across several chunks); the pieces' hash is the whole array's.
  const int ranks = test::world_size(), me = test::world_rank();
  std::vector<unsigned char> all(100003);
  unsigned x = 12345;
  for (unsigned char& c : all) c = static_cast<unsigned char>((x = x * 1103515245u + 12345u) >> 24);
  for (const std::size_t chunk :
       {std::size_t(7), std::size_t(64), std::size_t(40000), mcl::checkpoint::hash_chunk_bytes}) {
    for (const std::size_t bytes : {std::size_t(0), std::size_t(5), all.size()}) {
      // rank r's piece: [cut(r), cut(r + 1)), uneven, the second rank's empty
      auto cut = [&](int r) {
        if (r >= ranks) return bytes;
        const std::size_t at =
            bytes * static_cast<std::size_t>(r) * r / (static_cast<std::size_t>(ranks) * ranks);
        return r == 2 ? bytes * 1 / (static_cast<std::size_t>(ranks) * ranks) : at;
      };
      const std::size_t b0 = std::min(cut(me), cut(me + 1)), b1 = cut(me + 1);
      const opsparse::dist::grid g;
      const std::uint64_t got = mcl::detail::hash_pieces(g, all.data() + b0, b1 - b0, 2, chunk);
      EXPECT_EQ(got, mcl::checkpoint::hash_bytes(all.data(), bytes, 1, chunk))
          << "chunk " << chunk << ", " << bytes << " bytes, rank " << me;
    }
  }
  EXPECT_TRUE(test::all_ranks(true));
}

TEST(MclDist, FingerprintOfRowsIsTheWholeMatrixFingerprint) {
  const std::string abc = mcl::test::planted_abc(8, 25, 0.35, 0.02, true, 11);
  const fs::path dir = mcl::test::scratch_dir("dist-fp");
  const fs::path f = dir / "planted.abc";
  mcl::test::write_text(f, abc);
  mcl::params p;
  const host_csr<double> start = start_of(f.string(), p);
  const opsparse::dist::grid g;
  const auto want = mcl::checkpoint::fingerprint(start, p, mcl::precision::float32, 1);
  EXPECT_EQ(mcl::detail::fingerprint(g, blocks_of<double>(start), p, mcl::precision::float32, 1),
            want);
  p.inflation = 2.5;  // another run: another fingerprint
  EXPECT_NE(mcl::detail::fingerprint(g, blocks_of<double>(start), p, mcl::precision::float32, 1),
            want);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(MclDist, NegativeValuesAreRefusedOnEveryRank) {
  host_csr<double> start(2, 2);
  start.rpt = {0, 2, 4};
  start.col = {0, 1, 0, 1};
  start.val = {1.5, -0.5, 0.5, 0.5};
  const opsparse::dist::grid g;
  try {
    mcl::run_distributed<float>(g, opsparse::convert<float>(start), mcl::params{});
    ADD_FAILURE() << "no exception on rank " << g.rank();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("negative weights"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(test::all_ranks(true));
}

}  // namespace
