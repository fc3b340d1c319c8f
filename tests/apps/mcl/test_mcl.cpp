// apps/mcl on the CPU backend: hand-written graphs with mcl's known output, the interpretation
// rules, input errors, the ppi references computed with mcl 22-282, and a live comparison with
// the `mcl` binary on generated graphs.
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "core/mcl.hpp"
#include "core/mcl_compat.hpp"
#include "mcl_reference.hpp"
#include "mcl_test_util.hpp"
#include "opsparse/error.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl;
using namespace opsparse::mcl::test;

struct cpu_files {
  static constexpr const char* name = "cpu";
};
class Mcl : public files_suite<cpu_files> {};

// ---- hand-written graphs ----------------------------------------------------------------------

TEST_F(Mcl, HandWrittenGraphsGiveMclsExactOutput) {
  for (const hand_case& h : hand_cases()) {
    for (precision prec : {precision::float32, precision::float64}) {
      const fs::path p = file(h.name + ".abc", h.abc);
      const labelled_result r = cluster_file(p.string(), params{}, false, prec);
      EXPECT_EQ(r.text, h.expected)
          << h.name << (prec == precision::float32 ? " float" : " double");
      EXPECT_TRUE(r.run.converged) << h.name;
    }
  }
}

TEST_F(Mcl, TwoTrianglesAndK4AreThreeClustersLargestFirst) {
  const fs::path p = file("tk.abc", hand_cases()[0].abc);
  const labelled_result r = cluster_file(p.string(), params{}, false, precision::float64);
  const partition got = parse_partition(r.text);
  const partition want = {{"a", "b", "c"}, {"d", "e", "f"}, {"g", "h", "i", "j"}, {"s"}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(r.text.substr(0, 8), "g\th\ti\tj\n");  // the K4 is the largest cluster
}

TEST_F(Mcl, IsolatedNodesAndLoopOnlyNodesAreSingletons) {
  // Built directly: node 2 has no edge at all (no ABC line can say so), node 5 only a loop.
  host_csr<double> a(7, 7);
  auto add = [&](std::vector<std::pair<index_t, double>> row, index_t i) {
    for (auto& e : row) {
      a.col.push_back(e.first);
      a.val.push_back(e.second);
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  };
  add({{1, 1.0}}, 0);
  add({{0, 1.0}}, 1);
  add({}, 2);
  add({{4, 1.0}, {6, 1.0}}, 3);
  add({{3, 1.0}, {6, 1.0}}, 4);
  add({{5, 3.0}}, 5);
  add({{3, 1.0}, {4, 1.0}}, 6);
  const host_csr<double> start = start_matrix(a, params{});
  // mcl's loops: every node gets a loop as heavy as its heaviest edge, 1 for an isolated node.
  EXPECT_EQ(start.rpt[3] - start.rpt[2], 1);
  EXPECT_EQ(start.col[start.rpt[2]], 2);
  EXPECT_DOUBLE_EQ(start.val[start.rpt[2]], 1.0);
  for (precision prec : {precision::float32, precision::float64}) {
    const cluster_result r = cluster(start, params{}, false, prec);
    const std::vector<std::vector<index_t>> want = {{3, 4, 6}, {0, 1}, {2}, {5}};
    EXPECT_EQ(r.result.clusters, want);
    EXPECT_EQ(r.result.missing, 0u);
  }
}

TEST_F(Mcl, ChaosAndIterationsFollowMcl) {
  // mcl -v all on this graph prints chaos 0.08 0.01 0.00 0.01 0.01 0.02 0.05 0.09 0.17 0.32
  // 0.48 0.39 0.07 0.00 0.00 and stops after 15 iterations.
  const double mcl_chaos[] = {0.08, 0.01, 0.00, 0.01, 0.01, 0.02, 0.05, 0.09,
                              0.17, 0.32, 0.48, 0.39, 0.07, 0.00, 0.00};
  const fs::path p = file("bridge.abc", hand_cases()[1].abc);
  io::labelled_graph g = io::read_graph(p.string());
  const host_csr<double> start = start_matrix(g.adj, params{});
  std::vector<double> chaos;
  const cluster_result r = cluster(start, params{}, false, precision::float32,
                                   [&](const iteration_info& it) { chaos.push_back(it.chaos); });
  ASSERT_EQ(r.iterations, 15);
  ASSERT_EQ(chaos.size(), 15u);
  for (std::size_t i = 0; i < chaos.size(); ++i)
    EXPECT_NEAR(chaos[i], mcl_chaos[i], 0.005 + 1e-9) << "iteration " << i + 1;
}

// ---- interpretation and overlap ---------------------------------------------------------------

TEST_F(Mcl, OverlapModesFollowMcl) {
  // mcl 22-282 on the 5-node line: cut {n0 n1 n2} {n3 n4}; split {n0 n1} {n3 n4} {n2};
  // keep {n0 n1 n2} {n2 n3 n4}. Likewise for 7 nodes with n3 in overlap.
  const fs::path p5 = file("line5.abc", "n0\tn1\nn1\tn2\nn2\tn3\nn3\tn4\n");
  const fs::path p7 = file("line7.abc", "n0\tn1\nn1\tn2\nn2\tn3\nn3\tn4\nn4\tn5\nn5\tn6\n");
  params p;
  p.overlap = overlap_mode::cut;
  EXPECT_EQ(cluster_file(p5.string(), p, false, precision::float64).text, "n0\tn1\tn2\nn3\tn4\n");
  EXPECT_EQ(cluster_file(p7.string(), p, false, precision::float64).text,
            "n0\tn1\tn2\tn3\nn4\tn5\tn6\n");
  p.overlap = overlap_mode::split;
  EXPECT_EQ(cluster_file(p5.string(), p, false, precision::float64).text, "n0\tn1\nn3\tn4\nn2\n");
  EXPECT_EQ(cluster_file(p7.string(), p, false, precision::float64).text,
            "n0\tn1\tn2\nn4\tn5\tn6\nn3\n");
  p.overlap = overlap_mode::keep;
  const labelled_result k = cluster_file(p5.string(), p, false, precision::float64);
  EXPECT_EQ(k.text, "n0\tn1\tn2\nn2\tn3\tn4\n");
  EXPECT_EQ(k.run.result.overlap, 1u);
}

TEST_F(Mcl, UnclaimedNodesFormOneClusterAsMclDoes) {
  // --discard-loops=n without loops: mcl 22-282 collects a, b, c, d into one "garbage" cluster.
  const fs::path f = file("garbage.abc", "a\tb\t0\nc\td\t0\ne\tf\n");
  params p;
  p.discard_loops = false;
  const labelled_result r = cluster_file(f.string(), p, false, precision::float64);
  EXPECT_EQ(r.text, "a\tb\tc\td\ne\nf\n");
  EXPECT_EQ(r.run.result.missing, 4u);
}

TEST_F(Mcl, DiscardLoopsOffAndLoopScaleFollowMcl) {
  const fs::path f = file("t6.abc", hand_cases()[4].abc);
  params p;
  p.discard_loops = false;
  EXPECT_EQ(cluster_file(f.string(), p, false, precision::float64).text,
            "a\tb\tc\nd\te\tf\ng\nh\ni\n");
  params c;
  c.loop_scale = 3;
  EXPECT_EQ(cluster_file(f.string(), c, false, precision::float64).text,
            "a\tb\tc\nd\te\tf\nh\ti\ng\n");
}

TEST_F(Mcl, InterpretFindsAttractorSystems) {
  // Limit (transposed): 0 and 1 are attractors flowing to each other (one system), 2 flows to
  // 0, 3 is an attractor of its own, 4 flows to both systems (overlap, cut to the larger).
  host_csr<double> l(5, 5);
  std::vector<std::vector<std::pair<index_t, double>>> rows = {
      {{0, 0.5}, {1, 0.5}}, {{0, 0.5}, {1, 0.5}}, {{0, 1.0}}, {{3, 1.0}}, {{1, 0.5}, {3, 0.5}}};
  for (index_t i = 0; i < 5; ++i) {
    for (auto& e : rows[i]) {
      l.col.push_back(e.first);
      l.val.push_back(e.second);
    }
    l.rpt[i + 1] = static_cast<offset_t>(l.col.size());
  }
  const clustering cut = interpret(l, overlap_mode::cut);
  EXPECT_EQ(cut.attractors, 3u);
  EXPECT_EQ(cut.overlap, 1u);
  EXPECT_EQ(cut.clusters, (std::vector<std::vector<index_t>>{{0, 1, 2, 4}, {3}}));
  const clustering keep = interpret(l, overlap_mode::keep);
  EXPECT_EQ(keep.clusters, (std::vector<std::vector<index_t>>{{0, 1, 2, 4}, {3, 4}}));
  const clustering split = interpret(l, overlap_mode::split);
  EXPECT_EQ(split.clusters, (std::vector<std::vector<index_t>>{{0, 1, 2}, {3}, {4}}));
}

// ---- blocks, names, parameters ----------------------------------------------------------------

TEST_F(Mcl, BlockedExpansionGivesTheSameIterates) {
  const fs::path f = file("planted_blocks.abc", planted_abc(6, 30, 0.3, 0.02, true, 7));
  io::labelled_graph g = io::read_graph(f.string());
  params whole;
  const host_csr<double> start = start_matrix(g.adj, whole);
  params blocked = whole;
  blocked.block_products = 500;  // many blocks
  for (auto* p : {&whole, &blocked}) p->max_iter = 4;
  auto b1 = make_cpu_backend<double>(0);
  auto b2 = make_cpu_backend<double>(0);
  int blocks = 0;
  const run_result<double> r1 = run(*b1, start, whole);
  const run_result<double> r2 = run(
      *b2, start, blocked, [&](const iteration_info& it) { blocks = std::max(blocks, it.blocks); });
  EXPECT_GT(blocks, 3);
  EXPECT_TRUE(opsparse::test::csr_near(r1.limit, r2.limit, 0.0));
  blocked.max_iter = whole.max_iter = 10000;
  EXPECT_EQ(cluster(start, whole, false, precision::float64).result.clusters,
            cluster(start, blocked, false, precision::float64).result.clusters);
}

TEST_F(Mcl, FusedExpansionPruningEqualsTheEnginesProductBitForBit) {
  // The CPU backend expands and prunes each row at once in a dense accumulator; with no room
  // for accumulators it expands with the CPU engine and prunes afterwards. Same sums in the
  // same order: the iterates must be equal bit for bit, in double and float cells, on sparse
  // rows (columns listed on first touch) and dense ones (flags found by a scan).
  for (double p_in : {0.05, 0.6}) {
    const fs::path f = file("fused.abc", planted_abc(4, 60, p_in, 0.02, true, 17));
    io::labelled_graph g = io::read_graph(f.string());
    params p;
    p.max_iter = 5;
    p.select = 20;  // selection and recovery on rows of up to 240 entries
    p.recover = 30;
    const host_csr<double> start = start_matrix(g.adj, p);
    auto fused = make_cpu_backend<double>(2);
    auto engine = make_cpu_backend<double>(2, 0);
    EXPECT_TRUE(
        opsparse::test::csr_near(run(*fused, start, p).limit, run(*engine, start, p).limit, 0.0))
        << "p_in " << p_in;
    const host_csr<float> start_f = convert<float>(start);
    auto fused_f = make_cpu_backend<float>(1);
    auto engine_f = make_cpu_backend<float>(1, 0);
    EXPECT_TRUE(opsparse::test::csr_near(run(*fused_f, start_f, p).limit,
                                         run(*engine_f, start_f, p).limit, 0.0))
        << "float, p_in " << p_in;
  }
}

TEST_F(Mcl, OutputNamesFollowMcl) {
  params p;
  EXPECT_EQ(default_output_name("data/graph.abc", p), "out.graph.abc.I20");
  p.inflation = 3.14;
  p.loop_scale = 3;
  EXPECT_EQ(default_output_name("t6.abc", p), "out.t6.abc.I31c30");  // as mcl -az prints
  p = params{};
  p.inflation = 1.4;
  p.pre_inflation = 0.8;
  EXPECT_EQ(default_output_name("small.mci", p), "out.small.mci.I14pi08");
  // An initial loop names its length and inflation after -I, before -pi (mcl -az).
  p.initial_loop = 2;
  p.initial_inflation = 3;
  EXPECT_EQ(default_output_name("g.abc", p), "out.g.abc.I14l2i30pi08");
  EXPECT_EQ(output_suffix(p), "I14l2i30pi08");
}

TEST_F(Mcl, ParametersAreCheckedLikeMcl) {
  params p;
  EXPECT_NO_THROW(validate(p));
  p.inflation = 0;
  EXPECT_THROW(validate(p), std::invalid_argument);
  p.inflation = 31;
  EXPECT_THROW(validate(p), std::invalid_argument);
  p = params{};
  p.pct = 100;
  EXPECT_THROW(validate(p), std::invalid_argument);
  p = params{};
  p.select = -1;
  EXPECT_THROW(validate(p), std::invalid_argument);
  p = params{};
  apply_scheme(p, 1);
  EXPECT_EQ(p.prune, 3000);
  EXPECT_EQ(p.select, 400);
  EXPECT_EQ(p.recover, 500);
  EXPECT_THROW(apply_scheme(p, 8), std::invalid_argument);
  // Defaults are mcl -z's.
  const prune_rule r = params{}.rule();
  EXPECT_DOUBLE_EQ(r.cutoff, 0.99999 / 10000);
  EXPECT_EQ(r.select, 1100);
  EXPECT_EQ(r.recover, 1400);
  EXPECT_DOUBLE_EQ(r.pct, 0.9);
}

// ---- bad input --------------------------------------------------------------------------------

TEST_F(Mcl, BadInputIsAClearError) {
  const fs::path bad = file("bad.abc", "a\tb\t1\nc\n");
  try {
    cluster_file(bad.string(), params{}, false, precision::float64);
    FAIL() << "a one-label line was accepted";
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("bad.abc:2"), std::string::npos) << e.what();
  }
  const fs::path weight = file("weight.abc", "a\tb\tx1\n");
  EXPECT_THROW(cluster_file(weight.string(), params{}, false, precision::float64), parse_error);
  EXPECT_THROW(cluster_file((dir_ / "missing.abc").string(), params{}, false, precision::float64),
               std::exception);
}

#ifdef OPSPARSE_MCL_EXE
static const std::string mcl_exe = opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE);
/// Runs the program; returns its exit status, with stdout and stderr captured into files.
int run_program(const std::string& args, const fs::path& dir, std::string* out, std::string* err) {
  const fs::path o = dir / "stdout.txt", e = dir / "stderr.txt";
  const std::string cmd =
      std::string("'") + mcl_exe + "' " + args + " > '" + o.string() + "' 2> '" + e.string() + "'";
  const int status = std::system(cmd.c_str());
  if (out) *out = read_text(o);
  if (err) *err = read_text(e);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(Mcl, ProgramWritesMclsFormatAndReportsErrors) {
  const fs::path g = file("prog.abc", hand_cases()[0].abc);
  std::string out, err;
  EXPECT_EQ(run_program("'" + g.string() + "' -o - --backend cpu --quiet", dir_, &out, &err), 0)
      << err;
  EXPECT_EQ(out, hand_cases()[0].expected);
  EXPECT_EQ(err, "");
  // Default output name in the current directory, as mcl; --verbose reports iterations.
  const std::string in_dir = "cd '" + dir_.string() + "' && '" + mcl_exe + "'";
  ASSERT_EQ(
      std::system((in_dir + " prog.abc --abc -I 2 -te 1 --backend cpu --verbose 2> v.txt").c_str()),
      0);
  EXPECT_EQ(read_text(dir_ / "out.prog.abc.I20"), hand_cases()[0].expected);
  const std::string verbose = read_text(dir_ / "v.txt");
  EXPECT_NE(verbose.find("ite   1"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("4 clusters found"), std::string::npos) << verbose;
  // mcl-style single-dash options.
  EXPECT_EQ(run_program("'" + g.string() + "' -o - -pct 80 -P 4000 -S 500 -R 600 --backend cpu",
                        dir_, &out, &err),
            0)
      << err;
  EXPECT_EQ(out, hand_cases()[0].expected);
  EXPECT_NE(err.find("ite"), std::string::npos) << "progress lines by default";
  // Bad input: file and line, non-zero status.
  const fs::path bad = file("prog_bad.abc", "a\tb\t1\nlonely\n");
  EXPECT_EQ(run_program("'" + bad.string() + "' -o - --backend cpu", dir_, &out, &err), 1);
  EXPECT_NE(err.find("prog_bad.abc:2"), std::string::npos) << err;
  EXPECT_EQ(out, "");
  EXPECT_EQ(run_program("'" + (dir_ / "nope.abc").string() + "' --backend cpu", dir_, &out, &err),
            1);
  EXPECT_NE(err.find("nope.abc"), std::string::npos) << err;
  // Bad flags: status 2 and a hint.
  EXPECT_EQ(run_program("'" + g.string() + "' -I 0", dir_, nullptr, &err), 2);
  EXPECT_NE(err.find("-I"), std::string::npos) << err;
  EXPECT_EQ(run_program("'" + g.string() + "' --bogus", dir_, nullptr, &err), 2);
  EXPECT_EQ(run_program("'" + g.string() + "' --backend tpu", dir_, nullptr, &err), 2);
  EXPECT_EQ(run_program("'" + g.string() + "' -pct 100", dir_, nullptr, &err), 2);
  EXPECT_EQ(run_program("", dir_, nullptr, &err), 2);
  EXPECT_EQ(run_program("--help", dir_, &out, nullptr), 0);
  for (const char* flag :
       {"-I", "-o", "--abc", "-P", "-p", "-S", "-R", "-pct", "-te", "--discard-loops", "--backend",
        "--precision", "--max-iter", "--verbose", "--quiet", "--format", "--overlap", "-scheme"}) {
    const std::string name = std::string(flag).substr(std::string(flag).find_first_not_of('-'));
    EXPECT_NE(out.find(name), std::string::npos) << "--help does not document " << flag;
  }
}
#endif

// ---- the ppi references (mcl 22-282, -I 2.0, default scheme) ----------------------------------

TEST_F(Mcl, PpiFilesMatchMclReferences) {
  OPSPARSE_REQUIRE_DATASETS();
  const fs::path ppi = fs::path(opsparse::test::datasets_dir()) / "ppi";
  const fs::path ref = fs::path(opsparse::test::datasets_dir()) / "reference" / "mcl";
  if (!fs::is_directory(ppi) || !fs::is_directory(ref))
    GTEST_SKIP() << "no ppi/ or reference/mcl/ in " << opsparse::test::datasets_dir();
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(ppi))
    if (e.path().extension() == ".abc") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const fs::path& f : files) {
    const fs::path want_path = ref / (f.stem().string() + ".I20.clusters");
    if (!fs::exists(want_path)) {
      ADD_FAILURE() << "no reference for " << f.filename() << " (" << want_path << ")";
      continue;
    }
    const std::string want = read_text(want_path);
    for (precision prec : {precision::float64, precision::float32}) {
      const labelled_result r = cluster_file(f.string(), params{}, false, prec);
      const partition got = parse_partition(r.text), expect = parse_partition(want);
      EXPECT_EQ(got == expect, true)
          << f.filename() << (prec == precision::float32 ? " float" : " double") << ": "
          << nodes_differing(got, expect) << " nodes in different clusters";
      // The file itself, byte for byte (mcl's order of clusters and of labels in a line).
      EXPECT_EQ(r.text == want, true) << f.filename() << " differs from mcl's file";
    }
  }
}

// ---- live comparison with the mcl binary ------------------------------------------------------

TEST_F(Mcl, SameClustersAsTheMclBinary) {
  if (std::system("command -v mcl > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "the mcl binary is not on PATH (apt-get install mcl to run this comparison)";
  struct variant {
    std::string flags;
    params p;
  };
  // mcl's flags, and the same settings made on params.
  const auto variant_of = [](const char* flags, void (*set)(params&)) {
    params p;
    set(p);
    return variant{flags, p};
  };
  const std::vector<variant> variants = {
      {"", params{}},
      variant_of("-I 1.4", [](params& p) { p.inflation = 1.4; }),
      variant_of("-I 4.0", [](params& p) { p.inflation = 4.0; }),
      // Tight resources: selection and both kinds of recovery happen in many columns.
      variant_of("-P 300 -S 6 -R 9 -pct 95",
                 [](params& p) { p.prune = 300, p.select = 6, p.recover = 9, p.pct = 95; }),
      variant_of("-P 40 -S 4 -R 0",  // emergency loops
                 [](params& p) { p.prune = 40, p.select = 4, p.recover = 0; }),
      variant_of("--discard-loops=n -c 2",
                 [](params& p) { p.discard_loops = false, p.loop_scale = 2; }),
  };
  struct graph {
    std::string name;
    std::string abc;
  };
  const std::vector<graph> graphs = {
      {"pp_weighted", planted_abc(8, 25, 0.35, 0.02, true, 11)},
      {"pp_unweighted", planted_abc(5, 40, 0.25, 0.03, false, 12)},
      {"pp_fuzzy", planted_abc(10, 15, 0.4, 0.06, true, 13)},
  };
  for (const graph& g : graphs) {
    const fs::path f = file(g.name + ".abc", g.abc);
    for (const variant& v : variants) {
      const fs::path out = dir_ / (g.name + ".mcl.out");
      const std::string cmd = "mcl '" + f.string() + "' --abc " + v.flags + " -o '" + out.string() +
                              "' > /dev/null 2>&1";
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
      const std::string want = read_text(out);
      for (precision prec : {precision::float32, precision::float64}) {
        const labelled_result r = cluster_file(f.string(), v.p, false, prec);
        const partition got = parse_partition(r.text), expect = parse_partition(want);
        EXPECT_TRUE(got == expect)
            << g.name << " " << v.flags << (prec == precision::float32 ? " float" : " double")
            << ": " << nodes_differing(got, expect) << " nodes differ";
        EXPECT_TRUE(r.text == want) << g.name << " " << v.flags << ": not byte-identical";
      }
    }
  }
}

}  // namespace

// start_matrix runs in parallel above 65,536 entries: the same matrix, bit for bit, on 1 and on 3
// threads, with loops, zero-weight loops, repeated edges, zero weights, isolated nodes, nodes
// with only zero weights, -c (0 too), -pi, --discard-loops=n and without mirroring; and the same
// first error.
TEST(MclStartMatrix, ParallelEqualsSerialBitForBit) {
  const index_t n = 30000;
  std::mt19937_64 rng(3);
  host_csr<double> a(n, n);
  for (index_t i = 0; i < n; ++i) {
    std::vector<std::pair<index_t, double>> row;
    const bool isolated = i % 13 == 5;  // no edge in either direction
    for (int k = 0; k < 4 && !isolated; ++k) {
      index_t c = static_cast<index_t>(rng() % n);
      if (c % 13 == 5) --c;
      row.emplace_back(c, 0.1 + (rng() % 1000) / 100.0);
    }
    if (i % 17 == 3)  // only zero weights
      for (auto& e : row) e.second = 0;
    if (i % 7 == 0) row.emplace_back(i, 2.5);                            // a loop
    if (i % 19 == 1) row.emplace_back(i, 0.0);                           // a zero-weight loop
    if (i % 11 == 0 && !row.empty()) row.emplace_back(row[0].first, 0);  // a zero weight
    std::sort(row.begin(), row.end());
    row.erase(
        std::unique(row.begin(), row.end(), [](auto& x, auto& y) { return x.first == y.first; }),
        row.end());
    for (auto& [c, w] : row) {
      a.col.push_back(c);
      a.val.push_back(w);
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  ASSERT_GT(a.nnz(), 65536);
  const int old = omp_get_max_threads();
  for (int variant = 0; variant < 7; ++variant) {
    params p;
    if (variant == 1) p.loop_scale = 0.5;
    if (variant == 2) p.pre_inflation = 1.7;
    if (variant == 3) p.discard_loops = false;
    if (variant == 4) p.loop_scale = 0;
    if (variant == 5) p.mirror = false;
    if (variant == 6) {
      p.discard_loops = false;
      p.loop_scale = 2;
      p.mirror = false;
    }
    omp_set_num_threads(1);
    const auto one = start_matrix(a, p);
    omp_set_num_threads(3);
    const auto three = start_matrix(a, p);
    EXPECT_EQ(one.rpt, three.rpt) << "variant " << variant;
    EXPECT_EQ(one.col, three.col) << "variant " << variant;
    EXPECT_EQ(one.val, three.val) << "variant " << variant;
  }
  // negative weights (a tenth of the weights): the same matrix whatever the threads, with the
  // rows -pi empties (negative sums) counted as empty in the parallel pass
  host_csr<double> neg = a;
  for (std::size_t k = 0; k < neg.val.size(); k += 10) neg.val[k] = -neg.val[k];
  for (int variant = 0; variant < 2; ++variant) {
    params p;
    p.mirror = false;
    if (variant == 1) {
      p.discard_loops = false;
      p.pre_inflation = 1;
    }
    omp_set_num_threads(1);
    const auto one = start_matrix(neg, p);
    omp_set_num_threads(3);
    const auto three = start_matrix(neg, p);
    EXPECT_TRUE(has_negative_values(one)) << "variant " << variant;
    EXPECT_EQ(one.rpt, three.rpt) << "variant " << variant;
    EXPECT_EQ(one.col, three.col) << "variant " << variant;
    EXPECT_EQ(one.val, three.val) << "variant " << variant;
  }
  omp_set_num_threads(old);
}

// A random limit-like matrix (transposed, rows are mcl columns) over n nodes: attractors (a
// heaviest loop, sometimes tied with an edge to another attractor or to a node that is none),
// nodes that flow to nodes of lower levels (ties between targets make overlap; a light loop
// below the bar), empty rows and rows that reach no attractor (missing nodes). Levels keep the
// DAG's reach short.
template <class T>
host_csr<T> random_limit(index_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> level(static_cast<std::size_t>(n));
  std::vector<std::vector<index_t>> at_level(4);
  for (index_t v = 0; v < n; ++v) {
    const unsigned r = static_cast<unsigned>(rng() % 100);
    level[v] = r < 15 ? 0 : r < 60 ? 1 : r < 85 ? 2 : 3;
    at_level[level[v]].push_back(v);
  }
  host_csr<T> l(n, n);
  const auto pick = [&](int below) {
    const int lv = static_cast<int>(rng() % static_cast<unsigned>(below));
    const auto& pool = at_level[lv].empty() ? at_level[0] : at_level[lv];
    return pool[rng() % pool.size()];
  };
  for (index_t v = 0; v < n; ++v) {
    std::vector<std::pair<index_t, double>> row;
    const unsigned r = static_cast<unsigned>(rng() % 100);
    if (level[v] == 0) {
      row.emplace_back(v, 3.0);
      if (r < 15)
        row.emplace_back(pick(1), 3.0);  // a tie with the loop: one system
      else if (r < 30)
        row.emplace_back(pick(1), 0.001);       // below the bar
      else if (r < 35 && !at_level[1].empty())  // kept, to a node that is no attractor
        row.emplace_back(at_level[1][rng() % at_level[1].size()], 3.0);
    } else if (r >= 5) {  // 5% empty rows: missing nodes
      const int targets = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < targets; ++k)
        row.emplace_back(pick(level[v]), 1.0 + static_cast<double>(rng() % 2));
      if (r < 20) row.emplace_back(v, 0.01);  // a light loop: not an attractor
    }
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end(),
                          [](const auto& x, const auto& y) { return x.first == y.first; }),
              row.end());
    double sum = 0;
    for (const auto& e : row) sum += e.second;
    for (const auto& e : row) {
      l.col.push_back(e.first);
      l.val.push_back(static_cast<T>(e.second / sum));
    }
    l.rpt[v + 1] = static_cast<offset_t>(l.col.size());
  }
  return l;
}

// interpret runs in parallel from 32,768 nodes: on any thread count it equals the serial
// reference (mcl_reference.hpp, the interpretation as it was before) cluster for cluster and in
// order, in every overlap mode, with ties, overlap and missing nodes; below that size too.
template <class T>
void expect_interpret_equals_reference(index_t n, std::uint64_t seed) {
  const host_csr<T> l = random_limit<T>(n, seed);
  for (overlap_mode mode : {overlap_mode::cut, overlap_mode::keep, overlap_mode::split}) {
    const clustering want = interpret_reference(l, mode);
    for (int threads : {1, 2, 3, 8}) {
      const clustering got = interpret(l, mode, threads);
      const std::string what = "n " + std::to_string(n) + " seed " + std::to_string(seed) +
                               " mode " + std::to_string(static_cast<int>(mode)) + " threads " +
                               std::to_string(threads);
      EXPECT_EQ(got.attractors, want.attractors) << what;
      EXPECT_EQ(got.overlap, want.overlap) << what;
      EXPECT_EQ(got.missing, want.missing) << what;
      EXPECT_TRUE(got.clusters == want.clusters) << what;
    }
    EXPECT_GT(want.overlap, 0u);
    EXPECT_GT(want.missing, 0u);
  }
}

// A distributed rank's share: the start matrix's rows made from the graph's rows alone
// (start_matrix_rows, after drop_loops_as_mcl on them) stack up to start_matrix's, bit for bit.
TEST(MclStartMatrix, RowBlocksStackToTheWholeMatrix) {
  const index_t n = 3000;
  std::mt19937_64 rng(5);
  host_csr<double> a(n, n);
  for (index_t i = 0; i < n; ++i) {
    std::vector<std::pair<index_t, double>> row;
    for (int k = 0; k < 5 && i % 11 != 4; ++k)
      row.emplace_back(static_cast<index_t>(rng() % n), 0.1 + (rng() % 1000) / 100.0);
    if (i % 7 == 0) row.emplace_back(i, 2.5);  // a loop
    if (i % 13 == 1 && !row.empty()) row[0].second = 1e-50;
    std::sort(row.begin(), row.end());
    row.erase(
        std::unique(row.begin(), row.end(), [](auto& x, auto& y) { return x.first == y.first; }),
        row.end());
    for (auto& [c, w] : row) {
      a.col.push_back(c);
      a.val.push_back(w);
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  const host_csr<double> sym = io::symmetrize_max(a);
  const std::vector<index_t> split = {0, 701, 701, 2999, n};  // an empty block, a one-row block
  for (int variant = 0; variant < 4; ++variant) {
    params p;
    p.mirror = false;  // the rows are the mirrored graph's
    if (variant == 1) p.loop_scale = 0.5;
    if (variant == 2) p.pre_inflation = 1.7;
    if (variant == 3) p.discard_loops = false;
    host_csr<double> whole_graph = sym;
    if (p.discard_loops) drop_loops_as_mcl(whole_graph);
    const host_csr<double> whole = start_matrix(whole_graph, p);
    host_csr<double> stacked(n, n);
    for (std::size_t b = 0; b + 1 < split.size(); ++b) {
      host_csr<double> rows(split[b + 1] - split[b], n);
      for (index_t i = split[b]; i < split[b + 1]; ++i) {
        rows.col.insert(rows.col.end(), sym.col.begin() + sym.rpt[i],
                        sym.col.begin() + sym.rpt[i + 1]);
        rows.val.insert(rows.val.end(), sym.val.begin() + sym.rpt[i],
                        sym.val.begin() + sym.rpt[i + 1]);
        rows.rpt[i - split[b] + 1] = static_cast<offset_t>(rows.col.size());
      }
      if (p.discard_loops) drop_loops_as_mcl(rows, split[b]);
      const host_csr<double> made = start_matrix_rows(rows, split[b], p);
      ASSERT_EQ(made.rows, rows.rows);
      for (index_t i = 0; i < made.rows; ++i)
        stacked.rpt[split[b] + i + 1] = stacked.rpt[split[b] + i] + made.rpt[i + 1] - made.rpt[i];
      stacked.col.insert(stacked.col.end(), made.col.begin(), made.col.end());
      stacked.val.insert(stacked.val.end(), made.val.begin(), made.val.end());
    }
    EXPECT_EQ(stacked.rpt, whole.rpt) << "variant " << variant;
    EXPECT_EQ(stacked.col, whole.col) << "variant " << variant;
    EXPECT_EQ(stacked.val, whole.val) << "variant " << variant;
  }
  params mirrored;  // mirroring needs the whole graph
  host_csr<double> some(2, n);
  EXPECT_THROW(start_matrix_rows(some, 5, mirrored), std::invalid_argument);
}

TEST(MclInterpret, ParallelEqualsSerialReference) {
  for (std::uint64_t seed : {1u, 2u}) {
    expect_interpret_equals_reference<float>(50000, seed);
    expect_interpret_equals_reference<double>(40000, seed);
  }
  expect_interpret_equals_reference<float>(3000, 3);  // the one-thread path
}

// opsparse-mcl asks CUDA for one hardware queue (faster context creation and exit) but leaves a
// value the user set alone.
TEST(MclProgram, OneConnectionUnlessTheUserChose) {
  const char* const name = "CUDA_DEVICE_MAX_CONNECTIONS";
  const char* before = std::getenv(name);
  const std::string saved = before ? before : "";
  ::unsetenv(name);
  opsparse::apps::prefer_one_connection();
  ASSERT_NE(std::getenv(name), nullptr);
  EXPECT_STREQ(std::getenv(name), "1");
  ::setenv(name, "4", 1);
  opsparse::apps::prefer_one_connection();
  EXPECT_STREQ(std::getenv(name), "4");
  if (before)
    ::setenv(name, saved.c_str(), 1);
  else
    ::unsetenv(name);
}
