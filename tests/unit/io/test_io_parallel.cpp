// The parallel edge-list and ABC readers against the serial reference reading and against a
// straightforward reading written here. Small files are cut into many chunks (chunk sizes down
// to one byte through detail::set_text_reader_tuning) and read on one and on several threads;
// they hold CRLF lines, comments, blank and blank-looking lines, a byte-order mark, labels around
// the 8- and 16-byte words of the reader's keys (and longer ones sharing 16-byte prefixes),
// duplicate edges (the maximum; 0 against -0), and a last line without '\n'. Bad lines in later
// chunks must be reported with their exact line numbers and the serial reader's messages.
#include "opsparse/io.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io_test_util.hpp"

namespace io = opsparse::io;
using io_test::scratch_dir;
using io_test::throws_parse_error;
using opsparse::index_t;
using opsparse::offset_t;
using opsparse::parse_error;

namespace {

/// Chunk sizes from one byte (every chunk one line) to larger than the files, and 0 (the
/// default, 256 KiB: the small files are then one chunk).
const std::size_t chunk_sizes[] = {1, 2, 3, 7, 16, 61, 256, 4096, 0};

/// Sets the readers' tuning for a scope.
class tuning_scope {
 public:
  explicit tuning_scope(std::size_t chunk_bytes, bool serial = false)
      : old_(io::detail::set_text_reader_tuning({chunk_bytes, serial})) {}
  ~tuning_scope() { io::detail::set_text_reader_tuning(old_); }
  tuning_scope(const tuning_scope&) = delete;
  tuning_scope& operator=(const tuning_scope&) = delete;

 private:
  io::detail::text_reader_tuning old_;
};

/// Sets the OpenMP thread count for a scope.
class threads_scope {
 public:
  explicit threads_scope(int n) : old_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~threads_scope() { omp_set_num_threads(old_); }
  threads_scope(const threads_scope&) = delete;
  threads_scope& operator=(const threads_scope&) = delete;

 private:
  int old_;
};

using reader = io::labelled_graph (*)(const std::string&);

/// The n x n matrix of the entries (i, j) -> value.
opsparse::host_csr<double> csr_of(index_t n,
                                  const std::map<std::pair<index_t, index_t>, double>& entries) {
  opsparse::host_csr<double> m(n, n);
  for (const auto& [ij, v] : entries) {
    ++m.rpt[static_cast<std::size_t>(ij.first) + 1];
    m.col.push_back(ij.second);
    m.val.push_back(v);
  }
  for (index_t i = 0; i < n; ++i) m.rpt[i + 1] += m.rpt[i];
  return m;
}

io::labelled_graph read_serial(reader read, const std::string& path) {
  tuning_scope serial(0, true);
  return read(path);
}

/// Same labels, same numbering, same matrix; values compared by their bits (0 and -0 differ).
::testing::AssertionResult same_graph(const io::labelled_graph& got,
                                      const io::labelled_graph& want) {
  if (got.labels != want.labels) {
    std::size_t i = 0;
    while (i < got.labels.size() && i < want.labels.size() && got.labels[i] == want.labels[i]) ++i;
    return ::testing::AssertionFailure()
           << "labels differ at vertex " << i << " (" << got.labels.size() << " vs "
           << want.labels.size() << " labels)";
  }
  if (got.adj.rows != want.adj.rows || got.adj.cols != want.adj.cols)
    return ::testing::AssertionFailure() << "sizes differ";
  if (got.adj.rpt != want.adj.rpt) return ::testing::AssertionFailure() << "row pointers differ";
  if (got.adj.col != want.adj.col) return ::testing::AssertionFailure() << "columns differ";
  if (got.adj.val.size() != want.adj.val.size() ||
      std::memcmp(got.adj.val.data(), want.adj.val.data(), got.adj.val.size() * sizeof(double)) !=
          0)
    return ::testing::AssertionFailure() << "values differ";
  return ::testing::AssertionSuccess();
}

/// A straightforward reading, independent of the library's: lines split on '\n', tokens on
/// blanks, labels numbered through a hash map by first appearance, edges kept in a std::map with
/// the first maximum of their duplicates. Only for well-formed text.
io::labelled_graph plain_reading(std::string text, bool abc) {
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  std::unordered_map<std::string, index_t> number;
  io::labelled_graph g;
  std::map<std::pair<index_t, index_t>, double> edges;
  auto vertex = [&](const std::string& tok) {
    const std::string label = abc ? tok : std::to_string(std::strtoll(tok.c_str(), nullptr, 10));
    const auto [it, added] = number.emplace(label, static_cast<index_t>(g.labels.size()));
    if (added) g.labels.push_back(label);
    return it->second;
  };
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t stop = text.find('\n', start);
    if (stop == std::string::npos) stop = text.size();
    std::vector<std::string> tok;
    std::string cur;
    for (std::size_t i = start; i <= stop; ++i) {
      const char c = i < stop ? text[i] : ' ';
      if (std::strchr(" \t\r\v\f", c) && c != '\0') {
        if (!cur.empty()) tok.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    start = stop + 1;
    if (tok.empty() || tok[0][0] == '#') continue;  // as first_char()
    const index_t a = vertex(tok[0]);
    const index_t b = vertex(tok[1]);
    const double w = tok.size() == 3 ? std::strtod(tok[2].c_str(), nullptr) : 1.0;
    const auto [it, added] = edges.emplace(std::make_pair(a, b), w);
    if (!added && w > it->second) it->second = w;
  }
  g.adj = csr_of(static_cast<index_t>(g.labels.size()), edges);
  return g;
}

/// Labels of 1 to 40 bytes, many of them at the 8- and 16-byte boundaries of the reader's keys,
/// and ones of 17 bytes and more that differ only after their first 16.
std::vector<std::string> make_labels(std::mt19937& rng, int count) {
  std::vector<std::string> out;
  const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-|";
  const int lengths[] = {1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 40};
  for (int i = 0; i < count; ++i) {
    std::string s;
    if (i % 5 == 0) {
      s = "9606.ENSP0000000" + std::to_string(i / 5);  // a shared 16-byte prefix
    } else {
      const int len = lengths[rng() % (sizeof lengths / sizeof lengths[0])];
      for (int k = 0; k < len; ++k) s += alphabet[rng() % (sizeof alphabet - 1)];
      if (s[0] == '#') s[0] = 'H';
    }
    out.push_back(s);
  }
  return out;
}

/// Edge-list ids: small, negative, large, and the same id written with leading zeros or '+'.
std::vector<std::string> make_ids(std::mt19937& rng, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    const long long id = i % 7 == 0    ? -static_cast<long long>(rng() % 1000)
                         : i % 11 == 0 ? 9000000000LL + i
                                       : static_cast<long long>(rng() % 5000);
    std::string s = std::to_string(id);
    if (id >= 0 && i % 3 == 0) s = "00" + s;
    if (id >= 0 && i % 4 == 0) s = "+" + s;
    out.push_back(s);
  }
  return out;
}

std::string make_weight(std::mt19937& rng) {
  static const char* fixed[] = {"1",    "0",  "-0", "3",   "1e-3", "+0.5",   "-2.5",
                                "1E+2", ".5", "5.", "0.1", "2",    "1e-310", "7"};
  if (rng() % 3 == 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", std::uniform_real_distribution<double>(0, 1)(rng));
    return buf;
  }
  return fixed[rng() % (sizeof fixed / sizeof fixed[0])];
}

/// A text of `lines` lines over `names`: edges with and without weights, repeated pairs,
/// comments, blank and whitespace-only lines, lines whose first byte is NUL (skipped as blank by
/// the serial readers), leading and trailing blanks, LF and CRLF; with a byte-order mark when
/// `bom`, and without a '\n' after the last line when `open_end`.
std::string make_text(std::mt19937& rng, const std::vector<std::string>& names, int lines, bool bom,
                      bool open_end) {
  std::string text = bom ? "\xEF\xBB\xBF" : "";
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < lines; ++i) {
    const unsigned kind = rng() % 20;
    std::string line;
    if (kind == 0) {
      line = "# comment " + std::to_string(i);
    } else if (kind == 1) {
      line = "";
    } else if (kind == 2) {
      line = " \t ";
    } else if (kind == 5) {
      line = "\t \t";  // blank, of TABs (a NUL byte is an error now: test_io_robustness.cpp)
    } else {
      std::pair<int, int> ab;
      if (!pairs.empty() && rng() % 4 == 0) {
        ab = pairs[rng() % pairs.size()];  // a duplicate edge
      } else {
        ab = {static_cast<int>(rng() % names.size()), static_cast<int>(rng() % names.size())};
        pairs.push_back(ab);
      }
      if (kind == 3) line = "  ";
      line += names[static_cast<std::size_t>(ab.first)];
      line += rng() % 2 ? "\t" : " \t ";
      line += names[static_cast<std::size_t>(ab.second)];
      if (rng() % 4) line += "\t" + make_weight(rng);
      if (kind == 4) line += " \t";
    }
    text += line;
    if (i + 1 < lines || !open_end) text += rng() % 3 == 0 ? "\r\n" : "\n";
  }
  return text;
}

/// Reads `path` with every chunk size on 1 and 3 threads; each reading must equal `want`.
void expect_every_cut_reads_as(reader read, const std::string& path,
                               const io::labelled_graph& want) {
  for (const int threads : {1, 3}) {
    threads_scope t(threads);
    for (const std::size_t bytes : chunk_sizes) {
      tuning_scope cut(bytes);
      EXPECT_TRUE(same_graph(read(path), want)) << threads << " threads, chunks of " << bytes;
    }
  }
}

/// Four files of 1500 lines over `names` (with and without a BOM, with and without a newline at the
/// end), drawn from `rng` in turn: the serial reading of each must equal the plain reading of its
/// text, and every cut must read as the serial reading.
void expect_variants_read_alike(reader read, bool abc, const std::string& ext, std::mt19937& rng,
                                const std::vector<std::string>& names) {
  scratch_dir dir;
  int variant = 0;
  for (const bool bom : {false, true})
    for (const bool open_end : {false, true}) {
      const std::string text = make_text(rng, names, 1500, bom, open_end);
      const std::string p = dir.write("g" + std::to_string(variant++) + ext, text);
      const io::labelled_graph serial = read_serial(read, p);
      ASSERT_TRUE(same_graph(serial, plain_reading(text, abc))) << p;
      expect_every_cut_reads_as(read, p, serial);
    }
}

}  // namespace

TEST(ParallelReaders, AbcEqualsSerialAndPlainReadingsForEveryCut) {
  std::mt19937 rng(12345);
  const std::vector<std::string> labels = make_labels(rng, 300);
  expect_variants_read_alike(io::read_abc, true, ".abc", rng, labels);
}

TEST(ParallelReaders, EdgeListEqualsSerialAndPlainReadingsForEveryCut) {
  std::mt19937 rng(777);
  const std::vector<std::string> ids = make_ids(rng, 400);
  expect_variants_read_alike(io::read_edge_list, false, ".txt", rng, ids);
}

TEST(ParallelReaders, LargeFileInDefaultChunks) {
  // About 3 MB: several default chunks (and partitions) without any tuning, and enough edges
  // (over 2^16) for the rows to be sorted in parallel.
  scratch_dir dir;
  std::mt19937 rng(99);
  const std::vector<std::string> labels = make_labels(rng, 20000);
  const std::string text = make_text(rng, labels, 90000, false, true);
  ASSERT_GT(text.size(), std::size_t(2) << 20);
  const std::string p = dir.write("large.abc", text);
  const io::labelled_graph serial = read_serial(io::read_abc, p);
  for (const int threads : {1, 4}) {
    threads_scope t(threads);
    EXPECT_TRUE(same_graph(io::read_abc(p), serial)) << threads << " threads";
  }
}

TEST(ParallelReaders, DuplicatesKeepTheFirstOfEqualMaxima) {
  // max keeps the earlier of two equal weights: 0 then -0 stays 0, -0 then 0 stays -0, as
  // the serial reader does, whichever chunks the duplicates fall into.
  scratch_dir dir;
  const std::string p = dir.write("z.abc",
                                  "a\tb\t0\nc\td\t-0\nb\ta\t-0\r\na\tb\t-0\nd\tc\t0\nc\td\t0\n"
                                  "b\ta\t0\na\tb\t0.5\na\tb\t0.25\n");
  const io::labelled_graph serial = read_serial(io::read_abc, p);
  expect_every_cut_reads_as(io::read_abc, p, serial);
  const io::labelled_graph g = io::read_abc(p);
  ASSERT_EQ(g.adj.nnz(), 4);
  EXPECT_EQ(g.adj.val[0], 0.5);              // (a, b)
  EXPECT_TRUE(std::signbit(g.adj.val[1]));   // (b, a): -0 first
  EXPECT_TRUE(std::signbit(g.adj.val[2]));   // (c, d): -0 first
  EXPECT_FALSE(std::signbit(g.adj.val[3]));  // (d, c): 0 first
}

namespace {

/// Reads `path` mirrored (read_options::symmetrize) with every chunk size on 1 and 3 threads,
/// and serially; each must be symmetrize_max of the directed serial reading, bit for bit.
void expect_symmetrized_reading(io::labelled_graph (*read)(const std::string&,
                                                           const io::read_options&),
                                const std::string& path) {
  io::labelled_graph want;
  {
    tuning_scope serial(0, true);
    want = read(path, io::read_options{});
  }
  want.adj = io::symmetrize_max(want.adj);
  io::read_options mirror;
  mirror.symmetrize = true;
  {
    tuning_scope serial(0, true);
    EXPECT_TRUE(same_graph(read(path, mirror), want)) << "serial reader";
  }
  for (const int threads : {1, 3}) {
    threads_scope t(threads);
    for (const std::size_t bytes : chunk_sizes) {
      tuning_scope cut(bytes);
      EXPECT_TRUE(same_graph(read(path, mirror), want))
          << threads << " threads, chunks of " << bytes;
    }
  }
}

}  // namespace

TEST(ParallelReaders, SymmetrizeWhileReadingEqualsSymmetrizeMax) {
  // Random files with duplicates in both directions, loops, labels with spaces (TAB-separated
  // lines), weights and lines without them: the rows made with every edge's mirror are
  // symmetrize_max of the directed reading.
  scratch_dir dir;
  std::mt19937 rng(4242);
  std::vector<std::string> labels = make_labels(rng, 60);  // few labels: many (u, v) and (v, u)
  labels.push_back("gene 1");
  labels.push_back("gene  1 b");
  const std::vector<std::string> ids = make_ids(rng, 50);
  for (int variant = 0; variant < 2; ++variant) {
    const std::string abc = dir.write("m" + std::to_string(variant) + ".abc",
                                      make_text(rng, labels, 800, variant == 1, variant == 0));
    expect_symmetrized_reading(io::read_abc, abc);
    const std::string edges = dir.write("m" + std::to_string(variant) + ".txt",
                                        make_text(rng, ids, 800, variant == 0, variant == 1));
    expect_symmetrized_reading(io::read_edge_list, edges);
  }
}

TEST(ParallelReaders, SymmetrizeWhileReadingKeepsSymmetrizeMaxsZeroSigns) {
  // max(A(u,v), A(v,u)) of the combined entries keeps A(u,v) on a tie: 0 against -0 in either
  // order and in either direction, duplicates included, whichever chunks they fall into.
  scratch_dir dir;
  const std::string p = dir.write("z.abc",
                                  "a\tb\t0\nc\td\t-0\nb\ta\t-0\r\na\tb\t-0\nd\tc\t0\nc\td\t0\n"
                                  "e\tf\t-0\nf\te\t0\ng\th\t0\nh\tg\t-0\ng\tg\t-0\n"
                                  "b\ta\t0\na\tb\t0.5\nb\ta\t0.25\nx\ty\t0.25\ny\tx\t0.5\n");
  expect_symmetrized_reading(io::read_abc, p);
}

TEST(ParallelReaders, SymmetrizeWhileReadingALargeFileAndOtherFormats) {
  // Over 2^16 edges: the mirrored rows are sorted in parallel. read_graph mirrors a Matrix
  // Market file with symmetrize_max.
  scratch_dir dir;
  std::mt19937 rng(5150);
  const std::vector<std::string> labels = make_labels(rng, 3000);
  const std::string p = dir.write("large.abc", make_text(rng, labels, 90000, false, false));
  io::labelled_graph want;
  {
    tuning_scope serial(0, true);
    want = io::read_abc(p);
  }
  want.adj = io::symmetrize_max(want.adj);
  io::read_options mirror;
  mirror.symmetrize = true;
  for (const int threads : {1, 4}) {
    threads_scope t(threads);
    EXPECT_TRUE(same_graph(io::read_graph(p, io::file_format::automatic, mirror), want))
        << threads << " threads";
  }
  const std::string m = dir.write("g.mtx",
                                  "%%MatrixMarket matrix coordinate real general\n3 3 3\n"
                                  "1 2 0.5\n2 1 0.75\n3 1 2\n");
  const io::labelled_graph g = io::read_graph(m, io::file_format::automatic, mirror);
  EXPECT_EQ(g.adj.rpt, (std::vector<offset_t>{0, 2, 3, 4}));
  EXPECT_EQ(g.adj.col, (std::vector<index_t>{1, 2, 0, 0}));
  EXPECT_EQ(g.adj.val, (std::vector<double>{0.75, 2, 0.75, 2}));
}

TEST(ParallelReaders, SymmetrizeMaxIsTheSameOnEveryThreadCount) {
  // Over 2^16 entries, so that A^T and the merge are built in parallel; weights with ties
  // between 0 and -0, where the larger of A(i,j) and A(j,i) is A(i,j) (std::max keeps the first).
  std::mt19937 rng(3);
  const index_t n = 20000;
  opsparse::host_csr<double> a(n, n);
  const double weights[] = {0.0, -0.0, 1.0, 2.0, 0.5, -1.0};
  std::map<std::pair<index_t, index_t>, double> want;
  for (index_t i = 0; i < n; ++i) {
    std::vector<index_t> cols;
    for (int k = rng() % 12; k > 0; --k) cols.push_back(static_cast<index_t>(rng() % n));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (const index_t j : cols) {
      a.col.push_back(j);
      a.val.push_back(rng() % 2 ? weights[rng() % 6]
                                : std::uniform_real_distribution<double>(-1, 1)(rng));
    }
    a.rpt[static_cast<std::size_t>(i) + 1] = static_cast<offset_t>(a.col.size());
  }
  ASSERT_GT(a.col.size(), std::size_t(1) << 16);
  auto at = [&](index_t i, index_t j, double& v) {
    for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k)
      if (a.col[k] == j) return v = a.val[k], true;
    return false;
  };
  for (index_t i = 0; i < n; ++i)
    for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k) {
      const index_t j = a.col[k];
      double ij = 0, ji = 0;
      at(i, j, ij);
      want[{i, j}] = at(j, i, ji) ? std::max(ij, ji) : ij;
      if (!at(j, i, ji)) want[{j, i}] = ij;
    }
  io::labelled_graph expected;
  expected.adj = csr_of(n, want);
  for (const int threads : {1, 2, 5}) {
    threads_scope t(threads);
    io::labelled_graph got;
    got.adj = io::symmetrize_max(a);
    EXPECT_TRUE(same_graph(got, expected)) << threads << " threads";
  }
}

// symmetrize_max checks its input on every thread above 65,536 entries: an invalid matrix is
// refused with validate()'s message (its first violation) whatever the thread count.
TEST(ParallelReaders, SymmetrizeMaxRefusesInvalidInputLikeValidate) {
  const index_t n = 20000;
  opsparse::host_csr<double> a(n, n);
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = 0; k < 5; ++k) {
      a.col.push_back((i + 7 * k) % n);
      a.val.push_back(1.0 + k);
    }
    std::sort(a.col.end() - 5, a.col.end());
    a.rpt[static_cast<std::size_t>(i) + 1] = static_cast<offset_t>(a.col.size());
  }
  ASSERT_GT(a.col.size(), std::size_t(1) << 16);
  std::vector<opsparse::host_csr<double>> bad(5, a);
  bad[0].col[bad[0].rpt[15000] + 1] = bad[0].col[bad[0].rpt[15000]];  // repeated column
  bad[0].col[bad[0].rpt[17000] + 1] = bad[0].col[bad[0].rpt[17000]];  // (the first one counts)
  bad[1].col[bad[1].rpt[12345] + 4] = n;                              // out of range
  bad[2].rpt[9000] = bad[2].rpt[9001] + 1;                            // rpt decreases
  bad[3].val.pop_back();                                              // sizes differ
  std::swap(bad[4].col[bad[4].rpt[19999]], bad[4].col[bad[4].rpt[19999] + 1]);  // unsorted
  for (std::size_t b = 0; b < bad.size(); ++b) {
    std::string want;
    try {
      opsparse::validate(bad[b]);
    } catch (const std::invalid_argument& e) {
      want = e.what();
    }
    ASSERT_FALSE(want.empty()) << b;
    for (const int threads : {1, 3}) {
      threads_scope t(threads);
      try {
        io::symmetrize_max(bad[b]);
        ADD_FAILURE() << "case " << b << ": no error on " << threads << " threads";
      } catch (const std::invalid_argument& e) {
        EXPECT_EQ(e.what(), want) << "case " << b << ", " << threads << " threads";
      }
    }
  }
}

namespace {

struct bad_line {
  const char* line;
  const char* what;
};

/// Puts each bad line at each of `at` (1-based) into a valid text of `lines` lines and checks
/// that every cut reports that line with the serial reader's message.
void expect_bad_lines_reported(reader read, const std::vector<std::string>& names,
                               const std::vector<bad_line>& bad, const char* ext) {
  scratch_dir dir;
  std::mt19937 rng(4242);
  const int lines = 1200;
  // Built line by line so that a line can be replaced; CRLF on every third line, none after
  // the last.
  std::vector<std::string> body;
  {
    const std::string text = make_text(rng, names, lines, false, true);
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t stop = text.find('\n', start);
      if (stop == std::string::npos) stop = text.size();
      body.push_back(text.substr(start, stop - start));
      start = stop + 1;
    }
  }
  ASSERT_EQ(body.size(), static_cast<std::size_t>(lines));
  const int at[] = {1, 2, 600, 1199, 1200};
  int file = 0;
  for (const bad_line& b : bad)
    for (const int line : at) {
      std::vector<std::string> text_lines = body;
      text_lines[static_cast<std::size_t>(line) - 1] = b.line;
      // A second bad line further on must not matter: the first one is reported.
      if (line + 50 <= lines) text_lines[static_cast<std::size_t>(line) + 49] = b.line;
      std::string text;
      for (std::size_t i = 0; i < text_lines.size(); ++i)
        text += text_lines[i] + (i + 1 < text_lines.size() ? "\n" : "");
      const std::string p = dir.write("bad" + std::to_string(file++) + ext, text);
      std::string serial_message;
      try {
        read_serial(read, p);
      } catch (const parse_error& e) {
        serial_message = e.what();
      }
      ASSERT_FALSE(serial_message.empty()) << b.line;
      for (const int threads : {1, 3}) {
        threads_scope t(threads);
        for (const std::size_t bytes : chunk_sizes) {
          tuning_scope cut(bytes);
          EXPECT_TRUE(throws_parse_error([&] { read(p); }, p, line, b.what))
              << "'" << b.line << "' on line " << line << ", chunks of " << bytes;
          try {
            read(p);
          } catch (const parse_error& e) {
            EXPECT_EQ(std::string(e.what()), serial_message);
          }
        }
      }
    }
}

}  // namespace

TEST(ParallelReaders, AbcBadLineInALaterChunkNamesItsLine) {
  std::mt19937 rng(5);
  expect_bad_lines_reported(io::read_abc, make_labels(rng, 100),
                            {{"lonely", "label<TAB>label"},
                             {"a\tb\theavy\r", "numeric weight"},
                             {"a\tb\tnan", "not finite"},
                             {"a\tb\t1e999", "overflows"},
                             {"a\tb\t1\tx", "unexpected text"}},
                            ".abc");
}

TEST(ParallelReaders, EdgeListBadLineInALaterChunkNamesItsLine) {
  std::mt19937 rng(6);
  expect_bad_lines_reported(io::read_edge_list, make_ids(rng, 100),
                            {{"17", "'u v [w]'"},
                             {"1 x", "integer vertex id"},
                             {"y 1 2", "integer vertex id"},
                             {"1 99999999999999999999", "64 bits"},
                             {"1 2 -inf", "not finite"},
                             {"1 2 3 4\r", "unexpected text"}},
                            ".txt");
}

// A file of 16 MiB or more is searched for NUL bytes in 1 MiB blocks on every thread: the first
// NUL byte is reported (line and byte offset), not the first block's to finish.
TEST(ParallelReaders, FirstNulByteOfALargeFile) {
  scratch_dir dir;
  std::string text;
  const std::string line = "P000001\tP000002\t0.5\n";  // 22 bytes
  while (text.size() < (std::size_t(20) << 20)) text += line;
  const std::size_t first = (std::size_t(13) << 20) + 3 * line.size() + 4;  // in block 13
  text[(std::size_t(17) << 20) + 5] = '\0';
  text[first] = '\0';
  text[(std::size_t(19) << 20) + 1] = '\0';
  const std::string path = dir.write("nul.abc", text);
  const long long line_no = static_cast<long long>(first / line.size()) + 1;
  for (const int threads : {1, 3}) {
    threads_scope t(threads);
    EXPECT_TRUE(throws_parse_error([&] { io::read_abc(path); }, path, line_no,
                                   "NUL byte at byte offset " + std::to_string(first)))
        << threads << " threads";
  }
}

TEST(ParallelReaders, NoEdgesCountsEveryLine) {
  scratch_dir dir;
  std::string text;
  for (int i = 0; i < 500; ++i) text += i % 3 ? "# nothing\r\n" : " \t\n";
  text += "# last, open";
  const std::string p = dir.write("empty.abc", text);
  for (const std::size_t bytes : chunk_sizes) {
    tuning_scope cut(bytes);
    EXPECT_TRUE(throws_parse_error([&] { io::read_abc(p); }, p, 0, "no edges found (501 lines"))
        << "chunks of " << bytes;
    EXPECT_TRUE(
        throws_parse_error([&] { io::read_edge_list(p); }, p, 0, "no edges found (501 lines"))
        << "chunks of " << bytes;
  }
}
