#pragma once
// What one product's launches read, decided once (launch_plan.cuh, plan_launches) from the
// options, the device and the operands' shapes, and completed from the operands' longest rows
// once the setup kernel has measured them (plan_groups). The drivers read the plan, not the
// options; the plan keeps it for a numeric phase run again on its own. Host-compilable.
#include <cstddef>

#include "opsparse/detail/util/operands.hpp"
#include "opsparse/policy.hpp"

namespace opsparse::detail {

struct launch_plan {
  // From the options and the device.
  phase_config sym;                ///< the symbolic bins (policy.hpp)
  phase_config num;                ///< the numeric bins
  hash_policy sym_hash;            ///< the symbolic kernels' tables (phase_policy)
  hash_policy num_hash;            ///< the numeric kernels' tables
  bool shared_binning = true;      ///< bin counts in shared memory first
  bool large_rows_first = true;    ///< launch order of the bins
  bool overlap_allocation = true;  ///< allocations issued after a kernel, not before
  bool sorted = true;              ///< C's rows in column order
  bool time_phases = false;        ///< phase events and merged-row counters
  int radix_key_bits = 0;          ///< > 0: long numeric rows radix-sorted on these key bits
  bool flatten = true;             ///< spgemm_tuning::flatten_products

  // From the operands' shapes.
  bin_grid binning;             ///< the binning passes' blocks and their rows (A's rows)
  int setup_lanes_log2 = 2;     ///< lanes a row of the setup kernel: A's mean row, 4 to 32
  bin_ranges sym_ranges{};      ///< rows per symbolic bin (products)
  long long dense_words = 0;    ///< B's columns as a shared-memory bitmap: its 32-bit words
  std::size_t dense_bytes = 0;  ///< its shared memory with the kernels' own
  bool dense = false;           ///< the dense kernels take the rows past the shared tables
  offset_t dense_products = 0;  ///< symbolic: rows of this many products go straight to them
  bool windows = false;         ///< dense rows of C accumulate in shared-memory windows
  int window_columns = 0;       ///< columns a window
  bin_ranges num_ranges{};      ///< rows per numeric bin (entries), windows' bins included
  bool split = false;           ///< long sparse rows in a bin of their own before the windows'

  // From the operands' longest rows (the setup kernel's readback).
  int glog = 5;                  ///< log2 of the lanes sharing a nonzero of A; flat_glog: flattened
  bool merge_vote_rows = false;  ///< a row of A long enough to vote on merging (merge_min_row)
  bool merge = false;            ///< numeric block kernels compiled with the merged loops

  /// The numeric bins: the shared ones, the long rows' one and, with `split`, the windows'.
  int num_bins() const { return num_ranges.n; }
  /// The numeric bin of the rows in windows (-1: none).
  int window_bin() const { return windows ? num_ranges.n - 1 : -1; }
  /// The numeric bin of the long rows that take the dense accumulator or the global hash pool.
  int long_bin() const { return static_cast<int>(num.bins.size()) - 1; }
};

}  // namespace opsparse::detail
