#pragma once
// A 2D process grid, as CombBLAS' CommGrid: P ranks as pr × pc, rank r at (r / pc, r % pc), with a
// communicator per process row and per process column. Any shape with pr·pc = P is allowed (not
// only square ones), so that every P runs: the default is the most square one (pr ≤ pc, pr the
// largest divisor of P not above √P: 4 → 2×2, 6 → 2×3, 2 → 1×2, 7 → 1×7).
//
// A matrix is split over the grid by balanced 1D splits of its rows into pr parts and of its
// columns into pc parts (split_point): rank (i, j) holds block (i, j).
#include <mpi.h>

#include <cstddef>

#include "opsparse/types.hpp"

namespace opsparse::dist {

class grid {
 public:
  /// Duplicates `comm` (collective over it) and splits it into rows and columns. rows = cols = 0:
  /// the most square shape; otherwise rows·cols must equal comm's size, else
  /// std::invalid_argument naming both.
  explicit grid(MPI_Comm comm = MPI_COMM_WORLD, int rows = 0, int cols = 0);
  ~grid();
  grid(grid&& other) noexcept;
  grid& operator=(grid&& other) noexcept;
  grid(const grid&) = delete;
  grid& operator=(const grid&) = delete;

  int size() const noexcept { return rows_ * cols_; }
  int rank() const noexcept { return rank_; }
  int rows() const noexcept { return rows_; }         ///< pr
  int cols() const noexcept { return cols_; }         ///< pc
  int row() const noexcept { return rank_ / cols_; }  ///< this rank's process row
  int col() const noexcept { return rank_ % cols_; }  ///< this rank's process column
  int rank_of(int row, int col) const noexcept { return row * cols_ + col; }
  /// Ranks of this process's node (MPI_COMM_TYPE_SHARED), for the default memory budget.
  int ranks_on_node() const noexcept { return ranks_on_node_; }
  /// This rank among its node's ranks (0 .. ranks_on_node() - 1): with one GPU per rank, the
  /// device is rank_on_node() % the node's devices.
  int rank_on_node() const noexcept { return rank_on_node_; }

  MPI_Comm comm() const noexcept { return comm_; }          ///< all ranks; rank() is the rank in it
  MPI_Comm row_comm() const noexcept { return row_comm_; }  ///< this process row; rank = col()
  MPI_Comm col_comm() const noexcept { return col_comm_; }  ///< this process column; rank = row()

 private:
  void release() noexcept;
  MPI_Comm comm_ = MPI_COMM_NULL, row_comm_ = MPI_COMM_NULL, col_comm_ = MPI_COMM_NULL;
  int rank_ = 0, rows_ = 1, cols_ = 1, ranks_on_node_ = 1, rank_on_node_ = 0;
};

/// The most square shape of p ranks: {pr, pc} with pr·pc = p, pr ≤ pc, pr as large as possible.
struct grid_shape {
  int rows, cols;
};
grid_shape square_shape(int p);

/// Start of part `part` of a balanced split of n into `parts` (part sizes differ by at most one;
/// split_point(n, parts, parts) == n). Parts are empty when parts > n.
inline index_t split_point(index_t n, int parts, int part) {
  return static_cast<index_t>(static_cast<offset_t>(n) * part / parts);
}

/// Which part of a balanced split of n into `parts` holds index k (0 ≤ k < n).
int split_part(index_t n, int parts, index_t k);

/// Bytes a rank may give to one phase of a product's output (see dist/spgemm.hpp): the
/// environment's OPSPARSE_DIST_MEMORY (bytes, optionally followed by k, M or G: powers of 1024)
/// when set, else half the node's available memory (MemAvailable) shared by its ranks.
/// std::invalid_argument when OPSPARSE_DIST_MEMORY is not such a number.
std::size_t default_memory_budget(const grid& g);

}  // namespace opsparse::dist
