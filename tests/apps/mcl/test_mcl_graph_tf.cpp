// mcl's graph transforms in -tf ('#knn(10)' and the other '#' steps): their results on a small
// graph as mcl 22-282 gives them (recorded from mcxload -tf), the spec's reading, and live
// comparisons where Debian's mcl and mcxload are installed: opsparse-mcx load -tf writes
// mcxload's bytes for every step, and opsparse-mcl -tf clusters as mcl -tf.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mcl_graph_tf.hpp"
#include "mcl_test_util.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl;
using namespace opsparse::mcl::test;

// Eight nodes: a-b-c, d-e-f, g-h, joined by light edges (mcxload's indices a=0 .. h=7).
const char* const tiny_abc =
    "a b 3\na c 1\nb c 2\nc d 0.5\nd e 4\ne f 2\nd f 1\nf g 0.3\ng h 5\na d 0.2\nb e 0.1\n";

/// The tiny graph mirrored, as mcxload --stream-mirror loads it.
host_csr<double> tiny() {
  const std::vector<std::vector<std::pair<index_t, double>>> rows = {
      {{1, 3}, {2, 1}, {3, 0.2}}, {{0, 3}, {2, 2}, {4, 0.1}},
      {{0, 1}, {1, 2}, {3, 0.5}}, {{0, 0.2}, {2, 0.5}, {4, 4}, {5, 1}},
      {{1, 0.1}, {3, 4}, {5, 2}}, {{3, 1}, {4, 2}, {6, 0.3}},
      {{5, 0.3}, {7, 5}},         {{6, 5}}};
  host_csr<double> a(8, 8);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (const auto& [j, v] : rows[i]) {
      a.col.push_back(j);
      a.val.push_back(static_cast<double>(static_cast<float>(v)));
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

/// `spec` applied to the tiny graph, written as mcl's native matrix body (one line a node).
std::string transformed(const std::string& spec) {
  host_csr<double> a = tiny();
  matrix_transform::parse(spec).apply(a);
  std::ostringstream os;
  for (index_t i = 0; i < a.rows; ++i) {
    os << i;
    for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k) os << ' ' << a.col[k] << ':' << a.val[k];
    os << " $\n";
  }
  return os.str();
}

TEST(MclGraphTransform, NearestNeighboursAsMcl) {
  // Each node's two heaviest edges, kept where both ends keep them (mcxload -tf '#knn(2)').
  EXPECT_EQ(transformed("#knn(2)"),
            "0 1:3 2:1 $\n1 0:3 2:2 $\n2 0:1 1:2 $\n3 4:4 5:1 $\n4 3:4 5:2 $\n5 3:1 4:2 $\n"
            "6 7:5 $\n7 6:5 $\n");
  // Joined: f keeps g (g chose f), g keeps f.
  EXPECT_EQ(transformed("#knnj(2)"),
            "0 1:3 2:1 $\n1 0:3 2:2 $\n2 0:1 1:2 $\n3 4:4 5:1 $\n4 3:4 5:2 $\n"
            "5 3:1 4:2 6:0.3 $\n6 5:0.3 7:5 $\n7 6:5 $\n");
  // The selection alone: g keeps its arc to f.
  EXPECT_EQ(transformed("#rank(2)"),
            "0 1:3 2:1 $\n1 0:3 2:2 $\n2 0:1 1:2 $\n3 4:4 5:1 $\n4 3:4 5:2 $\n5 3:1 4:2 $\n"
            "6 5:0.3 7:5 $\n7 6:5 $\n");
  EXPECT_EQ(transformed("@knn(2)"), transformed("#knn(2)"));
  // k = 0 does nothing (mcl's "if (val)"); below -0.5 the count wraps: nothing either.
  EXPECT_EQ(transformed("#knn(0)"), transformed(""));
  EXPECT_EQ(transformed("#knn(-2)"), transformed(""));
}

TEST(MclGraphTransform, TiesAtTheKthWeightDropTheTiedArcs) {
  // Unweighted: every arc ties with the k-th, mcl then keeps those above it by a float
  // epsilon, none. A node with at most k arcs keeps them.
  host_csr<double> a(3, 3);
  a.rpt = {0, 2, 4, 6};
  a.col = {1, 2, 0, 2, 0, 1};
  a.val = {1, 1, 1, 1, 1, 1};
  host_csr<double> b = a;
  apply_graph_step(a, matrix_transform::graph_op::rank, 1);
  EXPECT_TRUE(a.col.empty());
  apply_graph_step(b, matrix_transform::graph_op::rank, 2);
  EXPECT_EQ(b.col.size(), 6u);
}

TEST(MclGraphTransform, PairsOfArcsAsMcl) {
  host_csr<double> a(2, 2);  // 0->1 weighs 2, 1->0 weighs 3, 0 has a loop of 1
  a.rpt = {0, 2, 3};
  a.col = {0, 1, 0};
  a.val = {1, 2, 3};
  auto after = [&](matrix_transform::graph_op op, double arg = 0) {
    host_csr<double> b = a;
    apply_graph_step(b, op, arg);
    std::ostringstream os;
    for (index_t i = 0; i < b.rows; ++i)
      for (offset_t k = b.rpt[i]; k < b.rpt[i + 1]; ++k)
        os << i << '>' << b.col[k] << '=' << b.val[k] << ' ';
    return os.str();
  };
  using op = matrix_transform::graph_op;
  EXPECT_EQ(after(op::add), "0>0=2 0>1=5 1>0=5 ");  // a loop is added to itself
  EXPECT_EQ(after(op::max), "0>0=1 0>1=3 1>0=3 ");
  EXPECT_EQ(after(op::min), "0>0=1 0>1=2 1>0=2 ");
  EXPECT_EQ(after(op::mul), "0>0=1 0>1=6 1>0=6 ");
  EXPECT_EQ(after(op::arcmax), "0>0=1 1>0=3 ");
  EXPECT_EQ(after(op::arcsub), "0>1=-1 1>0=1 ");
  EXPECT_EQ(after(op::transpose), "0>0=1 0>1=3 1>0=2 ");
  EXPECT_EQ(after(op::arcmaxgq, 3), "0>1=2 1>0=3 ");
  EXPECT_EQ(after(op::arcmingq, 3), "");
  EXPECT_EQ(after(op::selfrm), "0>1=2 1>0=3 ");
  EXPECT_EQ(after(op::selfmax), "0>0=2 0>1=2 1>0=3 1>1=3 ");
}

TEST(MclGraphTransform, SpecsAsMclReadsThem) {
  // Value and graph steps in one list, blanks around names and numbers, defaults of ().
  EXPECT_EQ(transformed(" mul(2) , #knn( 2 ) ,gq(3)"),
            "0 1:6 $\n1 0:6 2:4 $\n2 1:4 $\n3 4:8 $\n4 3:8 5:4 $\n5 4:4 $\n6 7:10 $\n7 6:10 $\n");
  EXPECT_NO_THROW(matrix_transform::parse("#tug(),#step(),#ils(),#add(),#hread(2),#shuffle(1)"));
  EXPECT_NO_THROW(matrix_transform::parse("#arcmimlq(1)"));  // mcl's spelling
  auto refusal = [](const std::string& spec) {
    try {
      (void)matrix_transform::parse(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refusal("#thread(2)").find("#hread"), std::string::npos);
  EXPECT_NE(refusal("#arcminlq(1)").find("#arcmimlq"), std::string::npos);
  EXPECT_NE(refusal("#knn()").find("needs a value"), std::string::npos);
  EXPECT_NE(refusal("#knn").find("not a transform"), std::string::npos);
  EXPECT_NE(refusal("#knn(2x)").find("not a number"), std::string::npos);
  EXPECT_NE(refusal("#mcl(2)").find("not supported"), std::string::npos);
  EXPECT_NE(refusal("#shrug()").find("random"), std::string::npos);
  EXPECT_NE(refusal("#step(-2)").find("30 times"), std::string::npos);
  EXPECT_NE(refusal("#knn(2),").find("empty step"), std::string::npos);
  EXPECT_NE(refusal("#nope(1)").find("unknown graph transform"), std::string::npos);
  // A stream takes the value steps only, in order.
  const matrix_transform t = matrix_transform::parse("mul(2),#knn(2),gq(5)");
  EXPECT_EQ(t.value_steps()(3.0), 6.0);
  EXPECT_EQ(t.value_steps()(2.0), 0.0);
  EXPECT_EQ(t.graph_steps(), std::vector<std::string>{"#knn(2)"});
}

#if defined(OPSPARSE_MCL_EXE) && defined(OPSPARSE_MCX_EXE)
struct graph_tf_tag {
  static constexpr const char* name = "graph_tf";
};
using McxGraphTransform = files_suite<graph_tf_tag>;

// Every step of mcl 22-282's list that is not random, on a weighted graph with ties, directed
// (as loaded) and mirrored: opsparse-mcx load -tf writes mcxload -tf's bytes.
TEST_F(McxGraphTransform, EveryStepWritesMcxloadsMatrix) {
  REQUIRE_MCL_TOOLS();
  const std::string mcx = q(opsparse::test::program_path("opsparse-mcx", OPSPARSE_MCX_EXE));
  file("p.abc", planted_abc(6, 25, 0.3, 0.02, true, 91) + "n3\tn3\t2\n");
  const std::vector<std::string> specs = {
      "#knn(3)",         "#knn(8)",         "#knnj(3)",        "#rank(4)",
      "#ceilnb(5)",      "#add()",          "#max()",          "#min()",
      "#mul()",          "#arcmax()",       "#arcsub()",       "#arcmaxgq(1)",
      "#arcmaxgt(1)",    "#arcmaxlq(0.5)",  "#arcmaxlt(0.5)",  "#arcmingq(1)",
      "#arcmingt(1)",    "#arcmimlq(1)",    "#arcminlt(1)",    "#arcdiffgq(0.3)",
      "#arcdiffgt(0.3)", "#arcdifflq(0.3)", "#arcdifflt(0.3)", "#selfrm()",
      "#selfmax()",      "#normself()",     "#tp()",           "#step(1)",
      "#qt(0.5)",        "#ssq(0.8)",       "#tug()",          "#tug(1e6)",
      "#ils()",          "#hread(2)",       "#shuffle(1)",     "mul(2),#knn(4),gq(1),#add()"};
  const std::string cd = "cd " + q(dir_) + " && ";
  int compared = 0;
  for (const char* mirror : {"", " --stream-mirror"})
    for (const std::string& spec : specs) {
      const std::string args = " -abc p.abc" + std::string(mirror) + " -tf '" + spec + "'";
      ASSERT_EQ(sh(cd + "mcxload" + args + " -o want.mci > /dev/null 2>&1"), 0) << spec;
      ASSERT_EQ(sh(cd + mcx + " load" + args + " -o got.mci"), 0) << spec;
      EXPECT_TRUE(read_text(dir_ / "got.mci") == read_text(dir_ / "want.mci")) << spec << mirror;
      ++compared;
    }
  EXPECT_EQ(compared, 72);
}

// opsparse-mcl -tf with graph steps clusters as mcl -tf: the shared protein networks with
// weights drawn per line (ties included), and a planted graph.
TEST_F(McxGraphTransform, ClustersAsMclWithGraphTransforms) {
  REQUIRE_MCL_TOOLS();
  const std::string mcl = q(opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE));
  std::vector<std::string> graphs = {"planted.abc"};
  file("planted.abc", planted_abc(8, 30, 0.3, 0.02, true, 17));
  const fs::path ppi = fs::path(opsparse::test::datasets_dir()) / "ppi";
  for (const char* name : {"PPISB_krogan.abc", "ghsom_Y2H_union.abc"}) {
    if (!fs::exists(ppi / name)) continue;
    std::istringstream in(read_text(ppi / name));
    std::ostringstream out;
    std::string a, b;
    for (unsigned line = 1; in >> a >> b; ++line) {
      in.ignore(1 << 20, '\n');
      out << a << '\t' << b << '\t' << (line * 2654435761u % 7 + 1) * 0.5 << '\n';
    }
    file(name, out.str());
    graphs.push_back(name);
  }
  const std::string cd = "cd " + q(dir_) + " && ";
  for (const std::string& g : graphs)
    for (const char* spec : {"#knn(5)", "#knnj(3)", "#ceilnb(6)", "gq(1),#knn(8),#tug()", "#ils()",
                             "#qt(0.7),#add()"}) {
      const std::string args = g + " --abc -tf '" + spec + "'";
      ASSERT_EQ(sh(cd + "mcl " + args + " -o want.out > /dev/null 2>&1"), 0) << args;
      ASSERT_EQ(sh(cd + mcl + " " + args + " --backend cpu -o got.out 2> /dev/null"), 0) << args;
      EXPECT_EQ(read_text(dir_ / "got.out"), read_text(dir_ / "want.out")) << args;
    }
}
#endif

}  // namespace
