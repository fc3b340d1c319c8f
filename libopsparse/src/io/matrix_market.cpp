// Matrix Market reading and writing (see opsparse/io.hpp). Entries are collected as (row, col,
// value) triples and assembled into sorted CSR by one counting sort on rows plus a stable sort
// within each row, so duplicates combine in file order (deterministic floating-point sums).
#include "io/reader_common.hpp"

namespace opsparse::io {
namespace internal {

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
      if (x < std::numeric_limits<std::int32_t>::min() ||
          x > std::numeric_limits<std::int32_t>::max())
        throw parse_error(path, line, "integer value " + quote(tok) + " does not fit in int32");
    }
    if constexpr (has_values_v<V>)
      return static_cast<V>(x);
    else
      return V{};
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
      throw parse_error(
          path, line, "value " + quote(tok) + " is not an integer that fits in " + type_name<V>());
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
      throw parse_error(path, line,
                        std::string("value cannot be negated in ") + type_name<V>() +
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
    throw parse_error(path, line,
                      std::string("expected an integer ") + what + " index, found " + quote(tok));
  if (st == num_status::out_of_range || x < 1 || x > limit)
    throw parse_error(path, line,
                      std::string(what) + " index " + quote(tok) + " out of range [1, " +
                          std::to_string(limit) + "]");
  return static_cast<index_t>(x - 1);
}

/// A dimension of the size line: 0 .. INT32_MAX since rows and columns are index_t.
index_t mm_dimension(const std::string& path, long long line, std::string_view tok,
                     const char* what) {
  std::int64_t x = 0;
  const num_status st = parse_int64(tok, x);
  if (st == num_status::bad)
    throw parse_error(
        path, line,
        std::string("size line: expected an integer number of ") + what + ", found " + quote(tok));
  if (st == num_status::out_of_range || x > std::numeric_limits<index_t>::max())
    throw parse_error(path, line,
                      std::string("size line: ") + what + " " + quote(tok) +
                          " exceeds the largest supported size " +
                          std::to_string(std::numeric_limits<index_t>::max()) +
                          " (indices are 32-bit)");
  if (x < 0)
    throw parse_error(path, line,
                      std::string("size line: negative number of ") + what + " " + quote(tok));
  return static_cast<index_t>(x);
}

/// What the banner says.
struct mm_banner {
  mm_field field = mm_field::real;
  mm_symmetry sym = mm_symmetry::general;
};

/// What the size line says.
struct mm_size {
  index_t rows = 0, cols = 0;
  std::int64_t nnz = 0;
};

/// The words a banner's field and symmetry may be, and what they mean.
template <class E>
struct banner_words {
  const char* what;                         ///< "field" or "symmetry"
  std::pair<std::string_view, E> known[3];  ///< the supported words
  std::string_view refused;                 ///< a Matrix Market word that is not supported
  const char* refused_why;                  ///< its message
  const char* expected;                     ///< the supported words, for the message
};

constexpr banner_words<mm_field> mm_fields{
    "field",
    {{"real", mm_field::real}, {"integer", mm_field::integer}, {"pattern", mm_field::pattern}},
    "complex",
    "'complex' Matrix Market files are not supported",
    "'real', 'integer' or 'pattern'"};
constexpr banner_words<mm_symmetry> mm_symmetries{
    "symmetry",
    {{"general", mm_symmetry::general},
     {"symmetric", mm_symmetry::symmetric},
     {"skew-symmetric", mm_symmetry::skew}},
    "hermitian",
    "'hermitian' Matrix Market files are not supported (complex only)",
    "'general', 'symmetric' or 'skew-symmetric'"};

/// The meaning of a banner word (case-insensitive) among `words`, or a parse_error.
template <class E>
E banner_word(const std::string& path, long long line, std::string_view word,
              const banner_words<E>& words) {
  for (const auto& [name, value] : words.known)
    if (iequals(word, name)) return value;
  if (iequals(word, words.refused)) throw parse_error(path, line, words.refused_why);
  throw parse_error(path, line,
                    std::string("unsupported ") + words.what + " " + quote(word) +
                        " in banner (expected " + words.expected + ")");
}

/// The banner (`line`, line number banner_line): %%MatrixMarket matrix coordinate <field>
/// <symmetry>, words case-insensitive.
mm_banner read_mm_banner(const std::string& path, long long banner_line, std::string_view line) {
  tokenizer bt(line);
  std::string_view words[5];
  int nwords = 0;
  for (std::string_view tok; nwords < 5 && bt.next(tok);) words[nwords++] = tok;
  if (nwords == 0 || !iequals(words[0], "%%MatrixMarket"))
    throw parse_error(
        path, banner_line,
        "missing banner: the first line must start with '%%MatrixMarket', found " + quote(line));
  if (nwords < 5)
    throw parse_error(path, banner_line,
                      "incomplete banner: expected '%%MatrixMarket matrix coordinate <field> "
                      "<symmetry>', found " +
                          quote(line));
  if (!iequals(words[1], "matrix"))
    throw parse_error(path, banner_line,
                      "unsupported object " + quote(words[1]) + " in banner (expected 'matrix')");
  if (iequals(words[2], "array"))
    throw parse_error(path, banner_line,
                      "dense 'array' Matrix Market files are not supported (only 'coordinate')");
  if (!iequals(words[2], "coordinate"))
    throw parse_error(
        path, banner_line,
        "unsupported format " + quote(words[2]) + " in banner (expected 'coordinate')");
  mm_banner b;
  b.field = banner_word(path, banner_line, words[3], mm_fields);
  b.sym = banner_word(path, banner_line, words[4], mm_symmetries);
  if (const std::string_view extra = bt.rest(); !extra.empty())
    throw parse_error(path, banner_line, "unexpected text after the banner: " + quote(extra));
  if (b.field == mm_field::pattern && b.sym == mm_symmetry::skew)
    throw parse_error(path, banner_line,
                      "a 'pattern' matrix cannot be 'skew-symmetric' (no values to negate)");
  return b;
}

/// The size line 'rows cols entries' (`line`, line number size_line), checked against the
/// banner's symmetry and `require_square`.
mm_size read_mm_size_line(const std::string& path, long long size_line, std::string_view line,
                          mm_symmetry sym, bool require_square) {
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
  const num_status ns = parse_int64(stok[2], nnz);
  if (ns == num_status::bad)
    throw parse_error(path, size_line,
                      "size line: expected an integer number of entries, found " + quote(stok[2]));
  if (ns == num_status::out_of_range || nnz < 0)
    throw parse_error(path, size_line,
                      "size line: number of entries " + quote(stok[2]) + " out of range");
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
  return mm_size{rows, cols, nnz};
}

/// Checks that the matrix the size line declares fits in memory, and reserves its triples.
/// Every entry takes at least 4 bytes ("1 1\n"), so a corrupted count cannot make us reserve
/// more than the file could hold.
template <class V>
void reserve_mm_triples(const std::string& path, long long size_line, mm_banner b, mm_size h,
                        std::size_t bytes_left, std::uint64_t bytes_per_row,
                        const read_options& options, triples<V>& t) {
  const std::uint64_t bound = bytes_left / 4 + 1;
  const std::uint64_t want = std::min<std::uint64_t>(static_cast<std::uint64_t>(h.nnz), bound);
  const std::uint64_t stored = b.sym == mm_symmetry::general ? want : 2 * want;
  // Row pointers and assemble's cursors per row (plus what the caller keeps per row), and per
  // entry the triples and the CSR being built from them.
  const std::uint64_t value_bytes = has_values_v<V> ? sizeof(V) : 0;
  const std::uint64_t bytes =
      (static_cast<std::uint64_t>(h.rows) + 1) * (2 * sizeof(offset_t) + bytes_per_row) +
      stored * (3 * sizeof(index_t) + 2 * value_bytes);
  check_memory(path, size_line,
               "the size line declares a " + std::to_string(h.rows) + " x " +
                   std::to_string(h.cols) + " matrix with " + std::to_string(h.nnz) + " entries",
               bytes, options.memory_limit);
  t.reserve(static_cast<std::size_t>(stored));
}

/// One entry line (line number ln): its triple, and its mirror in a symmetric or
/// skew-symmetric matrix, pushed to t. Inlined into read_mm_impl's loop: as a call it cost 5% more
/// instructions reading bcsstk33.mtx.
template <class V>
[[gnu::always_inline]] inline void read_mm_entry(const std::string& path, long long ln,
                                                 std::string_view line, mm_banner b, mm_size h,
                                                 const read_options& options, triples<V>& t) {
  const int want_tokens = b.field == mm_field::pattern ? 2 : 3;
  tokenizer et(line);
  std::string_view tok[3];
  int ntok = 0;
  for (std::string_view x; ntok < want_tokens && et.next(x);) tok[ntok++] = x;
  if (ntok < want_tokens)
    throw parse_error(path, ln,
                      std::string("expected ") +
                          (b.field == mm_field::pattern ? "'row col'" : "'row col value'") +
                          ", found " + quote(line));
  const index_t i = mm_index(path, ln, tok[0], h.rows, "row");
  const index_t j = mm_index(path, ln, tok[1], h.cols, "column");
  V v{};
  if (b.field == mm_field::pattern) {
    if constexpr (has_values_v<V>) v = V(1);
  } else {
    v = mm_value<V>(path, ln, tok[2], b.field);
    if constexpr (has_values_v<V>) {
      if (options.nonnegative && v < V(0))
        throw parse_error(
            path, ln,
            "negative value " + quote(tok[2]) + ": values must be >= 0 here (similarities)");
      if (options.nonnegative && b.sym == mm_symmetry::skew && v != V(0))
        throw parse_error(path, ln,
                          "the mirror of " + quote(tok[2]) +
                              " in a skew-symmetric matrix is negative: values must be >= 0 "
                              "here (similarities)");
    }
  }
  if (const std::string_view extra = et.rest(); !extra.empty())
    throw parse_error(path, ln, "unexpected text after the entry: " + quote(extra));
  if (b.sym == mm_symmetry::skew && i == j)
    throw parse_error(path, ln,
                      "diagonal entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                          ") in a skew-symmetric matrix (its diagonal is zero by definition)");
  t.push(i, j, v);
  if (i != j) {
    if (b.sym == mm_symmetry::symmetric)
      t.push(j, i, v);
    else if (b.sym == mm_symmetry::skew)
      t.push(j, i, mm_negate(path, ln, v));
  }
}

template <class V>
host_csr<V> read_mm_impl(const std::string& path, bool require_square, const read_options& options,
                         std::uint64_t bytes_per_row = 0) {
  const file_bytes file(path);
  const std::string_view data = file.view();
  if (data.empty()) throw parse_error(path, 0, "file is empty (expected a %%MatrixMarket banner)");
  line_reader lines(data);
  std::string_view line;
  lines.next(line);
  // The header's facts as values (no call sees their addresses): the entry loop keeps them in
  // registers.
  const mm_banner banner = read_mm_banner(path, lines.line_no(), line);
  bool have_size = false;  // the size line comes after comments and blank lines
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
  const mm_size h = read_mm_size_line(path, size_line, line, banner.sym, require_square);
  triples<V> t;
  reserve_mm_triples(path, size_line, banner, h, lines.bytes_left(), bytes_per_row, options, t);

  std::int64_t seen = 0;
  while (lines.next(line)) {
    const char c = first_char(line);
    if (c == '\0' || c == '%') continue;
    const long long ln = lines.line_no();
    if (seen == h.nnz)
      throw parse_error(path, ln,
                        "more entries than the " + std::to_string(h.nnz) +
                            " announced on the size line (line " + std::to_string(size_line) + ")");
    read_mm_entry(path, ln, line, banner, h, options, t);
    ++seen;
  }
  if (seen < h.nnz)
    throw parse_error(path, lines.eof_line(),
                      "unexpected end of file: the size line (line " + std::to_string(size_line) +
                          ") announces " + std::to_string(h.nnz) + " entries, found " +
                          std::to_string(seen));
  // A pattern entry only says "present": its duplicates stay 1 rather than summing to 2.
  if (banner.field == mm_field::pattern)
    return assemble(
        path, h.rows, h.cols, t, [](V&, V) { return true; }, "");
  return assemble(path, h.rows, h.cols, t, combine_sum<V>, "sum to a value");
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
  if constexpr (!has_values_v<V>)
    return "pattern";
  else if constexpr (std::is_integral_v<V>)
    return "integer";
  else
    return "real";
}

host_csr<double> read_matrix_market_graph(const std::string& path, const read_options& options) {
  // A label per row: a std::string (32 bytes) holding the row number.
  return read_mm_impl<double>(path, true, options, sizeof(std::string));
}

}  // namespace internal

using namespace internal;

// ------------------------------------------------------------------------------------------------
// Public API
// ------------------------------------------------------------------------------------------------

template <class V>
host_csr<V> read_matrix_market(const std::string& path, const read_options& options) {
  return guard_memory(path, [&] { return read_mm_impl<V>(path, false, options); });
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
  // Through a temporary file: a failed write leaves an existing file as it was.
  output_file out(path);
  write_matrix_market(out.stream(), m);
  out.commit();
}

// Explicit instantiations for every supported value type.
#define OPSPARSE_IO_INSTANTIATE(V)                                                     \
  template host_csr<V> read_matrix_market<V>(const std::string&, const read_options&); \
  template void write_matrix_market<V>(const std::string&, const host_csr<V>&);        \
  template void write_matrix_market<V>(std::ostream&, const host_csr<V>&);
OPSPARSE_IO_INSTANTIATE(double)
OPSPARSE_IO_INSTANTIATE(float)
OPSPARSE_IO_INSTANTIATE(std::int32_t)
OPSPARSE_IO_INSTANTIATE(std::int64_t)
OPSPARSE_IO_INSTANTIATE(pattern)
#undef OPSPARSE_IO_INSTANTIATE

}  // namespace opsparse::io
