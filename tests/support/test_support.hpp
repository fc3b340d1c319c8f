#pragma once
// Shared helpers for the test suites: where the data is, GPU gating, random matrices, comparisons.
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv, unsetenv

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "opsparse/csr.hpp"

namespace opsparse::test {

// Where the data and the programs are. Test binaries run in the build tree, in a copy of it, or
// staged into one folder on another machine (scripts/gpu-check), so a path compiled in may not
// exist where they run. Every lookup tries, in order: the environment (OPSPARSE_SOURCE_DIR,
// OPSPARSE_DATASETS, OPSPARSE_BIN_DIR), a path relative to the running binary when it exists, and
// last the path CMake compiled in. A variable that is set wins even when the path it names is
// missing: a wrong setting then fails loudly instead of quietly using another copy of the tree.
namespace detail {

/// The running binary's folder (/proc/self/exe); empty where that link cannot be read.
inline std::filesystem::path exe_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

/// `start/relative` or the same under the nearest ancestor of `start` where it exists; empty when
/// it exists under none. The nearest wins, so that a copied tree holding the binaries is preferred
/// to the tree the copy sits in.
inline std::string find_upwards(const std::filesystem::path& start, const std::string& relative) {
  std::error_code ec;
  for (std::filesystem::path dir = start; !dir.empty(); dir = dir.parent_path()) {
    const std::filesystem::path candidate = dir / relative;
    if (std::filesystem::exists(candidate, ec)) return candidate.string();
    if (dir == dir.parent_path()) break;
  }
  return std::string();
}

/// $env_var/relative when the variable is set, else `found` when not empty, else `compiled`.
inline std::string pick(const char* env_var, const std::string& relative, const std::string& found,
                        const std::string& compiled) {
  if (const char* dir = std::getenv(env_var)) return std::string(dir) + "/" + relative;
  return found.empty() ? compiled : found;
}

}  // namespace detail

/// A file or folder of the source tree: $OPSPARSE_SOURCE_DIR/<relative>; else <relative> under the
/// nearest ancestor of the binary's folder that holds it; else the compiled path.
inline std::string source_path(const char* relative, const char* built_path) {
  return detail::pick("OPSPARSE_SOURCE_DIR", relative,
                      detail::find_upwards(detail::exe_dir(), relative), built_path);
}

/// tests/data: tiny hand-written files committed with the project.
inline std::string test_data_dir() { return source_path("tests/data", OPSPARSE_TEST_DATA_DIR); }

/// A program built with the project: $OPSPARSE_BIN_DIR/<name>; else <name> beside the running
/// binary (binaries staged into one folder); else the path CMake compiled in.
inline std::string program_path(const char* name, const char* built_path) {
  std::error_code ec;
  const std::filesystem::path beside = detail::exe_dir() / name;
  const bool staged = !detail::exe_dir().empty() && std::filesystem::is_regular_file(beside, ec);
  return detail::pick("OPSPARSE_BIN_DIR", name, staged ? beside.string() : std::string(),
                      built_path);
}

/// The shared real data sets: $OPSPARSE_DATASETS; else shared/datasets under the nearest ancestor
/// of the binary's folder (the project sits beside ../shared); else the compiled path. Empty when
/// neither exists: tests that need them skip.
inline std::string datasets_dir() {
  if (const char* env = std::getenv("OPSPARSE_DATASETS")) return env;
  const std::string found = detail::find_upwards(detail::exe_dir(), "shared/datasets");
  if (!found.empty()) return found;
  const std::string d = OPSPARSE_DATASETS_DIR;
  std::error_code ec;
  return std::filesystem::is_directory(d, ec) ? d : std::string();
}

/// The fields of `line` between `sep` characters, as std::getline gives them (a trailing empty
/// field is not one).
inline std::vector<std::string> split_fields(const std::string& line, char sep = '\t') {
  std::vector<std::string> fields;
  std::istringstream ss(line);
  std::string f;
  while (std::getline(ss, f, sep)) fields.push_back(f);
  return fields;
}

/// Tab-separated rows of a reference table: a trailing '\r' dropped, empty and '#' lines skipped.
/// A file that cannot be opened fails the test and gives no rows.
inline std::vector<std::vector<std::string>> tsv_rows(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    rows.push_back(split_fields(line));
  }
  return rows;
}

/// Sets (or unsets, with nullopt) an environment variable for a scope and restores it after.
class env_scope {
 public:
  env_scope(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~env_scope() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  env_scope(const env_scope&) = delete;
  env_scope& operator=(const env_scope&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

/// True when the environment demands that GPU tests run (gpu-check sets it).
inline bool gpu_required() {
  const char* env = std::getenv("OPSPARSE_REQUIRE_GPU");
  return env && std::string(env) == "1";
}

/// In a GPU test (code that links the GPU engine): skips with the reason when no device is
/// usable, or fails when OPSPARSE_REQUIRE_GPU=1.
#define OPSPARSE_SKIP_WITHOUT_GPU()                                                        \
  do {                                                                                     \
    std::string why_;                                                                      \
    if (!opsparse::gpu_available(&why_)) {                                                 \
      if (opsparse::test::gpu_required()) FAIL() << "OPSPARSE_REQUIRE_GPU=1 but " << why_; \
      GTEST_SKIP() << "GPU test skipped: " << why_;                                        \
    }                                                                                      \
  } while (0)

/// Random m x n CSR with about `per_row` entries per row (sorted, no duplicates), values in
/// (0.5, 1.5] so that no product cancels.
template <class V = double>
host_csr<V> random_csr(index_t m, index_t n, double per_row, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(0.5, 1.5);
  host_csr<V> a(m, n);
  std::vector<char> used(static_cast<std::size_t>(n), 0);
  for (index_t i = 0; i < m; ++i) {
    std::poisson_distribution<int> cnt(per_row);
    int k = n > 0 ? std::min<int>(cnt(rng), n) : 0;
    std::vector<index_t> cols;
    std::uniform_int_distribution<index_t> pick(0, n > 0 ? n - 1 : 0);
    while (static_cast<int>(cols.size()) < k) {
      index_t c = pick(rng);
      if (!used[c]) {
        used[c] = 1;
        cols.push_back(c);
      }
    }
    std::sort(cols.begin(), cols.end());
    for (index_t c : cols) {
      used[c] = 0;
      a.col.push_back(c);
      if constexpr (has_values_v<V>) a.val.push_back(static_cast<V>(val(rng)));
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

/// Structure exactly equal, values within `rel` relative (per entry, against max(|x|,|y|,tiny)).
template <class V>
::testing::AssertionResult csr_near(const host_csr<V>& x, const host_csr<V>& y, double rel) {
  if (x.rows != y.rows || x.cols != y.cols)
    return ::testing::AssertionFailure()
           << "shape " << x.rows << "x" << x.cols << " vs " << y.rows << "x" << y.cols;
  if (x.rpt != y.rpt) {
    for (index_t i = 0; i < x.rows; ++i)
      if (x.rpt[i + 1] - x.rpt[i] != y.rpt[i + 1] - y.rpt[i])
        return ::testing::AssertionFailure() << "row " << i << " has " << (x.rpt[i + 1] - x.rpt[i])
                                             << " entries vs " << (y.rpt[i + 1] - y.rpt[i]);
    return ::testing::AssertionFailure() << "row pointers differ";
  }
  for (std::size_t k = 0; k < x.col.size(); ++k)
    if (x.col[k] != y.col[k])
      return ::testing::AssertionFailure()
             << "column differs at entry " << k << ": " << x.col[k] << " vs " << y.col[k];
  if constexpr (has_values_v<V>) {
    if (x.val.size() != y.val.size()) return ::testing::AssertionFailure() << "value count";
    // Relative to the row's largest magnitude: entries that cancel to nearly zero carry the
    // rounding error of their largest products, whatever order the engines sum them in.
    std::vector<double> row_scale(static_cast<std::size_t>(x.rows), 0.0);
    for (index_t i = 0; i < x.rows; ++i)
      for (offset_t k = y.rpt[i]; k < y.rpt[i + 1]; ++k)
        row_scale[i] = std::max(row_scale[i], std::fabs(static_cast<double>(y.val[k])));
    index_t row = 0;
    for (std::size_t k = 0; k < x.val.size(); ++k) {
      while (static_cast<offset_t>(k) >= y.rpt[row + 1]) ++row;
      const double a = static_cast<double>(x.val[k]), b = static_cast<double>(y.val[k]);
      const double scale = std::max({std::fabs(a), std::fabs(b), row_scale[row], 1e-300});
      if (!(std::fabs(a - b) <= rel * scale))
        return ::testing::AssertionFailure()
               << "value differs at entry " << k << ": " << a << " vs " << b;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace opsparse::test

/// Skips the test when the shared data sets are absent (a fresh clone has no ../shared).
#define OPSPARSE_REQUIRE_DATASETS()                                                       \
  do {                                                                                    \
    if (::opsparse::test::datasets_dir().empty())                                         \
      GTEST_SKIP() << "../shared/datasets not found (set OPSPARSE_DATASETS to its path)"; \
  } while (0)
