#pragma once
// Output files that a failed run cannot damage. A program's result goes to a temporary file
// beside the target (same folder, so the final rename is atomic), which replaces the target
// only when the program commits it: an existing file is never truncated, emptied or removed by
// a run that fails, is interrupted (SIGINT, SIGTERM, SIGHUP remove the temporary file) or runs
// out of memory. Targets that are not regular files (a terminal, /dev/null, a FIFO, standard
// output as "-") are written in place and never removed.
#include <fstream>
#include <iosfwd>
#include <string>

namespace opsparse::io {

class output_file {
 public:
  /// Opens the temporary file now, so that a long run does not end on an unwritable folder;
  /// throws std::runtime_error naming the path and the system's reason when it cannot. "-" is
  /// standard output.
  explicit output_file(const std::string& path);
  /// Not committed: the temporary file is removed; the target is left as it was.
  ~output_file();
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  std::ostream& stream();
  /// Flushes, checks that every byte was written, and renames the temporary file over the
  /// target (keeping an existing target's permissions). Throws std::runtime_error on failure,
  /// leaving the target as it was.
  void commit();

  const std::string& path() const { return path_; }

 private:
  std::string path_;    ///< as given
  std::string target_;  ///< the file renamed over: path_ with symbolic links resolved
  std::string temp_;    ///< empty when writing in place
  std::ofstream file_;
  int slot_ = -1;  ///< in the signal handler's table of temporary files
  bool committed_ = false;
};

/// True when both paths name the same existing file (same device and inode), so that an output
/// path can be refused when it is one of the inputs.
bool same_file(const std::string& a, const std::string& b);

}  // namespace opsparse::io
