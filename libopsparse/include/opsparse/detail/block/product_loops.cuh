#pragma once
// The product loops of the one-row-a-block kernels (spgemm_kernels.cuh): how the
// threads of a block walk the products A(row, j)·B(k, :) of one row of A (for_each_product), and
// spgemm_tuning::merge_equal_rows' loops over neighbouring nonzeros with equal B rows, in pairs
// or triples (for_each_merged) and in runs of consecutive columns (for_each_run), with the vote
// that chooses among them row by row (merge_vote).
#include <cuda_runtime.h>

#include <type_traits>

#include "opsparse/detail/block/device_ops.cuh"
#include "opsparse/detail/util/operands.hpp"

namespace opsparse::detail {

// ---- the product loop of one row, shared by every one-row-per-block kernel ---------------------
/// glog value that selects the flattened loop (group sizes are 2^0..2^5).
constexpr int flat_glog = 6;
/// The most products of 32 nonzeros of A whose search the flattened loop can do in 32 bits (more:
/// a B row at a time), with room for a round past it.
constexpr offset_t narrow_total = (offset_t{1} << 31) - 64;

/// The part of a B row a product loop walks: all of it.
struct whole_rows {
  __device__ __forceinline__ void operator()(offset_t&, offset_t&) const {}
};

/// The part of a sorted B row whose columns lie in [lo, hi]: a product whose row can only keep
/// those columns (a mask row's range) skips the rest. Rows longer than a warp only (a shorter
/// one costs a warp at most a round; the search's loads would lengthen small products): two
/// loads when the row lies inside, a binary search of the row for each end that does not.
/// hi = `whole` (no column is that large) walks every row whole: B unsorted.
struct column_range {
  static constexpr offset_t min_entries = 33;
  static constexpr index_t whole = 0x7fffffff;
  const index_t* col;
  index_t lo, hi;
  __device__ __forceinline__ void operator()(offset_t& start, offset_t& end) const {
    if (end - start < min_entries || hi == whole) return;
    if (__ldg(col + start) < lo) start = lower_bound(col, start + 1, end, lo);
    if (start < end && __ldg(col + end - 1) > hi) end = lower_bound(col, start, end - 1, hi + 1);
  }
};

/// The group loop of for_each_product (glog 0..5) over A's entries [lo, hi) of one row.
template <bool PAIRED, bool NEVER_STOPS, class VA, class VB, class F, class Clip>
__device__ __forceinline__ void group_products(const dev_csr<VA>& a, const dev_csr<VB>& b,
                                               offset_t lo, offset_t hi, int tid, int nthreads,
                                               int glog, F& f, const Clip& clip) {
  const int g = 1 << glog, gid = tid >> glog, lane = tid & (g - 1), ng = nthreads >> glog;
  if constexpr (PAIRED && NEVER_STOPS) {
    static_assert(std::is_same_v<Clip, whole_rows>, "the paired loop walks whole rows");
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
      offset_t ps = __ldg(b.rpt + k), pe = __ldg(b.rpt + k + 1);
      clip(ps, pe);
      for (offset_t p = ps + lane; p < pe; p += g) {
        if constexpr (NEVER_STOPS) {
          f(av, p);
        } else if (f(av, p)) {
          return;
        }
      }
    }
  }
}

/// The rounds of one chunk of the flattened loop with its search over 32-bit offsets (NARROW > 0;
/// chunks of more products walk their B rows one at a time): lane i holds the chunk's i-th
/// nonzero (its first B entry, products and value) and the warp's inclusive scan of the products.
/// True when f stopped the warp.
template <offset_t NARROW, bool NEVER_STOPS, class VA, class F>
__device__ __forceinline__ bool narrow_rounds(offset_t start, offset_t len, VA av, offset_t inc,
                                              offset_t total, int sub, int subs, int lane, F& f) {
  constexpr unsigned full = 0xffffffffu;
  if (total > NARROW) {
    // Too many products for the 32-bit search below: each nonzero's B row in turn.
    for (int l = 0; l < 32; ++l) {
      const offset_t s = __shfl_sync(full, start, l), n = __shfl_sync(full, len, l);
      VA al{};
      if constexpr (has_values_v<VA>) al = __shfl_sync(full, av, l);
      for (offset_t base = static_cast<offset_t>(sub) * 32; base < n;
           base += static_cast<offset_t>(subs) * 32) {
        const offset_t t = base + lane;
        if constexpr (NEVER_STOPS) {
          if (t < n) f(al, s + t);
        } else {
          const bool stop = t < n && f(al, s + t);
          if (__any_sync(full, stop)) return true;
        }
      }
    }
    return false;
  }
  // The search in 32 bits: a nonzero's first product t and its B entry p = origin + t.
  const unsigned excl = static_cast<unsigned>(inc - len), total32 = static_cast<unsigned>(total);
  const offset_t origin = start - static_cast<offset_t>(excl);
  for (unsigned base = static_cast<unsigned>(sub) * 32; base < total32;
       base += static_cast<unsigned>(subs) * 32) {
    const unsigned t = base + lane;
    int l = 0;  // the last nonzero whose products start at or before t
#pragma unroll
    for (int s = 16; s > 0; s >>= 1)
      if (__shfl_sync(full, excl, l + s) <= t) l += s;
    const offset_t p = __shfl_sync(full, origin, l) + t;
    VA al{};
    if constexpr (has_values_v<VA>) al = __shfl_sync(full, av, l);
    if constexpr (NEVER_STOPS) {
      if (t < total32) f(al, p);
    } else {
      const bool stop = t < total32 && f(al, p);
      if (__any_sync(full, stop)) return true;
    }
  }
  return false;
}

/// Calls f(a_value, p) for the products A(row, j)·B(k, p) that thread `tid` of `nthreads` takes,
/// p indexing B's entries; f returns true to stop this thread (flattened: its warp), or void.
///   glog 0..5  groups of 2^glog threads share one nonzero of A, their lanes walk B's row
///              (nsparse/the paper; glog from the longest row of B the product reads).
///   flat_glog  each warp takes 32 nonzeros of A at a time, a chunk (warp w chunks w, w + nw,
///              ...; with fewer chunks than warps, a short row of A whose B rows are long as in
///              web graphs, `subs` warps share each chunk and split its products, so that the
///              whole block works on a row with one nonzero), scans their B-row lengths, and
///              each lane takes every 32nd product, finding its nonzero by a 5-step search over
///              the scan in registers (shuffles; see NARROW): all lanes stay busy whatever the B
///              rows' lengths, which groups sized for the longest row do not when most rows are
///              short (web graphs).
/// clip(start, end) narrows each B row's entries [start, end) to those f may keep (whole_rows:
/// none skipped; column_range: a mask row's columns).
/// PAIRED (groups only, a functor returning void): each group takes two nonzeros of A per step
/// and walks their B rows side by side, two chains of loads in flight instead of one. Measured
/// on the paper suite (H100): the symbolic phase of the FEM classes 10-16% faster; the numeric
/// kernels, whose functor holds more registers, 5-20% slower, so only the symbolic phase pairs.
/// NARROW (flattened loop): 0, the search over 64-bit offsets; above 0, over 32-bit ones where
/// 32 nonzeros have at most NARROW products (narrow_total; else their B rows one at a time):
/// fewer instructions a round, but f inlined twice. The reduce kernels, whose f is one probe,
/// take it; with the engine's hash inserts it costs registers (sm_90: the symbolic kernels'
/// spill loads 64 -> 124 bytes; H200: webbase-1M's symbolic phase 9% slower).
template <bool PAIRED = false, offset_t NARROW = 0, class VA, class VB, class F,
          class Clip = whole_rows>
__device__ __forceinline__ void for_each_product(const dev_csr<VA>& a, const dev_csr<VB>& b,
                                                 index_t row, int tid, int nthreads, int glog,
                                                 F&& f, const Clip& clip = {}) {
  constexpr bool never_stops = std::is_void_v<decltype(f(VA{}, offset_t{}))>;  // no votes
  const offset_t lo = a.rpt[row], hi = a.rpt[row + 1];
  if (glog < flat_glog) {
    group_products<PAIRED, never_stops>(a, b, lo, hi, tid, nthreads, glog, f, clip);
    return;
  }
  constexpr unsigned full = 0xffffffffu;
  const int wid = tid >> 5, lane = tid & 31, nw = nthreads >> 5;
  const offset_t chunks = (hi - lo + 31) / 32;
  int first = wid, step = nw, sub = 0, subs = 1;
  if (chunks < nw) {
    subs = nw / static_cast<int>(chunks);
    if (wid >= subs * static_cast<int>(chunks)) return;
    first = wid / subs;
    step = static_cast<int>(chunks);
    sub = wid % subs;
  }
  for (offset_t c = lo + static_cast<offset_t>(first) * 32; c < hi;
       c += static_cast<offset_t>(step) * 32) {
    const offset_t e = c + lane;
    offset_t start = 0, len = 0;
    VA av{};
    if (e < hi) {
      const index_t k = __ldg(a.col + e);
      start = __ldg(b.rpt + k);
      offset_t end = __ldg(b.rpt + k + 1);
      clip(start, end);
      len = end - start;
      av = load_value(a.val, e);
    }
    const offset_t inc = warp_inclusive_sum(len);
    const offset_t total = __shfl_sync(full, inc, 31);
    if constexpr (NARROW > 0) {
      if (narrow_rounds<NARROW, never_stops>(start, len, av, inc, total, sub, subs, lane, f))
        return;
    } else {
      const offset_t excl = inc - len;
      for (offset_t base = static_cast<offset_t>(sub) * 32; base < total;
           base += static_cast<offset_t>(subs) * 32) {
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
}

/// The product loop of the one-row-a-block kernels with spgemm_tuning::merge_equal_rows (groups
/// only, glog < flat_glog): group gid takes W (2 or 3) neighbouring nonzeros of A's row at a
/// time, j to j + W - 1, and walks their B rows side by side; where all W rows hold the same
/// column at the same position (the rows of a FEM node's unknowns are identical, and its
/// unknowns are neighbouring columns of A), the W products reach the table as one,
/// f(key, a_j b + a_j+1 b' + ...), else one by one. A matrix of node blocks of 3 or 6 unknowns
/// then takes a third of the hash probes and accumulations, of 2, 4 or 5 about half (pairs).
/// S: the semiring (any_pair where only the keys matter).
template <int W, class S, class VA, class VB, class F>
__device__ __forceinline__ void for_each_merged(const dev_csr<VA>& a, const dev_csr<VB>& b,
                                                index_t row, int tid, int nthreads, int glog,
                                                F&& f) {
  const int g = 1 << glog, gid = tid >> glog, lane = tid & (g - 1), ng = nthreads >> glog;
  const offset_t lo = a.rpt[row], hi = a.rpt[row + 1];
  for (offset_t j = lo + W * static_cast<offset_t>(gid); j < hi;
       j += W * static_cast<offset_t>(ng)) {
    VA av[W];
    offset_t p[W];
    // 32-bit within a B row (fewer than 2^31 entries: distinct index_t columns), for registers
    unsigned n[W], most = 0;
#pragma unroll
    for (int i = 0; i < W; ++i) {
      const bool in = j + i < hi;
      const index_t k = in ? __ldg(a.col + j + i) : 0;
      av[i] = in ? load_value(a.val, j + i) : VA{};
      p[i] = in ? __ldg(b.rpt + k) : 0;
      n[i] = in ? static_cast<unsigned>(__ldg(b.rpt + k + 1) - p[i]) : 0u;
      most = n[i] > most ? n[i] : most;
    }
    for (unsigned t = lane; t < most; t += g) {
      index_t c[W];
      bool all = true;
#pragma unroll
      for (int i = 0; i < W; ++i) {
        c[i] = t < n[i] ? __ldg(b.col + p[i] + t) : index_t(-1 - i);  // distinct where absent
        all = all && c[i] == c[0];
      }
      if (all) {
        auto v = S::multiply(av[0], load_value(b.val, p[0] + t));
#pragma unroll
        for (int i = 1; i < W; ++i) v = S::add(v, S::multiply(av[i], load_value(b.val, p[i] + t)));
        f(c[0], v);
      } else {
#pragma unroll
        for (int i = 0; i < W; ++i)
          if (c[i] >= 0) f(c[i], S::multiply(av[i], load_value(b.val, p[i] + t)));
      }
    }
  }
}

/// Fewest nonzeros a group takes in for_each_run: a short row of A in a block of many groups is
/// left to fewer of them rather than cut into runs of one to three.
constexpr offset_t run_min_slice = 16;

/// The product loop of the one-row-a-block kernels with row_merging::runs (groups only): where a
/// row of A holds a FEM node's unknowns as neighbouring nonzeros in consecutive columns k, k + 1,
/// ..., their B rows (the node's rows) are equal, and lie back to back in B, so member i of such a
/// run starting at B entry p0 with rows of n entries reads entry p0 + i n + t. Blocks of any size
/// merge whole (hood's 5, pdb1HYS's 3 to 7), where fixed pairs or triples taken from the row's
/// start straddle two nodes. Group gid takes a contiguous slice of the row (ceil of its length over
/// the groups, at least run_min_slice: a run split by a slice's end costs one more hash operation a
/// column) and reads it in windows of g nonzeros: lane l reads nonzero w + l's B row (start,
/// length, first and last column), and a nonzero continues its left neighbour's run where its
/// column is the next one and its B row has the same length, first and last column. The runs of a
/// window are walked one after the other, all lanes of the group on one run's columns; a run that
/// reaches the window's end starts the next window instead, unless it fills the window (then it is
/// taken in pieces of g). Where the members' columns differ at a position (equal length and ends do
/// not make equal rows), that position's products reach the table one by one, as in
/// for_each_merged.
template <class S, class VA, class VB, class F>
__device__ __forceinline__ void for_each_run(const dev_csr<VA>& a, const dev_csr<VB>& b,
                                             index_t row, int tid, int nthreads, int glog, F&& f) {
  const int g = 1 << glog, gid = tid >> glog, lane = tid & (g - 1), ng = nthreads >> glog;
  const int base = (tid & 31) & ~(g - 1);  // the group's first lane in its warp
  const unsigned gmask = g == 32 ? 0xffffffffu : ((1u << g) - 1u) << base;
  const offset_t lo = a.rpt[row], hi = a.rpt[row + 1];
  const offset_t even = (hi - lo + ng - 1) / ng;
  const offset_t per = even > run_min_slice ? even : run_min_slice;
  const offset_t s_lo = lo + static_cast<offset_t>(gid) * per;
  const offset_t s_hi = s_lo + per < hi ? s_lo + per : hi;
  for (offset_t w = s_lo; w < s_hi;) {  // uniform in the group
    const offset_t j = w + lane;
    const bool in = j < s_hi;
    const index_t k = in ? __ldg(a.col + j) : index_t(-2);
    const offset_t p = in ? __ldg(b.rpt + k) : 0;
    const unsigned n = in ? static_cast<unsigned>(__ldg(b.rpt + k + 1) - p) : 0u;
    const index_t first = in && n ? __ldg(b.col + p) : index_t(-1);
    const index_t last = in && n ? __ldg(b.col + p + n - 1) : index_t(-1);
    const index_t kl = __shfl_up_sync(gmask, k, 1, g);
    const unsigned nl = __shfl_up_sync(gmask, n, 1, g);
    const index_t fl = __shfl_up_sync(gmask, first, 1, g), ll = __shfl_up_sync(gmask, last, 1, g);
    const bool cont =
        lane > 0 && in && n > 0 && k == kl + 1 && n == nl && first == fl && last == ll;
    const unsigned bits = g == 32 ? 0xffffffffu : (1u << g) - 1u;
    unsigned starts = (__ballot_sync(gmask, in && !cont) >> base) & bits;
    const int cnt = s_hi - w < static_cast<offset_t>(g) ? static_cast<int>(s_hi - w) : g;
    offset_t next = w + cnt;
    while (starts) {
      const int s = __ffs(starts) - 1;
      starts &= starts - 1;
      const int e = starts ? __ffs(starts) - 1 : cnt;
      if (e == g && s > 0 && w + g < s_hi) {  // may go on past the window: the next one starts here
        next = w + s;
        break;
      }
      const int L = e - s;
      const offset_t p0 = __shfl_sync(gmask, p, s, g);
      const unsigned n0 = __shfl_sync(gmask, n, s, g);
      // the run's values of A (one address for the group at a time)
      const VA* av = has_values_v<VA> ? a.val + (w + s) : a.val;
      for (unsigned t = lane; t < n0; t += g) {
        const index_t c0 = __ldg(b.col + p0 + t);
        auto v = S::multiply(load_value(av, 0), load_value(b.val, p0 + t));
        bool all = true;
#pragma unroll 4
        for (int i = 1; i < L; ++i) {
          const offset_t q = p0 + static_cast<offset_t>(i) * n0 + t;
          all &= __ldg(b.col + q) == c0;
          v = S::add(v, S::multiply(load_value(av, i), load_value(b.val, q)));
        }
        if (all) {
          f(c0, v);
        } else {  // rare: one by one where they differ
          for (int i = 0; i < L; ++i) {
            const offset_t q = p0 + static_cast<offset_t>(i) * n0 + t;
            f(__ldg(b.col + q), S::multiply(load_value(av, i), load_value(b.val, q)));
          }
        }
      }
    }
    w = next;
  }
}

/// Rows of A shorter than this never merge in the numeric phase: their blocks are short, and the
/// vote's chain of loads before the first barrier (measured when the symbolic phase voted too)
/// cost majorbasis (11 entries a row) 13% of its symbolic phase, poisson3Da and filter3D (25-26)
/// 5%, on the H100. FEM rows hold 39-122 entries.
constexpr offset_t merge_min_row = 32;

/// spgemm_tuning::merge_equal_rows, row by row: the width the row is taken with (1: not merged, 2:
/// pairs, 3: triples, for_each_merged; 4: runs, for_each_run). hash_policy::merge 0 forces
/// hash_policy::width. Automatic (merge = a percentage): the block's first warp compares the B rows
/// of neighbouring nonzeros among the row's first 32 (same length, first and last column), which
/// gives the share s2 of equal pairs (nonzeros 2i, 2i + 1) and s3 of equal triples (3i to 3i + 2)
/// as for_each_merged aligns them; pairs save s2 / 2 of the hash operations, triples 2 s3 / 3.
/// Triples win where their saving exceeds hash_policy::triples percent of the pairs' (phase_policy
/// says why), and the winner merges where at least `merge` percent of its groups are equal (75: 12
/// of 16 pairs, 8 of 10 triples), else the other one where they are. Runs (hash_policy::runs > 0):
/// each neighbour that continues a run (equal, and the next column) saves one hash operation in 32;
/// they are taken where at least `merge` percent of the 32 nonzeros lie in runs and they save
/// hash_policy::runs percent of what the width chosen above saves, except over pairs (triples)
/// that are all equal, which that width fits exactly (phase_policy has the measurements). Called
/// by every thread; the width is counted through the barrier after the table's clearing
/// (__syncthreads_count of tid < width), so a row costs no extra barrier.
template <class VA, class VB>
__device__ __forceinline__ bool merge_vote(const dev_csr<VA>& a, const dev_csr<VB>& b, index_t row,
                                           int tid, const hash_policy& hp) {
  if (hp.merge == 0) return tid < hp.width;
  if (hp.merge < 0 || tid >= 32) return false;
  const offset_t lo = a.rpt[row], hi = a.rpt[row + 1];
  if (hi - lo < merge_min_row) return false;  // uniform in the warp
  const offset_t j = lo + tid;
  bool eq = false, next = false;
  if (tid < 31) {  // j + 1 < hi: the row holds at least 32 entries
    const index_t k0 = __ldg(a.col + j), k1 = __ldg(a.col + j + 1);
    const offset_t p0 = __ldg(b.rpt + k0), n0 = __ldg(b.rpt + k0 + 1) - p0;
    const offset_t p1 = __ldg(b.rpt + k1), n1 = __ldg(b.rpt + k1 + 1) - p1;
    eq = n0 == n1 && n0 > 0 && __ldg(b.col + p0) == __ldg(b.col + p1) &&
         __ldg(b.col + p0 + n0 - 1) == __ldg(b.col + p1 + n1 - 1);
    next = k1 == k0 + 1;
  }
  const unsigned m = __ballot_sync(0xffffffffu, eq);       // bit l: nonzeros l and l + 1 equal
  const int pairs = __popc(m & 0x55555555u);               // bits 0, 2, ..., 30: 16 pairs
  const int triples = __popc(m & (m >> 1) & 0x09249249u);  // bits 0, 3, ..., 27: 10 triples
  // savings in 1/480 of the hash operations: s2 / 2 = pairs / 32, 2 s3 / 3 = triples / 15
  const int save2 = 15 * pairs, save3 = 32 * triples;
  const bool fit2 = 100 * pairs >= 16 * hp.merge;
  const bool fit3 = hp.triples > 0 && 100 * triples >= 10 * hp.merge;
  const bool prefer3 = hp.triples > 0 && 100 * save3 > hp.triples * save2;
  int width = prefer3 ? (fit3 ? 3 : fit2 ? 2 : 1) : (fit2 ? 2 : fit3 ? 3 : 1);
  // every pair (every triple) of the width chosen equal: that width (see above)
  if (hp.runs > 0 && !(width == 2 && pairs == 16) && !(width == 3 && triples == 10)) {
    const unsigned r = __ballot_sync(0xffffffffu, eq && next);  // bit l: l + 1 continues l's run
    const int saved = width == 3 ? save3 : width == 2 ? save2 : 0;
    if (100 * __popc(r | (r << 1)) >= 32 * hp.merge && 100 * 15 * __popc(r) >= hp.runs * saved)
      width = 4;
  }
  return tid < width;
}

}  // namespace opsparse::detail
