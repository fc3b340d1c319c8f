// Readers and writers on the tiny hand-written files of tests/data/io and on files written by the
// tests themselves (error cases, round trips).
#include "opsparse/io.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "io_test_util.hpp"
#include "test_support.hpp"

namespace io = opsparse::io;
using io_test::data_path;
using io_test::entries;
using io_test::entry;
using io_test::scratch_dir;
using io_test::throws_parse_error;
using opsparse::host_csr;
using opsparse::index_t;
using opsparse::parse_error;
using opsparse::pattern;

namespace {
const std::string banner_real = "%%MatrixMarket matrix coordinate real general\n";
}  // namespace

// ---------------------------------------------------------------------------------------------
// Matrix Market: every field x symmetry combination
// ---------------------------------------------------------------------------------------------

TEST(MatrixMarket, RealGeneralRectangularCommentsDuplicatesSummed) {
  const auto m = io::read_matrix_market<double>(data_path("mm_real_general.mtx"));
  EXPECT_EQ(opsparse::check(m), "");
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 4);
  const std::vector<entry> want = {
      {0, 0, 1.5}, {0, 3, 100.0}, {1, 2, 3.0}, {2, 0, 7.0}, {2, 3, -0.4}};
  EXPECT_EQ(entries(m), want);
}

TEST(MatrixMarket, RealSymmetricIsExpanded) {
  const auto m = io::read_matrix_market<double>(data_path("mm_real_symmetric.mtx"));
  EXPECT_EQ(opsparse::check(m), "");
  const std::vector<entry> want = {{0, 0, 2.0}, {0, 1, -1.0}, {0, 3, 9.0}, {1, 0, -1.0},
                                   {1, 2, 0.5}, {2, 1, 0.5},  {3, 0, 9.0}, {3, 3, 3.0}};
  EXPECT_EQ(entries(m), want);
}

TEST(MatrixMarket, RealSkewSymmetricMirrorsNegated) {
  const auto m = io::read_matrix_market<double>(data_path("mm_real_skew.mtx"));
  EXPECT_EQ(opsparse::check(m), "");
  const std::vector<entry> want = {{0, 1, -1.5}, {0, 2, 2.5}, {1, 0, 1.5}, {2, 0, -2.5}};
  EXPECT_EQ(entries(m), want);
}

TEST(MatrixMarket, IntegerGeneralSummedAsEveryValueType) {
  const std::vector<entry> want = {{0, 1, 15.0}, {1, 0, 3.0}, {1, 2, -7.0}};
  const std::string p = data_path("mm_integer_general.mtx");
  const auto a = io::read_matrix_market<std::int32_t>(p);
  const auto b = io::read_matrix_market<std::int64_t>(p);
  const auto c = io::read_matrix_market<double>(p);
  const auto d = io::read_matrix_market<float>(p);
  EXPECT_EQ(opsparse::check(a), "");
  EXPECT_EQ(entries(a), want);
  EXPECT_EQ(entries(b), want);
  EXPECT_EQ(entries(c), want);
  EXPECT_EQ(entries(d), want);
  EXPECT_EQ(a.rows, 2);
  EXPECT_EQ(a.cols, 3);
}

TEST(MatrixMarket, IntegerSymmetric) {
  const auto m = io::read_matrix_market<std::int32_t>(data_path("mm_integer_symmetric.mtx"));
  EXPECT_EQ(opsparse::check(m), "");
  const std::vector<entry> want = {{0, 0, 4.0}, {0, 2, -2.0}, {2, 0, -2.0}, {2, 2, 6.0}};
  EXPECT_EQ(entries(m), want);
}

TEST(MatrixMarket, IntegerSkewSymmetric) {
  const auto m = io::read_matrix_market<std::int64_t>(data_path("mm_integer_skew.mtx"));
  EXPECT_EQ(opsparse::check(m), "");
  const std::vector<entry> want = {{0, 1, -3.0}, {1, 0, 3.0}, {1, 2, 4.0}, {2, 1, -4.0}};
  EXPECT_EQ(entries(m), want);
}

TEST(MatrixMarket, PatternGeneralDuplicatesStayOne) {
  const std::string p = data_path("mm_pattern_general.mtx");
  const auto a = io::read_matrix_market<pattern>(p);
  EXPECT_EQ(opsparse::check(a), "");
  EXPECT_TRUE(a.val.empty());
  EXPECT_EQ(a.rows, 3);
  EXPECT_EQ(a.cols, 5);
  const std::vector<entry> want = {{0, 4, 1.0}, {1, 0, 1.0}, {2, 1, 1.0}};
  EXPECT_EQ(entries(a), want);
  // With values, a pattern entry reads as 1, and a repeated one is still just present.
  EXPECT_EQ(entries(io::read_matrix_market<double>(p)), want);
  EXPECT_EQ(entries(io::read_matrix_market<std::int32_t>(p)), want);
}

TEST(MatrixMarket, PatternSymmetric) {
  const auto m = io::read_matrix_market<pattern>(data_path("mm_pattern_symmetric.mtx"));
  EXPECT_EQ(opsparse::check(m), "");
  const std::vector<entry> want = {{0, 1, 1.0}, {1, 0, 1.0}, {1, 3, 1.0}, {2, 2, 1.0}, {3, 1, 1.0}};
  EXPECT_EQ(entries(m), want);
}

TEST(MatrixMarket, PatternSkewSymmetricIsRejected) {
  scratch_dir dir;
  const auto p = dir.write("ps.mtx",
                           "%%MatrixMarket matrix coordinate pattern skew-symmetric\n"
                           "2 2 1\n2 1\n");
  EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<double>(p); }, p, 1, "skew"));
}

TEST(MatrixMarket, RealFileAsOtherValueTypes) {
  const std::string p = data_path("mm_real_general.mtx");
  const auto f = io::read_matrix_market<float>(p);
  EXPECT_EQ(opsparse::check(f), "");
  EXPECT_FLOAT_EQ(f.val.back(), -0.4f);
  const auto s = io::read_matrix_market<pattern>(p);
  EXPECT_EQ(opsparse::check(s), "");
  EXPECT_EQ(s.nnz(), 5);
  // Non-integral reals cannot become integers without silent rounding.
  EXPECT_TRUE(
      throws_parse_error([&] { io::read_matrix_market<std::int32_t>(p); }, p, 5, "not an integer"));
  // Integral reals can.
  const auto i = io::read_matrix_market<std::int64_t>(data_path("mm_1x1.mtx"));
  EXPECT_EQ(entries(i), (std::vector<entry>{{0, 0, 42.0}}));
}

TEST(MatrixMarket, OneByOne) {
  const auto m = io::read_matrix_market<double>(data_path("mm_1x1.mtx"));
  EXPECT_EQ(opsparse::check(m), "");
  EXPECT_EQ(m.rows, 1);
  EXPECT_EQ(m.cols, 1);
  EXPECT_EQ(entries(m), (std::vector<entry>{{0, 0, 42.0}}));
}

TEST(MatrixMarket, EmptyMatrices) {
  const auto m = io::read_matrix_market<double>(data_path("mm_empty.mtx"));
  EXPECT_EQ(opsparse::check(m), "");
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 2);
  EXPECT_EQ(m.nnz(), 0);
  scratch_dir dir;
  const auto p =
      dir.write("zero.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n0 0 0\n");
  const auto z = io::read_matrix_market<pattern>(p);
  EXPECT_EQ(opsparse::check(z), "");
  EXPECT_EQ(z.rows, 0);
  EXPECT_EQ(z.nnz(), 0);
}

TEST(MatrixMarket, BannerWordsAreCaseInsensitive) {
  scratch_dir dir;
  const auto p =
      dir.write("case.mtx", "%%matrixmarket MATRIX Coordinate Real SYMMETRIC\n2 2 1\n2 1 5\n");
  const auto m = io::read_matrix_market<double>(p);
  EXPECT_EQ(entries(m), (std::vector<entry>{{0, 1, 5.0}, {1, 0, 5.0}}));
}

TEST(MatrixMarket, CrlfBlankLinesAndCommentsBetweenEntries) {
  scratch_dir dir;
  const auto p = dir.write("crlf.mtx",
                           "%%MatrixMarket matrix coordinate real general\r\n%comment\r\n\r\n"
                           "2 2 2\r\n1 2 0.5\r\n% between entries\r\n\r\n2 1 -0.25\r\n\r\n");
  const auto m = io::read_matrix_market<double>(p);
  EXPECT_EQ(entries(m), (std::vector<entry>{{0, 1, 0.5}, {1, 0, -0.25}}));
}

TEST(MatrixMarket, ExactDoublesAndDenormals) {
  scratch_dir dir;
  const auto p = dir.write(
      "exact.mtx", banner_real + "1 3 3\n1 1 0.1\n1 2 1e-310\n1 3 -1.7976931348623157e308\n");
  const auto m = io::read_matrix_market<double>(p);
  ASSERT_EQ(m.nnz(), 3);
  EXPECT_EQ(m.val[0], 0.1);
  EXPECT_EQ(m.val[1], 1e-310);
  EXPECT_EQ(m.val[2], -std::numeric_limits<double>::max());
}

// ---------------------------------------------------------------------------------------------
// Matrix Market errors: each names the file and the 1-based line
// ---------------------------------------------------------------------------------------------

namespace {

/// A file's content and the parse_error reading it must raise: at `line`, naming `what`.
struct error_case {
  const char* name;
  std::string content;
  long long line;
  const char* what;
};

/// Writes each case to <name><ext> in `dir` and checks that `read` throws a parse_error that names
/// the file, the case's line and its problem.
template <class Read>
void expect_parse_errors(const scratch_dir& dir, const std::vector<error_case>& cases,
                         const std::string& ext, Read read) {
  for (const auto& c : cases) {
    const std::string p = dir.write(std::string(c.name) + ext, c.content);
    EXPECT_THROW(read(p), parse_error) << c.name;
    EXPECT_TRUE(throws_parse_error([&] { read(p); }, p, c.line, c.what)) << c.name;
  }
}

}  // namespace

TEST(MatrixMarketErrors, EachCaseNamesFileLineAndProblem) {
  const std::string pattern_banner = "%%MatrixMarket matrix coordinate pattern general\n";
  const std::string int_banner = "%%MatrixMarket matrix coordinate integer general\n";
  const std::vector<error_case> cases = {
      {"empty", "", 0, "empty"},
      {"no_banner", "3 3 1\n1 1 1\n", 1, "%%MatrixMarket"},
      {"wrong_banner", "%MatrixMarket matrix coordinate real general\n1 1 0\n", 1, "banner"},
      {"short_banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "incomplete banner"},
      {"banner_extra", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1,
       "after the banner"},
      {"vector", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "object"},
      {"array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "array"},
      {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
       "complex"},
      {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1, "hermitian"},
      {"bad_field", "%%MatrixMarket matrix coordinate strings general\n1 1 0\n", 1, "field"},
      {"bad_symmetry", "%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1, "symmetry"},
      {"missing_size", banner_real + "% only comments\n%\n", 4, "size line"},
      {"short_size", banner_real + "% c\n3 3\n1 1 1\n", 3, "bad size line"},
      {"text_size", banner_real + "3 x 1\n1 1 1\n", 2, "number of columns"},
      {"negative_size", banner_real + "-3 3 1\n1 1 1\n", 2, "negative"},
      {"size_garbage", banner_real + "3 3 1 7\n1 1 1\n", 2, "after the size line"},
      {"rows_too_big", banner_real + "3000000000 3 1\n1 1 1\n", 2, "2147483647"},
      {"cols_too_big", banner_real + "3 2147483648 1\n1 1 1\n", 2, "2147483647"},
      {"huge_size", banner_real + "99999999999999999999 3 1\n1 1 1\n", 2, "exceeds"},
      {"negative_nnz", banner_real + "3 3 -1\n", 2, "out of range"},
      {"entries_in_empty", banner_real + "0 0 1\n1 1 1\n", 2, "empty"},
      {"truncated", banner_real + "3 3 3\n1 1 1\n2 2 2\n", 5, "announces 3 entries, found 2"},
      {"truncated_no_newline", banner_real + "3 3 3\n1 1 1\n2 2 2", 5, "found 2"},
      {"too_many", banner_real + "3 3 1\n1 1 1\n% c\n2 2 2\n", 5, "more entries"},
      {"zero_row", banner_real + "3 3 1\n0 1 1\n", 3, "row index '0' out of range [1, 3]"},
      {"zero_col", banner_real + "3 3 1\n1 0 1\n", 3, "column index '0' out of range"},
      {"negative_index", banner_real + "3 3 1\n-1 1 1\n", 3, "out of range"},
      {"row_too_big", banner_real + "3 4 1\n4 1 1\n", 3, "row index '4' out of range [1, 3]"},
      {"col_too_big", banner_real + "3 4 1\n1 5 1\n", 3, "column index '5' out of range [1, 4]"},
      {"index_overflow", banner_real + "3 3 1\n99999999999999999999 1 1\n", 3, "out of range"},
      {"text_index", banner_real + "3 3 1\na 1 1\n", 3, "integer row index"},
      {"real_index", banner_real + "3 3 1\n1.0 1 1\n", 3, "integer row index"},
      {"text_value", banner_real + "3 3 1\n1 1 x\n", 3, "real value"},
      {"half_number", banner_real + "3 3 1\n1 1 1.5e\n", 3, "real value"},
      {"missing_value", banner_real + "3 3 1\n1 1\n", 3, "'row col value'"},
      {"missing_col", pattern_banner + "3 3 1\n1\n", 3, "'row col'"},
      {"trailing_garbage", banner_real + "3 3 1\n1 1 1.0 extra\n", 3, "unexpected text"},
      {"pattern_with_value", pattern_banner + "3 3 1\n1 1 1\n", 3, "unexpected text"},
      {"nan", banner_real + "3 3 2\n1 1 1\n2 2 nan\n", 4, "not finite"},
      {"inf", banner_real + "3 3 1\n1 1 -inf\n", 3, "not finite"},
      {"overflow", banner_real + "3 3 1\n1 1 1e999\n", 3, "overflows"},
      {"int_not_int", int_banner + "3 3 1\n1 1 1.5\n", 3, "integer value"},
      {"int_overflow", int_banner + "3 3 1\n1 1 99999999999999999999\n", 3, "int64"},
      {"skew_diagonal",
       "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n", 4,
       "diagonal"},
      {"symmetric_not_square", "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", 2,
       "square"},
  };
  scratch_dir dir;
  for (const auto& c : cases) {
    const std::string p = dir.write(std::string(c.name) + ".mtx", c.content);
    EXPECT_THROW(io::read_matrix_market<double>(p), parse_error) << c.name;
    EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<double>(p); }, p, c.line, c.what))
        << c.name;
    // The pattern reader validates values it drops in the same way.
    EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<pattern>(p); }, p, c.line, c.what))
        << c.name << " (as pattern)";
  }
}

TEST(MatrixMarketErrors, MissingFileAndDirectory) {
  scratch_dir dir;
  const std::string missing = dir.path("does_not_exist.mtx");
  EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<double>(missing); }, missing, 0,
                                 "cannot open"));
  const std::string folder = dir.path("");
  EXPECT_TRUE(
      throws_parse_error([&] { io::read_matrix_market<double>(folder); }, folder, 0, "directory"));
}

TEST(MatrixMarketErrors, ValueRangeOfTheTargetType) {
  scratch_dir dir;
  const std::string ib = "%%MatrixMarket matrix coordinate integer general\n";
  const auto big = dir.write("big.mtx", ib + "1 1 1\n1 1 3000000000\n");
  EXPECT_TRUE(
      throws_parse_error([&] { io::read_matrix_market<std::int32_t>(big); }, big, 3, "int32"));
  EXPECT_EQ(io::read_matrix_market<std::int64_t>(big).val.at(0), 3000000000LL);
  const auto huge = dir.write("huge.mtx", banner_real + "1 1 1\n1 1 1e300\n");
  EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<float>(huge); }, huge, 3, "float"));
  // Duplicates whose sum leaves the range: the entry is named since lines are gone by then.
  const auto sum = dir.write("sum.mtx", ib + "2 2 2\n1 2 2000000000\n1 2 2000000000\n");
  EXPECT_TRUE(
      throws_parse_error([&] { io::read_matrix_market<std::int32_t>(sum); }, sum, 0, "(1, 2)"));
  EXPECT_EQ(io::read_matrix_market<std::int64_t>(sum).val.at(0), 4000000000LL);
  const auto dsum = dir.write("dsum.mtx", banner_real + "1 1 2\n1 1 1e308\n1 1 1e308\n");
  EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<double>(dsum); }, dsum, 0, "(1, 1)"));
  // The skew mirror of INT32_MIN has no int32 value.
  const auto skew = dir.write("skew.mtx",
                              "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n"
                              "2 1 -2147483648\n");
  EXPECT_TRUE(
      throws_parse_error([&] { io::read_matrix_market<std::int32_t>(skew); }, skew, 3, "negated"));
  EXPECT_EQ(entries(io::read_matrix_market<std::int64_t>(skew)),
            (std::vector<entry>{{0, 1, 2147483648.0}, {1, 0, -2147483648.0}}));
}

// ---------------------------------------------------------------------------------------------
// Edge lists
// ---------------------------------------------------------------------------------------------

TEST(EdgeList, RelabelsByFirstAppearanceAndKeepsMaxWeight) {
  const auto g = io::read_edge_list(data_path("edges.txt"));
  EXPECT_EQ(opsparse::check(g.adj), "");
  EXPECT_EQ(g.labels, (std::vector<std::string>{"10", "20", "30", "-5", "9000000000"}));
  EXPECT_EQ(g.adj.rows, 5);
  EXPECT_EQ(g.adj.cols, 5);
  // Directed as listed; 10->20 appears with 1, 3 and 0.5; the self loop 30->30 is kept.
  const std::vector<entry> want = {
      {0, 1, 3.0}, {1, 2, 2.5}, {2, 2, 1.0}, {3, 0, 1.0}, {4, 3, -1.25}};
  EXPECT_EQ(entries(g.adj), want);
}

TEST(EdgeList, CrlfAndSameIdWrittenTwoWays) {
  scratch_dir dir;
  const auto p = dir.write("e.txt", "# c\r\n007 +8\r\n7 8 2\r\n");
  const auto g = io::read_edge_list(p);
  EXPECT_EQ(g.labels, (std::vector<std::string>{"7", "8"}));
  EXPECT_EQ(entries(g.adj), (std::vector<entry>{{0, 1, 2.0}}));
}

TEST(EdgeListErrors, EachCaseNamesFileLineAndProblem) {
  const std::vector<error_case> cases = {
      {"empty", "", 0, "empty"},
      {"only_comments", "# nothing\n\n# here\n", 0, "no edges"},
      {"one_id", "# c\n1 2\n5\n", 3, "'u v [w]'"},
      {"text_id", "1 2\na b\n", 2, "integer vertex id"},
      {"real_id", "1.5 2\n", 1, "integer vertex id"},
      {"id_overflow", "1 2\n3 99999999999999999999\n", 2, "64 bits"},
      {"text_weight", "1 2 x\n", 1, "numeric weight"},
      {"nan_weight", "1 2\n2 3 nan\n", 2, "not finite"},
      {"inf_weight", "1 2 -inf\n", 1, "not finite"},
      {"overflow_weight", "1 2 1e400\n", 1, "overflows"},
      {"trailing_garbage", "1 2\n# c\n1 2 3 4\n", 3, "unexpected text"},
  };
  scratch_dir dir;
  expect_parse_errors(dir, cases, ".txt",
                      [](const std::string& p) { return io::read_edge_list(p); });
  const std::string missing = dir.path("missing.txt");
  EXPECT_TRUE(throws_parse_error([&] { io::read_edge_list(missing); }, missing, 0, "cannot open"));
}

// ---------------------------------------------------------------------------------------------
// ABC
// ---------------------------------------------------------------------------------------------

TEST(Abc, MissingWeightsWhitespaceRunsAndDuplicatesMax) {
  const auto g = io::read_abc(data_path("graph.abc"));
  EXPECT_EQ(opsparse::check(g.adj), "");
  EXPECT_EQ(g.labels, (std::vector<std::string>{"YAL001C", "YBR002W", "YCL003X", "YDR004Y"}));
  const std::vector<entry> want = {{0, 1, 2.0}, {1, 2, 1.0}, {2, 2, 1.0}, {3, 0, 1e-3}};
  EXPECT_EQ(entries(g.adj), want);
}

TEST(Abc, NumericLookingLabelsStayStrings) {
  scratch_dir dir;
  const auto p = dir.write("n.abc", "007\t7\n7\t007\t0.5\n");
  const auto g = io::read_abc(p);
  EXPECT_EQ(g.labels, (std::vector<std::string>{"007", "7"}));
  EXPECT_EQ(entries(g.adj), (std::vector<entry>{{0, 1, 1.0}, {1, 0, 0.5}}));
}

TEST(AbcErrors, EachCaseNamesFileLineAndProblem) {
  const std::vector<error_case> cases = {
      {"empty", "", 0, "empty"},
      {"blank", "\n\n  \n", 0, "no edges"},
      {"one_label", "a\tb\nc\n", 2, "label<TAB>label"},
      {"text_weight", "a\tb\t0.5\na\tc\theavy\n", 2, "numeric weight"},
      {"nan_weight", "a\tb\tNaN\n", 1, "not finite"},
      {"inf_weight", "a\tb\n\nb\tc\tinf\n", 3, "not finite"},
      {"four_fields", "a\tb\t1\tx\n", 1, "unexpected text"},
  };
  scratch_dir dir;
  expect_parse_errors(dir, cases, ".abc", [](const std::string& p) { return io::read_abc(p); });
}

// ---------------------------------------------------------------------------------------------
// read_graph dispatch
// ---------------------------------------------------------------------------------------------

TEST(ReadGraph, DispatchesOnExtension) {
  const auto mm = io::read_graph(data_path("mm_real_symmetric.mtx"));
  EXPECT_EQ(mm.labels, (std::vector<std::string>{"1", "2", "3", "4"}));
  EXPECT_EQ(mm.adj.nnz(), 8);
  const auto abc = io::read_graph(data_path("graph.abc"));
  EXPECT_EQ(abc.labels.front(), "YAL001C");
  const auto el = io::read_graph(data_path("edges.txt"));
  EXPECT_EQ(el.labels.back(), "9000000000");

  scratch_dir dir;
  const auto upper =
      dir.write("G.MTX", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n");
  EXPECT_EQ(io::read_graph(upper).adj.nnz(), 1);
  // An explicit format wins over the extension.
  const auto abc_as_txt = dir.write("x.txt", "a\tb\n");
  EXPECT_EQ(io::read_graph(abc_as_txt, io::file_format::abc).labels,
            (std::vector<std::string>{"a", "b"}));
  EXPECT_THROW(io::read_graph(abc_as_txt), parse_error);  // edge list: 'a' is not an id
  const auto el_as_mtx = dir.write("y.mtx", "5 6\n");
  EXPECT_EQ(io::read_graph(el_as_mtx, io::file_format::edge_list).labels,
            (std::vector<std::string>{"5", "6"}));
}

TEST(ReadGraph, NonSquareMatrixMarketIsAnError) {
  const std::string p = data_path("mm_real_general.mtx");
  EXPECT_TRUE(throws_parse_error([&] { io::read_graph(p); }, p, 4, "square"));
  EXPECT_TRUE(throws_parse_error([&] { io::read_graph(p, io::file_format::matrix_market); }, p, 4,
                                 "square"));
}

// ---------------------------------------------------------------------------------------------
// symmetrize_max
// ---------------------------------------------------------------------------------------------

TEST(SymmetrizeMax, TakesTheLargerOfBothDirections) {
  host_csr<double> a(3, 3);
  a.rpt = {0, 2, 3, 4};
  a.col = {0, 1, 2, 1};
  a.val = {4.0, -2.0, 1.0, 5.0};
  const auto s = io::symmetrize_max(a);
  EXPECT_EQ(opsparse::check(s), "");
  // (0,1) only one way keeps its own value (absent is not zero); (1,2)/(2,1) take max(1, 5).
  const std::vector<entry> want = {
      {0, 0, 4.0}, {0, 1, -2.0}, {1, 0, -2.0}, {1, 2, 5.0}, {2, 1, 5.0}};
  EXPECT_EQ(entries(s), want);
  host_csr<double> r(2, 3);
  EXPECT_THROW(io::symmetrize_max(r), std::invalid_argument);
}

TEST(SymmetrizeMax, RandomIsSymmetricAndContainsA) {
  const auto a = opsparse::test::random_csr<double>(50, 50, 3.0, 11);
  const auto s = io::symmetrize_max(a);
  EXPECT_EQ(opsparse::check(s), "");
  EXPECT_TRUE(opsparse::test::csr_near(opsparse::transpose(s), s, 0.0));
  EXPECT_TRUE(opsparse::test::csr_near(io::symmetrize_max(s), s, 0.0));
}

// ---------------------------------------------------------------------------------------------
// Writers and round trips
// ---------------------------------------------------------------------------------------------

template <class V>
void expect_round_trip(const host_csr<V>& a, const char* field) {
  scratch_dir dir;
  const std::string p = dir.path("rt.mtx");
  io::write_matrix_market(p, a);
  const auto b = io::read_matrix_market<V>(p);
  EXPECT_EQ(opsparse::check(b), "");
  EXPECT_TRUE(opsparse::test::csr_near(a, b, 0.0)) << field;
  std::ostringstream os;
  io::write_matrix_market(os, a);
  EXPECT_EQ(
      os.str().rfind(std::string("%%MatrixMarket matrix coordinate ") + field + " general\n", 0),
      0u)
      << os.str().substr(0, 80);
}

TEST(WriteMatrixMarket, RoundTripsEveryValueTypeExactly) {
  auto d = opsparse::test::random_csr<double>(40, 31, 3.0, 5);
  d.val[0] = 0.1;
  d.val[1] = -1.0 / 3.0;
  d.val[2] = 1e-310;
  d.val[3] = std::numeric_limits<double>::max();
  expect_round_trip(d, "real");
  auto f = opsparse::test::random_csr<float>(17, 23, 2.0, 6);
  f.val[0] = 1.0f / 3.0f;
  f.val[1] = std::numeric_limits<float>::max();  // its shortest text lies above FLT_MAX
  f.val[2] = -std::numeric_limits<float>::denorm_min();
  expect_round_trip(f, "real");
  auto i32 = opsparse::convert<std::int32_t>(opsparse::test::random_csr<double>(12, 12, 2.0, 7));
  i32.val[0] = std::numeric_limits<std::int32_t>::min();
  expect_round_trip(i32, "integer");
  auto i64 = opsparse::convert<std::int64_t>(i32);
  i64.val[1] = std::numeric_limits<std::int64_t>::max();
  expect_round_trip(i64, "integer");
  expect_round_trip(opsparse::test::random_csr<pattern>(9, 30, 4.0, 8), "pattern");
  expect_round_trip(host_csr<double>(0, 0), "real");
  expect_round_trip(host_csr<pattern>(4, 1), "pattern");
}

TEST(WriteMatrixMarket, ExactText) {
  host_csr<double> a(2, 3);
  a.rpt = {0, 1, 2};
  a.col = {2, 0};
  a.val = {0.5, -3.0};
  std::ostringstream os;
  io::write_matrix_market(os, a);
  EXPECT_EQ(os.str(), "%%MatrixMarket matrix coordinate real general\n2 3 2\n1 3 0.5\n2 1 -3\n");
  host_csr<double> bad = a;
  bad.col = {3, 0};
  std::ostringstream ignored;
  EXPECT_THROW(io::write_matrix_market(ignored, bad), std::invalid_argument);
  EXPECT_THROW(io::write_matrix_market("/nonexistent-folder/x.mtx", a), std::runtime_error);
}

TEST(WriteMatrixMarket, ReadWriteReadOfSampleFiles) {
  for (const char* name : {"mm_real_general.mtx", "mm_real_symmetric.mtx", "mm_real_skew.mtx",
                           "mm_1x1.mtx", "mm_empty.mtx"}) {
    const auto a = io::read_matrix_market<double>(data_path(name));
    std::ostringstream os;
    io::write_matrix_market(os, a);
    scratch_dir dir;
    const auto p = dir.write("again.mtx", os.str());
    EXPECT_TRUE(opsparse::test::csr_near(io::read_matrix_market<double>(p), a, 0.0)) << name;
  }
}

TEST(WriteLabelledGroups, OneTabSeparatedLinePerGroup) {
  const std::vector<std::string> labels = {"a", "b", "c", "YDR004Y"};
  std::ostringstream os;
  io::write_labelled_groups(os, {{2, 0, 3}, {1}, {}}, labels);
  EXPECT_EQ(os.str(), "c\ta\tYDR004Y\nb\n\n");
  std::ostringstream bad;
  EXPECT_THROW(io::write_labelled_groups(bad, {{4}}, labels), std::invalid_argument);
  EXPECT_THROW(io::write_labelled_groups(bad, {{-1}}, labels), std::invalid_argument);
}

TEST(WriteLabelledGroups, ReadsBackAsAbcLabels) {
  // Groups written and read back as an ABC file (each pair of a group on its own line).
  const auto g = io::read_abc(data_path("graph.abc"));
  std::ostringstream os;
  io::write_labelled_groups(os, {{0, 1}, {3, 2}}, g.labels);
  scratch_dir dir;
  const auto p = dir.write("groups.abc", os.str());
  const auto back = io::read_abc(p);
  EXPECT_EQ(back.labels, (std::vector<std::string>{"YAL001C", "YBR002W", "YDR004Y", "YCL003X"}));
}
