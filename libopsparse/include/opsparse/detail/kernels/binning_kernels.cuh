#pragma once
// The OpSparse kernels' first steps (paper §4-5.1): products per row (setup) and the two-pass
// binning in shared memory, plus the types every kernel shares. The symbolic and numeric
// kernels are in spgemm_kernels.cuh; the driver in spgemm_impl.cuh picks and launches them.
#include <cuda_runtime.h>

#include "opsparse/detail/block/device_ops.cuh"
#include "opsparse/detail/util/operands.hpp"

namespace opsparse::detail {
/// The bin of a row of size v: the ranges below v (they never decrease), unrolled so that the
/// ranges are read from the kernel's parameters rather than a copy in local memory.
__device__ __forceinline__ int bin_of(offset_t v, const bin_ranges& rg) {
  int b = 0;
#pragma unroll
  for (int j = 0; j < max_bins - 1; ++j) b += j < rg.n - 1 && v > rg.r[j];
  return b;
}

// ---- step 1: products per row, written into C.rpt (no separate array) -------------------------
/// Groups of 2^rlog lanes per row (the host sizes them to A's average row, at most a warp: rows
/// of A with thousands of entries, web graphs, would serialise one thread), grid-stride, so that
/// the longest B row read (max_b_row[0]) and the longest row of A (max_b_row[1]) are reduced per
/// block and reach global memory with one atomic each per block rather than one per row (16.7M
/// atomics on one address cost delaunay_n24 13 ms).
template <class VA, class VB, class Mask>
__global__ void __launch_bounds__(256, threads_per_sm_target / 256)
    setup_kernel(index_t m, dev_csr<VA> a, dev_csr<VB> b, offset_t* crpt, Mask mask,
                 unsigned long long* max_b_row, int rlog) {
  __shared__ unsigned long long s_longest, s_longest_a;
  const long long gt = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (gt == 0) crpt[m] = 0;  // the in-place exclusive scan then leaves nnz(C) here
  if (threadIdx.x == 0) s_longest = 0, s_longest_a = 0;
  __syncthreads();
  const int g = 1 << rlog, lane = threadIdx.x & (g - 1);
  // products of row r, at most its mask row's entries under a structural mask
  auto capped = [&](long long r, offset_t s) {
    if constexpr (Mask::kind == mask_kind::structural) {
      const offset_t mn = mask.rpt[r + 1] - mask.rpt[r];
      return s < mn ? s : mn;
    }
    return s;
  };
  const long long groups = static_cast<long long>(gridDim.x) * blockDim.x >> rlog;
  offset_t most = 0, most_a = 0;  // the longest B row read, the longest row of A
  // Every lane of a warp runs the same number of iterations (the shuffles need the whole warp).
  const long long first = gt >> rlog;
  const long long warp_first = (gt & ~31ll) >> rlog;
  for (long long base = warp_first; base < m; base += groups) {
    const long long i = first + (base - warp_first);
    offset_t s = 0, longest = 0;
    bool deferred = false;
    if (i < m) {
      const offset_t start = a.rpt[i], end = a.rpt[i + 1];
      most_a = end - start > most_a ? end - start : most_a;
      // a row of A that would take its group more than 32 steps goes to the whole warp below
      deferred = g < 32 && end - start > 32 * g;
      if (!deferred) {
        for (offset_t j = start + lane; j < end; j += g) {
          const index_t k = __ldg(a.col + j);
          const offset_t len = __ldg(b.rpt + k + 1) - __ldg(b.rpt + k);
          s += len;
          longest = len > longest ? len : longest;
        }
      }
    }
    for (int o = g / 2; o > 0; o >>= 1) {
      s += __shfl_down_sync(0xffffffffu, s, o, g);
      const offset_t other = __shfl_down_sync(0xffffffffu, longest, o, g);
      longest = other > longest ? other : longest;
    }
    if (lane == 0 && i < m && !deferred) {
      most = longest > most ? longest : most;
      crpt[i] = capped(i, s);
    }
    // Long rows of A (web graphs' hubs: thousands of entries, which kept 4 lanes busy for
    // 0.46 ms of webbase-1M's setup), one at a time by all 32 lanes, four loads in flight each.
    unsigned todo = __ballot_sync(0xffffffffu, deferred && lane == 0);
    const int wl = threadIdx.x & 31;
    while (todo) {
      const int src = __ffs(todo) - 1;
      todo &= todo - 1;
      const long long r = __shfl_sync(0xffffffffu, i, src);
      const offset_t end = a.rpt[r + 1];
      offset_t s2 = 0, l2 = 0;
      for (offset_t j = a.rpt[r] + wl; j < end; j += 4 * 32) {
        index_t k[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) k[u] = j + 32 * u < end ? __ldg(a.col + j + 32 * u) : -1;
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          if (k[u] < 0) continue;
          const offset_t len = __ldg(b.rpt + k[u] + 1) - __ldg(b.rpt + k[u]);
          s2 += len;
          l2 = len > l2 ? len : l2;
        }
      }
      for (int o = 16; o > 0; o >>= 1) {
        s2 += __shfl_down_sync(0xffffffffu, s2, o);
        const offset_t other = __shfl_down_sync(0xffffffffu, l2, o);
        l2 = other > l2 ? other : l2;
      }
      if (wl == 0) {
        most = l2 > most ? l2 : most;
        crpt[r] = capped(r, s2);
      }
    }
  }
  if (most) atomicMax(&s_longest, static_cast<unsigned long long>(most));
  if (most_a) atomicMax(&s_longest_a, static_cast<unsigned long long>(most_a));
  __syncthreads();
  if (threadIdx.x == 0 && s_longest) atomicMax(max_b_row, s_longest);
  if (threadIdx.x == 0 && s_longest_a) atomicMax(max_b_row + 1, s_longest_a);
}

// ---- steps 2 and 4: binning (paper Algorithms 1-3) -------------------------------------------
/// The sizes of a step's rows of [base, hi): bin_rows_a_step a thread, bin_block_threads apart
/// (0 past hi), all loads issued before any is used.
__device__ __forceinline__ void load_step(const offset_t* sizes, long long base, long long hi,
                                          int tid, offset_t (&v)[bin_rows_a_step]) {
#pragma unroll
  for (int u = 0; u < bin_rows_a_step; ++u) {
    const long long i = base + u * bin_block_threads + tid;
    v[u] = i < hi ? sizes[i] : 0;
  }
}

/// Pass 1 (on a bin_grid): rows per bin counted with shared-memory atomics (a warp's lanes of one
/// bin add themselves with one), each block's counts written to block_rows[block][bin] for pass 2
/// and added to the totals with one global atomic per bin; the largest row and the total alike.
/// SHARED=false: the global-atomic ablation (one atomic per row and counter; no block_rows).
template <bool SHARED>
__global__ void __launch_bounds__(bin_block_threads, 2)
    bin_count_kernel(const offset_t* sizes, index_t m, long long chunk, bin_ranges rg,
                     bin_counters* c, unsigned* block_rows) {
  __shared__ unsigned int s_rows[max_bins];
  __shared__ unsigned long long s_max, s_total;
  const int tid = threadIdx.x;
  if (tid < max_bins) s_rows[tid] = 0;
  if (tid == 0) s_max = 0, s_total = 0;
  __syncthreads();
  const long long lo = static_cast<long long>(blockIdx.x) * chunk;
  const long long hi = lo + chunk < m ? lo + chunk : m;
  unsigned long long most = 0, sum = 0;
  // the bound is the block's: every lane of a warp reaches each match
  for (long long base = lo; base < hi; base += bin_block_threads * bin_rows_a_step) {
    offset_t v[bin_rows_a_step];
    load_step(sizes, base, hi, tid, v);
#pragma unroll
    for (int u = 0; u < bin_rows_a_step; ++u) {
      const bool row = base + u * bin_block_threads + tid < hi;
      const int b = row ? bin_of(v[u], rg) : -1;
      const auto x = static_cast<unsigned long long>(v[u]);
      if (SHARED) {
        most = x > most ? x : most;
        sum += x;
        const unsigned same = __match_any_sync(0xffffffffu, b);
        if (b >= 0 && (tid & 31) == __ffs(same) - 1)
          atomicAdd(&s_rows[b], static_cast<unsigned>(__popc(same)));
      } else if (row) {
        atomicAdd(&c->rows[b], 1ull);
        atomicMax(&c->max_row, x);
        atomicAdd(&c->total, x);
      }
    }
  }
  if constexpr (SHARED) {
    // one shared atomic a warp for the maximum and the total, one global atomic a block
    for (int o = 16; o > 0; o >>= 1) {
      const unsigned long long x = __shfl_down_sync(0xffffffffu, most, o);
      most = x > most ? x : most;
      sum += __shfl_down_sync(0xffffffffu, sum, o);
    }
    if ((tid & 31) == 0 && most) {
      atomicMax(&s_max, most);
      atomicAdd(&s_total, sum);
    }
    __syncthreads();
    if (tid < rg.n) {
      block_rows[static_cast<long long>(blockIdx.x) * max_bins + tid] = s_rows[tid];
      if (s_rows[tid]) atomicAdd(&c->rows[tid], static_cast<unsigned long long>(s_rows[tid]));
    }
    if (tid == 0) {
      if (s_max) atomicMax(&c->max_row, s_max);
      if (s_total) atomicAdd(&c->total, s_total);
    }
  }
}

/// Pass 2 (on the same bin_grid): row ids written to their bin's section of the one bins[M] array,
/// each block's rows of a bin after those of the blocks before it (block_rows: no global atomics);
/// when pass 1 found every row in bin 0, bins[i] = i without comparisons (paper Algorithm 3),
/// decided here so that the host need not wait for the counts before queueing this pass.
template <bool SHARED>
__global__ void __launch_bounds__(bin_block_threads, 2)
    bin_fill_kernel(const offset_t* sizes, index_t m, long long chunk, bin_ranges rg,
                    bin_counters* c, const unsigned* block_rows, index_t* bins) {
  __shared__ unsigned long long s_base[max_bins];
  __shared__ unsigned int s_at[max_bins];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const long long lo = static_cast<long long>(blockIdx.x) * chunk;
  const long long hi = lo + chunk < m ? lo + chunk : m;
  if (c->max_row <= static_cast<unsigned long long>(rg.r[0])) {  // uniform in the grid
    for (long long i = lo + tid; i < hi; i += bin_block_threads) bins[i] = static_cast<index_t>(i);
    return;
  }
  if (SHARED) {
    // warp w: bin w's rows in the bins below it and in the blocks before this one
    if (warp < rg.n) {
      unsigned long long before = lane < warp ? c->rows[lane] : 0;
      for (unsigned k = lane; k < blockIdx.x; k += 32)
        before += block_rows[static_cast<long long>(k) * max_bins + warp];
      for (int o = 16; o > 0; o >>= 1) before += __shfl_down_sync(0xffffffffu, before, o);
      if (lane == 0) s_base[warp] = before, s_at[warp] = 0;
    }
    __syncthreads();
  }
  for (long long base = lo; base < hi; base += bin_block_threads * bin_rows_a_step) {
    offset_t v[bin_rows_a_step];
    load_step(sizes, base, hi, tid, v);
#pragma unroll
    for (int u = 0; u < bin_rows_a_step; ++u) {
      const long long i = base + u * bin_block_threads + tid;
      const int b = i < hi ? bin_of(v[u], rg) : -1;
      if (!SHARED) {
        if (b >= 0) {
          unsigned long long off = 0;
          for (int j = 0; j < b; ++j) off += c->rows[j];
          bins[off + atomicAdd(&c->cursor[b], 1ull)] = static_cast<index_t>(i);
        }
        continue;
      }
      // the lowest lane of each bin's group takes the group's places with one shared atomic
      const unsigned same = __match_any_sync(0xffffffffu, b);
      const int leader = __ffs(same) - 1;
      const unsigned rank = __popc(same & ((1u << lane) - 1u));
      unsigned at = 0;
      if (b >= 0 && lane == leader) at = atomicAdd(&s_at[b], static_cast<unsigned>(__popc(same)));
      at = __shfl_sync(0xffffffffu, at, leader);
      if (b >= 0) bins[s_base[b] + at + rank] = static_cast<index_t>(i);
    }
  }
}

}  // namespace opsparse::detail
