#pragma once
// Masks, GraphBLAS style: C<M> = A·B keeps only entries whose position is present in M
// (structural); C<¬M> = A·B drops entries whose position is present in M (complemented).
// Only M's structure counts, never its values. A mask holds a non-owning view of M's row pointers
// and sorted columns: host pointers for the CPU engine, device pointers for the GPU engine.
// Both engines cut the work with it: products outside a structural mask never touch an
// accumulator, and a row's accumulator is sized by min(products, nnz of the mask row).
#include "opsparse/types.hpp"

namespace opsparse {

enum class mask_kind { none, structural, complemented };

/// No mask: every product counts.
struct no_mask {
  static constexpr mask_kind kind = mask_kind::none;
};

namespace detail {
template <mask_kind K>
struct mask_view {
  static constexpr mask_kind kind = K;
  index_t rows = 0;
  index_t cols = 0;
  const offset_t* rpt = nullptr;  ///< rows + 1
  const index_t* col = nullptr;   ///< sorted within rows
};
}  // namespace detail

/// C<M>: keep only positions present in M.
using structural_mask = detail::mask_view<mask_kind::structural>;
/// C<¬M>: drop positions present in M.
using complement_mask = detail::mask_view<mask_kind::complemented>;

/// Builds a mask view over any matrix-like object with rows, cols, rpt and col members
/// (host_csr through its vectors, device_csr through its device pointers; see those headers).
template <class MaskT>
MaskT make_mask(index_t rows, index_t cols, const offset_t* rpt, const index_t* col) {
  MaskT m;
  m.rows = rows;
  m.cols = cols;
  m.rpt = rpt;
  m.col = col;
  return m;
}

}  // namespace opsparse
