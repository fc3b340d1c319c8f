#pragma once
// The GPU engine's tuning and the paper's ablation switches (spgemm_options::tuning): every
// optimisation of the paper, and each beyond it, can be switched off at run time for the
// ablation benchmark (bench/opsparse_bench.cu's variants). The defaults are the measured best;
// the measurements are in docs/experiments/2026-11-21-spgemm-<note>.md and docs/tuning.md.
#include "opsparse/types.hpp"

namespace opsparse {

/// spgemm_tuning::merge_equal_rows.
enum class row_merging { automatic, pairs, triples, runs, never };

namespace detail {

struct spgemm_tuning {
  // The paper's optimisations (§5; docs/benchmarks.md's ablation reproduces its figures).
  bool shared_binning = true;      ///< bin counting with shared-memory atomics (§5.1)
  bool single_access_hash = true;  ///< one atomicCAS per probe (§5.2); false: nsparse style
  double symbolic_range = 1.2;     ///< table size / largest row in bin, symbolic (Table 3)
  double numeric_range = 2.0;      ///< same, numeric (Table 4)
  bool overlap_allocation = true;  ///< issue allocations after launching kernels (§5.4)
  bool large_rows_first = true;    ///< launch the bins of the largest rows first (§5.5)
  int symbolic_row_lanes = 4;      ///< threads a row in bin 0, symbolic (2, 4 or 8; paper: 4)
  /// Same, numeric (paper: 8); 0: automatic, 4 where A's rows average under 3.5 nonzeros (8
  /// lanes would leave more than half idle) and 8 elsewhere (docs/experiments/
  /// 2026-11-29-spgemm-bin-zero-lanes.md).
  int numeric_row_lanes = 0;

  // Beyond the paper: each measured against its absence in docs/experiments/ (the note named).
  /// false: the paper's hash, key*107 mod size, which aliases columns a power of two apart; the
  /// default spreads blocks of 64 keys by Fibonacci hashing (device_ops.cuh; first-engine).
  bool paper_hash = false;
  /// A row filling at most a quarter of its bin's table hashes into a power-of-two part of it
  /// sized by the row: less to zero and condense (device_ops.cuh, row_slots; first-engine).
  bool row_sized_tables = true;
  /// Plan and C from the context's stream-ordered pool; false: cudaMalloc/cudaFree as the paper.
  bool pooled_memory = true;
  /// Rows too long for shared tables: a shared bitmap of B's columns and a dense accumulator
  /// when the bitmap fits; false: the paper's global hash tables (long-rows).
  bool dense_long_rows = true;
  /// Dense rows (and rows of C covering dense_row_fraction of its columns, at least
  /// dense_row_min_entries) accumulate in shared-memory windows of columns and come out sorted
  /// (window_kernels.cuh); false: a global dense array per block with L2 atomics (long-rows).
  bool dense_windows = true;
  double dense_row_fraction = 0.25;
  offset_t dense_row_min_entries = 4096;
  /// A long row below the dense fraction takes the windows while its row of C spans at most this
  /// many windows, past that the bitmap and the global accumulator: each window walks the whole
  /// row of A (webbase-1M's longest rows; long-rows).
  int sparse_row_max_windows = 8;
  /// Where B has rows longer than 16 but averages under 24, each warp's products are flattened
  /// across its lanes (product_loops.cuh, for_each_product; first-engine).
  bool flatten_products = true;
  /// Long rows of the shared numeric bins sorted by a CUB block radix sort, not bitonic
  /// (spgemm_kernels.cuh, radix_sort_store); since bucket_order, only rows it cannot take.
  bool radix_sort_rows = true;
  /// A row whose columns span a range whose bitmap fits the table's free slots comes out in
  /// order by rank in that bitmap, without a sort (spgemm_kernels.cuh, bitmap_order_store;
  /// row-ordering).
  bool span_bitmap_order = true;
  /// Other rows of 128 entries or more come out in order by buckets over their span, filled in
  /// the table's free memory (spgemm_kernels.cuh, bucket_order_store; row-ordering).
  bool bucket_order = true;
  /// Neighbouring nonzeros of A whose B rows are equal (FEM node blocks) hashed as one: pairs,
  /// triples or runs, chosen row by row when `automatic` (product_loops.cuh, merge_vote;
  /// merging-equal-rows); the others force one way in both phases (the ablation).
  row_merging merge_equal_rows = row_merging::automatic;
  double merge_numeric_share = 0.75;  ///< automatic: least share of equal pairs or triples
  bool merge_triples = true;          ///< automatic: triples too (false: pairs only)
  bool merge_runs = true;             ///< automatic: runs too in the numeric phase
};

}  // namespace detail
}  // namespace opsparse
