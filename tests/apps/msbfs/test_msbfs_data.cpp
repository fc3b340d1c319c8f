// opsparse-msbfs on the shared real data sets: levels of every graph in graphs/ and ppi/ against a
// plain queue BFS per source (directed and undirected), and the BFS facts of
// reference/graph-facts.tsv. Skipped without ../shared/datasets.
//
// graph-facts.tsv's BFS columns were computed on the symmetrised graph: its rows equal the
// undirected search and not the directed one (email-Eu-core from 0 reaches 986 vertices
// undirected, 965 directed), which UndirectedMatchesGraphFacts checks too. Its source labels are
// the ids as written for edge lists and .abc files, and 1-based row numbers for .mtx files, as
// io::read_graph labels them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "msbfs_test_util.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

namespace bfs = opsparse::msbfs;
namespace fs = std::filesystem;
using namespace msbfs_test;

/// Every regular file of graphs/ and ppi/, sorted.
std::vector<std::string> graph_files(const std::string& root) {
  std::vector<std::string> files;
  for (const char* dir : {"graphs", "ppi"})
    for (const auto& e : fs::directory_iterator(fs::path(root) / dir))
      if (e.is_regular_file()) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(MsbfsDatasets, LevelsEqualQueueBfs) {
  OPSPARSE_REQUIRE_DATASETS();
  const auto files = graph_files(opsparse::test::datasets_dir());
  ASSERT_FALSE(files.empty());
  int checked = 0;
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const auto g = opsparse::io::read_graph(file);
    // 64 random sources on every graph (about 16 s on two cores for all 24, the largest being
    // p2p-Gnutella31 with 62,586 vertices).
    const auto sources =
        bfs::random_sources(g.adj.rows, std::min<std::size_t>(64, g.adj.rows), 2024);
    for (bool undirected : {false, true}) {
      const auto a = bfs::graph_pattern(g.adj, undirected);
      auto be = bfs::make_cpu_backend();
      bfs::options opt;
      opt.keep_levels = true;
      opt.batch = 24;  // several batches per graph, the last one partial
      const auto r = bfs::search(*be, a, sources, opt);
      ASSERT_EQ(r.summary.size(), sources.size());
      for (std::size_t s = 0; s < sources.size(); ++s) {
        const auto ok = same_as_queue_bfs(a, r, s, sources[s]);
        EXPECT_TRUE(ok) << (undirected ? "undirected" : "directed");
        checked += static_cast<bool>(ok);
      }
    }
  }
  std::cout << "[ checked  ] " << checked << " BFS rows (directed and undirected) of "
            << files.size() << " graphs against queue BFS\n";
}

TEST(MsbfsDatasets, UndirectedMatchesGraphFacts) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string root = opsparse::test::datasets_dir();
  const auto rows = tsv_rows(root + "/reference/graph-facts.tsv");
  ASSERT_FALSE(rows.empty());
  // Group the rows by file: one search per file from all its listed sources.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::vector<std::string>>> by_file;
  for (const auto& r : rows) {
    ASSERT_GE(r.size(), 8u);
    if (!by_file.count(r[0])) order.push_back(r[0]);
    by_file[r[0]].push_back(r);
  }
  int matched = 0;
  for (const std::string& file : order) {
    SCOPED_TRACE(file);
    const auto g = opsparse::io::read_graph(root + "/" + file);
    std::vector<std::string> ids;
    for (const auto& r : by_file[file]) ids.push_back(r[4]);
    const auto sources = bfs::resolve_sources(ids, g.labels, file);
    auto be = bfs::make_cpu_backend();
    const auto res = bfs::search(*be, bfs::graph_pattern(g.adj, true), sources, {});
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const auto& r = by_file[file][k];
      const auto& s = res.summary[k];
      EXPECT_EQ(s.reached, std::stoll(r[5])) << "source " << ids[k];
      EXPECT_EQ(s.level_sum, std::stoll(r[6])) << "source " << ids[k];
      EXPECT_EQ(s.eccentricity, std::stoll(r[7])) << "source " << ids[k];
      matched += s.reached == std::stoll(r[5]) && s.level_sum == std::stoll(r[6]) &&
                 s.eccentricity == std::stoll(r[7]);
    }
  }
  std::cout << "[ matched  ] " << matched << " of " << rows.size()
            << " BFS rows of reference/graph-facts.tsv\n";

  // The facts are those of the symmetrised graph: the directed search differs on a directed one.
  const auto g = opsparse::io::read_graph(root + "/graphs/email-Eu-core.txt");
  auto be = bfs::make_cpu_backend();
  const auto src = bfs::resolve_sources({"0"}, g.labels, "email-Eu-core");
  EXPECT_EQ(bfs::search(*be, bfs::graph_pattern(g.adj, true), src, {}).summary[0].reached, 986);
  EXPECT_EQ(bfs::search(*be, bfs::graph_pattern(g.adj, false), src, {}).summary[0].reached, 965);
}

}  // namespace
