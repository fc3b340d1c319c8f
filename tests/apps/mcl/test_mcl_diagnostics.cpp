// mcl's diagnostics of its own run, as opsparse-mcl writes them (cli_diagnostics.cpp): -analyze y
// (clm info's measures of the clustering over the start matrix, appended to the output),
// --write-limit (OUTPUT-limit) and -dump (the iterands, their clusterings and DAGs). The
// measures, mcl's interpretation of hand-made iterands and the run's hooks first, then the
// program on its own, then against Debian's mcl (skipped, with the reason, without it): the
// analysis byte for byte but for the last digit of the modularity, the same dump files and limit
// with the same entries, the start matrix and every clustering byte for byte, and the other
// values as close as mcl's float products allow (apps/mcl/README.md says why they differ).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cli/cli.hpp"
#include "core/clm.hpp"
#include "mcl_test_util.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl;
using namespace opsparse::mcl::test;

/// A matrix from its rows (mcl's columns): (column, value) pairs, sorted.
host_csr<double> rows_of(const std::vector<std::vector<std::pair<index_t, double>>>& rows) {
  const index_t n = static_cast<index_t>(rows.size());
  host_csr<double> m(n, n);
  for (index_t i = 0; i < n; ++i) {
    for (const auto& [c, v] : rows[static_cast<std::size_t>(i)]) {
      m.col.push_back(c);
      m.val.push_back(v);
    }
    m.rpt[static_cast<std::size_t>(i) + 1] = static_cast<offset_t>(m.col.size());
  }
  return m;
}

using clusters = std::vector<std::vector<index_t>>;

/// The graph of the examples: two triangles and a pair on a path, weights 1, 0.5 and 0.2.
host_csr<double> example_graph() {
  const std::vector<std::tuple<index_t, index_t, double>> edges = {
      {0, 1, 1}, {1, 2, 1}, {0, 2, 1},   {2, 3, 0.5}, {3, 4, 1},
      {4, 5, 1}, {3, 5, 1}, {5, 6, 0.2}, {6, 7, 1}};
  std::vector<std::vector<std::pair<index_t, double>>> rows(8);
  for (const auto& [a, b, w] : edges) {
    rows[static_cast<std::size_t>(a)].emplace_back(b, w);
    rows[static_cast<std::size_t>(b)].emplace_back(a, w);
  }
  for (auto& r : rows) std::sort(r.begin(), r.end());
  return rows_of(rows);
}

/// Whether `got` holds `want`'s values, to float's precision (sums of float cells).
::testing::AssertionResult near(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " values";
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-6 * want[i]))
      return ::testing::AssertionFailure()
             << "value " << i << ": " << got[i] << ", not " << want[i];
  return ::testing::AssertionSuccess();
}

TEST(ClmMeasure, CountsAMatrixsOwnLoopsAndEveryMembership) {
  // mcl -analyze y measures its start matrix with the loops it has: -c 3 makes them three times
  // the heaviest edge before the columns are normalised (mcl: eff=0.79389 mf=0.96651), where
  // clm info's loops, as heavy as the heaviest edge, give what mcl gives without -c (0.97667,
  // 0.94511: the fractions do not change when a column is scaled).
  params p;
  p.loop_scale = 3;
  clm::partition part;
  part.nodes = 8;
  part.clusters = {{0, 1, 2}, {3, 4, 5}, {6, 7}};
  const host_csr<double> start = start_matrix(example_graph(), p);
  const clm::info own = clm::measure(start, part, clm::loop_weights::as_given);
  EXPECT_NEAR(own.efficiency, 0.79389, 5e-6);
  EXPECT_NEAR(own.mass_fraction, 0.96651, 5e-6);
  const clm::info max = clm::measure(start, part, clm::loop_weights::heaviest_edge);
  EXPECT_NEAR(max.efficiency, 0.97667, 5e-6);
  EXPECT_NEAR(max.mass_fraction, 0.94511, 5e-6);
  EXPECT_EQ(own.modularity, max.modularity);  // loops take no part
  // Overlap (mcl -overlap keep on a path of five nodes): n2 in both clusters counts in each, and
  // eff, mf and ctr are averaged over the six memberships (mcl: eff=0.72222 mf=0.88889 ctr=3.0).
  const host_csr<double> path = rows_of({{{0, 0.5}, {1, 0.5}},
                                         {{0, 1 / 3.0}, {1, 1 / 3.0}, {2, 1 / 3.0}},
                                         {{1, 1 / 3.0}, {2, 1 / 3.0}, {3, 1 / 3.0}},
                                         {{2, 1 / 3.0}, {3, 1 / 3.0}, {4, 1 / 3.0}},
                                         {{3, 0.5}, {4, 0.5}}});
  part.nodes = 5;
  part.clusters = {{0, 1, 2}, {2, 3, 4}};
  const clm::info o = clm::measure(path, part, clm::loop_weights::as_given);
  EXPECT_NEAR(o.efficiency, 13.0 / 18, 1e-12);
  EXPECT_NEAR(o.mass_fraction, 8.0 / 9, 1e-12);
  EXPECT_EQ(o.center, 3.0);
  EXPECT_EQ(o.average, 2.5);  // nodes per cluster
}

// Node 0 is an attractor alone, 1 and 2 one system of two; 3 reaches both (0.9 to 0, 0.1 to 1),
// 6 reaches 0 only, 4 and 5 reach each other and no attractor. 3's loop (0.0005) is below the
// DAG's bar. mcl interprets an iterand without the limit's thinning (which drops 3's 0.1) and
// keeps its clusters in the order of their attractor systems, the larger system first.
const host_csr<double> iterand = rows_of({{{0, 1.0}},
                                          {{1, 0.5}, {2, 0.5}},
                                          {{1, 0.5}, {2, 0.5}},
                                          {{0, 0.9}, {1, 0.1}, {3, 0.0005}},
                                          {{5, 1.0}},
                                          {{4, 1.0}},
                                          {{0, 1.0}}});

TEST(MclIterandInterpretation, KeepsOverlapUnthinnedInMclsOrder) {
  const clustering c = interpret_iterand(iterand);
  EXPECT_EQ(c.clusters, (clusters{{1, 2, 3}, {0, 3, 6}, {4, 5}}));
  EXPECT_EQ(c.overlap, 1u);
  EXPECT_EQ(c.missing, 2u);
  // The limit's rules: 3's 0.1 thinned away, clusters in revsize order.
  EXPECT_EQ(interpret(iterand, overlap_mode::keep).clusters, (clusters{{0, 3, 6}, {1, 2}, {4, 5}}));
}

TEST(MclIterandInterpretation, DagKeepsTheIterandsValuesAboveTheBar) {
  const host_csr<double> dag = iterand_dag(iterand);
  const host_csr<double> want =
      rows_of({{{0, 1.0}},
               {{1, 0.5}, {2, 0.5}},
               {{1, 0.5}, {2, 0.5}},
               {{0, 0.9}, {1, 0.1}},  // the loop is below 0.999 * 0.0005 + 0.001 * 0.9
               {{5, 1.0}},
               {{4, 1.0}},
               {{0, 1.0}}});
  EXPECT_EQ(dag.rpt, want.rpt);
  EXPECT_EQ(dag.col, want.col);
  EXPECT_EQ(dag.val, want.val);
}

TEST(MclStartColumnSums, AreTheSumsEachColumnIsDividedBy) {
  params p;
  // Loops as heavy as the heaviest edge (mcl -dump ite's ite-0: 0:3 1:3 2:3.5 ...).
  EXPECT_TRUE(near(start_column_sums(example_graph(), p), {3, 3, 3.5, 3.5, 3, 3.2, 2.2, 2}));
  p.discard_loops = false;  // no loops added
  EXPECT_TRUE(near(start_column_sums(example_graph(), p), {2, 2, 2.5, 2.5, 2, 2.2, 1.2, 1}));
  // -c 3 triples the loops; the start matrix is the graph divided by them.
  p = params{};
  p.loop_scale = 3;
  const std::vector<double> sums = start_column_sums(example_graph(), p);
  EXPECT_TRUE(near(sums, {5, 5, 5.5, 5.5, 5, 5.2, 4.2, 4}));
  const host_csr<double> g = example_graph(), start = start_matrix(g, p);
  auto weight = [&](index_t i, index_t j) {
    for (offset_t k = g.rpt[i]; k < g.rpt[i + 1]; ++k)
      if (g.col[k] == j) return g.val[k];
    return 3.0;  // the loop: -c 3 times the heaviest edge, 1 for every node here
  };
  for (index_t i = 0; i < start.rows; ++i)
    for (offset_t k = start.rpt[i]; k < start.rpt[i + 1]; ++k)
      EXPECT_NEAR(start.val[k], weight(i, start.col[k]) / sums[static_cast<std::size_t>(i)], 1e-7)
          << i;
}

TEST(MclIterandHooks, SeeEveryIterandAndTheLimitAndChangeNothing) {
  const fs::path dir = scratch_dir("hooks");
  write_text(dir / "g.abc", planted_abc(4, 15, 0.4, 0.05, true, 16));
  const host_csr<double> start = start_matrix(io::read_abc((dir / "g.abc").string()).adj, params{});
  fs::remove_all(dir);
  std::vector<std::pair<int, bool>> calls;
  host_csr<double> last, limit;
  run_options o;
  o.wants_iterand = [](int it, bool inflated) { return inflated || it % 2 == 1; };
  o.on_iterand = [&](int it, bool inflated, const host_csr<double>& x) {
    calls.emplace_back(it, inflated);
    if (inflated) last = x;
  };
  o.on_limit = [&limit](const host_csr<double>& l) { limit = l; };
  const cluster_result r = cluster(start, params{}, false, precision::float32, {}, o);
  const cluster_result plain = cluster(start, params{}, false, precision::float32);
  EXPECT_EQ(r.result.clusters, plain.result.clusters);
  ASSERT_GT(r.iterations, 3);
  std::vector<std::pair<int, bool>> want;
  for (int it = 1; it <= r.iterations; ++it) {
    if (it % 2 == 1) want.emplace_back(it, false);
    want.emplace_back(it, true);
  }
  EXPECT_EQ(calls, want);
  EXPECT_TRUE(opsparse::test::csr_near(limit, last, 0.0));
}

TEST(MclDumpSelection, IterationsAsMclSelectsThem) {
  dump_settings d;  // mcl's default: iterations 0 to 4
  for (int n = 0; n < 8; ++n) EXPECT_EQ(d.selects(n), n < 5) << n;
  d.offset = 2, d.bound = 7, d.modulo = 2;  // -dump-interval 2:7 -dump-modulo 2
  for (int n = 0; n < 10; ++n) EXPECT_EQ(d.selects(n), n == 2 || n == 4 || n == 6) << n;
  d.offset = 0, d.bound = 0, d.modulo = 3;  // no end
  for (int n = 0; n < 100; ++n) EXPECT_EQ(d.selects(n), n % 3 == 0) << n;
}

// ---- the program ----------------------------------------------------------------------------

#if defined(OPSPARSE_MCL_EXE) && defined(OPSPARSE_CLM_EXE)
struct diagnostics_tag {
  static constexpr const char* name = "diagnostics";
};
class MclDiagnostics : public files_suite<diagnostics_tag> {
 protected:
  static std::string ours() {
    return q(opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE)) + " --backend cpu";
  }
  static std::string clm() {
    return q(opsparse::test::program_path("opsparse-clm", OPSPARSE_CLM_EXE));
  }
  /// `cmd` run in folder `sub` of the scratch folder: its exit status; `err` its standard error.
  static int run_in(const std::string& sub, const std::string& cmd, std::string* err = nullptr) {
    const fs::path d = dir_ / sub;
    const int rc = sh("cd " + q(d) + " && " + cmd + " > stdout.txt 2> stderr.txt");
    if (err) *err = read_text(d / "stderr.txt");
    return rc;
  }
  /// A fresh folder `sub` holding `files` (names under the scratch folder).
  static fs::path fresh(const std::string& sub, const std::vector<std::string>& files) {
    fs::remove_all(dir_ / sub);
    fs::create_directories(dir_ / sub);
    for (const std::string& f : files) {
      fs::create_directories((dir_ / sub / f).parent_path());
      fs::copy_file(dir_ / f, dir_ / sub / f);
    }
    return dir_ / sub;
  }
  /// The files of a folder, but the runs' own (stdout.txt, stderr.txt) and those given.
  static std::set<std::string> files_in(const fs::path& d, const std::vector<std::string>& but) {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(d)) {
      if (!e.is_regular_file()) continue;
      const std::string name = fs::relative(e.path(), d).string();
      if (name == "stdout.txt" || name == "stderr.txt") continue;
      if (std::find(but.begin(), but.end(), name) == but.end()) out.insert(name);
    }
    return out;
  }
};

const char* const example_abc =
    "a b 1\nb c 1\na c 1\nc d 0.5\nd e 1\ne f 1\nd f 1\nf g 0.2\ng h 1\n";

TEST_F(MclDiagnostics, AnalysisHasClmInfosMeasures) {
  // For a native graph (clustered as it is, the output a native clustering) mcl's measures over
  // its start matrix equal clm info's over the graph but mod: the loops are mcl's, and eff and
  // mf do not change when a column is scaled (the start matrix is the graph, column-stochastic).
  const std::string graph =
      "(mclheader\nmcltype matrix\ndimensions 8x8\n)\n(mclmatrix\nbegin\n"
      "0 1 2 $\n1 0 2 $\n2 0 1 3:0.5 $\n3 2:0.5 4 5 $\n4 3 5 $\n"
      "5 3 4 6:0.2 $\n6 5:0.2 7 $\n7 6 $\n)\n";
  file("g.mci", graph);
  fresh("analyze", {"g.mci"});
  std::string err;
  ASSERT_EQ(run_in("analyze", ours() + " g.mci -o plain"), 0);
  ASSERT_EQ(run_in("analyze", ours() + " g.mci -analyze y -o analyzed", &err), 0) << err;
  // The clustering first (its command line comment aside), then the measures.
  const std::string plain = read_text(dir_ / "analyze" / "plain");
  const std::string analyzed = read_text(dir_ / "analyze" / "analyzed");
  const std::string body = plain.substr(plain.find("(mclheader"));
  const std::size_t at = analyzed.find("(mclheader");
  ASSERT_NE(at, std::string::npos) << analyzed;
  ASSERT_EQ(analyzed.compare(at, body.size(), body), 0) << analyzed;
  const std::string tail = analyzed.substr(at + body.size());
  ASSERT_EQ(run_in("analyze", clm() + " info g.mci plain -o info"), 0);
  const std::string info = read_text(dir_ / "analyze" / "info");  // eff= mod= mf= af=  src= ncl=
  auto field = [](const std::string& text, const std::string& key) {
    const std::size_t at = text.find(" " + key + "=") != std::string::npos
                               ? text.find(" " + key + "=") + 1
                               : text.find(key + "=");
    return at == std::string::npos ? std::string("<none>")
                                   : text.substr(at, text.find_first_of(" \n", at) - at);
  };
  for (const char* key :
       {"eff", "mf", "af", "ncl", "max", "ctr", "avg", "min", "DGI", "TWI", "TWL", "sgl", "qrt"})
    EXPECT_EQ(field(tail, key), field(info, key)) << key << "\n" << tail << info;
  EXPECT_NE(tail.find(" target-name=g.mci\nsource-name=analyzed\n\n"), std::string::npos) << tail;
}

TEST_F(MclDiagnostics, LimitAndDumpsAreWrittenUnderMclsNames) {
  file("g.abc", example_abc);
  const fs::path d = fresh("names", {"g.abc"});
  std::string err;
  ASSERT_EQ(run_in("names", ours() + " g.abc --abc -dump ite -dump cls --write-limit -o x", &err),
            0)
      << err;
  // mcl's default interval 0:5: ite-0 (the start matrix) to ite-4, cls-1 to cls-4.
  EXPECT_EQ(files_in(d, {"g.abc"}),
            (std::set<std::string>{"x", "x-limit", "ite-0.x", "ite-1.x", "ite-2.x", "ite-3.x",
                                   "ite-4.x", "cls-1.x", "cls-2.x", "cls-3.x", "cls-4.x"}));
  // The start matrix reads back (its columns' values left out); the limit is stochastic.
  const io::mcl_native_matrix start = io::read_mcl_native((d / "ite-0.x").string(), {});
  EXPECT_EQ(start.columns.nnz(), 26);
  const io::mcl_native_matrix limit = io::read_mcl_native((d / "x-limit").string(), {});
  ASSERT_EQ(limit.columns.rows, 8);
  for (index_t c = 0; c < 8; ++c) {
    double sum = 0;
    for (offset_t k = limit.columns.rpt[c]; k < limit.columns.rpt[c + 1]; ++k)
      sum += limit.columns.val[k];
    EXPECT_NEAR(sum, 1.0, 1e-5) << c;
  }
  // -o -: the input's name is the stem; -dump-stem another; iterations 2:7 every other one.
  fresh("names", {"g.abc"});
  ASSERT_EQ(run_in("names", ours() + " g.abc --abc -dump ite -dump-interval 2:7 -dm 2 -o -"), 0);
  EXPECT_EQ(files_in(d, {"g.abc"}),
            (std::set<std::string>{"ite-2.g.abc", "ite-4.g.abc", "ite-6.g.abc"}));
  // Without -o: the input and the automatic name's suffix.
  fresh("names", {"g.abc"});
  ASSERT_EQ(run_in("names", ours() + " g.abc --abc -dump dag -dump-stem s -I 3"), 0);
  EXPECT_EQ(files_in(d, {"g.abc", "out.g.abc.I30"}),
            (std::set<std::string>{"dag-1.s", "dag-2.s", "dag-3.s", "dag-4.s"}));
  fresh("names", {"g.abc"});
  ASSERT_EQ(run_in("names", ours() + " g.abc --abc -dump cls -dump-interval 1:2 -l 2 -i 3"), 0);
  EXPECT_EQ(files_in(d, {"g.abc", "out.g.abc.I20l2i30"}),
            (std::set<std::string>{"cls-1.g.abc.I20l2i30"}));
  // cat: everything in the output, the clustering last (a native matrix), no other file.
  fresh("names", {"g.abc"});
  ASSERT_EQ(run_in("names", ours() + " g.abc --abc -dump cat,cls -o x"), 0);
  EXPECT_EQ(files_in(d, {"g.abc"}), (std::set<std::string>{"x"}));
  const std::string x = read_text(d / "x");
  std::size_t matrices = 0;
  for (std::size_t at = x.find("(mclheader"); at != std::string::npos;
       at = x.find("(mclheader", at + 1))
    ++matrices;
  EXPECT_EQ(matrices, 5u) << x;  // cls-1 .. cls-4 and the result
}

TEST_F(MclDiagnostics, ADumpThatCannotBeWrittenIsReportedAndSkipped) {
  file("g.abc", example_abc);
  const fs::path d = fresh("unwritable", {"g.abc"});
  std::string err;
  // The stem's folder, "cls-1.no" and so on, does not exist (mcl's default stem for an input in
  // a folder does this too): each dump is reported, the clustering written.
  ASSERT_EQ(run_in("unwritable", ours() + " g.abc --abc -dump cls -dump-stem no/s -o x", &err), 0);
  EXPECT_NE(err.find("cls-1.no/s"), std::string::npos) << err;
  EXPECT_NE(err.find("warning"), std::string::npos) << err;
  EXPECT_EQ(files_in(d, {"g.abc"}), (std::set<std::string>{"x"}));
}

TEST_F(MclDiagnostics, BadValuesAreRefused) {
  file("g.abc", example_abc);
  fresh("bad", {"g.abc"});
  for (const char* args :
       {"-dump ite -dump-interval 3", "-dump ite -dump-interval 1:x", "-dump ite -di -1:3",
        "-dump ite -dump-modulo 0", "-dump ite -dm x", "-ds a -dump-stem b",
        "--inflations 2,3 -dump ite", "--inflations 2,3 --write-limit", "-analyze maybe"}) {
    std::string err;
    EXPECT_EQ(run_in("bad", ours() + " g.abc --abc -o x " + args, &err), 2) << args << "\n" << err;
    EXPECT_NE(err.find("error"), std::string::npos) << args << "\n" << err;
  }
  // What mcl does not dump is said, and nothing is written for it.
  std::string err;
  ASSERT_EQ(run_in("bad", ours() + " g.abc --abc -o x -dump chr -dump stats", &err), 0) << err;
  EXPECT_NE(err.find("-dump chr"), std::string::npos) << err;
  EXPECT_NE(err.find("-dump stats"), std::string::npos) << err;
  EXPECT_EQ(files_in(dir_ / "bad", {"g.abc"}), (std::set<std::string>{"x"}));
}

// ---- against Debian's mcl -------------------------------------------------------------------

/// How a dumped file of ours may differ from mcl's: its values (printed with 7 digits) by this
/// fraction of mcl's. mcl rounds each product of its dense expansion to a float, this program
/// sums exact products: one rounding of a float's last digit in the first expansion (1e-6), a
/// difference that every inflation (squaring the values) about doubles.
double value_tolerance(int iteration) { return 2e-6 * std::pow(2.0, std::max(0, iteration - 1)); }

/// Whether our file equals mcl's token by token (line breaks and blanks aside: mcl wraps a
/// column by its printed length), numbers within `tolerance` of mcl's; `why` says where not.
bool same_but_digits(const std::string& mcl, const std::string& got, double tolerance,
                     std::string& why) {
  std::istringstream a(mcl), b(got);
  std::string x, y;
  for (std::size_t n = 0;; ++n) {
    const bool ha = static_cast<bool>(a >> x), hb = static_cast<bool>(b >> y);
    if (!ha || !hb) {
      why = ha ? "ours ends at token " + std::to_string(n)
               : "mcl's ends at token " + std::to_string(n);
      return ha == hb;
    }
    if (x == y) continue;
    // "index:value" or a bare value (-dump lines): the same index, values near
    const std::size_t cx = x.find(':'), cy = y.find(':');
    const std::string ix = cx == std::string::npos ? "" : x.substr(0, cx);
    const std::string iy = cy == std::string::npos ? "" : y.substr(0, cy);
    char* ex = nullptr;
    char* ey = nullptr;
    const std::string vx = x.substr(cx == std::string::npos ? 0 : cx + 1);
    const std::string vy = y.substr(cy == std::string::npos ? 0 : cy + 1);
    const double u = std::strtod(vx.c_str(), &ex), v = std::strtod(vy.c_str(), &ey);
    if (ix != iy || *ex || *ey || vx.empty() || vy.empty() ||
        !(std::fabs(u - v) <= tolerance * std::fabs(u))) {
      why = "token " + std::to_string(n) + ": mcl " + x + ", ours " + y;
      return false;
    }
  }
}

class MclDiagnosticsAsMcl : public MclDiagnostics {
 protected:
  /// mcl and opsparse-mcl with `args` in folders of their own holding `files`: every file mcl
  /// writes is written by this program too (and no other), each compared by `compare(name,
  /// mcl's text, ours)` after the command line comment's program name. Returns the file names.
  template <class Compare>
  static std::set<std::string> expect_as_mcl(const std::vector<std::string>& files,
                                             const std::string& args, Compare&& compare) {
    const fs::path a = fresh("mcl", files), b = fresh("ours", files);
    EXPECT_EQ(run_in("mcl", "mcl " + args), 0) << "mcl " << args;
    std::string err;
    // (--backend auto: the CPU for networks this small; a native output's command line is then
    // mcl's)
    EXPECT_EQ(run_in("ours",
                     q(opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE)) + " " + args,
                     &err),
              0)
        << args << "\n"
        << err;
    const std::set<std::string> want = files_in(a, files), got = files_in(b, files);
    EXPECT_EQ(got, want) << args;
    std::set<std::string> compared = want;
    compared.insert("stdout.txt");  // what -o - writes
    for (const std::string& f : compared) {
      if (!got.count(f) && f != "stdout.txt") continue;
      std::string text = read_text(b / f);
      const std::string cline = "# cline: opsparse-mcl ", theirs = "# cline: mcl ";
      if (text.compare(0, cline.size(), cline) == 0) text.replace(0, cline.size(), theirs);
      const std::string hint =
          compare(f == "stdout.txt" ? std::string("-") : f, read_text(a / f), text);
      EXPECT_TRUE(hint.empty()) << args << ": " << f << ": " << hint;
    }
    return want;
  }

  /// The graphs compared: the example, the hand-made cases (overlap, unclaimed nodes, zero
  /// weights) and two planted partitions of 60 and 120 nodes.
  static std::vector<std::string> graphs() {
    std::vector<std::string> names{"example.abc"};
    file("example.abc", example_abc);
    for (const hand_case& h : hand_cases()) {
      file(h.name + ".abc", h.abc);
      names.push_back(h.name + ".abc");
    }
    file("planted60.abc", planted_abc(4, 15, 0.4, 0.05, true, 11));
    file("planted120.abc", planted_abc(6, 20, 0.3, 0.03, true, 12));
    names.push_back("planted60.abc");
    names.push_back("planted120.abc");
    return names;
  }
};

/// Whether an output with an analysis equals mcl's byte for byte but for the modularity, which
/// may differ by one unit of its fifth decimal (its sign when it rounds to zero): clm's own
/// summation is not reproduced (clm.cpp). `hint` says where not.
std::string same_analysis(const std::string& want, const std::string& got) {
  auto split = [](const std::string& text, double& mod) {
    const std::size_t at = text.find("mod=");
    if (at == std::string::npos) return text;
    const std::size_t end = text.find(' ', at);
    mod = std::atof(text.substr(at + 4, end - at - 4).c_str());
    return text.substr(0, at + 4) + text.substr(end);
  };
  double a = 0, b = 0;
  const std::string x = split(want, a), y = split(got, b);
  if (x == y && std::fabs(a - b) <= 1.0001e-5) return "";
  return "\nmcl:\n" + want + "ours:\n" + got;
}

TEST_F(MclDiagnosticsAsMcl, AnalysisAsMcls) {
  REQUIRE_MCL_TOOLS();
  std::size_t analyses = 0;
  for (const std::string& g : graphs())
    for (const char* v : {"", "-I 3", "-I 1.4", "-c 3", "-pi 2", "--discard-loops=n",
                          "-overlap keep", "-force-connected y -I 5"}) {
      expect_as_mcl({g}, g + " --abc -analyze y " + v + " -o out",
                    [&](const std::string&, const std::string& want, const std::string& got) {
                      analyses += want.find("\neff=") != std::string::npos;
                      return same_analysis(want, got);
                    });
    }
  EXPECT_EQ(analyses, graphs().size() * 8);
  // A native graph (directed: clustered as it is) with and without labels, and -o -.
  file("d.abc", planted_abc(3, 12, 0.4, 0.05, true, 13));
  ASSERT_EQ(sh("cd " + q(dir_) + " && mcxload -abc d.abc -o d.mci -write-tab d.tab 2>/dev/null"),
            0);
  for (const char* args : {"d.mci -analyze y -o out", "d.mci -analyze y -use-tab d.tab -o out",
                           "d.mci -analyze y -o -"})
    expect_as_mcl({"d.mci", "d.tab"}, args,
                  [](const std::string&, const std::string& want, const std::string& got) {
                    return same_analysis(want, got);
                  });
}

TEST_F(MclDiagnosticsAsMcl, LimitAsMcls) {
  REQUIRE_MCL_TOOLS();
  for (const std::string& g : graphs())
    for (const char* v : {"", "-I 1.4", "-I 4"})
      expect_as_mcl({g}, g + " --abc --write-limit " + v + " -o out",
                    [](const std::string& f, const std::string& want, const std::string& got) {
                      std::string why;
                      // The limit: the last iterand (a tolerance of a dozen iterations).
                      if (f == "out-limit" ? same_but_digits(want, got, value_tolerance(12), why)
                                           : want == got)
                        return std::string();
                      return why.empty() ? std::string("differs") : why;
                    });
  // The example's limit is mcl's byte for byte; with -o - it is --limit.
  const std::set<std::string> files =
      expect_as_mcl({"example.abc"}, "example.abc --abc --write-limit -o -",
                    [](const std::string&, const std::string& want, const std::string& got) {
                      return want == got ? std::string() : "\nmcl:\n" + want + "ours:\n" + got;
                    });
  EXPECT_EQ(files, (std::set<std::string>{"--limit"}));
}

/// Compares a dumped file: clusterings and the start matrix byte for byte, the iterands and
/// DAGs (or a cat file, up to iteration `last`) to value_tolerance of their iteration.
std::string compare_dump(const std::string& f, const std::string& want, const std::string& got,
                         int last) {
  const bool exact = f.rfind("cls-", 0) == 0 || f.rfind("ite-0.", 0) == 0;
  if (exact || want == got)
    return want == got ? std::string() : "\nmcl:\n" + want + "ours:\n" + got;
  int n = last;
  if (f.rfind("ite-", 0) == 0 || f.rfind("dag-", 0) == 0) n = std::atoi(f.c_str() + 4);
  std::string why;
  return same_but_digits(want, got, value_tolerance(n), why) ? std::string() : why;
}

TEST_F(MclDiagnosticsAsMcl, DumpsAsMcls) {
  REQUIRE_MCL_TOOLS();
  std::size_t compared = 0;
  for (const std::string& g : graphs())
    for (const char* modes : {"ite,cls,dag", "ite,cls,dag,lines"}) {
      const std::set<std::string> files =
          expect_as_mcl({g}, g + " --abc -dump " + modes + " -dump-interval all -o out",
                        [](const std::string& f, const std::string& want, const std::string& got) {
                          return compare_dump(f, want, got, 0);
                        });
      compared += files.size();
      EXPECT_GE(files.size(), 5u) << g << " " << modes;  // ite-0, ite-1, cls-1, dag-1, out
    }
  EXPECT_GT(compared, 100u);
  // cat: everything appended to the output (iterations 0 to 4), with lines too.
  for (const std::string& g : graphs())
    for (const char* modes : {"cat,ite,cls,dag", "cat,lines,cls,ite"})
      expect_as_mcl({g}, g + " --abc -dump " + modes + " -o out",
                    [](const std::string& f, const std::string& want, const std::string& got) {
                      return compare_dump(f, want, got, 4);
                    });
}

TEST_F(MclDiagnosticsAsMcl, DumpsOfNativeMatricesAsMcls) {
  REQUIRE_MCL_TOOLS();
  // A native matrix whose domain is not 0..n-1 (mcl writes its indices and an mcldoms block)
  // and one with a tab file (-dump lines labels with it).
  file("dom.abc", planted_abc(4, 15, 0.4, 0.05, true, 15));
  io::labelled_graph g = io::read_graph((dir_ / "dom.abc").string(), io::file_format::abc);
  std::vector<std::int64_t> ids;
  for (index_t i = 0; i < g.adj.rows; ++i) ids.push_back(10 + 3 * i);
  {
    std::ofstream os(dir_ / "dom.mci");
    io::write_mcl_native(os, g.adj, &ids, &ids);
  }
  file("p.abc", planted_abc(3, 12, 0.4, 0.05, true, 14));
  ASSERT_EQ(sh("cd " + q(dir_) + " && mcxload -abc p.abc -o p.mci -write-tab p.tab 2>/dev/null"),
            0);
  for (const char* args :
       {"dom.mci -dump ite,cls,dag -o out", "dom.mci -dump ite,cls,lines -o out",
        "p.mci -use-tab p.tab -dump ite,cls,dag,lines -o out", "p.mci -dump cat,cls,ite -o out"})
    expect_as_mcl({"dom.mci", "p.mci", "p.tab"}, args,
                  [](const std::string& f, const std::string& want, const std::string& got) {
                    return compare_dump(f, want, got, 4);
                  });
}

TEST_F(MclDiagnosticsAsMcl, DumpFileNamesAsMcls) {
  REQUIRE_MCL_TOOLS();
  file("g.abc", example_abc);
  fs::create_directories(dir_ / "sub");
  file("sub/g.abc", example_abc);
  for (const char* args :
       {"g.abc --abc -dump cls", "g.abc --abc -dump cls -o -", "g.abc --abc -dump cls -l 2 -i 3",
        "g.abc --abc -dump cls -I 3 -pi 2 -c 2", "g.abc --abc -dump ite -dump-stem st -o x",
        "g.abc --abc -dump ite -dump-interval 2:7 -dump-modulo 2 -o x",
        "g.abc --abc -dump ite -dump-interval 0:0 -o x", "g.abc --abc -dump cls,ite -dump cat -o x",
        // mcl's stem for an input in a folder names a folder that does not exist: no dumps
        "sub/g.abc --abc -dump cls"})
    expect_as_mcl({"g.abc", "sub/g.abc"}, args,
                  [](const std::string& f, const std::string& want, const std::string& got) {
                    return compare_dump(f, want, got, 12);
                  });
}
#endif

}  // namespace
