// msbfs::backend on the GPU engine: one opsparse::context and one opsparse::plan for every level
// of every batch; A, F and V stay on the device, and every buffer is grow-only, so once the
// largest level has been seen a level allocates nothing.
//   push  F ← (F·A)<¬V> with the engine (any_pair, complemented mask), then V ← V ∪ F with the
//         new level as F's value (ewise_add, disjoint: F was computed under ¬V); the summaries
//         are row reductions of V (reduce_rows).
//   pull  (after the switch, see msbfs.hpp) F and V as bitmaps, n × W 64-bit words, W = ⌈b/64⌉;
//         one kernel per level: each (vertex, word) ORs its in-neighbours' frontier words, and
//         the new bits are counted per source in shared memory, so that the per-source reached
//         count, level sum and eccentricity are kept up to date without V.
// A level reads back one small block of counters (nnz(F), and before a push the cost of the
// next push, which the switch rule needs).
#include <algorithm>
#include <utility>

#include "msbfs/msbfs.hpp"
#include "opsparse/context.hpp"
#include "opsparse/detail/util/device_utils.cuh"
#include "opsparse/detail/util/launch.hpp"
#include "opsparse/device_csr.hpp"
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

class gpu_backend final : public backend {
 public:
  const char* name() const override { return "gpu"; }

  void load(const host_csr<pattern>& a, bool symmetric) override {
    OPSPARSE_EXPECTS(a.rows == a.cols, "BFS needs a square adjacency matrix");
    a_.assign(a, stream());
    symmetric_ = symmetric;
    has_transpose_ = false;
    heavy_n_ = -1;
  }

  void configure(direction dir, bool keep_levels) override {
    dir_ = dir;
    keep_levels_ = keep_levels;
  }

  void start(const std::vector<index_t>& sources) override {
    // F_0 and V_0 have one entry per row: built on the host (b entries) and uploaded.
    const index_t b = static_cast<index_t>(sources.size());
    host_csr<pattern> f(b, a_.cols());
    host_csr<level_t> v(b, a_.cols());
    for (index_t r = 0; r < b; ++r) {
      OPSPARSE_EXPECTS(sources[r] >= 0 && sources[r] < a_.rows(), "source out of range");
      f.col.push_back(sources[r]);
      f.rpt[r + 1] = r + 1;
    }
    v.rpt = f.rpt;
    v.col = f.col;
    v.val.assign(sources.size(), 0);
    f_.assign(f, stream());
    v_.assign(v, stream());
    pulling_ = false;
    push_levels_ = pull_levels_ = 0;
  }

  offset_t advance(level_t level) override {
    const index_t rows = f_.rows();
    if (rows == 0 || a_.nnz() == 0) return 0;
    if (!pulling_) {
      if (f_.nnz() == 0) return 0;
      if (dir_ != direction::push && !keep_levels_ && pull_fits(rows)) {
        const unsigned long long push_cost = next_push_products();
        const long long W = words(rows);
        const bool pays =
            push_cost * pull_word_per_product > static_cast<unsigned long long>(a_.nnz()) * W;
        const bool too_big = v_.nnz() + f_.nnz() > 2 * static_cast<long long>(a_.rows()) * W;
        if (dir_ == direction::pull || pays || too_big) switch_to_pull(push_cost);
      }
    }
    if (pulling_) return pull(level);
    return push(level);
  }

  std::vector<source_summary> summarise() override {
    const index_t rows = v_.rows();
    std::vector<source_summary> out(static_cast<std::size_t>(rows));
    if (rows == 0) return out;
    if (!pulling_) summarise_levels(rows);
    const std::size_t n = static_cast<std::size_t>(rows);
    std::vector<long long> reached(n), level_sum(n);
    std::vector<int> ecc(n);
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(reached.data(), reached_.data(), n * sizeof(long long),
                                      cudaMemcpyDeviceToHost, stream()));
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(level_sum.data(), level_sum_.data(), n * sizeof(long long),
                                      cudaMemcpyDeviceToHost, stream()));
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(ecc.data(), ecc_.data(), n * sizeof(int),
                                      cudaMemcpyDeviceToHost, stream()));
    ctx_.synchronize();
    for (std::size_t r = 0; r < n; ++r) {
      out[r].reached = reached[r];
      out[r].level_sum = level_sum[r];
      out[r].eccentricity = ecc[r];
    }
    return out;
  }

  host_csr<level_t> levels() override {
    OPSPARSE_EXPECTS(!pulling_, "levels() needs configure(..., keep_levels = true) before start()");
    ctx_.synchronize();
    return v_.download(stream());
  }

  offset_t products() const override { return products_; }
  offset_t edges_traversed() const override { return edges_; }
  const char* last_level_note() const override { return pulling_ ? "pull" : "push"; }
  std::string last_batch_note() const override {
    if (pull_levels_ == 0) return "push";
    return "push " + std::to_string(push_levels_) + ", pull " + std::to_string(pull_levels_);
  }
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

 private:
  cudaStream_t stream() const { return ctx_.stream(); }
  static long long words(index_t rows) {
    return (static_cast<long long>(rows) + word_bits - 1) / word_bits;
  }

  /// The pull kernel counts a level's new bits per source in shared memory.
  bool pull_fits(index_t rows) const {
    const std::size_t need = static_cast<std::size_t>(words(rows)) * word_bits * sizeof(unsigned);
    return need + ctx_.device().smem_reserved_per_block <= ctx_.device().smem_per_block_optin;
  }

  /// Σ deg(v) over F's entries (one readback).
  unsigned long long next_push_products() {
    return static_cast<unsigned long long>(
        reduce<plus_monoid<offset_t>>(ctx_, f_.view(), row_length_of{a_.rpt()}));
  }

  /// Each source's reached count, level sum and eccentricity from V's rows.
  void summarise_levels(index_t rows) {
    const std::size_t n = static_cast<std::size_t>(rows);
    reached_.reserve(n);
    level_sum_.reserve(n);
    ecc_.reserve(n);
    reduce_rows<plus_monoid<long long>>(ctx_, v_.view(), count_one<long long>{}, reached_.data());
    reduce_rows<plus_monoid<long long>>(ctx_, v_.view(), value_as<long long>{}, level_sum_.data());
    reduce_rows<max_monoid<int>>(ctx_, v_.view(), value_as<int>{}, ecc_.data());
  }

  unsigned long long* pinned_counters() {
    return static_cast<unsigned long long*>(ctx_.pinned(4 * sizeof(unsigned long long)));
  }

  offset_t push(level_t level) {
    spgemm<any_pair>(ctx_, plan_, f_.view(), a_.view(), next_f_, device_mask<complement_mask>(v_));
    products_ += plan_.stats().products;
    edges_ += plan_.stats().products;
    ++push_levels_;
    std::swap(f_, next_f_);
    const offset_t f_nnz = f_.nnz();
    if (f_nnz == 0) {
      ctx_.synchronize();
      return 0;
    }
    ewise_add(ctx_, v_.view(), f_.view(), union_fill<level_t>{level}, next_v_, /*disjoint=*/true);
    std::swap(v_, next_v_);
    return f_nnz;
  }

  /// The vertices pull_heavy_kernel takes (once per graph and direction; one readback).
  void list_heavy(const device_csr<pattern>& t) {
    if (heavy_n_ >= 0) return;
    heavy_.reserve(static_cast<std::size_t>(t.rows()));
    heavy_n_ = rows_longer_than(ctx_, t.view(), heavy_degree, heavy_.data());
  }

  /// F and V to bitmaps, V's summaries to the per-source counters; `pending` (the products the
  /// push of F would have made) becomes the edges the first pull level expands.
  void switch_to_pull(unsigned long long pending) {
    const index_t rows = f_.rows(), n = a_.rows();
    const long long W = words(rows);
    const std::size_t cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(W);
    if (!symmetric_ && !has_transpose_) {  // Aᵀ only for a graph not known to be symmetric
      transpose(ctx_, a_.view(), at_);
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
    scatter_rows_kernel<<<row_grid, block, 0, stream()>>>(rows, v_.rpt(), v_.col(),
                                                          static_cast<int>(W), visited_.data());
    check_launch("scatter_rows_kernel");
    scatter_rows_kernel<<<row_grid, block, 0, stream()>>>(rows, f_.rpt(), f_.col(),
                                                          static_cast<int>(W), front_.data());
    check_launch("scatter_rows_kernel");
    // the pull levels keep the summaries up to date from here
    summarise_levels(rows);
    // sources past the batch (the last word's spare bits) count as done from the start
    OPSPARSE_CUDA_TRY(
        cudaMemsetAsync(done_.data(), 0, static_cast<std::size_t>(W) * sizeof(word), stream()));
    if (rows % word_bits != 0) {
      const word spare =
          ~word{0} << (rows % word_bits);  // pageable: staged before the call returns
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(done_.data() + (W - 1), &spare, sizeof(word),
                                        cudaMemcpyHostToDevice, stream()));
    }
    list_heavy(symmetric_ ? a_ : at_);
    pending_ = pending;
    pulling_ = true;
  }

  offset_t pull(level_t level) {
    const index_t rows = f_.rows(), n = a_.rows();
    const int W = static_cast<int>(words(rows));
    const device_csr<pattern>& t = symmetric_ ? a_ : at_;
    counters_.reserve(4);
    OPSPARSE_CUDA_TRY(
        cudaMemsetAsync(counters_.data(), 0, 4 * sizeof(unsigned long long), stream()));
    const std::size_t smem = static_cast<std::size_t>(W) * word_bits * sizeof(unsigned);
    if (smem > 48 * 1024 && smem > pull_smem_allowed_) {  // once, not every level
      OPSPARSE_CUDA_TRY(cudaFuncSetAttribute(
          pull_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
      pull_smem_allowed_ = smem;
    }
    const long long items = static_cast<long long>(n) * W;
    const long long resident = static_cast<long long>(ctx_.device().sm_count) *
                               std::max(ctx_.device().max_threads_per_sm / block, 1);
    const unsigned grid = static_cast<unsigned>(
        std::max<long long>(1, std::min<long long>(grid_for(items), resident)));
    pull_kernel<<<grid, block, smem, stream()>>>(n, W, t.rpt(), t.col(), a_.rpt(), front_.data(),
                                                 done_.data(), visited_.data(), next_front_.data(),
                                                 level_count_.data(), counters_.data());
    check_launch("pull_kernel");
    if (heavy_n_ > 0) {
      const long long heavy_grid = std::min<long long>(heavy_n_, 4LL * ctx_.device().sm_count);
      pull_heavy_kernel<<<static_cast<unsigned>(heavy_grid), heavy_block, 0, stream()>>>(
          heavy_.data(), heavy_n_, W, t.rpt(), t.col(), a_.rpt(), front_.data(), done_.data(),
          visited_.data(), next_front_.data(), level_count_.data(), counters_.data());
      check_launch("pull_heavy_kernel");
    }
    finish_pull_level_kernel<<<grid_for(rows), block, 0, stream()>>>(
        rows, level, level_count_.data(),
        summaries{reached_.data(), level_sum_.data(), ecc_.data()}, done_.data());
    check_launch("finish_pull_level_kernel");
    unsigned long long* h = pinned_counters();
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(h, counters_.data(), 2 * sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, stream()));
    ctx_.synchronize();
    // This level expanded the frontier it started from; the new one is expanded next time.
    edges_ += static_cast<offset_t>(pending_);
    pending_ = h[1];
    ++pull_levels_;
    std::swap(front_, next_front_);
    return static_cast<offset_t>(h[0]);
  }

  context ctx_;
  plan plan_;
  device_csr<pattern> a_, at_, f_, next_f_;
  device_csr<level_t> v_, next_v_;
  device_buffer<long long> reached_, level_sum_;  ///< per source (summaries)
  device_buffer<int> ecc_;
  device_buffer<word> visited_, front_, next_front_, done_;
  device_buffer<unsigned> level_count_;
  device_buffer<index_t> heavy_;  ///< vertices with > heavy_degree in-neighbours
  long long heavy_n_ = -1;        ///< -1: not listed for this graph yet
  device_buffer<unsigned long long> counters_;
  direction dir_ = direction::automatic;
  bool keep_levels_ = false, symmetric_ = false, has_transpose_ = false, pulling_ = false;
  unsigned long long pending_ = 0;
  std::size_t pull_smem_allowed_ = 0;
  int push_levels_ = 0, pull_levels_ = 0;
  offset_t products_ = 0, edges_ = 0;
};

}  // namespace

std::unique_ptr<backend> make_gpu_backend() { return std::make_unique<gpu_backend>(); }

}  // namespace opsparse::msbfs
