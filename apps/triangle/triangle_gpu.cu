// triangle::backend on the GPU engine: one opsparse::context and one opsparse::plan for every
// product; A, L, U and C stay on the device. The degree relabelling (CUB radix sort, permuted
// rows, CUB segmented sort), the L/U extraction, sum(C) (CUB reduce) and the per-vertex
// reductions are device kernels; the host only reads back scalars (nnz of a new matrix, the sum)
// and, when asked, the n per-vertex counts.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <stdexcept>

#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/spgemm.hpp"
#include "opsparse/spgemm_reduce.hpp"
#include "triangle/triangle.hpp"

namespace opsparse::triangle {

namespace {

// The GPU engine is instantiated for plus_pair<long long> (libopsparse/src/spgemm_graph.cu);
// std::int64_t is `long` on Linux, a different type.
using count_t = long long;

constexpr int block = 256;
constexpr int warp = 32;

unsigned grid_for(long long items) { return static_cast<unsigned>((items + block - 1) / block); }
unsigned warp_grid_for(long long rows) { return grid_for(rows * warp); }

void check_launch() { OPSPARSE_CUDA_TRY(cudaGetLastError()); }

__global__ void degree_kernel(index_t n, const offset_t* rpt, index_t* deg, index_t* iota) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) {
    deg[i] = static_cast<index_t>(rpt[i + 1] - rpt[i]);
    iota[i] = static_cast<index_t>(i);
  }
}

/// order[new] = old  ->  new_of_old[old] = new.
__global__ void invert_kernel(index_t n, const index_t* order, index_t* new_of_old) {
  const long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (r < n) new_of_old[order[r]] = static_cast<index_t>(r);
}

/// total ← step ∘ total (a second relabelling after a first one).
__global__ void compose_kernel(index_t n, const index_t* step, index_t* total) {
  const long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (v < n) total[v] = step[total[v]];
}

/// Row lengths of P·A·Pᵀ into out[0..n), out[n] = 0, ready for an exclusive scan of n+1.
__global__ void permuted_lengths_kernel(index_t n, const index_t* order, const offset_t* rpt,
                                        offset_t* out) {
  const long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (r < n) {
    const index_t v = order[r];
    out[r] = rpt[v + 1] - rpt[v];
  } else if (r == n) {
    out[n] = 0;
  }
}

/// One warp per new row: the old row's columns, relabelled (unsorted; sorted afterwards).
__global__ void permute_fill_kernel(index_t n, const index_t* order, const index_t* new_of_old,
                                    const offset_t* a_rpt, const index_t* a_col,
                                    const offset_t* p_rpt, index_t* p_col) {
  const long long r = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / warp;
  const int lane = threadIdx.x % warp;
  if (r >= n) return;
  const index_t v = order[r];
  const offset_t src = a_rpt[v], len = a_rpt[v + 1] - a_rpt[v], dst = p_rpt[r];
  for (offset_t k = lane; k < len; k += warp) p_col[dst + k] = new_of_old[a_col[src + k]];
}

/// First position in the sorted row [lo, hi) whose column is >= key.
__device__ offset_t lower_bound_col(const index_t* col, offset_t lo, offset_t hi, index_t key) {
  while (lo < hi) {
    const offset_t mid = lo + (hi - lo) / 2;
    if (col[mid] < key) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/// Row lengths of tril(A,-1) (lower) or triu(A,1) into out[0..n), out[n] = 0. Rows are sorted and
/// A has no diagonal, so L's row is the prefix below i and U's the suffix above it.
__global__ void triangle_lengths_kernel(index_t n, const offset_t* rpt, const index_t* col,
                                        bool lower, offset_t* out) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) {
    const offset_t split = lower_bound_col(col, rpt[i], rpt[i + 1], static_cast<index_t>(i));
    out[i] = lower ? split - rpt[i] : rpt[i + 1] - split;
  } else if (i == n) {
    out[n] = 0;
  }
}

/// One warp per row: copies the prefix (L) or suffix (U) of A's row.
__global__ void triangle_fill_kernel(index_t n, const offset_t* rpt, const index_t* col, bool lower,
                                     const offset_t* t_rpt, index_t* t_col) {
  const long long i = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / warp;
  const int lane = threadIdx.x % warp;
  if (i >= n) return;
  const offset_t len = t_rpt[i + 1] - t_rpt[i];
  const offset_t src = lower ? rpt[i] : rpt[i + 1] - len;
  for (offset_t k = lane; k < len; k += warp) t_col[t_rpt[i] + k] = col[src + k];
}

/// One warp per row of C: counts[i] += rowsum (rows), counts[j] += C(i,j) (cols).
__global__ void vertex_counts_kernel(index_t n, const offset_t* rpt, const index_t* col,
                                     const count_t* val, bool rows, bool cols, count_t* counts) {
  const long long i = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / warp;
  const int lane = threadIdx.x % warp;
  if (i >= n) return;
  count_t sum = 0;
  for (offset_t p = rpt[i] + lane; p < rpt[i + 1]; p += warp) {
    sum += val[p];
    if (cols)
      atomicAdd(reinterpret_cast<unsigned long long*>(counts + col[p]),
                static_cast<unsigned long long>(val[p]));
  }
  if (!rows) return;
  for (int off = warp / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0 && sum != 0)
    atomicAdd(reinterpret_cast<unsigned long long*>(counts + i), static_cast<unsigned long long>(sum));
}

/// out[v] = counts[new_of_old[v]]: back to the loaded numbering.
__global__ void gather_kernel(index_t n, const index_t* new_of_old, const count_t* counts,
                              count_t* out) {
  const long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (v < n) out[v] = counts[new_of_old[v]];
}

class gpu_backend final : public backend {
 public:
  const char* name() const override { return "gpu"; }

  void load(const host_csr<pattern>& a) override {
    OPSPARSE_EXPECTS(a.rows == a.cols, "triangle counting needs a square matrix");
    n_ = a.rows;
    a_.assign(a, stream());
    has_l_ = has_u_ = permuted_ = false;
    counts_.reserve(static_cast<std::size_t>(n_) + 1);
    warm_up();
  }

  void sort_by_degree(bool ascending) override {
    if (n_ == 0) return;
    const std::size_t n = static_cast<std::size_t>(n_);
    deg_.reserve(n);
    deg_sorted_.reserve(n);
    iota_.reserve(n);
    order_.reserve(n);
    step_.reserve(n);
    new_of_old_.reserve(n);
    degree_kernel<<<grid_for(n_), block, 0, stream()>>>(n_, a_.rpt(), deg_.data(), iota_.data());
    check_launch();
    // Radix sort is stable: equal degrees keep their vertex order, as on the CPU backend.
    const int bits = 8 * static_cast<int>(sizeof(index_t));
    if (ascending)
      cub_call([&](void* tmp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(tmp, bytes, deg_.data(), deg_sorted_.data(),
                                               iota_.data(), order_.data(), n_, 0, bits, stream());
      });
    else
      cub_call([&](void* tmp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairsDescending(tmp, bytes, deg_.data(),
                                                         deg_sorted_.data(), iota_.data(),
                                                         order_.data(), n_, 0, bits, stream());
      });
    invert_kernel<<<grid_for(n_), block, 0, stream()>>>(n_, order_.data(), step_.data());
    check_launch();
    if (!permuted_)
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(new_of_old_.data(), step_.data(), n * sizeof(index_t),
                                        cudaMemcpyDeviceToDevice, stream()));
    else
      compose_kernel<<<grid_for(n_), block, 0, stream()>>>(n_, step_.data(), new_of_old_.data());
    check_launch();
    permuted_ = true;

    // P·A·Pᵀ into tmp_ (rows in their new places, columns relabelled but unsorted), then a
    // segmented sort back into a_ (same nnz, so a_'s arrays are large enough).
    const offset_t nnz = a_.nnz();
    tmp_.set_shape(n_, n_);
    permuted_lengths_kernel<<<grid_for(static_cast<long long>(n_) + 1), block, 0, stream()>>>(
        n_, order_.data(), a_.rpt(), tmp_.rpt());
    check_launch();
    exclusive_scan(tmp_.rpt());
    tmp_.set_nnz(nnz);
    permute_fill_kernel<<<warp_grid_for(n_), block, 0, stream()>>>(
        n_, order_.data(), new_of_old_step(), a_.rpt(), a_.col(), tmp_.rpt(), tmp_.col());
    check_launch();
    if (nnz > 0)
      cub_call([&](void* tmp, std::size_t& bytes) {
        return cub::DeviceSegmentedSort::SortKeys(tmp, bytes, tmp_.col(), a_.col(), nnz, n_,
                                                  tmp_.rpt(), tmp_.rpt() + 1, stream());
      });
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(a_.rpt(), tmp_.rpt(), (n + 1) * sizeof(offset_t),
                                      cudaMemcpyDeviceToDevice, stream()));
    has_l_ = has_u_ = false;  // derived from the old numbering
    ctx_.synchronize();
  }

  void extract(operand which) override {
    OPSPARSE_EXPECTS(which != operand::a, "extract takes L or U");
    const bool lower = which == operand::l;
    device_csr<pattern>& t = lower ? l_ : u_;
    t.set_shape(n_, n_);
    triangle_lengths_kernel<<<grid_for(static_cast<long long>(n_) + 1), block, 0, stream()>>>(
        n_, a_.rpt(), a_.col(), lower, t.rpt());
    check_launch();
    t.set_nnz(exclusive_scan(t.rpt()));
    if (n_ > 0) {
      triangle_fill_kernel<<<warp_grid_for(n_), block, 0, stream()>>>(n_, a_.rpt(), a_.col(), lower,
                                                                      t.rpt(), t.col());
      check_launch();
    }
    (lower ? has_l_ : has_u_) = true;
    ctx_.synchronize();
  }

  std::int64_t product(operand x, operand y, operand mask, bool keep) override {
    const device_csr<pattern>& mx = get(x);
    const device_csr<pattern>& my = get(y);
    const device_csr<pattern>& mm = get(mask);
    info_ = {};
    if (!keep) {
      // sum(C) alone: the reduction fused into the product, C never formed.
      info_.fused = true;
      const count_t sum = spgemm_reduce<plus_pair<count_t>>(
          ctx_, plan_, mx.view(), my.view(), device_mask<structural_mask>(mm));
      info_.products = plan_.stats().products;
      return static_cast<std::int64_t>(sum);
    }
    if (mx.nnz() == 0 || my.nnz() == 0 || mm.nnz() == 0) {
      // Nothing to multiply: an empty C without troubling the engine with empty operands.
      c_.set_shape(n_, n_);
      OPSPARSE_CUDA_TRY(cudaMemsetAsync(c_.rpt(), 0, (static_cast<std::size_t>(n_) + 1) *
                                                         sizeof(offset_t), stream()));
      c_.set_nnz(0);
      ctx_.synchronize();
      return 0;
    }
    spgemm<plus_pair<count_t>>(ctx_, plan_, mx.view(), my.view(), c_,
                               device_mask<structural_mask>(mm));
    info_.products = plan_.stats().products;
    info_.nnz = c_.nnz();
    if (c_.nnz() == 0) {
      ctx_.synchronize();
      return 0;
    }
    sum_.reserve(1);
    cub_call([&](void* tmp, std::size_t& bytes) {
      return cub::DeviceReduce::Sum(tmp, bytes, c_.val(), sum_.data(), c_.nnz(), stream());
    });
    count_t sum = 0;
    OPSPARSE_CUDA_TRY(
        cudaMemcpyAsync(&sum, sum_.data(), sizeof(count_t), cudaMemcpyDeviceToHost, stream()));
    ctx_.synchronize();
    return static_cast<std::int64_t>(sum);
  }

  product_info last_product() const override { return info_; }

  void reset_vertex_counts() override {
    if (n_ > 0)
      OPSPARSE_CUDA_TRY(cudaMemsetAsync(counts_.data(), 0,
                                        static_cast<std::size_t>(n_) * sizeof(count_t), stream()));
    ctx_.synchronize();
  }

  void add_vertex_counts(bool rows, bool cols) override {
    if (c_.nnz() > 0 && c_.rows() > 0) {
      vertex_counts_kernel<<<warp_grid_for(c_.rows()), block, 0, stream()>>>(
          c_.rows(), c_.rpt(), c_.col(), c_.val(), rows, cols, counts_.data());
      check_launch();
    }
    ctx_.synchronize();
  }

  std::vector<std::int64_t> vertex_counts() override {
    const std::size_t n = static_cast<std::size_t>(n_);
    std::vector<count_t> host(n);
    if (n > 0) {
      const count_t* src = counts_.data();
      if (permuted_) {
        counts_out_.reserve(n);
        gather_kernel<<<grid_for(n_), block, 0, stream()>>>(n_, new_of_old_.data(), counts_.data(),
                                                             counts_out_.data());
        check_launch();
        src = counts_out_.data();
      }
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(host.data(), src, n * sizeof(count_t),
                                        cudaMemcpyDeviceToHost, stream()));
    }
    ctx_.synchronize();
    return std::vector<std::int64_t>(host.begin(), host.end());
  }

 private:
  cudaStream_t stream() const { return ctx_.stream(); }

  /// The fused count on a 1×1 graph: CUDA loads a kernel's module at its first launch (lazy
  /// loading, about a millisecond), which belongs to the program's start, not to the product
  /// that the product stage times.
  void warm_up() {
    if (warmed_) return;
    host_csr<pattern> one(1, 1);
    one.col = {0};
    one.rpt = {0, 1};
    device_csr<pattern> d;
    d.assign(one, stream());
    (void)spgemm_reduce<plus_pair<count_t>>(ctx_, plan_, d.view(), d.view(),
                                            device_mask<structural_mask>(d));
    warmed_ = true;
  }

  /// This step's relabelling (the columns of the matrix being permuted are in the numbering
  /// before this step, not the loaded one).
  const index_t* new_of_old_step() const { return step_.data(); }

  const device_csr<pattern>& get(operand o) const {
    if ((o == operand::l && !has_l_) || (o == operand::u && !has_u_))
      throw std::logic_error("triangle backend: operand used before extract()");
    return o == operand::a ? a_ : o == operand::l ? l_ : u_;
  }

  /// Runs a CUB device algorithm with the usual two calls, scratch from a grow-only buffer.
  /// The scratch is never null, so that the second call does the work rather than sizing.
  template <class F>
  void cub_call(F&& f) {
    std::size_t bytes = 0;
    OPSPARSE_CUDA_TRY(f(nullptr, bytes));
    cub_tmp_.reserve(bytes + 16);
    OPSPARSE_CUDA_TRY(f(cub_tmp_.data(), bytes));
  }

  /// In-place exclusive scan of rpt[0..n] (lengths with rpt[n] = 0); returns the total rpt[n].
  offset_t exclusive_scan(offset_t* rpt) {
    const long long items = static_cast<long long>(n_) + 1;
    cub_call([&](void* tmp, std::size_t& bytes) {
      return cub::DeviceScan::ExclusiveSum(tmp, bytes, rpt, rpt, items, stream());
    });
    offset_t total = 0;
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(&total, rpt + n_, sizeof(offset_t), cudaMemcpyDeviceToHost,
                                      stream()));
    ctx_.synchronize();
    return total;
  }

  context ctx_;
  plan plan_;
  index_t n_ = 0;
  device_csr<pattern> a_, l_, u_, tmp_;
  bool has_l_ = false, has_u_ = false, permuted_ = false, warmed_ = false;
  device_csr<count_t> c_;
  device_buffer<index_t> deg_, deg_sorted_, iota_, order_, step_, new_of_old_;
  device_buffer<count_t> counts_, counts_out_, sum_;
  device_buffer<char> cub_tmp_;
  product_info info_;
};

}  // namespace

std::unique_ptr<backend> make_gpu_backend() { return std::make_unique<gpu_backend>(); }

}  // namespace opsparse::triangle
