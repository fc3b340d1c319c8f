// Output files written through a temporary file and renamed into place (see output_file.hpp).
#include "opsparse/output_file.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <stdexcept>

#include <sys/stat.h>
#include <unistd.h>

namespace opsparse::io {
namespace {

// The temporary files of this process, for the signal handler: fixed storage, since a handler
// may only call async-signal-safe functions (unlink, signal, raise) and read plain memory.
constexpr int max_temp_files = 16;
struct temp_slot {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};
std::array<temp_slot, max_temp_files> temp_files;

extern "C" void remove_temp_files_and_reraise(int sig) {
  for (temp_slot& s : temp_files)
    if (s.used.load(std::memory_order_acquire)) ::unlink(s.path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

/// Installs the handler for the signals that end a program from outside, where the program has
/// not chosen a disposition of its own (an ignored SIGHUP under nohup stays ignored).
void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = remove_temp_files_and_reraise;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

int register_temp(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  install_handlers();
  for (int i = 0; i < max_temp_files; ++i) {
    temp_slot& s = temp_files[static_cast<std::size_t>(i)];
    if (s.used.load(std::memory_order_relaxed)) continue;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    bool expected = false;
    if (s.used.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return i;
  }
  return -1;  // more files than slots: a signal then leaves this one behind
}

void unregister_temp(int slot) {
  if (slot >= 0)
    temp_files[static_cast<std::size_t>(slot)].used.store(false, std::memory_order_release);
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw std::runtime_error("cannot write output file '" + path + "': " + what +
                           (err ? std::string(": ") + std::strerror(err) : std::string()));
}

}  // namespace

output_file::output_file(const std::string& path) : path_(path) {
  if (path.empty()) throw std::invalid_argument("output file: empty path");
  if (path == "-") return;
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) fail(path, "it is a directory", 0);
  if (exists && !S_ISREG(st.st_mode)) {
    // A terminal, /dev/null, a FIFO: written in place, never renamed over nor removed.
    file_.open(path, std::ios::binary | std::ios::out);
    if (!file_) fail(path, "cannot open it", errno);
    return;
  }
  target_ = path;
  if (exists) {
    // Through a symbolic link, the file it points to is replaced, not the link.
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      target_ = real;
      std::free(real);
    }
  }
  std::string templ = folder_of(target_) + "/." + base_of(target_) + ".tmp.XXXXXX";
  const int fd = ::mkstemp(templ.data());
  if (fd < 0) fail(path, "cannot create a temporary file in '" + folder_of(target_) + "'", errno);
  temp_ = templ;
  slot_ = register_temp(temp_);
  file_.open(temp_, std::ios::binary | std::ios::out | std::ios::trunc);
  ::close(fd);
  if (!file_) {
    const int err = errno;
    ::unlink(temp_.c_str());
    unregister_temp(slot_);
    temp_.clear();
    fail(path, "cannot open the temporary file", err);
  }
}

output_file::~output_file() {
  if (committed_ || path_ == "-") return;
  if (file_.is_open()) file_.close();
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    unregister_temp(slot_);
  }
}

std::ostream& output_file::stream() { return path_ == "-" ? std::cout : file_; }

void output_file::commit() {
  if (committed_) return;
  if (path_ == "-") {
    std::cout.flush();
    if (!std::cout) throw std::runtime_error("writing to standard output failed");
    committed_ = true;
    return;
  }
  file_.flush();
  file_.close();
  if (!file_) fail(path_, "writing failed (disk full?)", errno);
  if (temp_.empty()) {  // written in place
    committed_ = true;
    return;
  }
  // mkstemp made the file 0600: give it the target's permissions, or a new file's.
  struct stat st {};
  mode_t mode;
  if (::stat(target_.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  ::chmod(temp_.c_str(), mode);
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    fail(path_, "cannot move the finished file into place", err);  // ~output_file removes temp_
  }
  unregister_temp(slot_);
  committed_ = true;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace opsparse::io
