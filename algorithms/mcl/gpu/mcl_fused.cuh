#pragma once
// MCL's expansion and pruning fused: each expanded row is accumulated in shared
// memory window by window (opsparse::visit_dense_rows) and pruned as mcl prunes it
// (mcl_prune.hpp) before it leaves the SM, so that the unpruned expansion, 99% dense on
// protein-similarity networks, is never written to device memory and needs no symbolic phase.
//
// Why a row can be pruned from a few of its entries. Whatever mcl's case, every kept entry is
// among the K = max(S, R) largest of the expanded row, ties at rank K included (see
// mcl_prune.hpp: selection keeps ranks <= S, recovery ranks <= R, the cutoff alone keeps at most
// S entries, and keep-all happens only for rows of at most R entries), except without selection
// (S = 0), where the cutoff may keep more: then everything at or above the cutoff is needed too.
// So each window passes on its entries at or above a bar tau (candidates, written in column
// order into the block's scratch in device memory, which stays in L2), and tau rises as the row
// goes: from a histogram of the candidates' values, to the lower edge of the bucket that holds
// rank K among them. Later windows only add entries, so the row's final rank-K value is at least
// that edge and no entry it needs is dropped. The row's measures (largest value, sum of squares,
// entries and mass at or above the cutoff, length) are summed over every entry as it passes.
// At the row's end the ranks mcl's case needs (S and/or R) are found exactly by a radix select
// over the candidates, the kept entries are renormalised and appended, in column order, to an
// output buffer; a gather then lays the rows out as the next iterate.
//
// Presence is read from the value (the visit keeps no presence bits): an expanded entry whose
// sum is exactly 0 does not exist here, where the stored expansion keeps it. Only a product
// with a cell that inflation rounded to 0 (a float below 1e-45, from a value below ~1e-23) makes
// one, and so does a product below 2^-61 (4e-19, the fixed-point sums' unit, see
// prune_epilogue); either changes only a row's length, never a kept value or a partition.
//
// A row whose candidates cannot be brought under the scratch's capacity (only with huge ties,
// or without any selection, recovery and cutoff) marks the block overflowed: the backend then
// computes that block unfused, so results never depend on the capacity.
#include <cuda_runtime.h>

#include <climits>
#include <type_traits>

#include "core/mcl_prune.hpp"
#include "opsparse/dense_rows.cuh"
#include "opsparse/detail/util/device_utils.cuh"

namespace opsparse::mcl::fused {

/// Histogram buckets: the top 11 bits of a non-negative float's bits (8 exponent bits, 3 of the
/// mantissa): monotone in the value, an eighth of an octave wide.
constexpr int hist_buckets = 2048;
constexpr int hist_shift = 20;
constexpr int block_threads = detail::dense_block;
constexpr int warps = block_threads / 32;

/// Flags the visit reports (fused_counters::flags).
enum : unsigned { overflow_candidates = 1u, overflow_output = 2u, overflow_parked = 4u };

/// Device counters of one fused expansion (one allocation, zeroed before the visit).
struct counters {
  unsigned long long out_cursor;     ///< entries requested in the output buffer (all rows)
  unsigned long long parked_cursor;  ///< entries requested in the parking buffer (staged)
  unsigned long long expanded;       ///< entries of the unpruned expansion (sum of row lengths)
  unsigned flags;
};

/// A row between the stages of a staged expansion, whose columns are visited one block per stage
/// (a distributed rank receives B a column block at a time): its candidates so far, parked in
/// device memory, its bar and its measures. Later stages only add entries, so the bar stays
/// valid and the measures add up.
struct parked_row {
  unsigned long long base;  ///< where its candidates start in the parking buffer
  int count;
  unsigned tau;
  int bad;
  int full, np;  ///< entries, and entries at or above the cutoff
  double max, ssq, mass;
};

__device__ __forceinline__ unsigned key32(double v) {
  return __float_as_uint(static_cast<float>(v));  // monotone for v >= 0
}
template <class T>
using key_t = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
template <class T>
__device__ __forceinline__ key_t<T> exact_key(T v) {
  if constexpr (sizeof(T) == 4)
    return __float_as_uint(v);
  else
    return static_cast<unsigned long long>(__double_as_longlong(v));
}
template <class T>
__device__ __forceinline__ T from_key(key_t<T> k) {
  if constexpr (sizeof(T) == 4)
    return __uint_as_float(k);
  else
    return __longlong_as_double(static_cast<long long>(k));
}

/// An expanded value as the iterate's cell type stores it (mcl rounds each double sum to float).
template <class T>
__device__ __forceinline__ double cell(double x) {
  return static_cast<double>(static_cast<T>(x));
}

template <class T>
struct prune_epilogue {
  // MCL's products are positive: a column is present when its sum is not 0, and the visit
  // keeps no presence bits (one shared atomic less for each of the row's entries: 551G of
  // them next to 1.26T products in the 1M-node dense network's second expansion).
  static constexpr bool presence_bits = false;
  // Sums in fixed point, units of 2^-60 (dense_rows.cuh): an expanded value of a stochastic
  // matrix lies in [0, 1] (each row's products sum to at most its own sum, 1), far inside the
  // +-8 that 60 fraction bits allow. A product loses at most 2^-61 (4e-19) to the rounding, so
  // a sum of 1,400 products is off by under 1e-15 in all: a float cell (6e-8 relative) tells
  // it from the exact sum only at a rounding boundary, as it does a double sum's error, for any
  // value above 1e-7 (the K largest of a dense row, which pruning keeps, are far above). Sums are
  // exact in any order, so equal products give equal cells (ties stay ties) and the expansion
  // is deterministic. A shared double atomicAdd is a compare-and-swap loop on the H100: 3
  // rounds a warp for each 32 products, 29% of the kernel's stall samples at 100k nodes.
  static constexpr int fixed_point_bits = 60;
  prune_rule rule;
  long long rank_k;   ///< K = max(S, R)
  unsigned tau_cap;   ///< tau never rises above this key (the cutoff's when S == 0)
  int window_cols;    ///< the visit's window width (columns)
  index_t r0;         ///< global row of the block's local row 0
  int cap;            ///< candidates per thread block
  index_t* cand_col;  ///< cap entries per thread block (blockIdx.x)
  T* cand_val;
  index_t* out_col;  ///< the output buffer: kept entries, a row's contiguous, rows in any order
  T* out_val;
  unsigned long long out_cap;
  offset_t* row_base;   ///< per local row: where its kept entries start in the output buffer
  offset_t* row_count;  ///< per local row: how many
  double* chaos;        ///< per global row
  counters* cnt;
  // Staged visits only: the rows' state after the stages before (nullptr in the first stage)
  // and the room for it after this one (nullptr in the last, which prunes as a whole visit).
  const parked_row* resume = nullptr;
  const index_t* resume_col = nullptr;
  const T* resume_val = nullptr;
  parked_row* park = nullptr;
  index_t* park_col = nullptr;
  T* park_val = nullptr;
  unsigned long long park_cap = 0;

  struct shared_storage {
    unsigned hist[hist_buckets];
    int scan[warps + 1];
    double w_max[warps], w_ssq[warps], w_mass[warps];
    int w_full[warps], w_np[warps], w_emit[warps];
    int n_cand;
    unsigned tau;
    int bad;
    int found_bucket;
    int found_above;
    unsigned long long base;
  };

  // ---- block-wide helpers ---------------------------------------------------------------------
  /// Exclusive prefix sum of x over the block's threads in thread order; *total gets the sum.
  __device__ static int block_exclusive_sum(shared_storage& s, int x, int* total) {
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int incl = x;
    for (int o = 1; o < 32; o <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += y;
    }
    __syncthreads();  // an earlier call's readers are done with s.scan
    if (lane == 31) s.scan[w] = incl;
    __syncthreads();
    if (w == 0) {
      const int v = s.scan[lane];
      int wi = v;
      for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, wi, o);
        if (lane >= o) wi += y;
      }
      s.scan[lane] = wi - v;
      if (lane == 31) s.scan[warps] = wi;
    }
    __syncthreads();
    *total = s.scan[warps];
    return s.scan[w] + incl - x;
  }

  /// Over s.hist: the highest bucket b such that the buckets >= b hold at least k entries, and
  /// how many the buckets above b hold (s.found_bucket = -1 when all of them hold fewer than k).
  __device__ static void find_rank_bucket(shared_storage& s, long long k) {
    // thread t owns buckets 2047 - 2t and 2046 - 2t: thread order is descending bucket order
    const int hi = hist_buckets - 1 - 2 * static_cast<int>(threadIdx.x);
    const int c_hi = static_cast<int>(s.hist[hi]), c_lo = static_cast<int>(s.hist[hi - 1]);
    int total;
    const int above = block_exclusive_sum(s, c_hi + c_lo, &total);
    if (threadIdx.x == 0) s.found_bucket = -1;
    __syncthreads();
    if (above < k && k <= above + c_hi) {
      s.found_bucket = hi;
      s.found_above = above;
    } else if (above + c_hi < k && k <= above + c_hi + c_lo) {
      s.found_bucket = hi - 1;
      s.found_above = above + c_hi;
    }
    __syncthreads();
  }

  __device__ void zero_hist(shared_storage& s) const {
    for (int i = threadIdx.x; i < hist_buckets; i += block_threads) s.hist[i] = 0;
  }

  /// Keeps the candidates whose value passes keep(v), in order, in place; rebuilds s.hist from
  /// them when `rehist`. Returns how many remain.
  template <class Keep>
  __device__ int compact(shared_storage& s, index_t* col, T* val, int n, Keep keep,
                         bool rehist) const {
    if (rehist) zero_hist(s);
    int out = 0;
    for (int base = 0; base < n; base += block_threads) {
      const int i = base + static_cast<int>(threadIdx.x);
      index_t c = 0;
      T v = T(0);
      bool k = false;
      if (i < n) {
        c = col[i];
        v = val[i];
        k = keep(v);
      }
      int total;
      const int pos = out + block_exclusive_sum(s, k ? 1 : 0, &total);  // barriers: all have read
      if (k) {
        col[pos] = c;
        val[pos] = v;
        if (rehist) atomicAdd(&s.hist[key32(static_cast<double>(v)) >> hist_shift], 1u);
      }
      out += total;
      __syncthreads();  // this tile's writes land before the next tile is read
    }
    return out;
  }

  /// The exact k-th largest candidate value (1 <= k <= n), by radix select over its bits.
  __device__ T select(shared_storage& s, const T* val, int n, long long k) const {
    using K = key_t<T>;
    constexpr int bits = 8 * sizeof(K);
    K prefix = 0;
    int known = 0;  // leading bits fixed so far
    long long rest = k;
    while (known < bits) {
      const int dbits = bits - known >= 11 ? 11 : bits - known;
      const int shift = bits - known - dbits;
      __syncthreads();
      zero_hist(s);
      __syncthreads();
      for (int i = threadIdx.x; i < n; i += block_threads) {
        const K key = exact_key<T>(val[i]);
        if (known == 0 || (key >> (bits - known)) == prefix)
          atomicAdd(&s.hist[static_cast<int>((key >> shift) & ((K(1) << dbits) - 1))], 1u);
      }
      __syncthreads();
      find_rank_bucket(s, rest);
      const int d = s.found_bucket;  // exists: the prefix's entries number at least rest
      rest -= s.found_above;
      prefix = (prefix << dbits) | static_cast<K>(d);
      known += dbits;
    }
    return from_key<T>(prefix);
  }

  /// Candidates at or above bar and their mass (every thread gets them).
  __device__ void measure(shared_storage& s, const T* val, int n, double bar, long long& count,
                          double& mass) const {
    int c = 0;
    double m = 0;
    for (int i = threadIdx.x; i < n; i += block_threads) {
      const double v = static_cast<double>(val[i]);
      if (v >= bar) {
        ++c;
        m += v;
      }
    }
    c = detail::warp_sum(c);
    m = detail::warp_sum(m);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) {
      s.w_full[threadIdx.x >> 5] = c;
      s.w_mass[threadIdx.x >> 5] = m;
    }
    __syncthreads();
    c = 0;
    m = 0;
    for (int w = 0; w < warps; ++w) {
      c += s.w_full[w];
      m += s.w_mass[w];
    }
    count = c;
    mass = m;
    __syncthreads();
  }

  // ---- the epilogue -----------------------------------------------------------------------------
  __device__ void begin_row(shared_storage& s, index_t row) const {
    zero_hist(s);
    if (threadIdx.x < warps) {
      s.w_max[threadIdx.x] = 0;
      s.w_ssq[threadIdx.x] = 0;
      s.w_mass[threadIdx.x] = 0;
      s.w_full[threadIdx.x] = 0;
      s.w_np[threadIdx.x] = 0;
    }
    if (threadIdx.x == 0) {
      s.n_cand = 0;
      s.tau = 0;  // every value (>= 0) is a candidate until the row has K of them
      s.bad = 0;
    }
    if (resume) resume_row(s, row);
    // the kernel's barrier follows before the first window
  }

  /// The row's state parked by the stage before: candidates back in the block's scratch and
  /// histogram, measures in warp 0's slots.
  __device__ __noinline__ void resume_row(shared_storage& s, index_t row) const {
    const parked_row p = resume[row];
    __syncthreads();  // begin_row's zeros are written
    const bool fits = p.count <= cap - window_cols;
    if (threadIdx.x == 0) {
      s.w_max[0] = p.max;
      s.w_ssq[0] = p.ssq;
      s.w_mass[0] = p.mass;
      s.w_full[0] = p.full;
      s.w_np[0] = p.np;
      s.tau = p.tau;
      s.bad = p.bad || !fits;
      s.n_cand = p.bad || !fits ? 0 : p.count;
    }
    if (p.bad || !fits) return;
    index_t* cc = cand_col + static_cast<long long>(blockIdx.x) * cap;
    T* cv = cand_val + static_cast<long long>(blockIdx.x) * cap;
    for (int i = threadIdx.x; i < p.count; i += block_threads) {
      const T v = resume_val[p.base + i];
      cc[i] = resume_col[p.base + i];
      cv[i] = v;
      atomicAdd(&s.hist[key32(static_cast<double>(v)) >> hist_shift], 1u);
    }
  }

  /// The row's state at the end of a stage that is not the last: its candidates brought down
  /// to rank K's bucket and parked with its bar and measures.
  __device__ __noinline__ void park_row(shared_storage& s, index_t row, double mx, double ssq,
                                        double mass, long long full, long long np) const {
    index_t* cc = cand_col + static_cast<long long>(blockIdx.x) * cap;
    T* cv = cand_val + static_cast<long long>(blockIdx.x) * cap;
    if (!s.bad) raise_tau(s, cc, cv);
    __syncthreads();  // raise_tau's last word on s.bad
    const int n = s.bad ? 0 : s.n_cand;
    if (threadIdx.x == 0) {
      unsigned long long base = atomicAdd(&cnt->parked_cursor, static_cast<unsigned long long>(n));
      if (base + n > park_cap) {
        atomicOr(&cnt->flags, overflow_parked);
        base = ULLONG_MAX;
      }
      s.base = base;
      park[row] =
          parked_row{base == ULLONG_MAX ? 0 : base, n,  s.tau, s.bad, static_cast<int>(full),
                     static_cast<int>(np),          mx, ssq,   mass};
    }
    __syncthreads();
    const unsigned long long base = s.base;
    if (base != ULLONG_MAX)
      for (int i = threadIdx.x; i < n; i += block_threads) {
        park_col[base + i] = cc[i];
        park_val[base + i] = cv[i];
      }
    __syncthreads();
  }

  __device__ void window(shared_storage& s, index_t, index_t w0, int width, const double* vals,
                         const unsigned* bits) const {
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int chunks = (width + 31) / 32;
    const int per_warp = (chunks + warps - 1) / warps;
    const int c0 = w * per_warp, c1 = min(chunks, c0 + per_warp);
    const unsigned tau = s.tau;
    const double cutoff = rule.cutoff;
    double mx = 0, ssq = 0, mass = 0;
    int full = 0, np = 0, emit = 0;
    // pass 1: the measures, and how many candidates this warp's columns give
    for (int c = c0; c < c1; ++c) {
      const double raw = vals[c * 32 + lane];
      const bool present = raw != 0.0;  // columns beyond the window's width hold 0 as well
      bool e = false;
      if (present) {
        const double v = cell<T>(raw);
        mx = fmax(mx, v);
        ssq += v * v;
        ++full;
        if (v >= cutoff) {
          ++np;
          mass += v;
        }
        e = key32(v) >= tau;
      }
      emit += __popc(__ballot_sync(0xffffffffu, e));
    }
    mx = detail::warp_reduce(mx, detail::max_op{});
    ssq = detail::warp_sum(ssq);
    mass = detail::warp_sum(mass);
    full = detail::warp_sum(full);
    np = detail::warp_sum(np);
    if (lane == 0) {
      s.w_max[w] = fmax(s.w_max[w], mx);
      s.w_ssq[w] += ssq;
      s.w_mass[w] += mass;
      s.w_full[w] += full;
      s.w_np[w] += np;
      s.w_emit[w] = emit;
    }
    __syncthreads();
    int before = 0, total = 0;
    for (int i = 0; i < warps; ++i) {
      const int x = s.w_emit[i];
      if (i < w) before += x;
      total += x;
    }
    if (total == 0) return;
    const int n0 = s.n_cand;
    if (s.bad || n0 + total > cap) {  // uniform: shared values read after the barrier
      __syncthreads();
      if (threadIdx.x == 0) s.bad = 1;
      return;
    }
    index_t* cc = cand_col + static_cast<long long>(blockIdx.x) * cap;
    T* cv = cand_val + static_cast<long long>(blockIdx.x) * cap;
    // pass 2: the candidates, in column order, and their histogram
    if (emit > 0) {
      int at = n0 + before;
      for (int c = c0; c < c1; ++c) {
        const double raw = vals[c * 32 + lane];
        double v = 0;
        bool e = false;
        if (raw != 0.0) {
          v = cell<T>(raw);
          e = key32(v) >= tau;
        }
        const unsigned ballot = __ballot_sync(0xffffffffu, e);
        if (e) {
          const int pos = at + __popc(ballot & ((1u << lane) - 1u));
          cc[pos] = w0 + c * 32 + lane;
          cv[pos] = static_cast<T>(v);
          atomicAdd(&s.hist[key32(v) >> hist_shift], 1u);
        }
        at += __popc(ballot);
      }
    }
    __syncthreads();  // every thread has read s.n_cand; the histogram is complete
    if (threadIdx.x == 0) s.n_cand = n0 + total;
    __syncthreads();
    if (s.n_cand > cap - window_cols) raise_tau(s, cc, cv);
  }

  /// Raises tau to the lower edge of the bucket that holds rank K among the candidates (or to
  /// tau_cap) and drops the candidates below it; marks the row bad when that frees too little.
  __device__ __noinline__ void raise_tau(shared_storage& s, index_t* cc, T* cv) const {
    find_rank_bucket(s, rank_k);
    unsigned next =
        s.found_bucket < 0 ? s.tau : static_cast<unsigned>(s.found_bucket) << hist_shift;
    if (rank_k == 0) next = tau_cap;  // nothing is ranked: only the cutoff bounds the row
    if (next > tau_cap) next = tau_cap;
    if (next > s.tau) {
      const int kept = compact(
          s, cc, cv, s.n_cand, [next](T v) { return key32(static_cast<double>(v)) >= next; }, true);
      __syncthreads();
      if (threadIdx.x == 0) {
        s.n_cand = kept;
        s.tau = next;
      }
      __syncthreads();
    }
    if (s.n_cand > cap - window_cols) {
      __syncthreads();
      if (threadIdx.x == 0) s.bad = 1;
    }
  }

  __device__ __noinline__ void end_row(shared_storage& s, index_t row) const {
    // the row's measures, over the warps' partial ones
    double mx = 0, ssq = 0, mass_prune = 0;
    long long full = 0, np = 0;
    for (int i = 0; i < warps; ++i) {
      mx = fmax(mx, s.w_max[i]);
      ssq += s.w_ssq[i];
      mass_prune += s.w_mass[i];
      full += s.w_full[i];
      np += s.w_np[i];
    }
    if (park) {
      park_row(s, row, mx, ssq, mass_prune, full, np);
      return;
    }
    const int n = s.n_cand;
    const bool bad = s.bad != 0;
    index_t* cc = cand_col + static_cast<long long>(blockIdx.x) * cap;
    T* cv = cand_val + static_cast<long long>(blockIdx.x) * cap;
    if (threadIdx.x == 0) atomicAdd(&cnt->expanded, static_cast<unsigned long long>(full));
    if (bad) {
      if (threadIdx.x == 0) {
        atomicOr(&cnt->flags, overflow_candidates);
        row_count[row] = 0;
        row_base[row] = 0;
      }
      __syncthreads();
      return;
    }
    const int pcase = prune_case_of(rule, full, np, mass_prune);
    const prune_decision d = decide(
        rule, pcase, np, mass_prune,
        [&](long long k) { return static_cast<double>(select(s, cv, n, k)); },
        [&](double at_least, long long& count, double& mass) {
          measure(s, cv, n, at_least, count, mass);
        });
    const double bar = d.bar, mass = d.mass;
    const long long count = d.count;
    if (threadIdx.x == 0) {
      chaos[r0 + row] = (mx - ssq) * static_cast<double>(count);
      const unsigned long long base =
          atomicAdd(&cnt->out_cursor, static_cast<unsigned long long>(count));
      s.base = base;
      row_count[row] = count;
      row_base[row] = static_cast<offset_t>(base);
      if (base + count > out_cap) {
        atomicOr(&cnt->flags, overflow_output);
        s.base = ULLONG_MAX;
      }
    }
    __syncthreads();
    const unsigned long long base = s.base;
    if (base != ULLONG_MAX) {
      if (pcase == case_emergency) {
        // mcl's emergency measure (only with -R 0): nothing survived, the column gets a loop.
        if (threadIdx.x == 0) {
          out_col[base] = r0 + row;
          out_val[base] = T(1);
        }
      } else {
        // the kept candidates, renormalised, in column order
        unsigned long long at = base;
        for (int t0 = 0; t0 < n; t0 += block_threads) {
          const int i = t0 + static_cast<int>(threadIdx.x);
          const double v = i < n ? static_cast<double>(cv[i]) : -2.0;
          const bool k = i < n && v >= bar;
          int total;
          const int pos = block_exclusive_sum(s, k ? 1 : 0, &total);
          if (k && pos < count - static_cast<long long>(at - base)) {  // never past the row's room
            out_col[at + pos] = cc[i];
            out_val[at + pos] = static_cast<T>(mass != 0 ? v / mass : v);
          }
          at += static_cast<unsigned long long>(total);
        }
      }
    }
    __syncthreads();
  }
};

}  // namespace opsparse::mcl::fused
