#pragma once
// Kernel configurations (the paper's Tables 5 and 6), derived from the device instead of
// hard-coded for the V100: shared memory per SM and per block (opt-in), the per-block
// reservation, and threads per SM. Plain data, printable, testable on the host.
#include <cstddef>
#include <string>
#include <vector>

#include "opsparse/device_info.hpp"
#include "opsparse/types.hpp"

namespace opsparse {

/// One bin: the rows whose size (products in the symbolic phase, nnz in the numeric phase) is
/// at most `range` go to this bin's kernel (unless an earlier bin takes them).
struct bin_config {
  int block_threads = 0;       ///< threads per block
  int threads_per_row = 0;     ///< > 0: several rows per block, this many threads each (bin 0)
  int table_size = 0;          ///< hash-table entries per row (0: global-memory table)
  bool pow2 = false;           ///< table size is a power of two (mask instead of modulo)
  std::size_t smem_bytes = 0;  ///< dynamic shared memory per block
  offset_t range = 0;          ///< largest row size assigned to this bin
  int blocks_per_sm = 0;       ///< theoretical resident blocks per SM (occupancy)
};

/// Threads per block of bin 0 (several rows a block, both phases). The paper's 1024 kept a block
/// of 128-256 rows resident until its slowest row was done: Nsight Compute on patents_main
/// (H100) measured 46% achieved occupancy of 100% theoretical in both bin-0 kernels. Smaller
/// blocks with the same table per row give the SM back sooner.
constexpr int multi_row_block_threads = 256;

struct phase_config {
  std::vector<bin_config> bins;  ///< last bin: global-memory hash table
  double range_factor = 1.0;     ///< table size / largest row size in the bin
  /// Symbolic only: a row of the largest shared bin whose nnz passes this many entries moves to
  /// the global-memory kernel (0.8 of that bin's table, as the paper sets it).
  int overflow_threshold = 0;
};

/// Lanes a row in bin 0 that the kernels are compiled for (threads_per_row).
bool valid_row_lanes(int lanes);
/// Derives the symbolic configuration for `dev` with the given range factor (paper: 1.2) and
/// `lanes` threads a row in bin 0 (paper: 4; 2, 4 or 8): fewer lanes, more rows a block and
/// smaller tables, the same shared memory.
phase_config symbolic_config(const device_info& dev, double range_factor = 1.2, int lanes = 4);
/// Derives the numeric configuration for values of `value_bytes` (0 for pattern; paper: 2.0),
/// `lanes` threads a row in bin 0 (paper: 8; 2, 4 or 8).
phase_config numeric_config(const device_info& dev, std::size_t value_bytes,
                            double range_factor = 2.0, int lanes = 8);

/// A device_info describing a V100 (96 KiB per SM and per block, no reservation, 2048 threads),
/// with which the derived tables reproduce the paper's Tables 5 and 6.
device_info v100_like();
/// A device_info describing an H100 SXM (228 KiB per SM, 227 KiB per block, 1 KiB reserved).
device_info h100_like();

/// A table of a phase configuration, one line per bin (for docs, --verbose and tests).
std::string describe(const phase_config& cfg, const char* phase);

}  // namespace opsparse
