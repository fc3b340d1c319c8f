// mcl's -force-connected: every cluster that is not connected in the graph as
// clustered is split into its connected parts, as mcl 22-282's clmUGraphComponents splits it on
// the start matrix: each cluster in turn, from its smallest node not yet in a part, takes what is
// reachable along the matrix's arcs through members no earlier part took; the parts are then
// sorted largest first (whatever the -sort), and the clustering before the split is written to
// OUTPUT-rags. Hand-made graphs with known answers first, then the program against Debian's mcl
// (skipped, with the reason, without it), on graphs where mcl's raw clustering has a disconnected
// cluster (each such test checks that a split happened, so that it cannot pass vacuously).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/mcl_compat.hpp"
#include "mcl_test_util.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl;
using namespace opsparse::mcl::test;

/// A graph from its rows (row i lists the nodes that node i reaches: mcl's column i).
host_csr<double> graph(const std::vector<std::vector<index_t>>& rows) {
  const index_t n = static_cast<index_t>(rows.size());
  host_csr<double> g(n, n);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j : rows[static_cast<std::size_t>(i)]) {
      g.col.push_back(j);
      g.val.push_back(1.0);
    }
    g.rpt[static_cast<std::size_t>(i) + 1] = static_cast<offset_t>(g.col.size());
  }
  return g;
}

clustering of(std::vector<std::vector<index_t>> clusters) {
  clustering c;
  c.clusters = std::move(clusters);
  return c;
}

using parts = std::vector<std::vector<index_t>>;

TEST(MclForceConnected, SplitsADisconnectedClusterLargestPartFirst) {
  // 0-1 and 2-3-4 are two pieces of one cluster; 5-6 is connected.
  const host_csr<double> g = graph({{0, 1}, {0, 1}, {2, 3}, {2, 3, 4}, {3, 4}, {5, 6}, {5, 6}});
  clustering c = of({{5, 6}, {0, 1, 2, 3, 4}});  // -sort size's order: revsize after the split
  EXPECT_TRUE(split_disconnected(c, g));
  EXPECT_EQ(c.clusters, (parts{{2, 3, 4}, {0, 1}, {5, 6}}));
}

TEST(MclForceConnected, LeavesConnectedClustersAndTheirOrder) {
  const host_csr<double> g = graph({{1}, {0, 2}, {1}, {4}, {3}});
  clustering c = of({{3, 4}, {0, 1, 2}});
  EXPECT_FALSE(split_disconnected(c, g));
  EXPECT_EQ(c.clusters, (parts{{3, 4}, {0, 1, 2}}));  // not re-sorted, as mcl
}

TEST(MclForceConnected, FollowsArcsAsTheyPoint) {
  // Only 1 -> 0: from 0 (the smallest) nothing is reached, 1 then reaches only the taken 0.
  clustering c = of({{0, 1}});
  EXPECT_TRUE(split_disconnected(c, graph({{}, {0}})));
  EXPECT_EQ(c.clusters, (parts{{0}, {1}}));
  // Only 0 -> 1: one part. 0 -> 2 -> 1 through a member: one part too.
  c = of({{0, 1}});
  EXPECT_FALSE(split_disconnected(c, graph({{1}, {}})));
  c = of({{0, 1, 2}});
  EXPECT_FALSE(split_disconnected(c, graph({{2}, {}, {1}})));
  // 0 -> 2 -> 3 leaves 1, which reaches 3 (taken): {0, 2, 3} and {1}.
  c = of({{0, 1, 2, 3}});
  EXPECT_TRUE(split_disconnected(c, graph({{2}, {3}, {3}, {}})));
  EXPECT_EQ(c.clusters, (parts{{0, 2, 3}, {1}}));
}

TEST(MclForceConnected, ANodeTakenInAnEarlierClusterStaysTaken) {
  // Overlap (-overlap keep): the path 0-1-2-3 in clusters {0,1,2} and {1,2,3}. mcl's scratch
  // marks 1 and 2 in the first cluster's part; in the second, 1 starts a part of its own (2 is
  // taken) and 2 another, with 3: three parts for two clusters.
  const host_csr<double> g = graph({{1}, {0, 2}, {1, 3}, {2}});
  clustering c = of({{0, 1, 2}, {1, 2, 3}});
  EXPECT_TRUE(split_disconnected(c, g));
  EXPECT_EQ(c.clusters, (parts{{0, 1, 2}, {2, 3}, {1}}));
}

// ---- the program against Debian's mcl -------------------------------------------------------

#ifdef OPSPARSE_MCL_EXE
struct connected_tag {
  static constexpr const char* name = "connected";
};
using MclConnected = files_suite<connected_tag>;

const std::string& exe() {
  static const std::string e = opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE);
  return e;
}

/// mcl's raw clustering of this graph at -I 5 has {n1, n4} as one cluster, which is not
/// connected (found by a random search; mcl splits it into n1 and n4).
const std::string split_abc =
    "n0\tn1\t1\nn0\tn4\t2\nn0\tn7\t1\nn1\tn2\t1\nn1\tn3\t0.5\nn1\tn9\t0.5\nn2\tn3\t1\n"
    "n2\tn4\t3\nn2\tn6\t0.5\nn2\tn8\t2\nn2\tn10\t1\nn3\tn5\t1\nn3\tn6\t1\nn3\tn9\t2\n"
    "n4\tn5\t3\nn4\tn6\t1\nn4\tn9\t1\nn5\tn8\t1\nn5\tn9\t5\nn5\tn10\t5\nn6\tn7\t2\n";

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// mcl and opsparse-mcl with the same arguments, each in a folder of its own under the suite's
/// (`files` copied there first), writing `out`; the outputs and the -rags files (or their
/// absence) must be equal byte for byte, the program's name in a native output's cline aside.
/// Returns whether mcl split a cluster (it wrote a -rags file).
bool expect_as_mcl(const fs::path& dir, const std::vector<std::string>& files,
                   const std::string& args, const std::string& out = "out") {
  for (const char* who : {"mcl", "ours"}) {
    fs::remove_all(dir / who);
    fs::create_directories(dir / who);
    for (const std::string& f : files) fs::copy_file(dir / f, dir / who / f);
  }
  const std::string o = " -o " + out + " > stdout.txt 2> stderr.txt";
  EXPECT_EQ(sh("cd " + q(dir / "mcl") + " && mcl " + args + o), 0) << "mcl " << args;
  EXPECT_EQ(sh("cd " + q(dir / "ours") + " && '" + exe() + "' " + args + o), 0)
      << args << "\n"
      << read_text(dir / "ours" / "stderr.txt");
  const std::string file = out == "-" ? "stdout.txt" : out;
  std::string got = read_text(dir / "ours" / file);
  const std::string cline = "# cline: opsparse-mcl ";
  if (got.compare(0, cline.size(), cline) == 0) got.replace(0, cline.size(), "# cline: mcl ");
  EXPECT_EQ(got, read_text(dir / "mcl" / file)) << args;
  const std::string rags = out + "-rags";
  const bool split = fs::exists(dir / "mcl" / rags);
  EXPECT_EQ(fs::exists(dir / "ours" / rags), split) << args;
  if (split) EXPECT_EQ(read_text(dir / "ours" / rags), read_text(dir / "mcl" / rags)) << args;
  return split;
}

TEST_F(MclConnected, SplitsAsMclWithEverySort) {
  REQUIRE_MCL_TOOLS();
  file("g.abc", split_abc);
  // The split happens: mcl's own clustering has 5 clusters, 6 with the option.
  std::string raw, forced;
  ASSERT_EQ(sh("cd " + q(dir_) + " && mcl g.abc --abc -I 5 -o raw.txt 2> /dev/null"), 0);
  ASSERT_EQ(sh("cd " + q(dir_) + " && mcl g.abc --abc -I 5 -force-connected y -o fc.txt " +
               "2> /dev/null"),
            0);
  ASSERT_EQ(lines(read_text(dir_ / "raw.txt")), 5u);
  ASSERT_EQ(lines(read_text(dir_ / "fc.txt")), 6u);
  for (const char* sort : {"", " -sort size", " -sort lex", " -sort revsize"}) {
    const std::string args = std::string("g.abc --abc -I 5 -force-connected y") + sort;
    EXPECT_TRUE(expect_as_mcl(dir_, {"g.abc"}, args)) << sort;
  }
  // mcl's other spelling, and standard output: the clustering before the split goes to "--rags".
  EXPECT_TRUE(expect_as_mcl(dir_, {"g.abc"}, "g.abc --abc -I 5 --force-connected=y"));
  EXPECT_TRUE(expect_as_mcl(dir_, {"g.abc"}, "g.abc --abc -I 5 -force-connected y", "-"));
}

TEST_F(MclConnected, NativeInputAndTabLabelsAsMcl) {
  REQUIRE_MCL_TOOLS();
  file("g.abc", split_abc);
  ASSERT_EQ(sh("cd " + q(dir_) + " && mcxload -abc g.abc --stream-mirror -write-tab g.tab " +
               "-o g.mci > /dev/null 2>&1"),
            0);
  const std::string args = "g.mci -I 5 -force-connected y";
  EXPECT_TRUE(expect_as_mcl(dir_, {"g.mci"}, args));
  EXPECT_TRUE(expect_as_mcl(dir_, {"g.mci", "g.tab"}, args + " -use-tab g.tab"));
  EXPECT_TRUE(expect_as_mcl(dir_, {"g.mci"}, args + " -V all -sort size"));
}

TEST_F(MclConnected, ValuesAsMclReadsThem) {
  REQUIRE_MCL_TOOLS();
  file("g.abc", split_abc);
  // mcl's set_bit: the first character decides; an empty value is yes there.
  const std::string args = "g.abc --abc -I 5 -force-connected ";
  for (const char* yes : {"y", "yes", "Y", "1", "yak", "''"})
    EXPECT_TRUE(expect_as_mcl(dir_, {"g.abc"}, args + yes)) << yes;
  // n is mcl's default: no check, no -rags file, the clustering as without the option.
  for (const char* no : {"n", "no", "N", "0", "nope"})
    EXPECT_FALSE(expect_as_mcl(dir_, {"g.abc"}, args + no)) << no;
  EXPECT_FALSE(expect_as_mcl(dir_, {"g.abc"}, "g.abc --abc -I 5"));
  // The last one wins, as for every option.
  EXPECT_TRUE(expect_as_mcl(dir_, {"g.abc"}, args + "n -force-connected y"));
  EXPECT_FALSE(expect_as_mcl(dir_, {"g.abc"}, args + "y -force-connected n"));
  // mcl refuses other values (status 1, "expects 1/0/Yes/yes/No/no value") and a missing one;
  // this program exits with status 2, as for every bad option, naming it.
  for (const char* bad : {"-force-connected x", "-force-connected true", "-force-connected ' y'",
                          "-force-connected"}) {
    const fs::path err = dir_ / "err.txt";
    EXPECT_EQ(sh("cd " + q(dir_) + " && '" + exe() + "' g.abc --abc -o /dev/null " + bad + " 2> " +
                 q(err)),
              2)
        << bad;
    EXPECT_NE(read_text(err).find("force-connected"), std::string::npos)
        << bad << ": " << read_text(err);
  }
}

TEST_F(MclConnected, InflationSweepSplitsEveryOutputAsMcl) {
  REQUIRE_MCL_TOOLS();
  file("g.abc", split_abc);
  fs::create_directories(dir_ / "sweep");
  ASSERT_EQ(sh("cd " + q(dir_) + " && '" + exe() + "' g.abc --abc --inflations 2,5 " +
               "-force-connected y -odir sweep 2> /dev/null"),
            0);
  for (const std::string i : {"2", "5"}) {
    const bool split = expect_as_mcl(dir_, {"g.abc"}, "g.abc --abc -force-connected y -I " + i);
    const fs::path out = dir_ / "sweep" / ("out.g.abc.I" + i + "0");
    EXPECT_EQ(read_text(out), read_text(dir_ / "mcl" / "out")) << i;
    EXPECT_EQ(fs::exists(out.string() + "-rags"), split) << i;
    if (split) EXPECT_EQ(read_text(out.string() + "-rags"), read_text(dir_ / "mcl" / "out-rags"));
    if (i == "5") EXPECT_TRUE(split);
  }
}

/// A random graph in ABC over 5-16 nodes, arcs with probability 0.12-0.5 (both ways apart when
/// `directed`), weights from {0.5, 1, 2, 3, 5}.
std::string random_abc(bool directed, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int n = 5 + static_cast<int>(u(rng) * 12);
  const double p = 0.12 + 0.38 * u(rng);
  const char* weights[] = {"1", "1", "2", "3", "0.5", "5"};
  std::ostringstream os;
  for (int i = 0; i < n; ++i)
    for (int j = directed ? 0 : i + 1; j < n; ++j)
      if (i != j && u(rng) < p)
        os << "n" << i << "\tn" << j << "\t" << weights[static_cast<int>(u(rng) * 6)] << "\n";
  if (os.str().empty()) os << "n0\tn1\t1\n";
  return os.str();
}

TEST_F(MclConnected, RandomGraphsAsMcl) {
  REQUIRE_MCL_TOOLS();
  // ABC, a mirrored native matrix and a directed one (whose arcs are followed as they point),
  // with options that change the graph as clustered (-tf), the order and the overlap.
  const char* extras[] = {
      "",      "-sort size",       "-sort lex", "-overlap keep", "-overlap split", "-tf 'gq(2)'",
      "-pi 2", "--discard-loops=n"};
  const char* inflations[] = {"1.4", "3", "5", "8", "12"};
  int splits[3] = {0, 0, 0};
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    for (int kind = 0; kind < 3; ++kind) {
      file("r.abc", random_abc(kind == 2, seed * 3 + static_cast<std::uint64_t>(kind)));
      std::string input = "r.abc --abc";
      if (kind > 0) {
        const std::string mirror = kind == 1 ? " --stream-mirror" : "";
        ASSERT_EQ(
            sh("cd " + q(dir_) + " && mcxload -abc r.abc" + mirror + " -o r.mci > /dev/null 2>&1"),
            0);
        input = "r.mci";
      }
      const std::string args = input + " -I " + inflations[seed % 5] + " " +
                               extras[(seed + static_cast<std::uint64_t>(kind)) % 8] +
                               " -force-connected y";
      splits[kind] += expect_as_mcl(dir_, {kind ? "r.mci" : "r.abc"}, args) ? 1 : 0;
      if (HasFailure()) return;
    }
  }
  // Not vacuous: mcl split clusters of each kind of input.
  EXPECT_GT(splits[0], 0);
  EXPECT_GT(splits[1], 0);
  EXPECT_GT(splits[2], 5);
}
#endif  // OPSPARSE_MCL_EXE

}  // namespace
