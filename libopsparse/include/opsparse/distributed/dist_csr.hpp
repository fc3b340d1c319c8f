#pragma once
// A CSR matrix distributed over a process grid: rank (i, j) holds block (i, j), the rows
// [split_point(rows, pr, i), split_point(rows, pr, i + 1)) and the columns
// [split_point(cols, pc, j), split_point(cols, pc, j + 1)), as a host_csr whose column indices
// count from the block's first column. Blocks may be empty (more ranks than rows, empty parts of
// the matrix). scatter hands out a matrix held by one rank; gather collects it back; from_block
// wraps blocks that each rank built itself (read from its part of a file, say).
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/cpu/graph_ops.hpp"
#include "opsparse/csr.hpp"
#include "opsparse/distributed/detail/blocks.hpp"
#include "opsparse/distributed/detail/comm.hpp"
#include "opsparse/distributed/grid.hpp"
#include "opsparse/error.hpp"

namespace opsparse::dist {

template <class Value>
struct dist_csr {
  using value_type = Value;
  index_t rows = 0;       ///< of the whole matrix
  index_t cols = 0;       ///< of the whole matrix
  index_t row_begin = 0;  ///< the block's first row in the whole matrix
  index_t col_begin = 0;  ///< the block's first column in the whole matrix
  host_csr<Value> block;  ///< this rank's block; its column j is the matrix's col_begin + j
};

/// Checks that d's block is the one `g` gives this rank for d's size (std::invalid_argument
/// otherwise) and that the block is a valid CSR matrix.
template <class V>
void validate(const grid& g, const dist_csr<V>& d) {
  const index_t r0 = split_point(d.rows, g.rows(), g.row());
  const index_t r1 = split_point(d.rows, g.rows(), g.row() + 1);
  const index_t c0 = split_point(d.cols, g.cols(), g.col());
  const index_t c1 = split_point(d.cols, g.cols(), g.col() + 1);
  OPSPARSE_EXPECTS(
      d.row_begin == r0 && d.col_begin == c0 && d.block.rows == r1 - r0 && d.block.cols == c1 - c0,
      "rank " + std::to_string(g.rank()) + " holds a " + std::to_string(d.block.rows) + "x" +
          std::to_string(d.block.cols) + " block at (" + std::to_string(d.row_begin) + ", " +
          std::to_string(d.col_begin) + ") but the grid gives it rows [" + std::to_string(r0) +
          ", " + std::to_string(r1) + ") and columns [" + std::to_string(c0) + ", " +
          std::to_string(c1) + ") of the " + std::to_string(d.rows) + "x" + std::to_string(d.cols) +
          " matrix");
  validate(d.block);
}

/// This rank's share of a rows × cols matrix whose block it built itself: checks the block's
/// shape against the grid (see validate) and wraps it. Not collective.
template <class V>
dist_csr<V> from_block(const grid& g, index_t rows, index_t cols, host_csr<V> block) {
  dist_csr<V> d;
  d.rows = rows;
  d.cols = cols;
  d.row_begin = split_point(rows, g.rows(), g.row());
  d.col_begin = split_point(cols, g.cols(), g.col());
  d.block = std::move(block);
  validate(g, d);
  return d;
}

/// Hands the blocks of `m`, read on rank `root` only, to every rank (collective). An invalid m
/// (see opsparse::check) throws std::invalid_argument on every rank.
template <class V>
dist_csr<V> scatter(const grid& g, const host_csr<V>& m, int root = 0) {
  constexpr int tag = 7001;
  const bool is_root = g.rank() == root;
  std::string problem = is_root ? check(m) : std::string();
  detail::bcast_string(problem, root, g.comm());
  OPSPARSE_EXPECTS(problem.empty(), "scatter: rank " + std::to_string(root) +
                                        "'s matrix is not valid CSR: " + problem);
  std::int64_t dims[2] = {m.rows, m.cols};
  detail::bcast_bytes(dims, sizeof dims, root, g.comm());
  dist_csr<V> d;
  d.rows = static_cast<index_t>(dims[0]);
  d.cols = static_cast<index_t>(dims[1]);
  d.row_begin = split_point(d.rows, g.rows(), g.row());
  d.col_begin = split_point(d.cols, g.cols(), g.col());
  if (!is_root) {
    d.block = detail::recv_csr<V>(root, tag, g.comm());
    return d;
  }
  for (int r = 0; r < g.rows(); ++r) {
    for (int c = 0; c < g.cols(); ++c) {
      host_csr<V> b =
          cpu::submatrix(m, split_point(d.rows, g.rows(), r), split_point(d.rows, g.rows(), r + 1),
                         split_point(d.cols, g.cols(), c), split_point(d.cols, g.cols(), c + 1));
      if (g.rank_of(r, c) == root)
        d.block = std::move(b);
      else
        detail::send_csr(b, g.rank_of(r, c), tag, g.comm());
    }
  }
  return d;
}

namespace detail {
/// validate(g, d) on every rank, every rank throwing when one block is wrong (collective).
template <class V>
void validate_everywhere(const grid& g, const dist_csr<V>& d, const char* what) {
  std::exception_ptr error;
  try {
    validate(g, d);
  } catch (...) {
    error = std::current_exception();
  }
  agree_on_failure(error, what, g.comm());
}
}  // namespace detail

/// The whole matrix on rank `root`, an empty host_csr elsewhere (collective).
template <class V>
host_csr<V> gather(const grid& g, const dist_csr<V>& d, int root = 0) {
  constexpr int tag = 7002;
  detail::validate_everywhere(g, d, "opsparse::dist::gather: a block's check");
  if (g.rank() != root) {
    detail::send_csr(d.block, root, tag, g.comm());
    return host_csr<V>();
  }
  host_csr<V> m(d.rows, d.cols);
  std::vector<index_t> starts;
  for (int c = 0; c <= g.cols(); ++c) starts.push_back(split_point(d.cols, g.cols(), c));
  for (int r = 0; r < g.rows(); ++r) {
    // One process row at a time: its blocks hold the same rows, laid side by side.
    std::vector<host_csr<V>> blocks;
    for (int c = 0; c < g.cols(); ++c) {
      const int from = g.rank_of(r, c);
      blocks.push_back(from == root ? d.block : detail::recv_csr<V>(from, tag, g.comm()));
    }
    const index_t r0 = split_point(d.rows, g.rows(), r), r1 = split_point(d.rows, g.rows(), r + 1);
    const host_csr<V> band = detail::concat_columns(std::move(blocks), starts, r1 - r0);
    const auto base = static_cast<offset_t>(m.col.size());
    for (index_t i = r0; i < r1; ++i) m.rpt[i + 1] = base + band.rpt[i - r0 + 1];
    m.col.insert(m.col.end(), band.col.begin(), band.col.end());
    if constexpr (has_values_v<V>) m.val.insert(m.val.end(), band.val.begin(), band.val.end());
  }
  return m;
}

}  // namespace opsparse::dist
