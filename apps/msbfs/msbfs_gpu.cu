// msbfs::backend on the GPU engine: one opsparse::context and one opsparse::plan for every level
// of every batch; A, F and V stay on the device, and every buffer is grow-only, so once the
// largest level has been seen a level allocates nothing.
//   push  F ← (F·A)<¬V> with the engine (any_pair, complemented mask), then the merge V ∪ F
//         with the new level as the value (a device kernel); the summaries are read off V.
//   pull  (after the switch, see msbfs.hpp) F and V as bitmaps, n × W 64-bit words, W = ⌈b/64⌉;
//         one kernel per level: each (vertex, word) ORs its in-neighbours' frontier words, and
//         the new bits are counted per source in shared memory, so that the per-source reached
//         count, level sum and eccentricity are kept up to date without V.
// A level reads back one small block of counters (nnz(F), and before a push the cost of the
// next push, which the switch rule needs).
#include <cub/device/device_scan.cuh>

#include <utility>

#include "msbfs/msbfs.hpp"
#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/spgemm.hpp"
#include "opsparse/detail/device_ops.cuh"

namespace opsparse::msbfs {

namespace {

constexpr int block = 256;
constexpr int warp = 32;

unsigned grid_for(long long items) { return static_cast<unsigned>((items + block - 1) / block); }

void check_launch() { OPSPARSE_CUDA_TRY(cudaGetLastError()); }

/// m_rpt = v_rpt + f_rpt: the rows of V ∪ F are exactly as long as both together (disjoint).
__global__ void merged_rpt_kernel(index_t rows, const offset_t* v_rpt, const offset_t* f_rpt,
                                  offset_t* m_rpt) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i <= rows) m_rpt[i] = v_rpt[i] + f_rpt[i];
}

/// The row holding entry p: the last r with rpt[r] <= p.
__device__ index_t row_of(const offset_t* rpt, index_t rows, offset_t p) {
  index_t lo = 0, hi = rows;  // rpt[lo] <= p < rpt[hi]
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (rpt[mid] <= p) lo = mid; else hi = mid;
  }
  return lo;
}

/// Entries of the sorted row [lo, hi) smaller than key.
__device__ offset_t count_below(const index_t* col, offset_t lo, offset_t hi, index_t key) {
  const offset_t begin = lo;
  while (lo < hi) {
    const offset_t mid = lo + (hi - lo) / 2;
    if (col[mid] < key) lo = mid + 1; else hi = mid;
  }
  return lo - begin;
}

/// One thread per entry of V and of F: an entry's place in the merged row is its place in its
/// own row plus the number of entries of the other row below it (merge path by binary search,
/// no ties since the rows are disjoint). F's entries take the value `level`.
__global__ void merge_kernel(index_t rows, const offset_t* v_rpt, const index_t* v_col,
                             const level_t* v_val, offset_t v_nnz, const offset_t* f_rpt,
                             const index_t* f_col, offset_t f_nnz, level_t level,
                             const offset_t* m_rpt, index_t* m_col, level_t* m_val) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t < v_nnz) {
    const offset_t p = t;
    const index_t r = row_of(v_rpt, rows, p);
    const index_t c = v_col[p];
    const offset_t at = m_rpt[r] + (p - v_rpt[r]) + count_below(f_col, f_rpt[r], f_rpt[r + 1], c);
    m_col[at] = c;
    m_val[at] = v_val[p];
  } else if (t < v_nnz + f_nnz) {
    const offset_t q = t - v_nnz;
    const index_t r = row_of(f_rpt, rows, q);
    const index_t c = f_col[q];
    const offset_t at = m_rpt[r] + (q - f_rpt[r]) + count_below(v_col, v_rpt[r], v_rpt[r + 1], c);
    m_col[at] = c;
    m_val[at] = level;
  }
}

struct row_summary {
  long long reached;
  long long level_sum;
  int eccentricity;
};

/// One warp per row of V: reached, sum of levels, largest level.
__global__ void summary_kernel(index_t rows, const offset_t* rpt, const level_t* val,
                               row_summary* out) {
  const long long r = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / warp;
  const int lane = threadIdx.x % warp;
  if (r >= rows) return;
  long long sum = 0;
  int most = 0;
  for (offset_t p = rpt[r] + lane; p < rpt[r + 1]; p += warp) {
    sum += val[p];
    most = max(most, static_cast<int>(val[p]));
  }
  for (int off = warp / 2; off > 0; off /= 2) {
    sum += __shfl_down_sync(0xffffffffu, sum, off);
    most = max(most, __shfl_down_sync(0xffffffffu, most, off));
  }
  if (lane == 0) out[r] = {static_cast<long long>(rpt[r + 1] - rpt[r]), sum, most};
}


using word = unsigned long long;
constexpr int word_bits = 64;

__device__ __forceinline__ long long out_degree(const offset_t* rpt, index_t v) {
  return static_cast<long long>(rpt[v + 1] - rpt[v]);
}

/// counters[0] += Σ over the entries (r, v) of a row-major pattern of deg(v): the products of
/// the push that would expand it.
__global__ void degree_sum_kernel(offset_t nnz, const index_t* col, const offset_t* a_rpt,
                                  unsigned long long* counter) {
  unsigned long long sum = 0;
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < nnz;
       p += static_cast<long long>(gridDim.x) * blockDim.x)
    sum += static_cast<unsigned long long>(out_degree(a_rpt, col[p]));
  for (int off = warp / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (threadIdx.x % warp == 0 && sum != 0) atomicAdd(counter, sum);
}

/// One warp per row r of a pattern: sets bit r of every listed vertex's words.
__global__ void scatter_rows_kernel(index_t rows, const offset_t* rpt, const index_t* col, int W,
                                    word* bits) {
  const long long r = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / warp;
  const int lane = threadIdx.x % warp;
  if (r >= rows) return;
  const int w = static_cast<int>(r / word_bits);
  const word bit = word{1} << (r % word_bits);
  for (offset_t p = rpt[r] + lane; p < rpt[r + 1]; p += warp)
    atomicOr(bits + static_cast<long long>(col[p]) * W + w, bit);
}

/// The per-source counters of the pull levels, started from V's summaries; sources beyond the
/// batch (the last word's spare bits) and sources whose search has ended are `done`.
__global__ void start_pull_kernel(index_t rows, int W, const row_summary* from, row_summary* to,
                                  word* done) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows) to[t] = from[t];
  if (t < W) {
    word d = 0;
    for (int k = 0; k < word_bits; ++k)
      if (static_cast<long long>(t) * word_bits + k >= rows) d |= word{1} << k;
    done[t] = d;
  }
}

/// One pull level. Thread (v, w): the OR of the frontier words w of v's in-neighbours, less what
/// v has seen; stops early once every source of the word has reached v or finished. New bits are
/// counted per source (shared atomics, flushed once per block) and their out-degrees summed (the
/// edges the next level expands).
__global__ void pull_kernel(index_t n, int W, const offset_t* t_rpt, const index_t* t_col,
                            const offset_t* a_rpt, const word* front, const word* done,
                            word* visited, word* next, unsigned* level_count,
                            unsigned long long* counters) {
  extern __shared__ unsigned s_count[];  // W * 64
  for (int k = threadIdx.x; k < W * word_bits; k += blockDim.x) s_count[k] = 0;
  __syncthreads();
  unsigned long long found = 0, expand = 0;
  const long long items = static_cast<long long>(n) * W;
  for (long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; t < items;
       t += static_cast<long long>(gridDim.x) * blockDim.x) {
    const index_t v = static_cast<index_t>(t / W);
    const int w = static_cast<int>(t % W);
    const word seen = visited[t] | done[w];
    word fresh = 0;
    if (seen != ~word{0}) {
      word acc = 0;
      for (offset_t p = t_rpt[v], e = t_rpt[v + 1]; p < e; ++p) {
        acc |= front[static_cast<long long>(t_col[p]) * W + w];
        if ((acc | seen) == ~word{0}) break;
      }
      fresh = acc & ~seen;
      if (fresh != 0) visited[t] |= fresh;
    }
    next[t] = fresh;
    if (fresh != 0) {
      const int c = __popcll(fresh);
      found += c;
      expand += static_cast<unsigned long long>(c) * out_degree(a_rpt, v);
      for (word x = fresh; x != 0; x &= x - 1)
        atomicAdd(s_count + w * word_bits + (__ffsll(static_cast<long long>(x)) - 1), 1u);
    }
  }
  for (int off = warp / 2; off > 0; off /= 2) {
    found += __shfl_down_sync(0xffffffffu, found, off);
    expand += __shfl_down_sync(0xffffffffu, expand, off);
  }
  if (threadIdx.x % warp == 0) {
    if (found != 0) atomicAdd(counters + 0, found);
    if (expand != 0) atomicAdd(counters + 1, expand);
  }
  __syncthreads();
  for (int k = threadIdx.x; k < W * word_bits; k += blockDim.x)
    if (s_count[k] != 0) atomicAdd(level_count + k, s_count[k]);
}

/// After a pull level: the per-source counters, the sources whose search ended, and the level's
/// counts cleared for the next.
__global__ void finish_pull_level_kernel(index_t rows, level_t level, unsigned* level_count,
                                         row_summary* summary, word* done) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const unsigned c = level_count[r];
  level_count[r] = 0;
  if (c != 0) {
    summary[r].reached += c;
    summary[r].level_sum += static_cast<long long>(c) * level;
    summary[r].eccentricity = level;
  } else {
    atomicOr(done + r / word_bits, word{1} << (r % word_bits));
  }
}

/// Aᵀ's row lengths (counted with atomics) ...
__global__ void count_columns_kernel(offset_t nnz, const index_t* col, offset_t* count) {
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < nnz;
       p += static_cast<long long>(gridDim.x) * blockDim.x)
    atomicAdd(reinterpret_cast<unsigned long long*>(count + col[p]), 1ull);
}

/// ... and its columns, placed through per-row cursors (rows unsorted: a pull ORs them).
__global__ void fill_transpose_kernel(index_t n, const offset_t* rpt, const index_t* col,
                                      offset_t* cursor, index_t* t_col) {
  const long long r = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / warp;
  const int lane = threadIdx.x % warp;
  if (r >= n) return;
  for (offset_t p = rpt[r] + lane; p < rpt[r + 1]; p += warp) {
    const offset_t at = static_cast<offset_t>(
        atomicAdd(reinterpret_cast<unsigned long long*>(cursor + col[p]), 1ull));
    t_col[at] = static_cast<index_t>(r);
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
        const bool pays = push_cost * 4 > static_cast<unsigned long long>(a_.nnz()) * W;
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
    if (!pulling_) {
      summary_.reserve(static_cast<std::size_t>(rows));
      summary_kernel<<<grid_for(static_cast<long long>(rows) * warp), block, 0, stream()>>>(
          rows, v_.rpt(), v_.val(), summary_.data());
      check_launch();
    }
    std::vector<row_summary> host(static_cast<std::size_t>(rows));
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(host.data(), summary_.data(),
                                      host.size() * sizeof(row_summary), cudaMemcpyDeviceToHost,
                                      stream()));
    ctx_.synchronize();
    for (std::size_t r = 0; r < host.size(); ++r) {
      out[r].reached = host[r].reached;
      out[r].level_sum = host[r].level_sum;
      out[r].eccentricity = host[r].eccentricity;
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
  std::string last_batch_note() const override {
    if (pull_levels_ == 0) return "push";
    return "push " + std::to_string(push_levels_) + ", pull " + std::to_string(pull_levels_);
  }
  offset_t batch_budget() const override {
    // Bits per bitmap: three bitmaps (V, F, next F) within a quarter of the free memory, at
    // most 2^32 bits (1024 sources on 4M vertices).
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return offset_t{1} << 26;
    const offset_t by_memory = static_cast<offset_t>(free_b / 4 / 3 * 8);
    return std::max<offset_t>(offset_t{1} << 20, std::min<offset_t>(offset_t{1} << 32, by_memory));
  }

 private:
  cudaStream_t stream() const { return ctx_.stream(); }
  static long long words(index_t rows) { return (static_cast<long long>(rows) + word_bits - 1) / word_bits; }

  /// The pull kernel counts a level's new bits per source in shared memory.
  bool pull_fits(index_t rows) const {
    const std::size_t need = static_cast<std::size_t>(words(rows)) * word_bits * sizeof(unsigned);
    return need + ctx_.device().smem_reserved_per_block <= ctx_.device().smem_per_block_optin;
  }

  /// Σ deg(v) over F's entries (one readback).
  unsigned long long next_push_products() {
    counters_.reserve(4);
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(counters_.data(), 0, 4 * sizeof(unsigned long long), stream()));
    degree_sum_kernel<<<static_cast<unsigned>(std::min<long long>(grid_for(f_.nnz()), 4096)), block, 0, stream()>>>(
        f_.nnz(), f_.col(), a_.rpt(), counters_.data());
    check_launch();
    unsigned long long* h = pinned_counters();
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(h, counters_.data(), sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, stream()));
    ctx_.synchronize();
    return h[0];
  }

  unsigned long long* pinned_counters() {
    return static_cast<unsigned long long*>(ctx_.pinned(4 * sizeof(unsigned long long)));
  }

  offset_t push(level_t level) {
    const index_t rows = f_.rows();
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
    const offset_t v_nnz = v_.nnz();
    next_v_.set_shape(rows, v_.cols());
    merged_rpt_kernel<<<grid_for(static_cast<long long>(rows) + 1), block, 0, stream()>>>(
        rows, v_.rpt(), f_.rpt(), next_v_.rpt());
    check_launch();
    next_v_.set_nnz(v_nnz + f_nnz);
    merge_kernel<<<grid_for(v_nnz + f_nnz), block, 0, stream()>>>(
        rows, v_.rpt(), v_.col(), v_.val(), v_nnz, f_.rpt(), f_.col(), f_nnz, level,
        next_v_.rpt(), next_v_.col(), next_v_.val());
    check_launch();
    std::swap(v_, next_v_);
    return f_nnz;
  }

  /// Aᵀ on the device (only for a graph not known to be symmetric).
  void build_transpose() {
    const index_t n = a_.rows();
    const offset_t nnz = a_.nnz();
    at_.set_shape(n, n);
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(at_.rpt(), 0, (static_cast<std::size_t>(n) + 1) * sizeof(offset_t), stream()));
    count_columns_kernel<<<static_cast<unsigned>(std::min<long long>(grid_for(nnz), 8192)), block, 0, stream()>>>(
        nnz, a_.col(), at_.rpt());
    check_launch();
    std::size_t bytes = 0;
    OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, at_.rpt(), at_.rpt(),
                                                    static_cast<long long>(n) + 1, stream()));
    scan_tmp_.reserve(bytes + 16);
    OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_tmp_.data(), bytes, at_.rpt(), at_.rpt(),
                                                    static_cast<long long>(n) + 1, stream()));
    at_.set_nnz(nnz);
    cursor_.reserve(static_cast<std::size_t>(n) + 1);
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(cursor_.data(), at_.rpt(), (static_cast<std::size_t>(n) + 1) * sizeof(offset_t),
                                      cudaMemcpyDeviceToDevice, stream()));
    fill_transpose_kernel<<<grid_for(static_cast<long long>(n) * warp), block, 0, stream()>>>(
        n, a_.rpt(), a_.col(), cursor_.data(), at_.col());
    check_launch();
    has_transpose_ = true;
  }

  /// F and V to bitmaps, V's summaries to the per-source counters; `pending` (the products the
  /// push of F would have made) becomes the edges the first pull level expands.
  void switch_to_pull(unsigned long long pending) {
    const index_t rows = f_.rows(), n = a_.rows();
    const long long W = words(rows);
    const std::size_t cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(W);
    if (!symmetric_ && !has_transpose_) build_transpose();
    visited_.reserve(cells);
    front_.reserve(cells);
    next_front_.reserve(cells);
    done_.reserve(static_cast<std::size_t>(W));
    level_count_.reserve(static_cast<std::size_t>(W * word_bits));
    summary_.reserve(static_cast<std::size_t>(rows));
    pull_summary_.reserve(static_cast<std::size_t>(rows));
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(visited_.data(), 0, cells * sizeof(word), stream()));
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(front_.data(), 0, cells * sizeof(word), stream()));
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(level_count_.data(), 0, W * word_bits * sizeof(unsigned), stream()));
    const unsigned row_grid = grid_for(static_cast<long long>(rows) * warp);
    scatter_rows_kernel<<<row_grid, block, 0, stream()>>>(rows, v_.rpt(), v_.col(), static_cast<int>(W), visited_.data());
    check_launch();
    scatter_rows_kernel<<<row_grid, block, 0, stream()>>>(rows, f_.rpt(), f_.col(), static_cast<int>(W), front_.data());
    check_launch();
    summary_kernel<<<row_grid, block, 0, stream()>>>(rows, v_.rpt(), v_.val(), pull_summary_.data());
    check_launch();
    start_pull_kernel<<<grid_for(std::max<long long>(rows, W)), block, 0, stream()>>>(
        rows, static_cast<int>(W), pull_summary_.data(), summary_.data(), done_.data());
    check_launch();
    pending_ = pending;
    pulling_ = true;
  }

  offset_t pull(level_t level) {
    const index_t rows = f_.rows(), n = a_.rows();
    const int W = static_cast<int>(words(rows));
    const device_csr<pattern>& t = symmetric_ ? a_ : at_;
    counters_.reserve(4);
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(counters_.data(), 0, 4 * sizeof(unsigned long long), stream()));
    const std::size_t smem = static_cast<std::size_t>(W) * word_bits * sizeof(unsigned);
    if (smem > 48 * 1024 && smem > pull_smem_allowed_) {  // once, not every level
      OPSPARSE_CUDA_TRY(cudaFuncSetAttribute(pull_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(smem)));
      pull_smem_allowed_ = smem;
    }
    const long long items = static_cast<long long>(n) * W;
    const long long resident = static_cast<long long>(ctx_.device().sm_count) *
                               std::max(ctx_.device().max_threads_per_sm / block, 1);
    const unsigned grid = static_cast<unsigned>(std::max<long long>(1, std::min<long long>(grid_for(items), resident)));
    pull_kernel<<<grid, block, smem, stream()>>>(n, W, t.rpt(), t.col(), a_.rpt(), front_.data(),
                                                 done_.data(), visited_.data(), next_front_.data(),
                                                 level_count_.data(), counters_.data());
    check_launch();
    finish_pull_level_kernel<<<grid_for(rows), block, 0, stream()>>>(
        rows, level, level_count_.data(), summary_.data(), done_.data());
    check_launch();
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
  device_buffer<row_summary> summary_, pull_summary_;
  device_buffer<word> visited_, front_, next_front_, done_;
  device_buffer<unsigned> level_count_;
  device_buffer<unsigned long long> counters_;
  device_buffer<offset_t> cursor_;
  device_buffer<char> scan_tmp_;
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
