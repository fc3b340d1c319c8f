#pragma once
// Small device helpers shared by every kernel of the library and the apps: thread and warp
// indices, grid sizes, warp and block reductions, binary searches over sorted rows and row
// pointers. (Hashing, semiring atomics and masks are in device_ops.cuh.)
#include <cuda_runtime.h>

#include <algorithm>

#include "opsparse/types.hpp"

namespace opsparse::detail {

constexpr int warp_threads = 32;
constexpr unsigned full_warp = 0xffffffffu;

/// Blocks of `block` threads covering `items` (at least one, so that a launch is valid).
inline unsigned grid_for(long long items, int block = 256) {
  return static_cast<unsigned>(std::max<long long>(1, (items + block - 1) / block));
}
/// Blocks of `block` threads giving each of `rows` a warp.
inline unsigned warp_grid_for(long long rows, int block = 256) {
  return grid_for(rows * warp_threads, block);
}

__device__ __forceinline__ long long thread_id() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ long long thread_count() {
  return static_cast<long long>(gridDim.x) * blockDim.x;
}
/// The warp's index in the grid (one row per warp) and the lane.
__device__ __forceinline__ long long warp_id() { return thread_id() / warp_threads; }
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x % warp_threads); }

/// op over the warp; every lane gets the result.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T x, Op op) {
  for (int o = warp_threads / 2; o > 0; o >>= 1) x = op(x, __shfl_xor_sync(full_warp, x, o));
  return x;
}
struct sum_op {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct max_op {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a < b ? b : a;
  }
};
struct min_op {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return b < a ? b : a;
  }
};
template <class T>
__device__ __forceinline__ T warp_sum(T x) {
  return warp_reduce(x, sum_op{});
}

/// Inclusive prefix sum over the warp's lanes (all 32 active): lane l gets x of lanes 0..l.
template <class T>
__device__ __forceinline__ T warp_inclusive_sum(T x) {
  const int lane = lane_id();
#pragma unroll
  for (int d = 1; d < warp_threads; d <<= 1) {
    const T y = __shfl_up_sync(full_warp, x, d);
    if (lane >= d) x += y;
  }
  return x;
}

/// op over a block of `Threads` threads (a multiple of 32); every thread gets the result.
/// Syncs the block, so every thread must call it.
template <int Threads, class T, class Op>
__device__ T block_reduce(T x, Op op) {
  x = warp_reduce(x, op);
  if constexpr (Threads == warp_threads) {
    return x;
  } else {
    constexpr int warps = Threads / warp_threads;
    __shared__ T part[warps];
    __syncthreads();  // an earlier call's readers are done with part
    if (threadIdx.x % warp_threads == 0) part[threadIdx.x / warp_threads] = x;
    __syncthreads();
    T r = part[0];
    for (int w = 1; w < warps; ++w) r = op(r, part[w]);
    return r;
  }
}

/// The smallest `lo` and the largest `hi` over a block of `Threads` threads (a multiple of 32);
/// every thread gets both. `scratch` holds 2 * Threads / 32 ints of shared memory that no
/// thread touches meanwhile (a kernel's free table slots: no static shared memory, which would
/// take from the tables' occupancy budget). Syncs the block twice: every thread must call it.
template <int Threads>
__device__ __forceinline__ int2 block_min_max(int lo, int hi, int* scratch) {
  for (int o = warp_threads / 2; o > 0; o >>= 1) {
    lo = min(lo, __shfl_xor_sync(full_warp, lo, o));
    hi = max(hi, __shfl_xor_sync(full_warp, hi, o));
  }
  constexpr int warps = Threads / warp_threads;
  const int w = static_cast<int>(threadIdx.x) / warp_threads;
  if (threadIdx.x % warp_threads == 0) {
    scratch[2 * w] = lo;
    scratch[2 * w + 1] = hi;
  }
  __syncthreads();
  for (int i = 0; i < warps; ++i) {
    lo = min(lo, scratch[2 * i]);
    hi = max(hi, scratch[2 * i + 1]);
  }
  __syncthreads();  // every thread has read scratch before it is reused
  return make_int2(lo, hi);
}

/// The first position in the sorted [lo, hi) of `col` whose column is >= key.
template <class Pos>
__device__ __forceinline__ Pos lower_bound(const index_t* col, Pos lo, Pos hi, index_t key) {
  while (lo < hi) {
    const Pos mid = lo + (hi - lo) / 2;
    if (col[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// The row holding entry p: the last r in [0, rows) with rpt[r] <= p (rpt[0] <= p < rpt[rows]).
__device__ __forceinline__ index_t row_of(const offset_t* rpt, index_t rows, offset_t p) {
  index_t lo = 0, hi = rows;  // rpt[lo] <= p < rpt[hi]
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (rpt[mid] <= p)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace opsparse::detail
