#pragma once
// The OpSparse kernels (paper §4-5): symbolic and numeric hashing per bin. Thin kernels; the
// driver in spgemm_impl.cuh picks and launches them. Setup and binning: binning_kernels.cuh.
#include <cuda_runtime.h>

#include <climits>

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "opsparse/detail/kernels/binning_kernels.cuh"
#include "opsparse/detail/block/product_loops.cuh"
#include "opsparse/policy.hpp"

namespace opsparse::detail {

// ---- step 3: symbolic ---------------------------------------------------------------------------
/// Several rows per block (multi_row_block_threads / TPR), TPR threads per row, each thread
/// walking whole B rows (bin 0). The bin's row count is read on the device (the binning's
/// counter), so the kernel is queued before the host knows it, on a grid for every row of A.
template <int TPR, class VA, class VB, class Mask>
__global__ void __launch_bounds__(multi_row_block_threads,
                                  threads_per_sm_target / multi_row_block_threads)
    symbolic_multi_kernel(const index_t* bins, const unsigned long long* bin_rows, dev_csr<VA> a,
                          dev_csr<VB> b, offset_t* crpt, int tsize, hash_policy hp, Mask mask) {
  extern __shared__ int smem_i[];
  constexpr int R = multi_row_block_threads / TPR;
  const unsigned first = blockIdx.x * R, n_rows = static_cast<unsigned>(*bin_rows);
  if (first >= n_rows) return;  // uniform in the block
  const int r = threadIdx.x / TPR, lane = threadIdx.x % TPR;
  int* table = smem_i + r * tsize;
  int* s_nnz = smem_i + R * tsize + r;
  const unsigned rid = first + r;
  const index_t row = rid < n_rows ? bins[rid] : -1;
  // crpt holds the row's products here (setup), an upper bound of its nnz
  const unsigned ts = row < 0 ? 0u : hp.row_sized ? row_slots(tsize, crpt[row]) : tsize;
  for (int s = lane; s < static_cast<int>(ts); s += TPR) table[s] = -1;
  if (lane == 0) *s_nnz = 0;
  // A row's table is its group's alone, and a group lies in one warp: the warp's barrier orders
  // it (a block barrier made 256 rows wait for the block's longest; see numeric_multi_kernel).
  static_assert(32 % TPR == 0, "a row's group lies in one warp");
  __syncwarp();
  if (row >= 0) {
    const table_shape t{ts, true, hp.paper};
    const mask_row mr = load_mask_row(mask, row);
    int local = 0;
    const offset_t end = a.rpt[row + 1];
    for (offset_t j = a.rpt[row] + lane; j < end; j += TPR) {
      const index_t k = __ldg(a.col + j);
      const offset_t pe = __ldg(b.rpt + k + 1);
      for (offset_t p = __ldg(b.rpt + k); p < pe; ++p) {
        const index_t key = __ldg(b.col + p);
        if (!mask_keeps<Mask>(mr, key)) continue;
        local += insert_key(table, t, key, hp.single);
      }
    }
    if (local) atomicAdd(s_nnz, local);
  }
  __syncwarp();
  if (row >= 0 && lane == 0) crpt[row] = *s_nnz;
}

/// One row per block (for_each_product: groups per nonzero of A, or flattened).
/// overflow > 0 (largest shared bin): a row passing `overflow` entries is abandoned and marked
/// with C.rpt[row] = -1 for the global-memory kernel (paper: threshold 0.8 of the table); so is,
/// at once, a row of at least `dense_products` products (> 0 when the dense kernels take them:
/// twice C's columns make a row nearly dense, too long for any table).
template <int BS, class VA, class VB, class Mask>
__global__ void __launch_bounds__(BS, threads_per_sm_target / BS)
    symbolic_block_kernel(const index_t* bins, dev_csr<VA> a, dev_csr<VB> b, offset_t* crpt,
                          int tsize, bool pow2, hash_policy hp, int glog, int overflow,
                          offset_t dense_products, Mask mask) {
  extern __shared__ int smem_i[];
  int* table = smem_i;
  int* s_nnz = smem_i + tsize;
  const int tid = threadIdx.x;
  const index_t row = bins[blockIdx.x];
  if (overflow && dense_products > 0 && crpt[row] >= dense_products) {  // uniform in the block
    __syncthreads();  // every thread has read crpt[row] (the row's products) before it changes
    if (tid == 0) crpt[row] = offset_t(-1);
    return;
  }
  const bool groups = !overflow && glog < flat_glog;
  const bool vote = groups && merge_vote(a, b, row, tid, hp);
  for (int s = tid; s < tsize; s += BS) table[s] = -1;
  if (tid == 0) *s_nnz = 0;
  const int width = __syncthreads_count(vote);
  const table_shape t{static_cast<unsigned>(tsize), pow2, hp.paper};
  const mask_row mr = load_mask_row(mask, row);
  int local = 0;
  if (width >= 2 && hp.merged_rows && tid == 0) atomicAdd(hp.merged_rows + (width - 2), 1ull);
  auto insert = [&](index_t key, pattern) {
    if (mask_keeps<Mask>(mr, key)) local += insert_key(table, t, key, hp.single);
  };
  if (width == 4) {
    for_each_run<any_pair>(a, b, row, tid, BS, glog, insert);
  } else if (width == 3) {
    for_each_merged<3, any_pair>(a, b, row, tid, BS, glog, insert);
  } else if (width == 2) {
    for_each_merged<2, any_pair>(a, b, row, tid, BS, glog, insert);
  } else if (groups) {
    for_each_product<true>(a, b, row, tid, BS, glog, [&](VA, offset_t p) {
      const index_t key = __ldg(b.col + p);
      if (mask_keeps<Mask>(mr, key)) local += insert_key(table, t, key, hp.single);
    });
  } else {
    for_each_product(a, b, row, tid, BS, glog, [&](VA, offset_t p) {
      const index_t key = __ldg(b.col + p);
      if (!mask_keeps<Mask>(mr, key) || !insert_key(table, t, key, hp.single)) return false;
      if (!overflow) {
        ++local;
        return false;
      }
      // The count each new key returns tells its thread when the row passed the threshold; a
      // thread (a warp, flattened) stops at its first new key past it, so the table holds at most
      // overflow + BS keys (< tsize) and no flag is polled.
      return atomicAdd(s_nnz, 1) + 1 > overflow;
    });
  }
  if (!overflow) {
    local = warp_sum(local);
    if ((tid & 31) == 0 && local) atomicAdd(s_nnz, local);
  }
  __syncthreads();
  if (tid == 0) crpt[row] = (overflow && *s_nnz > overflow) ? offset_t(-1) : offset_t(*s_nnz);
}

/// Global-memory tables for the rows bin 7 abandoned (paper kernel 8). A fixed grid walks the
/// bin; each block owns one table of `tsize` (a power of two) entries in `pool`.
template <class VA, class VB, class Mask>
__global__ void __launch_bounds__(1024, threads_per_sm_target / 1024)
    symbolic_global_kernel(const index_t* bins, int n_rows, dev_csr<VA> a, dev_csr<VB> b,
                           offset_t* crpt, int* pool, unsigned tsize, hash_policy hp, int glog,
                           Mask mask) {
  __shared__ int s_nnz, s_todo;
  int* table = pool + static_cast<size_t>(blockIdx.x) * tsize;
  const int tid = threadIdx.x;
  const table_shape t{tsize, true, hp.paper};
  for (int r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const index_t row = bins[r];
    if (tid == 0) s_todo = crpt[row] < 0, s_nnz = 0;
    __syncthreads();
    if (s_todo) {
      for (unsigned s = tid; s < tsize; s += blockDim.x) table[s] = -1;
      __syncthreads();
      const mask_row mr = load_mask_row(mask, row);
      int local = 0;
      for_each_product(a, b, row, tid, blockDim.x, glog, [&](VA, offset_t p) {
        const index_t key = __ldg(b.col + p);
        if (mask_keeps<Mask>(mr, key)) local += insert_key(table, t, key, hp.single);
        return false;
      });
      local = warp_sum(local);
      if ((tid & 31) == 0 && local) atomicAdd(&s_nnz, local);
      __syncthreads();
      if (tid == 0) crpt[row] = s_nnz;
    }
    __syncthreads();
  }
}

// ---- step 5: numeric ----------------------------------------------------------------------------
template <class T>
struct dev_out {
  const offset_t* rpt;
  index_t* col;
  T* val;
};

template <class T>
__device__ __forceinline__ void store_entry(const dev_out<T>& c, offset_t at, index_t key,
                                            const T* vals, int slot) {
  c.col[at] = key;
  if constexpr (has_values_v<T>) c.val[at] = vals[slot];
}

/// Several rows per block (bin 0), TPR threads
/// per row. Rows are tiny: rank each occupied slot
/// against the whole (small) table instead of condensing first.
template <int TPR, class S, class VA, class VB, class Mask>
__global__ void __launch_bounds__(multi_row_block_threads,
                                  threads_per_sm_target / multi_row_block_threads)
    numeric_multi_kernel(const index_t* bins, int n_rows, dev_csr<VA> a, dev_csr<VB> b,
                         dev_out<typename S::value_type> c, int tsize, hash_policy hp, bool sorted,
                         Mask mask) {
  using T = typename S::value_type;
  constexpr int R = multi_row_block_threads / TPR;
  extern __shared__ __align__(16) unsigned char smem_c[];
  const int r = threadIdx.x / TPR, lane = threadIdx.x % TPR;
  T* vals = reinterpret_cast<T*>(smem_c) + (has_values_v<T> ? r * tsize : 0);
  int* keys =
      reinterpret_cast<int*>(smem_c + (has_values_v<T> ? sizeof(T) * R * tsize : 0)) + r * tsize;
  int* s_off = reinterpret_cast<int*>(smem_c + (has_values_v<T> ? sizeof(T) * R * tsize : 0)) +
               R * tsize + r;
  const long long rid = static_cast<long long>(blockIdx.x) * R + r;
  const index_t row = rid < n_rows ? bins[rid] : -1;
  const int ts = row < 0        ? 0
                 : hp.row_sized ? static_cast<int>(row_slots(tsize, c.rpt[row + 1] - c.rpt[row]))
                                : tsize;
  for (int s = lane; s < ts; s += TPR) {
    keys[s] = -1;
    if constexpr (has_values_v<T>) vals[s] = S::identity();
  }
  if (lane == 0) *s_off = 0;
  // A row's table is its group's alone, and a group lies in one warp: the warp's barrier orders
  // it. A block barrier here and after the products made the block's rows (128 then) wait for its
  // longest (Nsight Compute, patents_main: 46% of the issue stalls at the barrier, 9.9 active
  // threads a warp).
  static_assert(32 % TPR == 0, "a row's group lies in one warp");
  __syncwarp();
  if (row >= 0) {
    const table_shape t{static_cast<unsigned>(ts), ts < tsize, hp.paper};
    const mask_row mr = load_mask_row(mask, row);
    const offset_t end = a.rpt[row + 1];
    for (offset_t j = a.rpt[row] + lane; j < end; j += TPR) {
      const index_t k = __ldg(a.col + j);
      const VA av = load_value(a.val, j);
      const offset_t pe = __ldg(b.rpt + k + 1);
      for (offset_t p = __ldg(b.rpt + k); p < pe; ++p) {
        const index_t key = __ldg(b.col + p);
        if (!mask_keeps<Mask>(mr, key)) continue;
        insert_accumulate<S>(keys, vals, t, key, S::multiply(av, load_value(b.val, p)), hp.single);
      }
    }
  }
  __syncwarp();
  if (row < 0) return;  // the whole group leaves together
  // Condense the group's table with warp ballots (the group's lanes share a warp), then rank each
  // entry among the n condensed ones: n^2/TPR comparisons instead of table^2/TPR.
  const int wl = threadIdx.x & 31;
  const unsigned gmask = ((1u << TPR) - 1) << (wl / TPR * TPR);
  const unsigned below = gmask & ((1u << wl) - 1);
  int n = 0;
  for (int s0 = 0; s0 < ts; s0 += TPR) {
    const int s = s0 + lane;
    int key = -1;
    T v{};
    if (s < ts) {
      key = keys[s];
      if constexpr (has_values_v<T>) v = vals[s];
    }
    const unsigned bal = __ballot_sync(gmask, key != -1);
    __syncwarp(gmask);  // every lane has read its slot before any lane writes a condensed one
    if (key != -1) {
      const int pos = n + __popc(bal & below);
      keys[pos] = key;
      if constexpr (has_values_v<T>) vals[pos] = v;
    }
    n += __popc(bal & gmask);
    __syncwarp(gmask);
  }
  const offset_t base = c.rpt[row];
  for (int e = lane; e < n; e += TPR) {
    const int key = keys[e];
    int pos = e;
    if (sorted) {
      pos = 0;
      for (int q = 0; q < n; ++q) pos += keys[q] < key;
    }
    store_entry(c, base + pos, key, vals, e);
  }
}

// ---- block radix sort of a condensed row ------------------------------------------------------
/// Items per thread in the largest shared bin: rows up to 1024 * 10 entries (the H100's largest
/// shared numeric bin holds 9,685 in double at the default range).
constexpr int radix_items = 10;
/// Items per thread in the other bins: a bin's rows reach about 4.7 times its threads in double
/// (numeric range 2x); longer rows (smaller values, wider ranges) keep the bitonic sort.
constexpr int mid_radix_items = 5;

/// Items per thread of numeric_block_kernel<BS, ..., MINB>'s radix sort.
constexpr int radix_items_for(int minb) { return minb == 1 ? radix_items : mid_radix_items; }

template <int BS, int E, class T>
struct row_radix {
  /// A valued entry travels through the sort as its position in the condensed row (32 bits), not
  /// as its value: keys and positions take 2E registers a thread where keys and doubles took 3E,
  /// under the 64 of the largest bin (its numeric kernel spilled 19.7M local-memory requests on
  /// webbase-1M, Nsight Compute, H100). The values stay in the table, read once sorted.
  using value = std::conditional_t<has_values_v<T>, unsigned, cub::NullType>;
  using sort = cub::BlockRadixSort<unsigned, BS, E, value>;
  /// The sort's storage lies past the condensed values (at most BS * E of them).
  static constexpr std::size_t temp_offset =
      has_values_v<T> ? (sizeof(T) * BS * E + 15) / 16 * 16 : 0;
  static constexpr std::size_t temp_bytes = temp_offset + sizeof(typename sort::TempStorage);
};

/// Sorts the n condensed entries (keys[0, n), vals[0, n)) by the low `key_bits` bits of the key
/// with CUB's block radix sort (ceil(key_bits / 4) passes; the bitonic sort it replaces takes
/// log2(n)^2 / 2 block-wide rounds, 91 for a row of 6,000, and was most of the largest bin's time
/// on web graphs) and writes them to C's row, striped (coalesced). The sort's temporary storage
/// reuses the table past the condensed values; keys and positions are in registers by then.
template <int BS, int K, class T>
__device__ __forceinline__ void radix_sort_store(const int* keys, const T* vals, int n,
                                                 int key_bits, const dev_out<T>& c, offset_t base,
                                                 void* smem) {
  using R = row_radix<BS, K, T>;
  unsigned k[K];
  typename R::value v[K];
  const unsigned pad = key_bits >= 32 ? ~0u : (1u << key_bits) - 1u;  // after every real key
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const int idx = threadIdx.x * K + i;
    k[i] = idx < n ? static_cast<unsigned>(keys[idx]) : pad;
    if constexpr (has_values_v<T>) v[i] = static_cast<unsigned>(idx);
  }
  __syncthreads();  // every key is in registers: the table's memory past the values is the sort's
  auto& tmp = *reinterpret_cast<typename R::sort::TempStorage*>(static_cast<unsigned char*>(smem) +
                                                                R::temp_offset);
  // stable: a real key equal to the padding stays ahead of it
  if constexpr (has_values_v<T>)
    typename R::sort(tmp).SortBlockedToStriped(k, v, 0, key_bits);
  else
    typename R::sort(tmp).SortBlockedToStriped(k, 0, key_bits);
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const int idx = i * BS + threadIdx.x;
    if (idx < n) {
      c.col[base + idx] = static_cast<index_t>(k[i]);
      if constexpr (has_values_v<T>) c.val[base + idx] = vals[v[i]];
    }
  }
}

/// Writes the n condensed entries of a row (keys[0, n), vals[0, n)) to C's row in column order
/// without sorting them, when the row's columns span a range [span.x, span.y] narrow enough: a
/// bitmap of the span marks the row's columns, a scan of its words' counts gives each word's
/// first position, and an entry's position is that plus the set bits below its own. The
/// entries are placed in shared memory first (past the bitmap, and past the condensed values),
/// then copied out coalesced. Everything lives in the table's free slots, keys[n, tsize) and
/// vals[n, tsize): returns false, having written nothing, when they cannot hold it. Every
/// thread of the block calls it (it syncs).
template <int BS, class T>
__device__ __forceinline__ bool bitmap_order_store(int* keys, T* vals, int n, int2 span, int tsize,
                                                   const dev_out<T>& c, offset_t base) {
  constexpr int warps = BS / 32;
  if (n == 0) return true;
  const long long words_l = (static_cast<long long>(span.y) - span.x + 32) / 32;
  const long long room = static_cast<long long>(tsize) - n;
  if (2 * words_l + warps + n > room || n > room) return false;  // keys, and values, room
  const int words = static_cast<int>(words_l);
  const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
  unsigned* bm = reinterpret_cast<unsigned*>(keys + n);
  int* start = keys + n + words;  // each word's first position in the row
  int* wsum = start + words;      // each warp's count
  int* sorted_keys = wsum + warps;
  T* sorted_vals = vals + n;
  for (int w = tid; w < words; w += BS) bm[w] = 0u;
  __syncthreads();
  for (int e = tid; e < n; e += BS) {
    const unsigned d = static_cast<unsigned>(keys[e] - span.x);
    atomicOr(bm + (d >> 5), 1u << (d & 31));
  }
  __syncthreads();
  // exclusive scan of the words' counts, a run of words a thread
  const int per = (words + BS - 1) / BS;
  const int w0 = min(words, tid * per), w1 = min(words, w0 + per);
  int count = 0;
  for (int w = w0; w < w1; ++w) count += __popc(bm[w]);
  const int inc = warp_inclusive_sum(count);
  if (lane == 31) wsum[wid] = inc;
  __syncthreads();
  int at = inc - count;
  for (int i = 0; i < wid; ++i) at += wsum[i];
  for (int w = w0; w < w1; ++w) {
    start[w] = at;
    at += __popc(bm[w]);
  }
  __syncthreads();
  for (int e = tid; e < n; e += BS) {
    const int key = keys[e];
    const unsigned d = static_cast<unsigned>(key - span.x);
    const int pos = start[d >> 5] + __popc(bm[d >> 5] & ((1u << (d & 31)) - 1u));
    sorted_keys[pos] = key;
    if constexpr (has_values_v<T>) sorted_vals[pos] = vals[e];
  }
  __syncthreads();
  for (int e = tid; e < n; e += BS) {
    c.col[base + e] = sorted_keys[e];
    if constexpr (has_values_v<T>) c.val[base + e] = sorted_vals[e];
  }
  return true;
}

/// log2 of a power of two, at compile time.
constexpr int log2_pow2(int x) { return x <= 1 ? 0 : 1 + log2_pow2(x / 2); }
/// The most entries one bucket may hold: an entry's rank costs a read of each entry of its bucket.
constexpr int bucket_order_max_fill = 64;

/// Writes the n condensed entries of a row (keys[0, n), vals[0, n)) to C's row in column order
/// by bucketing, in place of a sort: 2*BS buckets of equal width cover the row's span [span.x,
/// span.y]; a count of each bucket, a scan of the counts and a scatter group the entries by
/// bucket in the table's free memory, and an entry's position in the row is its bucket's start
/// plus the entries of its bucket with a smaller column. A row of n entries takes about 2
/// shared atomics and n / 2BS reads an entry (4.7 in the largest bin of an H100 in double),
/// where CUB's radix sort takes ceil(key bits / 4) passes (5 for a million columns) and the
/// rank against the whole row n reads. Returns false, having written nothing to C and nothing
/// to keys[0, n) or vals[0, n), when the free slots cannot hold the buckets and the grouped
/// entries, or when a bucket holds more than bucket_order_max_fill entries (clustered columns:
/// the caller sorts). Every thread of the block calls it (it syncs).
template <int BS, class T>
__device__ __forceinline__ bool bucket_order_store(int* keys, T* vals, int n, int2 span, int tsize,
                                                   const dev_out<T>& c, offset_t base) {
  constexpr int buckets = 2 * BS, warps = BS / 32;
  constexpr int bucket_log = log2_pow2(buckets);
  if (n == 0) return true;
  // keys' free slots hold the counts, the cursors and the warps' sums; the grouped entries go
  // to values' free slots as (column, position in the condensed row) or, without values, to
  // keys' after the cursors (columns only)
  const long long room = static_cast<long long>(tsize) - n;
  const long long need = 2LL * buckets + warps + (has_values_v<T> ? 0 : n);
  if (need > room) return false;
  // (the grouped entries start at the first int boundary past the row's values)
  const long long grouped_at = (static_cast<long long>(n) * sizeof(T) + 3) / 4 * 4;
  if constexpr (has_values_v<T>)
    if (grouped_at + 8LL * n > static_cast<long long>(tsize) * sizeof(T)) return false;
  const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
  int* count = keys + n;
  int* cursor = count + buckets;
  int* wsum = cursor + buckets;
  int* grouped_keys;
  int* grouped_pos = nullptr;
  if constexpr (has_values_v<T>) {
    grouped_keys = reinterpret_cast<int*>(reinterpret_cast<unsigned char*>(vals) + grouped_at);
    grouped_pos = grouped_keys + n;
  } else {
    grouped_keys = wsum + warps;
  }
  const unsigned width = static_cast<unsigned>(span.y) - static_cast<unsigned>(span.x);
  const int width_bits = width == 0u ? 0 : 32 - __clz(width);
  const int shift = width_bits > bucket_log ? width_bits - bucket_log : 0;
  auto bucket_of = [&](int key) {
    return static_cast<int>((static_cast<unsigned>(key) - static_cast<unsigned>(span.x)) >> shift);
  };
  for (int b = tid; b < buckets; b += BS) count[b] = 0;
  __syncthreads();
  for (int e = tid; e < n; e += BS) atomicAdd(count + bucket_of(keys[e]), 1);
  __syncthreads();
  // exclusive scan of the counts, two buckets a thread
  const int c0 = count[2 * tid], c1 = count[2 * tid + 1];
  const int inc = warp_inclusive_sum(c0 + c1);
  if (lane == 31) wsum[wid] = inc;
  if (__syncthreads_or(c0 > bucket_order_max_fill || c1 > bucket_order_max_fill)) return false;
  int at = inc - c0 - c1;
  for (int i = 0; i < wid; ++i) at += wsum[i];
  cursor[2 * tid] = at;
  cursor[2 * tid + 1] = at + c0;
  __syncthreads();
  for (int e = tid; e < n; e += BS) {
    const int key = keys[e];
    const int at_b = atomicAdd(cursor + bucket_of(key), 1);
    grouped_keys[at_b] = key;
    if constexpr (has_values_v<T>) grouped_pos[at_b] = e;
  }
  __syncthreads();
  // cursor[b] is now the end of bucket b; neighbouring threads write neighbouring positions
  for (int g = tid; g < n; g += BS) {
    const int key = grouped_keys[g];
    const int b = bucket_of(key);
    const int end = cursor[b];
    int pos = end - count[b];
    for (int q = pos; q < end; ++q) pos += grouped_keys[q] < key;
    c.col[base + pos] = key;
    if constexpr (has_values_v<T>) c.val[base + pos] = vals[grouped_pos[g]];
  }
  return true;
}

/// Writes the n condensed entries of a row (keys[0, n), vals[0, n); its smallest and largest
/// column `first`, `last`) to C's row in column order: by the bitmap of its span
/// (bitmap_order_store), by buckets (bucket_order_store), CUB's radix sort (radix_bits > 0,
/// rows up to BS * E), the bitonic sort, or, up to twice the block's threads, each entry's rank
/// against the whole row; the first of these that applies. `smem`: the table's memory (the
/// radix sort's storage). Every thread of the block calls it.
template <int BS, int MINB, class T>
__device__ __forceinline__ void store_in_column_order(int* keys, T* vals, int n, int first,
                                                      int last, int tsize, const dev_out<T>& c,
                                                      offset_t base, const hash_policy& hp,
                                                      int radix_bits, unsigned char* smem) {
  const int tid = threadIdx.x;
  // (uniform in the block)
  const bool by_bitmap = hp.span_order;
  const bool by_bucket = hp.bucket_order && n >= hp.bucket_min;
  if ((by_bitmap || by_bucket) && tsize - n >= 2 * (BS / 32)) {
    const int2 span = block_min_max<BS>(first, last, keys + n);
    if (by_bitmap && bitmap_order_store<BS>(keys, vals, n, span, tsize, c, base)) return;
    if (by_bucket && bucket_order_store<BS>(keys, vals, n, span, tsize, c, base)) return;
  }
  constexpr int E = radix_items_for(MINB);
  if (radix_bits > 0 && n > 2 * BS && n <= BS * E) {
    radix_sort_store<BS, E, T>(keys, vals, n, radix_bits, c, base, smem);
    return;
  }
  if (n > 2 * BS) {
    block_bitonic_sort(keys, vals, n);
    for (int e = tid; e < n; e += BS) store_entry(c, base + e, keys[e], vals, e);
  } else {
    for (int e = tid; e < n; e += BS) {
      const int key = keys[e];
      int pos = 0;
      for (int q = 0; q < n; ++q) pos += keys[q] < key;
      store_entry(c, base + pos, key, vals, e);
    }
  }
}

/// One row per block: hash, condense in shared memory, sort (rank up to twice the block's
/// threads, then CUB's radix sort, bitonic past its items) and write the row of C.
/// MINB: resident blocks the registers are budgeted for (launch bounds). The largest shared bin
/// holds one block per SM (the paper's deliberate 50% occupancy), so it is compiled with MINB 1,
/// which gives the radix sort 64 registers a thread; radix_bits > 0 enables that sort there.
/// MERGE false: without the merged loops (for_each_merged, for_each_run) and the vote, for the
/// products where no row can merge: the loops' registers cost the 32-register kernels 48 bytes
/// of stack a thread, and the classes that never merge 2-3% of their numeric phase (H100).
template <int BS, class S, class VA, class VB, class Mask, int MINB = threads_per_sm_target / BS,
          bool MERGE = true>
__global__ void __launch_bounds__(BS, MINB)
    numeric_block_kernel(const index_t* bins, dev_csr<VA> a, dev_csr<VB> b,
                         dev_out<typename S::value_type> c, int tsize, hash_policy hp, int glog,
                         bool sorted, Mask mask, int radix_bits) {
  using T = typename S::value_type;
  extern __shared__ __align__(16) unsigned char smem_c[];
  T* vals = reinterpret_cast<T*>(smem_c);
  int* keys = reinterpret_cast<int*>(smem_c + (has_values_v<T> ? sizeof(T) * tsize : 0));
  int* s_off = keys + tsize;
  const int tid = threadIdx.x;
  const index_t row = bins[blockIdx.x];
  const offset_t base = c.rpt[row];
  const int ts = hp.row_sized ? static_cast<int>(row_slots(tsize, c.rpt[row + 1] - base)) : tsize;
  bool vote = false;
  if constexpr (MERGE) vote = glog < flat_glog && merge_vote(a, b, row, tid, hp);
  for (int s = tid; s < ts; s += BS) {
    keys[s] = -1;
    if constexpr (has_values_v<T>) vals[s] = S::identity();
  }
  if (tid == 0) *s_off = 0;
  const int width = __syncthreads_count(vote);
  const table_shape t{static_cast<unsigned>(ts), ts < tsize, hp.paper};
  const mask_row mr = load_mask_row(mask, row);
  if (width >= 2 && hp.merged_rows && tid == 0) atomicAdd(hp.merged_rows + (width - 2), 1ull);
  auto accumulate = [&](index_t key, T v) {
    if (mask_keeps<Mask>(mr, key)) insert_accumulate<S>(keys, vals, t, key, v, hp.single);
  };
  auto each_product = [&] {
    for_each_product(a, b, row, tid, BS, glog, [&](VA av, offset_t p) {
      const index_t key = __ldg(b.col + p);
      if (mask_keeps<Mask>(mr, key))
        insert_accumulate<S>(keys, vals, t, key, S::multiply(av, load_value(b.val, p)), hp.single);
      return false;
    });
  };
  if constexpr (MERGE) {
    if (width == 4) {
      for_each_run<S>(a, b, row, tid, BS, glog, accumulate);
    } else if (width == 3) {
      for_each_merged<3, S>(a, b, row, tid, BS, glog, accumulate);
    } else if (width == 2) {
      for_each_merged<2, S>(a, b, row, tid, BS, glog, accumulate);
    } else {
      each_product();
    }
  } else {
    each_product();
  }
  __syncthreads();
  // One shared atomic per warp and round (ballot + popc), not one per entry.
  const int lane = tid & 31;
  auto claim = [&](bool has) {
    const unsigned bal = __ballot_sync(0xffffffffu, has);
    int first = 0;
    if (lane == 0 && bal) first = atomicAdd(s_off, __popc(bal));
    return __shfl_sync(0xffffffffu, first, 0) + __popc(bal & ((1u << lane) - 1u));
  };
  if (!sorted) {
    for (int s0 = 0; s0 < ts; s0 += BS) {
      const int s = s0 + tid;
      const int key = s < ts ? keys[s] : -1;
      const int at = claim(key != -1);
      if (key != -1) store_entry(c, base + at, key, vals, s);
    }
    return;
  }
  // Condense in place: slots are read a block-width at a time, and a condensed position never
  // passes the slots already read, so one barrier per round keeps reads before writes.
  int first = INT_MAX, last = -1;  // the row's smallest and largest column
  for (int s0 = 0; s0 < ts; s0 += BS) {
    const int s = s0 + tid;
    int key = -1;
    T v{};
    if (s < ts) {
      key = keys[s];
      if constexpr (has_values_v<T>) v = vals[s];
    }
    __syncthreads();
    const int pos = claim(key != -1);
    if (key != -1) {
      keys[pos] = key;
      if constexpr (has_values_v<T>) vals[pos] = v;
      first = min(first, key);
      last = max(last, key);
    }
  }
  __syncthreads();
  store_in_column_order<BS, MINB>(keys, vals, *s_off, first, last, tsize, c, base, hp, radix_bits,
                                  smem_c);
}

/// Rows too long for shared memory: a global-memory table per block (grid-stride over the bin),
/// condensed straight into C's row, then sorted there: by the block's radix sort through the
/// table (radix_bits > 0: the key bits of B's columns) or, for short rows, a bitonic sort.
template <class S, class VA, class VB, class Mask>
__global__ void __launch_bounds__(1024, threads_per_sm_target / 1024)
    numeric_global_kernel(const index_t* bins, int n_rows, dev_csr<VA> a, dev_csr<VB> b,
                          dev_out<typename S::value_type> c, int* pool_keys,
                          typename S::value_type* pool_vals, unsigned tsize, hash_policy hp,
                          int glog, bool sorted, Mask mask, int radix_bits) {
  using T = typename S::value_type;
  __shared__ int s_off;
  __shared__ global_radix_storage s_radix;
  int* keys = pool_keys + static_cast<size_t>(blockIdx.x) * tsize;
  T* vals = has_values_v<T> ? pool_vals + static_cast<size_t>(blockIdx.x) * tsize : nullptr;
  const int tid = threadIdx.x;
  for (int r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const index_t row = bins[r];
    const offset_t base = c.rpt[row];
    const unsigned ts = hp.row_sized ? row_slots(tsize, c.rpt[row + 1] - base) : tsize;
    const table_shape t{ts, true, hp.paper};
    for (unsigned s = tid; s < ts; s += blockDim.x) {
      keys[s] = -1;
      if constexpr (has_values_v<T>) vals[s] = S::identity();
    }
    if (tid == 0) s_off = 0;
    __syncthreads();
    const mask_row mr = load_mask_row(mask, row);
    for_each_product(a, b, row, tid, blockDim.x, glog, [&](VA av, offset_t p) {
      const index_t key = __ldg(b.col + p);
      if (mask_keeps<Mask>(mr, key))
        insert_accumulate<S>(keys, vals, t, key, S::multiply(av, load_value(b.val, p)), hp.single);
      return false;
    });
    __syncthreads();
    for (unsigned s = tid; s < ts; s += blockDim.x) {
      const int key = keys[s];
      if (key != -1) store_entry(c, base + atomicAdd(&s_off, 1), key, vals, static_cast<int>(s));
    }
    __syncthreads();
    if (sorted) {
      T* row_vals = nullptr;
      if constexpr (has_values_v<T>) row_vals = c.val + base;
      // (the radix sort's three sweeps a pass pay off from a few thousand entries)
      if (radix_bits > 0 && s_off > 4096)
        block_radix_sort_global(c.col + base, row_vals, s_off, keys, vals, radix_bits, s_radix);
      else
        block_bitonic_sort(c.col + base, row_vals, s_off);
    }
    __syncthreads();
  }
}

// ---- rows too long for any shared hash table, when B's columns fit a shared bitmap -------------
// A row of a web graph's square can reach 10^5 entries. Instead of a global hash table and a sort,
// a block keeps one bit per column of B in shared memory (227 KiB hold 1.8 million columns): the
// symbolic phase counts first-set bits; the numeric phase accumulates values in a dense
// global-memory array indexed by column and writes the row out by walking the bitmap in column
// order, so the row comes out sorted with no sort at all.
constexpr int dense_block = 1024;
using dense_scan = cub::BlockScan<int, dense_block>;

/// Shared bytes a dense kernel needs for `words` bitmap words (plus CUB's scan storage).
inline std::size_t dense_smem_bytes(long long words) {
  return static_cast<std::size_t>(words) * 4 + sizeof(typename dense_scan::TempStorage) + 64;
}

/// Whether a bitmap of `cols` columns fits the dense kernels' shared memory (the opt-in limit).
inline bool dense_columns_fit(std::size_t smem_per_block_optin, long long cols) {
  return dense_smem_bytes((cols + 31) / 32) <= smem_per_block_optin;
}

template <class VA, class VB, class Mask>
__global__ void __launch_bounds__(dense_block, 1)
    symbolic_dense_kernel(const index_t* bins, int n_rows, dev_csr<VA> a, dev_csr<VB> b,
                          offset_t* crpt, int words, int glog, Mask mask) {
  extern __shared__ __align__(16) unsigned bitmap[];
  __shared__ int s_nnz, s_todo;
  const int tid = threadIdx.x;
  for (int r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const index_t row = bins[r];
    if (tid == 0) s_todo = crpt[row] < 0, s_nnz = 0;
    for (int w = tid; w < words; w += dense_block) bitmap[w] = 0u;
    __syncthreads();
    if (s_todo) {
      const mask_row mr = load_mask_row(mask, row);
      int local = 0;
      for_each_product(a, b, row, tid, dense_block, glog, [&](VA, offset_t p) {
        const index_t key = __ldg(b.col + p);
        if (mask_keeps<Mask>(mr, key)) {
          const unsigned bit = 1u << (key & 31);
          local += (atomicOr(bitmap + (key >> 5), bit) & bit) == 0u;
        }
        return false;
      });
      local = warp_sum(local);
      if ((tid & 31) == 0 && local) atomicAdd(&s_nnz, local);
      __syncthreads();
      if (tid == 0) crpt[row] = s_nnz;
    }
    __syncthreads();
  }
}

template <class S, class VA, class VB, class Mask>
__global__ void __launch_bounds__(dense_block, 1)
    numeric_dense_kernel(const index_t* bins, int n_rows, dev_csr<VA> a, dev_csr<VB> b,
                         dev_out<typename S::value_type> c, typename S::value_type* pool,
                         long long pool_stride, int words, int glog, Mask mask) {
  using T = typename S::value_type;
  extern __shared__ __align__(16) unsigned bitmap[];
  __shared__ typename dense_scan::TempStorage scan_tmp;
  const int tid = threadIdx.x;
  T* dense = has_values_v<T> ? pool + blockIdx.x * pool_stride : nullptr;
  const int chunk = (words + dense_block - 1) / dense_block;
  const int w0 = tid * chunk, w1 = min(words, w0 + chunk);
  for (int r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const index_t row = bins[r];
    for (int w = tid; w < words; w += dense_block) bitmap[w] = 0u;
    __syncthreads();
    const mask_row mr = load_mask_row(mask, row);
    // pass 1: which columns the row has
    for_each_product(a, b, row, tid, dense_block, glog, [&](VA, offset_t p) {
      const index_t key = __ldg(b.col + p);
      if (mask_keeps<Mask>(mr, key)) atomicOr(bitmap + (key >> 5), 1u << (key & 31));
      return false;
    });
    __syncthreads();
    if constexpr (has_values_v<T>) {
      // the identity at exactly those columns (no invariant kept between rows or semirings)
      for (int w = w0; w < w1; ++w)
        for (unsigned m = bitmap[w]; m; m &= m - 1) dense[w * 32 + __ffs(m) - 1] = S::identity();
      __syncthreads();
      // pass 2: accumulate
      for_each_product(a, b, row, tid, dense_block, glog, [&](VA av, offset_t p) {
        const index_t key = __ldg(b.col + p);
        if (!mask_keeps<Mask>(mr, key)) return false;
        const T v = S::multiply(av, load_value(b.val, p));
        if constexpr (S::kind == add_kind::any)
          dense[key] = v;  // any product's value will do
        else
          accumulate<S>(dense + key, v);
        return false;
      });
      __syncthreads();
    }
    // write the row out in column order: each thread owns a run of words
    int count = 0;
    for (int w = w0; w < w1; ++w) count += __popc(bitmap[w]);
    int pos;
    dense_scan(scan_tmp).ExclusiveSum(count, pos);
    const offset_t base = c.rpt[row] + pos;
    int e = 0;
    for (int w = w0; w < w1; ++w)
      for (unsigned m = bitmap[w]; m; m &= m - 1) {
        const index_t col = w * 32 + __ffs(m) - 1;
        c.col[base + e] = col;
        if constexpr (has_values_v<T>) c.val[base + e] = dense[col];
        ++e;
      }
    __syncthreads();
  }
}

}  // namespace opsparse::detail
