// libFuzzer target for read_matrix_market (every value type) and read_graph on Matrix Market.
// Nothing but parse_error may escape, and the readings must agree with each other:
//  - a result is a valid CSR, and every value type that reads the file gives the pattern reading's
//    structure (a value type only adds checks on the values, so it fails no later than pattern);
//  - a symmetric file reads as a matrix equal to its transpose, a skew-symmetric one as the
//    negation of its transpose, bit for bit (mirrors are summed in the same order);
//  - read_graph succeeds exactly when the double reading does on a square matrix, with it;
//  - what write_matrix_market writes reads back bit for bit.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"

namespace io = opsparse::io;
using opsparse::host_csr;
using opsparse::index_t;
using opsparse::pattern;
using opsparse_fuzz::fail;

namespace {

/// Rows beyond this are skipped (see declares_many_rows).
constexpr std::int64_t max_rows = std::int64_t(1) << 20;

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// Whether the size line gives more than max_rows rows that the reader accepts. Such a file is
/// well-formed and its reading allocates rows + 1 row offsets (16 GiB for 2^31 - 1 rows), which
/// the reader reports as a parse_error when memory runs out; under ASan an allocation that fails
/// aborts instead, so these inputs are left out rather than reported as crashes. The size line is
/// found as the reader finds it: after the banner line, the first line whose first non-blank byte
/// is neither '%' nor NUL (nor absent).
bool declares_many_rows(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::size_t nl = text.find('\n');
  while (nl != std::string_view::npos) {
    text.remove_prefix(nl + 1);
    nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    std::size_t p = 0;
    while (p < line.size() && blank(line[p])) ++p;
    if (p == line.size() || line[p] == '%' || line[p] == '\0') continue;
    if (line[p] == '+') ++p;
    std::int64_t rows = 0;
    for (; p < line.size() && line[p] >= '0' && line[p] <= '9'; ++p) {
      rows = rows * 10 + (line[p] - '0');
      if (rows > INT32_MAX) return false;  // the reader refuses it before allocating
    }
    return rows > max_rows;
  }
  return false;
}

/// The banner's symmetry word when it is one of the three, else "".
std::string symmetry(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  text = text.substr(0, text.find('\n'));
  std::string word;
  int words = 0;
  for (std::size_t p = 0; p <= text.size(); ++p) {
    if (p < text.size() && !blank(text[p])) {
      word += static_cast<char>(text[p] | 0x20);  // the banner's words are case-insensitive
      continue;
    }
    if (!word.empty() && ++words == 5) return word;
    word.clear();
  }
  return "";
}

/// A transposed copy, negated when `negate`.
template <class V>
host_csr<V> mirror(const host_csr<V>& m, bool negate) {
  host_csr<V> t = opsparse::transpose(m);
  if constexpr (opsparse::has_values_v<V>)
    if (negate)
      for (V& v : t.val) v = -v;
  return t;
}

/// Reads with value type V and checks the result against the pattern reading. A pattern reading
/// is checked by itself (pattern_reading is then null). `type` names V in the messages.
template <class V>
opsparse_fuzz::outcome<host_csr<V>> read_as(
    const std::string& path, const char* type, const std::string& sym,
    const opsparse_fuzz::outcome<host_csr<pattern>>* pattern_reading) {
  const std::string who = std::string("read_matrix_market<") + type + ">";
  auto out = opsparse_fuzz::attempt(path, who, [&] { return io::read_matrix_market<V>(path); });
  if (!out.ok()) {
    // The value types check a superset of what pattern checks, so they fail no later.
    if (pattern_reading && pattern_reading->ok() == false && pattern_reading->line > 0 &&
        (out.line == 0 || out.line > pattern_reading->line))
      fail(who + " failed at line " + std::to_string(out.line) + " ('" + out.error +
           "'), after the pattern reading's error '" + pattern_reading->error + "'");
    return out;
  }
  const host_csr<V>& m = *out.result;
  const std::string problem = opsparse::check(m);
  if (!problem.empty()) fail(who + ": invalid CSR: " + problem);
  if (pattern_reading) {
    if (!pattern_reading->ok())
      fail(who + " read the file, the pattern reading failed: " + pattern_reading->error);
    if (!opsparse_fuzz::same_pattern(m, *pattern_reading->result))
      fail(who + ": the structure differs from the pattern reading");
  }
  if ((sym == "symmetric" || sym == "skew-symmetric") &&
      !opsparse_fuzz::same_matrix(m, mirror(m, sym == "skew-symmetric")))
    fail(who + ": a " + sym + " file read as a matrix that is not " + sym);

  // What the writer writes reads back exactly.
  std::ostringstream text;
  io::write_matrix_market(text, m);
  static const opsparse_fuzz::input_file copy(".roundtrip.mtx");
  const std::string& s = text.str();
  const std::string& copy_path =
      copy.write(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  const auto back = opsparse_fuzz::attempt(copy_path, who + " of the written copy",
                                           [&] { return io::read_matrix_market<V>(copy_path); });
  if (!back.ok()) fail(who + ": the written copy does not read back: " + back.error);
  if (!opsparse_fuzz::same_matrix(*back.result, m))
    fail(who + ": the written copy reads back as a different matrix");
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (declares_many_rows(text)) return -1;  // keep it out of the corpus
  static const opsparse_fuzz::input_file file(".mtx");
  const std::string& path = file.write(data, size);
  const std::string sym = symmetry(text);

  const auto pat = read_as<pattern>(path, "pattern", sym, nullptr);
  const auto dbl = read_as<double>(path, "double", sym, &pat);
  read_as<float>(path, "float", sym, &pat);
  read_as<std::int32_t>(path, "int32", sym, &pat);
  read_as<std::int64_t>(path, "int64", sym, &pat);

  const auto graph = opsparse_fuzz::attempt(path, "read_graph(matrix_market)", [&] {
    return io::read_graph(path, io::file_format::matrix_market);
  });
  const bool square = dbl.ok() && dbl.result->rows == dbl.result->cols;
  if (graph.ok() != square)
    fail("read_graph(matrix_market) gave " + graph.describe() + ", read_matrix_market<double> " +
         (dbl.ok() ? "a " + std::to_string(dbl.result->rows) + " x " +
                         std::to_string(dbl.result->cols) + " matrix"
                   : dbl.describe()));
  if (graph.ok()) {
    if (!opsparse_fuzz::same_matrix(graph.result->adj, *dbl.result))
      fail("read_graph(matrix_market): the adjacency differs from read_matrix_market<double>");
    const auto& labels = graph.result->labels;
    if (labels.size() != static_cast<std::size_t>(graph.result->adj.rows))
      fail("read_graph(matrix_market): the label count differs from n");
    for (std::size_t i = 0; i < labels.size(); ++i)
      if (labels[i] != std::to_string(i + 1))
        fail("read_graph(matrix_market): vertex " + std::to_string(i) + " is labelled '" +
             labels[i] + "', not its 1-based row number");
  }
  return 0;
}
