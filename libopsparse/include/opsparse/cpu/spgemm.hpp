#pragma once
// The CPU engine: row-wise SpGEMM over any semiring and mask, OpenMP over rows.
// It is the oracle of every GPU test and the fallback where no GPU is present.
#include <algorithm>
#include <vector>

#include "opsparse/csr.hpp"
#include "opsparse/mask.hpp"
#include "opsparse/semiring.hpp"

namespace opsparse::cpu {

/// Per-thread accumulator of the row-wise product.
enum class accumulator_kind {
  automatic,  ///< dense unless B is very wide for the work (see prefer_dense_accumulator)
  dense,      ///< an array over B's columns with generation stamps, never cleared per row
  hash,       ///< open addressing sized per row from its products / mask / nnz
};

struct options {
  bool sorted = true;  ///< sort columns within each output row (false: any order)
  int threads = 0;     ///< OpenMP threads; 0 = the OpenMP default
  accumulator_kind accumulator = accumulator_kind::automatic;  ///< tests force either one
};

/// Number of multiplications in each row of A·B (what the engine sizes and schedules by).
template <class VA, class VB>
std::vector<offset_t> row_products(const host_csr<VA>& a, const host_csr<VB>& b);

/// `blocks` + 1 row boundaries that split the rows into runs of about equal weight, where
/// `before[i]` is the weight of rows [0, i) (rows + 1 non-decreasing entries: a matrix's row
/// pointers weigh its entries, a prefix of row_products its products). A row is never split;
/// runs may be empty.
inline std::vector<index_t> balanced_row_blocks(const std::vector<offset_t>& before, int blocks) {
  const auto rows = static_cast<index_t>(before.size() - 1);
  std::vector<index_t> first(static_cast<std::size_t>(blocks) + 1, rows);
  first[0] = 0;
  const offset_t total = before.back() - before.front();
  for (int c = 1; c < blocks; ++c) {
    const offset_t target = before.front() + total / blocks * c + total % blocks * c / blocks;
    const auto it = std::lower_bound(before.begin(), before.end(), target);
    first[c] = std::max(first[c - 1],
                        static_cast<index_t>(std::min<std::ptrdiff_t>(it - before.begin(), rows)));
  }
  return first;
}

/// The automatic choice: a dense accumulator of `cols` entries per thread, or a hash table.
inline bool prefer_dense_accumulator(index_t cols, offset_t products, int threads);

/// Number of multiplications of A·B (sum over nonzeros A(i,k) of nnz(B row k)).
template <class VA, class VB>
offset_t count_products(const host_csr<VA>& a, const host_csr<VB>& b);

/// C = A·B (or C<M> = A·B, C<¬M> = A·B) over Semiring. Mask views hold host pointers
/// (see host_mask). Entries are structural: a product whose value happens to be the identity is
/// still an entry. A.cols must equal B.rows and a mask must have C's dimensions, else
/// std::invalid_argument. Values of C are added in the order of A's row then B's row, whatever the
/// thread count, so results are reproducible bit for bit. When Semiring::value_type is pattern,
/// C has no values; pattern inputs pass pattern{} to Semiring::multiply.
template <class Semiring, class VA, class VB, class Mask = no_mask>
host_csr<typename Semiring::value_type> spgemm(const host_csr<VA>& a, const host_csr<VB>& b,
                                               const Mask& mask = {}, const options& opt = {});

/// ⊕ over every entry of C<M> = A·B (structural M) without forming C: the CPU engine's form of
/// opsparse::spgemm_reduce (triangle counting is this with plus_pair and M = L). `row_sums`, when
/// not null, receives A.rows values, each row's ⊕ (the identity for an empty row). One pass, each
/// row's mask marked in the thread's accumulator; the rows' sums are combined in row order, so
/// the result does not depend on the thread count. Operands are checked as by spgemm.
template <class Semiring, class VA, class VB>
typename Semiring::value_type spgemm_reduce(const host_csr<VA>& a, const host_csr<VB>& b,
                                            const structural_mask& mask,
                                            typename Semiring::value_type* row_sums = nullptr,
                                            const options& opt = {});

/// A mask view over a host matrix (structural_mask or complement_mask).
template <class MaskT, class V>
MaskT host_mask(const host_csr<V>& m) {
  return make_mask<MaskT>(m.rows, m.cols, m.rpt.data(), m.col.data());
}

}  // namespace opsparse::cpu

#include "opsparse/cpu/detail/spgemm_impl.hpp"
#include "opsparse/cpu/detail/spgemm_reduce_impl.hpp"
