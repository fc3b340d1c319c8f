// triangle::backend on the GPU engine: one opsparse::context and one opsparse::plan for every
// product; A, L, U and C stay on the device. Everything but the products is a graph operation
// of the library (opsparse/graph_ops.cuh): the degree relabelling (degree_order, P·A·Pᵀ by
// permute), L = tril(A,-1) and U = triu(A,1) by select, sum(C) by reduce and the per-vertex
// counts by reduce_rows/reduce_cols; the host only reads back scalars (nnz of a new matrix, the
// sum) and, when asked, the n per-vertex counts.
#include <stdexcept>

#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/graph_ops.cuh"
#include "opsparse/spgemm.hpp"
#include "opsparse/spgemm_reduce.hpp"
#include "triangle/triangle.hpp"

namespace opsparse::triangle {

namespace {

// The GPU engine is instantiated for plus_pair<long long> (libopsparse/src/spgemm_graph.cu);
// std::int64_t is `long` on Linux, a different type.
using count_t = long long;

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
    order_.reserve(n);
    step_.reserve(n);
    new_of_old_.reserve(n);
    composed_.reserve(n);
    // degree_order is stable: equal degrees keep their vertex order, as on the CPU backend.
    degree_order(ctx_, a_.view(), ascending, order_.data());
    invert_permutation(ctx_, order_.data(), n_, step_.data());
    if (!permuted_) {
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(new_of_old_.data(), step_.data(), n * sizeof(index_t),
                                        cudaMemcpyDeviceToDevice, stream()));
    } else {  // a second relabelling after a first: total ← step ∘ total
      gather(ctx_, step_.data(), new_of_old_.data(), n_, composed_.data());
      std::swap(new_of_old_, composed_);
    }
    permuted_ = true;
    // P·A·Pᵀ: rows in their new places, columns relabelled by this step and sorted again.
    permute(ctx_, a_.view(), n_, order_.data(), step_.data(), tmp_);
    std::swap(a_, tmp_);
    has_l_ = has_u_ = false;  // derived from the old numbering
    ctx_.synchronize();
  }

  void extract(operand which) override {
    OPSPARSE_EXPECTS(which != operand::a, "extract takes L or U");
    if (which == operand::l)
      select(ctx_, a_.view(), lower_triangle{-1}, l_);
    else
      select(ctx_, a_.view(), upper_triangle{1}, u_);
    (which == operand::l ? has_l_ : has_u_) = true;
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
      const count_t sum = spgemm_reduce<plus_pair<count_t>>(ctx_, plan_, mx.view(), my.view(),
                                                            device_mask<structural_mask>(mm));
      info_.products = plan_.stats().products;
      return static_cast<std::int64_t>(sum);
    }
    if (mx.nnz() == 0 || my.nnz() == 0 || mm.nnz() == 0) {
      // Nothing to multiply: an empty C without troubling the engine with empty operands.
      c_.set_shape(n_, n_);
      OPSPARSE_CUDA_TRY(cudaMemsetAsync(
          c_.rpt(), 0, (static_cast<std::size_t>(n_) + 1) * sizeof(offset_t), stream()));
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
    return static_cast<std::int64_t>(
        reduce<plus_monoid<count_t>>(ctx_, c_.view(), value_as<count_t>{}));
  }

  std::int64_t count_tile(const host_csr<pattern>& x, const host_csr<pattern>& y,
                          const host_csr<pattern>& m) override {
    warm_up();
    // The tile's own buffers (grow-only): A, L, U and C stay as they were.
    tile_x_.assign(x, stream());
    tile_y_.assign(y, stream());
    tile_m_.assign(m, stream());
    info_ = {};
    info_.fused = true;
    const count_t sum = spgemm_reduce<plus_pair<count_t>>(
        ctx_, plan_, tile_x_.view(), tile_y_.view(), device_mask<structural_mask>(tile_m_));
    info_.products = plan_.stats().products;
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
      if (rows)
        reduce_rows<plus_monoid<count_t>>(ctx_, c_.view(), value_as<count_t>{}, counts_.data(),
                                          true);
      if (cols)
        reduce_cols<plus_monoid<count_t>>(ctx_, c_.view(), value_as<count_t>{}, counts_.data(),
                                          true);
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
        gather(ctx_, counts_.data(), new_of_old_.data(), n_, counts_out_.data());
        src = counts_out_.data();
      }
      OPSPARSE_CUDA_TRY(
          cudaMemcpyAsync(host.data(), src, n * sizeof(count_t), cudaMemcpyDeviceToHost, stream()));
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

  const device_csr<pattern>& get(operand o) const {
    if ((o == operand::l && !has_l_) || (o == operand::u && !has_u_))
      throw std::logic_error("triangle backend: operand used before extract()");
    return o == operand::a ? a_ : o == operand::l ? l_ : u_;
  }

  context ctx_;
  plan plan_;
  index_t n_ = 0;
  device_csr<pattern> a_, l_, u_, tmp_;
  device_csr<pattern> tile_x_, tile_y_, tile_m_;  ///< count_tile's operands
  bool has_l_ = false, has_u_ = false, permuted_ = false, warmed_ = false;
  device_csr<count_t> c_;
  device_buffer<index_t> order_, step_, new_of_old_, composed_;
  device_buffer<count_t> counts_, counts_out_;
  product_info info_;
};

}  // namespace

std::unique_ptr<backend> make_gpu_backend() { return std::make_unique<gpu_backend>(); }

}  // namespace opsparse::triangle
