#pragma once
// Helpers shared by the I/O tests: paths of the committed sample files, a scratch folder for files
// written by the tests, entry lists for comparing small matrices, and parse_error checks.
#include <gtest/gtest.h>

#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace io_test {

/// tests/data/io/<name>
inline std::string data_path(const std::string& name) {
  return opsparse::test::test_data_dir() + "/io/" + name;
}

/// A fresh folder under the system temp folder, removed with everything in it at the end of scope.
/// The pid and a counter keep parallel ctest runs of different tests apart.
class scratch_dir {
 public:
  scratch_dir() {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("opsparse_io_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  /// Writes `content` byte for byte and returns the file's path.
  std::string write(const std::string& name, const std::string& content) const {
    const std::string p = path(name);
    std::ofstream os(p, std::ios::binary | std::ios::trunc);
    os.write(content.data(), static_cast<std::streamsize>(content.size()));
    return p;
  }

 private:
  std::filesystem::path dir_;
};

using entry = std::tuple<int, int, double>;

/// (row, col, value) of every stored entry, row-major; value 1 for pattern matrices.
template <class V>
std::vector<entry> entries(const opsparse::host_csr<V>& m) {
  std::vector<entry> out;
  for (opsparse::index_t i = 0; i < m.rows; ++i)
    for (opsparse::offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k) {
      double v = 1.0;
      if constexpr (opsparse::has_values_v<V>) v = static_cast<double>(m.val[k]);
      out.emplace_back(i, m.col[k], v);
    }
  return out;
}

/// Runs `f` and checks that it throws opsparse::parse_error for `file` at `line` whose message
/// names the file, the line (as "file:line:") and contains `what`.
template <class F>
::testing::AssertionResult throws_parse_error(F&& f, const std::string& file, long long line,
                                              const std::string& what) {
  try {
    f();
  } catch (const opsparse::parse_error& e) {
    const std::string msg = e.what();
    if (e.file() != file)
      return ::testing::AssertionFailure() << "file() is '" << e.file() << "', expected '" << file
                                           << "' (message: " << msg << ")";
    if (e.line() != line)
      return ::testing::AssertionFailure()
             << "line() is " << e.line() << ", expected " << line << " (message: " << msg << ")";
    if (msg.find(file) == std::string::npos)
      return ::testing::AssertionFailure() << "message does not name the file: " << msg;
    if (line > 0 && msg.find(file + ":" + std::to_string(line) + ":") == std::string::npos)
      return ::testing::AssertionFailure() << "message does not name line " << line << ": " << msg;
    if (msg.find(what) == std::string::npos)
      return ::testing::AssertionFailure() << "message lacks '" << what << "': " << msg;
    return ::testing::AssertionSuccess() << msg;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-parse_error exception: " << e.what();
  } catch (...) {
    return ::testing::AssertionFailure() << "threw something that is not a std::exception";
  }
  return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace io_test
