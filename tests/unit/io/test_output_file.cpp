// io::output_file: a failed, interrupted or uncommitted run never damages the file it writes.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io_test_util.hpp"
#include "opsparse/output_file.hpp"

namespace {

namespace fs = std::filesystem;
namespace io = opsparse::io;
using io_test::scratch_dir;

std::string slurp(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  std::ostringstream os;
  os << is.rdbuf();
  return os.str();
}

/// Files in `dir` other than `keep`: the temporary files a writer left behind.
int stray_files(const std::string& dir, const std::string& keep) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != keep) ++n;
  return n;
}

TEST(OutputFile, CommitReplacesTheTargetAndLeavesNoTemporaryFile) {
  scratch_dir dir;
  const std::string p = dir.write("out.txt", "old\n");
  {
    io::output_file out(p);
    out.stream() << "new\n";
    EXPECT_EQ(slurp(p), "old\n");  // nothing visible before the commit
    out.commit();
  }
  EXPECT_EQ(slurp(p), "new\n");
  EXPECT_EQ(stray_files(dir.path(""), "out.txt"), 0);
}

TEST(OutputFile, AnExistingFileSurvivesAFailedRun) {
  // Once: `opsparse-mcl bad.txt -o results.txt` truncated results.txt, then deleted it.
  scratch_dir dir;
  const std::string p = dir.write("results.txt", "precious\n");
  EXPECT_THROW(
      {
        io::output_file out(p);
        out.stream() << "half a result";
        throw std::runtime_error("the run failed");
      },
      std::runtime_error);
  EXPECT_EQ(slurp(p), "precious\n");
  EXPECT_EQ(stray_files(dir.path(""), "results.txt"), 0);
}

TEST(OutputFile, ANewFileAppearsOnlyOnCommit) {
  scratch_dir dir;
  const std::string p = dir.path("fresh.txt");
  {
    io::output_file out(p);
    out.stream() << "x";
  }
  EXPECT_FALSE(fs::exists(p));
  EXPECT_EQ(stray_files(dir.path(""), ""), 0);
}

TEST(OutputFile, KeepsTheTargetsPermissionsAndGivesNewFilesTheUmasksOnes) {
  scratch_dir dir;
  const std::string p = dir.write("mode.txt", "x");
  ASSERT_EQ(::chmod(p.c_str(), 0640), 0);
  {
    io::output_file out(p);
    out.stream() << "y";
    out.commit();
  }
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);

  const mode_t mask = ::umask(0);
  ::umask(mask);
  const std::string q = dir.path("new.txt");
  {
    io::output_file out(q);
    out.stream() << "z";
    out.commit();
  }
  ASSERT_EQ(::stat(q.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u & ~mask);  // not mkstemp's 0600
}

TEST(OutputFile, ThroughASymbolicLinkTheFileIsReplacedNotTheLink) {
  scratch_dir dir;
  const std::string real = dir.write("real.txt", "old");
  const std::string link = dir.path("link.txt");
  fs::create_symlink(real, link);
  {
    io::output_file out(link);
    out.stream() << "new";
    out.commit();
  }
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(real), "new");
}

TEST(OutputFile, DeviceNodesAreWrittenInPlaceAndNeverRemoved) {
  // Once: `-o /dev/null` on a failed run deleted /dev/null (as root).
  {
    io::output_file out("/dev/null");
    out.stream() << "discarded";
  }
  EXPECT_TRUE(fs::exists("/dev/null"));
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  io::output_file out("/dev/null");
  out.stream() << "discarded";
  EXPECT_NO_THROW(out.commit());
}

TEST(OutputFile, UnwritablePlacesFailAtOnceNamingThePath) {
  scratch_dir dir;
  const std::string folder = dir.path("");
  try {
    io::output_file out(dir.path("no/such/folder/out.txt"));
    ADD_FAILURE() << "did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/folder/out.txt"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(io::output_file out(folder), std::runtime_error);  // a directory
}

TEST(OutputFile, SigtermRemovesTheTemporaryFileAndKeepsThePreviousResult) {
  // Once: a re-run killed with SIGTERM left the previous result at 0 bytes.
  scratch_dir dir;
  const std::string p = dir.write("result.txt", "previous result\n");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    io::output_file out(p);
    out.stream() << "partial";
    out.stream().flush();
    ::raise(SIGTERM);
    ::_exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(slurp(p), "previous result\n");
  EXPECT_EQ(stray_files(dir.path(""), "result.txt"), 0);
}

TEST(OutputFile, SameFileSeesThroughDifferentSpellings) {
  scratch_dir dir;
  const std::string p = dir.write("g.abc", "a\tb\n");
  const std::string q = dir.write("h.abc", "a\tb\n");
  EXPECT_TRUE(io::same_file(p, dir.path("./g.abc")));
  EXPECT_FALSE(io::same_file(p, q));
  EXPECT_FALSE(io::same_file(p, dir.path("missing.abc")));
}

}  // namespace
