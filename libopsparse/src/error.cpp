#include "opsparse/error.hpp"

#include <iomanip>
#include <sstream>

namespace opsparse {

cuda_error::cuda_error(const std::string& call, const std::string& error_name, const char* file,
                       int line)
    : std::runtime_error(call + " failed: " + error_name + " at " + file + ":" +
                         std::to_string(line)) {}

std::string format_bytes(double bytes) {
  static const char* const units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  std::ostringstream os;
  os << std::fixed << std::setprecision(u == 0 ? 0 : 2) << bytes << " " << units[u];
  return os.str();
}

device_memory_error::device_memory_error(std::size_t requested, std::size_t free_bytes,
                                         std::size_t total_bytes)
    : cuda_error("out of GPU memory: " + format_bytes(static_cast<double>(requested)) +
                 " asked for, " + format_bytes(static_cast<double>(free_bytes)) + " free of " +
                 format_bytes(static_cast<double>(total_bytes))),
      requested_(requested),
      free_(free_bytes),
      total_(total_bytes) {}

parse_error::parse_error(const std::string& file, long long line, const std::string& what)
    : std::runtime_error(file + ":" + (line > 0 ? std::to_string(line) + ": " : std::string(" ")) +
                         what),
      file_(file),
      line_(line),
      message_(what) {}

namespace detail {
void throw_invalid_argument(const char* cond, const std::string& msg, const char* file, int line) {
  std::ostringstream os;
  os << msg << " (expected " << cond << ", " << file << ":" << line << ")";
  throw std::invalid_argument(os.str());
}
}  // namespace detail
}  // namespace opsparse
