#pragma once
// The plain types that the kernels and their launchers share (host-compilable): a matrix's
// arrays as a kernel reads them, the bins' ranges and counters, the occupancy target.
#include "opsparse/types.hpp"

namespace opsparse::detail {

/// Register budget for full occupancy: T/B blocks of B threads (T = 2048 on V100, A100, H100).
constexpr int threads_per_sm_target = 2048;

/// A CSR matrix's arrays on the device, as the kernels take them.
template <class V>
struct dev_csr {
  const offset_t* rpt;
  const index_t* col;
  const V* val;
};

/// The largest row size of each bin, the last bin taking everything above.
struct bin_ranges {
  offset_t r[max_bins];
  int n;
};

/// Written by the binning kernels, read back into pinned memory in one copy.
struct bin_counters {
  unsigned long long rows[max_bins];    ///< rows per bin (pass 1)
  unsigned long long cursor[max_bins];  ///< fill cursors (pass 2 of the global-atomic ablation)
  unsigned long long max_row;           ///< largest row size
  unsigned long long total;             ///< sum of row sizes
};

/// The binning passes' grid: block k takes rows [k * chunk, (k + 1) * chunk), bin_rows_a_step
/// rows a thread at a time, and the grid is what the device holds at once, so that a block's
/// barriers, atomics and first loads are paid once a chunk rather than once every 1,024 rows
/// (docs/experiments/2026-11-29-spgemm-queued-bin-zero.md).
constexpr int bin_block_threads = 1024;
constexpr int bin_rows_a_step = 4;
struct bin_grid {
  int blocks = 0;
  long long chunk = 0;
};
/// The grid for M rows on `sms` multiprocessors of `threads_per_sm` threads each.
inline bin_grid make_bin_grid(long long m, int sms, int threads_per_sm) {
  if (m <= 0) return {};
  const long long step = static_cast<long long>(bin_block_threads) * bin_rows_a_step;
  const long long per_sm = threads_per_sm >= 2 * bin_block_threads ? 2 : 1;
  const long long resident = static_cast<long long>(sms > 0 ? sms : 1) * per_sm;
  const long long steps = (m + step - 1) / step;
  bin_grid g;
  g.chunk = (steps + resident - 1) / resident * step;
  g.blocks = static_cast<int>((m + g.chunk - 1) / g.chunk);
  return g;
}

/// How tables are probed (both switchable for the ablation benchmark).
///   single  one atomicCAS per probe, its returned value reused (paper Algorithms 4-5); false:
///           nsparse's read first, CAS only when the slot looks empty.
///   paper   the paper's hash, key*107 mod size.
/// The default keeps what makes the paper's hash good and removes what makes it fail. Good: keys
/// a few apart land 107 slots apart, so the lanes of a warp, which read neighbouring entries of a
/// B row, hit different banks and a run of consecutive columns never collides. Bad: keys that
/// differ by D collide when 107*D is close to a multiple of the size. A power-of-two table
/// aliases every multiple of its size: the columns c, c+-W, c+-2W of a grid of width 4096
/// (delaunay_n24) share a slot in every symbolic table up to 4096; and a grid whose row stride
/// 5W is 6 more than a multiple of a numeric table (hood's stand-in, 1050 = 2*522 + 6) overlaps
/// its runs of columns. Hence: each aligned block of 64 keys gets a pseudo-random offset
/// (Fibonacci hashing of key/64) and keys inside it step 107 slots apart; the sum, a 32-bit
/// fraction of the table, is scaled to a slot with one multiply-high (no modulo, any size).
/// Simulated on the stand-ins' rows (probes per insert, paper hash -> this): delaunay_n24's
/// symbolic table of 64 3.36 -> 1.25, hood's numeric tables 1.86 -> 1.04; banks no worse.
///   row_sized  a row hashes into the part of its bin's table that it can fill (row_slots;
///              read by the numeric kernels and symbolic bin 0's)
///   span_order  spgemm_tuning::span_bitmap_order (read by the numeric block kernels)
///   bucket_order  spgemm_tuning::bucket_order (read by the numeric block kernels)
///   bucket_min  the fewest entries a row takes buckets from (128; fewer measured no gain)
///   merge       spgemm_tuning::merge_equal_rows for the phase (read by the symbolic and numeric
///               block kernels): -1 never, 0 every row by `width` (2 or 3, 4: runs), 1-100 row by
///               row, the least share of equal pairs or triples in percent (merge_vote)
///   triples     automatic: triples where their saving exceeds `triples` percent of the pairs'
///               (0: pairs only; merge_vote)
///   runs        automatic: runs where their saving is at least `runs` percent of the chosen
///               width's (0: no runs; merge_vote)
///   merged_rows  where not null, the rows that merged in pairs ([0]), triples ([1]) and runs
///               ([2]) are counted here (spgemm_stats)
struct hash_policy {
  bool single = true;
  bool paper = false;
  bool row_sized = true;
  bool span_order = true;
  bool bucket_order = true;
  int bucket_min = 128;
  int merge = -1;
  int width = 2;
  int triples = 100;
  int runs = 0;
  unsigned long long* merged_rows = nullptr;
};

}  // namespace opsparse::detail
