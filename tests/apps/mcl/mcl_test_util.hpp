#pragma once
// Helpers shared by the MCL test suites: files, partitions, generated graphs.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/mcl.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace opsparse::mcl::test {

namespace fs = std::filesystem;

/// A private scratch folder, removed at exit of the fixture that owns it.
inline fs::path scratch_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() /
               ("opsparse_mcl_" + name + "_" + std::to_string(static_cast<long long>(::getpid())));
  fs::create_directories(d);
  return d;
}

inline void write_text(const fs::path& p, const std::string& text) {
  std::ofstream os(p, std::ios::binary | std::ios::trunc);
  os << text;
}

/// A test suite with a scratch folder of its own (`Tag::name` names it), removed afterwards;
/// file() writes a file there.
template <class Tag>
class files_suite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dir_ = scratch_dir(Tag::name); }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static fs::path file(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    write_text(p, text);
    return p;
  }
  static inline fs::path dir_;
};

inline std::string read_text(const fs::path& p) {
  std::ifstream is(p, std::ios::binary);
  std::ostringstream os;
  os << is.rdbuf();
  return os.str();
}

using partition = std::set<std::set<std::string>>;

/// Lines of tab-separated labels (mcl's -o format) as a set of sets.
inline partition parse_partition(const std::string& text) {
  partition p;
  std::istringstream is(text);
  std::string line;
  while (std::getline(is, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> labels = opsparse::test::split_fields(line);
    p.emplace(labels.begin(), labels.end());
  }
  return p;
}

/// How many nodes sit in a different cluster (compared as sets) in the two partitions.
inline std::size_t nodes_differing(const partition& a, const partition& b) {
  std::map<std::string, const std::set<std::string>*> ca, cb;
  for (const auto& c : a)
    for (const auto& v : c) ca[v] = &c;
  for (const auto& c : b)
    for (const auto& v : c) cb[v] = &c;
  std::set<std::string> all;
  for (const auto& kv : ca) all.insert(kv.first);
  for (const auto& kv : cb) all.insert(kv.first);
  std::size_t n = 0;
  for (const auto& v : all) {
    auto x = ca.find(v), y = cb.find(v);
    if (x == ca.end() || y == cb.end() || *x->second != *y->second) ++n;
  }
  return n;
}

/// A graph file clustered in process; `text` is exactly what opsparse-mcl -o writes.
struct labelled_result {
  std::string text;
  cluster_result run;
};

inline labelled_result cluster_file(const std::string& path, const params& p, bool gpu,
                                    precision prec,
                                    io::file_format fmt = io::file_format::automatic) {
  io::labelled_graph g = io::read_graph(path, fmt);
  const host_csr<double> start = start_matrix(g.adj, p);
  labelled_result r;
  r.run = cluster(start, p, gpu, prec);
  std::ostringstream os;
  write_clusters(os, r.run.result, g.labels);
  r.text = os.str();
  return r;
}

/// A random planted-partition graph in ABC: `groups` groups of about `size` nodes, edges inside a
/// group with probability p_in and across with p_out, weights in [0.2, 2] (or none). Labels are
/// shuffled so that first appearance does not follow the groups; some edges are listed twice
/// (both directions, different weights) to exercise the maximum merge.
inline std::string planted_abc(int groups, int size, double p_in, double p_out, bool weighted,
                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int n = groups * size;
  std::vector<int> perm(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (u(rng) < (i / size == j / size ? p_in : p_out)) edges.emplace_back(i, j);
  std::shuffle(edges.begin(), edges.end(), rng);
  std::ostringstream os;
  auto label = [&](int v) { return "n" + std::to_string(perm[v]); };
  // One line `from to [weight]`; the weight is drawn here, so the draws keep their order.
  auto arc = [&](int from, int to) {
    os << label(from) << '\t' << label(to);
    if (weighted) {
      char w[32];
      std::snprintf(w, sizeof w, "%.3f", 0.2 + 1.8 * u(rng));
      os << '\t' << w;
    }
    os << '\n';
  };
  for (const auto& e : edges) {
    const bool flip = u(rng) < 0.5;
    const int a = flip ? e.second : e.first, b = flip ? e.first : e.second;
    arc(a, b);
    if (u(rng) < 0.1) arc(b, a);  // the reverse arc too, lighter or heavier
  }
  return os.str();
}

/// Small hand-written graphs with known mcl output (checked against mcl 22-282).
struct hand_case {
  std::string name;
  std::string abc;
  std::string expected;  ///< mcl's exact -o output with default parameters
};

inline std::vector<hand_case> hand_cases() {
  return {
      // Two triangles joined by a weak bridge, a K4, a node with only a self-loop.
      {"triangles_k4",
       "a\tb\t1\nb\tc\t1\nc\ta\t1\nd\te\t1\ne\tf\t1\nf\td\t1\nc\td\t0.1\n"
       "g\th\t1\ng\ti\t1\ng\tj\t1\nh\ti\t1\nh\tj\t1\ni\tj\t1\ns\ts\t1\n",
       "g\th\ti\tj\na\tb\tc\nd\te\tf\ns\n"},
      // Labels in output lines follow first appearance (z, y, x), not the alphabet.
      {"two_triangles_bridge", "z\ty\t1\ny\tx\t1\nx\tz\t1\nq\tz\t0.1\nq\tp\t1\np\to\t1\no\tq\t1\n",
       "z\ty\tx\nq\tp\to\n"},
      // A 5-node line: mcl finds overlap (n2) and cuts it to the first cluster.
      {"line5", "n0\tn1\nn1\tn2\nn2\tn3\nn3\tn4\n", "n0\tn1\tn2\nn3\tn4\n"},
      // Zero weights are no edges: c and d are singletons, as in mcl.
      {"zero_weight", "a\tb\t1\nb\tc\t0\nd\td\t0\ne\tf\n", "a\tb\ne\tf\nc\nd\n"},
      // Triangles, a 3-cycle and a pair, with an unweighted bridge.
      {"t6", "a\tb\nb\tc\nc\ta\nc\td\nd\te\ne\tf\nf\td\ng\tg\t1\nh\ti\n",
       "a\tb\tc\nd\te\tf\nh\ti\ng\n"},
  };
}

/// Whether `tool` is on PATH.
inline bool have(const char* tool) {
  return std::system((std::string("command -v ") + tool + " > /dev/null 2>&1").c_str()) == 0;
}
/// Skips the test without Debian's mcl and mcxload (the comparisons need both).
#define REQUIRE_MCL_TOOLS()                                                                   \
  if (!opsparse::mcl::test::have("mcl") || !opsparse::mcl::test::have("mcxload"))             \
  GTEST_SKIP() << "Debian's mcl and mcxload are not on PATH (apt-get install mcl to compare " \
                  "with them)"

/// Runs `cmd` with the shell; its exit status (-1 when it did not exit).
inline int sh(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// A path quoted for the shell.
inline std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace opsparse::mcl::test
