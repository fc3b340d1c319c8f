// Values at the edges of mcl's float cells, as mcl 22-282 treats them: weights
// beyond float's range (1e300 in an ABC file is 1 there, in a native matrix
// infinity), transforms that make infinity or NaN (-tf 'pow(1000)'), and the
// transform language's corner cases (log(-1), log(0), a step that makes 0
// followed by one that does not). The expected outputs are mcl's, written down
// here and, where Debian's mcl is installed, compared with it live.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/mcl_compat.hpp"
#include "mcl_test_util.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse::mcl;
using namespace opsparse::mcl::test;

double apply(const std::string& spec, double v) { return value_transform::parse(spec)(v); }

TEST(MclValueTransform, StepsAreMclsUnaryOperations) {
  // log in a negative base is 0 in mcl (fltxLog), which removes the value;
  // log(0) is base e.
  EXPECT_EQ(apply("log(-1)", 2.0), 0.0);
  EXPECT_EQ(apply("neglog(-1)", 2.0), 0.0);
  EXPECT_FLOAT_EQ(apply("log(0)", 2.0), static_cast<float>(std::log(2.0)));
  EXPECT_EQ(apply("log(0)", 2.0), apply("log()", 2.0));
  EXPECT_EQ(apply("log(10)", -5.0),
            0.0);  // the log of a negative value: 0 as well
  // Only gq, gt, lq and lt end the steps on 0; after mul(0) add(1) still
  // applies.
  EXPECT_EQ(apply("mul(0),add(1)", 5.0), 1.0);
  EXPECT_EQ(apply("log(-1),add(1)", 5.0), 1.0);
  EXPECT_EQ(apply("lt(1),add(1)", 5.0), 0.0);
  // Floats' range: infinity and NaN are values (mcl's cells hold them), not
  // FLT_MAX.
  EXPECT_EQ(apply("pow(1000)", 2.0), HUGE_VAL);
  EXPECT_EQ(apply("mul(1e300)", 2.0), HUGE_VAL);  // the number is a float too
  EXPECT_EQ(apply("mul(1e38),mul(10)", 1.0), HUGE_VAL);
  EXPECT_TRUE(std::isnan(apply("pow(1000),mul(0)", 2.0)));
  EXPECT_TRUE(std::isnan(apply("exp(-2)", 0.5)));  // (-2)^0.5, where the base is not e
  EXPECT_EQ(apply("exp(-2)", 2.0), 4.0);
  // A result that is 0 only as a float stays an entry (of value 0), as in mcl.
  const double tiny = apply("pow(1000)", 0.5);
  EXPECT_NE(tiny, 0.0);
  EXPECT_EQ(static_cast<float>(tiny), 0.0f);
  // mcl's other value steps.
  EXPECT_EQ(apply("abs()", -3.0), 3.0);
  EXPECT_EQ(apply("scale(4)", 2.0), 0.5);
  EXPECT_EQ(apply("scale(0)", 2.0), 0.0);
  EXPECT_FLOAT_EQ(apply("acos()", 0.5), static_cast<float>(std::acos(0.5)));
  EXPECT_FLOAT_EQ(apply("acos()", 3.0), 0.0f);
  EXPECT_THROW(value_transform::parse("rand(0.5)"), std::invalid_argument);
  EXPECT_THROW(value_transform::parse("gq()"), std::invalid_argument);
}

TEST(MclValueTransform, AbcWeightsAsMclReadsThem) {
  EXPECT_EQ(abc_weight(1e300), 1.0);
  EXPECT_EQ(abc_weight(HUGE_VAL), 1.0);
  EXPECT_EQ(abc_weight(std::nan("")), 1.0);
  EXPECT_EQ(abc_weight(3e38), 3e38);
  EXPECT_EQ(abc_weight(-1e300), -1e300);
  EXPECT_EQ(float_entry(-1e300), -HUGE_VAL);
  EXPECT_EQ(float_entry(1e-300), 1e-300);  // an entry whose float is 0
  EXPECT_EQ(float_entry(0.1), static_cast<double>(0.1f));
}

#ifdef OPSPARSE_MCL_EXE
struct values_tag {
  static constexpr const char* name = "values";
};
class MclValues : public files_suite<values_tag> {
 protected:
  /// opsparse-mcl (or mcl, `prog` "mcl") on `args` in the scratch folder: its
  /// output file.
  static std::string clusters(const std::string& prog, const std::string& args) {
    const fs::path out = dir_ / "out.txt";
    std::error_code ec;
    fs::remove(out, ec);
    const std::string p =
        prog == "mcl" ? std::string("mcl")
                      : "'" + opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE) + "'";
    const int rc =
        sh("cd " + q(dir_) + " && " + p + " " + args + " -o out.txt > /dev/null 2> err.txt");
    EXPECT_EQ(rc, 0) << prog << " " << args << "\n" << read_text(dir_ / "err.txt");
    std::string text = read_text(out);
    if (text.rfind("# cline:", 0) == 0) text = text.substr(text.find('\n') + 1);
    return text;
  }
  /// Ours equals `want` (mcl's output, recorded), and mcl's own where it is
  /// installed.
  static void expect_mcls(const std::string& args, const std::string& want) {
    EXPECT_EQ(clusters("ours", args), want) << args;
    if (have("mcl")) EXPECT_EQ(clusters("mcl", args), want) << "mcl itself: " << args;
  }
};

// Two triangles a-b-c and d-e-f joined by c-d.
const std::string two_triangles = "a b 2\nb c 3\nc a 4\nc d 0.5\nd e 2\ne f 3\nf d 4\n";

TEST_F(MclValues, WeightsBeyondFloatsRangeAreOneInAbcAsInMcl) {
  // mcl reads an ABC weight above FLT_MAX (and inf, nan, 1e400) as 1: a-b is a
  // weak edge and the file is two triangles a-c-e, b-d-f. Clamped to 3.4e38
  // instead, a-b held everything.
  file("huge.abc", "a b 1e300\na c 100\nb d 100\nc e 100\nd f 100\ne c 100\nf d 100\n");
  expect_mcls("huge.abc --abc", "a\tc\te\nb\td\tf\n");
  file("nonfinite.abc", "a b inf\na c 100\nb d nan\nc e 100\nd f 1e400\ne c 100\nf d 100\n");
  expect_mcls("nonfinite.abc --abc", "a\tb\tc\te\nd\tf\n");
}

TEST_F(MclValues, TransformsToInfinityGiveMclsDegenerateClustering) {
  // pow(1000) makes the weights infinite floats; mcl's columns are then NaN
  // (inf/inf) and 0, its first expansion prunes them all, and every node is
  // unclaimed: one cluster.
  file("tri.abc", two_triangles);
  expect_mcls("tri.abc --abc -tf 'pow(1000)'", "a\tb\tc\td\te\tf\n");
  expect_mcls("tri.abc --abc -tf 'mul(1e38),mul(10)'", "a\tb\tc\td\te\tf\n");
  expect_mcls("tri.abc --abc -abc-tf 'pow(1000)'", "a\tb\tc\td\te\tf\n");
  // A component without infinite weights is clustered as usual beside it.
  file("mixed.abc", two_triangles + "x y 1\ny z 1\nz x 1\nz w 0.5\n");
  expect_mcls("mixed.abc --abc -tf 'pow(200)'", "a\tb\tc\td\te\tf\nx\ty\tz\nw\n");
  // -pi past float's range (4000^20) is infinite in mcl's cells too.
  file("k.abc", "a b 1000\nb c 2000\nc a 4000\nc d 500\nd e 2000\ne f 3000\nf d 4000\n");
  expect_mcls("k.abc --abc -pi 20", "a\tb\tc\td\te\tf\n");
  // A native matrix's 1e300 is infinity (a float), not 1.
  file("big.mci",
       "(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mclmatrix\nbegin\n"
       "0 1:1e300 2:5 $\n1 0:1e300 2:1 $\n2 0:5 1:1 $\n)\n");
  expect_mcls("big.mci",
              "(mclheader\nmcltype matrix\ndimensions "
              "3x2\n)\n(mclmatrix\nbegin\n0 0 1 $\n1 2 $\n)\n");
}

TEST_F(MclValues, LogarithmsInBaseZeroOrBelowAsMcl) {
  file("tri.abc", two_triangles);
  // log(-1) makes every value 0 in mcl (no edges: six singletons); log(0) is
  // the natural log.
  expect_mcls("tri.abc --abc -tf 'log(-1)'", "a\nb\nc\nd\ne\nf\n");
  expect_mcls("tri.abc --abc -tf 'neglog(-1)'", "a\nb\nc\nd\ne\nf\n");
  expect_mcls("tri.abc --abc -tf 'log(0)'", "a\tb\tc\nd\te\tf\n");
  expect_mcls("tri.abc --abc -tf 'log(-1),add(1)'",
              "a\tb\tc\nd\te\tf\n");  // all 1
  expect_mcls("tri.abc --abc -tf 'mul(0),add(1)'", "a\tb\tc\nd\te\tf\n");
  // exp in a negative base is (-2)^v: NaN for c-d's 0.5, which spreads over
  // every column.
  expect_mcls("tri.abc --abc -tf 'exp(-2)'", "a\tb\tc\td\te\tf\n");
}
TEST_F(MclValues, AWeightOfZeroTakesNoPartInMergingDuplicates) {
  // mcl stores no weight of 0, so the arc c-d is -0.5 (listed as 0 and -0.5), not the larger 0: c's
  // heaviest edge is -0.5, its loop too, and its column (-0.5, -0.5) divided by its sum is (0.5,
  // 0.5). Merged with the 0, c and d were singletons.
  file("zero_dup.abc", "c\td\t0\nd\tc\t-0.5\n");
  expect_mcls("zero_dup.abc --abc", "c\td\n");
  // A weight that --abc-neg-log10 makes 0 (1e300 is 1 for mcl, and -log10(1) 0) is no entry either:
  // x-y keeps -log10(5.3e11).
  file("neglog_dup.abc", "x\ty\t1e300\nx\ty\t5.3e11\nx\tz\t1e-3\n");
  expect_mcls("neglog_dup.abc --abc --abc-neg-log10", "y\tz\nx\n");
}

// Found by test_mcl_property.cpp: mcl's start matrix is made of floats, with entries of 0.
TEST_F(MclValues, StartMatrixInFloatCellsWithZeroEntriesAsMcl) {
  // -pi in floats: 4e-45 (a float) to the power 1.4 is 0, its column's powers sum to 0 and mcl
  // empties it: n3 and n31 are unclaimed, with n38 and n18 (1.5e35^1.4 is infinite: NaN).
  file("pi.abc", "n38\tn18\t1.54938e+35\nn3\tn31\t4.01435e-45\n");
  expect_mcls("pi.abc --abc -I 2.06894 -pi 1.39621", "n38\tn18\tn3\tn31\n");
  // n1's only edge is 3e-49, an entry of 0 in mcl's floats: 0 times n17's NaN is NaN, and n1
  // is unclaimed too (dropped, the edge left n1 alone, a cluster of its own).
  file("zero.abc", "n17\tn1\t3.29144e-49\nn17\tn40\t9.25051e+31\n");
  expect_mcls("zero.abc --abc -I 2.06894 -pi 1.39621", "n17\tn1\tn40\n");
  // mcl removes an input loop with the entries of 0 in its column (n35-n16 here), before -tf;
  // acos() makes the other entries of 0 pi/2.
  file("acos.abc",
       "n35\tn15\t1.56806e-43\nn35\tn35\t2.21055e+225\nn13\tn15\t3.60151e-50\n"
       "n16\tn35\t4.40694e-48\n");
  expect_mcls("acos.abc --abc -I 2.32517 -tf 'acos(),gt(0)'", "n35\tn15\tn13\tn16\n");
  // Weights 1e38 apart (1 and 1.08e38) make start values near 1e-38, whose products underflow
  // float: mcl's float products, over some 90 slowly converging iterations.
  file("far.abc",
       "n0 n14 9.07779e+273\nn6 n3 3.40384e+31\nn10 n4 7.99264e+23\n"
       "n14 n8 1.21057e+115\nn0 n6 2.24037e+37\nn8 n2 1.08265e+38\n"
       "n6 n14 8.7253e+170\nn10 n16 3.28501e+22\nn2 n14 1.57593e+290\n");
  expect_mcls("far.abc --abc -I 1.21588 -P 3698", "n0\tn14\tn6\tn3\nn10\tn4\tn16\nn8\tn2\n");
}
#endif

}  // namespace
