// dist::read_abc_rows against io::read_abc: every rank reads its part of the file, and the rows
// gathered on rank 0 are the single reader's adjacency, numbering and labels, bit for bit; a bad
// line is the same error on every rank.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "dist_support.hpp"
#include "opsparse/distributed/detail/comm.hpp"
#include "opsparse/distributed/read.hpp"
#include "opsparse/error.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;

/// A file rank 0 writes for every rank (its name the same on all of them).
class shared_file {
 public:
  explicit shared_file(const std::string& text) {
    long long pid = ::getpid();
    MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    path_ = testing::TempDir() + "opsparse_dist_read_" + std::to_string(pid) + "_" +
            std::to_string(count_++) + ".abc";
    if (test::world_rank() == 0) std::ofstream(path_, std::ios::binary) << text;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~shared_file() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (test::world_rank() == 0) std::remove(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  static inline int count_ = 0;
};

io::read_options mcl_options() {
  io::read_options o;
  o.symmetrize = true;
  o.nonfinite_weights = true;
  o.drop_zero_weights = true;
  return o;
}

/// The rows of every rank stacked on rank 0 (empty elsewhere).
host_csr<double> gathered(const dist::graph_rows& g) {
  const int me = test::world_rank(), size = test::world_size();
  if (me != 0) {
    dist::detail::send_csr(g.rows, 0, 7, MPI_COMM_WORLD);
    return {};
  }
  host_csr<double> all(g.n, g.n);
  for (int r = 0; r < size; ++r) {
    const host_csr<double> part =
        r == 0 ? g.rows : dist::detail::recv_csr<double>(r, 7, MPI_COMM_WORLD);
    EXPECT_EQ(part.rows, g.split[r + 1] - g.split[r]) << "rank " << r;
    for (index_t i = 0; i < part.rows; ++i) {
      all.rpt[g.split[r] + i + 1] = all.rpt[g.split[r] + i] + part.rpt[i + 1] - part.rpt[i];
      all.col.insert(all.col.end(), part.col.begin() + part.rpt[i],
                     part.col.begin() + part.rpt[i + 1]);
      all.val.insert(all.val.end(), part.val.begin() + part.rpt[i],
                     part.val.begin() + part.rpt[i + 1]);
    }
  }
  return all;
}

/// read_abc_rows gathered equals read_abc on rank 0; true on every rank when it does.
bool reads_as_read_abc(const std::string& path, const io::read_options& o) {
  const dist::graph_rows g = dist::read_abc_rows(MPI_COMM_WORLD, path, o);
  const host_csr<double> all = gathered(g);
  bool ok = true;
  if (test::world_rank() == 0) {
    const io::labelled_graph want = io::read_abc(path, o);
    EXPECT_EQ(g.n, want.adj.rows) << path;
    EXPECT_EQ(g.labels, want.labels) << path;
    EXPECT_EQ(all.rpt, want.adj.rpt) << path;
    EXPECT_EQ(all.col, want.adj.col) << path;
    EXPECT_EQ(all.val, want.adj.val) << path;
    ok = !::testing::Test::HasFailure();
  } else {
    EXPECT_TRUE(g.labels.empty());
  }
  return test::all_ranks(ok);
}

/// Lines that make the parts' seams matter: duplicates and mirrored arcs in other parts, loops,
/// comments, blank and CRLF lines, weights of 0 and missing weights, a byte-order mark.
std::string tricky_abc(int lines) {
  std::string t = "\xEF\xBB\xBF# comment\n";
  for (int i = 0; i < lines; ++i) {
    const int a = (i * 7) % 53, b = (i * 13 + 5) % 61;
    t += "v" + std::to_string(a) + "\tw" + std::to_string(b);
    if (i % 5 != 0) t += "\t" + std::to_string(0.5 + (i * 37) % 11);
    t += i % 9 == 0 ? "\r\n" : "\n";
    if (i % 17 == 0) t += "w" + std::to_string(b) + "\tv" + std::to_string(a) + "\t3.5\n";
    if (i % 23 == 0) t += "v" + std::to_string(a) + "\tv" + std::to_string(a) + "\t2\n";
    if (i % 29 == 0) t += "\n# another\n";
    if (i % 31 == 0) t += "x" + std::to_string(i) + "\tv1\t0\n";
  }
  return t;
}

TEST(DistRead, PartsPutTogetherAreReadAbcs) {
  const io::read_options o = mcl_options();
  {
    const shared_file f(tricky_abc(400));
    EXPECT_TRUE(reads_as_read_abc(f.path(), o));
    // the parallel reader's chunk seams inside each part too
    const auto old = io::detail::set_text_reader_tuning({64, false});
    EXPECT_TRUE(reads_as_read_abc(f.path(), o));
    io::detail::set_text_reader_tuning(old);
    io::read_options directed = o;
    directed.symmetrize = false;
    EXPECT_TRUE(reads_as_read_abc(f.path(), directed));
  }
  {
    const shared_file tiny("a\tb\n");  // fewer lines than ranks: empty parts
    EXPECT_TRUE(reads_as_read_abc(tiny.path(), o));
  }
  {
    const shared_file no_newline("a\tb\t2\nb\tc\t3");
    EXPECT_TRUE(reads_as_read_abc(no_newline.path(), o));
  }
}

TEST(DistRead, SharedProteinNetworksReadAsReadAbc) {
  const std::string dir = test::datasets_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/datasets not found (set OPSPARSE_DATASETS)";
  for (const char* name : {"PPISB_human.abc", "ghsom_Y2H_union.abc", "PPISB_krogan.abc"})
    EXPECT_TRUE(reads_as_read_abc(dir + "/ppi/" + name, mcl_options())) << name;
}

/// The error every rank throws reading `path` in parts, and read_abc's (rank 0's) or "".
std::pair<std::string, std::string> errors(const std::string& path) {
  std::string parts, whole;
  try {
    dist::read_abc_rows(MPI_COMM_WORLD, path, mcl_options());
  } catch (const parse_error& e) {
    parts = e.what();
  }
  try {
    io::read_abc(path, mcl_options());
  } catch (const parse_error& e) {
    whole = e.what();
  }
  return {parts, whole};
}

TEST(DistRead, BadLinesAreReadAbcsErrorOnEveryRank) {
  std::string text = tricky_abc(300);
  const std::string bad = text + "a\tb\tnot-a-weight\n" + tricky_abc(50) + "c\td\t-1\n";
  for (const std::string& t :
       {bad, std::string("# nothing\n\n# here\n"), text + std::string("e\tf\t1\n\0\n", 8)}) {
    const shared_file f(t);
    const auto [parts, whole] = errors(f.path());
    EXPECT_FALSE(whole.empty());
    EXPECT_EQ(parts, whole);
    EXPECT_TRUE(test::same_on_every_rank(static_cast<int>(std::hash<std::string>{}(parts)&0xffff)));
  }
}

}  // namespace
