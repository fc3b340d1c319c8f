// Inputs that once gave silent wrong answers or ran the machine out of memory: NUL
// bytes, TAB-separated ABC labels with spaces, "n m" header lines in edge lists, negative
// similarities, size lines far beyond the file. Every case is checked with the serial and the
// parallel text readers, which must agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io_test_util.hpp"
#include "opsparse/io.hpp"

namespace {

namespace io = opsparse::io;
using io_test::entries;
using io_test::entry;
using io_test::scratch_dir;
using io_test::throws_parse_error;
using opsparse::parse_error;

/// Runs f once with the serial text reader, once with the parallel one cut into tiny chunks (so
/// that every line seam is a chunk seam), and once with the default tuning.
template <class F>
void with_every_reader(F&& f) {
  const io::detail::text_reader_tuning before = io::detail::set_text_reader_tuning({0, true});
  {
    SCOPED_TRACE("serial reader");
    f();
  }
  io::detail::set_text_reader_tuning({4, false});
  {
    SCOPED_TRACE("parallel reader, 4-byte chunks");
    f();
  }
  io::detail::set_text_reader_tuning({0, false});
  {
    SCOPED_TRACE("parallel reader, default chunks");
    f();
  }
  io::detail::set_text_reader_tuning(before);
}

// ---------------------------------------------------------------------------------------------
// NUL bytes
// ---------------------------------------------------------------------------------------------

TEST(NulBytes, ALineStartingWithNulIsAnErrorNotSkipped) {
  // Once read as 3 vertices: the third line was skipped as blank.
  scratch_dir dir;
  const std::string text = std::string("1 2\n2 3\n") + '\0' + "3 4\n4 5\n";
  const std::string el = dir.write("nul.txt", text);
  const std::string abc = dir.write("nul.abc", text);
  with_every_reader([&] {
    EXPECT_TRUE(throws_parse_error([&] { io::read_edge_list(el); }, el, 3, "NUL byte"));
    EXPECT_TRUE(throws_parse_error([&] { io::read_abc(abc); }, abc, 3, "NUL byte"));
  });
}

TEST(NulBytes, AnywhereInAnyFormat) {
  scratch_dir dir;
  const std::string mid = dir.write("mid.txt", std::string("1 2\n2 3 ") + '\0' + "\n");
  const std::string mtx = dir.write(
      "nul.mtx",
      std::string("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 ") + '\0' + "5\n");
  with_every_reader([&] {
    EXPECT_TRUE(throws_parse_error([&] { io::read_edge_list(mid); }, mid, 2, "byte offset 8"));
  });
  EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<double>(mtx); }, mtx, 3, "NUL byte"));
}

TEST(NulBytes, DevZeroIsRefusedAtOnce) {
  // Once read until memory ran out: a stream is checked block by block.
  EXPECT_TRUE(
      throws_parse_error([] { io::read_edge_list("/dev/zero"); }, "/dev/zero", 1, "NUL byte"));
  EXPECT_TRUE(throws_parse_error([] { io::read_abc("/dev/zero"); }, "/dev/zero", 1, "NUL byte"));
  EXPECT_TRUE(throws_parse_error([] { io::read_matrix_market<double>("/dev/zero"); }, "/dev/zero",
                                 1, "NUL byte"));
}

// ---------------------------------------------------------------------------------------------
// ABC fields as mcl splits them
// ---------------------------------------------------------------------------------------------

TEST(AbcTabs, LabelsMayHoldSpacesWhenTheLineHasATab) {
  // "x<TAB>gene 1" is two labels and no weight (mcl: one cluster of x, "gene 1", y); once read
  // as the labels x, gene and the weight 1.
  scratch_dir dir;
  const std::string p = dir.write("spaces.abc", "x\tgene 1\ngene 1\ty\t2.5\nx\ty\n");
  with_every_reader([&] {
    const auto g = io::read_abc(p);
    EXPECT_EQ(g.labels, (std::vector<std::string>{"x", "gene 1", "y"}));
    EXPECT_EQ(entries(g.adj), (std::vector<entry>{{0, 1, 1.0}, {0, 2, 1.0}, {1, 2, 2.5}}));
  });
}

TEST(AbcTabs, RunsOfTabsBlanksAroundFieldsAndCrlf) {
  scratch_dir dir;
  const std::string p = dir.write("runs.abc", "a\t\tb c\t\t0.5\r\n  d \t a \t 2 \t\r\n\ta\td\n");
  with_every_reader([&] {
    const auto g = io::read_abc(p);
    EXPECT_EQ(g.labels, (std::vector<std::string>{"a", "b c", "d"}));
    // a -> "b c" 0.5; d -> a 2; a -> d 1
    EXPECT_EQ(entries(g.adj), (std::vector<entry>{{0, 1, 0.5}, {0, 2, 1.0}, {2, 0, 2.0}}));
  });
}

TEST(AbcTabs, LinesWithoutATabAreSplitOnBlanks) {
  scratch_dir dir;
  const std::string p = dir.write("blanks.abc", "a b 3\nb   c\n");
  with_every_reader([&] {
    const auto g = io::read_abc(p);
    EXPECT_EQ(g.labels, (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(entries(g.adj), (std::vector<entry>{{0, 1, 3.0}, {1, 2, 1.0}}));
  });
}

TEST(AbcTabs, ErrorsNameTheLine) {
  scratch_dir dir;
  const std::string four = dir.write("four.abc", "a\tb\n a b\tc d\t1\textra field\n");
  const std::string one = dir.write("one.abc", "a\tb\n\t\tlonely label\t\n");
  const std::string weight = dir.write("weight.abc", "a\tb\t1 2\n");
  with_every_reader([&] {
    EXPECT_TRUE(throws_parse_error([&] { io::read_abc(four); }, four, 2, "'extra field'"));
    EXPECT_TRUE(throws_parse_error([&] { io::read_abc(one); }, one, 2, "label<TAB>label"));
    EXPECT_TRUE(throws_parse_error([&] { io::read_abc(weight); }, weight, 1, "numeric weight"));
  });
}

// ---------------------------------------------------------------------------------------------
// "n m" header lines in edge lists
// ---------------------------------------------------------------------------------------------

TEST(EdgeListHeader, IsSkippedWhenExactlyMEdgeLinesFollowWithIdsUpToN) {
  scratch_dir dir;
  // Once read as an edge 4 -> 3 (vertex "4" and an extra edge into vertex 3).
  const std::string zero_based = dir.write("h0.txt", "# graph\n4 3\n0 1\n1 2\n\n2 3\n");
  const std::string one_based = dir.write("h1.txt", "3 2\n1 2 0.5\n2 3 0.25\n");
  with_every_reader([&] {
    const auto g = io::read_edge_list(zero_based);
    EXPECT_EQ(g.labels, (std::vector<std::string>{"0", "1", "2", "3"}));
    EXPECT_EQ(entries(g.adj), (std::vector<entry>{{0, 1, 1.0}, {1, 2, 1.0}, {2, 3, 1.0}}));
    const auto h = io::read_edge_list(one_based);
    EXPECT_EQ(h.labels, (std::vector<std::string>{"1", "2", "3"}));
    EXPECT_EQ(entries(h.adj), (std::vector<entry>{{0, 1, 0.5}, {1, 2, 0.25}}));
  });
}

TEST(EdgeListHeader, AFirstEdgeThatOnlyLooksLikeOneStaysAnEdge) {
  scratch_dir dir;
  // Two lines follow "0 2", but their ids exceed n = 0: an edge.
  const std::string ids = dir.write("ids.txt", "0 2\n0 1\n1 2\n");
  // "5 7" is followed by two lines, not seven: an edge.
  const std::string count = dir.write("count.txt", "5 7\n1 2\n2 3\n");
  // Three tokens: never a header.
  const std::string three = dir.write("three.txt", "3 1 1\n1 2\n");
  with_every_reader([&] {
    EXPECT_EQ(io::read_edge_list(ids).adj.nnz(), 3);
    EXPECT_EQ(io::read_edge_list(count).adj.nnz(), 3);
    EXPECT_EQ(io::read_edge_list(three).adj.nnz(), 2);
  });
}

TEST(EdgeListHeader, AHeaderAnnouncingNoEdgesIsAnEmptyGraph) {
  scratch_dir dir;
  const std::string p = dir.write("none.txt", "# empty\n10 0\n");
  with_every_reader([&] {
    EXPECT_TRUE(throws_parse_error([&] { io::read_edge_list(p); }, p, 0, "announces 0 edges"));
  });
}

// ---------------------------------------------------------------------------------------------
// Non-negative weights (MCL's similarities)
// ---------------------------------------------------------------------------------------------

TEST(NonnegativeWeights, ANegativeWeightNamesItsLineWhenAsked) {
  scratch_dir dir;
  const std::string el = dir.write("neg.txt", "1 2 0.5\n2 3 -0.25\n");
  const std::string abc = dir.write("neg.abc", "a\tb\t1\n\nb\tc\t-3\n");
  const std::string mtx =
      dir.write("neg.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 -1\n");
  const std::string skew =
      dir.write("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 1 1\n");
  io::read_options nonneg;
  nonneg.nonnegative = true;
  with_every_reader([&] {
    EXPECT_EQ(io::read_edge_list(el).adj.nnz(), 2);  // allowed unless asked
    EXPECT_TRUE(throws_parse_error([&] { io::read_edge_list(el, nonneg); }, el, 2,
                                   "negative weight '-0.25'"));
    EXPECT_TRUE(
        throws_parse_error([&] { io::read_abc(abc, nonneg); }, abc, 3, "negative weight '-3'"));
  });
  EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<double>(mtx, nonneg); }, mtx, 4,
                                 "negative value '-1'"));
  EXPECT_TRUE(throws_parse_error([&] { io::read_graph(mtx, io::file_format::automatic, nonneg); },
                                 mtx, 4, "negative value"));
  EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<double>(skew, nonneg); }, skew, 3,
                                 "skew-symmetric"));
}

// ---------------------------------------------------------------------------------------------
// Memory sized from what the file holds
// ---------------------------------------------------------------------------------------------

TEST(MemoryFromSizeLine, ASizeLineBeyondTheLimitIsRefusedBeforeAllocating) {
  scratch_dir dir;
  // 70 bytes asking for 2^31 - 1 rows: once 16 GiB of row pointers at once.
  const std::string huge =
      dir.write("huge.mtx",
                "%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1\n");
  io::read_options small;
  small.memory_limit = std::uint64_t(1) << 30;
  EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<double>(huge, small); }, huge, 2,
                                 "needs about 32.0 GiB, more than the 1.0 GiB"));
  EXPECT_TRUE(throws_parse_error([&] { io::read_graph(huge, io::file_format::automatic, small); },
                                 huge, 2, "2147483647 x 2147483647 matrix with 1 entries"));
  // 2 * 10^7 rows: 320 MB of row pointers and cursors, plus a label per row for a graph.
  const std::string wide = dir.write(
      "wide.mtx", "%%MatrixMarket matrix coordinate pattern general\n20000000 20000000 1\n1 2\n");
  io::read_options tight;
  tight.memory_limit = 200u << 20;
  EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<opsparse::pattern>(wide, tight); },
                                 wide, 2, "needs about"));
}

TEST(MemoryFromSizeLine, EntriesAreBoundedByTheFileNotTheSizeLine) {
  // A size line announcing 10^12 entries in a 60-byte file must not reserve for them: the
  // reader stops at the end of the file with the count it found.
  scratch_dir dir;
  const std::string p = dir.write(
      "many.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1000000000000\n1 1 1\n");
  io::read_options small;
  small.memory_limit = std::uint64_t(64) << 20;
  EXPECT_TRUE(throws_parse_error([&] { io::read_matrix_market<double>(p, small); }, p, 4,
                                 "announces 1000000000000 entries, found 1"));
}

}  // namespace
