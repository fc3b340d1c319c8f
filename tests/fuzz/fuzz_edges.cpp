// libFuzzer target for read_edge_list: the serial and parallel readings must agree (the same
// graph or the same error at the same line), a result must be a valid graph whose labels are the
// ids in canonical decimal form, and nothing but parse_error may escape.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"

namespace {

/// "-12" or "7": what std::to_string gives for a 64-bit id, so "007" and "+7" must not appear.
bool canonical_id(const std::string& label) {
  if (label.empty() || label.size() > 20) return false;
  errno = 0;
  char* end = nullptr;
  const long long id = std::strtoll(label.c_str(), &end, 10);
  return errno == 0 && *end == '\0' && std::to_string(id) == label;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  opsparse_fuzz::use_two_passive_threads();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const opsparse_fuzz::input_file file(".txt");
  const std::string& path = file.write(data, size);
  opsparse_fuzz::read_both_ways(
      path, size, "read_edge_list", [&] { return opsparse::io::read_edge_list(path); },
      canonical_id);
  return 0;
}
