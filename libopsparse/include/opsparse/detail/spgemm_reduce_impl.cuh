#pragma once
// spgemm_reduce (opsparse/spgemm_reduce.hpp): ⊕ of C<M> = A·B without forming C.
// Included only by the spgemm_reduce instantiations (the list in libopsparse/CMakeLists.txt).
//
// Every row of A goes through one of two kernels:
//   rows   one warp per row, for mask rows of at most warp_mask_limit entries (and A rows of at
//          most warp_a_limit): the mask row is put into the warp's own shared hash set, sized to
//          the row (>= 2 slots per entry, so an absent key meets an empty slot soon), then the
//          row's products are enumerated 32 at a time and probed once each.
//   long   one block per row (rows fetched from a counter, so that one long row does not hold
//          up a static share of the others): the block's shared hash set when the mask row fits
//          half of it (the table is as large as the device's per-block shared memory allows);
//          beyond that a bitmap of B's columns in global memory, one per resident block, kept
//          all-zero between rows by clearing exactly the bits the row set.
// Products are enumerated by the engine's own loop, for_each_product (kernels.cuh), flattened
// across the warp (and, in the long kernel, shared by all warps when A's row is short): rows
// of B of any length keep every lane busy.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "opsparse/detail/device_ops.cuh"
#include "opsparse/detail/plan_state.hpp"
#include "opsparse/detail/spgemm_impl.cuh"
#include "opsparse/error.hpp"
#include "opsparse/spgemm_reduce.hpp"

namespace opsparse::detail::reduce {

constexpr int warp = 32;
constexpr int rows_block = 256;  ///< threads of the row kernel: 8 warps
constexpr int rows_warps = rows_block / warp;
constexpr int warp_table_log2 = 10;        ///< 1024 slots (4 KiB) per warp
constexpr offset_t warp_mask_limit = 512;  ///< mask rows the warp's table takes (load <= 1/2)
constexpr offset_t warp_a_limit = 2048;    ///< longer rows of A get a whole block
constexpr int long_block = 1024;           ///< threads of the long kernel with a large table
constexpr int long_block_small = 512;      ///< ... with a table three blocks can share an SM with
constexpr int long_warps = long_block / warp;

/// Counters in the plan's reduce_meta: long rows listed, products, longest listed mask row,
/// long rows handed out.
enum counter { n_long = 0, n_products = 1, max_long_mask = 2, n_taken = 3, n_counters = 4 };

__device__ __forceinline__ unsigned fib_hash(index_t key, int shift) {
  return (static_cast<unsigned>(key) * 2654435769u) >> shift;
}

/// A hash set of a mask row in shared memory: power-of-two table, -1 empty, linear probing.
struct shared_set {
  index_t* tab;
  unsigned mask;
  int shift;
  __device__ __forceinline__ void insert(index_t key) const {
    unsigned h = fib_hash(key, shift);
    while (true) {
      const index_t old = atomicCAS(tab + h, -1, key);
      if (old == -1 || old == key) return;
      h = (h + 1) & mask;
    }
  }
  __device__ __forceinline__ bool has(index_t key) const {
    unsigned h = fib_hash(key, shift);
    while (true) {
      const index_t s = tab[h];
      if (s == key) return true;
      if (s == -1) return false;
      h = (h + 1) & mask;
    }
  }
};

/// A mask row as bits of B's columns in global memory. Set with atomics by the block, read
/// bypassing L1 (the atomics update L2 only).
struct bitmap_set {
  unsigned* bits;
  __device__ __forceinline__ bool has(index_t key) const {
    return (__ldcg(bits + (key >> 5)) >> (key & 31)) & 1u;
  }
};

/// The semiring's ⊕ as a binary operation (for warp_reduce, device_utils.cuh).
template <class S>
struct add_op {
  __device__ __forceinline__ typename S::value_type operator()(typename S::value_type x,
                                                               typename S::value_type y) const {
    return S::add(x, y);
  }
};

/// ⊕ over this thread's products of A's row `row` (for_each_product with `nthreads` threads,
/// flattened) whose column of B is in `set`; counts them into `products`.
template <class S, class VA, class VB, class Set>
__device__ __forceinline__ typename S::value_type row_products(const dev_csr<VA>& a,
                                                               const dev_csr<VB>& b, index_t row,
                                                               int tid, int nthreads,
                                                               const Set& set,
                                                               unsigned long long& products) {
  typename S::value_type acc = S::identity();
  for_each_product(a, b, row, tid, nthreads, flat_glog, [&](VA av, offset_t p) {
    ++products;
    if (set.has(__ldg(b.col + p))) acc = S::add(acc, S::multiply(av, load_value(b.val, p)));
  });
  return acc;
}

template <class S, class VA, class VB>
__global__ void __launch_bounds__(rows_block)
    rows_kernel(index_t rows, dev_csr<VA> a, dev_csr<VB> b, structural_mask m,
                unsigned long long* ctr, index_t* long_rows, typename S::value_type* total,
                typename S::value_type* row_sums) {
  using T = typename S::value_type;
  __shared__ index_t tables[rows_warps][1 << warp_table_log2];
  const int wid = threadIdx.x / warp, lane = threadIdx.x % warp;
  T acc_all = S::identity();
  unsigned long long products = 0;
  for (long long i = blockIdx.x * static_cast<long long>(rows_warps) + wid; i < rows;
       i += static_cast<long long>(gridDim.x) * rows_warps) {
    const offset_t mlo = __ldg(m.rpt + i), mhi = __ldg(m.rpt + i + 1);
    const offset_t alo = __ldg(a.rpt + i), ahi = __ldg(a.rpt + i + 1);
    const offset_t mn = mhi - mlo;
    if (mn == 0 || ahi == alo) {
      if (row_sums != nullptr && lane == 0) row_sums[i] = S::identity();
      continue;
    }
    if (mn > warp_mask_limit || ahi - alo > warp_a_limit) {
      if (lane == 0) {
        const unsigned long long at = atomicAdd(ctr + n_long, 1ull);
        long_rows[at] = static_cast<index_t>(i);
        atomicMax(ctr + max_long_mask, static_cast<unsigned long long>(mn));
      }
      continue;
    }
    int lg = 5;
    while ((offset_t{1} << lg) < 2 * mn) ++lg;
    const unsigned size = 1u << lg;
    const shared_set set{tables[wid], size - 1, 32 - lg};
    for (unsigned s = lane; s < size; s += warp) set.tab[s] = -1;
    __syncwarp();
    for (offset_t p = mlo + lane; p < mhi; p += warp) set.insert(__ldg(m.col + p));
    __syncwarp();
    T acc = row_products<S>(a, b, static_cast<index_t>(i), lane, warp, set, products);
    acc = warp_reduce(acc, add_op<S>{});
    if (lane == 0) {
      if (row_sums != nullptr) row_sums[i] = acc;
      acc_all = S::add(acc_all, acc);
    }
    __syncwarp();  // the table is cleared for the next row
  }
  products = warp_sum(products);
  if (lane == 0) {
    if (acc_all != S::identity()) accumulate<S>(total, acc_all);
    if (products != 0) atomicAdd(ctr + n_products, products);
  }
}

/// BS threads: long_block (one block an SM, 64 registers) or long_block_small (three, 40
/// registers: 75% occupancy where the table is small).
template <class S, class VA, class VB, int BS>
__global__ void __launch_bounds__(BS, BS == long_block ? 1 : 3)
    long_kernel(dev_csr<VA> a, dev_csr<VB> b, structural_mask m, unsigned long long* ctr,
                const index_t* long_rows, int table_log2, unsigned* pool, long long pool_words,
                typename S::value_type* total, typename S::value_type* row_sums) {
  using T = typename S::value_type;
  extern __shared__ index_t table[];
  __shared__ T partial[BS / warp];
  __shared__ unsigned long long row_slot;
  const int wid = threadIdx.x / warp, lane = threadIdx.x % warp;
  const unsigned long long nlong = ctr[n_long];
  unsigned* bits = pool != nullptr ? pool + blockIdx.x * pool_words : nullptr;
  T acc_all = S::identity();
  unsigned long long products = 0;
  while (true) {
    if (threadIdx.x == 0) row_slot = atomicAdd(ctr + n_taken, 1ull);
    __syncthreads();
    const unsigned long long r = row_slot;
    if (r >= nlong) break;
    const index_t i = long_rows[r];
    const offset_t mlo = __ldg(m.rpt + i), mhi = __ldg(m.rpt + i + 1);
    const offset_t mn = mhi - mlo;
    const bool in_shared = 2 * mn <= (offset_t{1} << table_log2);
    T acc;
    if (in_shared) {
      int lg = 5;
      while ((offset_t{1} << lg) < 2 * mn) ++lg;
      const unsigned size = 1u << lg;
      const shared_set set{table, size - 1, 32 - lg};
      for (unsigned s = threadIdx.x; s < size; s += BS) table[s] = -1;
      __syncthreads();
      for (offset_t p = mlo + threadIdx.x; p < mhi; p += BS) set.insert(__ldg(m.col + p));
      __syncthreads();
      acc = row_products<S>(a, b, i, threadIdx.x, BS, set, products);
    } else {
      for (offset_t p = mlo + threadIdx.x; p < mhi; p += BS) {
        const index_t key = __ldg(m.col + p);
        atomicOr(bits + (key >> 5), 1u << (key & 31));
      }
      __syncthreads();
      acc = row_products<S>(a, b, i, threadIdx.x, BS, bitmap_set{bits}, products);
    }
    acc = warp_reduce(acc, add_op<S>{});
    if (lane == 0) partial[wid] = acc;
    __syncthreads();  // also: every product of the row has been probed
    if (wid == 0) {
      T v = lane < BS / warp ? partial[lane] : S::identity();
      v = warp_reduce(v, add_op<S>{});
      if (lane == 0) {
        if (row_sums != nullptr) row_sums[i] = v;
        acc_all = S::add(acc_all, v);
      }
    }
    if (!in_shared)
      for (offset_t p = mlo + threadIdx.x; p < mhi; p += BS)
        atomicExch(bits + (__ldg(m.col + p) >> 5), 0u);
    __syncthreads();  // cleared before the next row sets bits or reuses the table and row_slot
  }
  products = warp_sum(products);
  if (lane == 0 && products != 0) atomicAdd(ctr + n_products, products);
  if (threadIdx.x == 0 && acc_all != S::identity()) accumulate<S>(total, acc_all);
}

template <class T>
__global__ void init_kernel(unsigned long long* ctr, T* total, T identity) {
  if (threadIdx.x < n_counters) ctr[threadIdx.x] = 0;
  if (threadIdx.x == 0) *total = identity;
}

/// Shared bytes of the long kernel beside its table.
template <class T>
constexpr std::size_t long_static_bytes() {
  return sizeof(T) * long_warps + 64;
}

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

  init_kernel<T><<<1, 32, 0, s>>>(ctr, total, Semiring::identity());
  detail::check_launch("spgemm_reduce init");
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
