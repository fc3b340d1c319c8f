// The lookups of tests/support/test_support.hpp on scratch trees: which of the environment, the
// running binary's surroundings and the compiled path wins, and that the nearest ancestor does.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "test_support.hpp"

namespace fs = std::filesystem;
namespace t = opsparse::test;

namespace {

using opsparse::test::env_scope;

/// A fresh folder under the system temp folder, removed at the end of scope.
class scratch {
 public:
  scratch() {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("opsparse_paths_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
};

}  // namespace

TEST(Paths, ExeDirHoldsThisBinary) {
  const fs::path dir = t::detail::exe_dir();
  ASSERT_FALSE(dir.empty());
  EXPECT_TRUE(fs::is_regular_file(dir / "opsparse_test_paths")) << dir;
}

TEST(Paths, FindUpwardsTakesTheNearestAncestor) {
  scratch s;
  const fs::path deep = s.path() / "a" / "b" / "c";
  fs::create_directories(deep);
  fs::create_directories(s.path() / "tests" / "data");
  EXPECT_EQ(t::detail::find_upwards(deep, "tests/data"), (s.path() / "tests/data").string());
  fs::create_directories(s.path() / "a" / "tests" / "data");
  EXPECT_EQ(t::detail::find_upwards(deep, "tests/data"), (s.path() / "a/tests/data").string());
  // the start folder itself counts
  fs::create_directories(deep / "tests" / "data");
  EXPECT_EQ(t::detail::find_upwards(deep, "tests/data"), (deep / "tests/data").string());
  // a file counts as well as a folder
  std::ofstream(s.path() / "a" / "marker.txt") << "x";
  EXPECT_EQ(t::detail::find_upwards(deep, "marker.txt"), (s.path() / "a/marker.txt").string());
  EXPECT_EQ(t::detail::find_upwards(deep, "opsparse_no_such_entry/x"), "");
  EXPECT_EQ(t::detail::find_upwards(fs::path(), "tests/data"), "");
}

TEST(Paths, EnvironmentThenFoundThenCompiled) {
  const char* var = "OPSPARSE_PATHS_TEST_VAR";
  {
    env_scope e(var, std::nullopt);
    EXPECT_EQ(t::detail::pick(var, "x/y", "/found/x/y", "/compiled/x/y"), "/found/x/y");
    EXPECT_EQ(t::detail::pick(var, "x/y", "", "/compiled/x/y"), "/compiled/x/y");
  }
  {
    // set wins, even over a path that exists and even when its own does not
    env_scope e(var, std::string("/nowhere"));
    EXPECT_EQ(t::detail::pick(var, "x/y", "/found/x/y", "/compiled/x/y"), "/nowhere/x/y");
  }
}

TEST(Paths, SourcePathAndTestDataFollowTheEnvironment) {
  scratch s;
  {
    env_scope e("OPSPARSE_SOURCE_DIR", s.path().string());
    EXPECT_EQ(t::source_path("datasets/fetch.sh", "/compiled/fetch.sh"),
              (s.path() / "datasets/fetch.sh").string());
    EXPECT_EQ(t::test_data_dir(), (s.path() / "tests/data").string());
  }
  env_scope e("OPSPARSE_SOURCE_DIR", std::nullopt);
  // Without the variable the data is found from the binary (or compiled in): it must exist.
  EXPECT_TRUE(fs::is_regular_file(fs::path(t::test_data_dir()) / "io" / "mm_1x1.mtx"))
      << t::test_data_dir();
  EXPECT_EQ(t::source_path("opsparse_no_such_entry", "/compiled/x"), "/compiled/x");
}

TEST(Paths, ProgramPathPrefersTheEnvironmentThenTheBinarysFolder) {
  env_scope none("OPSPARSE_BIN_DIR", std::nullopt);
  EXPECT_EQ(t::program_path("opsparse_no_such_program", "/compiled/p"), "/compiled/p");
  // this binary is beside itself: what a staged folder of binaries looks like
  EXPECT_EQ(t::program_path("opsparse_test_paths", "/compiled/p"),
            (t::detail::exe_dir() / "opsparse_test_paths").string());
  env_scope set("OPSPARSE_BIN_DIR", std::string("/staged"));
  EXPECT_EQ(t::program_path("opsparse_test_paths", "/compiled/p"), "/staged/opsparse_test_paths");
}

TEST(Paths, DatasetsFollowTheEnvironment) {
  {
    env_scope e("OPSPARSE_DATASETS", std::string("/somewhere/datasets"));
    EXPECT_EQ(t::datasets_dir(), "/somewhere/datasets");
  }
  env_scope e("OPSPARSE_DATASETS", std::nullopt);
  const std::string d = t::datasets_dir();
  if (!d.empty()) EXPECT_TRUE(fs::is_directory(d)) << d;
}

// What this binary resolves where it runs, for tests/relocated/run_relocated.cmake to check.
TEST(Paths, ReportWhatResolvesHere) {
  const std::string data = t::test_data_dir();
  const std::string fetch = t::source_path("datasets/fetch.sh", "(compiled)");
  const std::string datasets = t::datasets_dir();
  std::cout << "[ paths    ] test_data_dir=" << data << "\n"
            << "[ paths    ] fetch_script=" << fetch << "\n"
            << "[ paths    ] datasets_dir=" << datasets << "\n";
  RecordProperty("test_data_dir", data);
  RecordProperty("datasets_dir", datasets);
  EXPECT_TRUE(fs::is_directory(data)) << data;
}
