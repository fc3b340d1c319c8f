// opsparse-triangle on small graphs with known answers: every method, every ordering, per-vertex
// counts against a brute-force reference, graph preparation, the presort rule and the command
// line (exit codes and messages).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "opsparse/io.hpp"
#include "test_support.hpp"
#include "triangle/triangle.hpp"
#include "triangle/triangle_cli.hpp"
#include "triangle_test_util.hpp"

namespace {

namespace tri = opsparse::triangle;
using namespace triangle_test;

constexpr tri::presort all_orders[] = {tri::presort::none, tri::presort::ascending,
                                       tri::presort::descending, tri::presort::automatic};

/// Counts `adj` with every method and ordering on the CPU backend; every total must be
/// `expected` and every per-vertex vector the brute-force one.
void check_all_ways(const host_csr<double>& adj, std::int64_t expected) {
  const auto a = tri::simple_undirected(adj);
  const auto reference = brute_force_per_vertex(a);
  ASSERT_EQ(total_of(reference), expected) << "the brute-force reference disagrees";
  for (tri::method m : all_methods)
    for (tri::presort p : all_orders)
      for (bool per_vertex : {false, true}) {
        SCOPED_TRACE(std::string(tri::to_string(m)) + " presort " + tri::to_string(p) +
                     (per_vertex ? " per-vertex" : ""));
        auto be = tri::make_cpu_backend();
        tri::options opt;
        opt.how = m;
        opt.sort = p;
        opt.per_vertex = per_vertex;
        const tri::result r = tri::count_triangles(*be, a, opt);
        EXPECT_EQ(r.triangles, expected);
        if (per_vertex)
          EXPECT_EQ(r.per_vertex, reference);
        else
          EXPECT_TRUE(r.per_vertex.empty());
        if (per_vertex) continue;
        // In parts: 2, 3 and 7 ranges of rows and of the inner dimension, and more parts than
        // vertices (empty ranges).
        for (int parts : {2, 3, 7, a.rows + 2}) {
          opt.parts = parts;
          EXPECT_EQ(tri::count_triangles(*be, a, opt).triangles, expected) << parts << " parts";
        }
      }
}

TEST(Triangle, EmptyGraph) {
  check_all_ways(host_csr<double>(0, 0), 0);
  check_all_ways(host_csr<double>(5, 5), 0);  // vertices, no edges
}

TEST(Triangle, SingleTriangle) { check_all_ways(adjacency(3, {{0, 1}, {1, 2}, {2, 0}}), 1); }

TEST(Triangle, CompleteGraphs) {
  check_all_ways(complete_graph(4), 4);
  check_all_ways(complete_graph(5), 10);
  check_all_ways(complete_graph(12), 220);
}

TEST(Triangle, StarAndPath) {
  std::vector<std::pair<index_t, index_t>> star, path;
  for (index_t i = 1; i < 8; ++i) star.emplace_back(0, i);
  for (index_t i = 0; i + 1 < 8; ++i) path.emplace_back(i, i + 1);
  check_all_ways(adjacency(8, star), 0);
  check_all_ways(adjacency(8, path), 0);
}

TEST(Triangle, TrianglesSharingAnEdge) {
  // Two triangles on edge 1-2, a pendant vertex 4 and an isolated vertex 5.
  check_all_ways(adjacency(6, {{0, 1}, {0, 2}, {1, 2}, {3, 1}, {3, 2}, {3, 4}}), 2);
}

TEST(Triangle, LoopsAndBothDirectionsAreOneEdge) {
  // K4 with every self-loop and every edge listed in both directions.
  std::vector<std::pair<index_t, index_t>> e;
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 4; ++j) e.emplace_back(i, j);
  const auto adj = adjacency(4, e);
  const auto a = tri::simple_undirected(adj);
  EXPECT_EQ(a.nnz(), 12);  // 6 undirected edges, no diagonal
  EXPECT_EQ(opsparse::check(a), "");
  check_all_ways(adj, 4);
}

TEST(Triangle, LoopsAndDuplicatesInFiles) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("opsparse_tri_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Edge list: a triangle 10-20-30 listed with repeats, reversed copies and loops, plus a
  // pendant edge; ids are arbitrary.
  {
    std::ofstream f(dir / "g.txt");
    f << "# comment\n10 20\n20 10\n10 20\n20 30\n30 30\n30 10\n10 10\n30 40\n";
  }
  // Matrix Market: K4 as a general matrix with duplicated entries (summed by the reader) and
  // diagonal entries.
  {
    std::ofstream f(dir / "g.mtx");
    f << "%%MatrixMarket matrix coordinate real general\n4 4 10\n"
         "1 2 1\n2 1 1\n1 2 1\n1 3 1\n3 2 1\n4 1 1\n4 2 1\n3 4 1\n1 1 5\n4 4 1\n";
  }
  // ABC: a triangle with a loop line, as in ghsom_Ito_core.abc.
  {
    std::ofstream f(dir / "g.abc");
    f << "a\tb\na\ta\nb\tc\nc\ta\nb\ta\t0.5\n";
  }
  const std::pair<const char*, std::int64_t> cases[] = {{"g.txt", 1}, {"g.mtx", 4}, {"g.abc", 1}};
  for (const auto& [name, expected] : cases) {
    SCOPED_TRACE(name);
    const auto g = opsparse::io::read_graph((dir / name).string());
    check_all_ways(g.adj, expected);
  }
  fs::remove_all(dir);
}

TEST(Triangle, RandomGraphsAgreeWithBruteForce) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const index_t n = static_cast<index_t>(20 + 37 * seed);
    const double per_row = 1.0 + 2.0 * static_cast<double>(seed);
    const auto adj = opsparse::test::random_csr<double>(n, n, per_row, seed);
    const auto a = tri::simple_undirected(adj);
    SCOPED_TRACE("seed " + std::to_string(seed));
    check_all_ways(adj, total_of(brute_force_per_vertex(a)));
  }
}

/// A graph LAGraph's rule sorts: a 200-clique in a 2000-cycle (mean degree ~21.9, median 2).
host_csr<double> skewed_graph() {
  std::vector<std::pair<index_t, index_t>> e;
  const index_t n = 2000;
  for (index_t i = 0; i < n; ++i) e.emplace_back(i, (i + 1) % n);
  for (index_t i = 0; i < 200; ++i)
    for (index_t j = i + 1; j < 200; ++j) e.emplace_back(i * 10, j * 10);
  return adjacency(n, e);
}

TEST(Triangle, AutomaticPresortSortsWhenLagraphDoes) {
  const auto skewed = tri::simple_undirected(skewed_graph());
  EXPECT_TRUE(tri::degrees_skewed(skewed));
  // The direction puts the higher-degree neighbours in the probed rows (triangle.hpp).
  EXPECT_EQ(tri::automatic_presort(skewed, tri::method::ul), tri::presort::descending);
  EXPECT_EQ(tri::automatic_presort(skewed, tri::method::sandia_ll), tri::presort::descending);
  EXPECT_EQ(tri::automatic_presort(skewed, tri::method::sandia_lut), tri::presort::descending);
  EXPECT_EQ(tri::automatic_presort(skewed, tri::method::sandia_uu), tri::presort::ascending);
  EXPECT_EQ(tri::automatic_presort(skewed, tri::method::sandia_ult), tri::presort::ascending);
  EXPECT_EQ(tri::automatic_presort(skewed, tri::method::cohen), tri::presort::none);
  EXPECT_EQ(tri::automatic_presort(skewed, tri::method::burkhardt), tri::presort::none);
  // Small graphs, sparse graphs and regular graphs stay as they are.
  EXPECT_EQ(
      tri::automatic_presort(tri::simple_undirected(complete_graph(40)), tri::method::sandia_ll),
      tri::presort::none);
  const auto regular =
      tri::simple_undirected(opsparse::test::random_csr<double>(3000, 3000, 12, 7));
  EXPECT_EQ(tri::automatic_presort(regular, tri::method::sandia_ll), tri::presort::none);
  EXPECT_FALSE(tri::degrees_skewed(regular));

  auto be = tri::make_cpu_backend();
  tri::options opt;
  opt.per_vertex = true;
  const auto r = tri::count_triangles(*be, skewed, opt);
  EXPECT_EQ(r.sorted, tri::presort::descending);
  EXPECT_EQ(r.per_vertex, brute_force_per_vertex(skewed));
  check_all_ways(skewed_graph(), 200LL * 199 * 198 / 6);
}

TEST(Triangle, ClusteringCoefficients) {
  const auto k4 = tri::simple_undirected(complete_graph(4));
  for (double c : tri::clustering_coefficients(k4, brute_force_per_vertex(k4)))
    EXPECT_DOUBLE_EQ(c, 1.0);
  // Triangle 0-1-2 with pendant 3 on vertex 2: c(2) = 1 / 3, c(3) = 0 (degree 1).
  const auto g = tri::simple_undirected(adjacency(4, {{0, 1}, {1, 2}, {2, 0}, {2, 3}}));
  const auto c = tri::clustering_coefficients(g, brute_force_per_vertex(g));
  EXPECT_DOUBLE_EQ(c[0], 1.0);
  EXPECT_DOUBLE_EQ(c[1], 1.0);
  EXPECT_DOUBLE_EQ(c[2], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(c[3], 0.0);
}

TEST(Triangle, MethodNames) {
  for (tri::method m : all_methods) EXPECT_EQ(tri::parse_method(tri::to_string(m)), m);
  for (tri::presort p : all_orders) EXPECT_EQ(tri::parse_presort(tri::to_string(p)), p);
  EXPECT_THROW(tri::parse_method("sandia"), std::invalid_argument);
  EXPECT_THROW(tri::parse_presort("random"), std::invalid_argument);
  EXPECT_THROW(tri::simple_undirected(host_csr<double>(3, 4)), std::invalid_argument);
}

// ---- the command line ----------------------------------------------------------------------

using app_test::cli_result;

cli_result run(std::vector<std::string> args) {
  return app_test::run_program(tri::run_cli, "opsparse-triangle", std::move(args));
}

class TriangleCli : public app_test::temp_dir_test {
 protected:
  TriangleCli() : temp_dir_test("opsparse_tri_cli_") {}
};

TEST_F(TriangleCli, CountsAndWritesPerVertexFiles) {
  // Triangle 10-20-30 with pendant 40 on 30.
  const std::string g = write("g.txt", "10 20\n20 30\n30 10\n30 40\n");
  for (const char* m :
       {"ul", "sandia-ll", "sandia-uu", "sandia-lut", "sandia-ult", "cohen", "burkhardt"}) {
    const auto r = run({"--backend", "cpu", "-m", m, g, "--per-vertex", (dir_ / "pv").string(),
                        "--clustering", (dir_ / "cc").string()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "1\n");
    EXPECT_EQ(read("pv"), "10\t1\n20\t1\n30\t1\n40\t0\n");
    EXPECT_EQ(read("cc"), "10\t1\n20\t1\n30\t0.333333333333\n40\t0\n");
  }
  const auto v = run({"-V", "--backend", "auto", g});
  EXPECT_EQ(v.status, 0);
  EXPECT_NE(v.err.find("product"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("4 vertices, 4 undirected edges"), std::string::npos) << v.err;
}

TEST_F(TriangleCli, HelpAndUsageErrors) {
  const auto help = run({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--method"), std::string::npos);
  EXPECT_EQ(run({}).status, 2);
  const std::string g = write("g.txt", "1 2\n");
  const auto bad_method = run({"-m", "fast", g});
  EXPECT_EQ(bad_method.status, 2);
  EXPECT_NE(bad_method.err.find("--method"), std::string::npos);
  EXPECT_EQ(run({"--presort", "sideways", g}).status, 2);
  EXPECT_EQ(run({"--backend", "tpu", g}).status, 2);
  EXPECT_EQ(run({"--format", "csv", g}).status, 2);
  EXPECT_EQ(run({"--no-such-option", g}).status, 2);
  EXPECT_EQ(run({g, g}).status, 2);
}

TEST_F(TriangleCli, EmptyAndGarbageValuesNameTheirOption) {
  const std::string g = write("g.txt", "1 2\n2 3\n3 1\n");
  // {arguments before GRAPH, the option the message must name}
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--method", ""}, "--method"},         {{"--method", "sandia"}, "--method"},
      {{"--presort", ""}, "--presort"},       {{"--presort", "sideways"}, "--presort"},
      {{"--per-vertex", ""}, "--per-vertex"}, {{"--clustering", ""}, "--clustering"},
      {{"--format", ""}, "--format"},         {{"--backend", ""}, "--backend"},
      {{"--threads", ""}, "--threads"},       {{"--threads", "-1"}, "--threads"},
      {{"--threads", "1.5"}, "--threads"},    {{"--threads", "99999999999"}, "--threads"},
  };
  for (const auto& [args, option] : cases) {
    std::vector<std::string> argv = args;
    argv.push_back(g);
    const auto r = run(argv);
    std::string shown;
    for (const auto& a : args) shown += " '" + a + "'";
    EXPECT_EQ(r.status, 2) << shown << ": " << r.err;
    EXPECT_NE(r.err.find(option), std::string::npos) << shown << ": " << r.err;
    EXPECT_NE(r.err.find("--help"), std::string::npos) << shown << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << shown << ": " << r.out;
  }
  const auto missing = run({g, "--method"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("--method"), std::string::npos) << missing.err;
}

TEST_F(TriangleCli, PartsCountTheSameAndRefuseWhatNeedsTheWholeProduct) {
  const std::string g = write("g.txt", "1 2\n2 3\n3 1\n3 4\n4 1\n2 4\n4 5\n5 1\n");
  for (const char* parts : {"1", "2", "5", "100"}) {
    const auto r = run({"--backend", "cpu", "--parts", parts, "-V", g});
    EXPECT_EQ(r.status, 0) << parts << "\n" << r.err;
    EXPECT_EQ(r.out, "5\n") << parts;
    if (std::string(parts) != "1")
      EXPECT_NE(r.err.find(std::string("in ") + parts + " x " + parts + " parts"),
                std::string::npos)
          << r.err;
  }
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--parts", "0", g},
        {"--parts", "-3", g},
        {"--parts", "2", "--per-vertex", (dir_ / "pv.tsv").string(), g},
        {"--parts", "2", "--materialize", g}}) {
    const auto r = run(bad);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--parts"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "pv.tsv"));
}

TEST_F(TriangleCli, HelpStatesTheGraphIsMadeUndirected) {
  const auto help = run({"--help"});
  ASSERT_EQ(help.status, 0);
  for (const char* want : {"ALWAYS made undirected", "no --directed", "opsparse-msbfs"})
    EXPECT_NE(help.out.find(want), std::string::npos) << want << "\n" << help.out;
  // As it says: one directed cycle, the same edges reversed and both at once are one triangle.
  for (const char* edges :
       {"1 2\n2 3\n3 1\n", "2 1\n3 2\n1 3\n", "1 2\n2 1\n2 3\n3 2\n1 3\n3 1\n"}) {
    const auto r = run({"--backend", "cpu", write("t.txt", edges)});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "1\n") << edges;
  }
}

TEST_F(TriangleCli, InputErrorsNameTheFileAndLine) {
  const std::string bad = write("bad.txt", "1 2\n2 3\n3 x\n");
  const auto r = run({bad});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(":3"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());

  const auto missing = run({(dir_ / "missing.txt").string()});
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("missing.txt"), std::string::npos) << missing.err;

  const std::string rect =
      write("rect.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 3\n");
  const auto r2 = run({rect});
  EXPECT_EQ(r2.status, 1);
  EXPECT_NE(r2.err.find("square"), std::string::npos) << r2.err;

  const std::string trunc =
      write("trunc.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1\n");
  EXPECT_EQ(run({trunc}).status, 1);

  const std::string g = write("g.txt", "1 2\n2 3\n3 1\n");
  const auto unwritable = run({g, "--per-vertex", (dir_ / "no" / "such" / "dir").string()});
  EXPECT_EQ(unwritable.status, 1);
  EXPECT_NE(unwritable.err.find("cannot write"), std::string::npos) << unwritable.err;
#if !OPSPARSE_HAS_GPU_ENGINE
  const auto gpu = run({"--backend", "gpu", g});
  EXPECT_EQ(gpu.status, 1);
  EXPECT_NE(gpu.err.find("GPU"), std::string::npos) << gpu.err;
#endif
}

TEST_F(TriangleCli, AFailedRunLeavesExistingOutputsAsTheyWere) {
  const std::string pv = write("pv.txt", "precious\n");
  const std::string bad = write("bad.txt", "1 2\n2 3\nthree 1\n");
  const auto r = run({bad, "--per-vertex", pv});
  EXPECT_EQ(r.status, 1);
  std::ifstream f(pv);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), "precious\n");
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    EXPECT_NE(e.path().filename().string().front(), '.') << "left behind: " << e.path();
  const std::string g = write("g.txt", "1 2\n2 3\n3 1\n");
  const auto same = run({g, "--clustering", g});
  EXPECT_EQ(same.status, 2);
  EXPECT_NE(same.err.find("is the input file"), std::string::npos) << same.err;
}

TEST_F(TriangleCli, NamesTheBackendCapsThreadsAndHasAVersion) {
  const std::string g = write("g.txt", "1 2\n2 3\n3 1\n");
  const auto r = run({g, "--backend", "cpu", "--threads", "100000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  EXPECT_NE(r.err.find("[opsparse-triangle] backend: cpu (--backend cpu)\n"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("warning: --threads 100000 is more than the"), std::string::npos) << r.err;
  EXPECT_EQ(run({g, "-q", "--backend", "cpu"}).err, "");
  const auto v = run({"--version"});
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out.rfind("opsparse-triangle (OpSparse) ", 0), 0u) << v.out;
}

}  // namespace
