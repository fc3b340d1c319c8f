// libFuzzer target for read_abc: the serial and parallel readings must agree (the same graph or
// the same error at the same line), a result must be a valid graph with non-empty labels that
// hold neither a tab nor a line break, and nothing but parse_error may escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  opsparse_fuzz::use_two_passive_threads();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const opsparse_fuzz::input_file file(".abc");
  const std::string& path = file.write(data, size);
  opsparse_fuzz::read_both_ways(
      path, size, "read_abc", [&] { return opsparse::io::read_abc(path); },
      [](const std::string& label) {
        return !label.empty() && label.find_first_of("\t\n") == std::string::npos;
      });
  return 0;
}
