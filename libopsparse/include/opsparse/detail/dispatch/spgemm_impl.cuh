#pragma once
// The driver of the GPU engine (paper Fig. 1): it sizes the plan, runs the binning and launches
// each bin's kernel on that bin's stream, as the launch plan (launch_plan.cuh) says.
// Included only by the explicit-instantiation files in libopsparse/src.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cub/device/device_scan.cuh>

#include "opsparse/detail/dispatch/launch_plan.cuh"
#include "opsparse/detail/dispatch/plan_state.hpp"
#include "opsparse/detail/kernels/spgemm_kernels.cuh"
#include "opsparse/detail/kernels/window_kernels.cuh"
#include "opsparse/detail/util/launch.hpp"
#include "opsparse/error.hpp"
#include "opsparse/policy.hpp"
#include "opsparse/spgemm.hpp"

namespace opsparse::detail {

inline std::size_t align_up(std::size_t x, std::size_t a = 256) { return (x + a - 1) / a * a; }

template <class V>
dev_csr<V> to_dev(const csr_view<V>& m) {
  return {m.rpt, m.col, m.val};
}

/// Queues a binning step on the plan's bin_grid: counts rows per bin (pass 1), copies the
/// counters into pinned memory and fills bins[] (pass 2), with no host synchronisation
/// (read_bins waits for the counts).
inline void start_binning(context& ctx, plan_state& st, const offset_t* sizes, index_t m,
                          const bin_ranges& rg, const bin_grid& g, bool shared) {
  cudaStream_t s = ctx.stream();
  if (m == 0) return;
  OPSPARSE_CUDA_TRY(cudaMemsetAsync(st.d_counters, 0, sizeof(bin_counters), s));
  const unsigned grid = static_cast<unsigned>(g.blocks);
  if (shared)
    bin_count_kernel<true>
        <<<grid, bin_block_threads, 0, s>>>(sizes, m, g.chunk, rg, st.d_counters, st.d_block_rows);
  else
    bin_count_kernel<false>
        <<<grid, bin_block_threads, 0, s>>>(sizes, m, g.chunk, rg, st.d_counters, st.d_block_rows);
  check_launch("bin_count_kernel");
  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(st.h_counters, st.d_counters, sizeof(bin_counters),
                                    cudaMemcpyDeviceToHost, s));
  OPSPARSE_CUDA_TRY(cudaEventRecord(st.counted_event(), s));
  if (shared)
    bin_fill_kernel<true><<<grid, bin_block_threads, 0, s>>>(sizes, m, g.chunk, rg, st.d_counters,
                                                             st.d_block_rows, st.d_bins);
  else
    bin_fill_kernel<false><<<grid, bin_block_threads, 0, s>>>(sizes, m, g.chunk, rg, st.d_counters,
                                                              st.d_block_rows, st.d_bins);
  check_launch("bin_fill_kernel");
}

/// Waits for the binning's counts (the one host synchronisation of each binning step: grid
/// sizes depend on them) and reads them: rows per bin, the largest row and the total.
inline void read_bins(plan_state& st, index_t m, const bin_ranges& rg,
                      unsigned long long out_rows[max_bins], unsigned long long& out_max,
                      unsigned long long& out_total) {
  if (m == 0) {
    for (int i = 0; i < max_bins; ++i) out_rows[i] = 0;
    out_max = out_total = 0;
    return;
  }
  OPSPARSE_CUDA_TRY(cudaEventSynchronize(st.counted));
  for (int i = 0; i < max_bins; ++i) out_rows[i] = i < rg.n ? st.h_counters->rows[i] : 0;
  out_max = st.h_counters->max_row;
  out_total = st.h_counters->total;
}

/// Whether any row of a bin, rows of `lo` keys or more, can use half its table or less
/// (row_slots); if none can, its kernel skips the row-size lookup before zeroing the table.
inline hash_policy for_bin(hash_policy hp, unsigned long long lo, unsigned long long tsize) {
  const unsigned long long s = next_pow2(std::max<unsigned long long>(8, 2 * lo));
  hp.row_sized = hp.row_sized && 2 * s <= tsize;
  return hp;
}

/// The bin launched k-th of `bins`: the largest rows first (the paper's order) or the smallest.
inline int launch_bin(int k, int bins, bool large_first) { return large_first ? bins - 1 - k : k; }

/// Argument checks shared by every product.
template <class VA, class VB, class Mask>
void check_product(const csr_view<VA>& a, const csr_view<VB>& b, const Mask& mask,
                   const spgemm_options& opt) {
  OPSPARSE_EXPECTS(a.cols == b.rows, "inner dimensions differ: A is " + std::to_string(a.rows) +
                                         "x" + std::to_string(a.cols) + ", B is " +
                                         std::to_string(b.rows) + "x" + std::to_string(b.cols));
  if constexpr (Mask::kind != mask_kind::none)
    OPSPARSE_EXPECTS(mask.rows == a.rows && mask.cols == b.cols,
                     "mask is " + std::to_string(mask.rows) + "x" + std::to_string(mask.cols) +
                         ", C is " + std::to_string(a.rows) + "x" + std::to_string(b.cols));
  OPSPARSE_EXPECTS(opt.tuning.symbolic_range >= 1.0 && opt.tuning.numeric_range >= 1.0,
                   "binning range factors must be at least 1");
  OPSPARSE_EXPECTS(
      valid_row_lanes(opt.tuning.symbolic_row_lanes) &&
          (opt.tuning.numeric_row_lanes == 0 || valid_row_lanes(opt.tuning.numeric_row_lanes)),
      "bin 0 takes 2, 4 or 8 lanes a row (numeric: 0, automatic)");
}

/// Step 1: products per row into C.rpt, the longest B row read back with the binning's first
/// counters; the plan's one metadata allocation issued after the launch, so that it overlaps
/// the kernel. Returns the bytes of C.rpt's scan.
template <class VA, class VB, class Mask, class T>
std::size_t setup_step(context& ctx, plan_state& st, const csr_view<VA>& a, const csr_view<VB>& b,
                       device_csr<T>& c, const Mask& mask, const launch_plan& lp,
                       const pool_ref& mem) {
  const index_t m = a.rows;
  cudaStream_t s = ctx.stream();
  const device_info& dev = ctx.device();
  {
    auto* staging = static_cast<unsigned char*>(ctx.pinned(sizeof(bin_counters) + 64));
    st.h_counters = reinterpret_cast<bin_counters*>(staging);
    st.h_max_b_row = reinterpret_cast<unsigned long long*>(staging + sizeof(bin_counters));
  }
  st.d_max_b_row = static_cast<unsigned long long*>(ctx.scratch());
  if (lp.time_phases) {
    st.ensure_timing_events();
    OPSPARSE_CUDA_TRY(cudaEventRecord(st.timing[0], s));
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(merged_row_counters(ctx), 0,
                                      merged_row_counter_words * sizeof(unsigned long long), s));
  }
  if (!lp.overlap_allocation) OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
  {
    const int rlog = lp.setup_lanes_log2;
    const long long want = ((static_cast<long long>(m) << rlog) + 255) / 256 + 1;
    const long long resident = static_cast<long long>(std::max(dev.sm_count, 1)) *
                               std::max(dev.max_threads_per_sm / 256, 1) * 4;
    const unsigned grid = static_cast<unsigned>(std::min(want, resident));
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(st.d_max_b_row, 0, 2 * sizeof(unsigned long long), s));
    setup_kernel<VA, VB, Mask>
        <<<grid, 256, 0, s>>>(m, to_dev(a), to_dev(b), c.rpt(), mask, st.d_max_b_row, rlog);
    check_launch("setup_kernel");
    // read back with the binning counters (read_bins synchronises once for both)
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(st.h_max_b_row, st.d_max_b_row,
                                      2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  }
  std::size_t scan_bytes = 0;
  OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, c.rpt(), c.rpt(),
                                                  static_cast<long long>(m) + 1, s));
  const std::size_t off_blocks = align_up(sizeof(bin_counters));
  const std::size_t off_bins = off_blocks + align_up(static_cast<std::size_t>(lp.binning.blocks) *
                                                     max_bins * sizeof(unsigned));
  const std::size_t off_scan = off_bins + align_up(static_cast<std::size_t>(m) * sizeof(index_t));
  if (!lp.overlap_allocation) OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
  const std::size_t off_flags = off_scan + align_up(scan_bytes);
  if (st.meta.reserve(off_flags + align_up(sizeof(unsigned)), mem)) ++st.allocations;
  st.d_counters = reinterpret_cast<bin_counters*>(st.meta.data());
  st.d_block_rows = reinterpret_cast<unsigned*>(st.meta.data() + off_blocks);
  st.d_bins = reinterpret_cast<index_t*>(st.meta.data() + off_bins);
  st.d_scan_tmp = st.meta.data() + off_scan;
  st.d_b_unsorted = reinterpret_cast<unsigned*>(st.meta.data() + off_flags);
  st.scan_bytes = scan_bytes;
  if (lp.time_phases) OPSPARSE_CUDA_TRY(cudaEventRecord(st.timing[1], s));
  return scan_bytes;
}

/// Step 3's bin 0, queued on its stream right after the binning's fill: its row count is read
/// on the device, so it runs while the host waits for the counts of the other bins. Its grid
/// covers every row of A; the blocks past the bin's rows return at once.
template <class VA, class VB, class Mask, class T>
void symbolic_bin_zero(context& ctx, plan_state& st, const csr_view<VA>& a, const csr_view<VB>& b,
                       device_csr<T>& c, const Mask& mask, const launch_plan& lp) {
  const index_t m = a.rows;
  if (m == 0) return;
  const bin_config& cfg = lp.sym.bins[0];
  ctx.fork();
  cudaStream_t bs = ctx.bin_stream(0);
  const hash_policy& hp = lp.sym_hash;  // row-sized tables in bin 0 only (symbolic_bins says why)
  const int per_block = cfg.block_threads / cfg.threads_per_row;
  const auto grid = static_cast<unsigned>((static_cast<long long>(m) + per_block - 1) / per_block);
  auto launch = [&](auto k) {
    allow_smem(reinterpret_cast<const void*>(k), cfg.smem_bytes);
    k<<<grid, cfg.block_threads, cfg.smem_bytes, bs>>>(st.d_bins, &st.d_counters->rows[0],
                                                       to_dev(a), to_dev(b), c.rpt(),
                                                       cfg.table_size, hp, mask);
    check_launch("symbolic_multi_kernel");
  };
  switch (cfg.threads_per_row) {
    case 2: launch(symbolic_multi_kernel<2, VA, VB, Mask>); break;
    case 4: launch(symbolic_multi_kernel<4, VA, VB, Mask>); break;
    default: launch(symbolic_multi_kernel<8, VA, VB, Mask>); break;
  }
  st.bin_finished(0, 0, bs, lp.time_phases);
}

/// Step 3: the symbolic kernels of bins 1 and up, one stream per bin, largest rows first; rows past
/// bin 7's table to the dense kernel (bitmap) or the global hash pool, allocated after a kernel
/// runs.
template <class VA, class VB, class Mask, class T>
void symbolic_bins(context& ctx, plan_state& st, const csr_view<VA>& a, const csr_view<VB>& b,
                   device_csr<T>& c, const Mask& mask, const launch_plan& lp, const pool_ref& mem,
                   const unsigned long long* rows, unsigned long long max_prod) {
  const device_info& dev = ctx.device();
  const phase_config& sym = lp.sym;
  const int sym_shared = static_cast<int>(sym.bins.size()) - 1;
  const bool dense = lp.dense;
  const int glog = lp.glog;
  const hash_policy& hp = lp.sym_hash;
  ctx.fork();
  unsigned long long off[max_bins + 1] = {0};
  for (int i = 0; i < sym_shared; ++i) off[i + 1] = off[i] + rows[i];
  bool pool_done = false;
  int sym_blocks = 0;
  unsigned long long sym_table = 0;
  auto sym_pool = [&]() {
    // Global tables for the rows that overflow bin 7: issued after a kernel is already running.
    if (pool_done || rows[sym_shared - 1] == 0 || dense) return;
    pool_done = true;
    const unsigned long long want =
        next_pow2(std::max<unsigned long long>(
            1, std::min<unsigned long long>(max_prod, static_cast<unsigned long long>(b.cols)))) *
        2;
    int blocks =
        static_cast<int>(std::min<unsigned long long>(rows[sym_shared - 1], 2ull * dev.sm_count));
    while (blocks > 1 && static_cast<unsigned long long>(blocks) * want * 4 > (1ull << 30))
      blocks /= 2;
    if (!lp.overlap_allocation)
      OPSPARSE_CUDA_TRY(cudaStreamSynchronize(ctx.bin_stream(sym_shared - 1)));
    st.reserve_pool(st.sym_pool, static_cast<std::size_t>(blocks) * want * 4, mem);
    sym_blocks = blocks;
    sym_table = want;
  };
  if (!lp.overlap_allocation) sym_pool();
  for (int k = 0; k < sym_shared; ++k) {
    const int bin = launch_bin(k, sym_shared, lp.large_rows_first);
    if (bin == 0 || rows[bin] == 0) continue;  // bin 0 is queued by symbolic_bin_zero
    const bin_config& cfg = sym.bins[bin];
    cudaStream_t bs = ctx.bin_stream(bin);
    const index_t* bins = st.d_bins + off[bin];
    const int n = static_cast<int>(rows[bin]);
    // row-sized tables in bin 0 only: a larger row's products rarely bound its nnz tightly
    // enough to halve its table, and the lookup would delay zeroing the table
    hash_policy bhp = hp;
    bhp.row_sized = false;
    const int overflow = bin == sym_shared - 1 ? sym.overflow_threshold : 0;
    const offset_t dense_products = overflow ? lp.dense_products : 0;
    auto launch = [&](auto kernel) {
      allow_smem(reinterpret_cast<const void*>(kernel), cfg.smem_bytes);
      kernel<<<n, cfg.block_threads, cfg.smem_bytes, bs>>>(bins, to_dev(a), to_dev(b), c.rpt(),
                                                           cfg.table_size, cfg.pow2, bhp, glog,
                                                           overflow, dense_products, mask);
      check_launch("symbolic_block_kernel");
    };
    switch (cfg.block_threads) {
      case 64: launch(symbolic_block_kernel<64, VA, VB, Mask>); break;
      case 128: launch(symbolic_block_kernel<128, VA, VB, Mask>); break;
      case 256: launch(symbolic_block_kernel<256, VA, VB, Mask>); break;
      case 512: launch(symbolic_block_kernel<512, VA, VB, Mask>); break;
      default: launch(symbolic_block_kernel<1024, VA, VB, Mask>); break;
    }
    if (overflow && dense) {
      auto k = symbolic_dense_kernel<VA, VB, Mask>;
      allow_smem(reinterpret_cast<const void*>(k), lp.dense_bytes);
      k<<<std::min(n, dev.sm_count), dense_block, lp.dense_bytes, bs>>>(
          bins, n, to_dev(a), to_dev(b), c.rpt(), static_cast<int>(lp.dense_words), glog, mask);
      check_launch("symbolic_dense_kernel");
    } else if (overflow) {
      sym_pool();
      symbolic_global_kernel<VA, VB, Mask><<<sym_blocks, 1024, 0, bs>>>(
          bins, n, to_dev(a), to_dev(b), c.rpt(), reinterpret_cast<int*>(st.sym_pool.data()),
          static_cast<unsigned>(sym_table), hp, glog, mask);
      check_launch("symbolic_global_kernel");
    }
    st.bin_finished(0, bin, bs, lp.time_phases);
    sym_pool();
  }
  ctx.join(sym_shared);
}

/// Step 4's pools: the rows in windows take shared memory (nothing to allocate but the
/// sortedness flag's test); the other long rows a dense accumulator per block, or a global hash
/// pool.
template <class T, class VB>
void numeric_pools(context& ctx, plan_state& st, const csr_view<VB>& b,
                   unsigned long long long_rows, unsigned long long win_rows,
                   unsigned long long max_nnz, bool dense, const pool_ref& mem) {
  cudaStream_t s = ctx.stream();
  const device_info& dev = ctx.device();
  if (win_rows) {
    // Shared-memory windows (window_rows_kernel): one block per SM, no global accumulator.
    // Whether B's rows are sorted decides how a window finds its part of them; the flag is
    // read on the device, after this kernel, so nobody waits for it.
    // In the plan, not the context: another plan's product may run before this one's numeric.
    unsigned* flag = st.d_b_unsorted;
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(flag, 0, sizeof(unsigned), s));
    if (b.rows > 0) {
      const long long want = (static_cast<long long>(b.rows) * 32 + 255) / 256;
      const unsigned grid =
          static_cast<unsigned>(std::min<long long>(want, 4ll * dev.sm_count * 8));
      rows_unsorted_kernel<<<grid, 256, 0, s>>>(b.rows, b.rpt, b.col, flag);
      check_launch("rows_unsorted_kernel");
    }
    st.win_blocks = static_cast<int>(std::min<unsigned long long>(win_rows, dev.sm_count));
  }
  if (long_rows && dense) {
    // one dense accumulator of B.cols values per resident block (one block per SM)
    const std::size_t per_block =
        static_cast<std::size_t>(b.cols) * (has_values_v<T> ? sizeof(T) : 0);
    int blocks = static_cast<int>(std::min<unsigned long long>(long_rows, dev.sm_count));
    while (blocks > 1 && blocks * per_block > (1ull << 30)) blocks /= 2;
    st.reserve_pool(st.num_pool, std::max<std::size_t>(1, blocks * per_block), mem);
    st.num_pool_blocks = blocks;
    st.num_pool_table = b.cols;
  } else if (long_rows) {
    const unsigned long long want = next_pow2(std::max<unsigned long long>(1, max_nnz)) * 2;
    const std::size_t entry = 4 + (has_values_v<T> ? sizeof(T) : 0);
    int blocks = static_cast<int>(std::min<unsigned long long>(long_rows, 2ull * dev.sm_count));
    while (blocks > 1 && blocks * want * entry > (1ull << 30)) blocks /= 2;
    st.reserve_pool(st.num_pool,
                    align_up(blocks * want * (has_values_v<T> ? sizeof(T) : 0)) + blocks * want * 4,
                    mem);
    st.num_pool_blocks = blocks;
    st.num_pool_table = static_cast<long long>(want);
  }
}

template <class Semiring, class VA, class VB, class Mask>
void symbolic(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
              device_csr<typename Semiring::value_type>& c, const Mask& mask,
              const spgemm_options& opt) {
  using T = typename Semiring::value_type;
  check_product(a, b, mask, opt);
  plan_state& st = p.state();
  static const pool_ref no_pool;
  const pool_ref& mem = opt.tuning.pooled_memory ? ctx.memory() : no_pool;
  st.numeric_ready = false;
  st.stats = spgemm_stats{};
  st.bin_ran[0] = {};
  const index_t m = a.rows;
  cudaStream_t s = ctx.stream();
  launch_plan& lp = st.launch;
  lp = plan_launches<T>(ctx, opt, a.rows, a.nnz, b.cols);
  c.set_shape(m, b.cols, mem);
  std::size_t scan_bytes = setup_step(ctx, st, a, b, c, mask, lp, mem);

  // Step 2: symbolic binning on the products per row; bin 0's kernel queued behind it.
  const int sym_shared = static_cast<int>(lp.sym.bins.size()) - 1;  // bins 0-7 in shared memory
  unsigned long long rows[max_bins], max_prod = 0, total_prod = 0;
  start_binning(ctx, st, c.rpt(), m, lp.sym_ranges, lp.binning, lp.shared_binning);
  symbolic_bin_zero(ctx, st, a, b, c, mask, lp);
  read_bins(st, m, lp.sym_ranges, rows, max_prod, total_prod);
  st.stats.products = static_cast<offset_t>(total_prod);
  st.stats.max_row_products = static_cast<offset_t>(max_prod);
  st.stats.symbolic_bin_rows.assign(rows, rows + sym_shared);
  if (lp.time_phases) OPSPARSE_CUDA_TRY(cudaEventRecord(st.timing[2], s));

  // Step 3
  const unsigned long long longest_b_row = m > 0 ? st.h_max_b_row[0] : 0;
  const offset_t longest_a_row = m > 0 ? static_cast<offset_t>(st.h_max_b_row[1]) : 0;
  st.stats.max_a_row_nnz = longest_a_row;
  plan_groups(lp, longest_b_row, longest_a_row, b.rows, b.nnz);
  symbolic_bins(ctx, st, a, b, c, mask, lp, mem, rows, max_prod);
  if (lp.time_phases) OPSPARSE_CUDA_TRY(cudaEventRecord(st.timing[3], s));

  // Step 4: numeric binning on the exact row sizes; nnz(C) from its first pass; in-place scan of
  // C.rpt; C.col and C.val allocated while the second pass and the scan run.
  const int num_bins = lp.num_bins();
  unsigned long long max_nnz = 0, total_nnz = 0;
  start_binning(ctx, st, c.rpt(), m, lp.num_ranges, lp.binning, lp.shared_binning);
  OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(st.d_scan_tmp, scan_bytes, c.rpt(), c.rpt(),
                                                  static_cast<long long>(m) + 1, s));
  read_bins(st, m, lp.num_ranges, rows, max_nnz, total_nnz);
  if (!lp.overlap_allocation) OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
  c.set_nnz(static_cast<offset_t>(total_nnz), mem);
  for (int i = 0; i < max_bins; ++i) st.num_rows[i] = i < num_bins ? rows[i] : 0;
  st.num_max_row = max_nnz;
  const int long_bin = lp.long_bin();
  numeric_pools<T>(ctx, st, b, lp.windows && !lp.split ? 0 : rows[long_bin],
                   lp.windows ? rows[num_bins - 1] : 0, max_nnz, lp.dense, mem);
  st.rows = m;
  st.cols = b.cols;
  st.a_nnz = a.nnz;
  st.b_nnz = b.nnz;
  st.c_nnz = static_cast<offset_t>(total_nnz);
  st.numeric_ready = true;
  st.stats.nnz = static_cast<offset_t>(total_nnz);
  st.stats.max_row_nnz = static_cast<offset_t>(max_nnz);
  st.stats.numeric_bin_rows.assign(rows, rows + num_bins);
  if (lp.time_phases) OPSPARSE_CUDA_TRY(cudaEventRecord(st.timing[4], s));
}

/// A numeric bin of one row per block (bins 1-6 and the largest shared bin): the kernel
/// compiled for the bin's block size, CUB's block radix sort for rows past twice the block's
/// threads when its temporary storage fits the table's shared memory.
template <class Semiring, class VA, class VB, class Mask, class T>
void numeric_block_bin(const bin_config& cfg, cudaStream_t bs, const index_t* bins, int n,
                       const csr_view<VA>& a, const csr_view<VB>& b, const dev_out<T>& out,
                       hash_policy hp, const launch_plan& lp, const Mask& mask) {
  auto launch = [&](auto kernel, int radix_bits = 0) {
    allow_smem(reinterpret_cast<const void*>(kernel), cfg.smem_bytes);
    kernel<<<n, cfg.block_threads, cfg.smem_bytes, bs>>>(
        bins, to_dev(a), to_dev(b), out, cfg.table_size, hp, lp.glog, lp.sorted, mask, radix_bits);
    check_launch("numeric_block_kernel");
  };
  // Rows past twice the block's threads are sorted with CUB's block radix sort on the key
  // bits B's columns need, when its temporary storage fits the table's shared memory.
  auto radix = [&](auto bs, auto minb) {
    constexpr int E = radix_items_for(decltype(minb)::value);
    return row_radix<decltype(bs)::value, E, T>::temp_bytes <= cfg.smem_bytes ? lp.radix_key_bits
                                                                              : 0;
  };
  using std::integral_constant;
  // The largest shared bin (one block per SM) is compiled for 64 registers a thread.
  if (cfg.block_threads == 1024 && cfg.blocks_per_sm == 1) {
    launch(numeric_block_kernel<1024, Semiring, VA, VB, Mask, 1>,
           radix(integral_constant<int, 1024>{}, integral_constant<int, 1>{}));
    return;
  }
  constexpr int full = threads_per_sm_target;
  // The full-occupancy kernels (32 registers) come without the merged loops where no row can
  // merge (`merge`): their registers cost the classes that never merge 2-3% of this phase.
  auto go = [&](auto threads) {
    constexpr int B = decltype(threads)::value;
    const int bits = radix(threads, integral_constant<int, full / B>{});
    if (lp.merge)
      launch(numeric_block_kernel<B, Semiring, VA, VB, Mask, full / B, true>, bits);
    else
      launch(numeric_block_kernel<B, Semiring, VA, VB, Mask, full / B, false>, bits);
  };
  switch (cfg.block_threads) {
    case 64: go(integral_constant<int, 64>{}); break;
    case 128: go(integral_constant<int, 128>{}); break;
    case 256: go(integral_constant<int, 256>{}); break;
    case 512: go(integral_constant<int, 512>{}); break;
    default: go(integral_constant<int, 1024>{}); break;
  }
}

/// The phases' times and the merged-row counters of the last product into st.stats (after
/// the numeric phase's last bin: the stream is waited for).
inline void read_phase_times(context& ctx, plan_state& st) {
  cudaStream_t s = ctx.stream();
  OPSPARSE_CUDA_TRY(cudaEventRecord(st.timing[5], s));
  OPSPARSE_CUDA_TRY(cudaEventSynchronize(st.timing[5]));
  float* outs[5] = {&st.stats.ms_setup, &st.stats.ms_symbolic_binning, &st.stats.ms_symbolic,
                    &st.stats.ms_numeric_binning, &st.stats.ms_numeric};
  for (int i = 0; i < 5; ++i)
    OPSPARSE_CUDA_TRY(cudaEventElapsedTime(outs[i], st.timing[i], st.timing[i + 1]));
  st.stats.symbolic_bin_end_ms = st.bin_end_ms(0, st.timing[2]);
  st.stats.numeric_bin_end_ms = st.bin_end_ms(1, st.timing[4]);
  unsigned long long merged[merged_row_counter_words];
  OPSPARSE_CUDA_TRY(
      cudaMemcpy(merged, merged_row_counters(ctx), sizeof merged, cudaMemcpyDeviceToHost));
  st.stats.pair_rows_symbolic = static_cast<offset_t>(merged[0]);
  st.stats.triple_rows_symbolic = static_cast<offset_t>(merged[1]);
  st.stats.run_rows_symbolic = static_cast<offset_t>(merged[2]);
  st.stats.pair_rows_numeric = static_cast<offset_t>(merged[3]);
  st.stats.triple_rows_numeric = static_cast<offset_t>(merged[4]);
  st.stats.run_rows_numeric = static_cast<offset_t>(merged[5]);
}

template <class Semiring, class VA, class VB, class Mask>
void numeric(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
             device_csr<typename Semiring::value_type>& c, const Mask& mask,
             const spgemm_options& opt) {
  using T = typename Semiring::value_type;
  plan_state& st = p.state();
  OPSPARSE_EXPECTS(st.numeric_ready, "spgemm_numeric needs a symbolic phase on this plan first");
  OPSPARSE_EXPECTS(st.rows == a.rows && st.cols == b.cols && st.a_nnz == a.nnz &&
                       st.b_nnz == b.nnz && c.nnz() == st.c_nnz && c.rows() == a.rows,
                   "spgemm_numeric: A, B or C changed structure since the symbolic phase");
  // the symbolic phase's plan with this call's own options
  launch_plan lp = st.launch;
  plan_numeric_options(lp, ctx, opt, b.cols);
  const phase_config& num = lp.num;
  const int long_bin = lp.long_bin();
  const int glog = lp.glog;
  const hash_policy& hp = lp.num_hash;
  const int num_bins = lp.num_bins();
  unsigned long long off[max_bins + 1] = {0};
  for (int i = 0; i < num_bins; ++i) off[i + 1] = off[i] + st.num_rows[i];
  const dev_out<T> out{c.rpt(), c.col(), c.val()};
  st.bin_ran[1] = {};
  ctx.fork();
  for (int k = 0; k < num_bins; ++k) {
    const int bin = launch_bin(k, num_bins, lp.large_rows_first);
    if (st.num_rows[bin] == 0) continue;
    const bin_config& cfg = num.bins[std::min(bin, long_bin)];
    cudaStream_t bs = ctx.bin_stream(bin);
    const index_t* bins = st.d_bins + off[bin];
    const int n = static_cast<int>(st.num_rows[bin]);
    const unsigned long long lo =
        bin == 0 ? 0 : static_cast<unsigned long long>(num.bins[bin - 1].range) + 1;
    if (bin == lp.window_bin()) {
      const int window = lp.window_columns;
      const std::size_t bytes = window_smem_bytes(window, has_values_v<T> ? sizeof(T) : 0);
      auto kw = window_rows_kernel<Semiring, VA, VB, Mask, window_writer<T>>;
      allow_smem(reinterpret_cast<const void*>(kw), bytes);
      const unsigned* flag = st.d_b_unsorted;
      kw<<<st.win_blocks, dense_block, bytes, bs>>>(bins, n, to_dev(a), to_dev(b), 0,
                                                    static_cast<index_t>(st.cols), window, flag,
                                                    false, mask, window_writer<T>{out});
      check_launch("window_rows_kernel");
    } else if (bin == long_bin && lp.dense) {
      auto kd = numeric_dense_kernel<Semiring, VA, VB, Mask>;
      allow_smem(reinterpret_cast<const void*>(kd), lp.dense_bytes);
      kd<<<st.num_pool_blocks, dense_block, lp.dense_bytes, bs>>>(
          bins, n, to_dev(a), to_dev(b), out, reinterpret_cast<T*>(st.num_pool.data()),
          st.num_pool_table, static_cast<int>(lp.dense_words), glog, mask);
      check_launch("numeric_dense_kernel");
    } else if (bin == long_bin) {
      const std::size_t vbytes = align_up(static_cast<std::size_t>(st.num_pool_blocks) *
                                          st.num_pool_table * (has_values_v<T> ? sizeof(T) : 0));
      T* pv = reinterpret_cast<T*>(st.num_pool.data());
      int* pk = reinterpret_cast<int*>(st.num_pool.data() + vbytes);
      numeric_global_kernel<Semiring, VA, VB, Mask><<<st.num_pool_blocks, 1024, 0, bs>>>(
          bins, n, to_dev(a), to_dev(b), out, pk, pv, static_cast<unsigned>(st.num_pool_table),
          for_bin(hp, lo, static_cast<unsigned long long>(st.num_pool_table)), glog, lp.sorted,
          mask, lp.radix_key_bits);
      check_launch("numeric_global_kernel");
    } else if (cfg.threads_per_row) {
      auto launch = [&](auto km) {
        allow_smem(reinterpret_cast<const void*>(km), cfg.smem_bytes);
        const int per_block = cfg.block_threads / cfg.threads_per_row;
        km<<<(n + per_block - 1) / per_block, cfg.block_threads, cfg.smem_bytes, bs>>>(
            bins, n, to_dev(a), to_dev(b), out, cfg.table_size,
            for_bin(hp, lo, static_cast<unsigned long long>(cfg.table_size)), lp.sorted, mask);
        check_launch("numeric_multi_kernel");
      };
      switch (cfg.threads_per_row) {
        case 2: launch(numeric_multi_kernel<2, Semiring, VA, VB, Mask>); break;
        case 4: launch(numeric_multi_kernel<4, Semiring, VA, VB, Mask>); break;
        default: launch(numeric_multi_kernel<8, Semiring, VA, VB, Mask>); break;
      }
    } else {
      numeric_block_bin<Semiring>(cfg, bs, bins, n, a, b, out,
                                  for_bin(hp, lo, static_cast<unsigned long long>(cfg.table_size)),
                                  lp, mask);
    }
    st.bin_finished(1, bin, bs, lp.time_phases);
  }
  ctx.join(num_bins);
  if (lp.time_phases) read_phase_times(ctx, st);
}

}  // namespace opsparse::detail

namespace opsparse {

template <class Semiring, class VA, class VB, class Mask>
void spgemm_symbolic(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
                     device_csr<typename Semiring::value_type>& c, const Mask& mask,
                     const spgemm_options& opt) {
  detail::symbolic<Semiring>(ctx, p, a, b, c, mask, opt);
}

template <class Semiring, class VA, class VB, class Mask>
void spgemm_numeric(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
                    device_csr<typename Semiring::value_type>& c, const Mask& mask,
                    const spgemm_options& opt) {
  detail::numeric<Semiring>(ctx, p, a, b, c, mask, opt);
}

template <class Semiring, class VA, class VB, class Mask>
void spgemm(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
            device_csr<typename Semiring::value_type>& c, const Mask& mask,
            const spgemm_options& opt) {
  detail::symbolic<Semiring>(ctx, p, a, b, c, mask, opt);
  detail::numeric<Semiring>(ctx, p, a, b, c, mask, opt);
}

}  // namespace opsparse

/// Instantiates spgemm, spgemm_symbolic and spgemm_numeric for one combination.
#define OPSPARSE_INSTANTIATE_SPGEMM(S, VA, VB, MASK)                                               \
  template void opsparse::spgemm<S, VA, VB, MASK>(context&, plan&, const csr_view<VA>&,            \
                                                  const csr_view<VB>&, device_csr<S::value_type>&, \
                                                  const MASK&, const spgemm_options&);             \
  template void opsparse::spgemm_symbolic<S, VA, VB, MASK>(                                        \
      context&, plan&, const csr_view<VA>&, const csr_view<VB>&, device_csr<S::value_type>&,       \
      const MASK&, const spgemm_options&);                                                         \
  template void opsparse::spgemm_numeric<S, VA, VB, MASK>(                                         \
      context&, plan&, const csr_view<VA>&, const csr_view<VB>&, device_csr<S::value_type>&,       \
      const MASK&, const spgemm_options&);
