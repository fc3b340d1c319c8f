// opsparse-msbfs on small graphs against a plain queue BFS: directed and undirected, disconnected
// graphs, sources without edges, duplicate sources, depth limits, every batch size and direction;
// a 100k-vertex path and a road-like grid (high diameter) with the CPU backend's work bounded
// by its frontiers; the push levels as products on the CPU engine (the GPU's formulation); the
// source parsing and the command line (outputs, exit codes and messages).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "msbfs_test_util.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

namespace bfs = opsparse::msbfs;
using namespace msbfs_test;

constexpr bfs::direction all_directions[] = {bfs::direction::automatic, bfs::direction::push,
                                             bfs::direction::pull};

/// What a push-only search multiplies: over the sources, the out-degrees of the vertices each
/// one expands (those it reaches above max_depth), from queue BFS.
offset_t push_products(const host_csr<pattern>& a, const std::vector<index_t>& sources,
                       level_t max_depth) {
  offset_t total = 0;
  for (index_t s : sources) {
    const auto level = queue_bfs(a, s, max_depth);
    for (index_t v = 0; v < a.rows; ++v)
      if (level[v] >= 0 && (max_depth < 0 || level[v] < max_depth))
        total += a.rpt[v + 1] - a.rpt[v];
  }
  return total;
}

/// Runs every source through the CPU backend with batch `batch`, in every direction, and checks
/// each row, the products (those of the push, whichever way the levels went) and, where the
/// backend chooses or pushes, that its work is bounded by what the frontiers hold: per word of
/// the batch's bitmaps, 4 steps per product and per vertex reached (msbfs_cpu.cpp's work()).
void check_sources(const host_csr<pattern>& a, const std::vector<index_t>& sources,
                   index_t batch = 0, level_t max_depth = -1, int threads = 0) {
  for (bfs::direction dir : all_directions) {
    SCOPED_TRACE(std::string("direction ") + bfs::to_string(dir) + ", batch " +
                 std::to_string(batch) + ", max depth " + std::to_string(max_depth));
    auto be = bfs::make_cpu_backend(threads);
    bfs::options opt;
    opt.batch = batch;
    opt.max_depth = max_depth;
    opt.keep_levels = true;
    opt.dir = dir;
    const auto r = bfs::search(*be, a, sources, opt);
    ASSERT_EQ(r.summary.size(), sources.size());
    ASSERT_EQ(r.levels.rows, static_cast<index_t>(sources.size()));
    EXPECT_EQ(opsparse::check(r.levels), "");
    for (std::size_t k = 0; k < sources.size(); ++k)
      EXPECT_TRUE(same_as_queue_bfs(a, r, k, sources[k], max_depth));
    const offset_t products = push_products(a, sources, max_depth);
    EXPECT_EQ(be->products(), products);
    EXPECT_EQ(be->edges_traversed(), products);
    if (dir == bfs::direction::pull) continue;  // a forced pull reads every vertex every level
    const index_t b =
        batch > 0 ? batch : bfs::default_batch(a.rows, sources.size(), be->batch_budget());
    const offset_t words = (std::min<offset_t>(b, static_cast<offset_t>(sources.size())) + 63) / 64;
    EXPECT_LE(be->work(), words * 4 * (products + r.levels.nnz()));
  }
}

std::vector<index_t> all_vertices(index_t n) {
  std::vector<index_t> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(Msbfs, DirectedPathAndItsUndirectedForm) {
  const auto adj = adjacency(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}});
  const auto directed = bfs::graph_pattern(adj, false);
  const auto undirected = bfs::graph_pattern(adj, true);
  auto be = bfs::make_cpu_backend();
  bfs::options opt;
  const auto d = bfs::search(*be, directed, {0, 4, 2}, opt);
  EXPECT_EQ(d.summary[0].reached, 5);
  EXPECT_EQ(d.summary[0].level_sum, 0 + 1 + 2 + 3 + 4);
  EXPECT_EQ(d.summary[0].eccentricity, 4);
  EXPECT_DOUBLE_EQ(d.summary[0].closeness(), 4.0 / 10.0);
  EXPECT_EQ(d.summary[1].reached, 1);  // a sink: nothing but itself
  EXPECT_EQ(d.summary[1].closeness(), 0.0);
  EXPECT_EQ(d.summary[2].reached, 3);
  const auto u = bfs::search(*be, undirected, {4, 2}, opt);
  EXPECT_EQ(u.summary[0].reached, 5);
  EXPECT_EQ(u.summary[0].eccentricity, 4);
  EXPECT_EQ(u.summary[1].level_sum, 1 + 1 + 2 + 2);
  for (index_t b : {0, 1, 2, 5}) {
    check_sources(directed, all_vertices(5), b);
    check_sources(undirected, all_vertices(5), b);
  }
}

TEST(Msbfs, DisconnectedGraphsAndIsolatedSources) {
  // Components {0,1,2} (a directed cycle), {3,4} (one edge), isolated 5 and 6 with a self-loop.
  const auto adj = adjacency(7, {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {6, 6}});
  for (bool undirected : {false, true}) {
    const auto a = bfs::graph_pattern(adj, undirected);
    check_sources(a, all_vertices(7));
    auto be = bfs::make_cpu_backend();
    const auto r = bfs::search(*be, a, {5, 6, 0}, {});
    for (int k : {0, 1}) {
      EXPECT_EQ(r.summary[k].reached, 1);
      EXPECT_EQ(r.summary[k].level_sum, 0);
      EXPECT_EQ(r.summary[k].eccentricity, 0);
      EXPECT_EQ(r.summary[k].closeness(), 0.0);
    }
    EXPECT_EQ(r.summary[2].reached, 3);
  }
  // A graph with no edges at all.
  check_sources(bfs::graph_pattern(host_csr<double>(4, 4), false), all_vertices(4));
}

TEST(Msbfs, DuplicateSourcesGetTheirOwnRows) {
  const auto a = bfs::graph_pattern(adjacency(6, {{0, 1}, {1, 2}, {2, 3}, {0, 4}, {4, 5}}), true);
  const std::vector<index_t> sources{2, 2, 0, 2, 0};
  for (index_t b : {0, 1, 2, 3}) check_sources(a, sources, b);
  auto be = bfs::make_cpu_backend();
  bfs::options opt;
  opt.keep_levels = true;
  const auto r = bfs::search(*be, a, sources, opt);
  EXPECT_EQ(r.summary[0].level_sum, r.summary[1].level_sum);
  EXPECT_EQ(r.summary[0].level_sum, r.summary[3].level_sum);
}

TEST(Msbfs, MaxDepthStopsTheSearch) {
  const auto a = bfs::graph_pattern(adjacency(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}), false);
  for (level_t d : {0, 1, 2, 5, 9})
    for (index_t b : {0, 1}) check_sources(a, all_vertices(6), b, d);  // 1: frontiers left over
  auto be = bfs::make_cpu_backend();
  bfs::options opt;
  opt.max_depth = 2;
  const auto r = bfs::search(*be, a, {0}, opt);
  EXPECT_EQ(r.summary[0].reached, 3);
  EXPECT_EQ(r.summary[0].eccentricity, 2);
}

TEST(Msbfs, RandomGraphsEveryBatchSize) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const index_t n = static_cast<index_t>(30 + 50 * seed);
    const auto adj = opsparse::test::random_csr<double>(n, n, 0.5 + 0.7 * seed, seed);
    for (bool undirected : {false, true}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + (undirected ? " undirected" : " directed"));
      const auto a = bfs::graph_pattern(adj, undirected);
      for (index_t b : {0, 1, 7, 64}) check_sources(a, all_vertices(n), b);
    }
  }
}

TEST(Msbfs, RandomGraphsOnSeveralThreads) {
  // Three words of sources and levels of 10^5 edge-words and more: pushes and pulls split
  // among the threads (msbfs_cpu.cpp's parallel_work).
  const index_t n = 20000;
  const auto adj = opsparse::test::random_csr<double>(n, n, 4, 9);
  for (bool undirected : {false, true}) {
    SCOPED_TRACE(undirected ? "undirected" : "directed");
    const auto a = bfs::graph_pattern(adj, undirected);
    check_sources(a, bfs::random_sources(n, 150, 4), 0, -1, 3);
  }
}

/// The push levels as products (msbfs_space.hpp, the GPU backend's levels before it pulls) on
/// the CPU engine: every row against queue BFS, the products those of the push, and the same
/// summaries whether V is kept or not; no pull whatever the direction asked.
void check_product_levels(const host_csr<pattern>& a, const std::vector<index_t>& sources,
                          index_t batch, level_t max_depth = -1) {
  for (bfs::direction dir : all_directions) {
    SCOPED_TRACE(std::string("products, direction ") + bfs::to_string(dir) + ", batch " +
                 std::to_string(batch) + ", max depth " + std::to_string(max_depth));
    auto be = bfs::make_cpu_product_backend(2);
    EXPECT_STREQ(be->name(), "cpu-products");
    bfs::options opt;
    opt.batch = batch;
    opt.max_depth = max_depth;
    opt.dir = dir;
    opt.keep_levels = true;
    const auto r = bfs::search(*be, a, sources, opt);
    ASSERT_EQ(r.levels.rows, static_cast<index_t>(sources.size()));
    EXPECT_EQ(opsparse::check(r.levels), "");
    for (std::size_t k = 0; k < sources.size(); ++k)
      EXPECT_TRUE(same_as_queue_bfs(a, r, k, sources[k], max_depth));
    EXPECT_EQ(be->products(), push_products(a, sources, max_depth));
    EXPECT_EQ(be->edges_traversed(), be->products());
    EXPECT_EQ(be->last_batch_note(), "push");
    opt.keep_levels = false;
    const auto s = bfs::search(*be, a, sources, opt);
    ASSERT_EQ(s.summary.size(), r.summary.size());
    for (std::size_t k = 0; k < s.summary.size(); ++k) {
      EXPECT_EQ(s.summary[k].reached, r.summary[k].reached);
      EXPECT_EQ(s.summary[k].level_sum, r.summary[k].level_sum);
      EXPECT_EQ(s.summary[k].eccentricity, r.summary[k].eccentricity);
    }
  }
}

TEST(Msbfs, ProductLevelsOnTheCpuEqualQueueBfs) {
  const auto path = adjacency(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
  const auto pieces = adjacency(7, {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {6, 6}});
  for (bool undirected : {false, true}) {
    SCOPED_TRACE(undirected ? "undirected" : "directed");
    check_product_levels(bfs::graph_pattern(path, undirected), all_vertices(6), 0);
    for (level_t d : {0, 1, 3})
      check_product_levels(bfs::graph_pattern(path, undirected), {0, 2}, 1, d);
    check_product_levels(bfs::graph_pattern(pieces, undirected), {5, 6, 0, 0, 3}, 2);
  }
  check_product_levels(bfs::graph_pattern(host_csr<double>(4, 4), false), all_vertices(4), 0);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const index_t n = static_cast<index_t>(40 + 60 * seed);
    const auto adj = opsparse::test::random_csr<double>(n, n, 0.6 + 0.8 * seed, seed + 20);
    for (bool undirected : {false, true}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + (undirected ? " undirected" : " directed"));
      const auto a = bfs::graph_pattern(adj, undirected);
      for (index_t b : {0, 7, 64}) check_product_levels(a, all_vertices(n), b);
    }
  }
}

/// A path 0 -> 1 -> ... -> n-1.
host_csr<double> path_graph(index_t n) {
  std::vector<std::pair<index_t, index_t>> e;
  for (index_t i = 0; i + 1 < n; ++i) e.emplace_back(i, i + 1);
  return adjacency(n, std::move(e));
}

TEST(Msbfs, LongPathCostsLinearWork) {
  // 100k levels of one vertex each, which once cost a product over n columns and a copy
  // of V per level (46 s); the work is now a few steps per vertex and edge.
  const index_t n = 100000;
  const auto adj = path_graph(n);
  for (bool undirected : {false, true}) {
    SCOPED_TRACE(undirected ? "undirected" : "directed");
    const auto a = bfs::graph_pattern(adj, undirected);
    const std::vector<index_t> sources{0, n / 2, n - 1, 0};
    auto be = bfs::make_cpu_backend();
    bfs::options opt;
    opt.keep_levels = true;
    const auto r = bfs::search(*be, a, sources, opt);
    for (std::size_t k = 0; k < sources.size(); ++k)
      EXPECT_TRUE(same_as_queue_bfs(a, r, k, sources[k]));
    EXPECT_EQ(r.summary[0].reached, n);
    EXPECT_EQ(r.summary[0].level_sum, static_cast<std::int64_t>(n) * (n - 1) / 2);
    EXPECT_EQ(r.summary[0].eccentricity, n - 1);
    EXPECT_EQ(r.summary[2].reached, undirected ? n : 1);
    EXPECT_EQ(be->products(), push_products(a, sources, -1));
    // One 64-source word: every vertex is listed, expanded, found and cleared a few times.
    EXPECT_LE(be->work(), 4 * (be->products() + r.levels.nnz()));
    EXPECT_LE(be->work(), 40 * static_cast<offset_t>(n));
  }
  // Stopped at depth 300, then a search from elsewhere: nothing left over from the last one.
  const auto a = bfs::graph_pattern(adj, false);
  check_sources(a, {0, n - 301, n / 3}, 1, 300);
}

/// A rows x cols street grid, road-network shaped (high diameter, degree at most 4): a tenth of
/// the streets missing and a fifth one-way, the rest both ways.
host_csr<double> road_grid(index_t rows, index_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::pair<index_t, index_t>> e;
  auto street = [&](index_t x, index_t y) {
    const double p = u(rng);
    if (p < 0.1) return;
    if (p < 0.2)
      e.emplace_back(x, y);
    else if (p < 0.3)
      e.emplace_back(y, x);
    else {
      e.emplace_back(x, y);
      e.emplace_back(y, x);
    }
  };
  for (index_t r = 0; r < rows; ++r)
    for (index_t c = 0; c < cols; ++c) {
      const index_t v = r * cols + c;
      if (c + 1 < cols) street(v, v + 1);
      if (r + 1 < rows) street(v, v + cols);
    }
  return adjacency(rows * cols, std::move(e));
}

TEST(Msbfs, RoadLikeGridEqualsQueueBfs) {
  const auto adj = road_grid(90, 110, 7);  // 9,900 crossings
  for (bool undirected : {false, true}) {
    SCOPED_TRACE(undirected ? "undirected" : "directed");
    const auto a = bfs::graph_pattern(adj, undirected);
    auto sources = bfs::random_sources(a.rows, 100, 3);  // two words of bitmap
    sources.push_back(sources[5]);
    check_sources(a, sources);
    check_sources(a, sources, 64, -1, 2);
    check_sources(a, sources, 0, 40);
  }
}

TEST(Msbfs, LevelsNeedKeepLevels) {
  const auto a = bfs::graph_pattern(path_graph(4), false);
  auto be = bfs::make_cpu_backend();
  be->load(a);
  be->configure(bfs::direction::automatic, false);
  be->start({0});
  EXPECT_EQ(be->advance(1), 1);
  EXPECT_THROW(be->levels(), std::invalid_argument);
  EXPECT_THROW(be->start({4}), std::invalid_argument);
}

TEST(Msbfs, GraphPatternDropsLoopsAndSymmetrises) {
  const auto adj = adjacency(3, {{0, 0}, {0, 1}, {1, 0}, {2, 1}, {2, 2}});
  const auto d = bfs::graph_pattern(adj, false);
  EXPECT_EQ(d.rpt, (std::vector<offset_t>{0, 1, 2, 3}));
  EXPECT_EQ(d.col, (std::vector<index_t>{1, 0, 1}));
  const auto u = bfs::graph_pattern(adj, true);
  EXPECT_EQ(u.rpt, (std::vector<offset_t>{0, 1, 3, 4}));
  EXPECT_EQ(u.col, (std::vector<index_t>{1, 0, 2, 1}));
  EXPECT_THROW(bfs::graph_pattern(host_csr<double>(2, 3), false), std::invalid_argument);
}

TEST(Msbfs, SourcesResolveLabelsAndRejectAbsentIds) {
  const std::vector<std::string> labels{"10", "YAL001C", "7", "-3"};
  EXPECT_EQ(bfs::resolve_sources({"7", "10", "YAL001C", "7", "-3"}, labels, "g"),
            (std::vector<index_t>{2, 0, 1, 2, 3}));
  EXPECT_EQ(bfs::resolve_sources({"007", "+10", "-03"}, labels, "g"),
            (std::vector<index_t>{2, 0, 3}));
  try {
    bfs::resolve_sources({"10", "11"}, labels, "graph.txt");
    FAIL() << "absent id accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'11'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("graph.txt"), std::string::npos) << e.what();
  }
  EXPECT_THROW(bfs::resolve_sources({"yal001c"}, labels, "g"), std::runtime_error);
}

TEST(Msbfs, SourcesArgument) {
  EXPECT_EQ(bfs::parse_sources_argument("1,5,9"), (std::vector<std::string>{"1", "5", "9"}));
  EXPECT_EQ(bfs::parse_sources_argument(" 1 , 5,5"), (std::vector<std::string>{"1", "5", "5"}));
  EXPECT_EQ(bfs::parse_sources_argument("YAL001C"), (std::vector<std::string>{"YAL001C"}));
  for (const char* bad : {"", " ", ",", "1,,2", "1,"})
    EXPECT_THROW(bfs::parse_sources_argument(bad), std::invalid_argument) << "'" << bad << "'";
  const auto dir =
      std::filesystem::temp_directory_path() / ("opsparse_msbfs_src_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "s.txt") << "# sources\n3\n\n  4  \r\n3\n";
  EXPECT_EQ(bfs::parse_sources_argument((dir / "s.txt").string()),
            (std::vector<std::string>{"3", "4", "3"}));
  std::ofstream(dir / "empty.txt") << "# nothing\n";
  EXPECT_THROW(bfs::parse_sources_argument((dir / "empty.txt").string()), std::runtime_error);
  std::filesystem::remove_all(dir);
}

TEST(Msbfs, RandomSourcesAreDistinctAndSeeded) {
  const auto s = bfs::random_sources(100, 64, 42);
  EXPECT_EQ(s.size(), 64u);
  EXPECT_EQ(std::set<index_t>(s.begin(), s.end()).size(), 64u);
  for (index_t v : s) EXPECT_TRUE(v >= 0 && v < 100);
  EXPECT_EQ(s, bfs::random_sources(100, 64, 42));
  EXPECT_NE(s, bfs::random_sources(100, 64, 43));
  EXPECT_EQ(bfs::random_sources(5, 5, 1).size(), 5u);
  EXPECT_THROW(bfs::random_sources(5, 6, 1), std::runtime_error);
}

TEST(Msbfs, DefaultBatch) {
  EXPECT_EQ(bfs::default_batch(1000, 10, 1 << 24), 10);
  EXPECT_EQ(bfs::default_batch(1000, 100000, 1 << 24), 1024);
  EXPECT_EQ(bfs::default_batch(1 << 20, 100000, 1 << 24), 16);
  EXPECT_EQ(bfs::default_batch(1 << 30, 100000, 1 << 24), 1);
  EXPECT_EQ(bfs::default_batch(0, 3, 1 << 24), 3);
}

// ---- the command line ----------------------------------------------------------------------

using app_test::cli_result;

cli_result run(std::vector<std::string> args) {
  return app_test::run_program(bfs::run_cli, "opsparse-msbfs", std::move(args));
}

class MsbfsCli : public app_test::temp_dir_test {
 protected:
  MsbfsCli() : temp_dir_test("opsparse_msbfs_cli_") {}
  void SetUp() override {
    temp_dir_test::SetUp();
    // Directed: 10 -> 20 -> 30, 40 -> 10; vertex 50 only as a loop.
    graph_ = write("g.txt", "# test graph\n10 20\n20 30\n40 10\n50 50\n");
  }
  std::string graph_;
};

TEST_F(MsbfsCli, LevelsSummaryAndTotals) {
  const auto r = run({graph_, "--backend", "cpu", "--sources", "40,30,40", "--levels",
                      path("levels"), "--summary", path("summary"), "--batch", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read("levels"),
            "40\t10\t1\n40\t20\t2\n40\t30\t3\n40\t40\t0\n"
            "30\t30\t0\n"
            "40\t10\t1\n40\t20\t2\n40\t30\t3\n40\t40\t0\n");
  EXPECT_EQ(read("summary"),
            "# source\treached\tsum_of_levels\teccentricity\tcloseness\n"
            "40\t4\t6\t3\t0.5\n30\t1\t0\t0\t0\n40\t4\t6\t3\t0.5\n");
  EXPECT_EQ(r.out,
            "sources\t3\nreached\t9\nsum_of_levels\t12\nmax_eccentricity\t3\n"
            "mean_closeness\t0.333333333333\n");
  EXPECT_NE(r.err.find("batch 1/2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("batch 2/2"), std::string::npos) << r.err;

  const auto u = run({graph_, "-u", "-q", "--sources", "30", "--summary", path("summary")});
  ASSERT_EQ(u.status, 0) << u.err;
  EXPECT_TRUE(u.err.empty()) << u.err;
  EXPECT_EQ(read("summary"),
            "# source\treached\tsum_of_levels\teccentricity\tcloseness\n30\t4\t6\t3\t0.5\n");

  const auto d =
      run({graph_, "-q", "--sources", "40", "--max-depth", "1", "--levels", path("levels")});
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(read("levels"), "40\t10\t1\n40\t40\t0\n");
}

TEST_F(MsbfsCli, VerboseListsEveryLevelWithItsFrontier) {
  // From 40: 10 at level 1, 20 at 2, 30 at 3, nothing at 4 (the level that ends the search).
  for (const char* dir : {"push", "pull"}) {
    const auto r = run({graph_, "-V", "--backend", "cpu", "--sources", "40", "--direction", dir});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string how = std::string(" ") + dir + ": ";
    for (const char* l : {"level 1", "level 2", "level 3", "level 4"})
      EXPECT_NE(r.err.find(std::string(l) + how), std::string::npos) << l << "\n" << r.err;
    EXPECT_EQ(r.err.find("level 5"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" ms, frontier 1\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" ms, frontier 0\n"), std::string::npos) << r.err;
  }
  const auto q = run({graph_, "--backend", "cpu", "--sources", "40"});
  EXPECT_EQ(q.err.find("level 1"), std::string::npos) << q.err;  // only with -V
}

TEST_F(MsbfsCli, SourcesFromFileAndRandom) {
  const std::string s = write("sources.txt", "50\n10\n");
  const auto f = run({graph_, "-q", "--sources", s});
  ASSERT_EQ(f.status, 0) << f.err;
  EXPECT_EQ(f.out.substr(0, f.out.find("sum")), "sources\t2\nreached\t4\n");
  const auto r1 = run({graph_, "-q", "--random", "5", "--seed", "3", "--summary", path("a")});
  const auto r2 = run({graph_, "-q", "--random", "5", "--seed", "3", "--summary", path("b")});
  ASSERT_EQ(r1.status, 0) << r1.err;
  EXPECT_EQ(r1.out, r2.out);
  EXPECT_EQ(read("a"), read("b"));
  const auto mtx =
      write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n");
  const auto m = run({mtx, "-q", "--sources", "1", "--levels", path("levels")});
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_EQ(read("levels"), "1\t1\t0\n1\t2\t1\n1\t3\t2\n");  // 1-based labels
}

TEST_F(MsbfsCli, ClearErrors) {
  const auto absent = run({graph_, "--sources", "10,99"});
  EXPECT_EQ(absent.status, 1);
  EXPECT_NE(absent.err.find("'99' is not a vertex of " + graph_), std::string::npos) << absent.err;
  const auto zero_based = run({write("g.mtx",
                                     "%%MatrixMarket matrix coordinate pattern general\n"
                                     "2 2 1\n1 2\n"),
                               "--sources", "0"});
  EXPECT_EQ(zero_based.status, 1);
  EXPECT_EQ(run({graph_, "--random", "6"}).status, 1);  // 5 vertices
  EXPECT_EQ(run({graph_}).status, 2);                   // no sources
  EXPECT_EQ(run({graph_, "--sources", "10", "--random", "2"}).status, 2);
  EXPECT_EQ(run({graph_, "--random", "0"}).status, 2);
  EXPECT_EQ(run({graph_, "--sources", "10", "--batch", "-1"}).status, 2);
  EXPECT_EQ(run({graph_, "--sources", "10", "--backend", "fpga"}).status, 2);
  EXPECT_EQ(run({"--sources", "10"}).status, 2);
  EXPECT_EQ(run({"--help"}).status, 0);
  const auto bad = run({write("bad.txt", "1 2\n2\n"), "--sources", "1"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("bad.txt:2"), std::string::npos) << bad.err;
  const auto missing = run({path("missing.txt"), "--sources", "1"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("missing.txt"), std::string::npos) << missing.err;
  const auto unwritable = run({graph_, "--sources", "10", "--levels", path("no/such/file")});
  EXPECT_EQ(unwritable.status, 1);
  EXPECT_NE(unwritable.err.find("cannot write"), std::string::npos) << unwritable.err;
  const auto no_ids = run({graph_, "--sources", write("none.txt", "# nothing\n\n")});
  EXPECT_EQ(no_ids.status, 1);
  EXPECT_NE(no_ids.err.find("lists no ids"), std::string::npos) << no_ids.err;
}

TEST_F(MsbfsCli, EmptyAndGarbageValuesNameTheirOption) {
  // {arguments after GRAPH, the option the message must name}. `--sources ''` used to fall
  // through to --random and report "--random 18446744073709551615".
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--sources", ""}, "--sources"},
      {{"--sources", " "}, "--sources"},
      {{"--sources", ","}, "--sources"},
      {{"--sources", "10,,20"}, "--sources"},
      {{"--sources", "10,"}, "--sources"},
      {{"--random", ""}, "--random"},
      {{"--random", "x"}, "--random"},
      {{"--random", "2x"}, "--random"},
      {{"--random", "-3"}, "--random"},
      {{"--random", "99999999999999999999"}, "--random"},
      {{"--random", "2", "--seed", ""}, "--seed"},
      {{"--random", "2", "--seed", "-1"}, "--seed"},
      {{"--random", "2", "--seed", "x"}, "--seed"},
      {{"--random", "2", "--seed", "18446744073709551616"}, "--seed"},
      {{"--sources", "10", "--batch", ""}, "--batch"},
      {{"--sources", "10", "--batch", "-1"}, "--batch"},
      {{"--sources", "10", "--batch", "1.5"}, "--batch"},
      {{"--sources", "10", "--batch", "2000000000"}, "--batch"},
      {{"--sources", "10", "--max-depth", ""}, "--max-depth"},
      {{"--sources", "10", "--max-depth", "-2"}, "--max-depth"},
      {{"--sources", "10", "--max-depth", "x"}, "--max-depth"},
      {{"--sources", "10", "--direction", ""}, "--direction"},
      {{"--sources", "10", "--direction", "sideways"}, "--direction"},
      {{"--sources", "10", "--levels", ""}, "--levels"},
      {{"--sources", "10", "--summary", ""}, "--summary"},
      {{"--sources", "10", "--format", ""}, "--format"},
      {{"--sources", "10", "--format", "csv"}, "--format"},
      {{"--sources", "10", "--backend", ""}, "--backend"},
      {{"--sources", "10", "--threads", ""}, "--threads"},
      {{"--sources", "10", "--threads", "-1"}, "--threads"},
      {{"--sources", "10", "--threads", "two"}, "--threads"},
  };
  for (const auto& [args, option] : cases) {
    std::vector<std::string> argv{graph_};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = run(argv);
    std::string shown;
    for (const auto& a : args) shown += " '" + a + "'";
    EXPECT_EQ(r.status, 2) << shown << ": " << r.err;
    EXPECT_NE(r.err.find(option), std::string::npos) << shown << ": " << r.err;
    EXPECT_EQ(r.err.find("18446744073709551615"), std::string::npos) << shown << ": " << r.err;
    EXPECT_NE(r.err.find("--help"), std::string::npos) << shown << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << shown;
  }
  // Values at the edges of their ranges are accepted.
  for (const std::vector<std::string>& ok :
       {std::vector<std::string>{"--random", "1", "--seed", "18446744073709551615"},
        {"--random", "1", "--seed", "0"},
        {"--sources", "10", "--max-depth", "-1", "--batch", "0", "--threads", "0"}}) {
    std::vector<std::string> argv{graph_, "-q"};
    argv.insert(argv.end(), ok.begin(), ok.end());
    const auto r = run(argv);
    EXPECT_EQ(r.status, 0) << ok[0] << " " << ok[1] << ": " << r.err;
  }
}

TEST_F(MsbfsCli, HelpStatesGraphSemanticsAndCloseness) {
  const auto help = run({"--help"});
  ASSERT_EQ(help.status, 0);
  for (const char* want :
       {"DIRECTED by default", "-u/--undirected follows every edge both ways", "opsparse-triangle",
        "closeness = (reached - 1) / sum of levels", "mean_closeness"})
    EXPECT_NE(help.out.find(want), std::string::npos) << want << "\n" << help.out;
  // What the help says: directed by default, 30 (a sink) reaches nothing: closeness 0; with -u
  // it reaches 20, 10 and 40 at levels 1, 2, 3: closeness 3 / 6.
  const auto d = run({graph_, "-q", "--sources", "30", "--summary", path("d")});
  const auto u = run({graph_, "-q", "-u", "--sources", "30", "--summary", path("u")});
  ASSERT_EQ(d.status, 0) << d.err;
  ASSERT_EQ(u.status, 0) << u.err;
  EXPECT_NE(read("d").find("30\t1\t0\t0\t0\n"), std::string::npos) << read("d");
  EXPECT_NE(read("u").find("30\t4\t6\t3\t0.5\n"), std::string::npos) << read("u");
}

}  // namespace

// ---- outputs survive failures, the backend is named, threads are capped --------------------

TEST_F(MsbfsCli, AFailedRunLeavesExistingOutputsAsTheyWere) {
  const std::string levels = write("levels.txt", "precious levels\n");
  const std::string summary = write("summary.txt", "precious summary\n");
  // Source 99 is not in the graph: an input error after the outputs were opened.
  const auto r = run({graph_, "--sources", "99", "--levels", levels, "--summary", summary});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(read("levels.txt"), "precious levels\n");
  EXPECT_EQ(read("summary.txt"), "precious summary\n");
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    EXPECT_NE(e.path().filename().string().front(), '.') << "left behind: " << e.path();
  const auto same = run({graph_, "--sources", "10", "--levels", graph_});
  EXPECT_EQ(same.status, 2);
  EXPECT_NE(same.err.find("is the input file"), std::string::npos) << same.err;
  EXPECT_EQ(read("g.txt"), "# test graph\n10 20\n20 30\n40 10\n50 50\n");
}

TEST_F(MsbfsCli, NamesTheBackendCapsThreadsAndHasAVersion) {
  const auto r = run({graph_, "--sources", "10", "--backend", "cpu", "--threads", "100000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("[opsparse-msbfs] backend: cpu (--backend cpu)\n"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("warning: --threads 100000 is more than the"), std::string::npos) << r.err;
  EXPECT_EQ(run({graph_, "-q", "--sources", "10", "--backend", "cpu"}).err, "");
  const auto v = run({"--version"});
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out.rfind("opsparse-msbfs (OpSparse) ", 0), 0u) << v.out;
}
