// Kernel configurations derived from the device (paper §5.6, Tables 5 and 6).
//
// The paper's rule, applied to whatever the device offers instead of the V100's fixed 96 KiB:
// a kernel of B threads per block reaches full occupancy when T/B blocks are resident on an SM
// (T = threads per SM), so each block may use S/(T/B) - R bytes of shared memory (S = shared
// memory per SM, R = the runtime's per-block reservation, 1 KiB from sm_80 on). The largest
// shared-memory bin of each phase deliberately takes 50% occupancy (one 1024-thread block with
// the opt-in per-block maximum), so fewer rows fall to the global-memory table.
// With v100_like() these formulas give exactly the paper's tables (tests/unit/gpu checks it).
#include "opsparse/policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace opsparse {
namespace {

int floor_pow2(long long x) {
  int p = 1;
  while (2LL * p <= x) p *= 2;
  return p;
}

// Bytes one block may use when `blocks` blocks share an SM.
long long block_budget(const device_info& d, int blocks) {
  const long long per_sm = static_cast<long long>(d.smem_per_sm) / blocks -
                           static_cast<long long>(d.smem_reserved_per_block);
  return std::min(per_sm, static_cast<long long>(d.smem_per_block_optin));
}

offset_t range_of(int capacity, double factor) {
  return static_cast<offset_t>(std::floor(capacity / factor + 1e-9));
}

// A row may never have more distinct keys than its table has slots (probing would not end), and
// ranges must not decrease (every row has exactly one bin).
void clamp_ranges(phase_config& cfg) {
  for (std::size_t i = 0; i < cfg.bins.size(); ++i) {
    auto& b = cfg.bins[i];
    // (the overflow bin keeps its unbounded range: its rows move to the global table instead)
    if (b.table_size > 0 && b.range != std::numeric_limits<offset_t>::max())
      b.range = std::min<offset_t>(b.range, b.table_size);
    if (i > 0) b.range = std::max(b.range, cfg.bins[i - 1].range);
  }
}

// The global-memory table's bin: 1024 threads at full occupancy (`T` threads an SM), 8 bytes of
// shared memory, no upper bound on a row.
bin_config global_memory_bin(int T) {
  bin_config b;
  b.block_threads = 1024;
  b.blocks_per_sm = T / 1024;
  b.smem_bytes = 8;
  b.range = std::numeric_limits<offset_t>::max();
  return b;
}

}  // namespace

bool valid_row_lanes(int lanes) { return lanes == 2 || lanes == 4 || lanes == 8; }

phase_config symbolic_config(const device_info& d, double f, int lanes) {
  if (!valid_row_lanes(lanes))
    throw std::invalid_argument("bin 0 takes 2, 4 or 8 lanes a row, not " + std::to_string(lanes));
  phase_config cfg;
  cfg.range_factor = f;
  const int T = d.max_threads_per_sm > 0 ? d.max_threads_per_sm : 2048;
  // Bin 0: `lanes` threads per row, 256 / lanes rows per 256-thread block (paper: 4 threads,
  // table 32, 1024 threads a block).
  {
    bin_config b;
    b.block_threads = multi_row_block_threads;
    b.threads_per_row = lanes;
    const int rows = b.block_threads / b.threads_per_row;
    b.blocks_per_sm = T / b.block_threads;
    const long long per_row = block_budget(d, b.blocks_per_sm) / rows;
    b.table_size = floor_pow2((per_row - 4) / 4);
    b.pow2 = true;
    b.smem_bytes = static_cast<std::size_t>(rows) * (b.table_size * 4 + 4);
    b.range = range_of(b.table_size, f);
    cfg.bins.push_back(b);
  }
  // Bins 1-5: one row per block, 64..1024 threads, power-of-two tables at full occupancy.
  for (int bt = 64; bt <= 1024; bt *= 2) {
    bin_config b;
    b.block_threads = bt;
    b.blocks_per_sm = T / bt;
    b.table_size = floor_pow2((block_budget(d, b.blocks_per_sm) - 4) / 4);
    b.pow2 = true;
    b.smem_bytes = static_cast<std::size_t>(b.table_size) * 4 + 4;
    b.range = range_of(b.table_size, f);
    cfg.bins.push_back(b);
  }
  // Bin 6: 1024 threads at full occupancy with the whole budget (table not a power of two).
  {
    bin_config b;
    b.block_threads = 1024;
    b.blocks_per_sm = T / 1024;
    b.table_size = static_cast<int>((block_budget(d, b.blocks_per_sm) - 4) / 4);
    b.smem_bytes = static_cast<std::size_t>(b.table_size) * 4 + 4;
    b.range = range_of(b.table_size + 1, f);
    cfg.bins.push_back(b);
  }
  // Bin 7: 50% occupancy, the per-block maximum; rows whose nnz passes 0.8 of the table move to
  // the global-memory kernel (the paper's kernel 8).
  {
    bin_config b;
    b.block_threads = 1024;
    b.blocks_per_sm = 1;
    b.table_size = static_cast<int>((block_budget(d, 1) - 8) / 4);
    b.smem_bytes = static_cast<std::size_t>(b.table_size) * 4 + 8;
    b.range = std::numeric_limits<offset_t>::max();
    cfg.overflow_threshold = static_cast<int>(0.8 * b.table_size);
    cfg.bins.push_back(b);
  }
  // Global-memory kernel (a re-run of the rows that overflowed bin 7).
  cfg.bins.push_back(global_memory_bin(T));
  clamp_ranges(cfg);
  return cfg;
}

phase_config numeric_config(const device_info& d, std::size_t value_bytes, double f, int lanes) {
  if (!valid_row_lanes(lanes))
    throw std::invalid_argument("bin 0 takes 2, 4 or 8 lanes a row, not " + std::to_string(lanes));
  phase_config cfg;
  cfg.range_factor = f;
  const int T = d.max_threads_per_sm > 0 ? d.max_threads_per_sm : 2048;
  const long long entry = 4 + static_cast<long long>(value_bytes);
  // Bin 0: `lanes` threads per row, 256 / lanes rows per 256-thread block (paper: 8 threads,
  // table 31 in double, 1024 threads a block).
  const auto multi_row_bin = [&](int tpr, double factor) {
    bin_config b;
    b.block_threads = multi_row_block_threads;
    b.threads_per_row = tpr;
    const int rows = b.block_threads / b.threads_per_row;
    b.blocks_per_sm = T / b.block_threads;
    const long long per_row = block_budget(d, b.blocks_per_sm) / rows;
    b.table_size = static_cast<int>((per_row - 4) / entry);
    b.smem_bytes = static_cast<std::size_t>(rows) * (b.table_size * entry + 4);
    b.range = range_of(b.table_size + 1, factor);
    cfg.bins.push_back(b);
  };
  multi_row_bin(lanes, f);
  // One row per block of `threads` threads, `blocks` blocks an SM, the table filling the budget.
  const auto one_row_bin = [&](int threads, int blocks) {
    bin_config b;
    b.block_threads = threads;
    b.blocks_per_sm = blocks;
    b.table_size = static_cast<int>((block_budget(d, blocks) - 4) / entry);
    b.smem_bytes = static_cast<std::size_t>(b.table_size * entry + 4);
    b.range = range_of(b.table_size + 1, f);
    cfg.bins.push_back(b);
  };
  // Then one row per block: bins 1-5, 64..1024 threads at
  // full occupancy;
  for (int bt = 64; bt <= 1024; bt *= 2) one_row_bin(bt, T / bt);
  // bin 6, 50% occupancy with the per-block maximum;
  one_row_bin(1024, 1);
  // bin 7, the global-memory table.
  cfg.bins.push_back(global_memory_bin(T));
  clamp_ranges(cfg);
  return cfg;
}

namespace {

/// A part with what the V100 and the H100 share: 2048 threads and 64K registers an SM, 1024
/// threads a block.
device_info model_device(const char* name, int cc_major, int sm_count, std::size_t smem_per_sm,
                         std::size_t smem_per_block_optin, std::size_t smem_reserved_per_block) {
  device_info d;
  d.name = name;
  d.cc_major = cc_major;
  d.sm_count = sm_count;
  d.max_threads_per_sm = 2048;
  d.max_threads_per_block = 1024;
  d.regs_per_sm = 65536;
  d.smem_per_sm = smem_per_sm;
  d.smem_per_block_optin = smem_per_block_optin;
  d.smem_reserved_per_block = smem_reserved_per_block;
  return d;
}

}  // namespace

device_info v100_like() {
  return model_device("V100-like (paper)", 7, 80, 96 * 1024, 96 * 1024, 0);
}

device_info h100_like() { return model_device("H100-like", 9, 132, 228 * 1024, 227 * 1024, 1024); }

std::string describe(const phase_config& cfg, const char* phase) {
  std::ostringstream os;
  os << "| " << phase
     << " bin | threads/block | threads/row | table | pow2 | smem bytes | blocks/SM | range |\n";
  os << "|---|---|---|---|---|---|---|---|\n";
  offset_t lo = 0;
  for (std::size_t i = 0; i < cfg.bins.size(); ++i) {
    const auto& b = cfg.bins[i];
    os << "| " << i << " | " << b.block_threads << " | "
       << (b.threads_per_row ? std::to_string(b.threads_per_row) : std::string("block")) << " | "
       << (b.table_size ? std::to_string(b.table_size) : std::string("global")) << " | "
       << (b.pow2 ? "yes" : "no") << " | " << b.smem_bytes << " | " << b.blocks_per_sm << " | ";
    if (b.range == std::numeric_limits<offset_t>::max())
      os << lo << "-inf";
    else
      os << lo << "-" << b.range;
    os << " |\n";
    if (b.range != std::numeric_limits<offset_t>::max()) lo = b.range + 1;
  }
  if (cfg.overflow_threshold)
    os << "overflow threshold (to global table): " << cfg.overflow_threshold << "\n";
  return os.str();
}

}  // namespace opsparse
