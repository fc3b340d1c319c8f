#pragma once
// Helpers the tests of the programs share: small graphs, reference tables, a program's run_cli
// called in-process, a fresh folder per test, the GPU suites' skip.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/context.hpp"
#include "opsparse/csr.hpp"
#include "test_support.hpp"

namespace app_test {

using opsparse::host_csr;
using opsparse::index_t;
using opsparse::offset_t;
using opsparse::pattern;

/// An n-vertex adjacency matrix with the listed (directed) entries; repeats collapse, as in CSR.
inline host_csr<double> adjacency(index_t n, std::vector<std::pair<index_t, index_t>> edges) {
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  host_csr<double> a(n, n);
  for (const auto& [u, v] : edges) {
    a.col.push_back(v);
    a.val.push_back(1.0);
    ++a.rpt[u + 1];
  }
  for (index_t i = 0; i < n; ++i) a.rpt[i + 1] += a.rpt[i];
  return a;
}

/// Tab-separated rows of a reference table, '#' lines skipped.
inline std::vector<std::vector<std::string>> tsv_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, '\t')) fields.push_back(f);
    rows.push_back(std::move(fields));
  }
  return rows;
}

/// What a run of a program's command line gave.
struct cli_result {
  int status;
  std::string out, err;
};

/// `run_cli(argc, argv, out, err)` of a program called with argv = {program, args...}.
template <class RunCli>
cli_result run_program(RunCli run_cli, const char* program, std::vector<std::string> args) {
  args.insert(args.begin(), program);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int status = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {status, out.str(), err.str()};
}

/// A fixture with a fresh folder per test (PREFIX<pid>_<test name> in the temporary folder),
/// removed afterwards, and files written into and read from it.
class temp_dir_test : public ::testing::Test {
 protected:
  explicit temp_dir_test(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (prefix_ + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string read(const std::string& name) {
    std::ifstream f(dir_ / name);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::string path(const std::string& name) { return (dir_ / name).string(); }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

/// A GPU suite's fixture: skips with the reason where no GPU is usable; fails instead when
/// OPSPARSE_REQUIRE_GPU=1.
class gpu_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!opsparse::gpu_available(&why)) {
      if (opsparse::test::gpu_required()) FAIL() << "OPSPARSE_REQUIRE_GPU=1 but " << why;
      GTEST_SKIP() << "GPU test skipped: " << why;
    }
  }
};

}  // namespace app_test
