// opsparse-mcl on the inputs and command lines a new user tried: a failed
// run must not touch the user's files, odd input is an error naming file and line (never a
// silent wrong answer), parameters are checked as they are used, and the program says which
// engine runs.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <string>

#include "common/backend.hpp"
#include "core/mcl.hpp"
#include "mcl_test_util.hpp"
#include "test_support.hpp"

#ifdef OPSPARSE_MCL_EXE
namespace {

using namespace opsparse::mcl::test;
namespace fs = std::filesystem;

struct robust_files {
  static constexpr const char* name = "robust";
};
class MclRobust : public files_suite<robust_files> {
 protected:
  /// Runs opsparse-mcl in the scratch folder; returns its exit status (-1 when it was killed),
  /// with standard output and error captured.
  static int run(const std::string& args, std::string* out = nullptr, std::string* err = nullptr,
                 const std::string& stdin_text = std::string()) {
    static const std::string exe = opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE);
    const fs::path o = dir_ / "stdout.txt", e = dir_ / "stderr.txt", i = dir_ / "stdin.bin";
    write_text(i, stdin_text);
    const std::string cmd = "cd '" + dir_.string() + "' && '" + exe + "' " + args + " < '" +
                            i.string() + "' > '" + o.string() + "' 2> '" + e.string() + "'";
    const int status = std::system(cmd.c_str());
    if (out) *out = read_text(o);
    if (err) *err = read_text(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  static bool has_mcl() { return std::system("command -v mcl > /dev/null 2>&1") == 0; }
  /// Debian's mcl on the same file, or "" when it is not installed.
  static std::string mcl_clusters(const fs::path& abc, const std::string& flags = "") {
    const fs::path out = dir_ / "mcl.out";
    const std::string cmd =
        "mcl '" + abc.string() + "' --abc " + flags + " -o '" + out.string() + "' > /dev/null 2>&1";
    return std::system(cmd.c_str()) == 0 ? read_text(out) : std::string();
  }
  /// Files in the scratch folder whose names start with '.': temporary files left behind.
  static int hidden_files() {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string().front() == '.') ++n;
    return n;
  }
};

const std::string two_triangles = "a\tb\nb\tc\nc\ta\nd\te\ne\tf\nf\td\nc\td\t0.1\n";

TEST_F(MclRobust, AFailedRunLeavesAnExistingOutputAsItWas) {
  // Once: results.txt truncated, then removed, on a bad input.
  file("results.txt", "precious\n");
  file("bad.txt", "1 2\nnot an edge\n");
  std::string err;
  EXPECT_EQ(run("bad.txt -o results.txt --backend cpu", nullptr, &err), 1);
  EXPECT_NE(err.find("bad.txt:2"), std::string::npos) << err;
  EXPECT_EQ(read_text(dir_ / "results.txt"), "precious\n");
  EXPECT_EQ(hidden_files(), 0);
  // A good run replaces it.
  file("good.abc", two_triangles);
  EXPECT_EQ(run("good.abc -o results.txt --backend cpu --quiet", nullptr, &err), 0) << err;
  EXPECT_EQ(read_text(dir_ / "results.txt"), "a\tb\tc\nd\te\tf\n");
  EXPECT_EQ(hidden_files(), 0);
}

TEST_F(MclRobust, TheInputIsRefusedAsOutput) {
  // Once: -o graph.abc on input graph.abc emptied the input, then deleted it.
  file("graph.abc", two_triangles);
  std::string err;
  EXPECT_EQ(run("graph.abc -o graph.abc --backend cpu", nullptr, &err), 2);
  EXPECT_NE(err.find("is the input file"), std::string::npos) << err;
  EXPECT_EQ(run("graph.abc -o ./graph.abc --backend cpu", nullptr, &err), 2);
  EXPECT_EQ(read_text(dir_ / "graph.abc"), two_triangles);
}

TEST_F(MclRobust, ADeviceNodeAsOutputIsWrittenNotRemoved) {
  file("bad2.txt", "1 2\nx\n");
  EXPECT_EQ(run("bad2.txt -o /dev/null --backend cpu"), 1);
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  file("ok.abc", two_triangles);
  EXPECT_EQ(run("ok.abc -o /dev/null --backend cpu --quiet"), 0);
}

TEST_F(MclRobust, NulBytesAreAnErrorWithTheLine) {
  // Once: the third line was skipped and 3 of 5 vertices clustered, exit 0.
  std::string err;
  EXPECT_EQ(
      run("- -o - --backend cpu", nullptr, &err, std::string("1 2\n2 3\n") + '\0' + "3 4\n4 5\n"),
      1);
  EXPECT_NE(err.find(":3: NUL byte"), std::string::npos) << err;
}

TEST_F(MclRobust, HugeWeightsGiveMclsPartition) {
  // Once: the column sums overflowed at ~6e307 and every node landed in one cluster (mcl: 2).
  const fs::path g = file("huge.abc",
                          "a\tb\t1e308\nb\tc\t1e308\nc\ta\t1e308\nd\te\t1e308\ne\tf\t1e308\n"
                          "f\td\t1e308\nc\td\t1e300\n");
  std::string out, err;
  ASSERT_EQ(run("huge.abc -o - --backend cpu --quiet", &out, &err), 0) << err;
  EXPECT_EQ(out, "a\tb\tc\nd\te\tf\n");
  if (has_mcl()) EXPECT_EQ(parse_partition(out), parse_partition(mcl_clusters(g)));
  // Scaling every weight by one factor changes no probability: with -c and -pi on top, the
  // huge weights cluster as the same graph scaled down to 1 (where mcl agrees; on the huge
  // weights mcl's floats overflow to infinity and it does not).
  const fs::path small = file("small.abc",
                              "a\tb\t1\nb\tc\t1\nc\ta\t1\nd\te\t1\ne\tf\t1\n"
                              "f\td\t1\nc\td\t1e-8\n");
  for (const std::string flags : {"", " -pi 3", " -pi 0.5 --discard-loops=n -c 5", " -c 3"}) {
    std::string want;
    ASSERT_EQ(run("small.abc -o - --backend cpu --quiet" + flags, &want, &err), 0) << err;
    ASSERT_EQ(run("huge.abc -o - --backend cpu --quiet" + flags, &out, &err), 0) << err;
    EXPECT_EQ(out, want) << flags;
  }
  if (has_mcl()) EXPECT_EQ(parse_partition(out), parse_partition(mcl_clusters(small, "-c 3")));
}

TEST_F(MclRobust, AbcLabelsWithSpacesAsMclReadsThem) {
  // Once: "x<TAB>gene 1" was read as labels x, gene and the weight 1.
  const fs::path g = file("spaces.abc", "x\tgene 1\ngene 1\ty\tz 2\nx\ty\n");
  std::string out, err;
  EXPECT_EQ(run("spaces.abc -o - --backend cpu --quiet", &out, &err), 1) << out;
  EXPECT_NE(err.find("spaces.abc:2: expected a numeric weight, found 'z 2'"), std::string::npos)
      << err;
  const fs::path ok = file("spaces_ok.abc", "x\tgene 1\ngene 1\ty\t2\nx\ty\n");
  ASSERT_EQ(run("spaces_ok.abc -o - --backend cpu --quiet", &out, &err), 0) << err;
  EXPECT_EQ(parse_partition(out), (partition{{"x", "gene 1", "y"}}));
  if (has_mcl()) EXPECT_EQ(parse_partition(out), parse_partition(mcl_clusters(ok)));
}

TEST_F(MclRobust, ANegativeWeightIsClusteredAsMclClustersIt) {
  // Once refused; mcl 22-282 clusters such graphs (test_mcl_negative.cpp has the details).
  const fs::path neg = file("neg.abc", "a\tb\t1\n\nb\tc\t-2\nc\td\t1\n");
  std::string out, err;
  EXPECT_EQ(run("neg.abc -o - --backend cpu", &out, &err), 0) << err;
  EXPECT_EQ(parse_partition(out).size(), 2u) << out;
  if (has_mcl()) EXPECT_EQ(parse_partition(out), parse_partition(mcl_clusters(neg)));
}

TEST_F(MclRobust, ParametersAreCheckedAsTheyAreUsed) {
  file("p.abc", two_triangles);
  std::string err;
  // -I 1e-50 is 0 as mcl's float: once accepted and used as 0.
  EXPECT_EQ(run("p.abc -I 1e-50 --backend cpu", nullptr, &err), 2);
  EXPECT_NE(err.find("float"), std::string::npos) << err;
  EXPECT_EQ(run("p.abc -c 1e39 --backend cpu", nullptr, &err), 2);
  // -scheme 0 once exited 1 like a failed run.
  EXPECT_EQ(run("p.abc -scheme 0 --backend cpu", nullptr, &err), 2);
  EXPECT_NE(err.find("-scheme"), std::string::npos) << err;
  EXPECT_EQ(run("p.abc -te 2 --threads 2 --backend cpu", nullptr, &err), 2);
}

TEST_F(MclRobust, TooManyThreadsAreCappedWithAWarning) {
  // Once: SIGSEGV.
  file("t.abc", two_triangles);
  std::string out, err;
  ASSERT_EQ(run("t.abc -o - -te 100000 --backend cpu", &out, &err), 0) << err;
  EXPECT_NE(err.find("warning: -te 100000 is more than the"), std::string::npos) << err;
  EXPECT_EQ(out, "a\tb\tc\nd\te\tf\n");
  ASSERT_EQ(run("t.abc -o - --threads 100000 --backend cpu", &out, &err), 0) << err;
  EXPECT_NE(err.find("warning: --threads 100000"), std::string::npos) << err;
}

TEST_F(MclRobust, SaysWhichBackendRunsAndWhy) {
  file("b.abc", two_triangles);
  std::string out, err;
  ASSERT_EQ(run("b.abc -o - --backend cpu", &out, &err), 0) << err;
  EXPECT_NE(err.find("[opsparse-mcl] backend: cpu (--backend cpu)\n"), std::string::npos) << err;
  ASSERT_EQ(run("b.abc -o - --backend cpu --quiet", &out, &err), 0);
  EXPECT_EQ(err, "");
  ASSERT_EQ(run("b.abc -o - --backend auto", &out, &err), 0) << err;
  std::string why;
  const bool gpu = opsparse::apps::resolve_backend("auto", &why) == opsparse::apps::backend::gpu;
  if (opsparse::apps::driver_installed()) {
    // A tiny network: the CPU, without starting CUDA, and why.
    EXPECT_NE(err.find("backend: cpu (a small network: "), std::string::npos) << err;
    if (gpu) {
      // A network of 5M products in its first expansion goes to the GPU.
      std::ostringstream big;
      for (int i = 0; i < 2000; ++i)
        for (int d = 1; d <= 25; ++d) big << 'n' << i << "\tn" << (i * 7 + d * 13) % 2000 << '\n';
      file("big.abc", big.str());
      ASSERT_EQ(run("big.abc -o /dev/null --backend auto", &out, &err), 0) << err;
      EXPECT_NE(err.find("backend: gpu ("), std::string::npos) << err;
    }
  } else {
    EXPECT_NE(err.find("backend: cpu (" + why + ")"), std::string::npos) << err;
  }
#ifndef OPSPARSE_HAS_GPU_ENGINE
  EXPECT_NE(err.find("no GPU engine"), std::string::npos) << err;
#endif
}

TEST_F(MclRobust, InflationSweepEqualsSeparateRunsAndMcl) {
  // --inflations: one run, one output per inflation named as mcl names them, each equal to a
  // separate run with -I (and to Debian's mcl, where installed); a summary line per inflation.
  file("sweep.abc", planted_abc(5, 20, 0.4, 0.03, true, 23));
  std::string out, err;
  ASSERT_EQ(run("sweep.abc --abc --inflations 1.4,2,3.5 --backend cpu", &out, &err), 0) << err;
  int line = 0;
  for (const char* i : {"1.4", "2", "3.5"}) {
    const std::string tag = std::string(i) == "1.4" ? "14" : std::string(i) == "2" ? "20" : "35";
    const std::string swept = read_text(dir_ / ("out.sweep.abc.I" + tag));
    ASSERT_EQ(run(std::string("sweep.abc --abc --backend cpu --quiet -o single.txt -I ") + i), 0);
    EXPECT_EQ(swept, read_text(dir_ / "single.txt")) << "-I " << i;
    if (has_mcl()) EXPECT_EQ(swept, mcl_clusters(dir_ / "sweep.abc", std::string("-I ") + i)) << i;
    // the summary's row: inflation, then the number of clusters (lines of the output)
    std::size_t clusters = 0;
    for (char c : swept) clusters += c == '\n';
    std::ostringstream row;
    row << std::setw(9) << i << "  " << std::setw(8) << clusters << "  ";
    EXPECT_NE(err.find(row.str()), std::string::npos) << row.str() << "\n" << err;
    ++line;
  }
  EXPECT_EQ(line, 3);
  EXPECT_NE(err.find("mass-fraction  area-fraction"), std::string::npos) << err;
  // -o with a sweep, and lists that are not lists of valid inflations, are usage errors.
  EXPECT_EQ(run("sweep.abc --abc --inflations 1.4,2 -o x.txt", &out, &err), 2);
  EXPECT_NE(err.find("-o is refused"), std::string::npos) << err;
  for (const char* bad : {"1.4,,2", "2,x", "0,2", ""}) {
    EXPECT_EQ(run(std::string("sweep.abc --abc --inflations '") + bad + "'", &out, &err), 2) << bad;
    EXPECT_NE(err.find("--inflations"), std::string::npos) << bad << ": " << err;
  }
}

TEST_F(MclRobust, SweepInflationsThatMclWouldNameAlikeGetNamesOfTheirOwn) {
  // mcl names -I 1.2, 1.21 and 1.25 all out.X.I12: a sweep of them kept only the last clustering
  // while it reported three. Now the sweep's names take the decimals that tell them apart.
  file("near.abc", planted_abc(4, 15, 0.4, 0.05, true, 24));
  std::string out, err;
  ASSERT_EQ(run("near.abc --abc --inflations 1.2,1.21,1.25 --backend cpu", &out, &err), 0) << err;
  for (const char* tag : {"120", "121", "125"}) {
    const fs::path f = dir_ / (std::string("out.near.abc.I") + tag);
    ASSERT_TRUE(fs::exists(f)) << f << "\n" << err;
    EXPECT_NE(err.find("output is in " + f.filename().string()), std::string::npos) << err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out.near.abc.I12"));
  ASSERT_EQ(run("near.abc --abc --backend cpu --quiet -o single.txt -I 1.21"), 0);
  EXPECT_EQ(read_text(dir_ / "out.near.abc.I121"), read_text(dir_ / "single.txt"));
  // A sweep without such a clash keeps mcl's names; an inflation listed twice is refused.
  ASSERT_EQ(run("near.abc --abc --inflations 1.4,2 --backend cpu --quiet"), 0);
  EXPECT_TRUE(fs::exists(dir_ / "out.near.abc.I14"));
  EXPECT_TRUE(fs::exists(dir_ / "out.near.abc.I20"));
  EXPECT_EQ(run("near.abc --abc --inflations 2,1.4,2.0 --backend cpu", &out, &err), 2);
  EXPECT_NE(err.find("lists the inflation 2 twice"), std::string::npos) << err;
}

TEST_F(MclRobust, WeightsThatAreZeroAsFloatsAreNoEdges) {
  // mcl's cells are floats: 1e-50 is 0 there, so f-a is no edge and a is alone (we kept the
  // edge and put a with e and f). Its -tf sees the weight first: floor(1) makes it an edge.
  const std::string abc = "e\tf\t1\nf\ta\t1e-50\n";
  file("tiny.abc", abc);
  std::string out, err;
  ASSERT_EQ(run("tiny.abc --abc --backend cpu -o -", &out, &err), 0) << err;
  EXPECT_EQ(out, "e\tf\na\n");
  ASSERT_EQ(run("tiny.abc --abc --backend cpu -tf 'floor(1)' -o -", &out, &err), 0) << err;
  EXPECT_EQ(out, "e\tf\ta\n");
  // A weight written as 0 is no entry at all: -tf does not bring it back.
  file("zero.abc", "a\tb\t1\nb\tc\t0\n");
  ASSERT_EQ(run("zero.abc --abc --backend cpu -tf 'floor(1)' -o -", &out, &err), 0) << err;
  EXPECT_EQ(out, "a\tb\nc\n");
  if (has_mcl()) {
    EXPECT_EQ(mcl_clusters(dir_ / "tiny.abc"), "e\tf\na\n");
    EXPECT_EQ(mcl_clusters(dir_ / "tiny.abc", "-tf 'floor(1)'"), "e\tf\ta\n");
    EXPECT_EQ(mcl_clusters(dir_ / "zero.abc", "-tf 'floor(1)'"), "a\tb\nc\n");
  }
}

TEST_F(MclRobust, AProcessThatDoesNotConvergeHasItsInflationBumpedAsMcl) {
  // A directed 3-cycle at -I 2 oscillates for ever; mcl raises the inflation by 0.1% after each
  // iteration from the 40th and converges in the fifties (we ran all 10,000 iterations).
  file(
      "cycle.mci",
      "(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mclmatrix\nbegin\n0 1 $\n1 2 $\n2 0 $\n)\n");
  std::string out, err;
  ASSERT_EQ(run("cycle.mci --backend cpu -o ours.mci", &out, &err), 0) << err;
  EXPECT_NE(err.find("inflation bumped to 2.0020"), std::string::npos) << err;
  EXPECT_EQ(err.find("warning: no convergence"), std::string::npos) << err;
  EXPECT_EQ(err.find("ite 100"), std::string::npos) << "more than 99 iterations:\n" << err;
  if (has_mcl()) {
    ASSERT_EQ(
        std::system(
            ("cd '" + dir_.string() + "' && mcl cycle.mci -o theirs.mci > /dev/null 2>&1").c_str()),
        0);
    auto body = [](std::string t) { return t.substr(t.find('\n') + 1); };  // the cline aside
    EXPECT_EQ(body(read_text(dir_ / "ours.mci")), body(read_text(dir_ / "theirs.mci")));
  }
}

TEST_F(MclRobust, EmptyTransformStepsAreRefusedAsMclRefusesThem) {
  file("tf.abc", "a\tb\t1\nb\tc\t2\n");
  std::string out, err;
  for (const char* spec : {",", "mul(2),", ",mul(2)", "mul(2),,add(1)"}) {
    EXPECT_EQ(run(std::string("tf.abc --abc --backend cpu -o - -tf '") + spec + "'", &out, &err), 2)
        << spec;
    EXPECT_NE(err.find("empty step"), std::string::npos) << spec << ": " << err;
  }
  // An empty spec is no transform, for mcl too.
  EXPECT_EQ(run("tf.abc --abc --backend cpu -o - -tf ''", &out, &err), 0) << err;
}

TEST_F(MclRobust, AMalformedTabFileIsRefusedBeforeClustering) {
  // It was reported only after the whole clustering had run; mcl refuses it first.
  file("tab.mci",
       "(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mclmatrix\nbegin\n0 1 $\n1 0 2 $\n2 1 "
       "$\n)\n");
  file("bad.tab", "0\tzero\nx\tone\n");
  std::string out, err;
  EXPECT_EQ(run("tab.mci --backend cpu -use-tab bad.tab -o -", &out, &err), 1);
  EXPECT_NE(err.find("bad.tab"), std::string::npos) << err;
  EXPECT_EQ(err.find(" ite "), std::string::npos) << "it iterated first:\n" << err;
}

TEST_F(MclRobust, InitialLoopResourceAndSettingsAsMcl) {
  // mcl's -l/-i (an initial loop without a convergence test), -resource n (S = R = n, P = 10n)
  // and -z (the settings, on standard output) were refused; now they behave as mcl's.
  file("loops.abc", planted_abc(6, 25, 0.35, 0.03, true, 25));
  std::string out, err;
  ASSERT_EQ(run("-z -resource 500 -l 3 -i 1.4 -I 3.25", &out, &err), 0) << err;
  EXPECT_NE(out.find("Selection number                             500        [-S n]"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Prune number                                5000        [-P n]"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Initial inflation                              1.4      [-i f]"),
            std::string::npos)
      << out;
  if (has_mcl()) {
    const fs::path theirs = dir_ / "z.txt";
    for (const char* flags : {"", "-resource 500 -l 3 -i 1.4 -I 3.25", "-scheme 2 -S 700 -L 20"}) {
      ASSERT_EQ(run(std::string("-z ") + flags, &out, &err), 0) << err;
      ASSERT_EQ(
          std::system(
              ("mcl - -z " + std::string(flags) + " > '" + theirs.string() + "' 2>&1").c_str()),
          0);
      EXPECT_EQ(out, read_text(theirs)) << flags;
    }
  }
  // The initial loop runs all its iterations: 20 of them before the first convergence test.
  ASSERT_EQ(run("loops.abc --abc --backend cpu -l 20 -i 1.4 -o -", &out, &err), 0) << err;
  EXPECT_NE(err.find("ite  21"), std::string::npos) << err;
  for (const char* flags : {"-l 3 -i 1.4", "-l 2 -i 3", "-resource 40", "-l 1 -i 6 -I 1.6"}) {
    ASSERT_EQ(run(std::string("loops.abc --abc --backend cpu --quiet -o ours.txt ") + flags), 0)
        << flags;
    if (has_mcl())
      EXPECT_EQ(read_text(dir_ / "ours.txt"), mcl_clusters(dir_ / "loops.abc", flags)) << flags;
  }
}

TEST_F(MclRobust, AFullDiskNamesTheFileAndTheReason) {
  // "write_labelled_groups: writing to the stream failed" named neither the file nor why.
  const fs::path tiny = dir_ / "tiny-fs";
  fs::create_directories(tiny);
  if (std::system(
          ("mount -t tmpfs -o size=4k tmpfs '" + tiny.string() + "' 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root and mount rights)";
  file("big.abc", planted_abc(30, 40, 0.3, 0.01, false, 26));
  std::string out, err;
  const int rc = run("big.abc --abc --backend cpu --quiet -o '" + (tiny / "out.txt").string() + "'",
                     &out, &err);
  std::system(("umount '" + tiny.string() + "'").c_str());
  EXPECT_EQ(rc, 1) << err;
  EXPECT_NE(err.find((tiny / "out.txt").string()), std::string::npos) << err;
  EXPECT_NE(err.find("No space left on device"), std::string::npos) << err;
}

TEST_F(MclRobust, VersionAndHelp) {
  std::string out;
  ASSERT_EQ(run("--version", &out), 0);
  EXPECT_EQ(out.rfind("opsparse-mcl (OpSparse) ", 0), 0u) << out;
  ASSERT_EQ(run("--help", &out), 0);
  for (const char* word : {"--threads", "--version", "renamed", "undirected"})
    EXPECT_NE(out.find(word), std::string::npos) << "--help lacks " << word;
}

}  // namespace
#endif
