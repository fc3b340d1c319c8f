#pragma once
// Error handling, RAFT style: OPSPARSE_EXPECTS for argument checks (std::invalid_argument),
// OPSPARSE_CUDA_TRY for runtime calls (opsparse::cuda_error with call, error name, file, line),
// OPSPARSE_CUDA_TRY_NO_THROW for destructors. Kernels never throw.
// The header needs no CUDA; the functions behind the two CUDA macros (throw_cuda_error,
// log_cuda_error_no_throw) are defined in the GPU library, opsparse::gpu.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace opsparse {

/// A CUDA runtime (or library) call failed. what() names the call, the error and where.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(const std::string& call, const std::string& error_name, const char* file, int line);

 protected:
  explicit cuda_error(const std::string& message) : std::runtime_error(message) {}
};

/// A device allocation failed for want of memory (after the library's pool gave back what it
/// kept). what(): "out of GPU memory: 8.40 GB asked for, 3.10 GB free of 79.19 GB".
class device_memory_error : public cuda_error {
 public:
  device_memory_error(std::size_t requested, std::size_t free_bytes, std::size_t total_bytes);
  std::size_t requested() const noexcept { return requested_; }
  std::size_t free_bytes() const noexcept { return free_; }
  std::size_t total_bytes() const noexcept { return total_; }

 private:
  std::size_t requested_, free_, total_;
};

/// "8.40 GB" (decimal units: B, kB, MB, GB, TB with two decimals above bytes).
std::string format_bytes(double bytes);

/// A file could not be parsed. what() names the file, the line and what was wrong.
class parse_error : public std::runtime_error {
 public:
  parse_error(const std::string& file, long long line, const std::string& what);
  const std::string& file() const noexcept { return file_; }
  long long line() const noexcept { return line_; }
  /// What is wrong, without the file and line.
  const std::string& message() const noexcept { return message_; }

 private:
  std::string file_;
  long long line_;
  std::string message_;
};

namespace detail {
[[noreturn]] void throw_invalid_argument(const char* cond, const std::string& msg, const char* file,
                                         int line);
[[noreturn]] void throw_cuda_error(const char* call, int code, const char* file, int line);
void log_cuda_error_no_throw(const char* call, int code, const char* file, int line) noexcept;
}  // namespace detail
}  // namespace opsparse

#define OPSPARSE_EXPECTS(cond, msg)                                                            \
  do {                                                                                         \
    if (!(cond)) ::opsparse::detail::throw_invalid_argument(#cond, (msg), __FILE__, __LINE__); \
  } while (0)

// Evaluates `call` once; a nonzero status goes to `handler` with `text` (the call as written,
// stringified by the macros below before any expansion), the status and where.
#define OPSPARSE_DETAIL_CUDA_CHECK(call, text, handler)                             \
  do {                                                                              \
    const int opsparse_status_ = static_cast<int>(call);                            \
    if (opsparse_status_ != 0) handler(text, opsparse_status_, __FILE__, __LINE__); \
  } while (0)

#define OPSPARSE_CUDA_TRY(call) \
  OPSPARSE_DETAIL_CUDA_CHECK(call, #call, ::opsparse::detail::throw_cuda_error)

#define OPSPARSE_CUDA_TRY_NO_THROW(call) \
  OPSPARSE_DETAIL_CUDA_CHECK(call, #call, ::opsparse::detail::log_cuda_error_no_throw)
