#pragma once
// C = A·B over a semiring with A and B distributed over a process grid: Sparse SUMMA, as
// CombBLAS and HipMCL compute it (docs/design.md, "Distributed products (MPI)").
//
// The inner dimension is cut where A's column split or B's row split cuts it (on a square grid
// the two agree: pr stages); at each stage the owner of A's piece broadcasts it along its process
// row and the owner of B's piece along its process column, and every rank multiplies what it
// received with a local engine. The stages' partial blocks are merged with the semiring's add, in
// stage order. Before that, each rank counts its block's products (an upper bound of its nnz) and
// the product runs in as many phases, over consecutive ranges of B's columns, as its memory
// budget needs; the phases are laid side by side.
//
// With spgemm_options::in_order the stages are not multiplied apart and merged: each stage's
// products are added onto the running sums of the stages before it (the engine's accumulate),
// so that every entry sums its products in the order of the inner index, as one pass of the CPU
// engine does: plus-times over doubles then equals cpu::spgemm bit for bit (apps/mcl's
// distributed iterates equal the single-process ones this way).
//
// The local engine is any callable `engine(a, b)` taking two host_csr (the pieces of A and B of a
// stage) and returning their product over the semiring as a host_csr with sorted rows; the CPU
// engine by default. A GPU engine uploads the pieces, multiplies with the GPU engine and downloads
// the result (one GPU per rank).
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/distributed/detail/accumulate.hpp"
#include "opsparse/distributed/dist_csr.hpp"
#include "opsparse/distributed/grid.hpp"

namespace opsparse::dist {

/// What one product did on this rank (spgemm_options::info).
struct spgemm_info {
  int stages = 0;                   ///< broadcast rounds per phase
  int phases = 0;                   ///< column (spgemm) or row phases, the same on every rank
  offset_t products = 0;            ///< of this rank's block: an upper bound of its nnz
  std::size_t budget = 0;           ///< bytes for one phase's output on this rank
  std::size_t estimated_bytes = 0;  ///< this rank's output working memory, all phases together
};

struct spgemm_options {
  /// Bytes this rank may give to one phase's output (partial blocks and their merge);
  /// 0: default_memory_budget(grid).
  std::size_t memory_budget = 0;
  /// > 0: run this many phases whatever the estimate (give the same value on every rank).
  int phases = 0;
  spgemm_info* info = nullptr;  ///< filled on every rank when not null
  /// Sum the stages in order (see above) with engine.accumulate(a, b, c) (c += a·b, c's
  /// entries continuing as running sums) instead of engine(a, b) and a merge. The same value
  /// on every rank; an engine without accumulate is std::invalid_argument on every rank.
  bool in_order = false;
};

/// The default local engine: opsparse::cpu::spgemm over Semiring (rows always sorted).
template <class Semiring>
struct cpu_engine {
  cpu::options options;
  template <class VA, class VB>
  host_csr<typename Semiring::value_type> operator()(const host_csr<VA>& a,
                                                     const host_csr<VB>& b) const {
    cpu::options o = options;
    o.sorted = true;  // the merge of the stages walks sorted rows
    return cpu::spgemm<Semiring>(a, b, no_mask{}, o);
  }
  /// c += a·b with c's entries as running sums, in cpu::spgemm's order (in-order mode).
  template <class VA, class VB>
  void accumulate(const host_csr<VA>& a, const host_csr<VB>& b,
                  host_csr<typename Semiring::value_type>& c) const {
    detail::accumulate_product<Semiring>(a, b, c, options.threads);
  }
};

/// The rows of this rank's block of C that one phase of spgemm_row_phases computes. The block's
/// h rows are cut into `parts` consecutive parts (split_point: one per rank of the process row,
/// when the consumer hands each its whole rows), and phase p of `phases` takes the p-th slice
/// of every part, so that each phase spreads its rows over the parts evenly. The phase's block
/// holds part 0's slice, then part 1's, ...
struct row_phase {
  int phase = 0, phases = 1;
  std::vector<index_t> begin, end;  ///< part d: the block's rows [begin[d], end[d])
  /// Rows of the phase's block (all parts).
  index_t rows() const {
    index_t r = 0;
    for (std::size_t d = 0; d < begin.size(); ++d) r += end[d] - begin[d];
    return r;
  }
};
row_phase row_phase_of(index_t h, int parts, int phases, int p);

/// C = A·B in phases over A's rows, each phase's block handed to `consume` before the next is
/// multiplied, so that a rank holds one phase's product at a time (HipMCL prunes each phase
/// this way; docs/design.md). Collective: on every rank, phase after phase,
/// `consume(const row_phase&, host_csr<T>&& block)` gets this rank's block of C's rows of the
/// phase (columns as C's block: B's block columns), and may communicate; it must throw on every
/// rank or on none (detail::agree_on_failure). `parts`: the parts of row_phase (0: the grid's
/// process columns). The phase count comes from the same estimate as spgemm's (products of this
/// rank's block against opt.memory_budget, the largest wish over the ranks), or opt.phases, at
/// most the rows of a part. Each phase broadcasts its rows of A's pieces and the whole of B's,
/// so B travels once per phase. The arguments are checked as spgemm checks them.
template <class Semiring, class VA, class VB, class Consume, class Engine = cpu_engine<Semiring>>
void spgemm_row_phases(const grid& g, const dist_csr<VA>& a, const dist_csr<VB>& b,
                       Consume&& consume, const spgemm_options& opt = {}, const Engine& engine = {},
                       int parts = 0);

/// C = A·B over Semiring (collective over the grid). A.cols must equal B.rows and both must be
/// distributed over `g` (see validate), else std::invalid_argument on every rank. An exception of
/// the engine on one rank is rethrown there and reported as std::runtime_error on the others.
template <class Semiring, class VA, class VB, class Engine = cpu_engine<Semiring>>
dist_csr<typename Semiring::value_type> spgemm(const grid& g, const dist_csr<VA>& a,
                                               const dist_csr<VB>& b,
                                               const spgemm_options& opt = {},
                                               const Engine& engine = {});

}  // namespace opsparse::dist

#include "opsparse/distributed/detail/spgemm_impl.hpp"
