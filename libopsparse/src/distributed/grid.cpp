// The process grid, the split helpers, MPI errors and the default memory budget.
#include "opsparse/distributed/grid.hpp"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "opsparse/distributed/error.hpp"
#include "opsparse/error.hpp"

namespace opsparse::dist {

mpi_error::mpi_error(const std::string& call, int code, const char* file, int line)
    : std::runtime_error([&] {
        char text[MPI_MAX_ERROR_STRING] = {};
        int length = 0;
        if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
        return call + " failed: " +
               (length > 0 ? std::string(text, length) : "MPI error " + std::to_string(code)) +
               " at " + file + ":" + std::to_string(line);
      }()),
      code_(code) {}

namespace detail {
void throw_mpi_error(const char* call, int code, const char* file, int line) {
  throw mpi_error(call, code, file, line);
}
}  // namespace detail

grid_shape square_shape(int p) {
  OPSPARSE_EXPECTS(p > 0, "a grid needs at least one rank, not " + std::to_string(p));
  int rows = 1;
  for (int r = 1; static_cast<long long>(r) * r <= p; ++r)
    if (p % r == 0) rows = r;
  return {rows, p / rows};
}

int split_part(index_t n, int parts, index_t k) {
  return static_cast<int>((static_cast<offset_t>(parts) * (k + 1) - 1) / n);
}

grid::grid(MPI_Comm comm, int rows, int cols) {
  int size = 0;
  OPSPARSE_MPI_TRY(MPI_Comm_size(comm, &size));
  if (rows == 0 && cols == 0) {
    const grid_shape s = square_shape(size);
    rows = s.rows;
    cols = s.cols;
  }
  OPSPARSE_EXPECTS(rows > 0 && cols > 0 && static_cast<long long>(rows) * cols == size,
                   "a " + std::to_string(rows) + "x" + std::to_string(cols) +
                       " process grid needs " +
                       std::to_string(static_cast<long long>(rows) * cols) +
                       " ranks, the communicator has " + std::to_string(size));
  rows_ = rows;
  cols_ = cols;
  try {
    OPSPARSE_MPI_TRY(MPI_Comm_dup(comm, &comm_));
    // Errors come back as codes (OPSPARSE_MPI_TRY turns them into exceptions) instead of
    // MPI_ERRORS_ARE_FATAL; the split communicators inherit the handler.
    OPSPARSE_MPI_TRY(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    OPSPARSE_MPI_TRY(MPI_Comm_rank(comm_, &rank_));
    OPSPARSE_MPI_TRY(MPI_Comm_split(comm_, row(), col(), &row_comm_));
    OPSPARSE_MPI_TRY(MPI_Comm_split(comm_, col(), row(), &col_comm_));
    MPI_Comm node = MPI_COMM_NULL;
    OPSPARSE_MPI_TRY(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node));
    int got = MPI_Comm_size(node, &ranks_on_node_);
    if (got == MPI_SUCCESS) got = MPI_Comm_rank(node, &rank_on_node_);
    MPI_Comm_free(&node);
    OPSPARSE_MPI_TRY(got);
  } catch (...) {
    release();
    throw;
  }
}

grid::~grid() { release(); }

grid::grid(grid&& other) noexcept { *this = std::move(other); }

grid& grid::operator=(grid&& other) noexcept {
  if (this != &other) {
    release();
    comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    row_comm_ = std::exchange(other.row_comm_, MPI_COMM_NULL);
    col_comm_ = std::exchange(other.col_comm_, MPI_COMM_NULL);
    rank_ = other.rank_;
    rows_ = other.rows_;
    cols_ = other.cols_;
    ranks_on_node_ = other.ranks_on_node_;
    rank_on_node_ = other.rank_on_node_;
  }
  return *this;
}

void grid::release() noexcept {
  // A grid outliving MPI_Finalize (a static one) must not call MPI any more.
  int finalized = 0;
  MPI_Finalized(&finalized);
  for (MPI_Comm* c : {&row_comm_, &col_comm_, &comm_}) {
    if (*c != MPI_COMM_NULL && !finalized) MPI_Comm_free(c);
    *c = MPI_COMM_NULL;
  }
}

namespace {
/// MemAvailable of /proc/meminfo in bytes; 0 where it cannot be read.
std::size_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);  // "MemAvailable:   12345678 kB"
    std::string key;
    unsigned long long kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return static_cast<std::size_t>(kib) * 1024;
  }
  return 0;
}

std::size_t parse_bytes(const std::string& text) {
  std::istringstream in(text);
  unsigned long long n = 0;
  char suffix = 0;
  const bool number = static_cast<bool>(in >> n);
  if (number && !(in >> suffix)) suffix = 0;
  std::string rest;  // anything after the suffix
  const int shift = suffix == 0                      ? 0
                    : suffix == 'k' || suffix == 'K' ? 10
                    : suffix == 'm' || suffix == 'M' ? 20
                    : suffix == 'g' || suffix == 'G' ? 30
                                                     : -1;
  OPSPARSE_EXPECTS(number && n > 0 && text.find('-') == std::string::npos && shift >= 0 &&
                       !(in >> rest) && n <= (~0ull >> shift),
                   "OPSPARSE_DIST_MEMORY=\"" + text +
                       "\": expected a positive number of bytes, optionally followed by k, M or G");
  return static_cast<std::size_t>(n << shift);
}
}  // namespace

std::size_t default_memory_budget(const grid& g) {
  if (const char* env = std::getenv("OPSPARSE_DIST_MEMORY")) return parse_bytes(env);
  const std::size_t available = available_memory();
  // Half: the other half holds the inputs, the pieces received in a stage and the finished phases.
  // 1 GiB when /proc/meminfo cannot be read (not Linux).
  const std::size_t node = available > 0 ? available / 2 : std::size_t(1) << 30;
  return node / static_cast<std::size_t>(g.ranks_on_node() > 0 ? g.ranks_on_node() : 1);
}

}  // namespace opsparse::dist
