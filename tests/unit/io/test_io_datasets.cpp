// The shared real data sets (../shared/datasets, never committed): every file must read, and the
// figures of reference/graph-facts.tsv and reference/spgemm-A2.tsv (computed with scipy, not by
// this project) must match. Skips when the folder is absent.
#include "opsparse/io.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "io_test_util.hpp"
#include "test_support.hpp"

namespace io = opsparse::io;
using opsparse::index_t;
using opsparse::offset_t;

namespace {

/// Undirected edges as the reference counts them: pattern symmetrised, loops dropped, deduplicated.
long long undirected_edges(const io::labelled_graph& g) {
  const auto s = io::symmetrize_max(g.adj);
  long long off_diagonal = 0;
  for (index_t i = 0; i < s.rows; ++i)
    for (offset_t k = s.rpt[i]; k < s.rpt[i + 1]; ++k) off_diagonal += s.col[k] != i;
  EXPECT_EQ(off_diagonal % 2, 0);
  return off_diagonal / 2;
}

bool is_mtx(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".mtx") == 0;
}

}  // namespace

TEST(IoDatasets, EveryFileReads) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string root = opsparse::test::datasets_dir();
  int files = 0;
  // Recorded, not asserted: a test's wall-clock time depends on the machine's load.
  double slowest = 0;
  std::string slowest_file;
  for (const char* sub : {"graphs", "ppi", "matrices"}) {
    const std::string dir = root + "/" + sub;
    ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
    std::vector<std::string> paths;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.is_regular_file()) paths.push_back(e.path().string());
    std::sort(paths.begin(), paths.end());
    for (const auto& p : paths) {
      SCOPED_TRACE(p);
      const auto t0 = std::chrono::steady_clock::now();
      io::labelled_graph g;
      ASSERT_NO_THROW(g = io::read_graph(p));
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      EXPECT_EQ(opsparse::check(g.adj), "");
      EXPECT_EQ(g.adj.rows, g.adj.cols);
      EXPECT_GT(g.adj.nnz(), 0);
      EXPECT_EQ(g.labels.size(), static_cast<std::size_t>(g.adj.rows));
      if (is_mtx(p)) {
        // The pattern reader gives the same structure as the valued one.
        const auto pat = io::read_matrix_market<opsparse::pattern>(p);
        EXPECT_EQ(pat.rpt, g.adj.rpt);
        EXPECT_EQ(pat.col, g.adj.col);
      }
      if (s > slowest) slowest = s, slowest_file = p;
      ++files;
    }
  }
  RecordProperty("slowest_read_seconds", std::to_string(slowest));
  RecordProperty("slowest_read_file", slowest_file);
  std::cout << "[ datasets ] read " << files << " files, slowest " << slowest << " s ("
            << slowest_file << ")\n";
  EXPECT_GE(files, 40);
}

TEST(IoDatasets, GraphFactsVerticesAndUndirectedEdges) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string root = opsparse::test::datasets_dir();
  const auto rows = opsparse::test::tsv_rows(root + "/reference/graph-facts.tsv");
  ASSERT_FALSE(rows.empty());
  // Each file has a row per BFS source; it is read once and every row is compared.
  struct facts {
    io::labelled_graph g;
    long long edges;
  };
  std::map<std::string, facts> graphs;
  int files = 0, checked = 0;
  for (const auto& r : rows) {
    ASSERT_GE(r.size(), 5u);
    const std::string& file = r[0];
    SCOPED_TRACE(file);
    auto it = graphs.find(file);
    if (it == graphs.end()) {
      auto g = io::read_graph(root + "/" + file);
      const long long e = undirected_edges(g);
      it = graphs.emplace(file, facts{std::move(g), e}).first;
      ++files;
    }
    EXPECT_EQ(it->second.g.adj.rows, std::stoll(r[1])) << "vertices";
    EXPECT_EQ(it->second.edges, std::stoll(r[2])) << "undirected edges";
    ++checked;
    // The BFS source is given by label (the 1-based row for .mtx files): it must exist.
    const auto& labels = it->second.g.labels;
    EXPECT_NE(std::find(labels.begin(), labels.end(), r[4]), labels.end())
        << "no vertex labelled " << r[4];
  }
  std::cout << "[ datasets ] graph-facts: " << checked << " rows of " << files
            << " files checked\n";
  EXPECT_GE(files, 40);
}

TEST(IoDatasets, SpgemmA2RowsNnzAndProducts) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string root = opsparse::test::datasets_dir();
  const auto rows = opsparse::test::tsv_rows(root + "/reference/spgemm-A2.tsv");
  ASSERT_FALSE(rows.empty());
  int checked = 0;
  for (const auto& r : rows) {
    ASSERT_GE(r.size(), 7u);
    SCOPED_TRACE(r[0]);
    const auto a = io::read_matrix_market<double>(root + "/" + r[0]);
    EXPECT_EQ(a.rows, std::stoll(r[1])) << "rows";
    EXPECT_EQ(a.nnz(), std::stoll(r[2])) << "nnz (symmetric expanded)";
    // Multiplications of A*A and the longest row also depend only on the structure read.
    long long mults = 0;
    offset_t longest = 0;
    for (index_t i = 0; i < a.rows; ++i) {
      longest = std::max(longest, a.rpt[i + 1] - a.rpt[i]);
      for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k)
        mults += a.rpt[a.col[k] + 1] - a.rpt[a.col[k]];
    }
    EXPECT_EQ(mults, std::stoll(r[3])) << "mults(A*A)";
    EXPECT_EQ(longest, std::stoll(r[6])) << "max_row_nnz";
    ++checked;
  }
  std::cout << "[ datasets ] spgemm-A2: " << checked << " matrices checked\n";
  EXPECT_EQ(checked, 20);
}

TEST(IoDatasets, TruncatedRealFilesAreNeverAcceptedAsSmallerMatrices) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string root = opsparse::test::datasets_dir();
  io_test::scratch_dir dir;
  std::mt19937_64 rng(7);
  int cuts = 0;
  for (const char* name :
       {"matrices/cage8.mtx", "matrices/delaunay_n10.mtx", "ppi/BSPMCL_jazz.mtx"}) {
    std::ifstream is(root + "/" + name, std::ios::binary);
    const std::string content((std::istreambuf_iterator<char>(is)),
                              std::istreambuf_iterator<char>());
    ASSERT_FALSE(content.empty()) << name;
    // Any cut before the start of the last line loses at least one announced entry.
    const std::size_t last_line = content.find_last_of('\n', content.size() - 2) + 1;
    for (int k = 0; k < 20; ++k) {
      const std::size_t cut = rng() % last_line;
      const std::string p = dir.write("cut.mtx", content.substr(0, cut));
      EXPECT_THROW(io::read_matrix_market<double>(p), opsparse::parse_error)
          << name << " cut at " << cut;
      ++cuts;
    }
  }
  EXPECT_EQ(cuts, 60);
}
