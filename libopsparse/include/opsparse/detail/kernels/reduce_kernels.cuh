#pragma once
// spgemm_reduce (opsparse/spgemm_reduce.hpp): ⊕ of C<M> = A·B without forming C.
// The kernels; their launcher is dispatch/spgemm_reduce_impl.cuh.
//
// Every row of A goes through one of two kernels:
//   rows   one warp per row, for mask rows of at most warp_mask_limit entries (and A rows of at
//          most warp_a_limit): the mask row is put into the warp's own shared table, as bits of
//          its column range where that spans at most the table's bits, else as a hash set sized
//          to the row (set_log2: 8 slots a key where the table has them, at least 2), then
//          the row's products are enumerated 32 at a time and probed once each.
//   long   one block per row (rows fetched from a counter, so that one long row does not hold
//          up a static share of the others): the block's shared table (as large as the device's
//          per-block shared memory allows) as bits of the mask row's column range where that
//          fits, else as a hash set when the mask row fits half of it; beyond that a bitmap of
//          B's columns in global memory, one per resident block, kept all-zero between rows by
//          clearing exactly the bits the row set.
// Products are enumerated by the engine's own loop, for_each_product (block/product_loops.cuh),
// flattened across the warp (and, in the long kernel, shared by all warps when A's row is short):
// rows of B of any length keep every lane busy. Where B is large and its rows are sorted
// (checked on the device before the kernels), each B row longer than a warp is walked only
// between the least and the greatest column of the mask row: for triangles (C<L> = U·L,
// vertices by descending degree) half the products.
#include <cuda_runtime.h>

#include <climits>

#include "opsparse/detail/block/device_ops.cuh"
#include "opsparse/detail/block/product_loops.cuh"
#include "opsparse/detail/util/operands.hpp"
#include "opsparse/mask.hpp"

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
/// long rows handed out, whether a row of B is unsorted (rows_unsorted_kernel's flag).
enum counter {
  n_long = 0,
  n_products = 1,
  max_long_mask = 2,
  n_taken = 3,
  b_unsorted = 4,
  n_counters = 5
};

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

/// log2 of the slots of a hash set of n keys in a table of 2^table_log2 slots (n <= half of
/// it): 8 slots a key where the table has them, else fewer, at least 2 and 32 slots. A warp
/// probes until its last lane meets its key or an empty slot, so the longest of 32 probe
/// sequences sets its pace, and at a load of 1/8 that is rarely past one or two slots.
__device__ __forceinline__ int set_log2(offset_t n, int table_log2) {
  int lg = 5;
  while (lg < table_log2 && (offset_t{1} << lg) < 8 * n) ++lg;
  return lg;
}

/// A mask row whose columns span at most a table's bits, as bits of [lo, lo + span) in shared
/// memory: one load a probe, no hashing and no probe sequence.
struct range_bits {
  unsigned* bits;
  index_t lo;
  unsigned span;
  __device__ __forceinline__ void insert(index_t key) const {
    const unsigned d = static_cast<unsigned>(key - lo);
    atomicOr(bits + (d >> 5), 1u << (d & 31));
  }
  __device__ __forceinline__ bool has(index_t key) const {
    const unsigned d = static_cast<unsigned>(key - lo);
    return d < span && ((bits[d >> 5] >> (d & 31)) & 1u);
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

/// The columns of B a mask row can keep: [lo, hi] where B's rows are sorted, else every column.
struct mask_columns {
  bool sorted;
  index_t lo = INT_MAX, hi = -1;
  __device__ __forceinline__ void add(index_t key) {
    lo = min(lo, key);
    hi = max(hi, key);
  }
};

/// ⊕ over this thread's products of A's row `row` (for_each_product with `nthreads` threads,
/// flattened) whose column of B is in `set`, B's rows walked within `cols`; counts the products
/// into `products`.
template <class S, class VA, class VB, class Set>
__device__ __forceinline__ typename S::value_type row_products(
    const dev_csr<VA>& a, const dev_csr<VB>& b, index_t row, int tid, int nthreads, const Set& set,
    const mask_columns& cols, unsigned long long& products) {
  typename S::value_type acc = S::identity();
  for_each_product<false, narrow_total>(
      a, b, row, tid, nthreads, flat_glog,
      [&](VA av, offset_t p) {
        ++products;
        if (set.has(__ldg(b.col + p))) acc = S::add(acc, S::multiply(av, load_value(b.val, p)));
      },
      column_range{b.col, cols.lo, cols.sorted ? cols.hi : column_range::whole});
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
  const bool sorted = *reinterpret_cast<const unsigned*>(ctr + b_unsorted) == 0;
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
    // The mask row's range first: a bitmap of it when it fits the warp's table, else a hash set.
    mask_columns cols{sorted};
    for (offset_t p = mlo + lane; p < mhi; p += warp) cols.add(__ldg(m.col + p));
    cols.lo = warp_reduce(cols.lo, min_op{});
    cols.hi = warp_reduce(cols.hi, max_op{});
    const unsigned span = static_cast<unsigned>(cols.hi - cols.lo) + 1;
    T acc;
    if (span <= (32u << warp_table_log2)) {
      const range_bits set{reinterpret_cast<unsigned*>(tables[wid]), cols.lo, span};
      for (unsigned w = lane; w < (span + 31) / 32; w += warp) set.bits[w] = 0;
      __syncwarp();
      for (offset_t p = mlo + lane; p < mhi; p += warp) set.insert(__ldg(m.col + p));
      __syncwarp();
      acc = row_products<S>(a, b, static_cast<index_t>(i), lane, warp, set, cols, products);
    } else {
      const int lg = set_log2(mn, warp_table_log2);
      const unsigned size = 1u << lg;
      const shared_set set{tables[wid], size - 1, 32 - lg};
      for (unsigned s = lane; s < size; s += warp) set.tab[s] = -1;
      __syncwarp();
      for (offset_t p = mlo + lane; p < mhi; p += warp) set.insert(__ldg(m.col + p));
      __syncwarp();
      acc = row_products<S>(a, b, static_cast<index_t>(i), lane, warp, set, cols, products);
    }
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

/// The block's mask columns: every thread's range merged through `lo`/`hi` (shared, reset by
/// thread 0 before the row). Syncs the block.
__device__ __forceinline__ void block_columns(mask_columns& cols, index_t& lo, index_t& hi) {
  cols.lo = warp_reduce(cols.lo, min_op{});
  cols.hi = warp_reduce(cols.hi, max_op{});
  if (threadIdx.x % warp == 0 && cols.hi >= 0) {
    atomicMin(&lo, cols.lo);
    atomicMax(&hi, cols.hi);
  }
  __syncthreads();
  cols.lo = lo;
  cols.hi = hi;
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
  __shared__ index_t row_lo, row_hi;  // the row's least and greatest mask column
  const int wid = threadIdx.x / warp, lane = threadIdx.x % warp;
  const unsigned long long nlong = ctr[n_long];
  const bool sorted = *reinterpret_cast<const unsigned*>(ctr + b_unsorted) == 0;
  unsigned* bits = pool != nullptr ? pool + blockIdx.x * pool_words : nullptr;
  T acc_all = S::identity();
  unsigned long long products = 0;
  while (true) {
    if (threadIdx.x == 0) {
      row_slot = atomicAdd(ctr + n_taken, 1ull);
      row_lo = INT_MAX;
      row_hi = -1;
    }
    __syncthreads();
    const unsigned long long r = row_slot;
    if (r >= nlong) break;
    const index_t i = long_rows[r];
    const offset_t mlo = __ldg(m.rpt + i), mhi = __ldg(m.rpt + i + 1);
    const offset_t mn = mhi - mlo;
    // The mask row's range first: bits of it in the table where they fit, else a hash set in
    // the table where the row fits half of it, else the block's bitmap in global memory.
    mask_columns cols{sorted};
    for (offset_t p = mlo + threadIdx.x; p < mhi; p += BS) cols.add(__ldg(m.col + p));
    block_columns(cols, row_lo, row_hi);
    const unsigned span = static_cast<unsigned>(cols.hi - cols.lo) + 1;
    const bool in_bits = span <= (32u << table_log2);
    const bool in_global = !in_bits && 2 * mn > (offset_t{1} << table_log2);
    T acc;
    if (in_bits) {
      const range_bits set{reinterpret_cast<unsigned*>(table), cols.lo, span};
      for (unsigned w = threadIdx.x; w < (span + 31) / 32; w += BS) set.bits[w] = 0;
      __syncthreads();
      for (offset_t p = mlo + threadIdx.x; p < mhi; p += BS) set.insert(__ldg(m.col + p));
      __syncthreads();
      acc = row_products<S>(a, b, i, threadIdx.x, BS, set, cols, products);
    } else if (!in_global) {
      const int lg = set_log2(mn, table_log2);
      const unsigned size = 1u << lg;
      const shared_set set{table, size - 1, 32 - lg};
      for (unsigned s = threadIdx.x; s < size; s += BS) table[s] = -1;
      __syncthreads();
      for (offset_t p = mlo + threadIdx.x; p < mhi; p += BS) set.insert(__ldg(m.col + p));
      __syncthreads();
      acc = row_products<S>(a, b, i, threadIdx.x, BS, set, cols, products);
    } else {
      for (offset_t p = mlo + threadIdx.x; p < mhi; p += BS) {
        const index_t key = __ldg(m.col + p);
        atomicOr(bits + (key >> 5), 1u << (key & 31));
      }
      __syncthreads();
      acc = row_products<S>(a, b, i, threadIdx.x, BS, bitmap_set{bits}, cols, products);
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
    if (in_global)
      for (offset_t p = mlo + threadIdx.x; p < mhi; p += BS)
        atomicExch(bits + (__ldg(m.col + p) >> 5), 0u);
    __syncthreads();  // cleared before the next row sets bits or reuses the table and row_slot
  }
  products = warp_sum(products);
  if (lane == 0 && products != 0) atomicAdd(ctr + n_products, products);
  if (threadIdx.x == 0 && acc_all != S::identity()) accumulate<S>(total, acc_all);
}

/// Zeroes the counters; `whole_rows` marks B unsorted so that the kernels walk B's rows whole.
template <class T>
__global__ void init_kernel(unsigned long long* ctr, T* total, T identity, bool whole_rows) {
  if (threadIdx.x < n_counters) ctr[threadIdx.x] = threadIdx.x == b_unsorted && whole_rows;
  if (threadIdx.x == 0) *total = identity;
}

/// Shared bytes of the long kernel beside its table.
template <class T>
constexpr std::size_t long_static_bytes() {
  return sizeof(T) * long_warps + 64;
}

}  // namespace opsparse::detail::reduce
