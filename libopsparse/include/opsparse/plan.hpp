#pragma once
// The persistent plan (the paper's metadata, one grow-only allocation): the bins array, bin sizes
// and offsets, the max-row and nnz counters, CUB's scan scratch, the global hash pools, and the
// pinned host mirror the binning readbacks go to. Build one before an app's loop and pass it to
// every product; once it has grown to the largest sizes, products allocate nothing for metadata.
#include <cstdint>
#include <memory>
#include <vector>

#include "opsparse/types.hpp"

namespace opsparse {

namespace detail {
struct plan_state;
}

/// What the last product did (for benchmarks, verbose output and tests).
struct spgemm_stats {
  offset_t products = 0;  ///< multiplications (sum of per-row products, mask bound applied)
  offset_t nnz = 0;       ///< nnz(C)
  offset_t max_row_products = 0;
  offset_t max_row_nnz = 0;
  offset_t max_a_row_nnz = 0;  ///< the longest row of A (the numeric phase's merged loops need 32)
  std::vector<offset_t> symbolic_bin_rows;  ///< rows per symbolic bin
  std::vector<offset_t> numeric_bin_rows;   ///< rows per numeric bin
  /// Phase times in ms when spgemm_options::time_phases is set: setup, symbolic binning,
  /// symbolic, numeric binning + scan + allocation, numeric.
  float ms_setup = 0, ms_symbolic_binning = 0, ms_symbolic = 0, ms_numeric_binning = 0,
        ms_numeric = 0;
  /// With time_phases: for each bin, ms from the start of its phase (after the binning) until
  /// its last kernel ended on its stream; 0 where the bin had no rows. The bins run side by side,
  /// so the phase lasts as long as its latest bin (plus the join).
  std::vector<float> symbolic_bin_end_ms, numeric_bin_end_ms;
  /// With time_phases, after the numeric phase: rows that took spgemm_tuning::merge_equal_rows'
  /// merged product loop in each phase, in pairs, in triples and in runs.
  offset_t pair_rows_symbolic = 0, triple_rows_symbolic = 0, run_rows_symbolic = 0,
           pair_rows_numeric = 0, triple_rows_numeric = 0, run_rows_numeric = 0;
};

class plan {
 public:
  plan();
  ~plan();
  plan(plan&&) noexcept;
  plan& operator=(plan&&) noexcept;
  plan(const plan&) = delete;
  plan& operator=(const plan&) = delete;

  /// cudaMalloc calls made for metadata and hash pools over the plan's life.
  std::int64_t metadata_allocations() const noexcept;
  /// Bytes of device memory the plan holds now.
  std::size_t device_bytes() const noexcept;
  const spgemm_stats& stats() const noexcept;

  detail::plan_state& state() noexcept { return *state_; }

 private:
  std::unique_ptr<detail::plan_state> state_;
};

}  // namespace opsparse
