#pragma once
// What the libFuzzer targets share: the input written to a file (the readers take a path), a
// reading's outcome (a result or a parse_error), and the checks that every outcome must pass.
// A failed check prints what was wrong and aborts: libFuzzer then saves the input as a crash.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <omp.h>

#include "opsparse/csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/io.hpp"

namespace opsparse_fuzz {

/// For the LLVMFuzzerInitialize of the targets that run the parallel readers.
inline void use_two_passive_threads() {
  // Idle threads sleep instead of spinning for 200 ms after every parallel loop: a fuzzer runs
  // thousands of tiny readings a second, and spinning threads took most of the CPU.
  setenv("OMP_WAIT_POLICY", "passive", 0);
  // Two threads run the parallel reader's loops even on a machine with one core.
  omp_set_num_threads(2);
}

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "\nopsparse fuzz check failed: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// The file that holds the current input: one per process, since libFuzzer's -jobs and -fork
/// run several at once. /dev/shm keeps the per-input write off the disk.
class input_file {
 public:
  explicit input_file(const char* suffix) {
    struct stat info {};
    std::string dir = "/dev/shm";
    if (::stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
      const char* tmp = std::getenv("TMPDIR");
      dir = tmp && *tmp ? tmp : "/tmp";
    }
    path_ = dir + "/opsparse_fuzz_" + std::to_string(::getpid()) + suffix;
  }
  ~input_file() { ::unlink(path_.c_str()); }
  input_file(const input_file&) = delete;
  input_file& operator=(const input_file&) = delete;

  /// Replaces the file's content with the bytes and returns its path.
  const std::string& write(const std::uint8_t* data, std::size_t size) const {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create " + path_ + ": " + std::strerror(errno));
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd, data + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("cannot write " + path_ + ": " + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// What a reader gave: a result, or a parse_error's message and line.
template <class T>
struct outcome {
  std::optional<T> result;
  std::string error;
  long long line = 0;

  bool ok() const { return result.has_value(); }
  std::string describe() const {
    return ok() ? std::string("a result") : "parse_error '" + error + "'";
  }
};

/// Runs one reading of `path`. A parse_error must name the file and, when it has one, the line
/// ("file:line: what"); anything else thrown is a failure of the reader.
template <class F>
auto attempt(const std::string& path, const std::string& who, F&& read)
    -> outcome<decltype(read())> {
  outcome<decltype(read())> out;
  try {
    out.result.emplace(read());
  } catch (const opsparse::parse_error& e) {
    out.error = e.what();
    out.line = e.line();
    if (e.file() != path) fail(who + ": parse_error names file '" + e.file() + "', not " + path);
    if (e.line() < 0) fail(who + ": parse_error with a negative line: " + out.error);
    const std::string prefix = e.line() > 0 ? path + ":" + std::to_string(e.line()) + ":" : path;
    if (out.error.compare(0, prefix.size(), prefix) != 0)
      fail(who + ": parse_error message does not start with '" + prefix + "': " + out.error);
  } catch (const std::exception& e) {
    fail(who + ": threw a non-parse_error exception: " + e.what());
  } catch (...) {
    fail(who + ": threw something that is not a std::exception");
  }
  return out;
}

/// Same shape, pattern and values (compared by their bits: 0 and -0 differ, as do NaNs).
template <class V>
bool same_matrix(const opsparse::host_csr<V>& a, const opsparse::host_csr<V>& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.rpt != b.rpt || a.col != b.col) return false;
  if constexpr (opsparse::has_values_v<V>) {
    return a.val.size() == b.val.size() &&
           (a.val.empty() ||
            std::memcmp(a.val.data(), b.val.data(), a.val.size() * sizeof(V)) == 0);
  }
  return true;
}

/// Same pattern, values aside.
template <class V, class W>
bool same_pattern(const opsparse::host_csr<V>& a, const opsparse::host_csr<W>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.rpt == b.rpt && a.col == b.col;
}

/// The invariants of every graph a reader returns; label_ok(label) adds the format's own.
template <class LabelOk>
void check_graph(const std::string& who, const opsparse::io::labelled_graph& g, LabelOk label_ok) {
  const std::string problem = opsparse::check(g.adj);
  if (!problem.empty()) fail(who + ": invalid CSR: " + problem);
  if (g.adj.rows != g.adj.cols) fail(who + ": the adjacency is not square");
  if (g.labels.size() != static_cast<std::size_t>(g.adj.rows))
    fail(who + ": " + std::to_string(g.labels.size()) + " labels for " +
         std::to_string(g.adj.rows) + " vertices");
  if (g.adj.rows == 0) fail(who + ": a graph without vertices (a reader must reject it)");
  std::set<std::string> seen;
  for (const std::string& l : g.labels) {
    if (!seen.insert(l).second) fail(who + ": label '" + l + "' appears twice");
    if (!label_ok(l)) fail(who + ": unexpected label '" + l + "'");
  }
}

/// The serial reading against the parallel readings of an edge list or ABC file: the same graph
/// (labels, numbering, values by their bits) or the same error at the same line.
void expect_same_reading(const std::string& who, const outcome<opsparse::io::labelled_graph>& got,
                         const outcome<opsparse::io::labelled_graph>& serial) {
  if (got.ok() != serial.ok())
    fail(who + " gave " + got.describe() + ", the serial reader " + serial.describe());
  if (!got.ok()) {
    if (got.error != serial.error || got.line != serial.line)
      fail(who + " gave parse_error '" + got.error + "', the serial reader '" + serial.error + "'");
    return;
  }
  if (got.result->labels != serial.result->labels)
    fail(who + ": labels or their order differ from the serial reading");
  if (!same_matrix(got.result->adj, serial.result->adj))
    fail(who + ": the adjacency differs from the serial reading");
}

/// Reads the file serially and in parallel (whole, and cut into chunks of a few bytes so that
/// chunk seams fall inside lines of every kind), compares the readings and checks the graph.
/// Returns the serial outcome.
template <class Read, class LabelOk>
outcome<opsparse::io::labelled_graph> read_both_ways(const std::string& path, std::size_t size,
                                                     const char* name, Read read,
                                                     LabelOk label_ok) {
  namespace io = opsparse::io;
  auto with_tuning = [&](io::detail::text_reader_tuning tuning, const std::string& who) {
    const io::detail::text_reader_tuning old = io::detail::set_text_reader_tuning(tuning);
    auto out = attempt(path, who, read);
    io::detail::set_text_reader_tuning(old);
    return out;
  };
  const std::string base = name;
  const auto serial = with_tuning({0, true}, base + " (serial)");
  if (serial.ok()) check_graph(base + " (serial)", *serial.result, label_ok);
  expect_same_reading(base + " (parallel, default chunks)",
                      with_tuning({0, false}, base + " (parallel)"), serial);
  // The length picks the chunk size, so that every input reproduces on its own: a few bytes for
  // a short input, and at most about 128 chunks for a long one (a chunk costs a table per
  // partition, and thousands of them made a 64 KiB input take 30 ms under ASan).
  const std::size_t chunk = 1 + size % 23 + size / 128;
  const std::string who = base + " (parallel, " + std::to_string(chunk) + "-byte chunks)";
  expect_same_reading(who, with_tuning({chunk, false}, who), serial);
  return serial;
}

}  // namespace opsparse_fuzz
