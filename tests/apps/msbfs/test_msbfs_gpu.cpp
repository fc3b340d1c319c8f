// opsparse-msbfs's GPU backend against the CPU backend (the oracle) and queue BFS: small graphs,
// every batch size, depth limits, duplicate sources, the shared real data sets and
// graph-facts.tsv, the command line. Skips with the reason where no GPU is usable; fails instead
// when OPSPARSE_REQUIRE_GPU=1.
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "msbfs_test_util.hpp"
#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

namespace bfs = opsparse::msbfs;
using namespace msbfs_test;

class MsbfsGpu : public app_test::gpu_test {};

/// GPU and CPU give identical levels matrices and summaries.
::testing::AssertionResult same_on_both(bfs::backend& gpu, const host_csr<pattern>& a,
                                        const std::vector<index_t>& sources,
                                        const bfs::options& opt) {
  auto cpu = bfs::make_cpu_backend();
  const auto want = bfs::search(*cpu, a, sources, opt);
  const auto got = bfs::search(gpu, a, sources, opt);
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const auto &w = want.summary[k], &g = got.summary[k];
    if (w.source != g.source || w.reached != g.reached || w.level_sum != g.level_sum ||
        w.eccentricity != g.eccentricity)
      return ::testing::AssertionFailure() << "summary of source row " << k << " differs";
  }
  if (opt.keep_levels) {
    const std::string bad = opsparse::check(got.levels);
    if (!bad.empty()) return ::testing::AssertionFailure() << "GPU levels invalid: " << bad;
    if (got.levels.rpt != want.levels.rpt || got.levels.col != want.levels.col ||
        got.levels.val != want.levels.val)
      return ::testing::AssertionFailure() << "levels differ";
  }
  // Without V to return, the GPU may pull: every direction rule gives the same summaries and
  // traverses the same edges as the CPU's push-only search.
  for (bfs::direction dir :
       {bfs::direction::automatic, bfs::direction::pull, bfs::direction::push}) {
    bfs::options o = opt;
    o.keep_levels = false;
    o.dir = dir;
    const offset_t before = gpu.edges_traversed();
    const auto res = bfs::search(gpu, a, sources, o);
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const auto &w = want.summary[k], &g = res.summary[k];
      if (w.source != g.source || w.reached != g.reached || w.level_sum != g.level_sum ||
          w.eccentricity != g.eccentricity)
        return ::testing::AssertionFailure()
               << "direction " << bfs::to_string(dir) << ": summary of source row " << k
               << " differs: reached " << g.reached << " vs " << w.reached << ", level sum "
               << g.level_sum << " vs " << w.level_sum << ", eccentricity " << g.eccentricity
               << " vs " << w.eccentricity;
    }
    if (gpu.edges_traversed() - before != cpu->products())
      return ::testing::AssertionFailure()
             << "direction " << bfs::to_string(dir) << ": " << gpu.edges_traversed() - before
             << " edges traversed, the CPU's push made " << cpu->products() << " products";
  }
  return ::testing::AssertionSuccess();
}

// Small enough for compute-sanitizer racecheck (scripts/gpu-check): push, pull and the
// transpose built on the device, directed and undirected, on one random graph.
TEST_F(MsbfsGpu, SanitizerSmoke) {
  auto gpu = bfs::make_gpu_backend();
  const auto adj = opsparse::test::random_csr<double>(300, 300, 3.0, 5);
  for (bool undirected : {false, true}) {
    bfs::options opt;
    opt.keep_levels = true;
    opt.symmetric = undirected;
    EXPECT_TRUE(same_on_both(*gpu, bfs::graph_pattern(adj, undirected),
                             bfs::random_sources(300, 20, 5), opt));
  }
  // Hubs: vertices of more than 512 in-neighbours are pulled by a block each (pull_heavy_kernel).
  // Vertex 0 is joined both ways to 1..600, vertex 1 has in-edges from 2..560 only, and a path
  // 600 -> 601 -> ... -> 640 makes deep searches (40 levels: racecheck's time grows with the
  // launches, and 300 levels took it past five minutes); 70 sources: two words, the second part
  // empty.
  std::vector<std::pair<index_t, index_t>> e;
  for (index_t v = 1; v <= 600; ++v) e.emplace_back(0, v), e.emplace_back(v, 0);
  for (index_t v = 2; v <= 560; ++v) e.emplace_back(v, 1);
  for (index_t v = 600; v < 640; ++v) e.emplace_back(v, v + 1);
  const auto hubs = adjacency(900, e);
  auto sources = bfs::random_sources(900, 69, 3);
  sources.push_back(899);  // isolated, reaches nothing: done after its first level
  for (bool undirected : {false, true}) {
    bfs::options opt;
    opt.keep_levels = true;
    opt.symmetric = undirected;
    EXPECT_TRUE(same_on_both(*gpu, bfs::graph_pattern(hubs, undirected), sources, opt))
        << (undirected ? "undirected" : "directed");
  }
}

TEST_F(MsbfsGpu, SmallAndRandomGraphs) {
  auto gpu = bfs::make_gpu_backend();  // one context and plan throughout
  bfs::options opt;
  opt.keep_levels = true;
  const auto path = adjacency(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
  const auto islands = adjacency(7, {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {6, 6}});
  for (bool undirected : {false, true}) {
    for (const auto* adj : {&path, &islands}) {
      const auto a = bfs::graph_pattern(*adj, undirected);
      opt.symmetric = undirected;  // directed graphs pull through a transpose built on the device
      std::vector<index_t> all;
      for (index_t v = 0; v < a.rows; ++v) all.push_back(v);
      all.push_back(0);  // a duplicate
      for (index_t b : {0, 1, 3}) {
        opt.batch = b;
        for (level_t d : {-1, 0, 2}) {
          opt.max_depth = d;
          EXPECT_TRUE(same_on_both(*gpu, a, all, opt)) << "batch " << b << " depth " << d;
        }
      }
    }
  }
  opt.max_depth = -1;
  EXPECT_TRUE(same_on_both(*gpu, bfs::graph_pattern(host_csr<double>(4, 4), false), {0, 3}, opt));
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const index_t n = static_cast<index_t>(500 * seed);
    const auto adj = opsparse::test::random_csr<double>(n, n, 0.8 + 0.6 * seed, seed);
    for (bool undirected : {false, true}) {
      const auto a = bfs::graph_pattern(adj, undirected);
      opt.symmetric = undirected;
      const auto sources = bfs::random_sources(n, 100, seed);
      for (index_t b : {0, 7, 100}) {
        opt.batch = b;
        EXPECT_TRUE(same_on_both(*gpu, a, sources, opt)) << "seed " << seed << " batch " << b;
      }
    }
  }
}

TEST_F(MsbfsGpu, DatasetsMatchCpuQueueBfsAndGraphFacts) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string root = opsparse::test::datasets_dir();
  auto gpu = bfs::make_gpu_backend();
  int checked = 0;
  for (const char* dir : {"graphs", "ppi"})
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(root) / dir)) {
      if (!e.is_regular_file()) continue;
      SCOPED_TRACE(e.path().string());
      const auto g = opsparse::io::read_graph(e.path().string());
      const auto sources = bfs::random_sources(g.adj.rows, std::min<index_t>(64, g.adj.rows), 7);
      for (bool undirected : {false, true}) {
        const auto a = bfs::graph_pattern(g.adj, undirected);
        bfs::options opt;
        opt.keep_levels = true;
        opt.symmetric = undirected;
        EXPECT_TRUE(same_on_both(*gpu, a, sources, opt));
        const auto r = bfs::search(*gpu, a, sources, opt);
        for (std::size_t s = 0; s < sources.size(); s += 8) {
          EXPECT_TRUE(same_as_queue_bfs(a, r, s, sources[s]));
          ++checked;
        }
      }
    }
  std::cout << "[ checked  ] " << checked << " GPU BFS rows against queue BFS\n";

  std::map<std::string, std::vector<std::vector<std::string>>> by_file;
  for (const auto& r : tsv_rows(root + "/reference/graph-facts.tsv")) by_file[r[0]].push_back(r);
  int matched = 0, rows = 0;
  for (const auto& [file, facts] : by_file) {
    SCOPED_TRACE(file);
    const auto g = opsparse::io::read_graph(root + "/" + file);
    std::vector<std::string> ids;
    for (const auto& r : facts) ids.push_back(r[4]);
    const auto res = bfs::search(*gpu, bfs::graph_pattern(g.adj, true),
                                 bfs::resolve_sources(ids, g.labels, file), {});
    for (std::size_t k = 0; k < facts.size(); ++k, ++rows) {
      const bool ok = res.summary[k].reached == std::stoll(facts[k][5]) &&
                      res.summary[k].level_sum == std::stoll(facts[k][6]) &&
                      res.summary[k].eccentricity == std::stoll(facts[k][7]);
      EXPECT_TRUE(ok) << "source " << ids[k];
      matched += ok;
    }
  }
  std::cout << "[ matched  ] " << matched << " of " << rows
            << " BFS rows of reference/graph-facts.tsv on the GPU\n";
}

TEST_F(MsbfsGpu, WarmLevelsAllocateNothing) {
  // Once every buffer has grown, the same search again allocates no device memory: one
  // context, one plan, grow-only matrices. Two warm-up searches, since F and V swap with their
  // successors every level and an odd number of levels swaps their roles between searches.
  const auto a = bfs::graph_pattern(opsparse::test::random_csr<double>(3000, 3000, 3, 11), true);
  const auto sources = bfs::random_sources(3000, 64, 5);
  auto gpu = bfs::make_gpu_backend();
  bfs::options opt;
  bfs::search(*gpu, a, sources, opt);
  bfs::search(*gpu, a, sources, opt);
  const auto before = opsparse::device_allocation_count();
  bfs::search(*gpu, a, sources, opt);
  EXPECT_EQ(opsparse::device_allocation_count(), before);
}

TEST_F(MsbfsGpu, CommandLineGpuBackend) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string file = opsparse::test::datasets_dir() + "/graphs/email-Eu-core.txt";
  std::string outputs[2];
  int k = 0;
  for (const char* backend : {"gpu", "cpu"}) {
    const char* argv[] = {"opsparse-msbfs", "-q",        "-u",    "--backend",
                          backend,          "--sources", "0,389", file.c_str()};
    std::ostringstream out, err;
    EXPECT_EQ(bfs::run_cli(8, argv, out, err), 0) << err.str();
    outputs[k++] = out.str();
  }
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_NE(outputs[0].find("reached\t1972\nsum_of_levels\t4571\n"), std::string::npos)
      << outputs[0];
  // Bitmaps the device cannot hold: an error naming the memory and --batch, no crash.
  opsparse::test::env_scope limit("OPSPARSE_DEVICE_ALLOCATION_LIMIT", std::string("100000"));
  const char* argv[] = {"opsparse-msbfs", "-q",      "-u",   "--backend",   "gpu",  "--random",
                        "1000",           "--batch", "1000", "--direction", "pull", file.c_str()};
  std::ostringstream out, err;
  EXPECT_EQ(bfs::run_cli(12, argv, out, err), 1);
  EXPECT_EQ(out.str(), "");
  for (const char* says :
       {"opsparse-msbfs: error: out of GPU memory: ", " asked for, ",
        "for a batch of 1000 sources, three bitmaps", "--batch 250", "--backend cpu"})
    EXPECT_NE(err.str().find(says), std::string::npos) << says << "\n" << err.str();
}

}  // namespace
