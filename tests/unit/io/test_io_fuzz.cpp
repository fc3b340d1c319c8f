// Fuzz-style robustness: valid files truncated at every byte and corrupted at random (seeded) must
// either parse to a valid CSR or throw opsparse::parse_error: no other exception, no crash.
#include "opsparse/io.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <functional>
#include <iostream>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io_test_util.hpp"

namespace io = opsparse::io;
using io_test::scratch_dir;
using opsparse::pattern;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>());
}

/// Runs every reader on one file and records any outcome other than "valid result" or
/// "parse_error". Returns the number of readers that succeeded.
class robustness_checker {
 public:
  int check_all(const std::string& path, const std::string& what) {
    int ok = 0;
    ok += run(what + " read_matrix_market<double>",
              [&] { return csr_problem(io::read_matrix_market<double>(path)); });
    ok += run(what + " read_matrix_market<float>",
              [&] { return csr_problem(io::read_matrix_market<float>(path)); });
    ok += run(what + " read_matrix_market<int32>",
              [&] { return csr_problem(io::read_matrix_market<std::int32_t>(path)); });
    ok += run(what + " read_matrix_market<int64>",
              [&] { return csr_problem(io::read_matrix_market<std::int64_t>(path)); });
    ok += run(what + " read_matrix_market<pattern>",
              [&] { return csr_problem(io::read_matrix_market<pattern>(path)); });
    ok += run(what + " read_edge_list", [&] { return graph_problem(io::read_edge_list(path)); });
    ok += run(what + " read_abc", [&] { return graph_problem(io::read_abc(path)); });
    ok += run(what + " read_graph(mtx)",
              [&] { return graph_problem(io::read_graph(path, io::file_format::matrix_market)); });
    return ok;
  }

  long long cases() const { return cases_; }
  long long parsed() const { return parsed_; }
  long long rejected() const { return rejected_; }
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  template <class V>
  static std::string csr_problem(const opsparse::host_csr<V>& m) {
    return opsparse::check(m);
  }
  static std::string graph_problem(const io::labelled_graph& g) {
    std::string p = opsparse::check(g.adj);
    if (!p.empty()) return p;
    if (g.adj.rows != g.adj.cols) return "graph is not square";
    if (g.labels.size() != static_cast<std::size_t>(g.adj.rows))
      return "label count differs from n";
    if (std::set<std::string>(g.labels.begin(), g.labels.end()).size() != g.labels.size())
      return "labels are not distinct";
    return {};
  }

  int run(const std::string& what, const std::function<std::string()>& f) {
    ++cases_;
    try {
      const std::string problem = f();
      if (!problem.empty()) fail(what + ": parsed into an invalid result: " + problem);
      ++parsed_;
      return 1;
    } catch (const opsparse::parse_error& e) {
      ++rejected_;
      // The message must name the file even for garbage input.
      if (std::string(e.what()).find(e.file()) == std::string::npos)
        fail(what + ": parse_error message does not name the file: " + e.what());
    } catch (const std::exception& e) {
      fail(what + ": threw a non-parse_error exception: " + e.what());
    } catch (...) {
      fail(what + ": threw a non-std::exception");
    }
    return 0;
  }
  void fail(const std::string& msg) {
    if (failures_.size() < 20)
      failures_.push_back(msg);
    else if (failures_.size() == 20)
      failures_.push_back("... more failures left out");
  }

  long long cases_ = 0, parsed_ = 0, rejected_ = 0;
  std::vector<std::string> failures_;
};

/// The committed samples plus a few inline ones that exercise other paths (CRLF, weights,
/// skew integers, extreme numbers).
std::vector<std::pair<std::string, std::string>> seed_files() {
  std::vector<std::pair<std::string, std::string>> seeds;
  const std::string dir = opsparse::test::test_data_dir() + "/io";
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());  // directory order is not stable; the RNG stream must be
  for (const auto& n : names) seeds.emplace_back(n, slurp(dir + "/" + n));
  seeds.emplace_back("inline_crlf.mtx",
                     "%%MatrixMarket matrix coordinate integer skew-symmetric\r\n% c\r\n"
                     "3 3 3\r\n2 1 -2147483648\r\n3 1 9223372036854775807\r\n3 2 12\r\n");
  seeds.emplace_back("inline_extremes.mtx",
                     "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1e308\n1 1 -5e307\n"
                     "2 2 -4.9e-324\n1 2 3.4028235e38\n");
  seeds.emplace_back("inline_weights.txt", "# u v w\n1 2 0.5\n2 3 1e300\n-9 1 -0\n3 3\n");
  return seeds;
}

}  // namespace

TEST(IoFuzz, TruncatedAndCorruptedFilesParseOrThrowParseError) {
  const auto start = std::chrono::steady_clock::now();
  scratch_dir dir;
  robustness_checker checker;
  const auto seeds = seed_files();
  ASSERT_GE(seeds.size(), 10u);

  // 1. Every truncation of every seed. A truncated Matrix Market file that still parses must
  //    keep the dimensions of its size line (a cut inside the entries is never silently accepted
  //    as a smaller matrix).
  long long truncations = 0;
  for (const auto& [name, content] : seeds) {
    const bool is_mm = name.size() > 4 && name.compare(name.size() - 4, 4, ".mtx") == 0;
    opsparse::index_t rows = -1, cols = -1;
    if (is_mm) {
      const auto full = io::read_matrix_market<double>(dir.write(name, content));
      rows = full.rows;
      cols = full.cols;
    }
    for (std::size_t cut = 0; cut <= content.size(); ++cut) {
      const std::string p = dir.write("cut_" + name, content.substr(0, cut));
      checker.check_all(p, name + " cut at " + std::to_string(cut));
      ++truncations;
      if (is_mm) {
        try {
          const auto m = io::read_matrix_market<double>(p);
          EXPECT_EQ(m.rows, rows) << name << " cut at " << cut;
          EXPECT_EQ(m.cols, cols) << name << " cut at " << cut;
        } catch (const opsparse::parse_error&) {
        }
      }
    }
  }

  // 2. Random corruption: overwrite, insert or delete a few bytes, or duplicate / drop a line.
  //    Replacement bytes lean towards characters the parsers care about.
  std::mt19937_64 rng(20240611);
  const std::string interesting = "0123456789 \t\n\r-+.eE%#xnaif";
  auto random_byte = [&]() -> char {
    if (rng() % 4 == 0) return static_cast<char>(rng() % 256);
    return interesting[rng() % interesting.size()];
  };
  const int corruptions = 3000;
  for (int c = 0; c < corruptions; ++c) {
    const auto& [name, original] = seeds[rng() % seeds.size()];
    std::string s = original;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      const std::size_t at = rng() % s.size();
      switch (rng() % 5) {
        case 0:
        case 1: s[at] = random_byte(); break;
        case 2: s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), random_byte()); break;
        case 3: s.erase(at, 1); break;
        default: {
          // Duplicate or drop the line holding `at`: more or fewer entries than announced.
          const std::size_t b = s.rfind('\n', at) == std::string::npos ? 0 : s.rfind('\n', at) + 1;
          const std::size_t nl = s.find('\n', at);
          const std::size_t e2 = nl == std::string::npos ? s.size() : nl + 1;
          if (rng() % 2)
            s.insert(b, s.substr(b, e2 - b));
          else
            s.erase(b, e2 - b);
        }
      }
    }
    const std::string p = dir.write("bad_" + name, s);
    checker.check_all(p, name + " corruption #" + std::to_string(c));
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ostringstream summary;
  summary << truncations << " truncations + " << corruptions << " corruptions, " << checker.cases()
          << " reader calls: " << checker.parsed() << " parsed valid, " << checker.rejected()
          << " parse_error, " << seconds << " s";
  RecordProperty("summary", summary.str());
  std::cout << "[ fuzz     ] " << summary.str() << "\n";
  for (const auto& f : checker.failures()) ADD_FAILURE() << f;
  EXPECT_TRUE(checker.failures().empty());
  // Both outcomes must occur, or the test is not exercising what it claims to.
  EXPECT_GT(checker.parsed(), 1000);
  EXPECT_GT(checker.rejected(), 1000);
}
