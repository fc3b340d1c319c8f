#pragma once
// The plan's insides (host-compilable): one grow-only metadata allocation, grow-only hash pools,
// a pinned readback block, and what the numeric phase needs to run again on its own.
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <vector>

#include "opsparse/context.hpp"
#include "opsparse/detail/dispatch/launch_plan.hpp"
#include "opsparse/detail/util/operands.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/plan.hpp"
#include "opsparse/policy.hpp"

namespace opsparse::detail {

struct plan_state {
  device_buffer<unsigned char> meta;      ///< counters | bins[M] | CUB scan scratch, one allocation
  device_buffer<unsigned char> sym_pool;  ///< global hash tables of the symbolic phase
  device_buffer<unsigned char> num_pool;  ///< global hash tables of the numeric phase
  /// spgemm_reduce: counters and the list of long rows (one allocation), and the column bitmaps
  /// of mask rows too long for shared memory (kept all-zero between calls).
  device_buffer<unsigned char> reduce_meta;
  device_buffer<unsigned char> reduce_pool;
  bin_counters* h_counters = nullptr;  ///< pinned mirror (the context's staging)
  /// The longest row of B the product reads ([0]) and the longest row of A ([1]), written by the
  /// setup kernel, which runs before the metadata allocation exists (the context's device
  /// scratch), and their pinned mirror.
  unsigned long long* d_max_b_row = nullptr;
  unsigned long long* h_max_b_row = nullptr;
  std::int64_t allocations = 0;
  spgemm_stats stats;

  // Carved from `meta` for the current product.
  bin_counters* d_counters = nullptr;
  unsigned* d_block_rows = nullptr;  ///< each binning block's rows per bin (pass 1 for pass 2)
  index_t* d_bins = nullptr;
  void* d_scan_tmp = nullptr;
  std::size_t scan_bytes = 0;
  /// 1 when a row of B is not strictly increasing (window_rows_kernel reads it on the device).
  unsigned* d_b_unsorted = nullptr;

  // The numeric plan left by the last symbolic phase (for spgemm_numeric).
  bool numeric_ready = false;
  launch_plan launch;  ///< the last symbolic phase's launch plan
  std::array<unsigned long long, max_bins> num_rows{};
  unsigned long long num_max_row = 0;
  index_t rows = 0, cols = 0;
  offset_t a_nnz = 0, b_nnz = 0, c_nnz = 0;
  int win_blocks = 0;       ///< blocks of the rows in windows (one per SM)
  int num_pool_blocks = 0;  ///< blocks of the long rows' bin (dense accumulator or hash pool)
  long long num_pool_table = 0;

  /// Recorded after a binning step's counters reach pinned memory (read_bins waits for it alone,
  /// not for the fill and the scan queued behind it).
  cudaEvent_t counted = nullptr;
  std::array<cudaEvent_t, 6> timing{};
  /// With time_phases: recorded on each bin's stream after its kernels (symbolic, numeric).
  std::array<std::array<cudaEvent_t, max_bins>, 2> bin_done{};
  std::array<std::array<bool, max_bins>, 2> bin_ran{};

  plan_state();
  ~plan_state();
  /// Phase events are made only for the first product that asks for phase times.
  void ensure_timing_events();
  /// The `counted` event, made on first use.
  cudaEvent_t counted_event();
  /// Records phase `ph`'s (0 symbolic, 1 numeric) bin event on `s` when timing.
  void bin_finished(int ph, int bin, cudaStream_t s, bool timing_on);
  /// Each bin's end relative to `start` (ms; 0 where it did not run). Call once all ended.
  std::vector<float> bin_end_ms(int ph, cudaEvent_t start) const;
  /// Grows the pool to `bytes` (counted as a metadata allocation).
  void reserve_pool(device_buffer<unsigned char>& pool, std::size_t bytes, const pool_ref& from);
};

}  // namespace opsparse::detail
