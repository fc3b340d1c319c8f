#pragma once
// The GPU backend's own kernels (mcl_gpu.cu includes this, once): pruning an expanded block as
// mcl does (measures and the cutoff pass, the ranked values gathered, the per-row decision,
// the kept entries renormalised and appended), the fused expansion's rows laid out as the next
// iterate, and inflation. Everything else the backend runs is the library's (the product,
// visit_dense_rows, row_products, sort_rows).
#include <cuda_runtime.h>

#include "core/mcl.hpp"
#include "core/mcl_prune.hpp"
#include "opsparse/detail/util/device_utils.cuh"
#include "opsparse/detail/util/launch.hpp"
#include "opsparse/types.hpp"

namespace opsparse::mcl {
namespace {

using detail::check_launch;
constexpr int warp_size = detail::warp_threads;
constexpr int block_threads = 256;  // 8 warps, one row each
constexpr unsigned full_mask = detail::full_warp;

unsigned warp_grid(long long rows) { return detail::warp_grid_for(rows, block_threads); }

/// An expanded value as the iterate's cell type stores it (mcl rounds each double sum to float).
template <class T>
__device__ __forceinline__ double cell(double x) {
  return static_cast<double>(static_cast<T>(x));
}

/// A double as the cell type T (the start matrix's values converted on the device).
template <class T>
struct cast_to {
  __device__ T operator()(double x) const { return static_cast<T>(x); }
};

/// An offset moved by `shift` (row pointers rebased into a gathered iterate, or filled with a
/// constant from a constant 0).
struct plus_offset {
  offset_t shift;
  __device__ offset_t operator()(offset_t x) const { return x + shift; }
};

/// A row pointer of the whole X as one of rows [r0, r1) alone: clamped to [lo, hi] (X's row
/// pointers at r0 and r1), less lo.
struct clamped_offset {
  offset_t lo, hi;
  __device__ offset_t operator()(offset_t x) const { return (x < lo ? lo : x > hi ? hi : x) - lo; }
};

/// Whether an entry's column lies in [c0, c1) (a column piece of the iterate, select()).
template <class T>
struct in_columns {
  index_t c0, c1;
  __device__ bool operator()(index_t, index_t j, T) const { return c0 <= j && j < c1; }
};

/// Per expanded row, from the cutoff pass.
struct row_stat {
  double maxval;      ///< largest value of the expanded row
  double center;      ///< sum of squares of the expanded row
  double mass_prune;  ///< mass at or above the cutoff
  long long n_prune;  ///< entries at or above the cutoff
  int pcase;          ///< prune_case
  double rank_bar;    ///< case recover: every entry at or above it is ranked (at least R of them)
};

/// Per expanded row, the final decision.
struct row_decision {
  double bar;   ///< keep values >= bar
  double mass;  ///< their sum
};

// ---- pruning: a team of threads per expanded row -------------------------------------------
// A team is a warp (TEAM = 32, eight rows per block) for ordinary rows, or a whole block
// (TEAM = block_threads, one row per block) when the expanded rows are long: dense expansions
// have rows of 10^5-10^6 entries, and a warp per row left most of the device idle (1,000-row
// blocks are 1,000 warps: 12% occupancy, a third of the memory bandwidth).
constexpr int long_team = block_threads;

template <int TEAM>
__device__ __forceinline__ long long team_row() {
  return (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / TEAM;
}
template <int TEAM>
__device__ __forceinline__ int team_lane() {
  return static_cast<int>(threadIdx.x % TEAM);
}

using detail::block_reduce;
using plus_op = detail::sum_op;
struct max_op {
  __device__ double operator()(double a, double b) const { return fmax(a, b); }
};

/// Calls emit(k, position) for the entries k of [b, e) that keep(k) accepts, positions counted
/// from `out` in the row's order (one ballot per warp and, for a block team, a prefix over warps
/// per tile of TEAM entries). Returns the number emitted (every thread of the team).
template <int TEAM, class Keep, class Emit>
__device__ offset_t team_compact(offset_t b, offset_t e, offset_t out, Keep keep, Emit emit) {
  const int lane = threadIdx.x % warp_size;
  const offset_t first = out;
  for (offset_t k0 = b; k0 < e; k0 += TEAM) {
    const offset_t k = k0 + team_lane<TEAM>();
    const bool kept = k < e && keep(k);
    const unsigned ballot = __ballot_sync(full_mask, kept);
    offset_t before = 0, tile = __popc(ballot);
    if constexpr (TEAM > warp_size) {
      constexpr int warps = TEAM / warp_size;
      __shared__ int counts[warps];
      const int w = threadIdx.x / warp_size;
      if (lane == 0) counts[w] = __popc(ballot);
      __syncthreads();
      tile = 0;
      for (int i = 0; i < warps; ++i) {
        if (i == w) before = tile;
        tile += counts[i];
      }
      __syncthreads();  // counts is rewritten by the next tile
    }
    if (kept) emit(k, out + before + __popc(ballot & ((1u << lane) - 1u)));
    out += tile;
  }
  return out - first;
}

// ---- pruning, step 1: measures and the cutoff pass -------------------------------------------
// Order statistics are needed only in the cases recover (rank R of the whole row) and select
// (ranks S and R, both at or above the cutoff: selection happens when more than S entries
// pass the cutoff, and its recovery reads rank R only when more than R pass it). So a
// selected row sorts only its entries at or above the cutoff: at most 1/cutoff of them in a
// stochastic row (10^4 for -P 10000) where dense rows have 10^5-10^6. A recovered row sorts
// the entries at or above the highest of a few bars below the cutoff that at least R entries
// reach (rank R is among them), the whole row when none does.
constexpr int rank_levels = 4;
__device__ __forceinline__ double rank_level(double cutoff, int l) {
  return cutoff / static_cast<double>(4 << (2 * l));  // cutoff / 4, / 16, / 64, / 256
}

template <class T, int TEAM>
__global__ void prune_stats_kernel(index_t m, const offset_t* __restrict__ rpt,
                                   const double* __restrict__ val, prune_rule rule,
                                   row_stat* __restrict__ st, offset_t* __restrict__ seg_len) {
  const long long row = team_row<TEAM>();
  if (row >= m) return;  // uniform per team
  const offset_t b = rpt[row], e = rpt[row + 1];
  double mx = 0, ctr = 0, mass = 0;
  long long np = 0;
  long long below[rank_levels] = {};  // entries below the cutoff, at or above each level
  for (offset_t k = b + team_lane<TEAM>(); k < e; k += TEAM) {
    const double v = cell<T>(val[k]);
    ctr += v * v;
    mx = fmax(mx, v);
    if (v >= rule.cutoff) {
      ++np;
      mass += v;
    } else {
#pragma unroll
      for (int l = 0; l < rank_levels; ++l) below[l] += v >= rank_level(rule.cutoff, l);
    }
  }
  mx = block_reduce<TEAM>(mx, max_op{});
  ctr = block_reduce<TEAM>(ctr, plus_op{});
  mass = block_reduce<TEAM>(mass, plus_op{});
  np = block_reduce<TEAM>(np, plus_op{});
  const int c = prune_case_of(rule, e - b, np, mass);
  double rank_bar = keep_all_bar;
  offset_t ranked = e - b;
  if (c == case_recover) {  // uniform per team
#pragma unroll
    for (int l = 0; l < rank_levels; ++l) {
      const long long reach = np + block_reduce<TEAM>(below[l], plus_op{});
      if (rank_bar == keep_all_bar && reach >= rule.recover) {
        rank_bar = rank_level(rule.cutoff, l);
        ranked = reach;
      }
    }
  }
  if (team_lane<TEAM>() == 0) {
    st[row] = row_stat{mx, ctr, mass, np, c, rank_bar};
    seg_len[row] = c == case_recover ? ranked : c == case_select ? np : 0;
  }
}

/// The values a row's order statistics come from (see above), unsorted, at seg_off[row].
template <class T, int TEAM>
__global__ void prune_gather_kernel(index_t m, const offset_t* __restrict__ rpt,
                                    const double* __restrict__ val, prune_rule rule,
                                    const row_stat* __restrict__ st,
                                    const offset_t* __restrict__ seg_off,
                                    double* __restrict__ out) {
  const long long row = team_row<TEAM>();
  if (row >= m) return;
  const row_stat& rs = st[row];
  const int c = rs.pcase;
  if (!case_needs_ranks(c)) return;  // uniform per team
  const double bar = c == case_recover ? rs.rank_bar : rule.cutoff;
  team_compact<TEAM>(
      rpt[row], rpt[row + 1], seg_off[row], [&](offset_t k) { return cell<T>(val[k]) >= bar; },
      [&](offset_t k, offset_t at) { out[at] = val[k]; });
}

/// Entries at or above `bar` in the row and their mass (every thread of the team gets them).
template <class T, int TEAM>
__device__ void measure_row(const double* __restrict__ val, offset_t b, offset_t e, double bar,
                            long long& count, double& mass) {
  long long c = 0;
  double s = 0;
  for (offset_t k = b + team_lane<TEAM>(); k < e; k += TEAM) {
    const double v = cell<T>(val[k]);
    if (v >= bar) {
      ++c;
      s += v;
    }
  }
  count = block_reduce<TEAM>(c, plus_op{});
  mass = block_reduce<TEAM>(s, plus_op{});
}

// ---- pruning, step 2 (after the segmented sort): bars, kept counts, chaos --------------------
template <class T, int TEAM>
__global__ void prune_decide_kernel(index_t m, index_t r0, const offset_t* __restrict__ rpt,
                                    const double* __restrict__ val,
                                    const double* __restrict__ sorted,
                                    const offset_t* __restrict__ seg_off, prune_rule rule,
                                    const row_stat* __restrict__ st, row_decision* __restrict__ dec,
                                    offset_t* __restrict__ keep, double* __restrict__ chaos) {
  const long long row = team_row<TEAM>();
  if (row >= m) return;
  const offset_t b = rpt[row], e = rpt[row + 1];
  const row_stat s = st[row];
  // ranked[k - 1] is the value of rank k (descending) for rows that needed ranks: their top
  // entries, all those at or above a bar (see prune_stats_kernel). Rounding to T is monotone,
  // so the rank-k cell is the rounded rank-k sum.
  const double* ranked = sorted + seg_off[row];
  const prune_decision d = decide(
      rule, s.pcase, s.n_prune, s.mass_prune, [&](long long k) { return cell<T>(ranked[k - 1]); },
      [&](double bar, long long& count, double& mass) {
        measure_row<T, TEAM>(val, b, e, bar, count, mass);
      });
  const double bar = d.bar, mass = d.mass;
  const long long count = d.count;
  if (team_lane<TEAM>() == 0) {
    dec[row] = row_decision{bar, mass};
    keep[row] = count;
    chaos[r0 + row] = (s.maxval - s.center) * static_cast<double>(count);
  }
}

// ---- pruning, step 3: the kept entries, renormalised, appended to the next iterate -----------
// Entries go to out_col/out_val from `base` on; row pointers count from `rpt_base` (the same
// unless the arrays hold one block of an iterate streamed to the host: base 0, rpt_base the
// entries of the blocks before).
template <class T, int TEAM>
__global__ void prune_compact_kernel(
    index_t m, index_t r0, offset_t rpt_base, offset_t base, const offset_t* __restrict__ rpt,
    const index_t* __restrict__ col, const double* __restrict__ val,
    const row_stat* __restrict__ st, const row_decision* __restrict__ dec,
    const offset_t* __restrict__ offs, offset_t* __restrict__ out_rpt,
    index_t* __restrict__ out_col, T* __restrict__ out_val) {
  const long long row = team_row<TEAM>();
  if (row >= m) return;
  const offset_t out = base + offs[row];
  const bool leader = team_lane<TEAM>() == 0;
  if (leader) out_rpt[r0 + row + 1] = rpt_base + offs[row + 1];
  if (st[row].pcase == case_emergency) {
    // mcl's emergency measure (only with -R 0): nothing survived, the column gets a loop.
    if (leader) {
      out_col[out] = static_cast<index_t>(r0 + row);
      out_val[out] = T(1);
    }
    return;
  }
  const row_decision d = dec[row];
  // The row's order is kept (dense expansions are sorted, and the next iterate stays so).
  team_compact<TEAM>(
      rpt[row], rpt[row + 1], out, [&](offset_t k) { return cell<T>(val[k]) >= d.bar; },
      [&](offset_t k, offset_t at) {
        const double v = cell<T>(val[k]);
        out_col[at] = col[k];
        out_val[at] = static_cast<T>(d.mass != 0 ? v / d.mass : v);
      });
}

// ---- the fused expansion's rows, laid out as the next iterate (a warp a row) -----------------
// base and rpt_base as for prune_compact_kernel.
template <class T>
__global__ void gather_rows_kernel(index_t m, index_t r0, offset_t rpt_base, offset_t base,
                                   const offset_t* __restrict__ offs,
                                   const offset_t* __restrict__ from,
                                   const index_t* __restrict__ in_col, const T* __restrict__ in_val,
                                   offset_t* __restrict__ out_rpt, index_t* __restrict__ out_col,
                                   T* __restrict__ out_val) {
  const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / warp_size;
  const int lane = threadIdx.x % warp_size;
  if (row >= m) return;
  const offset_t to = base + offs[row], n = offs[row + 1] - offs[row], src = from[row];
  if (lane == 0) out_rpt[r0 + row + 1] = rpt_base + offs[row + 1];
  for (offset_t k = lane; k < n; k += warp_size) {
    out_col[to + k] = in_col[src + k];
    out_val[to + k] = in_val[src + k];
  }
}

// ---- inflation: powers (stored in T, as mcl stores them) then renormalisation ----------------
template <class T>
__global__ void inflate_kernel(index_t n, const offset_t* __restrict__ rpt, T* __restrict__ val,
                               double power) {
  const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / warp_size;
  const int lane = threadIdx.x % warp_size;
  if (row >= n) return;
  const offset_t b = rpt[row], e = rpt[row + 1];
  double s = 0;
  // Each lane revisits only its own entries in the second pass: no cross-lane hazard.
  for (offset_t k = b + lane; k < e; k += warp_size) {
    const double v = static_cast<double>(val[k]);
    const T p = static_cast<T>(power == 2.0 ? v * v : pow(v, power));
    val[k] = p;
    s += static_cast<double>(p);
  }
  s = detail::warp_sum(s);
  if (s > 0)
    for (offset_t k = b + lane; k < e; k += warp_size)
      val[k] = static_cast<T>(static_cast<double>(val[k]) / s);
}

}  // namespace
}  // namespace opsparse::mcl
