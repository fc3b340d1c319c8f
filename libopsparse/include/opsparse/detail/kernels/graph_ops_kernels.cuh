#pragma once
// The graph operations' kernels (graph_ops.cuh launches them). A warp takes a row where a row's
// entries are read together (selection, reductions, permutation); a thread takes an entry where
// entries are independent (apply, union, transpose's gather).
#include <cuda_runtime.h>

#include "opsparse/detail/block/device_ops.cuh"
#include "opsparse/detail/util/device_utils.cuh"
#include "opsparse/device_csr.hpp"

namespace opsparse::detail {

template <class V>
__device__ __forceinline__ V entry_value(const V* val, offset_t p) {
  if constexpr (has_values_v<V>)
    return val[p];
  else
    return V{};
}

/// out[i] = the number of entries of row i that keep accepts.
template <class V, class Keep>
__global__ void select_count_kernel(csr_view<V> a, Keep keep, offset_t* out) {
  const long long i = warp_id();
  if (i >= a.rows) return;
  int n = 0;
  for (offset_t p = a.rpt[i] + lane_id(); p < a.rpt[i + 1]; p += warp_threads)
    n += keep(static_cast<index_t>(i), a.col[p], entry_value(a.val, p));
  n = warp_sum(n);
  if (lane_id() == 0) out[i] = n;
}

/// Copies the accepted entries of each row in their order (a ballot per 32 entries).
template <class V, class Keep>
__global__ void select_fill_kernel(csr_view<V> a, Keep keep, const offset_t* out_rpt,
                                   index_t* out_col, V* out_val) {
  const long long i = warp_id();
  if (i >= a.rows) return;
  const int lane = lane_id();
  offset_t at = out_rpt[i];
  for (offset_t p0 = a.rpt[i]; p0 < a.rpt[i + 1]; p0 += warp_threads) {
    const offset_t p = p0 + lane;
    const bool in = p < a.rpt[i + 1];
    const V v = in ? entry_value(a.val, p) : V{};
    const bool kept = in && keep(static_cast<index_t>(i), a.col[p], v);
    const unsigned ballot = __ballot_sync(full_warp, kept);
    if (kept) {
      const offset_t to = at + __popc(ballot & ((1u << lane) - 1u));
      out_col[to] = a.col[p];
      if constexpr (has_values_v<V>) out_val[to] = v;
    }
    at += __popc(ballot);
  }
}

/// out[i] = ⊕ over row i of f(i, j, v) (accumulate: out[i] ⊕= it).
template <class Monoid, class V, class F>
__global__ void reduce_rows_kernel(csr_view<V> a, F f, typename Monoid::value_type* out,
                                   bool accumulate) {
  using T = typename Monoid::value_type;
  const long long i = warp_id();
  if (i >= a.rows) return;
  T acc = Monoid::identity();
  for (offset_t p = a.rpt[i] + lane_id(); p < a.rpt[i + 1]; p += warp_threads)
    acc = Monoid::add(acc, f(static_cast<index_t>(i), a.col[p], entry_value(a.val, p)));
  acc = warp_reduce(acc, [](T x, T y) { return Monoid::add(x, y); });
  if (lane_id() == 0) out[i] = accumulate ? Monoid::add(out[i], acc) : acc;
}

/// reduce_rows_kernel for long rows: a block a row (a warp a row leaves a few thousand rows of
/// millions of entries, BFS's per-source rows, with too few loads in flight).
template <int Block, class Monoid, class V, class F>
__global__ void __launch_bounds__(Block)
    reduce_long_rows_kernel(csr_view<V> a, F f, typename Monoid::value_type* out, bool accumulate) {
  using T = typename Monoid::value_type;
  for (long long i = blockIdx.x; i < a.rows; i += gridDim.x) {
    T acc = Monoid::identity();
    for (offset_t p = a.rpt[i] + threadIdx.x; p < a.rpt[i + 1]; p += Block)
      acc = Monoid::add(acc, f(static_cast<index_t>(i), a.col[p], entry_value(a.val, p)));
    acc = block_reduce<Block>(acc, [](T x, T y) { return Monoid::add(x, y); });
    if (threadIdx.x == 0) out[i] = accumulate ? Monoid::add(out[i], acc) : acc;
  }
}

/// total ⊕= ⊕ over all entries of f, a thread an entry (grid-stride), its row found by a binary
/// search: for matrices of long rows, whose rows are few.
template <int Block, class Monoid, class V, class F>
__global__ void __launch_bounds__(Block)
    reduce_entries_kernel(csr_view<V> a, F f, typename Monoid::value_type* total) {
  using T = typename Monoid::value_type;
  T acc = Monoid::identity();
  for (long long p = thread_id(); p < a.nnz; p += thread_count())
    acc = Monoid::add(acc, f(row_of(a.rpt, a.rows, p), a.col[p], entry_value(a.val, p)));
  acc = block_reduce<Block>(acc, [](T x, T y) { return Monoid::add(x, y); });
  if (threadIdx.x == 0) accumulate<Monoid>(total, acc);
}

/// out[j] ⊕= f(i, j, v) for every entry, with the monoid's atomic (device_ops.cuh).
template <class Monoid, class V, class F>
__global__ void reduce_cols_kernel(csr_view<V> a, F f, typename Monoid::value_type* out) {
  const long long i = warp_id();
  if (i >= a.rows) return;
  for (offset_t p = a.rpt[i] + lane_id(); p < a.rpt[i + 1]; p += warp_threads)
    accumulate<Monoid>(out + a.col[p], f(static_cast<index_t>(i), a.col[p], entry_value(a.val, p)));
}

/// total ⊕= ⊕ over all entries of f (a warp a row, grid-stride; one atomic a block).
template <int Block, class Monoid, class V, class F>
__global__ void __launch_bounds__(Block)
    reduce_all_kernel(csr_view<V> a, F f, typename Monoid::value_type* total) {
  using T = typename Monoid::value_type;
  T acc = Monoid::identity();
  for (long long i = warp_id(); i < a.rows; i += thread_count() / warp_threads)
    for (offset_t p = a.rpt[i] + lane_id(); p < a.rpt[i + 1]; p += warp_threads)
      acc = Monoid::add(acc, f(static_cast<index_t>(i), a.col[p], entry_value(a.val, p)));
  acc = block_reduce<Block>(acc, [](T x, T y) { return Monoid::add(x, y); });
  if (threadIdx.x == 0) accumulate<Monoid>(total, acc);
}

template <class T>
__global__ void fill_kernel(T* out, long long n, T value) {
  for (long long k = thread_id(); k < n; k += thread_count()) out[k] = value;
}

template <class T>
__global__ void iota_kernel(T* out, long long n) {
  for (long long k = thread_id(); k < n; k += thread_count()) out[k] = static_cast<T>(k);
}

template <class V, class F>
__global__ void apply_kernel(V* val, offset_t nnz, F f) {
  for (long long k = thread_id(); k < nnz; k += thread_count()) val[k] = f(val[k]);
}

/// out[r] = the length of A's row order[r]; out[rows] is left to the caller.
template <class I>
__global__ void permuted_lengths_kernel(I rows, const I* order, const offset_t* a_rpt,
                                        offset_t* out) {
  const long long r = thread_id();
  if (r < rows) out[r] = a_rpt[order[r] + 1] - a_rpt[order[r]];
}

/// Row r of the result: A's row order[r], columns through col_map (null: unchanged).
template <class V>
__global__ void permute_fill_kernel(index_t rows, const index_t* order, const index_t* col_map,
                                    csr_view<V> a, const offset_t* out_rpt, index_t* out_col,
                                    V* out_val) {
  const long long r = warp_id();
  if (r >= rows) return;
  const index_t v = order[r];
  const offset_t src = a.rpt[v], len = a.rpt[v + 1] - src, dst = out_rpt[r];
  for (offset_t k = lane_id(); k < len; k += warp_threads) {
    const index_t c = a.col[src + k];
    out_col[dst + k] = col_map ? col_map[c] : c;
    if constexpr (has_values_v<V>) out_val[dst + k] = a.val[src + k];
  }
}

/// inverse[order[r]] = r.
template <class I>
__global__ void invert_kernel(I n, const I* order, I* inverse) {
  const long long r = thread_id();
  if (r < n) inverse[order[r]] = static_cast<I>(r);
}

/// out[i] = src[idx[i]].
template <class T>
__global__ void gather_kernel(index_t n, const T* src, const index_t* idx, T* out) {
  const long long i = thread_id();
  if (i < n) out[i] = src[idx[i]];
}

/// deg[i] = the length of row i, iota[i] = i.
template <class I>
__global__ void lengths_iota_kernel(I rows, const offset_t* rpt, I* deg, I* iota) {
  const long long i = thread_id();
  if (i < rows) {
    deg[i] = static_cast<I>(rpt[i + 1] - rpt[i]);
    iota[i] = static_cast<I>(i);
  }
}

/// Transpose, step 1: each entry's row (a warp a row) and the columns' counts (atomics into
/// count[0..cols), which the caller zeroed).
template <class Pos>
__global__ void entry_rows_kernel(index_t rows, const offset_t* rpt, const index_t* col,
                                  Pos* entry_row, offset_t* count) {
  const long long i = warp_id();
  if (i >= rows) return;
  for (offset_t p = rpt[i] + lane_id(); p < rpt[i + 1]; p += warp_threads) {
    entry_row[p] = static_cast<Pos>(i);
    atomicAdd(reinterpret_cast<unsigned long long*>(count + col[p]), 1ull);
  }
}

/// Transpose, step 3 (after a stable sort of the entries by column): the sorted entries' rows
/// become the columns of Aᵀ, their values follow.
template <class V>
__global__ void transpose_gather_kernel(offset_t nnz, const offset_t* perm,
                                        const index_t* entry_row, const V* val, index_t* t_col,
                                        V* t_val) {
  for (long long q = thread_id(); q < nnz; q += thread_count()) {
    const offset_t p = perm[q];
    t_col[q] = entry_row[p];
    if constexpr (has_values_v<V>) t_val[q] = val[p];
  }
}

/// Union, step 1: flag[q] = 1 when B's entry q is also in A (rows sorted).
template <class VA, class VB>
__global__ void union_common_kernel(csr_view<VA> a, csr_view<VB> b, offset_t* flag) {
  for (long long q = thread_id(); q < b.nnz; q += thread_count()) {
    const index_t r = row_of(b.rpt, b.rows, q), c = b.col[q];
    const offset_t at = lower_bound(a.col, a.rpt[r], a.rpt[r + 1], c);
    flag[q] = at < a.rpt[r + 1] && a.col[at] == c;
  }
}

/// Union, step 2: the result's row pointers, common[] the exclusive scan of the flags (null when
/// A and B are disjoint): row r starts after A's and B's earlier entries less the common ones.
template <class VA, class VB>
__global__ void union_rpt_kernel(csr_view<VA> a, csr_view<VB> b, const offset_t* common,
                                 offset_t* out_rpt) {
  const long long r = thread_id();
  if (r <= a.rows) out_rpt[r] = a.rpt[r] + b.rpt[r] - (common ? common[b.rpt[r]] : 0);
}

/// Union, step 3: an entry's place in its result row is its place in its own row plus the other
/// row's entries below its column, less the common entries below it (counted in B's row).
template <class VA, class VB, class R, class Rule>
__global__ void union_fill_kernel(csr_view<VA> a, csr_view<VB> b, const offset_t* common, Rule rule,
                                  const offset_t* out_rpt, index_t* out_col, R* out_val) {
  const long long total = a.nnz + b.nnz;
  for (long long t = thread_id(); t < total; t += thread_count()) {
    if (t < a.nnz) {
      const offset_t p = t;
      const index_t r = row_of(a.rpt, a.rows, p), c = a.col[p];
      const offset_t b0 = b.rpt[r], e = b.rpt[r + 1];
      const offset_t lb = lower_bound(b.col, b0, e, c);
      const offset_t below = common ? common[lb] - common[b0] : 0;
      const offset_t at = out_rpt[r] + (p - a.rpt[r]) + (lb - b0) - below;
      out_col[at] = c;
      if constexpr (has_values_v<R>) {
        if (lb < e && b.col[lb] == c)
          out_val[at] = rule.both(entry_value(a.val, p), entry_value(b.val, lb));
        else
          out_val[at] = rule.left(entry_value(a.val, p));
      }
    } else {
      const offset_t q = t - a.nnz;
      if (common && common[q + 1] != common[q]) continue;  // written with A's entry
      const index_t r = row_of(b.rpt, b.rows, q), c = b.col[q];
      const offset_t a0 = a.rpt[r];
      const offset_t lb = lower_bound(a.col, a0, a.rpt[r + 1], c);
      const offset_t below = common ? common[q] - common[b.rpt[r]] : 0;
      const offset_t at = out_rpt[r] + (q - b.rpt[r]) + (lb - a0) - below;
      out_col[at] = c;
      if constexpr (has_values_v<R>) out_val[at] = rule.right(entry_value(b.val, q));
    }
  }
}

/// jaccard's coefficients, a warp a row u of the pairs P: for each (u, v) of P the intersection
/// I(u, v) (I ⊆ P, rows sorted; 0 where I has no entry), the union from the degrees of A.
template <class Count>
__global__ void jaccard_kernel(csr_view<pattern> a, csr_view<pattern> pairs, csr_view<Count> inter,
                               double* out) {
  const long long u = warp_id();
  if (u >= pairs.rows) return;
  const offset_t du = a.rpt[u + 1] - a.rpt[u];
  const offset_t i0 = inter.rpt[u], i1 = inter.rpt[u + 1];
  for (offset_t p = pairs.rpt[u] + lane_id(); p < pairs.rpt[u + 1]; p += warp_threads) {
    const index_t v = pairs.col[p];
    const offset_t at = lower_bound(inter.col, i0, i1, v);
    const Count common = at < i1 && inter.col[at] == v ? inter.val[at] : Count(0);
    const Count either = du + (a.rpt[v + 1] - a.rpt[v]) - common;
    out[p] = either == 0 ? 0.0 : static_cast<double>(common) / static_cast<double>(either);
  }
}

/// rows_longer_than's selection: row i has more than `length` entries.
struct row_longer_than {
  const offset_t* rpt;
  offset_t length;
  __device__ __forceinline__ bool operator()(index_t i) const {
    return rpt[i + 1] - rpt[i] > length;
  }
};

}  // namespace opsparse::detail
