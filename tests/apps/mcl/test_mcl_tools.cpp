// mcl's options for its own diagnostics (which leave the clusters as they are) and mcxdump's
// cluster dump (opsparse-mcx dump -icl FILE -tabr TAB), against what
// Debian's mcl and mcxdump do, live where they are installed.
#include <gtest/gtest.h>

#include <string>

#include "mcl_test_util.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse::mcl::test;

#if defined(OPSPARSE_MCL_EXE) && defined(OPSPARSE_MCX_EXE)
struct tools_tag {
  static constexpr const char* name = "tools";
};
class MclTools : public files_suite<tools_tag> {
 protected:
  static std::string mcl() {
    return q(opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE));
  }
  static std::string mcx() {
    return q(opsparse::test::program_path("opsparse-mcx", OPSPARSE_MCX_EXE));
  }
  /// `cmd` run in the scratch folder: its exit status; `out` and `err` its two streams.
  static int run(const std::string& cmd, std::string* out = nullptr, std::string* err = nullptr) {
    const int rc = sh("cd " + q(dir_) + " && " + cmd + " > stdout.txt 2> stderr.txt");
    if (out) *out = read_text(dir_ / "stdout.txt");
    if (err) *err = read_text(dir_ / "stderr.txt");
    return rc;
  }
};

const char* const tab = "0\ta\n1\tb\n2\tc\n3\td\n4\te\n5\tf\n6\tg\n7\th\n";
const char* const cluster_header = "(mclheader\nmcltype matrix\ndimensions ";

TEST_F(MclTools, DumpsClustersWithRowLabelsAsMcxdump) {
  file("g.tab", tab);
  // Three clusters, the second empty: one line each, the empty one empty.
  file("c.cls", std::string(cluster_header) + "8x3\n)\n(mclmatrix\nbegin\n0 0 1 2 $\n2 6 7 $\n)\n");
  std::string out, err;
  ASSERT_EQ(run(mcx() + " dump -icl c.cls -tabr g.tab", &out, &err), 0) << err;
  EXPECT_EQ(out, "a\tb\tc\n\ng\th\n");
  ASSERT_EQ(run(mcx() + " dump -icl c.cls", &out, &err), 0) << err;
  EXPECT_EQ(out, "0\t1\t2\n\n6\t7\n");
  // A tab file that does not hold the row domain is refused, as mcxdump refuses it, unless
  // --lazy-tab: then "?_8" for the label it lacks.
  file("c9.cls", std::string(cluster_header) + "9x2\n)\n(mclmatrix\nbegin\n0 0 8 $\n1 3 $\n)\n");
  EXPECT_EQ(run(mcx() + " dump -icl c9.cls -tabr g.tab", &out, &err), 1);
  EXPECT_NE(err.find("--lazy-tab"), std::string::npos) << err;
  ASSERT_EQ(run(mcx() + " dump -icl c9.cls -tabr g.tab --lazy-tab", &out, &err), 0) << err;
  EXPECT_EQ(out, "a\t?_8\nd\n");
  EXPECT_EQ(run(mcx() + " dump -icl c.cls -imx c.cls"), 2);  // one input
}

TEST_F(MclTools, DumpOfMclsClusteringEqualsMcxdumpsBytes) {
  REQUIRE_MCL_TOOLS();
  file("p.abc", planted_abc(12, 20, 0.3, 0.01, true, 5));
  ASSERT_EQ(run("mcxload -abc p.abc --stream-mirror -write-tab p.tab -o p.mci"), 0);
  ASSERT_EQ(run("mcl p.mci -I 3 -o p.cls"), 0);
  ASSERT_EQ(run(mcl() + " p.mci -I 3 -o ours.cls --backend cpu"), 0);
  for (const char* cls : {"p.cls", "ours.cls"}) {
    std::string want, got, err;
    ASSERT_EQ(run(std::string("mcxdump -icl ") + cls + " -tabr p.tab", &want, &err), 0) << err;
    ASSERT_EQ(run(mcx() + " dump -icl " + cls + " -tabr p.tab", &got, &err), 0) << err;
    EXPECT_GT(want.size(), 100u);
    EXPECT_TRUE(got == want) << cls;
    ASSERT_EQ(run(std::string("mcxdump -icl ") + cls, &want, &err), 0) << err;
    ASSERT_EQ(run(mcx() + " dump -icl " + cls, &got, &err), 0) << err;
    EXPECT_TRUE(got == want) << cls;
  }
}

TEST_F(MclTools, DiagnosticOptionsLeaveTheClustersAsTheyAre) {
  file("t.abc", "a b 3\na c 1\nb c 2\nc d 0.5\nd e 4\ne f 2\nd f 1\n");
  std::string out, err;
  ASSERT_EQ(run(mcl() + " t.abc --abc -o plain.out --backend cpu"), 0);
  const std::string plain = read_text(dir_ / "plain.out");
  // -analyze appends to the clustering (test_mcl_diagnostics.cpp has what); the others write
  // files of their own.
  for (const std::string& opt : {"-analyze y", "--analyze=y", "-dump stats", "-dump ite -dump cls",
                                 "-dump-stem x", "-ds x", "-di 1:3", "-dm 2", "--write-limit"}) {
    ASSERT_EQ(run(mcl() + " t.abc --abc " + opt + " -o opt.out --backend cpu", &out, &err), 0)
        << opt << "\n"
        << err;
    const std::string got = read_text(dir_ / "opt.out");
    EXPECT_EQ(got.substr(0, plain.size()), plain) << opt;
    EXPECT_EQ(got.size() > plain.size(), opt.find("analyze") != std::string::npos) << opt;
    EXPECT_EQ(err.find("ignores it"), std::string::npos) << opt << "\n" << err;
  }
  ASSERT_EQ(run(mcl() + " t.abc --abc -analyze n -o opt.out --backend cpu", &out, &err), 0);
  EXPECT_EQ(read_text(dir_ / "opt.out"), plain);
  // A -dump mode that mcl does not know is said once, not with --quiet.
  ASSERT_EQ(run(mcl() + " t.abc --abc -dump stats -o opt.out --backend cpu", &out, &err), 0);
  EXPECT_NE(err.find("note: -dump stats"), std::string::npos) << err;
  ASSERT_EQ(run(mcl() + " t.abc --abc -dump stats --quiet -o opt.out --backend cpu", &out, &err),
            0);
  EXPECT_EQ(err.find("note:"), std::string::npos) << err;
  // -abc-tf passes over graph steps, as mcl does, and says so.
  ASSERT_EQ(
      run(mcl() + " t.abc --abc -abc-tf '#knn(2),mul(2)' -o opt.out --backend cpu", &out, &err), 0);
  EXPECT_NE(err.find("'#knn(2)'"), std::string::npos) << err;
  EXPECT_EQ(read_text(dir_ / "opt.out"), plain);
}

TEST_F(MclTools, DiagnosticOptionsAsMclAccepts) {
  REQUIRE_MCL_TOOLS();
  file("t.abc", "a b 3\na c 1\nb c 2\nc d 0.5\nd e 4\ne f 2\nd f 1\n");
  for (const std::string& opt : {"-dump stats", "-dump-stem x", "--write-limit"}) {
    ASSERT_EQ(run("mcl t.abc --abc " + opt + " -o want.out"), 0) << opt;
    ASSERT_EQ(run(mcl() + " t.abc --abc " + opt + " -o got.out --backend cpu"), 0) << opt;
    EXPECT_EQ(read_text(dir_ / "got.out"), read_text(dir_ / "want.out")) << opt;
  }
  EXPECT_EQ(read_text(dir_ / "got.out-limit"), read_text(dir_ / "want.out-limit"));
}
#endif

}  // namespace
