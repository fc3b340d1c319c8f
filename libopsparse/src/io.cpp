// Readers and writers for Matrix Market, SNAP edge lists and ABC files (see opsparse/io.hpp).
//
// Every reader loads the whole file into memory once and walks it line by line with
// std::from_chars: no iostream extraction per token, so a 100 MB file parses in about a second.
// Every problem is reported as opsparse::parse_error(file, line, what); no reader returns a partial
// matrix. Entries are collected as (row, col, value) triples and assembled into sorted CSR by one
// counting sort on rows plus a stable sort within each row, so duplicates combine in file order
// (deterministic floating-point sums).
#include "opsparse/io.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <functional>
#include <utility>
#include <vector>

#include <sys/stat.h>

namespace opsparse::io {
namespace {

// ------------------------------------------------------------------------------------------------
// Low-level text helpers
// ------------------------------------------------------------------------------------------------

// '\r' counts as blank so that CRLF files (p2p-Gnutella31, wiki-Vote) read like LF files.
inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// Quotes a token for an error message: at most 40 characters, control bytes escaped, so that a
/// corrupted binary file still gives a readable one-line message.
std::string quote(std::string_view s) {
  std::string out = "'";
  const std::size_t limit = 40;
  for (std::size_t i = 0; i < s.size() && i < limit; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > limit) out += "...";
  out += "'";
  return out;
}

/// The whole file in memory, or parse_error(path, 0, ...) when it cannot be opened or read.
std::string slurp(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    throw parse_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw parse_error(path, 0, "cannot read file: it is a directory");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw parse_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  std::string data;
  if (S_ISREG(info.st_mode) && info.st_size > 0) data.reserve(static_cast<std::size_t>(info.st_size));
  char buf[1 << 16];
  for (;;) {
    const std::size_t got = std::fread(buf, 1, sizeof buf, f);
    data.append(buf, got);
    if (got < sizeof buf) break;
  }
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) throw parse_error(path, 0, std::string("cannot read file: ") + std::strerror(err));
  return data;
}

/// Walks a buffer line by line; line numbers are 1-based. A UTF-8 byte-order mark at the start
/// is skipped since some Windows tools write one.
class line_reader {
 public:
  explicit line_reader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {
    if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) p_ += 3;
  }
  bool next(std::string_view& line) {
    if (p_ >= end_) return false;
    const char* nl = static_cast<const char*>(std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_)));
    const char* stop = nl ? nl : end_;
    line = std::string_view(p_, static_cast<std::size_t>(stop - p_));
    p_ = nl ? nl + 1 : end_;
    ++line_no_;
    return true;
  }
  long long line_no() const { return line_no_; }
  /// Where a missing line would have been: one past the last line read.
  long long eof_line() const { return line_no_ + 1; }
  std::size_t bytes_left() const { return static_cast<std::size_t>(end_ - p_); }

 private:
  const char* p_;
  const char* end_;
  long long line_no_ = 0;
};

/// Splits one line on runs of blanks.
class tokenizer {
 public:
  explicit tokenizer(std::string_view line) : p_(line.data()), end_(line.data() + line.size()) {}
  bool next(std::string_view& tok) {
    while (p_ < end_ && is_blank(*p_)) ++p_;
    if (p_ == end_) return false;
    const char* start = p_;
    while (p_ < end_ && !is_blank(*p_)) ++p_;
    tok = std::string_view(start, static_cast<std::size_t>(p_ - start));
    return true;
  }
  /// The rest of the line from the next token on (for "trailing garbage" messages).
  std::string_view rest() {
    while (p_ < end_ && is_blank(*p_)) ++p_;
    return std::string_view(p_, static_cast<std::size_t>(end_ - p_));
  }

 private:
  const char* p_;
  const char* end_;
};

/// First non-blank character of a line, or '\0' for a blank line.
char first_char(std::string_view line) {
  for (char c : line)
    if (!is_blank(c)) return c;
  return '\0';
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

enum class num_status { ok, bad, out_of_range };

/// Whole-token integer; a leading '+' is accepted (from_chars alone rejects it).
num_status parse_int64(std::string_view tok, std::int64_t& out) {
  if (tok.size() > 1 && tok[0] == '+' && tok[1] != '-' && tok[1] != '+') tok.remove_prefix(1);
  const char* end = tok.data() + tok.size();
  const auto res = std::from_chars(tok.data(), end, out);
  if (res.ptr != end || tok.empty()) return num_status::bad;
  if (res.ec == std::errc::result_out_of_range) return num_status::out_of_range;
  if (res.ec != std::errc()) return num_status::bad;
  return num_status::ok;
}

/// Whole-token floating-point number (accepts "nan"/"inf" so that the caller can say so).
num_status parse_double(std::string_view tok, double& out) {
  if (tok.size() > 1 && tok[0] == '+' && tok[1] != '-' && tok[1] != '+') tok.remove_prefix(1);
  if (tok.empty()) return num_status::bad;
  const char* end = tok.data() + tok.size();
  const auto res = std::from_chars(tok.data(), end, out, std::chars_format::general);
  if (res.ptr != end) return num_status::bad;
  if (res.ec == std::errc::result_out_of_range) {
    // from_chars also reports underflow (1e-320) as out of range; strtod gives the denormal or
    // zero, which is a fine value. Only overflow is an error.
    const std::string copy(tok);
    errno = 0;
    const double v = std::strtod(copy.c_str(), nullptr);
    if (!std::isfinite(v)) return num_status::out_of_range;
    out = v;
    return num_status::ok;
  }
  if (res.ec != std::errc()) return num_status::bad;
  return num_status::ok;
}

template <class V>
const char* type_name() {
  if constexpr (std::is_same_v<V, double>) return "double";
  else if constexpr (std::is_same_v<V, float>) return "float";
  else if constexpr (std::is_same_v<V, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<V, std::int64_t>) return "int64";
  else return "pattern";
}

// ------------------------------------------------------------------------------------------------
// Triples -> sorted CSR
// ------------------------------------------------------------------------------------------------

/// Entries gathered by a reader, in file order.
template <class V>
struct triples {
  std::vector<index_t> row, col;
  std::vector<V> val;  // empty when V is pattern
  void reserve(std::size_t n) {
    row.reserve(n);
    col.reserve(n);
    if constexpr (has_values_v<V>) val.reserve(n);
  }
  void push(index_t i, index_t j, [[maybe_unused]] V v) {
    row.push_back(i);
    col.push_back(j);
    if constexpr (has_values_v<V>) val.push_back(v);
  }
};

/// Sum for Matrix Market duplicates; false when the sum leaves the value type's range.
template <class V>
bool combine_sum(V& acc, V x) {
  if constexpr (!has_values_v<V>) {
    return true;
  } else if constexpr (std::is_integral_v<V>) {
    return !__builtin_add_overflow(acc, x, &acc);
  } else {
    acc += x;
    return std::isfinite(acc);
  }
}

/// Maximum for edge-list and ABC duplicates (never fails).
inline bool combine_max(double& acc, double x) {
  if (x > acc) acc = x;
  return true;
}

/// Builds sorted, duplicate-free CSR. Duplicates are combined in file order with `combine`; when
/// it fails the error names the entry (1-based) since the lines are no longer known.
template <class V, class Combine>
host_csr<V> assemble(const std::string& path, index_t rows, index_t cols, triples<V>& t,
                     Combine combine, const char* combine_what) {
  host_csr<V> m(rows, cols);
  const std::size_t n = t.row.size();
  for (std::size_t k = 0; k < n; ++k) ++m.rpt[static_cast<std::size_t>(t.row[k]) + 1];
  for (index_t i = 0; i < rows; ++i) m.rpt[i + 1] += m.rpt[i];

  // Counting sort on rows keeps file order within each row.
  std::vector<index_t> col(n);
  std::vector<V> val;
  if constexpr (has_values_v<V>) val.resize(n);
  {
    std::vector<offset_t> next(m.rpt.begin(), m.rpt.end() - 1);
    for (std::size_t k = 0; k < n; ++k) {
      const offset_t dst = next[t.row[k]]++;
      col[dst] = t.col[k];
      if constexpr (has_values_v<V>) val[dst] = t.val[k];
    }
  }
  // The triples are no longer needed; free them before the output grows.
  t = triples<V>();

  std::vector<std::size_t> perm;
  std::vector<index_t> sorted_col;
  std::vector<V> sorted_val;
  offset_t out = 0;
  offset_t begin = 0;
  for (index_t i = 0; i < rows; ++i) {
    const offset_t end = m.rpt[i + 1];
    bool sorted = true;
    for (offset_t k = begin + 1; k < end && sorted; ++k) sorted = col[k - 1] < col[k];
    if (!sorted) {
      // stable_sort keeps duplicates in file order, so sums do not depend on the sort.
      perm.resize(static_cast<std::size_t>(end - begin));
      for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<std::size_t>(begin) + k;
      std::stable_sort(perm.begin(), perm.end(),
                       [&](std::size_t a, std::size_t b) { return col[a] < col[b]; });
      sorted_col.resize(perm.size());
      for (std::size_t k = 0; k < perm.size(); ++k) sorted_col[k] = col[perm[k]];
      std::copy(sorted_col.begin(), sorted_col.end(), col.begin() + begin);
      if constexpr (has_values_v<V>) {
        sorted_val.resize(perm.size());
        for (std::size_t k = 0; k < perm.size(); ++k) sorted_val[k] = val[perm[k]];
        std::copy(sorted_val.begin(), sorted_val.end(), val.begin() + begin);
      }
    }
    // Compact in place: `out` never passes `k`.
    const offset_t row_start = out;
    for (offset_t k = begin; k < end; ++k) {
      if (out > row_start && col[out - 1] == col[k]) {
        if constexpr (has_values_v<V>) {
          if (!combine(val[out - 1], val[k]))
            throw parse_error(path, 0,
                              std::string("duplicate entries of (") + std::to_string(i + 1) +
                                  ", " + std::to_string(col[k] + 1) + ") " + combine_what +
                                  " outside the range of " + type_name<V>());
        }
        continue;
      }
      col[out] = col[k];
      if constexpr (has_values_v<V>) val[out] = val[k];
      ++out;
    }
    begin = end;
    m.rpt[i + 1] = out;
  }
  col.resize(static_cast<std::size_t>(out));
  col.shrink_to_fit();
  m.col = std::move(col);
  if constexpr (has_values_v<V>) {
    val.resize(static_cast<std::size_t>(out));
    val.shrink_to_fit();
    m.val = std::move(val);
  }
  return m;
}

// ------------------------------------------------------------------------------------------------
// Matrix Market
// ------------------------------------------------------------------------------------------------

enum class mm_field { real, integer, pattern };
enum class mm_symmetry { general, symmetric, skew };

/// One value field of a Matrix Market entry converted to V, or a parse_error naming the line.
template <class V>
V mm_value(const std::string& path, long long line, std::string_view tok, mm_field field) {
  if (field == mm_field::integer) {
    std::int64_t x = 0;
    const num_status st = parse_int64(tok, x);
    if (st == num_status::bad)
      throw parse_error(path, line, "expected an integer value, found " + quote(tok));
    if (st == num_status::out_of_range)
      throw parse_error(path, line, "integer value " + quote(tok) + " does not fit in int64");
    if constexpr (std::is_same_v<V, std::int32_t>) {
      if (x < std::numeric_limits<std::int32_t>::min() || x > std::numeric_limits<std::int32_t>::max())
        throw parse_error(path, line, "integer value " + quote(tok) + " does not fit in int32");
    }
    if constexpr (has_values_v<V>) return static_cast<V>(x);
    else return V{};
  }
  double x = 0;
  const num_status st = parse_double(tok, x);
  if (st == num_status::bad)
    throw parse_error(path, line, "expected a real value, found " + quote(tok));
  if (st == num_status::out_of_range)
    throw parse_error(path, line, "value " + quote(tok) + " overflows double");
  if (!std::isfinite(x))
    throw parse_error(path, line, "value " + quote(tok) + " is not finite (NaN or infinity)");
  if constexpr (std::is_same_v<V, float>) {
    // Values just above FLT_MAX still round to it (the shortest text of FLT_MAX, 3.4028235e38,
    // is one of them); only those that would round to infinity are refused.
    const double flt_max = static_cast<double>(std::numeric_limits<float>::max());
    if (std::fabs(x) > flt_max) {
      const double round_limit = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
      if (std::fabs(x) >= round_limit)
        throw parse_error(path, line, "value " + quote(tok) + " does not fit in float");
      return static_cast<float>(std::copysign(flt_max, x));
    }
    return static_cast<float>(x);
  } else if constexpr (std::is_integral_v<V>) {
    // Reading a real file into an integer matrix is only exact for integral values; anything
    // else would be silently rounded, so it is refused.
    const double lo = static_cast<double>(std::numeric_limits<V>::min());
    const double hi = -lo;  // 2^31 or 2^63, exactly representable
    if (x != std::trunc(x) || x < lo || x >= hi)
      throw parse_error(path, line,
                        "value " + quote(tok) + " is not an integer that fits in " + type_name<V>());
    return static_cast<V>(x);
  } else if constexpr (has_values_v<V>) {
    return x;
  } else {
    return V{};
  }
}

/// Negation for skew-symmetric mirrors; the one integer that has no negation is an error.
template <class V>
V mm_negate(const std::string& path, long long line, V v) {
  if constexpr (std::is_integral_v<V>) {
    if (v == std::numeric_limits<V>::min())
      throw parse_error(path, line, std::string("value cannot be negated in ") + type_name<V>() +
                                        " for the skew-symmetric mirror");
    return -v;
  } else if constexpr (has_values_v<V>) {
    return -v;
  } else {
    return v;
  }
}

/// A row or column index of an entry, converted to 0-based.
index_t mm_index(const std::string& path, long long line, std::string_view tok, index_t limit,
                 const char* what) {
  std::int64_t x = 0;
  const num_status st = parse_int64(tok, x);
  if (st == num_status::bad)
    throw parse_error(path, line, std::string("expected an integer ") + what + " index, found " +
                                      quote(tok));
  if (st == num_status::out_of_range || x < 1 || x > limit)
    throw parse_error(path, line, std::string(what) + " index " + quote(tok) +
                                      " out of range [1, " + std::to_string(limit) + "]");
  return static_cast<index_t>(x - 1);
}

/// A dimension of the size line: 0 .. INT32_MAX since rows and columns are index_t.
index_t mm_dimension(const std::string& path, long long line, std::string_view tok,
                     const char* what) {
  std::int64_t x = 0;
  const num_status st = parse_int64(tok, x);
  if (st == num_status::bad)
    throw parse_error(path, line, std::string("size line: expected an integer number of ") + what +
                                      ", found " + quote(tok));
  if (st == num_status::out_of_range || x > std::numeric_limits<index_t>::max())
    throw parse_error(path, line, std::string("size line: ") + what + " " + quote(tok) +
                                      " exceeds the largest supported size " +
                                      std::to_string(std::numeric_limits<index_t>::max()) +
                                      " (indices are 32-bit)");
  if (x < 0)
    throw parse_error(path, line, std::string("size line: negative number of ") + what + " " +
                                      quote(tok));
  return static_cast<index_t>(x);
}

template <class V>
host_csr<V> read_mm_impl(const std::string& path, bool require_square) {
  const std::string data = slurp(path);
  if (data.empty()) throw parse_error(path, 0, "file is empty (expected a %%MatrixMarket banner)");
  line_reader lines(data);
  std::string_view line;

  // Banner: %%MatrixMarket matrix coordinate <field> <symmetry>, words case-insensitive.
  lines.next(line);
  const long long banner_line = lines.line_no();
  tokenizer bt(line);
  std::string_view words[5];
  int nwords = 0;
  for (std::string_view tok; nwords < 5 && bt.next(tok);) words[nwords++] = tok;
  if (nwords == 0 || !iequals(words[0], "%%MatrixMarket"))
    throw parse_error(path, banner_line,
                      "missing banner: the first line must start with '%%MatrixMarket', found " +
                          quote(line));
  if (nwords < 5)
    throw parse_error(path, banner_line,
                      "incomplete banner: expected '%%MatrixMarket matrix coordinate <field> "
                      "<symmetry>', found " + quote(line));
  if (!iequals(words[1], "matrix"))
    throw parse_error(path, banner_line,
                      "unsupported object " + quote(words[1]) + " in banner (expected 'matrix')");
  if (iequals(words[2], "array"))
    throw parse_error(path, banner_line,
                      "dense 'array' Matrix Market files are not supported (only 'coordinate')");
  if (!iequals(words[2], "coordinate"))
    throw parse_error(path, banner_line,
                      "unsupported format " + quote(words[2]) + " in banner (expected 'coordinate')");
  mm_field field;
  if (iequals(words[3], "real")) field = mm_field::real;
  else if (iequals(words[3], "integer")) field = mm_field::integer;
  else if (iequals(words[3], "pattern")) field = mm_field::pattern;
  else if (iequals(words[3], "complex"))
    throw parse_error(path, banner_line, "'complex' Matrix Market files are not supported");
  else
    throw parse_error(path, banner_line,
                      "unsupported field " + quote(words[3]) +
                          " in banner (expected 'real', 'integer' or 'pattern')");
  mm_symmetry sym;
  if (iequals(words[4], "general")) sym = mm_symmetry::general;
  else if (iequals(words[4], "symmetric")) sym = mm_symmetry::symmetric;
  else if (iequals(words[4], "skew-symmetric")) sym = mm_symmetry::skew;
  else if (iequals(words[4], "hermitian"))
    throw parse_error(path, banner_line,
                      "'hermitian' Matrix Market files are not supported (complex only)");
  else
    throw parse_error(path, banner_line,
                      "unsupported symmetry " + quote(words[4]) +
                          " in banner (expected 'general', 'symmetric' or 'skew-symmetric')");
  if (const std::string_view extra = bt.rest(); !extra.empty())
    throw parse_error(path, banner_line, "unexpected text after the banner: " + quote(extra));
  if (field == mm_field::pattern && sym == mm_symmetry::skew)
    throw parse_error(path, banner_line,
                      "a 'pattern' matrix cannot be 'skew-symmetric' (no values to negate)");

  // Size line, after comments and blank lines.
  bool have_size = false;
  while (lines.next(line)) {
    const char c = first_char(line);
    if (c == '\0' || c == '%') continue;
    have_size = true;
    break;
  }
  if (!have_size)
    throw parse_error(path, lines.eof_line(),
                      "unexpected end of file: missing the size line 'rows cols entries'");
  const long long size_line = lines.line_no();
  tokenizer st(line);
  std::string_view stok[3];
  int nsize = 0;
  for (std::string_view tok; nsize < 3 && st.next(tok);) stok[nsize++] = tok;
  if (nsize < 3)
    throw parse_error(path, size_line,
                      "bad size line: expected 'rows cols entries', found " + quote(line));
  const index_t rows = mm_dimension(path, size_line, stok[0], "rows");
  const index_t cols = mm_dimension(path, size_line, stok[1], "columns");
  std::int64_t nnz = 0;
  {
    const num_status ns = parse_int64(stok[2], nnz);
    if (ns == num_status::bad)
      throw parse_error(path, size_line,
                        "size line: expected an integer number of entries, found " + quote(stok[2]));
    if (ns == num_status::out_of_range || nnz < 0)
      throw parse_error(path, size_line,
                        "size line: number of entries " + quote(stok[2]) + " out of range");
  }
  if (const std::string_view extra = st.rest(); !extra.empty())
    throw parse_error(path, size_line, "unexpected text after the size line: " + quote(extra));
  if (sym != mm_symmetry::general && rows != cols)
    throw parse_error(path, size_line,
                      "a symmetric or skew-symmetric matrix must be square, size line says " +
                          std::to_string(rows) + " x " + std::to_string(cols));
  if (require_square && rows != cols)
    throw parse_error(path, size_line,
                      "a graph needs a square matrix, size line says " + std::to_string(rows) +
                          " x " + std::to_string(cols));
  if (nnz > 0 && (rows == 0 || cols == 0))
    throw parse_error(path, size_line,
                      "size line announces " + std::to_string(nnz) + " entries in an empty " +
                          std::to_string(rows) + " x " + std::to_string(cols) + " matrix");

  // Every entry takes at least 4 bytes ("1 1\n"), so a corrupted count cannot make us reserve
  // more than the file could hold.
  triples<V> t;
  {
    const std::uint64_t bound = lines.bytes_left() / 4 + 1;
    const std::uint64_t want = std::min<std::uint64_t>(static_cast<std::uint64_t>(nnz), bound);
    t.reserve(static_cast<std::size_t>(sym == mm_symmetry::general ? want : 2 * want));
  }

  const int want_tokens = field == mm_field::pattern ? 2 : 3;
  std::int64_t seen = 0;
  while (lines.next(line)) {
    const char c = first_char(line);
    if (c == '\0' || c == '%') continue;
    const long long ln = lines.line_no();
    if (seen == nnz)
      throw parse_error(path, ln,
                        "more entries than the " + std::to_string(nnz) +
                            " announced on the size line (line " + std::to_string(size_line) + ")");
    tokenizer et(line);
    std::string_view tok[3];
    int ntok = 0;
    for (std::string_view x; ntok < want_tokens && et.next(x);) tok[ntok++] = x;
    if (ntok < want_tokens)
      throw parse_error(path, ln,
                        std::string("expected ") +
                            (field == mm_field::pattern ? "'row col'" : "'row col value'") +
                            ", found " + quote(line));
    const index_t i = mm_index(path, ln, tok[0], rows, "row");
    const index_t j = mm_index(path, ln, tok[1], cols, "column");
    V v{};
    if (field == mm_field::pattern) {
      if constexpr (has_values_v<V>) v = V(1);
    } else {
      v = mm_value<V>(path, ln, tok[2], field);
    }
    if (const std::string_view extra = et.rest(); !extra.empty())
      throw parse_error(path, ln, "unexpected text after the entry: " + quote(extra));
    if (sym == mm_symmetry::skew && i == j)
      throw parse_error(path, ln,
                        "diagonal entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                            ") in a skew-symmetric matrix (its diagonal is zero by definition)");
    t.push(i, j, v);
    if (i != j) {
      if (sym == mm_symmetry::symmetric) t.push(j, i, v);
      else if (sym == mm_symmetry::skew) t.push(j, i, mm_negate(path, ln, v));
    }
    ++seen;
  }
  if (seen < nnz)
    throw parse_error(path, lines.eof_line(),
                      "unexpected end of file: the size line (line " + std::to_string(size_line) +
                          ") announces " + std::to_string(nnz) + " entries, found " +
                          std::to_string(seen));
  // A pattern entry only says "present": its duplicates stay 1 rather than summing to 2.
  if (field == mm_field::pattern)
    return assemble(path, rows, cols, t, [](V&, V) { return true; }, "");
  return assemble(path, rows, cols, t, combine_sum<V>, "sum to a value");
}

// ------------------------------------------------------------------------------------------------
// Edge lists and ABC
// ------------------------------------------------------------------------------------------------

double edge_weight(const std::string& path, long long line, std::string_view tok) {
  double w = 0;
  const num_status st = parse_double(tok, w);
  if (st == num_status::bad)
    throw parse_error(path, line, "expected a numeric weight, found " + quote(tok));
  if (st == num_status::out_of_range)
    throw parse_error(path, line, "weight " + quote(tok) + " overflows double");
  if (!std::isfinite(w))
    throw parse_error(path, line, "weight " + quote(tok) + " is not finite (NaN or infinity)");
  return w;
}

/// Numbers vertex keys (64-bit ids or label views) by first appearance. Open addressing with
/// linear probing in one flat array: std::unordered_map allocates a node per vertex and spent
/// most of the time of a 100 MB edge list on cache misses.
template <class Key>
class vertex_numbering {
 public:
  vertex_numbering() : slots_(1024) {}

  /// The number of `key`, giving it the next number (and building its label) when it is new.
  template <class MakeLabel>
  index_t find_or_add(const std::string& path, long long line, const Key& key,
                      std::vector<std::string>& labels, MakeLabel make_label) {
    std::size_t mask = slots_.size() - 1;
    std::size_t at = hash(key) & mask;
    while (slots_[at].id >= 0) {
      if (slots_[at].key == key) return slots_[at].id;
      at = (at + 1) & mask;
    }
    if (labels.size() >= static_cast<std::size_t>(std::numeric_limits<index_t>::max()))
      throw parse_error(path, line,
                        "more than " + std::to_string(std::numeric_limits<index_t>::max()) +
                            " distinct vertices: vertex numbers must fit in 32 bits");
    const index_t id = static_cast<index_t>(labels.size());
    labels.push_back(make_label());
    slots_[at] = slot{key, id};
    // Keep the load at most 1/2 so that probe runs stay short.
    if (++count_ * 2 > slots_.size()) grow();
    return id;
  }

 private:
  struct slot {
    Key key{};
    index_t id = -1;
  };

  static std::size_t hash(const Key& key) {
    std::uint64_t h;
    if constexpr (std::is_same_v<Key, std::int64_t>) h = static_cast<std::uint64_t>(key);
    else h = std::hash<Key>{}(key);
    // splitmix64 finaliser: consecutive ids must not land in consecutive slots.
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return static_cast<std::size_t>(h);
  }

  void grow() {
    std::vector<slot> old(slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const slot& s : old) {
      if (s.id < 0) continue;
      std::size_t at = hash(s.key) & mask;
      while (slots_[at].id >= 0) at = (at + 1) & mask;
      slots_[at] = s;
    }
  }

  std::vector<slot> slots_;
  std::size_t count_ = 0;
};

labelled_graph finish_graph(const std::string& path, const line_reader& lines, triples<double>& t,
                            std::vector<std::string> labels) {
  if (t.row.empty())
    throw parse_error(path, 0,
                      "no edges found (" + std::to_string(lines.line_no()) +
                          " lines, all blank or comments)");
  const index_t n = static_cast<index_t>(labels.size());
  labelled_graph g;
  g.adj = assemble(path, n, n, t, combine_max, "");
  g.labels = std::move(labels);
  return g;
}

/// Catches allocation failures (a huge but well-formed size line) and reports them as a parse
/// error on the file instead of letting std::bad_alloc escape a reader.
template <class F>
auto guard_memory(const std::string& path, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw parse_error(path, 0, "not enough memory to hold the matrix this file describes");
  } catch (const std::length_error&) {
    throw parse_error(path, 0, "the matrix this file describes is too large to hold in memory");
  }
}

std::string lower_extension(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

/// Values in shortest round-trip form (to_chars without precision), integers exactly.
template <class V>
void append_value(std::string& out, V v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

template <class V>
const char* mm_field_name() {
  if constexpr (!has_values_v<V>) return "pattern";
  else if constexpr (std::is_integral_v<V>) return "integer";
  else return "real";
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Public API
// ------------------------------------------------------------------------------------------------

template <class V>
host_csr<V> read_matrix_market(const std::string& path) {
  return guard_memory(path, [&] { return read_mm_impl<V>(path, false); });
}

template <class V>
void write_matrix_market(std::ostream& os, const host_csr<V>& m) {
  validate(m);
  std::string buf;
  buf.reserve(1 << 20);
  buf += "%%MatrixMarket matrix coordinate ";
  buf += mm_field_name<V>();
  buf += " general\n";
  append_value(buf, static_cast<long long>(m.rows));
  buf += ' ';
  append_value(buf, static_cast<long long>(m.cols));
  buf += ' ';
  append_value(buf, static_cast<long long>(m.nnz()));
  buf += '\n';
  for (index_t i = 0; i < m.rows; ++i) {
    for (offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k) {
      append_value(buf, static_cast<long long>(i) + 1);
      buf += ' ';
      append_value(buf, static_cast<long long>(m.col[k]) + 1);
      if constexpr (has_values_v<V>) {
        buf += ' ';
        append_value(buf, m.val[k]);
      }
      buf += '\n';
    }
    if (buf.size() > (1u << 20) - 256) {
      os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  if (!os) throw std::runtime_error("write_matrix_market: writing to the stream failed");
}

template <class V>
void write_matrix_market(const std::string& path, const host_csr<V>& m) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  if (!os)
    throw std::runtime_error("write_matrix_market: cannot open " + path + " for writing: " +
                             std::strerror(errno));
  write_matrix_market(os, m);
  os.close();
  if (!os) throw std::runtime_error("write_matrix_market: writing " + path + " failed");
}

labelled_graph read_edge_list(const std::string& path) {
  return guard_memory(path, [&] {
    const std::string data = slurp(path);
    if (data.empty()) throw parse_error(path, 0, "file is empty (expected 'u v [w]' lines)");
    line_reader lines(data);
    vertex_numbering<std::int64_t> ids;
    std::vector<std::string> labels;
    triples<double> t;
    t.reserve(data.size() / 8);
    std::string_view line;
    while (lines.next(line)) {
      const char c = first_char(line);
      if (c == '\0' || c == '#') continue;
      const long long ln = lines.line_no();
      tokenizer tk(line);
      std::string_view tok[3];
      int ntok = 0;
      for (std::string_view x; ntok < 3 && tk.next(x);) tok[ntok++] = x;
      if (ntok < 2) throw parse_error(path, ln, "expected 'u v [w]', found " + quote(line));
      index_t ends[2];
      for (int e = 0; e < 2; ++e) {
        std::int64_t id = 0;
        const num_status st = parse_int64(tok[e], id);
        if (st == num_status::bad)
          throw parse_error(path, ln, "expected an integer vertex id, found " + quote(tok[e]));
        if (st == num_status::out_of_range)
          throw parse_error(path, ln, "vertex id " + quote(tok[e]) + " does not fit in 64 bits");
        // Canonical decimal label: "007" and "7" are the same integer id, hence one vertex.
        ends[e] = ids.find_or_add(path, ln, id, labels, [id] { return std::to_string(id); });
      }
      const double w = ntok == 3 ? edge_weight(path, ln, tok[2]) : 1.0;
      if (const std::string_view extra = tk.rest(); !extra.empty())
        throw parse_error(path, ln, "unexpected text after 'u v [w]': " + quote(extra));
      t.push(ends[0], ends[1], w);
    }
    return finish_graph(path, lines, t, std::move(labels));
  });
}

labelled_graph read_abc(const std::string& path) {
  return guard_memory(path, [&] {
    const std::string data = slurp(path);
    if (data.empty()) throw parse_error(path, 0, "file is empty (expected 'a<TAB>b[<TAB>w]' lines)");
    line_reader lines(data);
    // Keys view into `data`, which outlives the map.
    vertex_numbering<std::string_view> ids;
    std::vector<std::string> labels;
    triples<double> t;
    t.reserve(data.size() / 16);
    std::string_view line;
    while (lines.next(line)) {
      // mcl has no comment syntax; '#' lines are skipped anyway since a header line is far more
      // likely than a label that starts with '#'.
      const char c = first_char(line);
      if (c == '\0' || c == '#') continue;
      const long long ln = lines.line_no();
      tokenizer tk(line);
      std::string_view tok[3];
      int ntok = 0;
      for (std::string_view x; ntok < 3 && tk.next(x);) tok[ntok++] = x;
      if (ntok < 2)
        throw parse_error(path, ln, "expected 'label<TAB>label[<TAB>weight]', found " + quote(line));
      const std::string_view la = tok[0], lb = tok[1];
      const index_t a = ids.find_or_add(path, ln, la, labels, [la] { return std::string(la); });
      const index_t b = ids.find_or_add(path, ln, lb, labels, [lb] { return std::string(lb); });
      const double w = ntok == 3 ? edge_weight(path, ln, tok[2]) : 1.0;
      if (const std::string_view extra = tk.rest(); !extra.empty())
        throw parse_error(path, ln, "unexpected text after 'label label [weight]': " + quote(extra));
      t.push(a, b, w);
    }
    return finish_graph(path, lines, t, std::move(labels));
  });
}

labelled_graph read_graph(const std::string& path, file_format format) {
  if (format == file_format::automatic) {
    const std::string ext = lower_extension(path);
    format = ext == ".mtx"   ? file_format::matrix_market
             : ext == ".abc" ? file_format::abc
                             : file_format::edge_list;
  }
  switch (format) {
    case file_format::abc: return read_abc(path);
    case file_format::edge_list: return read_edge_list(path);
    case file_format::matrix_market:
    case file_format::automatic: break;
  }
  return guard_memory(path, [&] {
    labelled_graph g;
    g.adj = read_mm_impl<double>(path, true);
    g.labels.reserve(static_cast<std::size_t>(g.adj.rows));
    for (index_t i = 0; i < g.adj.rows; ++i) g.labels.push_back(std::to_string(i + 1));
    return g;
  });
}

host_csr<double> symmetrize_max(const host_csr<double>& a) {
  OPSPARSE_EXPECTS(a.rows == a.cols, "symmetrize_max needs a square matrix");
  validate(a);
  const host_csr<double> t = transpose(a);
  host_csr<double> s(a.rows, a.cols);
  s.col.reserve(a.col.size() * 2);
  s.val.reserve(a.col.size() * 2);
  // Row-wise merge of A and A^T. An entry present on one side only keeps its own value (an
  // absent entry is not a zero, which matters for negative weights).
  for (index_t i = 0; i < a.rows; ++i) {
    offset_t p = a.rpt[i], q = t.rpt[i];
    const offset_t pe = a.rpt[i + 1], qe = t.rpt[i + 1];
    while (p < pe || q < qe) {
      if (q == qe || (p < pe && a.col[p] < t.col[q])) {
        s.col.push_back(a.col[p]);
        s.val.push_back(a.val[p++]);
      } else if (p == pe || t.col[q] < a.col[p]) {
        s.col.push_back(t.col[q]);
        s.val.push_back(t.val[q++]);
      } else {
        s.col.push_back(a.col[p]);
        s.val.push_back(std::max(a.val[p++], t.val[q++]));
      }
    }
    s.rpt[i + 1] = static_cast<offset_t>(s.col.size());
  }
  return s;
}

void write_labelled_groups(std::ostream& os, const std::vector<std::vector<index_t>>& groups,
                           const std::vector<std::string>& labels) {
  std::string buf;
  for (const auto& group : groups) {
    for (std::size_t k = 0; k < group.size(); ++k) {
      const index_t v = group[k];
      OPSPARSE_EXPECTS(v >= 0 && static_cast<std::size_t>(v) < labels.size(),
                       "write_labelled_groups: vertex " + std::to_string(v) + " has no label");
      if (k) buf += '\t';
      buf += labels[static_cast<std::size_t>(v)];
    }
    buf += '\n';
    if (buf.size() > (1u << 20)) {
      os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  if (!os) throw std::runtime_error("write_labelled_groups: writing to the stream failed");
}

// Explicit instantiations for every supported value type.
#define OPSPARSE_IO_INSTANTIATE(V)                                                        \
  template host_csr<V> read_matrix_market<V>(const std::string&);                          \
  template void write_matrix_market<V>(const std::string&, const host_csr<V>&);            \
  template void write_matrix_market<V>(std::ostream&, const host_csr<V>&);
OPSPARSE_IO_INSTANTIATE(double)
OPSPARSE_IO_INSTANTIATE(float)
OPSPARSE_IO_INSTANTIATE(std::int32_t)
OPSPARSE_IO_INSTANTIATE(std::int64_t)
OPSPARSE_IO_INSTANTIATE(pattern)
#undef OPSPARSE_IO_INSTANTIATE

}  // namespace opsparse::io
