// libFuzzer target for mcl's native format, text and binary (read_mcl_native,
// read_mcl_native_graph, both writers).
// Nothing but parse_error may escape, and the readings must agree with each other:
//  - a matrix read is a valid CSR whose domains have one index per row and per column;
//  - read_mcl_native_graph succeeds only on what read_mcl_native reads, square with one domain,
//    and gives a valid graph;
//  - what write_mcl_native writes reads back with the same domains and pattern, and values
//    within float rounding (mcl's cells are floats, written as %.7g; values beyond float's
//    range as doubles);
//  - what write_mcl_native_binary writes reads back with the same domains, pattern and float
//    values (where the ids fit its 32 bits and the values a float).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "opsparse/io_mcl_native.hpp"

namespace io = opsparse::io;
using opsparse_fuzz::fail;

namespace {

/// Dimensions above this are left out: such a header is well-formed and the reader allocates a
/// domain of that many indices, which under ASan aborts instead of failing cleanly.
constexpr std::int64_t max_dimension = std::int64_t(1) << 20;

bool declares_large_dimensions(std::string_view text) {
  // The binary format: the column and row counts after the 4-byte cookie.
  if (text.size() >= 20 && text.compare(0, 4, "\x1b\xc2\x4d\xe8") == 0) {
    std::int64_t cols = 0, rows = 0;
    std::memcpy(&cols, text.data() + 4, sizeof cols);
    std::memcpy(&rows, text.data() + 12, sizeof rows);
    return cols > max_dimension || rows > max_dimension;
  }
  for (std::size_t at = text.find("dimensions"); at != std::string_view::npos;
       at = text.find("dimensions", at + 1)) {
    std::int64_t value = 0;
    for (std::size_t p = at + 10; p < text.size() && p < at + 64; ++p) {
      const char c = text[p];
      if (c >= '0' && c <= '9') {
        value = value * 10 + (c - '0');
        if (value > max_dimension) return true;
      } else {
        value = 0;
        if (c == '\n') break;
      }
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (declares_large_dimensions(text)) return 0;
  static const opsparse_fuzz::input_file file(".mci");
  const std::string& path = file.write(data, size);
  const io::read_options options;
  const auto m = opsparse_fuzz::attempt(path, "read_mcl_native",
                                        [&] { return io::read_mcl_native(path, options); });
  const auto g = opsparse_fuzz::attempt(path, "read_mcl_native_graph",
                                        [&] { return io::read_mcl_native_graph(path, options); });
  if (g.ok() && !m.ok())
    fail("read_mcl_native_graph read what read_mcl_native refused: " + m.error);
  if (g.ok())
    opsparse_fuzz::check_graph("read_mcl_native_graph", *g.result,
                               [](const std::string&) { return true; });
  if (!m.ok()) return 0;
  const io::mcl_native_matrix& a = *m.result;
  const std::string problem = opsparse::check(a.columns);
  if (!problem.empty()) fail("read_mcl_native: invalid CSR: " + problem);
  if (a.row_ids.size() != static_cast<std::size_t>(a.columns.cols) ||
      a.col_ids.size() != static_cast<std::size_t>(a.columns.rows))
    fail("read_mcl_native: the domains do not match the dimensions");

  // The writer's bytes read back.
  static const opsparse_fuzz::input_file again(".mci");
  std::ostringstream os;
  io::write_mcl_native(os, a.columns, &a.row_ids, &a.col_ids);
  const std::string written = os.str();
  const std::string& path2 =
      again.write(reinterpret_cast<const std::uint8_t*>(written.data()), written.size());
  const auto b = opsparse_fuzz::attempt(path2, "read_mcl_native (written)",
                                        [&] { return io::read_mcl_native(path2, options); });
  if (!b.ok()) fail("what write_mcl_native wrote does not read back: " + b.error);
  if (b.result->row_ids != a.row_ids || b.result->col_ids != a.col_ids)
    fail("the written domains read back differently");
  if (!opsparse_fuzz::same_pattern(b.result->columns, a.columns))
    fail("the written matrix reads back with another pattern");
  for (std::size_t k = 0; k < a.columns.val.size(); ++k) {
    // the float cell, or the double where float's range ends (see write_mcl_native)
    const double v = a.columns.val[k], y = b.result->columns.val[k];
    const double x = std::isfinite(static_cast<float>(v)) ? static_cast<float>(v) : v;
    if (std::isfinite(x) && !(std::fabs(x - y) <= 1e-6 * std::fabs(x)))
      fail("value " + std::to_string(k) + " reads back as " + std::to_string(y) + ", not " +
           std::to_string(x));
  }

  // The binary writer's bytes read back, where its 32-bit ids and float values hold the matrix.
  const auto fits_id = [](std::int64_t id) {
    return id <= std::numeric_limits<std::int32_t>::max();
  };
  for (const auto* ids : {&a.row_ids, &a.col_ids})
    for (const std::int64_t id : *ids)
      if (!fits_id(id)) return 0;
  for (const double v : a.columns.val)
    if (!std::isfinite(static_cast<float>(v))) return 0;
  std::ostringstream bs;
  io::write_mcl_native_binary(bs, a.columns, &a.row_ids, &a.col_ids);
  const std::string bytes = bs.str();
  static const opsparse_fuzz::input_file binary(".mcx");
  const std::string& path3 =
      binary.write(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  const auto c = opsparse_fuzz::attempt(path3, "read_mcl_native (binary)",
                                        [&] { return io::read_mcl_native(path3, options); });
  if (!c.ok()) fail("what write_mcl_native_binary wrote does not read back: " + c.error);
  if (c.result->row_ids != a.row_ids || c.result->col_ids != a.col_ids)
    fail("the binary domains read back differently");
  if (!opsparse_fuzz::same_pattern(c.result->columns, a.columns))
    fail("the binary matrix reads back with another pattern");
  for (std::size_t k = 0; k < a.columns.val.size(); ++k)
    if (static_cast<float>(a.columns.val[k]) != c.result->columns.val[k])
      fail("binary value " + std::to_string(k) + " reads back as " +
           std::to_string(c.result->columns.val[k]));
  return 0;
}
