// mcl's native interchange format and tab files (see io_mcl_native.hpp). Written from mcl's
// documentation and from what mcl/mcxload 22-282 write and accept; no code of mcl's is used.
#include "opsparse/io_mcl_native.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <ostream>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace opsparse::io {
namespace {

std::string quote(std::string_view s) {
  std::string q = "'";
  for (char c : s.substr(0, 60)) q += (static_cast<unsigned char>(c) < 32 ? '?' : c);
  if (s.size() > 60) q += "...";
  return q + "'";
}

/// The whole file; a NUL byte is an error (binary data, not text).
std::string slurp(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  if (!is) throw parse_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  std::ostringstream os;
  os << is.rdbuf();
  if (is.bad()) throw parse_error(path, 0, "cannot read file");
  std::string s = os.str();
  if (const auto z = s.find('\0'); z != std::string::npos)
    throw parse_error(path,
                      1 + std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(z), '\n'),
                      "NUL byte: binary data, not an mcl native matrix");
  return s;
}

/// Blank-separated tokens with their line numbers; '#' starts a comment up to the line's end.
class tokenizer {
 public:
  tokenizer(const std::string& path, std::string_view text) : path_(path), text_(text) {}
  /// The next token, empty at the end.
  std::string_view next() {
    skip();
    const std::size_t b = pos_;
    while (pos_ < text_.size() && !blank(text_[pos_]) && text_[pos_] != '#') ++pos_;
    return text_.substr(b, pos_ - b);
  }
  std::string_view peek() {
    const std::size_t p = pos_;
    const long long l = line_;
    const std::string_view t = next();
    pos_ = p;
    line_ = l;
    return t;
  }
  long long line() const { return line_; }
  /// The line of the next token (after skipping blanks and comments).
  long long next_line() {
    skip();
    return line_;
  }
  [[noreturn]] void fail(const std::string& what) const { throw parse_error(path_, line_, what); }
  const std::string& path() const { return path_; }

 private:
  static bool blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  }
  void skip() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (blank(c)) {
        if (c == '\n') ++line_;
        ++pos_;
      } else {
        break;
      }
    }
  }
  const std::string& path_;
  std::string_view text_;
  std::size_t pos_ = 0;
  long long line_ = 1;
};

bool parse_id(std::string_view tok, std::int64_t& out) {
  if (tok.empty() || tok.size() > 18) return false;
  std::int64_t v = 0;
  for (char c : tok) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

std::int64_t expect_id(tokenizer& t, std::string_view tok, const char* what) {
  std::int64_t v;
  if (!parse_id(tok, v))
    t.fail(std::string("expected ") + what + " (a non-negative integer), found " + quote(tok));
  return v;
}

double expect_value(tokenizer& t, std::string_view tok, bool nonnegative, bool nonfinite) {
  const std::string s(tok);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size())
    t.fail("expected a value after ':', found " + quote(tok));
  if (!std::isfinite(v) && !nonfinite) t.fail("value " + quote(tok) + " is not finite");
  if (nonnegative && v < 0)
    t.fail("negative value " + quote(tok) + " (weights are similarities: they must be >= 0)");
  return v;
}

/// "(mcldoms", "(mclrows", "(mclcols": ids up to '$', then ')'.
std::vector<std::int64_t> read_domain(tokenizer& t, std::size_t size, const char* which) {
  std::vector<std::int64_t> ids;
  for (;;) {
    const std::string_view tok = t.next();
    if (tok.empty())
      t.fail(std::string("end of file inside the ") + which + " block (expected '$')");
    if (tok == "$") break;
    ids.push_back(expect_id(t, tok, "a domain index"));
    if (ids.size() > size)
      t.fail(std::string(which) + " block lists more than the " + std::to_string(size) +
             " indices that the dimensions announce");
  }
  if (ids.size() != size)
    t.fail(std::string(which) + " block lists " + std::to_string(ids.size()) +
           " indices, the dimensions announce " + std::to_string(size));
  for (std::size_t i = 1; i < ids.size(); ++i)
    if (ids[i] <= ids[i - 1])
      t.fail(std::string(which) + " block: indices must be increasing, " + std::to_string(ids[i]) +
             " follows " + std::to_string(ids[i - 1]));
  if (t.next() != ")") t.fail(std::string("expected ')' closing the ") + which + " block");
  return ids;
}

/// Position of `id` in a domain (canonical when `ids` is empty), or -1.
std::int64_t position(const std::vector<std::int64_t>& ids, std::int64_t size, std::int64_t id) {
  if (ids.empty()) return id < size ? id : -1;
  const auto it = std::lower_bound(ids.begin(), ids.end(), id);
  return it != ids.end() && *it == id ? it - ids.begin() : -1;
}

std::size_t digits(std::uint64_t x) {
  std::size_t d = 1;
  while (x >= 10) {
    x /= 10;
    ++d;
  }
  return d;
}

/// A domain block as mcl writes it: " id id ... $" wrapped like a column (after `limit`
/// characters: mcl's rule for the matrix's index field) but not indented.
void write_domain(std::ostream& os, const char* name, const std::vector<std::int64_t>& ids,
                  std::size_t limit) {
  os << "(" << name << "\n";
  std::size_t len = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string tok = std::to_string(ids[i]);
    os << ' ' << tok;
    len += 1 + tok.size();
    if (len > limit && i + 1 < ids.size()) {
      os << "\n";
      len = 0;
    }
  }
  os << " $\n)\n";
}

/// The "(mclheader" block: its dimensions as (rows, columns).
std::pair<std::int64_t, std::int64_t> read_native_header(tokenizer& t) {
  if (t.peek().empty()) t.fail("file is empty (expected an mcl native matrix, '(mclheader')");
  if (t.next() != "(mclheader") t.fail("expected '(mclheader' (an mcl native matrix)");
  std::int64_t rows = -1, cols = -1;
  for (;;) {
    const std::string_view key = t.next();
    if (key.empty()) t.fail("end of file inside the mclheader block (expected ')')");
    if (key == ")") break;
    const std::string_view val = t.next();
    if (val.empty() || val == ")") t.fail("header key " + quote(key) + " has no value");
    if (key == "mcltype") {
      if (val != "matrix") t.fail("mcltype " + quote(val) + " is not supported (only 'matrix')");
    } else if (key == "dimensions") {
      const std::size_t x = val.find('x');
      std::int64_t r, c;
      if (x == std::string_view::npos || !parse_id(val.substr(0, x), r) ||
          !parse_id(val.substr(x + 1), c))
        t.fail("dimensions: expected ROWSxCOLUMNS, found " + quote(val));
      if (r > std::numeric_limits<index_t>::max() || c > std::numeric_limits<index_t>::max())
        t.fail("dimensions " + quote(val) + " exceed the index type");
      rows = r;
      cols = c;
    } else {
      t.fail("unknown header key " + quote(key) + " (expected mcltype or dimensions)");
    }
  }
  if (rows < 0) t.fail("the mclheader block has no 'dimensions ROWSxCOLUMNS' line");
  return {rows, cols};
}

/// The domain blocks up to "(mclmatrix begin": m.row_ids and m.col_ids (empty: canonical).
void read_native_domains(tokenizer& t, std::int64_t rows, std::int64_t cols, mcl_native_matrix& m) {
  for (;;) {
    const std::string_view tok = t.next();
    if (tok.empty()) t.fail("end of file before the '(mclmatrix' block");
    if (tok == "(mcldoms") {
      m.row_ids = read_domain(t, static_cast<std::size_t>(rows), "mcldoms");
      if (rows != cols) t.fail("an mcldoms block needs a square matrix");
      m.col_ids = m.row_ids;
    } else if (tok == "(mclrows") {
      m.row_ids = read_domain(t, static_cast<std::size_t>(rows), "mclrows");
    } else if (tok == "(mclcols") {
      m.col_ids = read_domain(t, static_cast<std::size_t>(cols), "mclcols");
    } else if (tok == "(mclmatrix") {
      break;
    } else {
      t.fail("expected '(mclmatrix', '(mcldoms', '(mclrows' or '(mclcols', found " + quote(tok));
    }
  }
  if (t.next() != "begin") t.fail("expected 'begin' after '(mclmatrix'");
}

/// An entry of the mclmatrix block, by positions in the domains; `order` is its place in the
/// file (duplicates are resolved afterwards: the first value wins).
struct native_entry {
  index_t col, row;
  double val;
  std::uint64_t order;
};

/// The mclmatrix block's entries, column by column as read, up to its ')' and the end of the
/// file; sets m.has_values when an entry carries a value.
std::vector<native_entry> read_native_entries(tokenizer& t, std::int64_t rows, std::int64_t cols,
                                              const read_options& options, mcl_native_matrix& m) {
  std::vector<native_entry> entries;
  std::uint64_t order = 0;
  for (;;) {
    const std::string_view tok = t.next();
    if (tok.empty()) t.fail("end of file inside the mclmatrix block (expected ')')");
    if (tok == ")") break;
    // A column may carry a value of its own ("index:value", as mcl's -dump ite writes its start
    // matrix's column sums): mcl reads it and so does this reader, which leaves it out.
    const std::size_t colon = tok.find(':');
    const std::int64_t cid = expect_id(t, tok.substr(0, colon), "a column index");
    if (colon != std::string_view::npos) (void)expect_value(t, tok.substr(colon + 1), false, true);
    const std::int64_t c = position(m.col_ids, cols, cid);
    if (c < 0)
      t.fail("column index " + std::to_string(cid) + " is outside the column domain (" +
             (m.col_ids.empty() ? "0.." + std::to_string(cols - 1) : std::string("mclcols")) + ")");
    for (;;) {
      const std::string_view e = t.next();
      if (e.empty()) t.fail("end of file inside column " + std::to_string(cid) + " (expected '$')");
      if (e == "$") break;
      const std::size_t colon = e.find(':');
      const std::int64_t rid = expect_id(t, e.substr(0, colon), "a row index");
      const std::int64_t r = position(m.row_ids, rows, rid);
      if (r < 0)
        t.fail("row index " + std::to_string(rid) + " in column " + std::to_string(cid) +
               " is outside the row domain (" +
               (m.row_ids.empty() ? "0.." + std::to_string(rows - 1) : std::string("mclrows")) +
               ")");
      double v = 1.0;
      if (colon != std::string_view::npos) {
        v = expect_value(t, e.substr(colon + 1), options.nonnegative, options.nonfinite_weights);
        m.has_values = true;
      }
      entries.push_back({static_cast<index_t>(c), static_cast<index_t>(r), v, order++});
    }
  }
  if (!t.next().empty()) t.fail("unexpected text after the mclmatrix block");
  return entries;
}

/// The columns as CSR (a row per column of the native matrix), sorted, the first of duplicate
/// entries kept.
host_csr<double> native_columns(std::vector<native_entry>& entries, std::int64_t rows,
                                std::int64_t cols) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const native_entry& a, const native_entry& b) {
                     return a.col != b.col ? a.col < b.col : a.row < b.row;
                   });
  host_csr<double> csr(static_cast<index_t>(cols), static_cast<index_t>(rows));
  csr.col.reserve(entries.size());
  csr.val.reserve(entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const native_entry& e = entries[k];
    if (k > 0 && entries[k - 1].col == e.col && entries[k - 1].row == e.row)
      continue;  // first wins
    csr.col.push_back(e.row);
    csr.val.push_back(e.val);
    ++csr.rpt[static_cast<std::size_t>(e.col) + 1];
  }
  for (std::size_t i = 1; i < csr.rpt.size(); ++i) csr.rpt[i] += csr.rpt[i - 1];
  return csr;
}

}  // namespace

/// Where the "(mclheader" line starts in `text` (the first line whose first non-blank text it
/// is), or npos. mcl skips whatever comes before it: its example files open with free text.
std::size_t native_header_start(std::string_view text, std::size_t max_lines) {
  std::size_t at = 0;
  for (std::size_t n = 0; n < max_lines && at < text.size(); ++n) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::size_t b = text.find_first_not_of(" \t\r", at);
    if (b < end && text.compare(b, 10, "(mclheader") == 0) return b;
    at = end + 1;
  }
  return std::string_view::npos;
}

bool looks_like_mcl_native(const std::string& path) {
  if (is_mcl_native_binary(path)) return true;
  std::ifstream is(path, std::ios::binary);
  if (!is) return false;
  // The first 1000 lines (at most 1 MiB) of the file.
  std::string head(std::size_t(1) << 20, '\0');
  is.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(is.gcount()));
  return native_header_start(head, 1000) != std::string_view::npos;
}

mcl_native_matrix read_mcl_native(const std::string& path, const read_options& options) {
  if (is_mcl_native_binary(path)) return read_mcl_native_binary(path, options);
  std::string text = slurp(path);
  // Text before the header (mcl's examples describe themselves there) is skipped as mcl skips
  // it; blanked rather than cut, so that messages keep the file's line numbers.
  const std::size_t header = native_header_start(text, std::string::npos);
  if (header != std::string::npos)
    for (std::size_t i = 0; i < header; ++i)
      if (text[i] != '\n') text[i] = ' ';
  tokenizer t(path, text);
  const auto [rows, cols] = read_native_header(t);
  mcl_native_matrix m;
  read_native_domains(t, rows, cols, m);
  std::vector<native_entry> entries = read_native_entries(t, rows, cols, options, m);
  if (m.row_ids.empty())
    for (std::int64_t i = 0; i < rows; ++i) m.row_ids.push_back(i);
  if (m.col_ids.empty())
    for (std::int64_t i = 0; i < cols; ++i) m.col_ids.push_back(i);
  m.columns = native_columns(entries, rows, cols);
  return m;
}

labelled_graph read_mcl_native_graph(const std::string& path, const read_options& options) {
  mcl_native_matrix m = read_mcl_native(path, options);
  if (m.columns.rows != m.columns.cols || m.row_ids != m.col_ids)
    throw parse_error(path, 0,
                      "a graph needs a square matrix with one domain, found " +
                          std::to_string(m.columns.cols) + "x" + std::to_string(m.columns.rows) +
                          (m.row_ids != m.col_ids && m.columns.rows == m.columns.cols
                               ? " with different row and column domains"
                               : ""));
  // As every graph reader: a graph without vertices is an error, not an empty result (unless
  // the caller clusters it as mcl does: into nothing).
  if (m.columns.rows == 0 && !options.allow_no_nodes)
    throw parse_error(path, 0, "a graph without nodes (dimensions 0x0)");
  labelled_graph g;
  g.adj = std::move(m.columns);
  g.labels.reserve(m.row_ids.size());
  for (std::int64_t id : m.row_ids) g.labels.push_back(std::to_string(id));
  return g;
}

template <class V>
void write_mcl_native(std::ostream& os, const host_csr<V>& columns,
                      const std::vector<std::int64_t>* row_ids,
                      const std::vector<std::int64_t>* col_ids,
                      const std::vector<double>* col_values) {
  OPSPARSE_EXPECTS(!row_ids || row_ids->size() == static_cast<std::size_t>(columns.cols),
                   "write_mcl_native: row_ids must have one id per row");
  OPSPARSE_EXPECTS(!col_ids || col_ids->size() == static_cast<std::size_t>(columns.rows),
                   "write_mcl_native: col_ids must have one id per column");
  OPSPARSE_EXPECTS(!col_values || col_values->size() == static_cast<std::size_t>(columns.rows),
                   "write_mcl_native: col_values must have one value per column");
  auto canonical = [](const std::vector<std::int64_t>* ids) {
    if (!ids) return true;
    for (std::size_t i = 0; i < ids->size(); ++i)
      if ((*ids)[i] != static_cast<std::int64_t>(i)) return false;
    return true;
  };
  const bool rows_canonical = canonical(row_ids), cols_canonical = canonical(col_ids);
  // The index field is as wide as the largest row index + 1 (mcl's layout; the column indices
  // themselves may be wider).
  const std::int64_t max_row = rows_canonical ? static_cast<std::int64_t>(columns.cols) - 1
                                              : (row_ids->empty() ? -1 : row_ids->back());
  // mcl counts the digits of max_row + 1 in a 32-bit int: for the largest index it can hold,
  // 2147483647, that overflows and the field is 1 wide (mcl's example fznyy.mci shows it).
  const std::int64_t top = max_row + 1;
  const bool overflow = top > std::numeric_limits<std::int32_t>::max();
  const std::size_t width =
      overflow ? 1 : digits(static_cast<std::uint64_t>(std::max<std::int64_t>(top, 0)));
  // A line wraps once it has passed 69 - width characters (mcl's 70 - leadwidth), a domain's too
  // (69 where the width overflowed, not checked against mcl).
  const std::size_t limit = width < 69 ? 69 - width : 0;
  const std::size_t domain_limit = overflow ? 69 : limit;
  os << "(mclheader\nmcltype matrix\ndimensions " << columns.cols << "x" << columns.rows << "\n)\n";
  if (!rows_canonical && !cols_canonical && *row_ids == *col_ids) {
    write_domain(os, "mcldoms", *row_ids, domain_limit);
  } else {
    if (!rows_canonical) write_domain(os, "mclrows", *row_ids, domain_limit);
    if (!cols_canonical) write_domain(os, "mclcols", *col_ids, domain_limit);
  }
  os << "(mclmatrix\nbegin\n";
  std::string line;
  char buf[64];
  for (index_t c = 0; c < columns.rows; ++c) {
    const offset_t b = columns.rpt[c], e = columns.rpt[c + 1];
    if (b == e) continue;  // mcl writes no empty columns
    line = std::to_string(col_ids ? (*col_ids)[c] : c);
    if (col_values && (*col_values)[c] != 0) {
      std::snprintf(buf, sizeof buf, ":%.7g", (*col_values)[c]);
      line += buf;
    }
    // mcl counts what it wrote of the index (and value), padded to the field's width.
    if (line.size() < width) line.append(width - line.size(), ' ');
    std::size_t len = line.size();
    for (offset_t k = b; k < e; ++k) {
      const index_t r = columns.col[k];
      std::string tok = std::to_string(row_ids ? (*row_ids)[r] : r);
      if constexpr (has_values_v<V>) {
        // mcl's float cell; a finite value beyond float's range (which mcl would write as
        // "inf", unreadable) keeps its double value, so that what is written reads back.
        const double v = static_cast<double>(columns.val[k]);
        const float cell = static_cast<float>(v);
        std::snprintf(buf, sizeof buf, ":%.7g",
                      std::isfinite(v) && !std::isfinite(cell) ? v : static_cast<double>(cell));
        tok += buf;
      }
      line += ' ';
      line += tok;
      len += 1 + tok.size();
      if (len > limit && k + 1 < e) {
        line += '\n';
        line.append(width + 2, ' ');
        len = width + 2;
      }
    }
    line += " $\n";
    os << line;
  }
  os << ")\n";
}

template void write_mcl_native<double>(std::ostream&, const host_csr<double>&,
                                       const std::vector<std::int64_t>*,
                                       const std::vector<std::int64_t>*,
                                       const std::vector<double>*);
template void write_mcl_native<float>(std::ostream&, const host_csr<float>&,
                                      const std::vector<std::int64_t>*,
                                      const std::vector<std::int64_t>*, const std::vector<double>*);
template void write_mcl_native<pattern>(std::ostream&, const host_csr<pattern>&,
                                        const std::vector<std::int64_t>*,
                                        const std::vector<std::int64_t>*,
                                        const std::vector<double>*);

std::string mcl_tab::label(std::int64_t id) const {
  const auto it = position.find(id);
  return it == position.end() ? "?_" + std::to_string(id) : labels[it->second];
}

mcl_tab read_mcl_tab(const std::string& path) {
  const std::string text = slurp(path);
  mcl_tab tab;
  std::size_t pos = 0;
  long long line_no = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    const std::size_t tabc = line.find('\t');
    if (tabc == std::string_view::npos)
      throw parse_error(path, line_no, "expected 'index<TAB>label', found " + quote(line));
    std::int64_t id;
    if (!parse_id(line.substr(0, tabc), id))
      throw parse_error(
          path, line_no,
          "expected a non-negative index before the TAB, found " + quote(line.substr(0, tabc)));
    if (!tab.position.emplace(id, tab.ids.size()).second)
      throw parse_error(path, line_no, "index " + std::to_string(id) + " is listed twice");
    tab.ids.push_back(id);
    tab.labels.emplace_back(line.substr(tabc + 1));
  }
  return tab;
}

void write_mcl_tab(std::ostream& os, const std::vector<std::string>& labels) {
  for (std::size_t i = 0; i < labels.size(); ++i) os << i << '\t' << labels[i] << '\n';
}

}  // namespace opsparse::io
