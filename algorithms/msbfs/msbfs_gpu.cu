// msbfs::backend on the GPU engine: msbfs_space.hpp's push levels over gpu_space (one context
// and one plan for every level of every batch; A, F and V stay on the device, every buffer
// grow-only, so once the largest level has been seen a level allocates nothing), and what is the
// GPU's own: the pull levels on bitmaps and the switch to them (msbfs.hpp).
//   pull  F and V as bitmaps, n × W 64-bit words, W = ⌈b/64⌉; one kernel per level: each
//         (vertex, word) ORs its in-neighbours' frontier words, and the new bits are counted
//         per source in shared memory, so that the per-source reached count, level sum and
//         eccentricity are kept up to date without V.
// A level reads back one small block of counters (nnz(F), and before a push the cost of the
// next push, which the switch rule needs).
#include <algorithm>
#include <utility>

#include "msbfs/msbfs.hpp"
#include "msbfs/msbfs_space.hpp"
#include "opsparse/context.hpp"
#include "opsparse/detail/util/device_utils.cuh"
#include "opsparse/detail/util/launch.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/gpu_space.cuh"
#include "opsparse/graph_ops.cuh"
#include "opsparse/spgemm.hpp"

namespace opsparse::msbfs {

namespace {

using detail::check_launch;
using detail::grid_for;
using detail::lane_id;
using detail::thread_id;
using detail::warp_id;
using detail::warp_threads;
constexpr int block = 256;
/// Pulled words that cost about as much as one pushed product (msbfs.hpp: on the H100 a pushed
/// product cost 2.2 ns at R-MAT 22 and 9 ns at 25, a pulled word of 16 about 0.01 ns; words of
/// smaller batches cost more, up to about 4 times for one word a vertex).
constexpr unsigned long long pull_word_per_product = 128;

/// What each source's search has found so far: vertices reached, the sum of their levels, the
/// deepest level (structure of arrays, one entry a source).
struct summaries {
  long long* reached;
  long long* level_sum;
  int* eccentricity;
};

using word = unsigned long long;
constexpr int word_bits = 64;

__device__ __forceinline__ long long out_degree(const offset_t* rpt, index_t v) {
  return static_cast<long long>(rpt[v + 1] - rpt[v]);
}

/// One warp per row r of a pattern: sets bit r of every listed vertex's words.
__global__ void scatter_rows_kernel(index_t rows, const offset_t* rpt, const index_t* col, int W,
                                    word* bits) {
  const long long r = warp_id();
  if (r >= rows) return;
  const int w = static_cast<int>(r / word_bits);
  const word bit = word{1} << (r % word_bits);
  for (offset_t p = rpt[r] + lane_id(); p < rpt[r + 1]; p += warp_threads)
    atomicOr(bits + static_cast<long long>(col[p]) * W + w, bit);
}

/// Vertices whose in-degree exceeds heavy_degree are pulled by a block each (pull_heavy_kernel);
/// a thread of the light kernel would read their in-neighbours one after another (on R-MAT 22
/// the first pull level took 66 ms at 3% of the H100's DRAM bandwidth, single threads walking
/// hubs' lists; with the block per hub and the switch rule, 9 ms).
constexpr offset_t heavy_degree = 512;
constexpr int heavy_block = 1024;

/// A vertex's new bits `fresh` in word w: into V and the next frontier, counted per source in
/// `per_source` (shared or global) and into the level's totals `found` and `expand`.
__device__ __forceinline__ void take_fresh(long long cell, word fresh, int w, long long degree,
                                           word* visited, word* next, unsigned* per_source,
                                           unsigned long long& found, unsigned long long& expand) {
  next[cell] = fresh;
  if (fresh == 0) return;
  visited[cell] |= fresh;
  const int c = __popcll(fresh);
  found += c;
  expand += static_cast<unsigned long long>(c) * degree;
  for (word x = fresh; x != 0; x &= x - 1)
    atomicAdd(per_source + w * word_bits + (__ffsll(static_cast<long long>(x)) - 1), 1u);
}

/// One pull level over the light vertices. Thread (v, w): the OR of the frontier words w of v's
/// in-neighbours, less what v has seen; stops once every source of the word has reached v or
/// finished (checked every four neighbours, whose loads are in flight together). New bits are
/// counted per source (shared atomics, flushed once per block) and their out-degrees summed
/// (the edges the next level expands).
__global__ void pull_kernel(index_t n, int W, const offset_t* t_rpt, const index_t* t_col,
                            const offset_t* a_rpt, const word* front, const word* done,
                            word* visited, word* next, unsigned* level_count,
                            unsigned long long* counters) {
  extern __shared__ unsigned s_count[];  // W * 64
  for (int k = threadIdx.x; k < W * word_bits; k += blockDim.x) s_count[k] = 0;
  __syncthreads();
  unsigned long long found = 0, expand = 0;
  const long long items = static_cast<long long>(n) * W;
  constexpr word all = ~word{0};
  for (long long t = thread_id(); t < items; t += detail::thread_count()) {
    const index_t v = static_cast<index_t>(t / W);
    const int w = static_cast<int>(t % W);
    const offset_t lo = t_rpt[v], hi = t_rpt[v + 1];
    if (hi - lo > heavy_degree) continue;  // pull_heavy_kernel's
    const word seen = visited[t] | done[w];
    word acc = 0;
    if (seen != all) {
      offset_t p = lo;
      for (; p + 4 <= hi && (acc | seen) != all; p += 4) {
        const index_t c0 = t_col[p], c1 = t_col[p + 1], c2 = t_col[p + 2], c3 = t_col[p + 3];
        acc |=
            front[static_cast<long long>(c0) * W + w] | front[static_cast<long long>(c1) * W + w] |
            front[static_cast<long long>(c2) * W + w] | front[static_cast<long long>(c3) * W + w];
      }
      for (; p < hi && (acc | seen) != all; ++p)
        acc |= front[static_cast<long long>(t_col[p]) * W + w];
    }
    take_fresh(t, acc & ~seen, w, out_degree(a_rpt, v), visited, next, s_count, found, expand);
  }
  found = detail::warp_sum(found);
  expand = detail::warp_sum(expand);
  if (lane_id() == 0) {
    if (found != 0) atomicAdd(counters + 0, found);
    if (expand != 0) atomicAdd(counters + 1, expand);
  }
  __syncthreads();
  for (int k = threadIdx.x; k < W * word_bits; k += blockDim.x)
    if (s_count[k] != 0) atomicAdd(level_count + k, s_count[k]);
}

/// One pull level over the heavy vertices: a block a vertex. Thread (s, w) ORs the frontier
/// words w of every S-th in-neighbour from the s-th (S = blockDim / W); every 16 neighbours the
/// threads pool their words in shared memory, and all stop once the pooled word covers what v
/// has not seen. New bits are counted per source in global memory (few vertices are heavy).
__global__ void __launch_bounds__(heavy_block)
    pull_heavy_kernel(const index_t* heavy, long long count, int W, const offset_t* t_rpt,
                      const index_t* t_col, const offset_t* a_rpt, const word* front,
                      const word* done, word* visited, word* next, unsigned* level_count,
                      unsigned long long* counters) {
  __shared__ unsigned long long pooled[word_bits];  // W <= 16 words a vertex (1024 sources)
  const int S = blockDim.x / W;
  const int w = threadIdx.x % W, s = threadIdx.x / W;
  const bool in_use = s < S;
  constexpr word all = ~word{0};
  unsigned long long found = 0, expand = 0;
  for (long long h = blockIdx.x; h < count; h += gridDim.x) {
    const index_t v = heavy[h];
    const long long cell = static_cast<long long>(v) * W + w;
    if (threadIdx.x < W) pooled[threadIdx.x] = 0;
    __syncthreads();
    const word seen = in_use ? visited[cell] | done[w] : all;
    word acc = 0;
    const offset_t hi = t_rpt[v + 1];
    for (offset_t p = t_rpt[v] + s; (acc | seen) != all && p < hi;) {
      for (int k = 0; k < 16 && p < hi; ++k, p += S)
        acc |= front[static_cast<long long>(t_col[p]) * W + w];
      acc |= atomicOr(pooled + w, acc);  // the pool as it was, with this thread's words
    }
    if (acc != 0 && in_use) atomicOr(pooled + w, acc);
    __syncthreads();
    if (s == 0 && in_use)
      take_fresh(cell, pooled[w] & ~seen, w, out_degree(a_rpt, v), visited, next, level_count,
                 found, expand);
    __syncthreads();  // pooled is cleared for the next vertex
  }
  found = detail::warp_sum(found);
  expand = detail::warp_sum(expand);
  if (lane_id() == 0) {
    if (found != 0) atomicAdd(counters + 0, found);
    if (expand != 0) atomicAdd(counters + 1, expand);
  }
}

/// After a pull level: the per-source counters, the sources whose search ended, and the level's
/// counts cleared for the next.
__global__ void finish_pull_level_kernel(index_t rows, level_t level, unsigned* level_count,
                                         summaries sum, word* done) {
  const long long r = thread_id();
  if (r >= rows) return;
  const unsigned c = level_count[r];
  level_count[r] = 0;
  if (c != 0) {
    sum.reached[r] += c;
    sum.level_sum[r] += static_cast<long long>(c) * level;
    sum.eccentricity[r] = level;
  } else {
    atomicOr(done + r / word_bits, word{1} << (r % word_bits));
  }
}

class gpu_backend final : public space_backend<gpu_space> {
 public:
  gpu_backend() : space_backend<gpu_space>("gpu") {}

  offset_t batch_budget() const override {
    // Bits per bitmap: three bitmaps (V, F, next F) within a quarter of the free memory (the
    // batch is at most 1024 sources: default_batch). No other cap: R-MAT 24 ran 4 batches of
    // 256 under a cap of 2^32 bits (880 ms, each batch paying its first levels) where one
    // batch of 1024 needs 6.4 GB of the H100's 80.
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return offset_t{1} << 26;
    const offset_t by_memory = static_cast<offset_t>(free_b / 4 / 3 * 8);
    return std::max<offset_t>(offset_t{1} << 20, by_memory);
  }

 protected:
  void loaded() override {
    has_transpose_ = false;
    heavy_n_ = -1;
  }

  /// The pull kernel counts a level's new bits per source in shared memory.
  bool can_pull(index_t rows) const override {
    const std::size_t need = static_cast<std::size_t>(words(rows)) * word_bits * sizeof(unsigned);
    const device_info& dev = ctx().device();
    return need + dev.smem_reserved_per_block <= dev.smem_per_block_optin;
  }

  /// Pulling pays once the next push's products, at pull_word_per_product words each, exceed a
  /// pull's nnz(A) words per 64 sources, or when V would outgrow the bitmaps.
  bool pull_pays(offset_t push_cost, offset_t entries) const override {
    const long long W = words(batch_rows());
    const bool pays = static_cast<unsigned long long>(push_cost) * pull_word_per_product >
                      static_cast<unsigned long long>(graph_nnz()) * W;
    return pays || entries > 2 * static_cast<long long>(vertices()) * W;
  }

  /// F and V to bitmaps, V's summaries to the per-source counters; `pending` (the products the
  /// push of F would have made) becomes the edges the first pull level expands.
  void switch_to_pull(offset_t pending) override {
    const index_t rows = batch_rows(), n = vertices();
    const long long W = words(rows);
    const std::size_t cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(W);
    if (!symmetric() && !has_transpose_) {  // Aᵀ only for a graph not known to be symmetric
      transpose(ctx(), graph().view(), at_);
      has_transpose_ = true;
    }
    visited_.reserve(cells);
    front_.reserve(cells);
    next_front_.reserve(cells);
    done_.reserve(static_cast<std::size_t>(W));
    level_count_.reserve(static_cast<std::size_t>(W * word_bits));
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(visited_.data(), 0, cells * sizeof(word), stream()));
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(front_.data(), 0, cells * sizeof(word), stream()));
    OPSPARSE_CUDA_TRY(
        cudaMemsetAsync(level_count_.data(), 0, W * word_bits * sizeof(unsigned), stream()));
    const unsigned row_grid = detail::warp_grid_for(rows, block);
    const device_csr<level_t>& v = visited();
    const device_csr<pattern>& f = frontier();
    scatter_rows_kernel<<<row_grid, block, 0, stream()>>>(rows, v.rpt(), v.col(),
                                                          static_cast<int>(W), visited_.data());
    check_launch("scatter_rows_kernel");
    scatter_rows_kernel<<<row_grid, block, 0, stream()>>>(rows, f.rpt(), f.col(),
                                                          static_cast<int>(W), front_.data());
    check_launch("scatter_rows_kernel");
    // the pull levels keep the summaries up to date from here
    summarise_levels();
    // sources past the batch (the last word's spare bits) count as done from the start
    OPSPARSE_CUDA_TRY(
        cudaMemsetAsync(done_.data(), 0, static_cast<std::size_t>(W) * sizeof(word), stream()));
    if (rows % word_bits != 0) {
      const word spare =
          ~word{0} << (rows % word_bits);  // pageable: staged before the call returns
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(done_.data() + (W - 1), &spare, sizeof(word),
                                        cudaMemcpyHostToDevice, stream()));
    }
    list_heavy(symmetric() ? graph() : at_);
    pending_ = static_cast<unsigned long long>(pending);
  }

  offset_t pull(level_t level) override {
    const index_t rows = batch_rows(), n = vertices();
    const int W = static_cast<int>(words(rows));
    const device_csr<pattern>& a = graph();
    const device_csr<pattern>& t = symmetric() ? a : at_;
    counters_.reserve(4);
    OPSPARSE_CUDA_TRY(
        cudaMemsetAsync(counters_.data(), 0, 4 * sizeof(unsigned long long), stream()));
    const std::size_t smem = static_cast<std::size_t>(W) * word_bits * sizeof(unsigned);
    if (smem > 48 * 1024 && smem > pull_smem_allowed_) {  // once, not every level
      OPSPARSE_CUDA_TRY(cudaFuncSetAttribute(
          pull_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
      pull_smem_allowed_ = smem;
    }
    const device_info& dev = ctx().device();
    const long long items = static_cast<long long>(n) * W;
    const long long resident =
        static_cast<long long>(dev.sm_count) * std::max(dev.max_threads_per_sm / block, 1);
    const unsigned grid = static_cast<unsigned>(
        std::max<long long>(1, std::min<long long>(grid_for(items), resident)));
    pull_kernel<<<grid, block, smem, stream()>>>(n, W, t.rpt(), t.col(), a.rpt(), front_.data(),
                                                 done_.data(), visited_.data(), next_front_.data(),
                                                 level_count_.data(), counters_.data());
    check_launch("pull_kernel");
    if (heavy_n_ > 0) {
      const long long heavy_grid = std::min<long long>(heavy_n_, 4LL * dev.sm_count);
      pull_heavy_kernel<<<static_cast<unsigned>(heavy_grid), heavy_block, 0, stream()>>>(
          heavy_.data(), heavy_n_, W, t.rpt(), t.col(), a.rpt(), front_.data(), done_.data(),
          visited_.data(), next_front_.data(), level_count_.data(), counters_.data());
      check_launch("pull_heavy_kernel");
    }
    finish_pull_level_kernel<<<grid_for(rows), block, 0, stream()>>>(
        rows, level, level_count_.data(),
        summaries{reached().data(), level_sum().data(), eccentricity().data()}, done_.data());
    check_launch("finish_pull_level_kernel");
    unsigned long long* h = pinned_counters();
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(h, counters_.data(), 2 * sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, stream()));
    ctx().synchronize();
    // This level expanded the frontier it started from; the new one is expanded next time.
    add_edges(static_cast<offset_t>(pending_));
    pending_ = h[1];
    std::swap(front_, next_front_);
    return static_cast<offset_t>(h[0]);
  }

 private:
  context& ctx() { return space().ctx; }
  const context& ctx() const { return space().ctx; }
  cudaStream_t stream() const { return space().stream(); }
  static long long words(index_t rows) {
    return (static_cast<long long>(rows) + word_bits - 1) / word_bits;
  }

  unsigned long long* pinned_counters() {
    return static_cast<unsigned long long*>(ctx().pinned(4 * sizeof(unsigned long long)));
  }

  /// The vertices pull_heavy_kernel takes (once per graph and direction; one readback).
  void list_heavy(const device_csr<pattern>& t) {
    if (heavy_n_ >= 0) return;
    heavy_.reserve(static_cast<std::size_t>(t.rows()));
    heavy_n_ = rows_longer_than(ctx(), t.view(), heavy_degree, heavy_.data());
  }

  device_csr<pattern> at_;
  device_buffer<word> visited_, front_, next_front_, done_;
  device_buffer<unsigned> level_count_;
  device_buffer<index_t> heavy_;  ///< vertices with > heavy_degree in-neighbours
  long long heavy_n_ = -1;        ///< -1: not listed for this graph yet
  device_buffer<unsigned long long> counters_;
  bool has_transpose_ = false;
  unsigned long long pending_ = 0;
  std::size_t pull_smem_allowed_ = 0;
};

}  // namespace

std::unique_ptr<backend> make_gpu_backend() { return std::make_unique<gpu_backend>(); }

}  // namespace opsparse::msbfs
