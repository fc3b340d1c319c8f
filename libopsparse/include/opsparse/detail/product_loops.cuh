#pragma once
// The product loops of the one-row-a-block kernels (kernels.cuh): how the
// threads of a block walk the products A(row, j)·B(k, :) of one row of A (for_each_product), and
// spgemm_options::merge_equal_rows' loop over neighbouring nonzeros with equal B rows
// (for_each_merged) with the vote that chooses it row by row.
#include <cuda_runtime.h>

#include <type_traits>

#include "opsparse/detail/binning_kernels.cuh"

namespace opsparse::detail {

// ---- the product loop of one row, shared by every one-row-per-block kernel ---------------------
/// glog value that selects the flattened loop (group sizes are 2^0..2^5).
constexpr int flat_glog = 6;

/// Calls f(a_value, p) for the products A(row, j)·B(k, p) that thread `tid` of `nthreads` takes,
/// p indexing B's entries; f returns true to stop this thread (flattened: its warp), or void.
///   glog 0..5  groups of 2^glog threads share one nonzero of A, their lanes walk B's row
///              (nsparse/the paper; glog from the longest row of B the product reads).
///   flat_glog  each warp takes 32 nonzeros of A at a time (or, for a short row of A, shares
///              them with other warps), scans their B-row lengths, and each lane takes every
///              32nd product, finding its nonzero by a 5-step search over the scan in registers
///              (shuffles): all lanes stay busy whatever the B rows' lengths, which groups sized
///              for the longest row do not when most rows are short (web graphs).
/// PAIRED (groups only, a functor returning void): each group takes two nonzeros of A per step
/// and walks their B rows side by side, two chains of loads in flight instead of one. Measured
/// on the paper suite (H100): the symbolic phase of the FEM classes 10-16% faster; the numeric
/// kernels, whose functor holds more registers, 5-20% slower, so only the symbolic phase pairs.
template <bool PAIRED = false, class VA, class VB, class F>
__device__ __forceinline__ void for_each_product(const dev_csr<VA>& a, const dev_csr<VB>& b,
                                                 index_t row, int tid, int nthreads, int glog,
                                                 F&& f) {
  // A functor returning void never stops (no vote per round of products).
  constexpr bool never_stops = std::is_void_v<decltype(f(VA{}, offset_t{}))>;
  const offset_t lo = a.rpt[row], hi = a.rpt[row + 1];
  if (glog < flat_glog) {
    const int g = 1 << glog, gid = tid >> glog, lane = tid & (g - 1), ng = nthreads >> glog;
    if constexpr (PAIRED && never_stops) {
      for (offset_t j = lo + gid; j < hi; j += 2 * ng) {
        const offset_t j2 = j + ng;
        const bool two = j2 < hi;
        const index_t k = __ldg(a.col + j);
        const index_t k2 = two ? __ldg(a.col + j2) : k;
        const VA av = load_value(a.val, j);
        const VA av2 = two ? load_value(a.val, j2) : VA{};
        const offset_t p0 = __ldg(b.rpt + k), n0 = __ldg(b.rpt + k + 1) - p0;
        const offset_t p1 = two ? __ldg(b.rpt + k2) : 0, n1 = two ? __ldg(b.rpt + k2 + 1) - p1 : 0;
        const offset_t most = n0 > n1 ? n0 : n1;
        for (offset_t t = lane; t < most; t += g) {
          if (t < n0) f(av, p0 + t);
          if (t < n1) f(av2, p1 + t);
        }
      }
    } else {  // (an else, not a return above: nvcc called the loop below unreachable)
      for (offset_t j = lo + gid; j < hi; j += ng) {
        const index_t k = __ldg(a.col + j);
        const VA av = load_value(a.val, j);
        const offset_t pe = __ldg(b.rpt + k + 1);
        for (offset_t p = __ldg(b.rpt + k) + lane; p < pe; p += g) {
          if constexpr (never_stops) {
            f(av, p);
          } else if (f(av, p)) {
            return;
          }
        }
      }
    }
    return;
  }
  constexpr unsigned full = 0xffffffffu;
  const int wid = tid >> 5, lane = tid & 31, nw = nthreads >> 5;
  // Chunks of 32 nonzeros of A. With at least as many chunks as warps, warp w takes chunks w,
  // w + nw, ...; with fewer (a short row of A whose B rows are long: web graphs), `subs` warps
  // share each chunk and split its products, so the whole block works on a row of A with a
  // single nonzero.
  const offset_t chunks = (hi - lo + 31) / 32;
  int first = wid, step = nw, sub = 0, subs = 1;
  if (chunks < nw) {
    subs = nw / static_cast<int>(chunks);
    if (wid >= subs * static_cast<int>(chunks)) return;
    first = wid / subs;
    step = static_cast<int>(chunks);
    sub = wid % subs;
  }
  for (offset_t c = lo + static_cast<offset_t>(first) * 32; c < hi; c += static_cast<offset_t>(step) * 32) {
    const offset_t e = c + lane;
    offset_t start = 0, len = 0;
    VA av{};
    if (e < hi) {
      const index_t k = __ldg(a.col + e);
      start = __ldg(b.rpt + k);
      len = __ldg(b.rpt + k + 1) - start;
      av = load_value(a.val, e);
    }
    offset_t inc = len;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const offset_t x = __shfl_up_sync(full, inc, d);
      if (lane >= d) inc += x;
    }
    const offset_t total = __shfl_sync(full, inc, 31);
    const offset_t excl = inc - len;
    for (offset_t base = static_cast<offset_t>(sub) * 32; base < total; base += static_cast<offset_t>(subs) * 32) {
      const offset_t t = base + lane;
      int l = 0;  // the last nonzero whose products start at or before t
#pragma unroll
      for (int s = 16; s > 0; s >>= 1)
        if (__shfl_sync(full, excl, l + s) <= t) l += s;
      const offset_t p = __shfl_sync(full, start, l) + (t - __shfl_sync(full, excl, l));
      VA al{};
      if constexpr (has_values_v<VA>) al = __shfl_sync(full, av, l);
      if constexpr (never_stops) {
        if (t < total) f(al, p);
      } else {
        const bool stop = t < total && f(al, p);
        if (__any_sync(full, stop)) return;
      }
    }
  }
}

/// The product loop of the one-row-a-block kernels with spgemm_options::merge_equal_rows (groups
/// only, glog < flat_glog): group gid takes two neighbouring nonzeros of A's row at a time, j and
/// j + 1, and walks their B rows side by side; where both rows hold the same column at the same
/// position (the rows of a FEM node's unknowns are identical, and its unknowns are neighbouring
/// columns of A), the two products reach the table as one, f(key, a_j b + a_j+1 b'), else as
/// two, f(key, a_j b) and f(key', a_j+1 b'). A matrix of node blocks of 2 or more unknowns then
/// takes up to half the hash probes and accumulations. S: the semiring (any_pair where only the
/// keys matter).
template <class S, class VA, class VB, class F>
__device__ __forceinline__ void for_each_merged(const dev_csr<VA>& a, const dev_csr<VB>& b,
                                                index_t row, int tid, int nthreads, int glog,
                                                F&& f) {
  const int g = 1 << glog, gid = tid >> glog, lane = tid & (g - 1), ng = nthreads >> glog;
  const offset_t lo = a.rpt[row], hi = a.rpt[row + 1];
  for (offset_t j = lo + 2 * static_cast<offset_t>(gid); j < hi; j += 2 * static_cast<offset_t>(ng)) {
    const bool two = j + 1 < hi;
    const index_t k0 = __ldg(a.col + j), k1 = two ? __ldg(a.col + j + 1) : k0;
    const VA a0 = load_value(a.val, j), a1 = two ? load_value(a.val, j + 1) : VA{};
    const offset_t p0 = __ldg(b.rpt + k0), p1 = __ldg(b.rpt + k1);
    // 32-bit within a B row (fewer than 2^31 entries: distinct index_t columns), for registers
    const unsigned n0 = static_cast<unsigned>(__ldg(b.rpt + k0 + 1) - p0);
    const unsigned n1 = two ? static_cast<unsigned>(__ldg(b.rpt + k1 + 1) - p1) : 0u;
    const unsigned most = n0 > n1 ? n0 : n1;
    for (unsigned t = lane; t < most; t += g) {
      const bool h0 = t < n0, h1 = t < n1;
      const index_t c0 = h0 ? __ldg(b.col + p0 + t) : -1;
      const index_t c1 = h1 ? __ldg(b.col + p1 + t) : -2;  // never equal to c0 unless both hold
      if (c0 == c1) {
        f(c0, S::add(S::multiply(a0, load_value(b.val, p0 + t)), S::multiply(a1, load_value(b.val, p1 + t))));
      } else {
        if (h0) f(c0, S::multiply(a0, load_value(b.val, p0 + t)));
        if (h1) f(c1, S::multiply(a1, load_value(b.val, p1 + t)));
      }
    }
  }
}

/// Rows of A shorter than this never merge automatically: their blocks are short, and the vote's
/// chain of loads before the first barrier cost majorbasis (11 entries a row) 13% of its symbolic
/// phase, poisson3Da and filter3D (25-26) 5%, on the H100. FEM rows hold 39-122 entries.
constexpr offset_t merge_min_row = 32;

/// spgemm_options::merge_equal_rows, row by row: thread tid < 32 of the block checks pair tid
/// of the pairs for_each_merged takes (A's nonzeros 2 tid and 2 tid + 1 of the row): true where
/// both B rows have the same length, first and last column. The block counts the votes with the
/// barrier after its table is cleared (__syncthreads_count), so a row costs no extra barrier.
template <class VA, class VB>
__device__ __forceinline__ bool equal_pair(const dev_csr<VA>& a, const dev_csr<VB>& b, index_t row,
                                           int tid) {
  if (tid >= 32) return false;
  const offset_t lo = a.rpt[row], hi = a.rpt[row + 1];
  const offset_t j = lo + 2 * tid;
  if (hi - lo < merge_min_row || j + 1 >= hi) return false;
  const index_t k0 = __ldg(a.col + j), k1 = __ldg(a.col + j + 1);
  const offset_t p0 = __ldg(b.rpt + k0), n0 = __ldg(b.rpt + k0 + 1) - p0;
  const offset_t p1 = __ldg(b.rpt + k1), n1 = __ldg(b.rpt + k1 + 1) - p1;
  return n0 == n1 && n0 > 0 && __ldg(b.col + p0) == __ldg(b.col + p1) &&
         __ldg(b.col + p0 + n0 - 1) == __ldg(b.col + p1 + n1 - 1);
}

/// Whether the row takes for_each_merged: hash_policy::merge 0 (every row), or, in a row of at
/// least merge_min_row entries, `votes` equal pairs (equal_pair) of its first
/// min(32, length / 2) at least merge percent of them.
template <class VA>
__device__ __forceinline__ bool merge_row(const dev_csr<VA>& a, index_t row, int merge, int votes) {
  if (merge <= 0) return merge == 0;
  const offset_t len = a.rpt[row + 1] - a.rpt[row];
  if (len < merge_min_row) return false;
  const int pairs = len / 2 < 32 ? static_cast<int>(len / 2) : 32;
  return 100 * votes >= merge * pairs;
}

}  // namespace opsparse::detail
