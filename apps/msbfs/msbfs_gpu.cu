// msbfs::backend on the GPU engine: one opsparse::context and one opsparse::plan for every level
// of every batch; A, F and V stay on the device, and every matrix is grow-only, so once the
// largest level has been seen a level allocates nothing. The merge V ∪ F (with the new level as
// the value) and the per-source summaries are device kernels; a level reads back nothing beyond
// what the engine itself needs (nnz(F) sizes the merge on the host without another readback).
#include <utility>

#include "msbfs/msbfs.hpp"
#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/spgemm.hpp"

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

class gpu_backend final : public backend {
 public:
  const char* name() const override { return "gpu"; }

  void load(const host_csr<pattern>& a) override {
    OPSPARSE_EXPECTS(a.rows == a.cols, "BFS needs a square adjacency matrix");
    a_.assign(a, ctx_.stream());
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
    f_.assign(f, ctx_.stream());
    v_.assign(v, ctx_.stream());
  }

  offset_t advance(level_t level) override {
    const index_t rows = f_.rows();
    if (rows == 0 || f_.nnz() == 0 || a_.nnz() == 0) return 0;
    spgemm<any_pair>(ctx_, plan_, f_.view(), a_.view(), next_f_, device_mask<complement_mask>(v_));
    products_ += plan_.stats().products;
    std::swap(f_, next_f_);
    const offset_t f_nnz = f_.nnz();
    if (f_nnz == 0) {
      ctx_.synchronize();
      return 0;
    }
    const offset_t v_nnz = v_.nnz();
    next_v_.set_shape(rows, v_.cols());
    merged_rpt_kernel<<<grid_for(static_cast<long long>(rows) + 1), block, 0, ctx_.stream()>>>(
        rows, v_.rpt(), f_.rpt(), next_v_.rpt());
    check_launch();
    next_v_.set_nnz(v_nnz + f_nnz);
    merge_kernel<<<grid_for(v_nnz + f_nnz), block, 0, ctx_.stream()>>>(
        rows, v_.rpt(), v_.col(), v_.val(), v_nnz, f_.rpt(), f_.col(), f_nnz, level,
        next_v_.rpt(), next_v_.col(), next_v_.val());
    check_launch();
    std::swap(v_, next_v_);
    return f_nnz;
  }

  std::vector<source_summary> summarise() override {
    const index_t rows = v_.rows();
    std::vector<source_summary> out(static_cast<std::size_t>(rows));
    if (rows == 0) return out;
    summary_.reserve(static_cast<std::size_t>(rows));
    summary_kernel<<<grid_for(static_cast<long long>(rows) * warp), block, 0, ctx_.stream()>>>(
        rows, v_.rpt(), v_.val(), summary_.data());
    check_launch();
    std::vector<row_summary> host(static_cast<std::size_t>(rows));
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(host.data(), summary_.data(),
                                      host.size() * sizeof(row_summary), cudaMemcpyDeviceToHost,
                                      ctx_.stream()));
    ctx_.synchronize();
    for (std::size_t r = 0; r < host.size(); ++r) {
      out[r].reached = host[r].reached;
      out[r].level_sum = host[r].level_sum;
      out[r].eccentricity = host[r].eccentricity;
    }
    return out;
  }

  host_csr<level_t> levels() override {
    ctx_.synchronize();
    return v_.download(ctx_.stream());
  }

  offset_t products() const override { return products_; }
  offset_t batch_budget() const override { return offset_t{1} << 26; }

 private:
  context ctx_;
  plan plan_;
  device_csr<pattern> a_, f_, next_f_;
  device_csr<level_t> v_, next_v_;
  device_buffer<row_summary> summary_;
  offset_t products_ = 0;
};

}  // namespace

std::unique_ptr<backend> make_gpu_backend() { return std::make_unique<gpu_backend>(); }

}  // namespace opsparse::msbfs
