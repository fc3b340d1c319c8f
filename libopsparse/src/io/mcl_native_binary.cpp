// mcl's native binary matrix format (see io_mcl_native.hpp), read and written as mcxload
// --write-binary writes it and mcl reads it. Written from the bytes mcxload 22-282 writes; no code
// of mcl's is used. All numbers are little-endian as this machine's; 'long' is 8 bytes.
//
//   cookie    4 bytes (1b c2 4d e8)
//   n_cols, n_rows, flags          8 bytes each; flags bit 0: the column domain is canonical
//                                   (0 .. n_cols-1), bit 1: the row domain is
//   [column domain] [row domain]   when not canonical: a vector (below) whose indices are the ids
//   offsets   n_cols + 1 values of 8 bytes: where each column's vector starts, from the end of
//             the offsets; the last one is where the body ends
//   vectors   per column: its entry count (8 bytes), its id (8), a double (unused, written 0),
//             then the entries: a row id (int32) and a value (float) each, by increasing row id
#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "opsparse/error.hpp"
#include "opsparse/io_mcl_native.hpp"

namespace opsparse::io {
namespace {

constexpr unsigned char cookie[4] = {0x1b, 0xc2, 0x4d, 0xe8};
constexpr std::size_t vector_head = 2 * sizeof(std::int64_t) + sizeof(double);
constexpr std::size_t entry_bytes = sizeof(std::int32_t) + sizeof(float);

/// The file's bytes, mapped read-only (read into memory where it cannot be mapped).
class binary_file {
 public:
  explicit binary_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw parse_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
      size_ = static_cast<std::size_t>(info.st_size);
      int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
      flags |= MAP_POPULATE;
#endif
      void* m = ::mmap(nullptr, size_, PROT_READ, flags, fd, 0);
      if (m != MAP_FAILED) {
        ::close(fd);
        map_ = m;
        data_ = static_cast<const char*>(m);
        return;
      }
    }
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
      copy_.insert(copy_.end(), buf, buf + got);
    }
    ::close(fd);
    data_ = copy_.data();
    size_ = copy_.size();
  }
  ~binary_file() {
    if (map_) ::munmap(map_, size_);
  }
  binary_file(const binary_file&) = delete;
  binary_file& operator=(const binary_file&) = delete;
  const char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  void* map_ = nullptr;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  std::vector<char> copy_;
};

/// A cursor over the file's bytes; every read past the end is a parse_error.
class binary_cursor {
 public:
  binary_cursor(const std::string& path, const binary_file& bytes) : path_(path), bytes_(bytes) {}
  std::size_t at() const noexcept { return at_; }
  std::size_t size() const noexcept { return bytes_.size(); }
  void seek(std::size_t at) { at_ = at; }
  template <class V>
  V take(const char* what) {
    need(sizeof(V), what);
    V v;
    std::memcpy(&v, bytes_.data() + at_, sizeof(V));
    at_ += sizeof(V);
    return v;
  }
  void need(std::size_t bytes, const char* what) const {
    if (at_ > bytes_.size() || bytes_.size() - at_ < bytes)
      fail(std::string("the file ends inside ") + what + " (a truncated or damaged binary matrix)");
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(at_, what); }
  [[noreturn]] void fail_at(std::size_t at, const std::string& what) const {
    throw parse_error(path_, 0, "mcl binary matrix, byte " + std::to_string(at) + ": " + what);
  }
  const char* data() const noexcept { return bytes_.data(); }

 private:
  const std::string& path_;
  const binary_file& bytes_;
  std::size_t at_ = 0;
};

/// A domain vector (its entries' indices are the ids); values are ignored.
std::vector<std::int64_t> read_domain(binary_cursor& c, std::int64_t size, const char* which) {
  const std::int64_t n = c.take<std::int64_t>(which);
  c.take<std::int64_t>(which);
  c.take<double>(which);
  if (n != size)
    c.fail(std::string("the ") + which + " has " + std::to_string(n) + " ids, the dimensions say " +
           std::to_string(size));
  c.need(static_cast<std::size_t>(n) * entry_bytes, which);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    const auto id = c.take<std::int32_t>(which);
    c.take<float>(which);
    if (id < 0 || (k > 0 && id <= ids[k - 1]))
      c.fail(std::string("the ") + which + "'s ids must increase and be non-negative");
    ids[static_cast<std::size_t>(k)] = id;
  }
  return ids;
}

template <class V>
void put(std::ostream& os, V v) {
  os.write(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

bool is_mcl_native_binary(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  char head[4] = {};
  return is.read(head, 4) && std::memcmp(head, cookie, 4) == 0;
}

namespace {

/// The column offsets after the dimensions and domains (at c's position): checked to frame one
/// vector each within the file, csr.rpt set from their entry counts. Returns the offsets; *body
/// gets where the vectors start.
std::vector<std::int64_t> read_column_frames(binary_cursor& c, std::int64_t n_cols,
                                             host_csr<double>& csr, std::size_t* body) {
  const std::size_t offsets_at = c.at();
  c.need((static_cast<std::size_t>(n_cols) + 1) * sizeof(std::int64_t), "the column offsets");
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(n_cols) + 1);
  std::memcpy(offsets.data(), c.data() + offsets_at, offsets.size() * sizeof(std::int64_t));
  *body = offsets_at + offsets.size() * sizeof(std::int64_t);
  const std::size_t body_bytes = c.size() - *body;
  if (offsets[0] != 0) c.fail_at(offsets_at, "the first column's offset is not 0");
  for (std::int64_t j = 0; j < n_cols; ++j) {
    const std::int64_t b = offsets[j], e = offsets[j + 1];
    const std::size_t at = offsets_at + static_cast<std::size_t>(j + 1) * sizeof(std::int64_t);
    if (e < b || static_cast<std::uint64_t>(e) > body_bytes ||
        static_cast<std::uint64_t>(e - b) < vector_head ||
        (static_cast<std::uint64_t>(e - b) - vector_head) % entry_bytes != 0)
      c.fail_at(at, "column " + std::to_string(j) + "'s offsets (" + std::to_string(b) + " to " +
                        std::to_string(e) + ") do not frame a vector within the file");
    csr.rpt[static_cast<std::size_t>(j) + 1] =
        csr.rpt[static_cast<std::size_t>(j)] +
        static_cast<offset_t>((static_cast<std::uint64_t>(e - b) - vector_head) / entry_bytes);
  }
  const auto last = static_cast<std::uint64_t>(offsets.back());
  if (last != body_bytes)
    c.fail_at(c.size(), std::to_string(body_bytes - last) + " bytes after the last column");
  return offsets;
}

/// What is wrong with a column's vector, and where.
struct column_error {
  std::string what;
  std::size_t at = 0;
};

/// Column j's vector at `v` decoded into its place in m.columns (positions in the row domain:
/// `row_position` maps an id to its position, or is empty for the canonical domain). Returns
/// the first thing wrong with it ("" when nothing is).
column_error decode_column(const char* v, const char* file, std::int64_t j, mcl_native_matrix& m,
                           const std::unordered_map<std::int64_t, index_t>& row_position,
                           const read_options& options) {
  host_csr<double>& csr = m.columns;
  std::int64_t vid, n;
  std::memcpy(&n, v, sizeof n);
  std::memcpy(&vid, v + sizeof n, sizeof vid);
  const offset_t first = csr.rpt[static_cast<std::size_t>(j)];
  const offset_t count = csr.rpt[static_cast<std::size_t>(j) + 1] - first;
  column_error err;
  err.at = static_cast<std::size_t>(v - file);
  const std::string column = "column " + std::to_string(vid);
  if (vid != m.col_ids[static_cast<std::size_t>(j)]) {
    err.what = "column " + std::to_string(j) + " has id " + std::to_string(vid) +
               ", the domain says " + std::to_string(m.col_ids[static_cast<std::size_t>(j)]);
    return err;
  }
  if (n != count) {
    err.what = column + " says " + std::to_string(n) + " entries, its offsets frame " +
               std::to_string(count);
    return err;
  }
  std::int32_t last = -1;
  for (offset_t k = 0; k < count; ++k) {
    const char* e = v + vector_head + static_cast<std::size_t>(k) * entry_bytes;
    std::int32_t row;
    float val;
    std::memcpy(&row, e, sizeof row);
    std::memcpy(&val, e + sizeof row, sizeof val);
    err.at = static_cast<std::size_t>(e - file);
    index_t pos = row;
    if (row_position.empty()) {
      if (row < 0 || row >= csr.cols) pos = -1;
    } else {
      const auto it = row_position.find(row);
      pos = it == row_position.end() ? -1 : it->second;
    }
    if (pos < 0)
      err.what = column + ": row " + std::to_string(row) + " is not in the row domain";
    else if (row <= last)
      err.what = column + ": rows must increase (" + std::to_string(last) + " then " +
                 std::to_string(row) + ")";
    else if (!std::isfinite(val) && !options.nonfinite_weights)
      err.what = column + ": a value that is not finite";
    else if (options.nonnegative && val < 0)
      err.what = column + ": negative value " + std::to_string(val) +
                 " (weights are similarities: they must be >= 0)";
    if (!err.what.empty()) return err;
    last = row;
    csr.col[static_cast<std::size_t>(first + k)] = pos;
    csr.val[static_cast<std::size_t>(first + k)] = static_cast<double>(val);
  }
  err.what.clear();
  return err;
}

}  // namespace

mcl_native_matrix read_mcl_native_binary(const std::string& path, const read_options& options) {
  const binary_file bytes(path);
  binary_cursor c(path, bytes);
  c.need(4, "the format's cookie");
  if (std::memcmp(bytes.data(), cookie, 4) != 0) c.fail("not an mcl binary matrix (no cookie)");
  c.seek(4);
  const auto n_cols = c.take<std::int64_t>("the dimensions");
  const auto n_rows = c.take<std::int64_t>("the dimensions");
  const auto flags = c.take<std::int64_t>("the dimensions");
  constexpr std::int64_t most = std::numeric_limits<index_t>::max();
  if (n_cols < 0 || n_rows < 0 || n_cols > most || n_rows > most)
    c.fail_at(4, "dimensions " + std::to_string(n_rows) + "x" + std::to_string(n_cols) +
                     " out of range (0 to " + std::to_string(most) + " each)");
  if (flags < 0 || flags > 3) c.fail_at(20, "unknown flags " + std::to_string(flags));
  mcl_native_matrix m;
  m.has_values = true;  // a binary matrix stores every value
  if (!(flags & 1)) m.col_ids = read_domain(c, n_cols, "column domain");
  if (!(flags & 2)) m.row_ids = read_domain(c, n_rows, "row domain");
  if (m.col_ids.empty())
    for (std::int64_t i = 0; i < n_cols; ++i) m.col_ids.push_back(i);
  if (m.row_ids.empty())
    for (std::int64_t i = 0; i < n_rows; ++i) m.row_ids.push_back(i);
  // The row domain's positions by id (none for the canonical domain: the id itself).
  std::unordered_map<std::int64_t, index_t> row_position;
  if (!(flags & 2))
    for (std::size_t i = 0; i < m.row_ids.size(); ++i)
      row_position.emplace(m.row_ids[i], static_cast<index_t>(i));
  m.columns = host_csr<double>(static_cast<index_t>(n_cols), static_cast<index_t>(n_rows));
  std::size_t body = 0;
  const std::vector<std::int64_t> offsets = read_column_frames(c, n_cols, m.columns, &body);
  m.columns.col.resize(static_cast<std::size_t>(m.columns.rpt.back()));
  m.columns.val.resize(static_cast<std::size_t>(m.columns.rpt.back()));
  // The columns decoded in parallel; the first error (by column) is reported.
  std::int64_t bad_col = n_cols;
  column_error bad;
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t j = 0; j < n_cols; ++j) {
    column_error e =
        decode_column(bytes.data() + body + offsets[j], bytes.data(), j, m, row_position, options);
    if (!e.what.empty()) {
#pragma omp critical(opsparse_mcl_binary_error)
      if (j < bad_col) {
        bad_col = j;
        bad = std::move(e);
      }
    }
  }
  if (bad_col < n_cols) c.fail_at(bad.at, bad.what);
  return m;
}

template <class V>
void write_mcl_native_binary(std::ostream& os, const host_csr<V>& columns,
                             const std::vector<std::int64_t>* row_ids,
                             const std::vector<std::int64_t>* col_ids) {
  OPSPARSE_EXPECTS(!row_ids || row_ids->size() == static_cast<std::size_t>(columns.cols),
                   "write_mcl_native_binary: row_ids must have one id per row");
  OPSPARSE_EXPECTS(!col_ids || col_ids->size() == static_cast<std::size_t>(columns.rows),
                   "write_mcl_native_binary: col_ids must have one id per column");
  auto canonical = [](const std::vector<std::int64_t>* ids) {
    if (!ids) return true;
    for (std::size_t i = 0; i < ids->size(); ++i)
      if ((*ids)[i] != static_cast<std::int64_t>(i)) return false;
    return true;
  };
  const bool cols_canonical = canonical(col_ids), rows_canonical = canonical(row_ids);
  auto check_id = [](std::int64_t id) {
    OPSPARSE_EXPECTS(id >= 0 && id <= std::numeric_limits<std::int32_t>::max(),
                     "write_mcl_native_binary: an id does not fit the format's 32 bits");
    return static_cast<std::int32_t>(id);
  };
  auto write_domain = [&](const std::vector<std::int64_t>& ids) {
    put<std::int64_t>(os, static_cast<std::int64_t>(ids.size()));
    put<std::int64_t>(os, 0);
    put<double>(os, 0.0);
    for (const std::int64_t id : ids) {
      put<std::int32_t>(os, check_id(id));
      put<float>(os, 1.0f);
    }
  };
  os.write(reinterpret_cast<const char*>(cookie), 4);
  put<std::int64_t>(os, columns.rows);
  put<std::int64_t>(os, columns.cols);
  put<std::int64_t>(os, (cols_canonical ? 1 : 0) | (rows_canonical ? 2 : 0));
  if (!cols_canonical) write_domain(*col_ids);
  if (!rows_canonical) write_domain(*row_ids);
  std::int64_t at = 0;
  for (index_t j = 0; j < columns.rows; ++j) {
    put<std::int64_t>(os, at);
    at += static_cast<std::int64_t>(vector_head +
                                    (columns.rpt[j + 1] - columns.rpt[j]) * entry_bytes);
  }
  put<std::int64_t>(os, at);
  std::vector<char> buf;
  for (index_t j = 0; j < columns.rows; ++j) {
    put<std::int64_t>(os, static_cast<std::int64_t>(columns.rpt[j + 1] - columns.rpt[j]));
    put<std::int64_t>(os, col_ids ? (*col_ids)[j] : j);
    put<double>(os, 0.0);
    buf.resize(static_cast<std::size_t>(columns.rpt[j + 1] - columns.rpt[j]) * entry_bytes);
    char* p = buf.data();
    for (offset_t k = columns.rpt[j]; k < columns.rpt[j + 1]; ++k, p += entry_bytes) {
      const std::int32_t row = check_id(row_ids ? (*row_ids)[columns.col[k]] : columns.col[k]);
      float v = 1.0f;
      if constexpr (has_values_v<V>) v = static_cast<float>(columns.val[k]);
      std::memcpy(p, &row, sizeof row);
      std::memcpy(p + sizeof row, &v, sizeof v);
    }
    os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  }
}

template void write_mcl_native_binary<double>(std::ostream&, const host_csr<double>&,
                                              const std::vector<std::int64_t>*,
                                              const std::vector<std::int64_t>*);
template void write_mcl_native_binary<float>(std::ostream&, const host_csr<float>&,
                                             const std::vector<std::int64_t>*,
                                             const std::vector<std::int64_t>*);

}  // namespace opsparse::io
