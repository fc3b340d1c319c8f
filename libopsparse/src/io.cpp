// Readers and writers for Matrix Market, SNAP edge lists and ABC files (see opsparse/io.hpp).
//
// Every reader maps (or reads) the whole file once and walks it line by line with std::from_chars:
// no iostream extraction per token. Every problem is reported as opsparse::parse_error(file, line,
// what); no reader returns a partial matrix. Matrix Market entries are collected as (row, col,
// value) triples and assembled into sorted CSR by one counting sort on rows plus a stable sort
// within each row, so duplicates combine in file order (deterministic floating-point sums).
// Edge lists and ABC files, the inputs of the graph apps, are parsed in parallel (see "Parallel
// edge-list and ABC reading" below) with the same results and messages as a serial reading.
#include "opsparse/io.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "opsparse/output_file.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <memory>
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

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

/// A NUL byte is never part of a text line: a line that started with one used to be skipped as
/// blank, silently dropping its edge. The error names the line (1-based) and the byte offset.
[[noreturn]] void throw_nul(const std::string& path, std::string_view before, std::size_t offset) {
  const long long line = 1 + static_cast<long long>(std::count(before.begin(), before.end(), '\n'));
  throw parse_error(path, line,
                    "NUL byte at byte offset " + std::to_string(offset) +
                        ": binary data, not a text file");
}

void reject_nul(const std::string& path, std::string_view data) {
  if (const void* z = std::memchr(data.data(), '\0', data.size())) {
    const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(z) - data.data());
    throw_nul(path, data.substr(0, at), at);
  }
}

/// The bytes of a whole file, or parse_error(path, 0, ...) when it cannot be opened or read.
/// Any NUL byte is a parse_error (reject_nul); a stream (a pipe, /dev/zero) is refused at the
/// first block that holds one instead of being read until memory runs out.
/// A regular file is mapped read-only: copying 35 MB into a std::string cost 20 ms of page faults
/// (on a VM), more than parsing it on 16 cores. Anything else (a pipe, a terminal, /proc) is
/// read into memory. A file that another process truncates while it is mapped would fault; the
/// readers do not guard against concurrent writers (nor did reading it, which saw half a file).
class file_bytes {
 public:
  explicit file_bytes(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
      throw parse_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
    if (S_ISDIR(info.st_mode)) throw parse_error(path, 0, "cannot read file: it is a directory");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw parse_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
    struct stat opened {};
    const bool regular = ::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode);
    if (regular && opened.st_size > 0 &&
        static_cast<std::uint64_t>(opened.st_size) <= std::numeric_limits<std::size_t>::max()) {
      const std::size_t size = static_cast<std::size_t>(opened.st_size);
      int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
      flags |= MAP_POPULATE;  // one call maps every page instead of one fault per page
#endif
      void* m = ::mmap(nullptr, size, PROT_READ, flags, fd, 0);
      if (m != MAP_FAILED) {
        ::close(fd);
        try {
          reject_nul(path, std::string_view(static_cast<const char*>(m), size));
        } catch (...) {
          ::munmap(m, size);
          throw;
        }
        map_ = m;
        view_ = std::string_view(static_cast<const char*>(m), size);
        return;
      }
      // Not mappable (some file systems): read it instead.
    }
    try {
      if (regular && opened.st_size > 0) copy_.reserve(static_cast<std::size_t>(opened.st_size));
      char buf[1 << 16];
      for (;;) {
        const ssize_t got = ::read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
          const int err = errno;
          ::close(fd);
          throw parse_error(path, 0, std::string("cannot read file: ") + std::strerror(err));
        }
        if (got == 0) break;
        if (const void* z = std::memchr(buf, '\0', static_cast<std::size_t>(got))) {
          ::close(fd);
          const std::size_t in_buf = static_cast<std::size_t>(static_cast<const char*>(z) - buf);
          copy_.append(buf, in_buf);
          throw_nul(path, copy_, copy_.size());
        }
        copy_.append(buf, static_cast<std::size_t>(got));
      }
    } catch (const parse_error&) {
      throw;
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    view_ = copy_;
  }
  ~file_bytes() {
    if (map_) ::munmap(map_, view_.size());
  }
  file_bytes(const file_bytes&) = delete;
  file_bytes& operator=(const file_bytes&) = delete;

  std::string_view view() const { return view_; }

 private:
  void* map_ = nullptr;
  std::string copy_;
  std::string_view view_;
};

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

/// First non-blank character of a line, or '\0' for a blank line (file_bytes refuses NUL bytes,
/// so '\0' means blank).
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

/// Bytes of memory this process can still take: MemAvailable (Linux: free memory plus what the
/// page cache gives back), else the free physical pages; the maximum when neither is known.
std::uint64_t available_memory() {
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char key[64];
    unsigned long long kib = 0;
    while (std::fscanf(f, "%63s %llu kB\n", key, &kib) == 2)
      if (std::strcmp(key, "MemAvailable:") == 0) {
        std::fclose(f);
        return static_cast<std::uint64_t>(kib) << 10;
      }
    std::fclose(f);
  }
  const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  return std::numeric_limits<std::uint64_t>::max();
}

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / double(1u << 30));
  return buf;
}

/// A few bytes of size line can declare 2^31 - 1 rows (16 GiB of row pointers, allocated at
/// once) or rows that make the machine swap for minutes: such a size line is refused before
/// anything is allocated, naming the memory it needs.
void check_memory(const std::string& path, long long line, const std::string& what,
                  std::uint64_t bytes, std::uint64_t limit) {
  const std::uint64_t available = limit ? limit : available_memory();
  if (bytes > available)
    throw parse_error(path, line,
                      what + ": holding it needs about " + gib(bytes) + ", more than the " +
                          gib(available) + " of memory available");
}

template <class V>
host_csr<V> read_mm_impl(const std::string& path, bool require_square,
                         const read_options& options, std::uint64_t bytes_per_row = 0) {
  const file_bytes file(path);
  const std::string_view data = file.view();
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
    const std::uint64_t stored = sym == mm_symmetry::general ? want : 2 * want;
    // Row pointers and assemble's cursors per row (plus what the caller keeps per row), and per
    // entry the triples and the CSR being built from them.
    const std::uint64_t value_bytes = has_values_v<V> ? sizeof(V) : 0;
    const std::uint64_t bytes = (static_cast<std::uint64_t>(rows) + 1) * (2 * sizeof(offset_t) + bytes_per_row) +
                                stored * (3 * sizeof(index_t) + 2 * value_bytes);
    check_memory(path, size_line,
                 "the size line declares a " + std::to_string(rows) + " x " + std::to_string(cols) +
                     " matrix with " + std::to_string(nnz) + " entries",
                 bytes, options.memory_limit);
    t.reserve(static_cast<std::size_t>(stored));
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
      if constexpr (has_values_v<V>) {
        if (options.nonnegative && v < V(0))
          throw parse_error(path, ln,
                            "negative value " + quote(tok[2]) +
                                ": values must be >= 0 here (similarities)");
        if (options.nonnegative && sym == mm_symmetry::skew && v != V(0))
          throw parse_error(path, ln,
                            "the mirror of " + quote(tok[2]) +
                                " in a skew-symmetric matrix is negative: values must be >= 0 "
                                "here (similarities)");
      }
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

/// An edge's weight; false with what is wrong with it in `error` (the parallel readers record
/// the message and throw it later with the line number, which only then is known).
/// `tok` empty: a line without a weight (1). `transform` (optional): read_options::weight_transform.
bool parse_weight(std::string_view tok, double& w, std::string& error, bool nonnegative,
                  const std::function<double(double)>* transform = nullptr) {
  const num_status st = tok.empty() ? (w = 1.0, num_status::ok) : parse_double(tok, w);
  if (st == num_status::bad) error = "expected a numeric weight, found " + quote(tok);
  else if (st == num_status::out_of_range) error = "weight " + quote(tok) + " overflows double";
  else if (!std::isfinite(w)) error = "weight " + quote(tok) + " is not finite (NaN or infinity)";
  else if (transform && *transform && !std::isfinite(w = (*transform)(w)))
    error = "weight " + quote(tok.empty() ? "1" : tok) + " is not finite after the transform";
  else if (nonnegative && w < 0)
    error = "negative weight " + quote(tok.empty() ? "1" : tok) +
            (transform && *transform ? " (after the transform: " + std::to_string(w) +
                                           "; a last transform step gq(0) drops such edges)"
                                     : "") +
            ": weights must be >= 0 here (similarities)";
  else return true;
  return false;
}

double edge_weight(const std::string& path, long long line, std::string_view tok,
                   const read_options& options) {
  double w = 0;
  std::string error;
  if (!parse_weight(tok, w, error, options.nonnegative, &options.weight_transform))
    throw parse_error(path, line, error);
  return w;
}

/// Splits an ABC line that holds a TAB as mcl does: a field is a run of bytes between TABs, so a
/// label may contain spaces ("x<TAB>gene 1" is the labels "x" and "gene 1"), and runs of TABs
/// separate like one. Blanks around a field (a CRLF's '\r' too) are not part of it; mcl keeps
/// them, so a label written with and without surrounding spaces is one node here and two there.
/// At most three fields go to `tok`; `extra` is the text from a fourth field on.
void split_tab_fields(std::string_view line, std::string_view (&tok)[3], int& ntok,
                      std::string_view& extra) {
  ntok = 0;
  extra = {};
  std::size_t at = 0;
  while (at <= line.size()) {
    std::size_t tab = line.find('\t', at);
    if (tab == std::string_view::npos) tab = line.size();
    std::string_view field = line.substr(at, tab - at);
    while (!field.empty() && is_blank(field.front())) field.remove_prefix(1);
    while (!field.empty() && is_blank(field.back())) field.remove_suffix(1);
    if (!field.empty()) {
      if (ntok == 3) {
        extra = line.substr(static_cast<std::size_t>(field.data() - line.data()));
        while (!extra.empty() && is_blank(extra.back())) extra.remove_suffix(1);
        return;
      }
      tok[ntok++] = field;
    }
    at = tab + 1;
  }
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

/// Where an edge-list or ABC reading starts and what it reports besides the graph.
struct text_reading {
  read_options options;
  long long line_base = 0;   ///< lines before the text read (a header skipped): added to line numbers
  long long edge_lines = 0;  ///< out: the edge lines read (duplicates included)
};

labelled_graph finish_graph(const std::string& path, const line_reader& lines, triples<double>& t,
                            std::vector<std::string> labels, text_reading& r) {
  if (t.row.empty())
    throw parse_error(path, 0,
                      "no edges found (" + std::to_string(r.line_base + lines.line_no()) +
                          " lines, all blank or comments)");
  r.edge_lines = static_cast<long long>(t.row.size());
  const index_t n = static_cast<index_t>(labels.size());
  labelled_graph g;
  g.adj = assemble(path, n, n, t, combine_max, "");
  g.labels = std::move(labels);
  return g;
}

/// The serial readers: the reference that the parallel ones below must agree with (their tests
/// compare the two), and the reader for files too large for the parallel numbering.
labelled_graph read_edge_list_serial(const std::string& path, std::string_view data,
                                     text_reading& r) {
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
    const long long ln = r.line_base + lines.line_no();
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
    const double w = edge_weight(path, ln, ntok == 3 ? tok[2] : std::string_view(), r.options);
    if (const std::string_view extra = tk.rest(); !extra.empty())
      throw parse_error(path, ln, "unexpected text after 'u v [w]': " + quote(extra));
    t.push(ends[0], ends[1], w);
  }
  return finish_graph(path, lines, t, std::move(labels), r);
}

labelled_graph read_abc_serial(const std::string& path, std::string_view data, text_reading& r) {
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
    const long long ln = r.line_base + lines.line_no();
    std::string_view tok[3];
    int ntok = 0;
    std::string_view extra;
    const bool tabbed = line.find('\t') != std::string_view::npos;
    if (tabbed) {
      split_tab_fields(line, tok, ntok, extra);
    } else {
      tokenizer tk(line);
      for (std::string_view x; ntok < 3 && tk.next(x);) tok[ntok++] = x;
      extra = tk.rest();
    }
    if (ntok < 2)
      throw parse_error(path, ln, "expected 'label<TAB>label[<TAB>weight]', found " + quote(line));
    const std::string_view la = tok[0], lb = tok[1];
    const index_t a = ids.find_or_add(path, ln, la, labels, [la] { return std::string(la); });
    const index_t b = ids.find_or_add(path, ln, lb, labels, [lb] { return std::string(lb); });
    const double w = edge_weight(path, ln, ntok == 3 ? tok[2] : std::string_view(), r.options);
    if (!extra.empty())
      throw parse_error(path, ln, "unexpected text after 'label label [weight]': " + quote(extra));
    t.push(a, b, w);
  }
  return finish_graph(path, lines, t, std::move(labels), r);
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

// ------------------------------------------------------------------------------------------------
// Parallel edge-list and ABC reading
// ------------------------------------------------------------------------------------------------
//
// A 200,000-vertex, 1,000,000-edge ABC file (35 MB, the MCL benchmark's input) took 0.45 s to
// read serially, most of it in the vertex numbering: every lookup of its 12 MB table missed the
// cache twice, once for the slot and once for the label it points to in the file. This reader:
//  1. cuts the file into chunks of whole lines and parses them in parallel. A line's endpoints
//     become keys (a label's hash, its first 16 bytes and where it is; or an integer id), its
//     weight a double. Each chunk numbers its distinct keys in order of first occurrence, in a
//     table that stays in cache, and groups them by the top bits of their hash (the partition).
//  2. numbers the keys of every partition in parallel, visiting the chunks in file order, in a
//     small table of its own; most labels compare by their first 16 bytes, without reading the
//     file again. A key new to its partition occurs first in the file in the chunk that offers it.
//  3. numbers the vertices: the count of such keys per chunk gives each chunk its first vertex
//     number, and within a chunk they come in order of first occurrence. This is exactly the
//     serial reader's numbering by first appearance.
//  4. builds the CSR in parallel: rows filled in any order, then sorted by (column, position in
//     the file), so that duplicates still meet in file order and keep the serial reader's maximum.
// Errors: a chunk stops at its first bad line and records it. The first chunk with an error holds
// the file's first bad line, whose number is the lines of the chunks before it plus its line in
// the chunk; the message is the serial reader's. Every result is independent of the thread count.

/// Test hooks (detail::set_text_reader_tuning).
std::atomic<std::size_t> tuned_chunk_bytes{0};
std::atomic<bool> tuned_serial{false};

/// 256 KiB is about 7,000 lines of a protein network: 140 chunks from the 35 MB benchmark file,
/// enough for 16 threads to balance (dynamic schedule) while the per-chunk bookkeeping (an
/// offset per partition) stays negligible; a file under 256 KiB is one chunk, read serially.
constexpr std::size_t default_chunk_bytes = std::size_t(256) << 10;
/// A chunk of at most 1 GiB has fewer than 2^30 endpoints (a line has at least 4 bytes), so
/// that the chunk's numbers of its keys fit in index_t and its offsets in 32 bits.
constexpr std::size_t max_chunk_bytes = std::size_t(1) << 30;
/// Up to 2^8 partitions (a partition number is a byte): 200,000 labels make ~800 per partition,
/// whose table (16 KiB) and keys (25 KiB) stay in L1/L2 while the partition is numbered.
constexpr unsigned max_partition_bits = 8;

/// Runs f(i) for every i in [0, n) on the OpenMP threads, one at a time from a shared counter
/// (chunks and partitions differ in cost). Nothing may throw out of an OpenMP region, so the first
/// exception (an allocation failure: parse errors are recorded, not thrown) is rethrown after it.
template <class F>
void parallel_for(std::size_t n, F&& f) {
  std::exception_ptr error;
  std::atomic<bool> failed{false};
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
  for (long long i = 0; i < static_cast<long long>(n); ++i) {
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      f(static_cast<std::size_t>(i));
    } catch (...) {
#pragma omp critical(opsparse_io_parallel_for)
      if (!error) error = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  }
  if (error) std::rethrow_exception(error);
}

/// splitmix64's finaliser: every output bit depends on every input bit, so consecutive integer
/// ids spread over the slots and the top bits make fair partitions.
inline std::uint64_t mix64(std::uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

/// 64x64 -> 128-bit product folded to 64 bits: the mixing step of the label hash.
inline std::uint64_t fold_multiply(std::uint64_t a, std::uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

/// n (1..8) bytes at p as a zero-padded little-endian word. `end` is the end of the file: when 8
/// bytes are readable (all but the file's last few) this is one unaligned load and a mask.
inline std::uint64_t load_word(const char* p, std::size_t n, const char* end) {
  std::uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (end - p >= 8) {
    std::memcpy(&w, p, 8);
    return n >= 8 ? w : w & ((std::uint64_t(1) << (8 * n)) - 1);
  }
#else
  (void)end;
#endif
  std::memcpy(&w, p, n < 8 ? n : 8);
  return w;
}

/// An ABC endpoint: a label, as the hash of its bytes, its first 16 bytes (zero-padded) and
/// where it is in the file. Labels of up to 16 bytes (P000123, YAL001C, ENSP00000354587) compare
/// on these words alone; longer ones also compare their tails in the file. 32 bytes: there are
/// two per line, and every byte of them is a page fault to pay on a large file.
struct label_key {
  std::uint64_t hash;
  std::uint64_t head[2];
  std::uint64_t where;  ///< offset in the file << length_bits | length
};
/// Limits of label_key::where; a file beyond them goes to the serial reader.
constexpr unsigned length_bits = 24;                                   // labels under 16 MiB
constexpr std::uint64_t max_label_length = (std::uint64_t(1) << length_bits) - 1;
constexpr std::uint64_t max_label_offset = (std::uint64_t(1) << (64 - length_bits)) - 1;  // 1 TiB

/// An edge-list endpoint: the integer id.
struct id_key {
  std::int64_t id;
};

/// What differs between ABC files and edge lists: what an endpoint is and the messages.
struct abc_format {
  using key = label_key;
  /// A line that holds a TAB is split on TABs (split_tab_fields), as mcl splits ABC lines.
  static constexpr bool tab_fields = true;
  const char* base;  ///< the file
  const char* end;
  bool nonnegative = false;  ///< read_options::nonnegative
  const std::function<double(double)>* transform = nullptr;  ///< read_options::weight_transform

  bool endpoint(std::string_view tok, key& k, std::string& /*error*/) const {
    const char* p = tok.data();
    const std::size_t n = tok.size();  // at least 1: tokens are non-empty
    const std::uint64_t w0 = load_word(p, n, end);
    const std::uint64_t w1 = n > 8 ? load_word(p + 8, n - 8, end) : 0;
    // Hash constants: wyhash's primes; any odd constants with mixed bits would do.
    std::uint64_t h = fold_multiply(w0 ^ 0xa0761d6478bd642fULL, w1 ^ 0xe7037ed1a0b428dbULL ^ n);
    for (std::size_t i = 16; i < n; i += 16) {
      const std::uint64_t a = load_word(p + i, n - i, end);
      const std::uint64_t b = n - i > 8 ? load_word(p + i + 8, n - i - 8, end) : 0;
      h = fold_multiply(a ^ h ^ 0x8ebc6af09c88c6e3ULL, b ^ 0x589965cc75374cc3ULL);
    }
    k.hash = mix64(h);
    k.head[0] = w0;
    k.head[1] = w1;
    // read_edges_parallel sends files with longer labels or beyond the offset limit to the
    // serial reader (fits_key).
    k.where = static_cast<std::uint64_t>(p - base) << length_bits | (n & max_label_length);
    return true;
  }
  static bool fits_key(std::string_view tok) { return tok.size() <= max_label_length; }
  std::uint64_t hash(const key& k) const { return k.hash; }
  bool equal(const key& a, const key& b) const {
    // Equal `where` lengths and heads; a tail beyond 16 bytes is compared in the file.
    const std::size_t length = static_cast<std::size_t>(a.where & max_label_length);
    return a.hash == b.hash && a.head[0] == b.head[0] && a.head[1] == b.head[1] &&
           length == (b.where & max_label_length) &&
           (length <= 16 || std::memcmp(base + (a.where >> length_bits) + 16,
                                        base + (b.where >> length_bits) + 16, length - 16) == 0);
  }
  std::string label(const key& k) const {
    return std::string(base + (k.where >> length_bits),
                       static_cast<std::size_t>(k.where & max_label_length));
  }
  static std::string bad_shape(std::string_view line) {
    return "expected 'label<TAB>label[<TAB>weight]', found " + quote(line);
  }
  static std::string trailing(std::string_view rest) {
    return "unexpected text after 'label label [weight]': " + quote(rest);
  }
};

struct edge_list_format {
  using key = id_key;
  static constexpr bool tab_fields = false;
  bool nonnegative = false;  ///< read_options::nonnegative
  const std::function<double(double)>* transform = nullptr;  ///< read_options::weight_transform

  bool endpoint(std::string_view tok, key& k, std::string& error) const {
    const num_status st = parse_int64(tok, k.id);
    if (st == num_status::ok) return true;
    error = st == num_status::bad ? "expected an integer vertex id, found " + quote(tok)
                                  : "vertex id " + quote(tok) + " does not fit in 64 bits";
    return false;
  }
  static bool fits_key(std::string_view) { return true; }
  std::uint64_t hash(const key& k) const { return mix64(static_cast<std::uint64_t>(k.id)); }
  bool equal(const key& a, const key& b) const { return a.id == b.id; }
  // Canonical decimal label: "007" and "7" are the same integer id, hence one vertex.
  std::string label(const key& k) const { return std::to_string(k.id); }
  static std::string bad_shape(std::string_view line) {
    return "expected 'u v [w]', found " + quote(line);
  }
  static std::string trailing(std::string_view rest) {
    return "unexpected text after 'u v [w]': " + quote(rest);
  }
};

/// Blank (is_blank) or '\n': where a token ends. '\t' '\n' '\v' '\f' '\r' are 9..13, ' ' is 32.
inline bool ends_token(char c) {
  const unsigned u = static_cast<unsigned char>(c);
  return u <= 32 && ((std::uint64_t(1) << u) & ((std::uint64_t(1) << 32) | 0x3e00u)) != 0;
}

/// The first byte at or after p that ends a token (or `end`). Eight bytes at a time while they
/// are readable: a byte below '!' is a candidate (blanks, '\n', and control bytes that do not
/// end tokens), found with the borrow trick, exact for the lowest such byte of the word.
inline const char* token_end(const char* p, const char* end) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (end - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    const std::uint64_t low = (w - 0x2121212121212121ULL) & ~w & 0x8080808080808080ULL;
    if (!low) {
      p += 8;
      continue;
    }
    p += __builtin_ctzll(low) >> 3;
    if (ends_token(*p)) return p;
    ++p;
  }
#endif
  while (p < end && !ends_token(*p)) ++p;
  return p;
}

/// A piece of the file made of whole lines (only the file's last line may lack its '\n').
struct text_chunk {
  const char* begin;
  const char* end;
};

/// Cuts `text` into chunks of about `target` bytes, each ending just after a '\n'.
std::vector<text_chunk> split_lines(std::string_view text, std::size_t target) {
  std::vector<text_chunk> out;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* stop = end;
    if (static_cast<std::size_t>(end - p) > target) {
      // The chunk ends with the line that holds its target's last byte.
      const char* nl = static_cast<const char*>(
          std::memchr(p + target - 1, '\n', static_cast<std::size_t>(end - (p + target - 1))));
      stop = nl ? nl + 1 : end;
    }
    out.push_back({p, stop});
    p = stop;
  }
  return out;
}

/// Numbers distinct keys 0, 1, 2, ... in the order they are first offered. The keys are kept
/// densely in that order (what the caller needs next); the table holds only a tag of the hash
/// and the number, 8 bytes a slot, so that it stays in cache. Open addressing with linear
/// probing, load at most 1/2.
template <class Format>
class key_numbering {
 public:
  using key = typename Format::key;

  explicit key_numbering(const Format& fmt) : fmt_(&fmt) {}

  /// Forgets every key, keeping the memory; sized for about `expected` keys (it grows anyway).
  void reset(std::size_t expected) {
    keys_.clear();
    std::size_t size = 16;
    while (size < 2 * expected) size *= 2;
    if (slots_.size() < size) slots_.resize(size);
    std::fill(slots_.begin(), slots_.end(), slot{0, empty});
  }

  /// The number of `k`: size() - 1 after the call when it is new.
  std::uint32_t find_or_add(const key& k) {
    const std::uint64_t h = fmt_->hash(k);
    const std::uint32_t tag = static_cast<std::uint32_t>(h >> 16);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t at = static_cast<std::size_t>(h) & mask;; at = (at + 1) & mask) {
      const slot s = slots_[at];
      if (s.number == empty) break;
      if (s.tag == tag && fmt_->equal(keys_[s.number], k)) return s.number;
    }
    const std::uint32_t number = static_cast<std::uint32_t>(keys_.size());
    keys_.push_back(k);
    place(h, number);
    if (keys_.size() * 2 > slots_.size()) grow();
    return number;
  }

  std::size_t size() const { return keys_.size(); }
  const std::vector<key>& keys() const { return keys_; }

 private:
  struct slot {
    std::uint32_t tag;
    std::uint32_t number;
  };
  static constexpr std::uint32_t empty = std::numeric_limits<std::uint32_t>::max();

  void place(std::uint64_t h, std::uint32_t number) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t at = static_cast<std::size_t>(h) & mask;
    while (slots_[at].number != empty) at = (at + 1) & mask;
    slots_[at] = slot{static_cast<std::uint32_t>(h >> 16), number};
  }

  void grow() {
    slots_.assign(slots_.size() * 2, slot{0, empty});
    for (std::size_t i = 0; i < keys_.size(); ++i)
      place(fmt_->hash(keys_[i]), static_cast<std::uint32_t>(i));
  }

  const Format* fmt_;
  std::vector<key> keys_;
  std::vector<slot> slots_;
};

/// What one chunk holds once parsed, then numbered. Its distinct keys are numbered in the chunk
/// first (a table that stays in cache): an endpoint is then 4 bytes, and only the distinct keys,
/// about half of the endpoints of a protein network's chunk, go on to their partitions.
template <class Key>
struct chunk_edges {
  std::vector<index_t> ends;               ///< both endpoints of every edge, in file order: the
                                           ///< chunk's number of the key, later the vertex
  std::vector<double> weight;              ///< of every edge, in file order
  std::vector<Key> keys;                   ///< distinct keys grouped by partition; within one, in
                                           ///< the chunk's order (of first occurrence)
  std::vector<std::uint32_t> part_start;   ///< partitions + 1 offsets into keys
  std::vector<std::uint8_t> part;          ///< partition of every distinct key, by chunk number
  std::vector<std::uint32_t> number;       ///< of keys[i] in its partition | first_in_file
  long long lines = 0;                     ///< lines read
  long long error_line = 0;                ///< first bad line, 1-based in the chunk; 0: none
  std::string error;                       ///< what is wrong with it
  bool unfit = false;                      ///< a token too long for a key (serial reader)

  /// Calls f(j, i) for every distinct key in the chunk's order, j being its chunk number and i
  /// its position in keys: each partition's keys are in that order, so a cursor per partition
  /// follows them.
  template <class F>
  void in_chunk_order(F&& f) const {
    std::vector<std::uint32_t> cursor(part_start.begin(), part_start.end() - 1);
    for (std::size_t j = 0; j < part.size(); ++j) f(j, cursor[part[j]]++);
  }
};

/// Flag in chunk_edges::number: the key's first occurrence in the file is in this chunk.
constexpr std::uint32_t first_in_file = std::uint32_t(1) << 31;

/// Parses one chunk as the serial reader parses its lines (same checks in the same order),
/// numbering its distinct keys in `local` (the calling thread's), then groups them by partition.
template <class Format>
void parse_chunk(const Format& fmt, const text_chunk& chunk, unsigned part_bits,
                 key_numbering<Format>& local, chunk_edges<typename Format::key>& out) {
  using key = typename Format::key;
  // A line has at least 4 bytes ("a b\n"); a protein network's about 35.
  const std::size_t bytes = static_cast<std::size_t>(chunk.end - chunk.begin);
  local.reset(bytes / 32);
  out.ends.reserve(bytes / 16 + 2);
  out.weight.reserve(bytes / 32 + 1);
  const char* p = chunk.begin;
  const char* const end = chunk.end;
  auto line_end = [end](const char* q) {
    const char* nl = static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(end - q)));
    return nl ? nl : end;
  };
  long long line = 0;
  std::string error;
  while (p < end) {
    ++line;
    const char* const line_begin = p;
    while (p < end && is_blank(*p)) ++p;
    if (p == end) break;
    if (*p == '\n') {  // blank line
      ++p;
      continue;
    }
    // A comment (ABC too: see read_abc_serial). No NUL byte gets here (file_bytes).
    if (*p == '#') {
      const char* stop = line_end(p);
      p = stop == end ? end : stop + 1;
      continue;
    }
    std::string_view tok[3];
    int ntok = 0;
    std::string_view extra;  // text after a third field
    bool tabbed = false;
    if constexpr (Format::tab_fields) {
      const char* const stop = line_end(line_begin);
      const std::string_view whole(line_begin, static_cast<std::size_t>(stop - line_begin));
      if (whole.find('\t') != std::string_view::npos) {
        tabbed = true;
        split_tab_fields(whole, tok, ntok, extra);
        p = stop;
      }
    }
    if (!tabbed) {
      for (;;) {
        const char* const t = p;
        p = token_end(p, end);
        tok[ntok++] = std::string_view(t, static_cast<std::size_t>(p - t));
        while (p < end && is_blank(*p)) ++p;
        if (p == end || *p == '\n' || ntok == 3) break;
      }
      // p is at the end of the line, or at a fourth token.
      if (p < end && *p != '\n') {
        const char* const stop = line_end(p);
        extra = std::string_view(p, static_cast<std::size_t>(stop - p));
        p = stop;
      }
    }
    key ends[2]{};
    bool ok = ntok >= 2;
    const auto whole_line = [&] {
      return std::string_view(line_begin,
                              static_cast<std::size_t>(line_end(line_begin) - line_begin));
    };
    if (!ok) error = Format::bad_shape(whole_line());
    for (int e = 0; ok && e < 2; ++e) {
      if (!Format::fits_key(tok[e])) out.unfit = true;
      ok = fmt.endpoint(tok[e], ends[e], error);
    }
    double w = 1.0;
    if (ok) ok = parse_weight(ntok == 3 ? tok[2] : std::string_view(), w, error, fmt.nonnegative,
                              fmt.transform);
    if (ok && !extra.empty()) {
      error = Format::trailing(extra);
      ok = false;
    }
    if (!ok) {
      out.lines = line;
      out.error_line = line;
      out.error = std::move(error);
      return;
    }
    out.ends.push_back(static_cast<index_t>(local.find_or_add(ends[0])));
    out.ends.push_back(static_cast<index_t>(local.find_or_add(ends[1])));
    out.weight.push_back(w);
    if (p < end) ++p;  // the '\n'
  }
  out.lines = line;

  // Counting sort of the distinct keys by partition; stable, so each partition's keys stay in
  // the chunk's order.
  const std::vector<key>& keys = local.keys();
  const std::size_t parts = std::size_t(1) << part_bits;
  out.part.resize(keys.size());
  out.part_start.assign(parts + 1, 0);
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const std::uint8_t q =
        part_bits ? static_cast<std::uint8_t>(fmt.hash(keys[j]) >> (64 - part_bits)) : 0;
    out.part[j] = q;
    ++out.part_start[q + 1u];
  }
  for (std::size_t q = 0; q < parts; ++q) out.part_start[q + 1] += out.part_start[q];
  out.keys.resize(keys.size());
  out.in_chunk_order([&](std::size_t j, std::uint32_t i) { out.keys[i] = keys[j]; });
  out.number.resize(keys.size());
}

/// Below this many entries a loop over rows runs on one thread: waking a team costs more.
constexpr std::size_t parallel_rows_min_entries = 1 << 16;

/// Groups the items of `sources` by row, in parallel and stably: a row's items keep the order of
/// their sources and, within a source, their order. each_item(s, emit) calls emit(row, item)
/// for the items of source s in order. Returns the items; rpt gets the rows' offsets (rows + 1).
/// A two-level counting sort: the sources scatter their items into buckets of consecutive rows,
/// each source into places of its own, then each bucket is sorted by row on one thread. No two
/// threads write the same counter: shared counters (even atomic ones) hit at random make every
/// update a cache-line transfer between cores, which made the CSR assembly slower on two threads
/// than on one.
template <class Item, class EachItem>
std::unique_ptr<Item[]> group_by_row(index_t n, std::size_t sources, const EachItem& each_item,
                                     std::vector<offset_t>& rpt) {
  const std::size_t rows = static_cast<std::size_t>(n);
  rpt.assign(rows + 1, 0);
  const std::size_t threads = static_cast<std::size_t>(omp_get_max_threads());
  // About 8 buckets per thread for balance; one when there is nothing to share.
  const std::size_t want = sources > 1 && threads > 1 ? 8 * threads : 1;
  unsigned shift = 0;
  while (((rows + (std::size_t(1) << shift) - 1) >> shift) > want) ++shift;
  const std::size_t buckets = (rows + (std::size_t(1) << shift) - 1) >> shift;

  if (buckets <= 1) {  // one thread: a plain counting sort
    for (std::size_t s = 0; s < sources; ++s)
      each_item(s, [&](index_t r, const Item&) { ++rpt[static_cast<std::size_t>(r) + 1]; });
    for (std::size_t r = 0; r < rows; ++r) rpt[r + 1] += rpt[r];
    std::unique_ptr<Item[]> out(new Item[static_cast<std::size_t>(rpt[rows])]);
    std::vector<offset_t> next(rpt.begin(), rpt.end() - 1);
    for (std::size_t s = 0; s < sources; ++s)
      each_item(s, [&](index_t r, const Item& x) {
        out[static_cast<std::size_t>(next[static_cast<std::size_t>(r)]++)] = x;
      });
    return out;
  }

  // at[s][b]: items of source s in bucket b, then where source s writes its next one there.
  std::vector<std::vector<offset_t>> at(sources);
  parallel_for(sources, [&](std::size_t s) {
    at[s].assign(buckets, 0);
    each_item(s, [&](index_t r, const Item&) { ++at[s][static_cast<std::size_t>(r) >> shift]; });
  });
  std::vector<offset_t> bucket_start(buckets + 1, 0);
  offset_t total = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    bucket_start[b] = total;
    for (std::size_t s = 0; s < sources; ++s) total += std::exchange(at[s][b], total);
  }
  bucket_start[buckets] = total;
  // Not value-initialised: every place is written once.
  std::unique_ptr<Item[]> staged(new Item[static_cast<std::size_t>(total)]);
  std::unique_ptr<index_t[]> staged_row(new index_t[static_cast<std::size_t>(total)]);
  parallel_for(sources, [&](std::size_t s) {
    each_item(s, [&](index_t r, const Item& x) {
      const std::size_t i = static_cast<std::size_t>(at[s][static_cast<std::size_t>(r) >> shift]++);
      staged[i] = x;
      staged_row[i] = r;
    });
  });
  std::unique_ptr<Item[]> out(new Item[static_cast<std::size_t>(total)]);
  parallel_for(buckets, [&](std::size_t b) {
    // rpt[r + 1] for the bucket's rows: counts, then starts, then (after the scatter) ends.
    const std::size_t r0 = b << shift, r1 = std::min(rows, r0 + (std::size_t(1) << shift));
    const std::size_t i0 = static_cast<std::size_t>(bucket_start[b]);
    const std::size_t i1 = static_cast<std::size_t>(bucket_start[b + 1]);
    for (std::size_t i = i0; i < i1; ++i) ++rpt[static_cast<std::size_t>(staged_row[i]) + 1];
    offset_t start = bucket_start[b];
    for (std::size_t r = r0; r < r1; ++r) start += std::exchange(rpt[r + 1], start);
    for (std::size_t i = i0; i < i1; ++i)
      out[static_cast<std::size_t>(rpt[static_cast<std::size_t>(staged_row[i]) + 1]++)] = staged[i];
  });
  return out;
}

/// One entry of a row being assembled: `edge` is the line's position among the file's edges.
struct row_entry {
  index_t col;
  std::uint32_t edge;
  double val;
};

/// The adjacency from the numbered edges of all chunks (see step 4 above); frees the chunks.
/// Duplicates keep the maximum, combined in file order as in assemble() (which decides between
/// 0 and -0).
template <class Key>
host_csr<double> assemble_edges(index_t n, std::vector<chunk_edges<Key>>& chunks) {
  const std::size_t nchunks = chunks.size();
  std::vector<std::uint32_t> edge_base(nchunks + 1, 0);
  for (std::size_t c = 0; c < nchunks; ++c)
    edge_base[c + 1] = edge_base[c] + static_cast<std::uint32_t>(chunks[c].weight.size());
  const bool parallel_rows = edge_base[nchunks] >= parallel_rows_min_entries;

  // Rows in file order.
  std::vector<offset_t> start;
  const std::unique_ptr<row_entry[]> entries = group_by_row<row_entry>(
      n, nchunks,
      [&](std::size_t c, auto&& emit) {
        const std::vector<index_t>& v = chunks[c].ends;
        const std::vector<double>& w = chunks[c].weight;
        for (std::size_t e = 0; e < w.size(); ++e)
          emit(v[2 * e], row_entry{v[2 * e + 1], edge_base[c] + static_cast<std::uint32_t>(e), w[e]});
      },
      start);
  parallel_for(nchunks, [&](std::size_t c) { chunks[c] = chunk_edges<Key>(); });

  // Sort every row by (column, position in the file) and combine its duplicates in place.
  host_csr<double> m(n, n);
  const auto before = [](const row_entry& a, const row_entry& b) {
    return a.col < b.col || (a.col == b.col && a.edge < b.edge);
  };
#pragma omp parallel for schedule(dynamic, 1024) if (parallel_rows)
  for (index_t r = 0; r < n; ++r) {
    row_entry* const first = entries.get() + start[static_cast<std::size_t>(r)];
    row_entry* const last = entries.get() + start[static_cast<std::size_t>(r) + 1];
    if (last - first <= 16) {  // most rows: insertion sort
      for (row_entry* i = first + 1; i < last; ++i)
        for (row_entry* j = i; j > first && before(*j, *(j - 1)); --j) std::swap(*j, *(j - 1));
    } else {
      std::sort(first, last, before);
    }
    row_entry* out = first;
    for (const row_entry* i = first; i < last; ++i) {
      if (out > first && (out - 1)->col == i->col) {
        combine_max((out - 1)->val, i->val);
        continue;
      }
      *out++ = *i;
    }
    m.rpt[static_cast<std::size_t>(r) + 1] = out - first;
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(n); ++r) m.rpt[r + 1] += m.rpt[r];
  m.col.resize(static_cast<std::size_t>(m.rpt.back()));
  m.val.resize(static_cast<std::size_t>(m.rpt.back()));
#pragma omp parallel for schedule(dynamic, 1024) if (parallel_rows)
  for (index_t r = 0; r < n; ++r) {
    const row_entry* in = entries.get() + start[static_cast<std::size_t>(r)];
    for (offset_t k = m.rpt[r]; k < m.rpt[r + 1]; ++k, ++in) {
      m.col[static_cast<std::size_t>(k)] = in->col;
      m.val[static_cast<std::size_t>(k)] = in->val;
    }
  }
  return m;
}

std::size_t chunk_bytes() {
  const std::size_t tuned = tuned_chunk_bytes.load(std::memory_order_relaxed);
  return tuned ? std::min(tuned, max_chunk_bytes) : default_chunk_bytes;
}

/// The parallel reader (see above); `serial` reads files beyond its limits.
template <class Format>
labelled_graph read_edges_parallel(const std::string& path, std::string_view data,
                                   const Format& fmt, text_reading& r,
                                   labelled_graph (*serial)(const std::string&, std::string_view,
                                                            text_reading&)) {
  using key = typename Format::key;
  std::string_view text = data;
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.remove_prefix(3);
  const std::vector<text_chunk> pieces = split_lines(text, chunk_bytes());
  const std::size_t nchunks = pieces.size();
  // About one partition per chunk: enough of them to keep every thread busy, each a fraction
  // of the labels.
  unsigned part_bits = 0;
  while (part_bits < max_partition_bits && (std::size_t(2) << part_bits) <= nchunks) ++part_bits;
  const std::size_t parts = std::size_t(1) << part_bits;

  // 1. Parse. A chunk after one with a bad line is skipped: only the first bad line counts.
  std::vector<chunk_edges<key>> chunks(nchunks);
  {
    std::vector<key_numbering<Format>> local(static_cast<std::size_t>(omp_get_max_threads()),
                                             key_numbering<Format>(fmt));
    std::atomic<std::size_t> first_bad{nchunks};
    parallel_for(nchunks, [&](std::size_t c) {
      if (c > first_bad.load(std::memory_order_relaxed)) return;
      parse_chunk(fmt, pieces[c], part_bits, local[static_cast<std::size_t>(omp_get_thread_num())],
                  chunks[c]);
      if (chunks[c].error_line == 0) return;
      std::size_t seen = first_bad.load();
      while (c < seen && !first_bad.compare_exchange_weak(seen, c)) {
      }
    });
  }
  long long lines = 0;
  std::size_t endpoints = 0;
  bool unfit = false;
  for (const chunk_edges<key>& ch : chunks) {
    if (ch.error_line) throw parse_error(path, r.line_base + lines + ch.error_line, ch.error);
    lines += ch.lines;
    endpoints += ch.ends.size();
    unfit = unfit || ch.unfit;
  }
  if (endpoints == 0)
    throw parse_error(path, 0,
                      "no edges found (" + std::to_string(r.line_base + lines) +
                          " lines, all blank or comments)");
  if (unfit || data.size() > max_label_offset ||
      endpoints > static_cast<std::size_t>(std::numeric_limits<index_t>::max())) {
    // Beyond the keys' limits, or 2^31 endpoints: perhaps more vertices than index_t numbers,
    // and the serial reader stops at the exact line where they run out.
    chunks = {};
    return serial(path, data, r);
  }
  r.edge_lines = static_cast<long long>(endpoints / 2);

  // 2. Number every partition's keys, chunk after chunk, and flag first occurrences.
  std::vector<std::uint32_t> distinct(parts, 0);  // keys per partition
  parallel_for(parts, [&](std::size_t q) {
    std::size_t offered = 0;
    for (const chunk_edges<key>& ch : chunks) offered += ch.part_start[q + 1] - ch.part_start[q];
    key_numbering<Format> table(fmt);
    // A protein network's chunk offers a vertex to its partition ~5 times; the table grows
    // when that guess is low.
    table.reset(offered / 4);
    for (chunk_edges<key>& ch : chunks)
      for (std::uint32_t i = ch.part_start[q]; i < ch.part_start[q + 1]; ++i) {
        const std::size_t before = table.size();
        const std::uint32_t l = table.find_or_add(ch.keys[i]);
        ch.number[i] = table.size() > before ? (l | first_in_file) : l;
      }
    distinct[q] = static_cast<std::uint32_t>(table.size());
  });

  // 3. Vertex numbers by first occurrence: count the first occurrences of every chunk, then
  //    number them in the chunk's order (of first occurrence), labelling them on the way.
  std::vector<index_t> numbered(nchunks + 1, 0);
  parallel_for(nchunks, [&](std::size_t c) {
    index_t count = 0;
    for (const std::uint32_t l : chunks[c].number) count += (l & first_in_file) != 0;
    numbered[c + 1] = count;
  });
  for (std::size_t c = 0; c < nchunks; ++c) numbered[c + 1] += numbered[c];
  const index_t n = numbered[nchunks];
  std::vector<std::string> labels(static_cast<std::size_t>(n));
  std::vector<std::vector<index_t>> vertex_of(parts);  // by partition, then number in it
  parallel_for(parts, [&](std::size_t q) { vertex_of[q].resize(distinct[q]); });
  parallel_for(nchunks, [&](std::size_t c) {
    const chunk_edges<key>& ch = chunks[c];
    index_t next = numbered[c];
    ch.in_chunk_order([&](std::size_t j, std::uint32_t i) {
      const std::uint32_t l = ch.number[i];
      if (!(l & first_in_file)) return;
      vertex_of[ch.part[j]][l & ~first_in_file] = next;
      labels[static_cast<std::size_t>(next++)] = fmt.label(ch.keys[i]);
    });
  });
  parallel_for(nchunks, [&](std::size_t c) {
    chunk_edges<key>& ch = chunks[c];
    std::vector<index_t> vertex(ch.part.size());  // by the chunk's number
    ch.in_chunk_order([&](std::size_t j, std::uint32_t i) {
      vertex[j] = vertex_of[ch.part[j]][ch.number[i] & ~first_in_file];
    });
    for (index_t& e : ch.ends) e = vertex[static_cast<std::size_t>(e)];
    ch.keys = {};
    ch.part = {};
    ch.number = {};
  });

  // 4. The matrix.
  labelled_graph g;
  g.adj = assemble_edges(n, chunks);
  g.labels = std::move(labels);
  return g;
}

bool use_serial_reader() { return tuned_serial.load(std::memory_order_relaxed); }

/// The first data line of an edge list when it could be an "n m" header: two non-negative
/// integers and nothing else. `next` is the offset of the text after it.
struct edge_list_header {
  std::size_t next = 0;
  long long line = 0;
  std::int64_t n = 0, m = 0;
};

bool header_candidate(std::string_view data, edge_list_header& h) {
  line_reader lines(data);
  std::string_view line;
  while (lines.next(line)) {
    const char c = first_char(line);
    if (c == '\0' || c == '#') continue;
    tokenizer tk(line);
    std::string_view a, b, more;
    if (!tk.next(a) || !tk.next(b) || tk.next(more)) return false;
    if (parse_int64(a, h.n) != num_status::ok || parse_int64(b, h.m) != num_status::ok ||
        h.n < 0 || h.m < 0)
      return false;
    h.line = lines.line_no();
    h.next = data.size() - lines.bytes_left();
    return true;
  }
  return false;
}

/// Every vertex id (the labels of an edge list) in [0, n]: 0-based or 1-based ids of n vertices.
bool ids_within(const std::vector<std::string>& labels, std::int64_t n) {
  for (const std::string& l : labels) {
    std::int64_t id = 0;
    if (parse_int64(l, id) != num_status::ok || id < 0 || id > n) return false;
  }
  return true;
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

labelled_graph read_edge_list(const std::string& path, const read_options& options) {
  return guard_memory(path, [&] {
    const file_bytes file(path);
    const std::string_view data = file.view();
    if (data.empty()) throw parse_error(path, 0, "file is empty (expected 'u v [w]' lines)");
    const auto read = [&](std::string_view text, text_reading& r) {
      if (use_serial_reader()) return read_edge_list_serial(path, text, r);
      edge_list_format fmt;
      fmt.nonnegative = options.nonnegative;
      fmt.transform = &options.weight_transform;
      return read_edges_parallel(path, text, fmt, r, read_edge_list_serial);
    };
    text_reading whole;
    whole.options = options;
    labelled_graph g = read(data, whole);
    // The "n m" header (io.hpp): decided after a first reading, which counts the edge lines,
    // so that a file without one is read once.
    edge_list_header h;
    if (!header_candidate(data, h) || whole.edge_lines - 1 != h.m) return g;
    if (h.m == 0)
      throw parse_error(path, 0,
                        "no edges found (the header 'n m' on line " + std::to_string(h.line) +
                            " announces 0 edges)");
    text_reading rest;
    rest.options = options;
    rest.line_base = h.line;
    labelled_graph after = read(data.substr(h.next), rest);
    return ids_within(after.labels, h.n) ? after : g;
  });
}

labelled_graph read_abc(const std::string& path, const read_options& options) {
  return guard_memory(path, [&] {
    const file_bytes file(path);
    const std::string_view data = file.view();
    if (data.empty()) throw parse_error(path, 0, "file is empty (expected 'a<TAB>b[<TAB>w]' lines)");
    text_reading r;
    r.options = options;
    if (use_serial_reader()) return read_abc_serial(path, data, r);
    abc_format fmt{data.data(), data.data() + data.size()};
    fmt.nonnegative = options.nonnegative;
    fmt.transform = &options.weight_transform;
    return read_edges_parallel(path, data, fmt, r, read_abc_serial);
  });
}

labelled_graph read_graph(const std::string& path, file_format format,
                          const read_options& options) {
  if (format == file_format::automatic) {
    const std::string ext = lower_extension(path);
    format = looks_like_mcl_native(path) ? file_format::mcl_native
             : ext == ".mtx"             ? file_format::matrix_market
             : ext == ".abc" ? file_format::abc
                             : file_format::edge_list;
  }
  switch (format) {
    case file_format::abc: return read_abc(path, options);
    case file_format::edge_list: return read_edge_list(path, options);
    case file_format::mcl_native: return read_mcl_native_graph(path, options);
    case file_format::matrix_market:
    case file_format::automatic: break;
  }
  return guard_memory(path, [&] {
    labelled_graph g;
    // A label per row: a std::string (32 bytes) holding the row number.
    g.adj = read_mm_impl<double>(path, true, options, sizeof(std::string));
    g.labels.reserve(static_cast<std::size_t>(g.adj.rows));
    for (index_t i = 0; i < g.adj.rows; ++i) g.labels.push_back(std::to_string(i + 1));
    return g;
  });
}

host_csr<double> symmetrize_max(const host_csr<double>& a) {
  OPSPARSE_EXPECTS(a.rows == a.cols, "symmetrize_max needs a square matrix");
  validate(a);
  const index_t n = a.rows;
  const std::size_t rows = static_cast<std::size_t>(n);
  const bool parallel = a.col.size() >= parallel_rows_min_entries && omp_get_max_threads() > 1;

  // A^T, grouped by row from blocks of rows of A taken in order: a row of A^T then lists its
  // columns in increasing order, as transpose() does.
  struct entry {
    index_t col;
    double val;
  };
  std::vector<index_t> block{0};  // blocks of rows of A with about 64 Ki entries each
  if (parallel)
    for (index_t i = 0; i < n; ++i)
      if (a.rpt[i + 1] - a.rpt[block.back()] >= offset_t(1) << 16) block.push_back(i + 1);
  if (block.back() != n) block.push_back(n);
  std::vector<offset_t> tpt;
  const std::unique_ptr<entry[]> t = group_by_row<entry>(
      n, block.size() - 1,
      [&](std::size_t s, auto&& emit) {
        for (index_t i = block[s]; i < block[s + 1]; ++i)
          for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k) emit(a.col[k], entry{i, a.val[k]});
      },
      tpt);

  // Row-wise merge of A and A^T. An entry present on one side only keeps its own value (an
  // absent entry is not a zero, which matters for negative weights).
  const auto merge_row = [&](index_t i, auto&& emit) {
    const entry* q = t.get() + tpt[static_cast<std::size_t>(i)];
    const entry* const qe = t.get() + tpt[static_cast<std::size_t>(i) + 1];
    offset_t p = a.rpt[i];
    const offset_t pe = a.rpt[i + 1];
    while (p < pe || q < qe) {
      if (q == qe || (p < pe && a.col[p] < q->col)) {
        emit(a.col[p], a.val[p]);
        ++p;
      } else if (p == pe || q->col < a.col[p]) {
        emit(q->col, q->val);
        ++q;
      } else {
        emit(a.col[p], std::max(a.val[p], q->val));
        ++p;
        ++q;
      }
    }
  };
  host_csr<double> s(n, n);
  if (!parallel) {
    s.col.reserve(a.col.size() * 2);
    s.val.reserve(a.col.size() * 2);
    for (index_t i = 0; i < n; ++i) {
      merge_row(i, [&](index_t c, double v) {
        s.col.push_back(c);
        s.val.push_back(v);
      });
      s.rpt[static_cast<std::size_t>(i) + 1] = static_cast<offset_t>(s.col.size());
    }
    return s;
  }
  // In parallel: every row's length first, then its entries in place.
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t i = 0; i < n; ++i) {
    offset_t count = 0;
    merge_row(i, [&](index_t, double) { ++count; });
    s.rpt[static_cast<std::size_t>(i) + 1] = count;
  }
  for (std::size_t i = 0; i < rows; ++i) s.rpt[i + 1] += s.rpt[i];
  s.col.resize(static_cast<std::size_t>(s.rpt.back()));
  s.val.resize(static_cast<std::size_t>(s.rpt.back()));
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t i = 0; i < n; ++i) {
    std::size_t out = static_cast<std::size_t>(s.rpt[i]);
    merge_row(i, [&](index_t c, double v) {
      s.col[out] = c;
      s.val[out++] = v;
    });
  }
  return s;
}

void write_labelled_groups(std::ostream& os, const std::vector<std::vector<index_t>>& groups,
                           const std::vector<std::string>& labels) {
  // Every vertex is checked before anything is written.
  for (const auto& group : groups)
    for (const index_t v : group)
      OPSPARSE_EXPECTS(v >= 0 && static_cast<std::size_t>(v) < labels.size(),
                       "write_labelled_groups: vertex " + std::to_string(v) + " has no label");
  // Blocks of groups with about 64 Ki labels each are formatted in parallel, a round of them at
  // a time, and written in order: the labels are visited in cluster order, which is random in
  // memory, and one thread spent 9 ms on the 200,000 of a protein network. A round bounds the
  // text held at once.
  const std::size_t block_labels = std::size_t(1) << 16;
  std::vector<std::size_t> block{0};  // groups [block[b], block[b + 1])
  std::size_t in_block = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    in_block += groups[g].size() + 1;
    if (in_block >= block_labels) {
      block.push_back(g + 1);
      in_block = 0;
    }
  }
  if (block.back() != groups.size()) block.push_back(groups.size());
  const std::size_t blocks = block.size() - 1;
  const std::size_t round = 4 * static_cast<std::size_t>(omp_get_max_threads());
  std::vector<std::string> text(std::min(blocks, round));
  for (std::size_t b0 = 0; b0 < blocks; b0 += round) {
    const std::size_t b1 = std::min(blocks, b0 + round);
    parallel_for(b1 - b0, [&](std::size_t i) {
      std::string& buf = text[i];
      buf.clear();
      for (std::size_t g = block[b0 + i]; g < block[b0 + i + 1]; ++g) {
        const std::vector<index_t>& group = groups[g];
        for (std::size_t k = 0; k < group.size(); ++k) {
          if (k) buf += '\t';
          buf += labels[static_cast<std::size_t>(group[k])];
        }
        buf += '\n';
      }
    });
    for (std::size_t i = 0; i < b1 - b0; ++i)
      os.write(text[i].data(), static_cast<std::streamsize>(text[i].size()));
  }
  if (!os) throw std::runtime_error("write_labelled_groups: writing to the stream failed");
}

namespace detail {
text_reader_tuning set_text_reader_tuning(const text_reader_tuning& t) {
  text_reader_tuning old;
  old.chunk_bytes = tuned_chunk_bytes.exchange(t.chunk_bytes);
  old.serial = tuned_serial.exchange(t.serial);
  return old;
}
}  // namespace detail

// Explicit instantiations for every supported value type.
#define OPSPARSE_IO_INSTANTIATE(V)                                                        \
  template host_csr<V> read_matrix_market<V>(const std::string&, const read_options&);    \
  template void write_matrix_market<V>(const std::string&, const host_csr<V>&);            \
  template void write_matrix_market<V>(std::ostream&, const host_csr<V>&);
OPSPARSE_IO_INSTANTIATE(double)
OPSPARSE_IO_INSTANTIATE(float)
OPSPARSE_IO_INSTANTIATE(std::int32_t)
OPSPARSE_IO_INSTANTIATE(std::int64_t)
OPSPARSE_IO_INSTANTIATE(pattern)
#undef OPSPARSE_IO_INSTANTIATE

}  // namespace opsparse::io
