#pragma once
// Device-side building blocks shared by the kernels: value loads, semiring atomics, mask tests,
// hashing (the paper's single-access probe, Algorithms 4-5) and a block-wide bitonic sort.
#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

#include "opsparse/detail/util/device_utils.cuh"
#include "opsparse/detail/util/operands.hpp"
#include "opsparse/mask.hpp"
#include "opsparse/semiring.hpp"
#include "opsparse/types.hpp"

namespace opsparse::detail {

/// The multiplier of nsparse and the paper (key * HASH_SCALE mod table size).
constexpr unsigned hash_scale = 107u;
/// 2^32 / golden ratio: Fibonacci hashing (Knuth), the default.
constexpr unsigned fib_scale = 0x9E3779B1u;

template <class V>
__device__ __forceinline__ V load_value(const V* p, offset_t j) {
  if constexpr (has_values_v<V>)
    return __ldg(p + j);
  else
    return V{};
}

// ---- semiring accumulation into shared or global memory --------------------------------------
template <class T>
__device__ __forceinline__ void atomic_plus(T* addr, T v) {
  if constexpr (std::is_same_v<T, long long> || std::is_same_v<T, long> ||
                std::is_same_v<T, unsigned long long> || std::is_same_v<T, unsigned long>) {
    static_assert(sizeof(T) == 8, "64-bit integers expected");
    atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
  } else {
    atomicAdd(addr, v);
  }
}

template <class S, class T>
__device__ __forceinline__ void atomic_cas_apply(T* addr, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "custom semirings need 4- or 8-byte values");
  using U = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
  U* a = reinterpret_cast<U*>(addr);
  U old = *reinterpret_cast<volatile U*>(a), assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof(T));
    const T next = S::add(cur, v);
    U nb;
    memcpy(&nb, &next, sizeof(T));
    if (nb == assumed) return;
    old = atomicCAS(a, assumed, nb);
  } while (old != assumed);
}

template <class S, class T>
__device__ __forceinline__ void accumulate(T* addr, T v) {
  if constexpr (S::kind == add_kind::plus) {
    atomic_plus(addr, v);
  } else if constexpr (S::kind == add_kind::min) {
    if constexpr (std::is_integral_v<T> && sizeof(T) == 4)
      atomicMin(addr, v);
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 8 && std::is_signed_v<T>)
      atomicMin(reinterpret_cast<long long*>(addr), static_cast<long long>(v));
    else
      atomic_cas_apply<S>(addr, v);
  } else if constexpr (S::kind == add_kind::custom) {
    atomic_cas_apply<S>(addr, v);
  }
  // add_kind::any: the inserting thread stored its value; nothing to accumulate.
}

// ---- masks ------------------------------------------------------------------------------------
/// The mask row of one output row: [lo, hi) into col. Binary search: mask rows are sorted.
struct mask_row {
  const index_t* col = nullptr;
  offset_t lo = 0, hi = 0;
};

template <class Mask>
__device__ __forceinline__ mask_row load_mask_row(const Mask& m, index_t row) {
  mask_row r;
  if constexpr (Mask::kind != mask_kind::none) {
    r.col = m.col;
    r.lo = __ldg(m.rpt + row);
    r.hi = __ldg(m.rpt + row + 1);
  }
  return r;
}

template <class Mask>
__device__ __forceinline__ bool mask_keeps(const mask_row& r, index_t key) {
  if constexpr (Mask::kind == mask_kind::none) {
    return true;
  } else {
    offset_t lo = r.lo, hi = r.hi;
    while (lo < hi) {
      const offset_t mid = (lo + hi) >> 1;
      const index_t c = __ldg(r.col + mid);
      if (c < key)
        lo = mid + 1;
      else
        hi = mid;
    }
    const bool present = lo < r.hi && __ldg(r.col + lo) == key;
    return Mask::kind == mask_kind::structural ? present : !present;
  }
}

// ---- hashing (the tables' policy, hash_policy, is in util/operands.hpp) ----------------------

/// Slots of a bin's table (`tsize`) that one row uses: the smallest power of two, at least 8,
/// holding twice `need` keys (the row's nnz in the numeric phase; its products, an upper bound,
/// in the symbolic one) when that is at most half the table, else the whole table. A bin's table
/// is sized for its largest row, and the H100's tables make the first bins wide (numeric bin 1
/// takes rows of 39 to 261 entries into 522 slots): a small row then zeroes and condenses only
/// its own slots. Only a shrink of 2x or more: how many probes a row's keys take depends on the
/// table size (FEM rows, runs of 15 columns: 1.003 probes per key in 1,130 slots, 1.25 in 1,024,
/// 1.39 in 1,025, simulated), and a row that fills most of the table gains little from a few
/// slots less. Powers of two keep the 107-slot stride a permutation (a size that is a multiple
/// of 107 would put a block of 64 keys on a few slots).
__device__ __forceinline__ unsigned row_slots(unsigned tsize, long long need) {
  unsigned s = 8;
  while (2u * s <= tsize && static_cast<long long>(s) < 2 * need) s <<= 1;
  return 2u * s <= tsize && static_cast<long long>(s) >= 2 * need ? s : tsize;
}

struct table_shape {
  unsigned size;  ///< entries
  bool pow2;      ///< wrap with a mask instead of a compare
  bool paper;     ///< the paper's key*107 mod size
  unsigned step;  ///< 107 slots as a 32-bit fraction of the table (mod 2^32)
  __device__ __forceinline__ table_shape(unsigned n, bool p2, bool pp)
      : size(n),
        pow2(p2),
        paper(pp),
        step(static_cast<unsigned>(static_cast<unsigned long long>(
            static_cast<double>(hash_scale) * 4294967296.0 / static_cast<double>(n)))) {}
  __device__ __forceinline__ unsigned first(index_t key) const {
    const unsigned k = static_cast<unsigned>(key);
    if (paper) {
      const unsigned h = k * hash_scale;
      return pow2 ? (h & (size - 1)) : (h % size);
    }
    return __umulhi(k * step + (k >> 6) * fib_scale, size);
  }
  __device__ __forceinline__ unsigned next(unsigned h) const {
    return pow2 ? ((h + 1) & (size - 1)) : (h + 1 < size ? h + 1 : 0);
  }
};

/// Symbolic insert. Returns true when the key was not in the table yet.
/// single: one atomicCAS per probe, its returned value reused (paper Algorithm 4); otherwise the
/// nsparse way (read the slot, then CAS only when it looks empty).
__device__ __forceinline__ bool insert_key(int* table, table_shape t, index_t key, bool single) {
  unsigned h = t.first(key);
  if (single) {
    for (unsigned probes = 0;; ++probes) {
      const int old = atomicCAS(table + h, -1, key);
      if (old == -1) return true;
      if (old == key) return false;
      if (probes >= t.size) __trap();  // a full table: a binning bug, never an endless loop
      h = t.next(h);
    }
  } else {
    for (unsigned probes = 0;; ++probes) {
      if (probes > t.size) __trap();
      const int cur = *reinterpret_cast<volatile int*>(table + h);
      if (cur == key) return false;
      if (cur == -1) {
        const int old = atomicCAS(table + h, -1, key);
        if (old == -1) return true;
        if (old == key) return false;
      }
      h = t.next(h);
    }
  }
}

/// Numeric insert-and-accumulate (paper Algorithm 5).
template <class S, class T>
__device__ __forceinline__ void insert_accumulate(int* keys, T* vals, table_shape t, index_t key,
                                                  T v, bool single) {
  unsigned h = t.first(key);
  for (unsigned probes = 0;; ++probes) {
    if (probes > t.size) __trap();  // a full table: a binning bug, never an endless loop
    int old;
    if (single) {
      old = atomicCAS(keys + h, -1, key);
    } else {
      old = *reinterpret_cast<volatile int*>(keys + h);
      if (old == -1) old = atomicCAS(keys + h, -1, key);
    }
    if (old == -1 || old == key) {
      if constexpr (has_values_v<T>) {
        if constexpr (S::kind == add_kind::any) {
          if (old == -1) vals[h] = v;
        } else {
          accumulate<S>(vals + h, v);
        }
      }
      return;
    }
    h = t.next(h);
  }
}

// ---- block-wide bitonic sort of (key, value) pairs, any n, in place ----------------------------
// The "flip" formulation: each merge stage first compares i with its mirror in the block of
// `size`, then half-cleans. Missing elements past n act as +infinity, so a pair whose upper index
// is >= n is simply skipped: O(n log^2 n) work, not quadratic in the row length.
template <class T>
__device__ void block_bitonic_sort(int* keys, T* vals, int n) {
  int n2 = 1;
  while (n2 < n) n2 <<= 1;
  const int pairs = n2 >> 1;
  for (int size = 2; size <= n2; size <<= 1) {
    const int half = size >> 1;
    // Powers of two throughout: block and position by masks, not divisions (which cost more
    // than the compare-exchange itself).
    for (int i = threadIdx.x; i < pairs; i += blockDim.x) {
      const int pos = i & (half - 1);
      const int lo = i + (i & ~(half - 1)), hi = lo - pos + size - 1 - pos;
      if (hi < n && keys[lo] > keys[hi]) {
        const int k = keys[lo];
        keys[lo] = keys[hi];
        keys[hi] = k;
        if constexpr (has_values_v<T>) {
          const T v = vals[lo];
          vals[lo] = vals[hi];
          vals[hi] = v;
        }
      }
    }
    __syncthreads();
    for (int step = half >> 1; step >= 1; step >>= 1) {
      for (int i = threadIdx.x; i < pairs; i += blockDim.x) {
        const int lo = i + (i & ~(step - 1)), hi = lo + step;
        if (hi < n && keys[lo] > keys[hi]) {
          const int k = keys[lo];
          keys[lo] = keys[hi];
          keys[hi] = k;
          if constexpr (has_values_v<T>) {
            const T v = vals[lo];
            vals[lo] = vals[hi];
            vals[hi] = v;
          }
        }
      }
      __syncthreads();
    }
  }
}

// ---- block-wide LSD radix sort of (key, value) pairs in global memory ---------------------------
// A row too long for shared memory (numeric_global_kernel) is sorted by its block in passes of
// global_radix_bits key bits, each a stable scatter from one buffer to the other (the row in C
// and the block's hash table, free once the row is condensed): a histogram sweep, then tiles of
// one entry a thread, each entry ranked among its warp's entries of the same digit
// (__match_any_sync) and placed after the earlier warps' and the earlier tiles' entries of that
// digit. ceil(key_bits / 8) passes of three sweeps (and a copy back after an odd number), where
// the bitonic sort made (log2 n)(log2 n + 1) / 2 sweeps with a barrier each: 120 for a row of
// 30,000 entries (measured: the sort took 60 of wb-edu's 112 ms).
constexpr int global_radix_bits = 8;
constexpr int global_radix_digits = 1 << global_radix_bits;

struct global_radix_storage {
  int count[global_radix_digits]
           [33];                  ///< a tile's entries per digit and warp (a padded row a digit)
  int next[global_radix_digits];  ///< where the digit's next entry goes
};

/// Sorts keys[0, n) (non-negative, below 2^key_bits) with their values; tmp_keys and tmp_vals
/// hold n entries each. A block of at most 1,024 threads calls it, all of them.
template <class T>
__device__ void block_radix_sort_global(int* keys, T* vals, int n, int* tmp_keys, T* tmp_vals,
                                        int key_bits, global_radix_storage& s) {
  constexpr unsigned full = 0xffffffffu;
  constexpr int mask = global_radix_digits - 1;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nt = blockDim.x, nwarps = nt >> 5;
  // Zeroed once: every tile's leaders clear what they set.
  for (int i = tid; i < global_radix_digits * 33; i += nt) (&s.count[0][0])[i] = 0;
  int *src_k = keys, *dst_k = tmp_keys;
  T *src_v = vals, *dst_v = tmp_vals;
  bool in_tmp = false;
  for (int shift = 0; shift < key_bits; shift += global_radix_bits) {
    for (int d = tid; d < global_radix_digits; d += nt) s.next[d] = 0;
    __syncthreads();
    for (int i = tid; i < n; i += nt) atomicAdd(&s.next[(src_k[i] >> shift) & mask], 1);
    __syncthreads();
    if (warp == 0) {  // exclusive scan of the digits' counts: 8 a lane
      constexpr int per = global_radix_digits / 32;
      int local[per], sum = 0;
      for (int j = 0; j < per; ++j) sum += (local[j] = s.next[lane * per + j]);
      int run = warp_inclusive_sum(sum) - sum;
      for (int j = 0; j < per; ++j) {
        s.next[lane * per + j] = run;
        run += local[j];
      }
    }
    __syncthreads();
    for (int tile = 0; tile < n; tile += nt) {
      const int i = tile + tid;
      const bool valid = i < n;
      int key = 0, d = global_radix_digits + lane;  // a digit of its own past the row's end
      T val{};
      if (valid) {
        key = src_k[i];
        if constexpr (has_values_v<T>) val = src_v[i];
        d = (key >> shift) & mask;
      }
      const unsigned peers = __match_any_sync(full, d);
      const int before = __popc(peers & ((1u << lane) - 1u));
      if (valid && before == 0) s.count[d][warp] = __popc(peers);
      __syncthreads();
      // A thread a digit: its warps' counts become their first positions, in warp order.
      for (int dd = tid; dd < global_radix_digits; dd += nt) {
        int at = s.next[dd];
        for (int w = 0; w < nwarps; ++w) {
          const int c = s.count[dd][w];
          if (c) {
            s.count[dd][w] = at;
            at += c;
          }
        }
        s.next[dd] = at;
      }
      __syncthreads();
      if (valid) {
        const int pos = s.count[d][warp] + before;
        dst_k[pos] = key;
        if constexpr (has_values_v<T>) dst_v[pos] = val;
      }
      __syncwarp();  // the warp's lanes have read their digit's position
      if (valid && before == 0) s.count[d][warp] = 0;  // only this warp touches column `warp`
      __syncwarp();  // ... and its next tile's leaders write there after these zeros
    }
    __syncthreads();  // the pass's entries are written before the next pass reads them
    int* tk = src_k;
    src_k = dst_k;
    dst_k = tk;
    T* tv = src_v;
    src_v = dst_v;
    dst_v = tv;
    in_tmp = !in_tmp;
  }
  if (in_tmp) {
    for (int i = tid; i < n; i += nt) {
      keys[i] = tmp_keys[i];
      if constexpr (has_values_v<T>) vals[i] = tmp_vals[i];
    }
    __syncthreads();
  }
}

}  // namespace opsparse::detail
