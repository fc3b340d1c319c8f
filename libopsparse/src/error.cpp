#include "opsparse/error.hpp"

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
}  // namespace detail
}  // namespace opsparse
