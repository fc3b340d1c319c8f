#pragma once
// Sparse SUMMA (see dist/spgemm.hpp): stages, the product count, phases, one phase's stages.
#include <algorithm>
#include <exception>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "opsparse/cpu/graph_ops.hpp"
#include "opsparse/distributed/detail/blocks.hpp"
#include "opsparse/distributed/detail/comm.hpp"
#include "opsparse/error.hpp"

namespace opsparse::dist::detail {

/// One broadcast round: the inner indices [k0, k1), whose piece of A lies in process column
/// a_col and whose piece of B lies in process row b_row.
struct stage {
  index_t k0, k1;
  int a_col, b_row;
};

/// The cuts of [0, inner) by both splits (pc parts for A's columns, pr for B's rows), empty
/// ranges left out: pr stages on a square grid, at most pr + pc - 1 otherwise.
std::vector<stage> summa_stages(index_t inner, int grid_rows, int grid_cols);

/// The phase count every rank uses: `forced` when > 0, else the largest over the ranks of
/// ceil(bytes / budget), at most `most` (B's block columns, or a part's rows; at least 1).
/// Collective.
int agree_on_phases(const grid& g, std::size_t bytes, std::size_t budget, index_t most, int forced);

/// Number of products of this rank's block of A·B: for each inner index k, the entries of A's
/// column k in this process row times those of B's row k in this process column. Each stage's
/// owners broadcast their counts (A's columns, B's row lengths) as SUMMA would the pieces.
template <class VA, class VB>
offset_t count_block_products(const grid& g, const dist_csr<VA>& a, const dist_csr<VB>& b,
                              const std::vector<stage>& stages) {
  const std::vector<offset_t> a_counts = column_counts(a.block);
  offset_t total = 0;
  std::vector<offset_t> ac, bc;
  for (const stage& s : stages) {
    const std::size_t width = static_cast<std::size_t>(s.k1 - s.k0);
    ac.assign(width, 0);
    bc.assign(width, 0);
    if (g.col() == s.a_col) std::copy_n(a_counts.begin() + (s.k0 - a.col_begin), width, ac.begin());
    if (g.row() == s.b_row)
      for (std::size_t t = 0; t < width; ++t) {
        const std::size_t k = static_cast<std::size_t>(s.k0 - b.row_begin) + t;
        bc[t] = b.block.rpt[k + 1] - b.block.rpt[k];
      }
    bcast_bytes(ac.data(), width * sizeof(offset_t), s.a_col, g.row_comm());
    bcast_bytes(bc.data(), width * sizeof(offset_t), s.b_row, g.col_comm());
    total = std::inner_product(ac.begin(), ac.end(), bc.begin(), total);
  }
  return total;
}

/// Whether Engine has accumulate(a, b, c) for these operands (the in-order mode).
template <class Engine, class VA, class VB, class T, class = void>
struct has_accumulate : std::false_type {};
template <class Engine, class VA, class VB, class T>
struct has_accumulate<Engine, VA, VB, T,
                      std::void_t<decltype(std::declval<const Engine&>().accumulate(
                          std::declval<const host_csr<VA>&>(), std::declval<const host_csr<VB>&>(),
                          std::declval<host_csr<T>&>()))>> : std::true_type {};

/// This rank's block of one phase: columns [c0, c1) of its B block. Every stage's pieces are
/// broadcast and multiplied; the partial blocks merged, or (in_order) every stage's products
/// added onto the running block. An exception of the engine or the merge is held until the
/// phase's end, where the ranks agree on it (agree_on_failure).
template <class Semiring, class VA, class VB, class Engine>
host_csr<typename Semiring::value_type> run_phase(const grid& g, const dist_csr<VA>& a,
                                                  const dist_csr<VB>& b,
                                                  const std::vector<stage>& stages, index_t c0,
                                                  index_t c1, const Engine& engine, bool in_order) {
  using T = typename Semiring::value_type;
  std::vector<host_csr<T>> parts;
  host_csr<T> running = in_order ? host_csr<T>(a.block.rows, c1 - c0) : host_csr<T>();
  host_csr<VA> a_cut, a_buffer;
  host_csr<VB> b_cut, b_buffer;
  std::exception_ptr error;
  for (const stage& s : stages) {
    // Only the owners cut their pieces; a whole block (square grids, one phase) is sent as is.
    const host_csr<VA>* a_mine = &a.block;
    if (g.col() == s.a_col && s.k1 - s.k0 != a.block.cols) {
      a_cut = cpu::submatrix(a.block, 0, a.block.rows, s.k0 - a.col_begin, s.k1 - a.col_begin);
      a_mine = &a_cut;
    }
    const host_csr<VB>* b_mine = &b.block;
    if (g.row() == s.b_row && (s.k1 - s.k0 != b.block.rows || c1 - c0 != b.block.cols)) {
      b_cut = cpu::submatrix(b.block, s.k0 - b.row_begin, s.k1 - b.row_begin, c0, c1);
      b_mine = &b_cut;
    }
    const host_csr<VA>& ap = share_csr(*a_mine, a_buffer, s.a_col, g.row_comm());
    const host_csr<VB>& bp = share_csr(*b_mine, b_buffer, s.b_row, g.col_comm());
    if (error || ap.nnz() == 0 || bp.nnz() == 0) continue;
    try {
      if constexpr (has_accumulate<Engine, VA, VB, T>::value) {
        if (in_order) {
          engine.accumulate(ap, bp, running);
          if (running.rows != ap.rows || running.cols != bp.cols)
            throw std::logic_error(
                "opsparse::dist::spgemm: the local engine's accumulate changed "
                "the block's shape");
          continue;
        }
      }
      host_csr<T> c = engine(ap, bp);
      if (c.rows != ap.rows || c.cols != bp.cols || c.rpt.size() != std::size_t(c.rows) + 1)
        throw std::logic_error("opsparse::dist::spgemm: the local engine returned a " +
                               std::to_string(c.rows) + "x" + std::to_string(c.cols) +
                               " block for a " + std::to_string(ap.rows) + "x" +
                               std::to_string(bp.cols) + " product");
      if (c.nnz() > 0) parts.push_back(std::move(c));
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (in_order) {
    agree_on_failure(error, "opsparse::dist::spgemm: the local product", g.comm());
    return running;
  }
  host_csr<T> merged;
  if (!error) {
    try {
      merged = merge_partials<Semiring>(std::move(parts), a.block.rows, c1 - c0);
    } catch (...) {
      error = std::current_exception();
    }
  }
  agree_on_failure(error, "opsparse::dist::spgemm: the local product", g.comm());
  return merged;
}

/// The argument checks of spgemm, on every rank; all throw when one rank's check fails.
template <class VA, class VB>
void check_operands(const grid& g, const dist_csr<VA>& a, const dist_csr<VB>& b) {
  std::exception_ptr error;
  try {
    OPSPARSE_EXPECTS(a.cols == b.rows, "opsparse::dist::spgemm: A is " + std::to_string(a.rows) +
                                           "x" + std::to_string(a.cols) + " but B is " +
                                           std::to_string(b.rows) + "x" + std::to_string(b.cols));
    validate(g, a);
    validate(g, b);
  } catch (...) {
    error = std::current_exception();
  }
  agree_on_failure(error, "opsparse::dist::spgemm: the operands' check", g.comm());
}

}  // namespace opsparse::dist::detail

namespace opsparse::dist {

namespace detail {

/// What both products do first: the operands' checks, the budget, the stages, the product count
/// and the estimated output bytes (on every rank; failures agreed on).
template <class Semiring, class VA, class VB, class Engine>
struct product_setup {
  std::size_t budget = 0, bytes = 0;
  std::vector<stage> stages;
  offset_t products = 0;

  product_setup(const grid& g, const dist_csr<VA>& a, const dist_csr<VB>& b,
                const spgemm_options& opt) {
    using T = typename Semiring::value_type;
    check_operands(g, a, b);
    if constexpr (!has_accumulate<Engine, VA, VB, T>::value)
      OPSPARSE_EXPECTS(!opt.in_order,
                       "opsparse::dist::spgemm: in_order needs an engine with "
                       "accumulate(a, b, c) (dist::cpu_engine has one)");
    budget = opt.memory_budget;
    std::exception_ptr error;
    try {
      if (budget == 0) budget = default_memory_budget(g);  // OPSPARSE_DIST_MEMORY may be wrong
    } catch (...) {
      error = std::current_exception();
    }
    agree_on_failure(error, "opsparse::dist::spgemm: the memory budget", g.comm());
    stages = summa_stages(a.cols, g.rows(), g.cols());
    products = count_block_products(g, a, b, stages);
    // Every product may be an entry of a partial block, and the merge writes them once more (in
    // order: the running block and its successor).
    constexpr std::size_t entry_bytes = 2 * (sizeof(index_t) + (has_values_v<T> ? sizeof(T) : 0));
    bytes = static_cast<std::size_t>(products) * entry_bytes;
  }
  void report(const spgemm_options& opt, int phases) const {
    if (opt.info) *opt.info = {static_cast<int>(stages.size()), phases, products, budget, bytes};
  }
};

}  // namespace detail

template <class Semiring, class VA, class VB, class Consume, class Engine>
void spgemm_row_phases(const grid& g, const dist_csr<VA>& a, const dist_csr<VB>& b,
                       Consume&& consume, const spgemm_options& opt, const Engine& engine,
                       int parts) {
  const detail::product_setup<Semiring, VA, VB, Engine> setup(g, a, b, opt);
  if (parts <= 0) parts = g.cols();
  const index_t h = a.block.rows;
  // At most a part's rows (the largest part: parts differ by one row at most).
  const index_t most = (h + parts - 1) / parts;
  const int phases = detail::agree_on_phases(g, setup.bytes, setup.budget, most, opt.phases);
  setup.report(opt, phases);
  dist_csr<VA> rows_of_a;
  rows_of_a.rows = a.rows;
  rows_of_a.cols = a.cols;
  rows_of_a.row_begin = a.row_begin;
  rows_of_a.col_begin = a.col_begin;
  for (int p = 0; p < phases; ++p) {
    const row_phase rp = row_phase_of(h, parts, phases, p);
    // Every rank of the process row cuts the same rows from its block: the pieces broadcast
    // along the row then hold the phase's rows only. One phase takes the whole block as it is.
    if (phases > 1) rows_of_a.block = detail::take_rows(a.block, rp.begin, rp.end);
    consume(rp, detail::run_phase<Semiring>(g, phases > 1 ? rows_of_a : a, b, setup.stages, 0,
                                            b.block.cols, engine, opt.in_order));
  }
}

template <class Semiring, class VA, class VB, class Engine>
dist_csr<typename Semiring::value_type> spgemm(const grid& g, const dist_csr<VA>& a,
                                               const dist_csr<VB>& b, const spgemm_options& opt,
                                               const Engine& engine) {
  using T = typename Semiring::value_type;
  const detail::product_setup<Semiring, VA, VB, Engine> setup(g, a, b, opt);
  const int phases =
      detail::agree_on_phases(g, setup.bytes, setup.budget, b.block.cols, opt.phases);
  setup.report(opt, phases);

  std::vector<index_t> starts;
  std::vector<host_csr<T>> blocks;
  for (int p = 0; p <= phases; ++p) starts.push_back(split_point(b.block.cols, phases, p));
  for (int p = 0; p < phases; ++p)
    blocks.push_back(detail::run_phase<Semiring>(g, a, b, setup.stages, starts[p], starts[p + 1],
                                                 engine, opt.in_order));

  dist_csr<T> c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.row_begin = a.row_begin;
  c.col_begin = b.col_begin;
  c.block = detail::concat_columns(std::move(blocks), starts, a.block.rows);
  return c;
}

}  // namespace opsparse::dist
