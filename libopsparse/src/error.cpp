#include "opsparse/error.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <sstream>

namespace opsparse {

cuda_error::cuda_error(const std::string& call, const std::string& error_name, const char* file,
                       int line)
    : std::runtime_error(call + " failed: " + error_name + " at " + file + ":" +
                         std::to_string(line)) {}

parse_error::parse_error(const std::string& file, long long line, const std::string& what)
    : std::runtime_error(file + ":" + (line > 0 ? std::to_string(line) + ": " : std::string(" ")) +
                         what),
      file_(file),
      line_(line) {}

namespace detail {
void throw_invalid_argument(const char* cond, const std::string& msg, const char* file, int line) {
  std::ostringstream os;
  os << msg << " (expected " << cond << ", " << file << ":" << line << ")";
  throw std::invalid_argument(os.str());
}

static std::string error_name(int code) {
  const auto err = static_cast<cudaError_t>(code);
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

void throw_cuda_error(const char* call, int code, const char* file, int line) {
  // Clear a sticky-free error so that the context stays usable for the caller's next call.
  (void)cudaGetLastError();
  throw cuda_error(call, error_name(code), file, line);
}

void log_cuda_error_no_throw(const char* call, int code, const char* file, int line) noexcept {
  std::fprintf(stderr, "opsparse: %s failed: %s at %s:%d\n", call, error_name(code).c_str(), file,
               line);
}
}  // namespace detail
}  // namespace opsparse
