// opsparse-triangle on the shared real data sets: every file of reference/graph-facts.tsv, every
// method, against the reference triangle counts (scipy; SNAP's published counts where they
// exist), and per-vertex counts against the brute-force reference.
#include <gtest/gtest.h>

#include <iostream>
#include <map>

#include "opsparse/io.hpp"
#include "test_support.hpp"
#include "triangle/triangle.hpp"
#include "triangle_test_util.hpp"

namespace {

namespace tri = opsparse::triangle;
using namespace triangle_test;

TEST(TriangleDatasets, EveryFileEveryMethodMatchesGraphFacts) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string root = opsparse::test::datasets_dir();
  const auto rows = tsv_rows(root + "/reference/graph-facts.tsv");
  ASSERT_FALSE(rows.empty()) << "cannot read " << root << "/reference/graph-facts.tsv";
  // Two rows per file (two BFS sources); one check per file.
  std::map<std::string, std::vector<std::string>> files;
  for (const auto& r : rows) {
    ASSERT_GE(r.size(), 4u);
    files.emplace(r[0], r);
  }
  int matched = 0;
  for (const auto& [file, r] : files) {
    SCOPED_TRACE(file);
    const auto g = opsparse::io::read_graph(root + "/" + file);
    const auto a = tri::simple_undirected(g.adj);
    EXPECT_EQ(a.rows, std::stoll(r[1])) << "vertices";
    EXPECT_EQ(a.nnz() / 2, std::stoll(r[2])) << "undirected edges";
    const std::int64_t expected = std::stoll(r[3]);
    const auto reference = brute_force_per_vertex(a);
    EXPECT_EQ(total_of(reference), expected) << "brute force";
    bool ok = true;
    for (tri::method m : all_methods) {
      auto be = tri::make_cpu_backend();
      tri::options opt;
      opt.how = m;
      // Per-vertex counts with the two families whose second products differ.
      opt.per_vertex = m == tri::method::ul || m == tri::method::sandia_ll ||
                       m == tri::method::sandia_uu || m == tri::method::cohen;
      const auto res = tri::count_triangles(*be, a, opt);
      EXPECT_EQ(res.triangles, expected) << tri::to_string(m);
      ok = ok && res.triangles == expected;
      if (opt.per_vertex) {
        EXPECT_EQ(res.per_vertex, reference) << tri::to_string(m);
        ok = ok && res.per_vertex == reference;
      }
    }
    // Degree orderings forced either way give the same count and per-vertex counts.
    for (tri::presort p : {tri::presort::ascending, tri::presort::descending}) {
      auto be = tri::make_cpu_backend();
      tri::options opt;
      opt.sort = p;
      opt.per_vertex = true;
      const auto res = tri::count_triangles(*be, a, opt);
      EXPECT_EQ(res.triangles, expected) << "presort " << tri::to_string(p);
      EXPECT_EQ(res.per_vertex, reference) << "presort " << tri::to_string(p);
      ok = ok && res.triangles == expected && res.per_vertex == reference;
    }
    matched += ok;
  }
  std::cout << "[ matched  ] " << matched << " of " << files.size()
            << " files of reference/graph-facts.tsv (6 methods, 2 orderings, per-vertex)\n";
}

}  // namespace
