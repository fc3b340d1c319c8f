// opsparse-mcl as a drop-in for mcl 22-282 and mcxload: mcl's native matrix format
// read and written byte for byte as mcxload and mcl write it, the clustering of a native matrix
// written as mcl writes it, and mcl's options (-tf, -abc-tf, --abc-neg-log10, -V/-v/-q, -L,
// -odir, --d, -az, -sort, -use-tab, -write-graph, repeated options). Every expected output is
// Debian's mcl or mcxload's, run here; without them the tests skip and say so.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mcl_test_util.hpp"
#include "opsparse/io.hpp"
#include "opsparse/io_mcl_native.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl::test;

struct native_tag {
  static constexpr const char* name = "native";
};
using McxNative = files_suite<native_tag>;

/// The first line where two texts differ, both versions, for a failure message.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string x, y;
  for (int line = 1;; ++line) {
    const bool ha = static_cast<bool>(std::getline(a, x)),
               hb = static_cast<bool>(std::getline(b, y));
    if (!ha && !hb) return "no difference";
    if (!ha || !hb || x != y)
      return "line " + std::to_string(line) + ":\n  mcl:  " + (ha ? x : "<end>") +
             "\n  ours: " + (hb ? y : "<end>");
  }
}

/// The ppi ABC files of the shared data sets (empty when they are not there).
std::vector<fs::path> ppi_files() {
  std::vector<fs::path> v;
  const std::string d = opsparse::test::datasets_dir();
  std::error_code ec;
  if (d.empty() || !fs::is_directory(fs::path(d) / "ppi", ec)) return v;
  for (const auto& e : fs::directory_iterator(fs::path(d) / "ppi"))
    if (e.path().extension() == ".abc") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

/// mcxload -abc F --stream-mirror -write-tab T -o G, as the users load a graph.
void mcxload(const fs::path& abc, const fs::path& mci, const fs::path& tab,
             const std::string& extra = "") {
  const std::string cmd = "mcxload -abc " + q(abc) + " --stream-mirror " + extra + " -write-tab " +
                          q(tab) + " -o " + q(mci) + " > /dev/null 2>&1";
  ASSERT_EQ(sh(cmd), 0) << cmd;
}

/// A weighted ABC with e-value-like weights: 0, tiny (1e-180), ordinary and above 1.
std::string evalue_abc(int groups, int size, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::ostringstream os;
  const int n = groups * size;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const bool in = i / size == j / size;
      if (u(rng) >= (in ? 0.4 : 0.03)) continue;
      const double r = u(rng);
      char w[40];
      if (r < 0.1)
        std::snprintf(w, sizeof w, "0");
      else if (r < 0.15)
        std::snprintf(w, sizeof w, "3.5");
      else
        std::snprintf(w, sizeof w, "%.2ge-%d", 1 + 8 * u(rng),
                      in ? 5 + static_cast<int>(175 * u(rng)) : 1 + static_cast<int>(4 * u(rng)));
      os << "p" << i << "\tp" << j << "\t" << w << "\n";
    }
  return os.str();
}

// ---- the format, in the library -----------------------------------------------------------------

TEST_F(McxNative, ReaderAndWriterReproduceMcxloadByteForByte) {
  REQUIRE_MCL_TOOLS();
  std::vector<fs::path> inputs = {file("weighted.abc", planted_abc(8, 25, 0.35, 0.02, true, 21)),
                                  file("evalues.abc", evalue_abc(6, 20, 5))};
  for (const fs::path& p : ppi_files()) inputs.push_back(p);
  for (const fs::path& abc : inputs) {
    const fs::path mci = dir_ / (abc.stem().string() + ".mci");
    const fs::path tab = dir_ / (abc.stem().string() + ".tab");
    mcxload(abc, mci, tab);
    const io::mcl_native_matrix m = io::read_mcl_native(mci.string(), io::read_options{});
    EXPECT_EQ(m.columns.rows, m.columns.cols) << abc;
    std::ostringstream os;
    io::write_mcl_native(os, m.columns);
    EXPECT_TRUE(os.str() == read_text(mci)) << abc << ": written differently from mcxload";
    // The tab file: mcxload's labels are the ABC reader's, in order; written back the same.
    const io::mcl_tab t = io::read_mcl_tab(tab.string());
    EXPECT_EQ(t.labels, io::read_abc(abc.string()).labels) << abc;
    std::ostringstream ts;
    io::write_mcl_tab(ts, t.labels);
    EXPECT_TRUE(ts.str() == read_text(tab)) << abc;
    // Read through the automatic detection as a graph: the same matrix.
    const io::labelled_graph g = io::read_graph(mci.string());
    EXPECT_EQ(g.adj.col, m.columns.col) << abc;
    EXPECT_EQ(g.labels.size(), static_cast<std::size_t>(m.columns.rows));
  }
}

TEST_F(McxNative, CommentsDomainsAndOptionalValues) {
  const fs::path p = file("doms.mci",
                          "# cline: a comment first, as mcl writes\n(mclheader\nmcltype matrix\n"
                          "dimensions 3x3\n)\n(mcldoms\n10 20 30 $\n)\n(mclmatrix\nbegin\n"
                          "10 20:2.5 30 $  # a comment\n20 10 $\n30 10:0.5 10:7 $\n20 30 $\n)\n");
  const io::mcl_native_matrix m = io::read_mcl_native(p.string(), io::read_options{});
  EXPECT_EQ(m.row_ids, (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_EQ(m.columns.rpt, (std::vector<offset_t>{0, 2, 4, 5}));
  EXPECT_EQ(m.columns.col, (std::vector<index_t>{1, 2, 0, 2, 0}));
  // No value is 1; a row repeated in a column keeps its first value; a repeated column merges.
  EXPECT_EQ(m.columns.val, (std::vector<double>{2.5, 1, 1, 1, 0.5}));
  EXPECT_TRUE(m.has_values);
  EXPECT_TRUE(io::looks_like_mcl_native(p.string()));
  EXPECT_EQ(io::read_graph(p.string()).labels, (std::vector<std::string>{"10", "20", "30"}));
}

TEST_F(McxNative, ColumnValuesAndLongDomainsAsMclWritesThem) {
  // mcl's -dump ite of a start matrix (ids 100, 107, ... 303 of a 30-node graph; two of its
  // columns kept): each column's own value, its sum before normalisation, after its index; the
  // domain and the columns wrapped after 69 - 3 characters (the index field is 3 wide).
  const std::string mcl =
      "(mclheader\nmcltype matrix\ndimensions 30x30\n)\n(mcldoms\n"
      " 100 107 114 121 128 135 142 149 156 163 170 177 184 191 198 205 212\n"
      " 219 226 233 240 247 254 261 268 275 282 289 296 303 $\n)\n(mclmatrix\nbegin\n"
      "100:11 100:0.09090909 107:0.09090909 114:0.09090909 121:0.09090909 135:0.09090909\n"
      "      156:0.09090909 254:0.09090909 275:0.09090909 289:0.09090909 296:0.09090909\n"
      "      303:0.09090909 $\n"
      "107:23 100:0.04347826 107:0.1304348 114:0.1304348 121:0.04347826 128:0.08695652\n"
      "      142:0.04347826 163:0.04347826 261:0.1304348 282:0.1304348 296:0.08695652\n"
      "      303:0.1304348 $\n)\n";
  const fs::path p = file("column_values.mci", mcl);
  // Read as mcl reads it: the columns' own values are left out.
  const io::mcl_native_matrix m = io::read_mcl_native(p.string(), io::read_options{});
  ASSERT_EQ(m.columns.rows, 30);
  EXPECT_EQ(m.columns.rpt[1], 11);
  EXPECT_EQ(m.columns.val[0], 0.09090909);
  std::vector<double> sums(30, 0.0);
  sums[0] = 11;
  sums[1] = 23;
  std::ostringstream os;
  io::write_mcl_native(os, m.columns, &m.row_ids, &m.col_ids, &sums);
  EXPECT_EQ(os.str(), mcl);
}

TEST_F(McxNative, ValuesBeyondFloatsRangeAreWrittenSoThatTheyReadBack) {
  // Found by fuzz_mcl_native: a finite value beyond float's range was written as mcl's float
  // cell, "inf", which the reader refuses. It is written as its double now; others as floats.
  const fs::path p = file("big.mci",
                          "(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mclmatrix\nbegin\n"
                          "0 1 2 $\n1 0 2:7.5e123 $\n2 0:0.1 1 $\n)\n");
  const io::mcl_native_matrix m = io::read_mcl_native(p.string(), io::read_options{});
  std::ostringstream os;
  io::write_mcl_native(os, m.columns, &m.row_ids, &m.col_ids);
  EXPECT_NE(os.str().find(":7.5e+123"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find(":0.1"), std::string::npos) << os.str();  // %.7g of float(0.1)
  const fs::path back = file("big_back.mci", os.str());
  const io::mcl_native_matrix r = io::read_mcl_native(back.string(), io::read_options{});
  EXPECT_EQ(r.columns.col, m.columns.col);
  EXPECT_EQ(*std::max_element(r.columns.val.begin(), r.columns.val.end()), 7.5e123);
}

TEST_F(McxNative, AGraphWithoutNodesIsAnError) {
  // Found by fuzz_mcl_native: a 0x0 matrix read as a graph gave a graph without vertices,
  // which every other graph reader refuses. The matrix itself reads (empty).
  const fs::path p =
      file("empty.mci", "(mclheader\n\ndimensions 0x0\n)\n(mclmatrix\nbegin\n \n)\n");
  EXPECT_EQ(io::read_mcl_native(p.string(), io::read_options{}).columns.rows, 0);
  try {
    io::read_mcl_native_graph(p.string(), io::read_options{});
    ADD_FAILURE() << "a graph without nodes was read";
  } catch (const opsparse::parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("without nodes"), std::string::npos) << e.what();
  }
}

TEST_F(McxNative, BadFilesNameTheirLine) {
  struct bad {
    const char* text;
    long long line;
    const char* says;
  };
  const std::string head = "(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mclmatrix\nbegin\n";
  const std::vector<bad> cases = {
      {"(mclheader\nmcltype matrix\ndimensions 3by3\n)\n", 3, "dimensions"},
      {"(mclheader\nmcltype table\n)\n", 2, "mcltype"},
      {"(mclheader\nmcltype matrix\n)\n(mclmatrix\nbegin\n)\n", 3, "dimensions"},
      {"(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mclvector\n", 5, "mclmatrix"},
      {"(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mcldoms\n1 2 $\n)\n", 6, "mcldoms"},
      {"", 8, "row index 5"},
      {"", 9, "column index 3"},
      {"", 8, "value"},
      {"", 8, "'$'"},
      {"", 8, "negative"},
  };
  const std::vector<std::string> bodies = {"0 1 $\n1 5 $\n", "0 1 $\n1 0 $\n3 0 $\n",
                                           "0 1 $\n1 0:x $\n", "0 1 $\n1 0 2", "0 1 $\n1 0:-1 $\n"};
  io::read_options nonneg;
  nonneg.nonnegative = true;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string text = cases[i].text[0] ? cases[i].text : head + bodies[i - 5];
    const fs::path p = file("bad" + std::to_string(i) + ".mci", text);
    try {
      io::read_mcl_native(p.string(), nonneg);
      ADD_FAILURE() << "no error for case " << i << ":\n" << text;
    } catch (const parse_error& e) {
      EXPECT_EQ(e.line(), cases[i].line) << i << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(cases[i].says), std::string::npos)
          << i << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(p.filename().string()), std::string::npos) << e.what();
    }
  }
  const fs::path nul = file("nul.mci", head + std::string("0 1\0 $\n)\n", 11));
  EXPECT_THROW(io::read_mcl_native(nul.string(), nonneg), parse_error);
  const fs::path tab = file("bad.tab", "0\ta\n1 b\n");
  try {
    io::read_mcl_tab(tab.string());
    ADD_FAILURE() << "no error for a tab line without a TAB";
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line(), 2) << e.what();
  }
}

#ifdef OPSPARSE_MCL_EXE
const std::string& exe() {
  static const std::string e = opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE);
  return e;
}

/// Runs opsparse-mcl or mcl with `args` in `dir`; stdout and stderr into out/err.
int run_in(const fs::path& dir, const std::string& prog, const std::string& args, std::string* out,
           std::string* err) {
  const fs::path o = dir / "run.out", e = dir / "run.err";
  const int rc = sh("cd " + q(dir) + " && " + prog + " " + args + " > " + q(o) + " 2> " + q(e));
  if (out) *out = read_text(o);
  if (err) *err = read_text(e);
  return rc;
}
int ours(const fs::path& dir, const std::string& args, std::string* out = nullptr,
         std::string* err = nullptr) {
  return run_in(dir, "'" + exe() + "'", args, out, err);
}
int theirs(const fs::path& dir, const std::string& args, std::string* out = nullptr) {
  return run_in(dir, "mcl", args, out, nullptr);
}

/// mcl's "# cline: mcl ..." with our program's name in its place.
std::string as_mcl(std::string text) {
  const std::string ours_cline = "# cline: opsparse-mcl ";
  if (text.compare(0, ours_cline.size(), ours_cline) == 0)
    text.replace(0, ours_cline.size(), "# cline: mcl ");
  return text;
}

/// Both programs with the same arguments (the output file named by `out_arg` in them); the
/// outputs must be equal byte for byte, the program's name in the cline comment aside.
void expect_same_output(const fs::path& dir, const std::string& args, const std::string& what) {
  ASSERT_EQ(theirs(dir, args + " -o out.txt"), 0) << "mcl " << args;
  const std::string want = read_text(dir / "out.txt");
  std::string err;
  ASSERT_EQ(ours(dir, args + " -o out.txt", nullptr, &err), 0) << args << "\n" << err;
  const std::string got = read_text(dir / "out.txt");
  EXPECT_TRUE(as_mcl(got) == want) << what << ": " << args << "\n"
                                   << first_difference(want, as_mcl(got));
}

TEST_F(McxNative, ProgramWritesMclsNativeClusteringOfEveryPpiGraph) {
  REQUIRE_MCL_TOOLS();
  const std::vector<fs::path> files = ppi_files();
  if (files.empty()) GTEST_SKIP() << "no ppi/ in " << opsparse::test::datasets_dir();
  for (const fs::path& abc : files) {
    const std::string b = abc.stem().string();
    mcxload(abc, dir_ / (b + ".mci"), dir_ / (b + ".tab"));
    // OrthoFinder's invocation, and label output through the tab file.
    expect_same_output(dir_, b + ".mci -I 1.5 -te 2 -V all", b);
    expect_same_output(dir_, b + ".mci -I 3 -use-tab " + b + ".tab", b);
  }
}

TEST_F(McxNative, DiscardLoopsValuesAsMclReadsThem) {
  REQUIRE_MCL_TOOLS();
  // Loops off (n) leave a, b, c, d without a cluster: mcl gathers them into one; on (y) each
  // is its own. mcl's set_bit: the first character decides.
  file("garbage.abc", "a\tb\t0\nc\td\t0\ne\tf\n");
  std::string on, off;
  ASSERT_EQ(ours(dir_, "garbage.abc --abc -discard-loops y -o -", &on), 0);
  ASSERT_EQ(ours(dir_, "garbage.abc --abc -discard-loops n -o -", &off), 0);
  ASSERT_NE(on, off) << "the option changes nothing on this graph: the test proves nothing";
  for (const char* v : {"yak", "Yes", "1", "nope", "No", "0"})
    expect_same_output(dir_, std::string("garbage.abc --abc -discard-loops ") + v, v);
  std::string err;
  EXPECT_EQ(ours(dir_, "garbage.abc --abc -discard-loops x -o -", nullptr, &err), 2);
  EXPECT_NE(err.find("discard-loops"), std::string::npos) << err;
}

TEST_F(McxNative, ProgramMatchesMclOnDomainsSortAndWeights) {
  REQUIRE_MCL_TOOLS();
  file("doms.mci",
       "(mclheader\nmcltype matrix\ndimensions 6x6\n)\n(mcldoms\n10 20 30 40 50 600 $\n)\n"
       "(mclmatrix\nbegin\n10 20 30 $\n20 10 30 $\n30 10 20 40:0.1 $\n40 30:0.1 50 600 $\n"
       "50 40 600 $\n600 40 50 $\n)\n");
  expect_same_output(dir_, "doms.mci", "non-canonical domain");
  const fs::path abc = file("weighted.abc", planted_abc(10, 15, 0.4, 0.06, true, 13));
  mcxload(abc, dir_ / "w.mci", dir_ / "w.tab");
  for (const char* args : {"w.mci -sort size", "w.mci -sort lex", "w.mci -sort revsize -I 1.4",
                           "w.mci -tf 'pow(2),add(1)'", "w.mci -tf 'gq(0.5),mul(3)' -I 2.5",
                           "w.mci -tf 'lt(1.5),ceil(1.2),floor(0.3)'", "w.mci -tf 'log(2),gt(0)'",
                           "w.mci -L 3", "w.mci -I 4 -P 300 -S 6 -R 9 -pct 95"})
    expect_same_output(dir_, args, "weighted native");
  // A directed native matrix (mcxload without --stream-mirror) is clustered as it is, as mcl does.
  ASSERT_EQ(sh("mcxload -abc " + q(abc) + " -o " + q(dir_ / "directed.mci") + " > /dev/null 2>&1"),
            0);
  for (const char* args :
       {"directed.mci", "directed.mci -I 1.4", "directed.mci -I 4 -P 300 -S 6 -R 9",
        "directed.mci --discard-loops=n -I 3 -write-graph directed.out.mci"})
    expect_same_output(dir_, args, "directed native");
  for (const char* args : {"weighted.abc --abc -sort size", "weighted.abc --abc -sort lex",
                           "weighted.abc --abc -tf 'pow(3)'",
                           "weighted.abc --abc -abc-tf 'mul(2),add(-0.5)' -abc-tf 'gq(0)'"})
    expect_same_output(dir_, args, "weighted abc");
}

TEST_F(McxNative, ProgramMatchesMclsEvalueWorkflow) {
  REQUIRE_MCL_TOOLS();
  // mcl's documented BLAST workflow, as written (e-values above 1 give negative weights, which
  // mcl clusters: test_mcl_negative.cpp), and with gq(0) dropping those.
  file("seq.abc", evalue_abc(6, 20, 7));
  for (const char* args :
       {"seq.abc --abc --abc-neg-log10 -abc-tf 'ceil(200)'", "seq.abc --abc --abc-neg-log10 -I 3",
        "seq.abc --abc --abc-neg-log10 -abc-tf 'ceil(200),gq(0)'",
        "seq.abc --abc --abc-neg-log -abc-tf 'gq(0),ceil(300)' -I 3",
        "seq.abc --abc -abc-tf 'neglog(10),gq(1),ceil(150)'"}) {
    expect_same_output(dir_, args, "e-values");
    // The graph as loaded, written as mcl writes it.
    ASSERT_EQ(theirs(dir_, std::string(args) + " -o /dev/null -write-graph want.mci"), 0);
    ASSERT_EQ(ours(dir_, std::string(args) + " -o /dev/null -write-graph got.mci"), 0);
    EXPECT_TRUE(read_text(dir_ / "got.mci") == read_text(dir_ / "want.mci"))
        << args << "\n"
        << first_difference(read_text(dir_ / "want.mci"), read_text(dir_ / "got.mci"));
  }
}

TEST_F(McxNative, ProgramReadsOptionsAsMcl) {
  REQUIRE_MCL_TOOLS();
  fs::create_directories(dir_ / "sub" / "odir");
  file("sub/g.abc", hand_cases()[0].abc);
  mcxload(dir_ / "sub" / "g.abc", dir_ / "sub" / "g.mci", dir_ / "sub" / "g.tab");
  // Output names: -az with -odir, --d, -I, -pi, -c, -l and -i.
  for (const char* args : {"sub/g.mci -az", "sub/g.mci -odir sub/odir -az", "sub/g.mci --d -az",
                           "sub/g.mci -I 3.14 -pi 0.8 -c 2.5 -az", "sub/g.mci -I 3 -I 2 -az",
                           "sub/g.mci -l 2 -i 3 -pi 0.8 -az"}) {
    std::string want, got;
    ASSERT_EQ(theirs(dir_, args, &want), 0) << args;
    ASSERT_EQ(ours(dir_, args, &got), 0) << args;
    EXPECT_EQ(got, want) << args;
  }
  // -odir writes there, under mcl's name; the last -o wins, as in mcl.
  ASSERT_EQ(ours(dir_, "sub/g.mci -odir sub/odir -q x"), 0);
  EXPECT_TRUE(fs::exists(dir_ / "sub" / "odir" / "out.g.mci.I20"));
  ASSERT_EQ(ours(dir_, "sub/g.mci -o first.txt -q x -o second.txt"), 0);
  EXPECT_FALSE(fs::exists(dir_ / "first.txt"));
  EXPECT_TRUE(fs::exists(dir_ / "second.txt"));
  expect_same_output(dir_, "sub/g.mci -I 3 -I 2 -o ignored.txt", "repeated options");
  // -tab is -use-tab.
  std::string a, b;
  ASSERT_EQ(ours(dir_, "sub/g.mci -use-tab sub/g.tab -o -", &a), 0);
  ASSERT_EQ(ours(dir_, "sub/g.mci -tab sub/g.tab -o -", &b), 0);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, hand_cases()[0].expected);
  // Quiet as mcl: -q x -V all and -V all alone print nothing (as mcl 22-282: checked against
  // it here); -V cls drops the iteration lines only; -v all and --verbose give the details.
  std::string out, err, mcl_err;
  ASSERT_EQ(ours(dir_, "sub/g.mci -q x -V all -o /dev/null", &out, &err), 0);
  EXPECT_EQ(err, "");
  ASSERT_EQ(run_in(dir_, "mcl", "sub/g.mci -V all -o /dev/null", &out, &mcl_err), 0);
  ASSERT_EQ(ours(dir_, "sub/g.mci -V all -o /dev/null", &out, &err), 0);
  EXPECT_EQ(err, mcl_err);
  ASSERT_EQ(ours(dir_, "sub/g.mci -V cls -o /dev/null", &out, &err), 0);
  EXPECT_EQ(err.find(" ite "), std::string::npos) << err;
  EXPECT_NE(err.find("clusters found"), std::string::npos) << err;
  for (const char* v : {"-v all", "--verbose"}) {
    ASSERT_EQ(ours(dir_, std::string("sub/g.mci -o /dev/null ") + v, &out, &err), 0) << v;
    EXPECT_NE(err.find("expanded"), std::string::npos) << v << ": " << err;
  }
  // mcl options that are not supported fail naming themselves, never read as another option;
  // a value glued to its option is no option for mcl either.
  for (const char* bad :
       {"-check-connected y", "-write-expanded x", "-ap 2", "-aa 2", "-write-graphx x", "-I2",
        "-ofile", "-V loud", "-sort none", "-tf '#mcl(3)'", "-tf 'foo(1)'"}) {
    ASSERT_EQ(ours(dir_, std::string("sub/g.mci -o /dev/null ") + bad, &out, &err), 2) << bad;
    const std::string name = std::string(bad).substr(0, std::string(bad).find(' '));
    const std::string shown = name == "-tf"     ? std::string(bad).substr(5, 4)
                              : name == "-V"    ? "loud"
                              : name == "-sort" ? "none"
                                                : name;
    EXPECT_NE(err.find(shown), std::string::npos) << bad << ": " << err;
  }
}

// ---- opsparse-clm against Debian's clm ----------------------------------------------------------

#ifdef OPSPARSE_CLM_EXE
/// The key=value fields of a line, in order.
std::vector<std::pair<std::string, std::string>> fields(const std::string& line) {
  std::vector<std::pair<std::string, std::string>> f;
  std::istringstream is(line);
  std::string tok;
  while (is >> tok)
    if (const std::size_t eq = tok.find('='); eq != std::string::npos)
      f.emplace_back(tok.substr(0, eq), tok.substr(eq + 1));
  return f;
}

TEST_F(McxNative, ClmDistAndInfoAsDebiansClm) {
  REQUIRE_MCL_TOOLS();
  if (!have("clm")) GTEST_SKIP() << "Debian's clm is not on PATH (apt-get install mcl)";
  const std::string clm_exe =
      "'" + opsparse::test::program_path("opsparse-clm", OPSPARSE_CLM_EXE) + "'";
  std::vector<fs::path> graphs = {file("w1.abc", planted_abc(10, 15, 0.4, 0.06, true, 31)),
                                  file("w2.abc", planted_abc(6, 30, 0.3, 0.05, false, 32))};
  const std::vector<fs::path> ppi = ppi_files();
  if (!ppi.empty()) graphs.push_back(ppi.front());
  for (const fs::path& abc : graphs) {
    const std::string b = abc.stem().string();
    mcxload(abc, dir_ / (b + ".mci"), dir_ / (b + ".tab"));
    std::string files;
    for (const char* i : {"1.4", "2", "3", "5"}) {
      const std::string c = b + ".I" + i;
      ASSERT_EQ(theirs(dir_, b + ".mci -q x -V all -I " + i + " -o " + c), 0);
      files += " " + c;
    }
    // clm dist: the same lines, byte for byte.
    for (const char* mode :
         {"", "-mode sj", "-mode vi", "-mode mk", "--chain", "-mode vi --chain"}) {
      std::string want, got, err;
      ASSERT_EQ(run_in(dir_, "clm", std::string("dist ") + mode + files, &want, nullptr), 0);
      ASSERT_EQ(run_in(dir_, clm_exe, std::string("dist ") + mode + files, &got, &err), 0) << err;
      EXPECT_FALSE(want.empty());
      EXPECT_EQ(got, want) << b << " clm dist " << mode;
    }
    // clm info: every field equals clm's, for the first clustering and the later ones (clm
    // counts loops only for the first).
    std::string want, got, err;
    ASSERT_EQ(run_in(dir_, "clm", "info " + b + ".mci" + files, &want, nullptr), 0);
    ASSERT_EQ(run_in(dir_, clm_exe, "info " + b + ".mci" + files, &got, &err), 0) << err;
    std::istringstream ws(want), gs(got);
    std::string wl, gl;
    int lines = 0;
    while (std::getline(ws, wl)) {
      ASSERT_TRUE(static_cast<bool>(std::getline(gs, gl))) << "fewer lines than clm:\n" << got;
      if (wl == "===") {
        EXPECT_EQ(gl, "===");
        continue;
      }
      ++lines;
      std::map<std::string, std::string> theirs_f;
      for (const auto& [k, v] : fields(wl)) theirs_f[k] = v;
      const auto ours_f = fields(gl);
      // eff mod mf af src ncl max ctr avg min DGI TWI TWL sgl qrt
      EXPECT_EQ(ours_f.size(), 15u) << gl;
      // A modularity that rounds to zero: clm's summation order sometimes leaves -0.00000
      // (w1's single cluster), which is not reproduced (clm.cpp).
      if (theirs_f["mod"] == "-0.00000") theirs_f["mod"] = "0.00000";
      for (const auto& [k, v] : ours_f)
        EXPECT_EQ(v, theirs_f[k]) << b << " " << k << "\n" << wl << "\n" << gl;
    }
    EXPECT_EQ(lines, 4) << want;
  }
  // Not a clustering: an error naming the file; an unknown mode: status 2.
  std::string err;
  EXPECT_EQ(run_in(dir_, clm_exe, "dist w1.mci w1.I2", nullptr, &err), 1);
  EXPECT_NE(err.find("w1.mci"), std::string::npos) << err;
  EXPECT_EQ(run_in(dir_, clm_exe, "meet w1.I2 w1.I3", nullptr, &err), 2);
  EXPECT_NE(err.find("meet"), std::string::npos) << err;
}

/// clm info's lines as opsparse-clm prints them: the same but for a modularity of -0.00000.
std::string as_ours(const std::string& text) {
  std::istringstream is(text);
  std::string line, cut;
  while (std::getline(is, line)) {
    // A modularity that rounds to zero: clm's summation order sometimes leaves -0.00000, which
    // is not reproduced (clm.cpp).
    if (const std::size_t m = line.find(" mod=-0.00000 "); m != std::string::npos)
      line.erase(m + 5, 1);
    cut += line + "\n";
  }
  return cut;
}

// clm info's efficiency (eff), modularity (mod) and the rest of its line, byte for byte
// on every shared PPI network and clusterings made by Debian's mcl; the first clustering of a
// command line gets eff and mf with mcl's loops, the later ones without (clm 22-282).
TEST_F(McxNative, ClmInfoEfficiencyAndModularityAsDebiansClm) {
  REQUIRE_MCL_TOOLS();
  if (!have("clm")) GTEST_SKIP() << "Debian's clm is not on PATH (apt-get install mcl)";
  const std::vector<fs::path> ppi = ppi_files();
  if (ppi.empty())
    GTEST_SKIP() << "no shared PPI networks (set OPSPARSE_DATASETS to ../shared/datasets)";
  const std::string clm_exe =
      "'" + opsparse::test::program_path("opsparse-clm", OPSPARSE_CLM_EXE) + "'";
  for (const fs::path& abc : ppi) {
    const std::string b = abc.stem().string();
    mcxload(abc, dir_ / (b + ".mci"), dir_ / (b + ".tab"));
    for (const char* i : {"1.4", "2", "4"})
      ASSERT_EQ(theirs(dir_, b + ".mci -q x -V all -I " + i + " -o " + b + ".I" + i), 0) << b;
    for (const std::string& files :
         {" " + b + ".I1.4 " + b + ".I2 " + b + ".I4", " " + b + ".I4 " + b + ".I1.4"}) {
      std::string want, got, err;
      ASSERT_EQ(run_in(dir_, "clm", "info " + b + ".mci" + files, &want, nullptr), 0) << b;
      ASSERT_EQ(run_in(dir_, clm_exe, "info " + b + ".mci" + files, &got, &err), 0) << err;
      EXPECT_NE(want.find("eff="), std::string::npos) << want;
      EXPECT_EQ(got, as_ours(want)) << b << files << "\n" << first_difference(as_ours(want), got);
    }
  }
}

// The same on a small hand-written graph of the cases the PPI files lack: a loop in the file
// (left out), an explicit zero (left out), a one-way edge, a node without edges, and a
// clustering of singletons, one of a single cluster and one of pairs and a singleton (sizes
// 2 2 2 1: DGI=2 TWI=1 TWL=2 sgl=1 qrt=4).
TEST_F(McxNative, ClmInfoOnLoopsZerosAndOneWayEdgesAsDebiansClm) {
  if (!have("clm")) GTEST_SKIP() << "Debian's clm is not on PATH (apt-get install mcl)";
  const std::string clm_exe =
      "'" + opsparse::test::program_path("opsparse-clm", OPSPARSE_CLM_EXE) + "'";
  const std::string head = "(mclheader\nmcltype matrix\ndimensions ";
  file("g.mci",
       head +
           "7x7\n)\n(mclmatrix\nbegin\n0 0:5 1:1 2:0.5 $\n1 0:1 2:2 3:1 $\n"
           "2 0:0.5 1:2 3:0 $\n3 1:1 2:0 4:3 5:1 $\n4 3:3 5:2 6:0.25 $\n5 3:1.5 4:2 $\n6 $\n)\n");
  file("three", head + "7x3\n)\n(mclmatrix\nbegin\n0 0 1 2 $\n1 3 4 5 $\n2 6 $\n)\n");
  file("singletons",
       head + "7x7\n)\n(mclmatrix\nbegin\n0 0 $\n1 1 $\n2 2 $\n3 3 $\n4 4 $\n5 5 $\n6 6 $\n)\n");
  file("one", head + "7x1\n)\n(mclmatrix\nbegin\n0 0 1 2 3 4 5 6 $\n)\n");
  file("pairs", head + "7x4\n)\n(mclmatrix\nbegin\n0 0 6 $\n1 1 2 $\n2 3 $\n3 4 5 $\n)\n");
  for (const char* files : {" three singletons one", " singletons one three", " one three pairs"}) {
    std::string want, got, err;
    ASSERT_EQ(run_in(dir_, "clm", std::string("info g.mci") + files, &want, nullptr), 0);
    ASSERT_EQ(run_in(dir_, clm_exe, std::string("info g.mci") + files, &got, &err), 0) << err;
    EXPECT_EQ(got, as_ours(want)) << files << "\n" << first_difference(as_ours(want), got);
  }
}
#endif

#ifdef OPSPARSE_MCX_EXE
TEST_F(McxNative, McxLoadAndDumpAsDebiansMcxloadAndMcxdump) {
  REQUIRE_MCL_TOOLS();
  if (!have("mcxdump")) GTEST_SKIP() << "Debian's mcxdump is not on PATH (apt-get install mcl)";
  const std::string mcx =
      "'" + opsparse::test::program_path("opsparse-mcx", OPSPARSE_MCX_EXE) + "'";
  std::vector<fs::path> inputs = {
      file("l1.abc", planted_abc(8, 25, 0.35, 0.02, true, 41)),
      file("l2.abc", evalue_abc(5, 20, 42)),
      file("l3.abc", "a\tb\t1\na\tb\t3\nb\ta\t2\nc\td\nb\tc\t0.5\ne\tf\t0\ng\tg\t-2\n"),
      // Weights at float's edges: beyond its range (1 for mcxload, -1e300
      // -inf), 0 as a float (an entry written as 0), 0 (no entry).
      file("l4.abc",
           "a b 1e300\nb c 0.5\nc d -1e300\nd e 1e-300\ne f 0\nf g inf\n"
           "g h nan\nh i 1e400\ni j 3.5e38\nj a 2\na c 0.25\n"),
      // Duplicates of which one is 0, or becomes 0 (1e300 is 1, -log10(1) 0): the 0 is no entry and
      // takes no part in the merging (the larger of 0 and -2 is -2 for mcxload).
      file("l5.abc", "x y 1e300\nx y 5.3e11\ny z 0\nz y -2\nz w 3\nw w 0\n")};
  if (!ppi_files().empty()) inputs.push_back(ppi_files().back());
  for (const fs::path& abc : inputs) {
    for (const char* opts :
         {"", "--stream-mirror", "--stream-mirror --stream-neg-log10 -stream-tf 'ceil(100)'",
          "--stream-neg-log10", "-stream-tf 'gq(0.5),mul(2)' -tf 'add(1)'",
          // Values a transform makes 0 as floats (0.5^1000, 1e-60) stay
          // entries of 0; infinity and NaN are written as mcxload writes them.
          "-stream-tf 'pow(1000)'", "--stream-mirror -stream-tf 'mul(1e-30),mul(1e-30)'",
          "--stream-mirror -tf 'pow(1000)'", "-stream-tf 'pow(1000),mul(0)'",
          "--stream-mirror -stream-tf 'log(-1),add(1)' -tf 'exp(-2)'"}) {
      if (std::string(opts).find("neg-log") != std::string::npos && abc.stem() != "l2" &&
          abc.stem() != "l5")
        continue;
      if (std::string(opts).find("pow(1000)") != std::string::npos && abc.stem() != "l4" &&
          abc.stem() != "l1")
        continue;
      const std::string load = std::string(" -abc ") + q(abc) + " " + opts;
      ASSERT_EQ(sh("cd " + q(dir_) + " && mcxload" + load +
                   " -write-tab want.tab -o want.mci > /dev/null 2>&1"),
                0)
          << load;
      std::string err;
      ASSERT_EQ(run_in(dir_, mcx, "load" + load + " -write-tab got.tab -o got.mci", nullptr, &err),
                0)
          << load << "\n"
          << err;
      EXPECT_TRUE(read_text(dir_ / "got.mci") == read_text(dir_ / "want.mci"))
          << load << "\n"
          << first_difference(read_text(dir_ / "want.mci"), read_text(dir_ / "got.mci"));
      EXPECT_TRUE(read_text(dir_ / "got.tab") == read_text(dir_ / "want.tab")) << load;
      for (const char* dump : {" -imx want.mci", " -imx want.mci -tab want.tab",
                               " -imx want.mci -tab want.tab --no-values"}) {
        std::string want, got;
        ASSERT_EQ(run_in(dir_, "mcxdump", std::string(dump) + " -o -", &want, nullptr), 0);
        ASSERT_EQ(run_in(dir_, mcx, std::string("dump") + dump, &got, &err), 0) << err;
        EXPECT_TRUE(got == want) << dump << "\n" << first_difference(want, got);
      }
    }
  }
}
#endif
#endif

}  // namespace
