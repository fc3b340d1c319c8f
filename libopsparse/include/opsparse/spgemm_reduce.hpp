#pragma once
// The reduction of a masked product without the product: s = ⊕ C, C<M> = A·B over a semiring,
// and optionally every row's ⊕ of C, with C never formed. Triangle counting is this with
// plus_pair and M = A = B = L (LAGraph computes C<L> = L·L and then sum(C); here the two are
// fused, so neither a symbolic phase nor C's storage is needed).
//
// How (libopsparse/include/opsparse/detail/kernels/reduce_kernels.cuh): a row's mask entries go
// into a hash set (shared memory: a warp's table for mask rows up to 512 entries, a block's table
// for longer ones; above the block's table, a bitmap of B's columns in global memory), and every
// product A(i,k)·B(k,j) is enumerated, flattened across a warp, and kept when j is in the set.
// One probe per product, no atomics per product, no per-row output beyond the optional sum.
// Where B holds at least spgemm_reduce_range_min_entries and its rows are sorted (checked on the
// device), a B row longer than a warp is walked only between the least and the greatest column
// of the mask row: the others cannot be kept. (On a smaller B the check's pass costs more than
// it saves: docs/experiments/2026-11-29-triangle-mask-range.md.)
//
// Compiles with the host compiler; instantiated by the list spgemm_reduce of
// libopsparse/CMakeLists.txt.
#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/mask.hpp"
#include "opsparse/plan.hpp"
#include "opsparse/semiring.hpp"

namespace opsparse {

/// Entries of B from which spgemm_reduce checks B's rows for order and walks them within each
/// mask row's columns.
inline constexpr offset_t spgemm_reduce_range_min_entries = offset_t{1} << 20;

/// ⊕ over every entry of C<M> = A·B (structural M). `row_sums`, when not null, is a device array
/// of A.rows values that receives each row's ⊕ (the semiring's identity for empty rows). Blocks
/// until the result is known. plan.stats().products is the number of products enumerated (those
/// a mask row's column range skips are not);
/// plan.stats().nnz is 0 (C is not formed). The plan's grow-only workspace is reused.
template <class Semiring, class VA, class VB>
typename Semiring::value_type spgemm_reduce(context& ctx, plan& p, const csr_view<VA>& a,
                                            const csr_view<VB>& b, const structural_mask& mask,
                                            typename Semiring::value_type* row_sums = nullptr);

}  // namespace opsparse
