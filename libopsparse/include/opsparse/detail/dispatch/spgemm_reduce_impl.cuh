#pragma once
// spgemm_reduce (opsparse/spgemm_reduce.hpp): the launcher of kernels/reduce_kernels.cuh.
// Included only by the spgemm_reduce instantiations (the list in libopsparse/CMakeLists.txt).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "opsparse/detail/kernels/reduce_kernels.cuh"
#include "opsparse/detail/kernels/window_kernels.cuh"
#include "opsparse/detail/dispatch/plan_state.hpp"
#include "opsparse/detail/dispatch/spgemm_impl.cuh"
#include "opsparse/error.hpp"
#include "opsparse/spgemm_reduce.hpp"

namespace opsparse::detail::reduce {

/// The long kernel over the rows the row kernel listed: a power-of-two table of twice the
/// longest listed mask row, at most the largest beside the kernel's own scratch, and blocks of
/// long_block_small threads when three such tables share an SM (R-MAT 22's ul product: mask
/// rows <= 1,030, 16 KiB tables: 75% occupancy instead of one 1,024-thread block an SM); past
/// the largest table, bitmaps of B's columns in global memory.
template <class S, int BS, class VA, class VB>
void launch_long_bs(context& ctx, detail::plan_state& st, const csr_view<VA>& a,
                    const csr_view<VB>& b, const structural_mask& mask,
                    const unsigned long long* h_ctr, unsigned long long* ctr,
                    const index_t* long_rows, int table_log2, typename S::value_type* total,
                    typename S::value_type* row_sums) {
  const device_info& dev = ctx.device();
  cudaStream_t s = ctx.stream();
  const std::size_t table_bytes = std::size_t{sizeof(index_t)} << table_log2;
  const void* kernel = reinterpret_cast<const void*>(&long_kernel<S, VA, VB, BS>);
  detail::allow_smem(kernel, table_bytes);
  int per_sm = 1;
  OPSPARSE_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BS, table_bytes));
  long long blocks =
      std::min<long long>(static_cast<long long>(h_ctr[n_long]),
                          static_cast<long long>(std::max(dev.sm_count, 1)) * std::max(per_sm, 1));
  unsigned* pool = nullptr;
  long long pool_words = 0;
  if (2 * h_ctr[max_long_mask] > (1ull << table_log2)) {
    // Bitmaps of B's columns, one per block, within an eighth of the free memory.
    pool_words = (static_cast<long long>(b.cols) + 31) / 32;
    std::size_t free_b = 0, total_b = 0;
    OPSPARSE_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    const long long fit = static_cast<long long>(free_b / 8) / (pool_words * 4);
    blocks = std::max<long long>(1, std::min(blocks, fit));
    const std::size_t bytes = static_cast<std::size_t>(blocks * pool_words) * sizeof(unsigned);
    if (st.reduce_pool.capacity() < bytes) {
      st.reserve_pool(st.reduce_pool, bytes, ctx.memory());
      OPSPARSE_CUDA_TRY(cudaMemsetAsync(st.reduce_pool.data(), 0, st.reduce_pool.capacity(), s));
    }
    pool = reinterpret_cast<unsigned*>(st.reduce_pool.data());
  }
  long_kernel<S, VA, VB, BS><<<static_cast<unsigned>(blocks), BS, table_bytes, s>>>(
      detail::to_dev(a), detail::to_dev(b), mask, ctr, long_rows, table_log2, pool, pool_words,
      total, row_sums);
  detail::check_launch("spgemm_reduce long-row kernel");
}

template <class S, class VA, class VB>
void launch_long(context& ctx, detail::plan_state& st, const csr_view<VA>& a, const csr_view<VB>& b,
                 const structural_mask& mask, const unsigned long long* h_ctr,
                 unsigned long long* ctr, const index_t* long_rows, typename S::value_type* total,
                 typename S::value_type* row_sums) {
  const device_info& dev = ctx.device();
  const std::size_t limit = std::max<std::size_t>(dev.smem_per_block_optin, 48 * 1024) -
                            dev.smem_reserved_per_block -
                            long_static_bytes<typename S::value_type>();
  int table_log2 = 5;
  while ((std::size_t{sizeof(index_t)} << (table_log2 + 1)) <= limit &&
         (1ull << table_log2) < 2 * h_ctr[max_long_mask])
    ++table_log2;
  const std::size_t per_block = (std::size_t{sizeof(index_t)} << table_log2) +
                                long_static_bytes<typename S::value_type>() +
                                dev.smem_reserved_per_block;
  if (3 * per_block <= dev.smem_per_sm)
    launch_long_bs<S, long_block_small>(ctx, st, a, b, mask, h_ctr, ctr, long_rows, table_log2,
                                        total, row_sums);
  else
    launch_long_bs<S, long_block>(ctx, st, a, b, mask, h_ctr, ctr, long_rows, table_log2, total,
                                  row_sums);
}

}  // namespace opsparse::detail::reduce

namespace opsparse {

template <class Semiring, class VA, class VB>
typename Semiring::value_type spgemm_reduce(context& ctx, plan& p, const csr_view<VA>& a,
                                            const csr_view<VB>& b, const structural_mask& mask,
                                            typename Semiring::value_type* row_sums) {
  using T = typename Semiring::value_type;
  using namespace detail::reduce;
  static_assert(has_values_v<T> && Semiring::kind != add_kind::any,
                "spgemm_reduce needs a semiring whose addition has a value to reduce");
  OPSPARSE_EXPECTS(a.cols == b.rows, "spgemm_reduce: A is " + std::to_string(a.rows) + " x " +
                                         std::to_string(a.cols) + " but B has " +
                                         std::to_string(b.rows) + " rows");
  OPSPARSE_EXPECTS(
      mask.rows == a.rows && mask.cols == b.cols,
      "spgemm_reduce: the mask must be " + std::to_string(a.rows) + " x " + std::to_string(b.cols));
  detail::plan_state& st = p.state();
  st.stats = {};
  if (a.rows == 0) return Semiring::identity();

  // reduce_meta: counters | total (own 64 bytes) | the list of long rows.
  const std::size_t head = 128;
  if (st.reduce_meta.reserve(head + static_cast<std::size_t>(a.rows) * sizeof(index_t),
                             ctx.memory()))
    ++st.allocations;
  auto* base = st.reduce_meta.data();
  auto* ctr = reinterpret_cast<unsigned long long*>(base);
  T* total = reinterpret_cast<T*>(base + 64);
  auto* long_rows = reinterpret_cast<index_t*>(base + head);
  cudaStream_t s = ctx.stream();
  const device_info& dev = ctx.device();

  const bool range = b.rows > 0 && b.nnz >= spgemm_reduce_range_min_entries;
  init_kernel<T><<<1, 32, 0, s>>>(ctr, total, Semiring::identity(), !range);
  detail::check_launch("spgemm_reduce init");
  if (range) {  // the kernels walk only a mask row's range of a B row where B is sorted
    const long long warps = (static_cast<long long>(b.rows) * 32 + 255) / 256;
    detail::rows_unsorted_kernel<<<static_cast<unsigned>(std::min(warps, 32ll * dev.sm_count)), 256,
                                   0, s>>>(b.rows, b.rpt, b.col,
                                           reinterpret_cast<unsigned*>(ctr + b_unsorted));
    detail::check_launch("spgemm_reduce rows_unsorted_kernel");
  }
  const long long want = (static_cast<long long>(a.rows) + rows_warps - 1) / rows_warps;
  const long long resident = static_cast<long long>(std::max(dev.sm_count, 1)) *
                             std::max(dev.max_threads_per_sm / rows_block, 1) * 4;
  const unsigned grid = static_cast<unsigned>(std::min(want, resident));
  rows_kernel<Semiring><<<grid, rows_block, 0, s>>>(a.rows, detail::to_dev(a), detail::to_dev(b),
                                                    mask, ctr, long_rows, total, row_sums);
  detail::check_launch("spgemm_reduce rows kernel");

  auto* staging = static_cast<unsigned char*>(ctx.pinned(64 + sizeof(T)));
  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(staging, ctr, n_counters * sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, s));
  ctx.synchronize();
  unsigned long long h_ctr[n_counters];
  std::memcpy(h_ctr, staging, sizeof(h_ctr));

  if (h_ctr[n_long] > 0)
    launch_long<Semiring>(ctx, st, a, b, mask, h_ctr, ctr, long_rows, total, row_sums);

  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(staging, ctr, n_counters * sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, s));
  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(staging + 64, total, sizeof(T), cudaMemcpyDeviceToHost, s));
  ctx.synchronize();
  std::memcpy(h_ctr, staging, sizeof(h_ctr));
  T result;
  std::memcpy(&result, staging + 64, sizeof(T));
  st.stats.products = static_cast<offset_t>(h_ctr[n_products]);
  return result;
}

}  // namespace opsparse

#define OPSPARSE_INSTANTIATE_SPGEMM_REDUCE(S, VA, VB)                                    \
  template S::value_type opsparse::spgemm_reduce<S, VA, VB>(                             \
      context&, plan&, const csr_view<VA>&, const csr_view<VB>&, const structural_mask&, \
      S::value_type*);
