#pragma once
// What the readers in libopsparse/src/io/ share (internal, not installed): the file mapping and
// line/token scanning, number parsing, the (row, col, value) assembly into CSR, memory checks,
// edge weights, the parallel grouping by rows, and the text readers' entry points.
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

namespace opsparse::io::internal {

// ------------------------------------------------------------------------------------------------
// Low-level text helpers
// ------------------------------------------------------------------------------------------------

// '\r' counts as blank so that CRLF files (p2p-Gnutella31, wiki-Vote) read like LF files.
inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// Quotes a token for an error message: at most 40 characters, control bytes escaped, so that a
/// corrupted binary file still gives a readable one-line message.
inline std::string quote(std::string_view s) {
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
[[noreturn]] inline void throw_nul(const std::string& path, std::string_view before,
                                   std::size_t offset) {
  const long long line = 1 + static_cast<long long>(std::count(before.begin(), before.end(), '\n'));
  throw parse_error(
      path, line,
      "NUL byte at byte offset " + std::to_string(offset) + ": binary data, not a text file");
}

/// The offset of the first NUL byte in `data`, or data.size(). Large files are searched in
/// blocks on the OpenMP threads: one thread took 65 ms over a 735 MB ABC file, a tenth of its
/// parallel reading on 16 cores.
inline std::size_t find_nul(std::string_view data) {
  constexpr std::size_t block = std::size_t(1) << 20;
  const std::size_t blocks = (data.size() + block - 1) / block;
  std::size_t first = data.size();
#pragma omp parallel for schedule(dynamic, 8) reduction(min : first) if (blocks >= 16)
  for (long long b = 0; b < static_cast<long long>(blocks); ++b) {
    const std::size_t at = static_cast<std::size_t>(b) * block;
    const std::size_t size = std::min(block, data.size() - at);
    if (const void* z = std::memchr(data.data() + at, '\0', size))
      first = std::min(first, static_cast<std::size_t>(static_cast<const char*>(z) - data.data()));
  }
  return first;
}

inline void reject_nul(const std::string& path, std::string_view data) {
  const std::size_t at = find_nul(data);
  if (at < data.size()) throw_nul(path, data.substr(0, at), at);
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
  /// `whole` false: a regular file is mapped without reading it (no NUL check either): for a
  /// reader of one part of it (text_parts.cpp), which checks and touches that part alone.
  explicit file_bytes(const std::string& path, bool whole = true) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
      throw parse_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
    if (S_ISDIR(info.st_mode)) throw parse_error(path, 0, "cannot read file: it is a directory");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw parse_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
    struct stat opened {};
    const bool regular = ::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode);
    if (regular && opened.st_size > 0 &&
        static_cast<std::uint64_t>(opened.st_size) <= std::numeric_limits<std::size_t>::max()) {
      const std::size_t size = static_cast<std::size_t>(opened.st_size);
      int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
      if (whole) flags |= MAP_POPULATE;  // one call maps every page instead of one fault per page
#endif
      void* m = ::mmap(nullptr, size, PROT_READ, flags, fd, 0);
      if (m != MAP_FAILED) {
        ::close(fd);
        try {
          if (whole) reject_nul(path, std::string_view(static_cast<const char*>(m), size));
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
  /// Whether the file is mapped (a regular file), not copied.
  bool mapped() const { return map_ != nullptr; }
  /// Reads bytes [at, at + size) of a mapped file into memory now, as MAP_POPULATE would.
  void populate(std::size_t at, std::size_t size) const {
    if (!map_ || size == 0) return;
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t from = at / page * page;
    char* base = static_cast<char*>(map_) + from;
#ifdef MADV_POPULATE_READ
    if (::madvise(base, at + size - from, MADV_POPULATE_READ) == 0) return;
#endif
    ::madvise(base, at + size - from, MADV_WILLNEED);
  }

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
    const char* nl =
        static_cast<const char*>(std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_)));
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
inline char first_char(std::string_view line) {
  for (char c : line)
    if (!is_blank(c)) return c;
  return '\0';
}

inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

enum class num_status { ok, bad, out_of_range };

/// Whole-token integer; a leading '+' is accepted (from_chars alone rejects it).
inline num_status parse_int64(std::string_view tok, std::int64_t& out) {
  if (tok.size() > 1 && tok[0] == '+' && tok[1] != '-' && tok[1] != '+') tok.remove_prefix(1);
  const char* end = tok.data() + tok.size();
  const auto res = std::from_chars(tok.data(), end, out);
  if (res.ptr != end || tok.empty()) return num_status::bad;
  if (res.ec == std::errc::result_out_of_range) return num_status::out_of_range;
  if (res.ec != std::errc()) return num_status::bad;
  return num_status::ok;
}

/// Whole-token floating-point number (accepts "nan"/"inf" so that the caller can say so).
inline num_status parse_double(std::string_view tok, double& out) {
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
  if constexpr (std::is_same_v<V, double>)
    return "double";
  else if constexpr (std::is_same_v<V, float>)
    return "float";
  else if constexpr (std::is_same_v<V, std::int32_t>)
    return "int32";
  else if constexpr (std::is_same_v<V, std::int64_t>)
    return "int64";
  else
    return "pattern";
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
                              std::string("duplicate entries of (") + std::to_string(i + 1) + ", " +
                                  std::to_string(col[k] + 1) + ") " + combine_what +
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

/// Bytes of memory this process can still take: MemAvailable (Linux: free memory plus what the
/// page cache gives back), else the free physical pages; the maximum when neither is known.
inline std::uint64_t available_memory() {
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
  if (pages > 0 && page > 0)
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  return std::numeric_limits<std::uint64_t>::max();
}

inline std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / double(1u << 30));
  return buf;
}

/// A few bytes of size line can declare 2^31 - 1 rows (16 GiB of row pointers, allocated at
/// once) or rows that make the machine swap for minutes: such a size line is refused before
/// anything is allocated, naming the memory it needs.
inline void check_memory(const std::string& path, long long line, const std::string& what,
                         std::uint64_t bytes, std::uint64_t limit) {
  const std::uint64_t available = limit ? limit : available_memory();
  if (bytes > available)
    throw parse_error(path, line,
                      what + ": holding it needs about " + gib(bytes) + ", more than the " +
                          gib(available) + " of memory available");
}

// ------------------------------------------------------------------------------------------------
// Edge lists and ABC
// ------------------------------------------------------------------------------------------------

/// An edge's weight; false with what is wrong with it in `error` (the parallel readers record the
/// message and throw it later with the line number, which only then is known). `tok` empty: a line
/// without a weight (1). `transform` (optional): read_options::weight_transform. `nonfinite`:
/// read_options::nonfinite_weights.
inline bool parse_weight(std::string_view tok, double& w, std::string& error, bool nonnegative,
                         const std::function<double(double)>* transform = nullptr,
                         bool nonfinite = false) {
  num_status st = tok.empty() ? (w = 1.0, num_status::ok) : parse_double(tok, w);
  if (st == num_status::out_of_range && nonfinite) {
    w = tok.front() == '-' ? -HUGE_VAL : HUGE_VAL;
    st = num_status::ok;
  }
  if (st == num_status::bad)
    error = "expected a numeric weight, found " + quote(tok);
  else if (st == num_status::out_of_range)
    error = "weight " + quote(tok) + " overflows double";
  else if (!std::isfinite(w) && !nonfinite)
    error = "weight " + quote(tok) + " is not finite (NaN or infinity)";
  else if (transform && *transform && !std::isfinite(w = (*transform)(w)) && !nonfinite)
    error = "weight " + quote(tok.empty() ? "1" : tok) + " is not finite after the transform";
  else if (nonnegative && w < 0)
    error = "negative weight " + quote(tok.empty() ? "1" : tok) +
            (transform && *transform ? " (after the transform: " + std::to_string(w) +
                                           "; a last transform step gq(0) drops such edges)"
                                     : "") +
            ": weights must be >= 0 here (similarities)";
  else
    return true;
  return false;
}

inline double edge_weight(const std::string& path, long long line, std::string_view tok,
                          const read_options& options) {
  double w = 0;
  std::string error;
  if (!parse_weight(tok, w, error, options.nonnegative, &options.weight_transform,
                    options.nonfinite_weights))
    throw parse_error(path, line, error);
  return w;
}

/// Splits an ABC line that holds a TAB as mcl does: a field is a run of bytes between TABs, so a
/// label may contain spaces ("x<TAB>gene 1" is the labels "x" and "gene 1"), and runs of TABs
/// separate like one. Blanks around a field (a CRLF's '\r' too) are not part of it; mcl keeps
/// them, so a label written with and without surrounding spaces is one node here and two there.
/// At most three fields go to `tok`; `extra` is the text from a fourth field on.
inline void split_tab_fields(std::string_view line, std::string_view (&tok)[3], int& ntok,
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

/// Where an edge-list or ABC reading starts and what it reports besides the graph.
struct text_reading {
  read_options options;
  /// A part of a file (read_abc_part): without edges or vertices it is an empty graph, not
  /// "no edges found".
  bool part = false;
  long long line_base =
      0;  ///< lines before the text read (a header skipped): added to line numbers
  long long edge_lines = 0;  ///< out: the edge lines read (duplicates included)
};

/// A serial text reader (edge list or ABC): the reference the parallel readers agree with.
using serial_reader = labelled_graph (*)(const std::string&, std::string_view, text_reading&);
labelled_graph read_edge_list_serial(const std::string& path, std::string_view data,
                                     text_reading& r);
labelled_graph read_abc_serial(const std::string& path, std::string_view data, text_reading& r);

/// The parallel readers (parallel_text.cpp); `serial` reads what they cannot.
labelled_graph read_edge_list_parallel(const std::string& path, std::string_view data,
                                       const read_options& options, text_reading& r,
                                       serial_reader serial);
labelled_graph read_abc_parallel(const std::string& path, std::string_view data,
                                 const read_options& options, text_reading& r,
                                 serial_reader serial);
/// Whether the tests asked for the serial readers (detail::set_text_reader_tuning).
bool use_serial_reader();

/// A square Matrix Market file's matrix for read_graph, with room for a label per row
/// (matrix_market.cpp).
host_csr<double> read_matrix_market_graph(const std::string& path, const read_options& options);

}  // namespace opsparse::io::internal
