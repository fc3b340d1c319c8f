#pragma once
// The GPU engine: C = A·B (C<M> = A·B, C<¬M> = A·B) over a semiring, as OpSparse computes it:
// setup (products per row into C.rpt), symbolic binning, symbolic hashing per bin, numeric
// binning + in-place scan of C.rpt + allocation of C, numeric hashing/condensing/sorting per bin.
// Work is queued on ctx's streams; C is complete once ctx.stream() has been synchronised (the
// call itself blocks only for the two small binning readbacks).
//
// Compiles with the host compiler; the templates are instantiated for the combinations listed in
// libopsparse/src/spgemm_*.cu (others fail to link: add a line there).
#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/mask.hpp"
#include "opsparse/plan.hpp"
#include "opsparse/semiring.hpp"

namespace opsparse {

/// spgemm_options::merge_equal_rows.
enum class row_merging { automatic, pairs, triples, runs, never };

/// Every optimisation of the paper can be switched off at run time, for the ablation benchmark.
struct spgemm_options {
  bool sorted = true;              ///< sort each output row by column (false saves the sort)
  bool shared_binning = true;      ///< bin counting with shared-memory atomics (paper §5.1)
  bool single_access_hash = true;  ///< one atomicCAS per probe (paper §5.2); false: nsparse style
  /// The paper's hash, key*107 mod table size; false (default): 107 slots apart inside each
  /// block of 64 keys, blocks placed by Fibonacci hashing, which does not alias columns a power
  /// of two (or a near-multiple of the table) apart (beyond the paper; device_ops.cuh).
  bool paper_hash = false;
  /// A row that would fill at most a quarter of its bin's table hashes into a power-of-two part
  /// of it, twice its nnz (symbolic bin 0: twice its products; the other symbolic bins keep
  /// their whole tables, whose rows' products rarely bound their nnz that tightly), instead of
  /// the whole table sized for the bin's largest row: less to zero and condense (beyond the
  /// paper; device_ops.cuh, row_slots).
  bool row_sized_tables = true;
  double symbolic_range = 1.2;  ///< table size / largest row in bin, symbolic (paper Table 3)
  double numeric_range = 2.0;   ///< same, numeric (paper Table 4)
  /// Numeric bin 0's own factor (8 threads a row, 32 rows a block); 0: numeric_range. On the H100
  /// bin 0's table holds 73 entries in double: rows of up to 37 at 2.0, 59 at 1.25, 73 at 1.0.
  /// Paper suite, one process against 2.0 (variants `bin0-range-1.0`, `bin0-range-1.25`,
  /// `bin0-range-1.5`): 1.042, 1.005, 1.005 end to end (geomean). Only majorbasis (rows of about
  /// 50 entries) gains, 0.80 -> 0.60 ms at 1.25 or 1.0; mac_econ_fwd500, patents_main, scircuit
  /// and rma10 lose 20-24% at 1.0, their rows' fuller tables probing more.
  double numeric_multi_row_range = 0.0;
  /// A numeric bin after bin 0 of 16 threads a row and 16 rows a block (tables of 146 entries
  /// in double on the H100: rows of 38 to 73 entries at factor 2), in place of one row per
  /// block of 64 threads for those rows (policy.hpp, numeric_config's mid_bin; variant
  /// `mid-bin`). H100, against the default in one process: majorbasis (rows of about 50, products
  /// compressed 2.4 times) 0.82-0.84 of the time; the paper suite 0.995-1.002; the classes
  /// merging node blocks 1.011-1.017 slower (rma10 1.05: rows of that size carry hundreds of
  /// products there, too many for 16 threads). Off until a rule picks it per product.
  bool numeric_mid_bin = false;
  bool overlap_allocation = true;  ///< issue allocations after launching kernels (paper §5.4)
  /// Plan and C grow from the context's stream-ordered pool (context::memory()); false:
  /// cudaMalloc/cudaFree as the paper (beyond the paper).
  bool pooled_memory = true;
  bool large_rows_first = true;  ///< launch the bins of the largest rows first (paper §5.5)
  /// Rows too long for shared tables use a shared bitmap of B's columns and a dense accumulator
  /// when B's columns fit the bitmap (beyond the paper); false: the paper's global hash tables.
  bool dense_long_rows = true;
  /// Those dense rows, and every row whose output covers at least dense_row_fraction of C's
  /// columns (and at least dense_row_min_entries entries), accumulate in shared-memory windows
  /// of columns, one block per SM, and come out sorted with no sort (window_kernels.cuh,
  /// window_rows_kernel); false: a global dense array per block, updated with L2 atomics.
  /// Measured on MCL's expansion of a dense protein network (100k nodes, 99% dense rows, H100):
  /// the global array reached 23 G products/s.
  bool dense_windows = true;
  double dense_row_fraction = 0.25;
  offset_t dense_row_min_entries = 4096;
  /// A long row below dense_row_fraction takes the windows too while a row of C spans at most
  /// this many windows; past that it takes the bitmap and the global dense accumulator instead
  /// (its own bin, beside the windows' one). A window walks every nonzero of the row of A, so a
  /// long but sparse row of a wide C paid for each of its windows: webbase-1M's 214 longest
  /// rows (1M columns, 54 windows a row) took 4.3 ms in windows and about 1 ms this way.
  int sparse_row_max_windows = 8;
  /// When B has rows longer than 16 (groups would be a whole warp per nonzero of A) but its
  /// average row is shorter than 24, flatten each warp's products across its lanes instead
  /// (beyond the paper; product_loops.cuh, for_each_product). Measured on the paper suite: 15-19%
  /// faster on offshore and cop20k_A, but up to 1.65x slower on the FEM classes whose long rows
  /// already fill the warp, hence the average-row rule.
  bool flatten_products = true;
  /// Rows of the shared numeric bins longer than twice the block's threads are sorted with a
  /// block radix sort (CUB; 10 items a thread in the largest bin, compiled for 64 registers, 5
  /// in the others) instead of the bitonic sort (beyond the paper; kernels.cuh,
  /// radix_sort_store). Since bucket_order, only rows whose buckets overflow or lack room.
  bool radix_sort_rows = true;
  /// A row of the shared numeric bins (one row a block) whose columns span a range narrow
  /// enough for a bitmap of it to fit the table's free slots comes out in column order by each
  /// entry's rank in that bitmap, in place of the sort (beyond the paper; kernels.cuh,
  /// bitmap_order_store). `--variants unsorted` had shown the sort at 17-43% of the FEM classes'
  /// numeric phase. Measured on the H100's paper suite: cage15 -36%, cage12 -16%.
  bool span_bitmap_order = true;
  /// Other rows of the shared numeric bins of 128 entries or more (bucket_order_min_entries) come
  /// out in column order by bucketing: 2 buckets a thread over the row's span, counted, scanned and
  /// filled in the table's free memory, each entry placed by the smaller columns of its bucket
  /// (beyond the paper; kernels.cuh, bucket_order_store), in place of the radix sort, the bitonic
  /// sort or the rank against the whole row. A row whose buckets would hold more than 64 entries
  /// (clustered columns) or whose table lacks the room is sorted as before. Measured on the H100's
  /// paper suite against `no-bucket-order` in one process: 0.946 end to end (geomean), webbase-1M
  /// 5.72 -> 4.77 ms, wb-edu 74.4 -> 63.7, the FEM classes 0.89-0.91; rma10 1.037 in that
  /// call, 1.002 and 0.973 in two later ones (its spread).
  bool bucket_order = true;
  /// bucket_order: the fewest entries a row takes buckets from (values under 1 count as 1);
  /// shorter rows rank each entry against the whole row, about n^2/8 warp instructions (2k at
  /// 128). Lower thresholds measured no gain: H100, one process each, 64 (variant
  /// `bucket-min-64`) against 128, end to end (geomean) in two calls: paper suite 0.994 and
  /// 1.002, shared matrices 0.996 and 1.023, SNAP graphs squared 0.983 and 1.002; 32 (variant
  /// `bucket-min-32`) likewise.
  int bucket_order_min_entries = 128;
  /// The one-row-a-block kernels take A's nonzeros in neighbouring pairs or triples and hash
  /// their products as one where all their B rows hold the same column at the same position:
  /// the rows of a FEM node's unknowns are identical, so matrices of node blocks take a half
  /// (pairs) to a third (triples) of the hash probes and accumulations (beyond the paper;
  /// product_loops.cuh, for_each_merged). `automatic`: the symbolic phase takes every row in
  /// triples; in the numeric phase, row by row in rows of A of 32 entries or more, the block's
  /// first warp compares the B rows of the row's first 32 neighbouring nonzeros (equal length,
  /// first and last column) and takes pairs, or triples where they save 1.5 times as many hash
  /// operations, where at least merge_numeric_share of them are equal (product_loops.cuh,
  /// merge_vote; spgemm_impl.cuh, phase_policy, has the measurements), or runs: whole node
  /// blocks of any size, neighbouring nonzeros in consecutive columns whose B rows are equal
  /// (for_each_run), where they save at least as many. `pairs`, `triples`, `runs`: every row so
  /// in both phases (the ablation).
  row_merging merge_equal_rows = row_merging::automatic;
  double merge_numeric_share = 0.75;  ///< automatic: least share of equal pairs or triples
  bool merge_triples = true;          ///< automatic: triples too (false: pairs only)
  bool merge_runs = true;             ///< automatic: runs too in the numeric phase
  bool time_phases = false;           ///< record phase times into plan.stats() (adds syncs)
};

/// C = A·B in one call (symbolic then numeric).
template <class Semiring, class VA, class VB, class Mask = no_mask>
void spgemm(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
            device_csr<typename Semiring::value_type>& c, const Mask& mask = {},
            const spgemm_options& opt = {});

/// Symbolic phase alone: C's row pointers and capacity; records the numeric binning in `p`.
template <class Semiring, class VA, class VB, class Mask = no_mask>
void spgemm_symbolic(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
                     device_csr<typename Semiring::value_type>& c, const Mask& mask = {},
                     const spgemm_options& opt = {});

/// Numeric phase alone, reusing the plan of the last symbolic phase: A and B must have the
/// structure they had then (values may differ). Checked in debug builds.
template <class Semiring, class VA, class VB, class Mask = no_mask>
void spgemm_numeric(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
                    device_csr<typename Semiring::value_type>& c, const Mask& mask = {},
                    const spgemm_options& opt = {});

/// Whether the engine's paths for rows too long for shared hash tables (dense_long_rows,
/// dense_windows) are open to a product whose B has `cols` columns on ctx's device: they need a
/// bitmap of B's columns in one block's shared memory (about 1.8 million columns on an H100).
/// Past that such rows take global hash tables, many times slower where they are long and dense.
bool spgemm_dense_rows_fit(const context& ctx, index_t cols);

}  // namespace opsparse
