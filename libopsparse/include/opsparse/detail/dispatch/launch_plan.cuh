#pragma once
// The product's dispatch, decided once: plan_launches turns the options, the device and the
// operands' shapes into the launch plan (launch_plan.hpp) that the drivers (spgemm_impl.cuh)
// and the kernels read; plan_groups completes it from the operands' longest rows.
#include <algorithm>
#include <cmath>

#include "opsparse/context.hpp"
#include "opsparse/detail/block/product_loops.cuh"
#include "opsparse/detail/dispatch/launch_plan.hpp"
#include "opsparse/detail/kernels/spgemm_kernels.cuh"
#include "opsparse/detail/kernels/window_kernels.cuh"
#include "opsparse/spgemm.hpp"

namespace opsparse::detail {

inline unsigned long long next_pow2(unsigned long long x) {
  unsigned long long p = 1;
  while (p < x) p <<= 1;
  return p;
}

inline int ceil_log2(long long x) {
  int l = 0;
  while ((1LL << l) < x) ++l;
  return l;
}

/// Threads that share one nonzero of A walk B's row together. nsparse and the paper use a warp;
/// when every row of B that the product reads is short, a group as long as the longest of them
/// (a power of two, at least 2) keeps lanes busy. A few long rows among short ones (web graphs'
/// hubs) need the whole warp: 4 lanes walking a 2,350-entry hub row left every other group of
/// the block idle (measured on the webbase-1M stand-in).
inline int group_log2(unsigned long long longest_b_row) {
  return std::min(
      5, std::max(
             1, ceil_log2(static_cast<long long>(std::max<unsigned long long>(1, longest_b_row)))));
}

inline bin_ranges ranges_of(const phase_config& cfg, int shared_bins) {
  bin_ranges rg{};
  rg.n = shared_bins + 1;  // the last counted bin takes everything above
  for (int i = 0; i < rg.n; ++i) rg.r[i] = cfg.bins[i].range;
  return rg;
}

/// With time_phases, the rows that merged (spgemm_tuning::merge_equal_rows): [0] in pairs, [1]
/// in triples and [2] in runs in the symbolic phase, [3] to [5] in the numeric phase, in the
/// context's scratch after the longest-B-row and longest-A-row words (launch.hpp). setup_step
/// clears them, numeric() reads them into spgemm_stats.
constexpr int merged_row_counter_words = 6;
inline unsigned long long* merged_row_counters(context& ctx) {
  return static_cast<unsigned long long*>(ctx.scratch()) + 2;
}

/// The hash policy of a phase (0 symbolic, 1 numeric) from the options, with time_phases its
/// counters of merged rows. Automatic merging: the symbolic phase merges every row in triples,
/// the numeric phase votes row by row, triples where 8 of 10 are equal and they save 1.5 times
/// what pairs save, runs where they save at least as much
/// (docs/experiments/2026-11-21-spgemm-merging-equal-rows.md has the measurements).
constexpr int numeric_triples = 150;
constexpr int numeric_runs = 100;
inline hash_policy phase_policy(context& ctx, const spgemm_options& opt, int phase) {
  hash_policy hp{opt.tuning.single_access_hash, opt.tuning.paper_hash, opt.tuning.row_sized_tables,
                 opt.tuning.span_bitmap_order, opt.tuning.bucket_order};
  const row_merging m = opt.tuning.merge_equal_rows;
  const bool vote = m == row_merging::automatic && phase == 1;
  const int percent = static_cast<int>(std::ceil(100.0 * opt.tuning.merge_numeric_share));
  hp.merge = m == row_merging::never ? -1 : vote ? std::clamp(percent, 1, 100) : 0;
  hp.width = m == row_merging::runs ? 4
             : m == row_merging::pairs || (m == row_merging::automatic && !opt.tuning.merge_triples)
                 ? 2
                 : 3;
  hp.triples = opt.tuning.merge_triples ? numeric_triples : 0;
  hp.runs = opt.tuning.merge_runs ? numeric_runs : 0;
  if (opt.time_phases) hp.merged_rows = merged_row_counters(ctx) + 3 * phase;
  return hp;
}

/// Columns per window of the engine's window kernel (window_rows_kernel with window_writer).
template <class T>
int engine_window_columns(const device_info& dev, index_t cols) {
  return window_columns(
      dev.smem_per_block_optin, has_values_v<T> ? sizeof(T) : 0, cols,
      sizeof(typename window_writer<T>::shared_storage) + window_static_smem_bytes());
}

/// The options that a numeric phase run on its own takes anew (its hashing, order and sort);
/// the bins stay those of the symbolic phase that sized C.
inline void plan_numeric_options(launch_plan& lp, context& ctx, const spgemm_options& opt,
                                 index_t cols) {
  lp.num_hash = phase_policy(ctx, opt, 1);
  lp.large_rows_first = opt.tuning.large_rows_first;
  lp.sorted = opt.sorted;
  lp.time_phases = opt.time_phases;
  lp.radix_key_bits = opt.tuning.radix_sort_rows ? std::max(1, ceil_log2(cols)) : 0;
  lp.merge = lp.glog < flat_glog &&
             (lp.num_hash.merge == 0 || (lp.num_hash.merge > 0 && lp.merge_vote_rows));
}

/// Lanes a row in the numeric phase's bin 0: `asked`, or when 0, 4 where A's rows average under
/// 3.5 nonzeros and 8 elsewhere.
inline int numeric_row_lanes(int asked, index_t a_rows, offset_t a_nnz) {
  if (asked) return asked;
  return 2 * a_nnz < 7 * static_cast<offset_t>(a_rows) ? 4 : 8;
}

/// The launch plan of C = A·B (values of T) from the options, the device and the shapes.
template <class T>
launch_plan plan_launches(context& ctx, const spgemm_options& opt, index_t a_rows, offset_t a_nnz,
                          index_t b_cols) {
  const device_info& dev = ctx.device();
  const std::size_t value_bytes = has_values_v<T> ? sizeof(T) : 0;
  launch_plan lp;
  lp.sym = symbolic_config(dev, opt.tuning.symbolic_range, opt.tuning.symbolic_row_lanes);
  lp.num = numeric_config(dev, value_bytes, opt.tuning.numeric_range,
                          numeric_row_lanes(opt.tuning.numeric_row_lanes, a_rows, a_nnz));
  lp.sym_hash = phase_policy(ctx, opt, 0);
  lp.shared_binning = opt.tuning.shared_binning;
  lp.overlap_allocation = opt.tuning.overlap_allocation;
  lp.flatten = opt.tuning.flatten_products;
  lp.binning = make_bin_grid(a_rows, dev.sm_count, dev.max_threads_per_sm);
  plan_numeric_options(lp, ctx, opt, b_cols);

  // lanes a row of the setup kernel: A's average row rounded up to a power of two, 4 to 32
  const long long avg = a_rows > 0 ? (static_cast<long long>(a_nnz) + a_rows - 1) / a_rows : 1;
  lp.setup_lanes_log2 = std::min(5, std::max(2, ceil_log2(std::max(1ll, avg))));
  const int sym_shared = static_cast<int>(lp.sym.bins.size()) - 1;  // bins 0-7 in shared memory
  lp.sym_ranges = ranges_of(lp.sym, sym_shared - 1);

  // Rows past the shared tables: B's columns as a bitmap when it fits, else global hash tables.
  lp.dense_words = (static_cast<long long>(b_cols) + 31) / 32;
  lp.dense_bytes = dense_smem_bytes(lp.dense_words);
  lp.dense = opt.tuning.dense_long_rows && dense_columns_fit(dev.smem_per_block_optin, b_cols);
  lp.windows = lp.dense && opt.tuning.dense_windows;
  // rows of at least twice B's columns in products go straight to the dense kernel
  lp.dense_products = lp.windows ? 2 * static_cast<offset_t>(b_cols) : 0;

  // Rows whose output covers at least dense_row_fraction of C's columns go to the windows (a
  // hash table would hold nearly every column anyway); the long rows below the fraction of a
  // wide C get a bin of their own (the dense accumulator), the dense ones the next (windows).
  const int num_shared = static_cast<int>(lp.num.bins.size()) - 1;
  lp.num_ranges = ranges_of(lp.num, num_shared);
  if (lp.windows) lp.window_columns = engine_window_columns<T>(dev, b_cols);
  if (lp.windows && opt.tuning.dense_row_fraction > 0) {
    const offset_t at_least = std::max<offset_t>(
        opt.tuning.dense_row_min_entries,
        static_cast<offset_t>(opt.tuning.dense_row_fraction * static_cast<double>(b_cols)));
    for (int i = 0; i < num_shared; ++i)
      lp.num_ranges.r[i] = std::min(lp.num_ranges.r[i], at_least);
    const long long window = lp.window_columns;
    lp.split = (static_cast<long long>(b_cols) + window - 1) / window >
                   opt.tuning.sparse_row_max_windows &&
               at_least > lp.num_ranges.r[num_shared - 1];
    if (lp.split) {
      lp.num_ranges.r[num_shared] = at_least;
      lp.num_ranges.n = num_shared + 2;
    }
  }
  return lp;
}

/// Completes the plan from the setup kernel's readback: the group of lanes sharing a nonzero of
/// A (group_log2; flattened where B's rows are mostly short but some pass a warp) and whether
/// the numeric block kernels need the merged loops (a row of A long enough to vote).
inline void plan_groups(launch_plan& lp, unsigned long long longest_b_row, offset_t longest_a_row,
                        index_t b_rows, offset_t b_nnz) {
  lp.glog = group_log2(longest_b_row);
  if (lp.flatten && lp.glog == 5 && b_rows > 0 && b_nnz < 24 * static_cast<offset_t>(b_rows))
    lp.glog = flat_glog;
  lp.merge_vote_rows = longest_a_row >= merge_min_row;
  lp.merge = lp.glog < flat_glog &&
             (lp.num_hash.merge == 0 || (lp.num_hash.merge > 0 && lp.merge_vote_rows));
}

}  // namespace opsparse::detail
