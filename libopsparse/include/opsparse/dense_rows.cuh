#pragma once
// Dense rows of a product, handed to the caller's device code instead of being written out.
//
// visit_dense_rows<S>(ctx, A, B, epi) computes the rows of C = A·B over the semiring S (C<M> with
// a mask) as the engine computes its densest rows: a block a row (dense_block threads, one block
// per SM), the row accumulated in shared memory one window of columns after another, and each
// finished window handed to `epi` while it is still in shared memory. Nothing of C reaches
// device memory but what the epilogue writes: MCL prunes its expansion this way (apps/mcl), so
// that the unpruned rows, 99% dense on protein-similarity networks, are never stored.
//
// The epilogue is a copyable struct of device code, called by every thread of the block:
//   static constexpr bool presence_bits = ...;  // false: no bits, presence is value != 0
//                                               // (S must sum with +: positive products)
//   static constexpr int fixed_point_bits = F;  // optional, needs presence_bits false and
//        // S = plus_times<double>: sums kept as 64-bit integers in units of 2^-F (each
//        // product rounded to one), exact and independent of the order, two native shared
//        // atomics a product instead of a compare-and-swap loop; every product and sum must
//        // stay within +-2^(63-F) (MCL's expansion of a stochastic matrix: within [0, 1])
//   struct shared_storage { ... };            // its static shared memory (one per block)
//   __device__ void begin_row(shared_storage&, index_t row) const;
//   __device__ void window(shared_storage&, index_t row, index_t w0, int width,
//                          const T* vals, const unsigned* bits) const;
//   __device__ void end_row(shared_storage&, index_t row) const;
// T = S::value_type. window() sees columns [w0, w0 + width): vals[x] holds column w0 + x's sum
// (the semiring's identity where absent), bit x of bits[x / 32] says whether the row has the
// column (bits is not there when presence_bits is false). Windows come in increasing
// column order; barriers separate the calls, so an epilogue
// may keep per-row state in its shared storage. A block may identify itself by blockIdx.x
// (gridDim.x = dense_rows_blocks()) to use scratch of its own in device memory.
//
// Needs nvcc (the epilogue is device code): include it from a .cu file.
#include <cuda_runtime.h>

#include <algorithm>

#include "opsparse/context.hpp"
#include "opsparse/detail/util/launch.hpp"
#include "opsparse/detail/kernels/window_kernels.cuh"
#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/mask.hpp"
#include "opsparse/semiring.hpp"

namespace opsparse {

struct dense_rows_options {
  /// Rows of A to visit, on the device (nullptr: rows 0 .. A.rows - 1).
  const index_t* rows = nullptr;
  index_t n_rows = -1;  ///< how many of them (negative: A.rows)
  /// B's rows are known to be sorted by column: skips the check (one pass over B on the
  /// device). Windows find their part of a sorted row by cursor; unsorted rows are walked whole
  /// by every window (correct, slower).
  bool b_sorted = false;
  /// At most this many columns a window (rounded down to a multiple of 32; 0: as many as fit).
  /// Tests lower it to reach several windows on small matrices.
  int max_window = 0;
  /// Columns [first_col, last_col) only (last_col < 0: B.cols): a product of B's column block,
  /// visited in stages (MCL's distributed expansion). B must have no entry left of first_col.
  index_t first_col = 0;
  index_t last_col = -1;
  /// Each lane walks its own cursors' parts of B's rows through a window (sorted B only)
  /// instead of the warp walking one part at a time, 32 entries a load: for very wide products
  /// whose windows hold a few entries of each B row. Off: slower where measured (MCL at 2M
  /// columns; docs/experiments/2026-11-28-mcl-spread-iterate.md).
  bool lane_walk = false;
};

/// Columns per window for the epilogue Epi over values of S (the kernel's choice: as many as
/// shared memory holds next to Epi's storage; all of B's columns when they fit).
template <class S, class Epi>
int dense_rows_window(const context& ctx, index_t cols) {
  using T = typename S::value_type;
  // Without presence bits (Epi::presence_bits false) the window is values only: at 1M columns
  // of doubles that is 36 windows a row instead of 37.
  return detail::window_columns(
      ctx.device().smem_per_block_optin, has_values_v<T> ? sizeof(T) : 0, cols,
      sizeof(typename Epi::shared_storage) + detail::window_static_smem_bytes(),
      Epi::presence_bits);
}

/// Thread blocks the visit runs (one per SM, at most one per row): sizes per-block scratch.
inline int dense_rows_blocks(const context& ctx, index_t n_rows) {
  return static_cast<int>(std::max<index_t>(1, std::min<index_t>(n_rows, ctx.device().sm_count)));
}

/// Queues the visit on ctx.stream() (asynchronous: the epilogue's writes are complete once the
/// stream has reached them).
template <class S, class VA, class VB, class Epi, class Mask = no_mask>
void visit_dense_rows(context& ctx, const csr_view<VA>& a, const csr_view<VB>& b, const Epi& epi,
                      const Mask& mask = {}, const dense_rows_options& opt = {}) {
  using T = typename S::value_type;
  OPSPARSE_EXPECTS(a.cols == b.rows, "visit_dense_rows: A.cols must equal B.rows");
  const index_t n = opt.n_rows >= 0 ? opt.n_rows : a.rows;
  if (n == 0) return;
  cudaStream_t s = ctx.stream();
  // The unsorted flag lives in the context's scratch, past the engine's scalars.
  unsigned* flag = reinterpret_cast<unsigned*>(static_cast<unsigned char*>(ctx.scratch()) +
                                               detail::scratch_visit_flag);
  OPSPARSE_CUDA_TRY(cudaMemsetAsync(flag, 0, sizeof(unsigned), s));
  if (!opt.b_sorted && b.rows > 0) {
    const long long want = (static_cast<long long>(b.rows) * 32 + 255) / 256;
    const unsigned grid =
        static_cast<unsigned>(std::min<long long>(want, 32ll * ctx.device().sm_count));
    detail::rows_unsorted_kernel<<<grid, 256, 0, s>>>(b.rows, b.rpt, b.col, flag);
    detail::check_launch("rows_unsorted_kernel");
  }
  const index_t last = opt.last_col >= 0 ? opt.last_col : b.cols;
  OPSPARSE_EXPECTS(0 <= opt.first_col && opt.first_col <= last && last <= b.cols,
                   "visit_dense_rows: bad column range");
  int window = std::max(32, dense_rows_window<S, Epi>(ctx, last - opt.first_col));
  if (opt.max_window > 0) window = std::min(window, std::max(32, opt.max_window / 32 * 32));
  const std::size_t bytes =
      detail::window_smem_bytes(window, has_values_v<T> ? sizeof(T) : 0, Epi::presence_bits);
  auto k = detail::window_rows_kernel<S, VA, VB, Mask, Epi>;
  detail::allow_smem(reinterpret_cast<const void*>(k), bytes);
  k<<<dense_rows_blocks(ctx, n), detail::dense_block, bytes, s>>>(
      opt.rows, n, detail::dev_csr<VA>{a.rpt, a.col, a.val},
      detail::dev_csr<VB>{b.rpt, b.col, b.val}, opt.first_col, last, window, flag, opt.lane_walk,
      mask, epi);
  detail::check_launch("window_rows_kernel");
}

}  // namespace opsparse
