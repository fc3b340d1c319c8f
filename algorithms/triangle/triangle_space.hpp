#pragma once
// triangle::backend written once over an execution space (opsparse/space.hpp): the degree
// relabelling (degree_order, P·A·Pᵀ by permute), L = tril(A,-1) and U = triu(A,1) by select,
// the masked plus_pair products, sum(C) fused into the product (spgemm_reduce; reduce over a
// formed C where C is kept) and the per-vertex counts by reduce_rows/reduce_cols, all on the space.
// The engines instantiate it: triangle_cpu.cpp (cpu_space) and triangle_gpu.cu (gpu_space, which
// adds only its warm-up).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/error.hpp"
#include "opsparse/graph_ops.hpp"
#include "opsparse/semiring.hpp"
#include "triangle/triangle.hpp"

namespace opsparse::triangle {

template <class Space>
class space_backend : public backend {
 public:
  /// The counts' type: the GPU engine is instantiated for plus_pair<long long> (the list
  /// spgemm_graph of libopsparse/CMakeLists.txt); std::int64_t is `long` on Linux, another type.
  using count_t = long long;
  using sum = plus_pair<count_t>;
  template <class V>
  using matrix = typename Space::template matrix<V>;
  template <class T>
  using vector = typename Space::template vector<T>;

  template <class... Args>
  explicit space_backend(const char* name, Args&&... args)
      : name_(name), sp_(std::forward<Args>(args)...) {}

  const char* name() const override { return name_; }

  void load(const host_csr<pattern>& a) override {
    OPSPARSE_EXPECTS(a.rows == a.cols, "triangle counting needs a square matrix");
    n_ = a.rows;
    upload(sp_, a, a_);
    has_l_ = has_u_ = permuted_ = false;
    zero(sp_, counts_, n_);
    prepare();
    synchronize(sp_);
  }

  void sort_by_degree(bool ascending) override {
    if (n_ == 0) return;
    // degree_order is stable: equal degrees keep their vertex order on every space.
    degree_order(sp_, a_, ascending, order_);  // order[new] = old
    invert_permutation(sp_, order_, n_, step_);
    // new_of_old ← step, or step ∘ new_of_old after an earlier relabelling
    const vector<index_t>* step = &new_of_old_;
    if (!permuted_) {
      std::swap(new_of_old_, step_);
    } else {
      gather(sp_, step_, new_of_old_, n_, composed_);
      std::swap(new_of_old_, composed_);
      step = &step_;
    }
    permuted_ = true;
    permute(sp_, a_, order_, *step, tmp_);  // P·A·Pᵀ, columns relabelled and sorted again
    std::swap(a_, tmp_);
    has_l_ = has_u_ = false;  // derived from the old numbering
    synchronize(sp_);
  }

  void extract(operand which) override {
    OPSPARSE_EXPECTS(which != operand::a, "extract takes L or U");
    if (which == operand::l)
      select(sp_, a_, lower_triangle{-1}, l_);
    else
      select(sp_, a_, upper_triangle{1}, u_);
    (which == operand::l ? has_l_ : has_u_) = true;
    synchronize(sp_);
  }

  std::int64_t product(operand x, operand y, operand mask, bool keep) override {
    info_ = {};
    return count(get(x), get(y), get(mask), keep ? &c_ : nullptr);
  }

  std::int64_t count_tile(const host_csr<pattern>& x, const host_csr<pattern>& y,
                          const host_csr<pattern>& m) override {
    prepare();
    // The tile's own buffers where the space copies (A, L, U and C stay as they were).
    info_ = {};
    return count(stage(sp_, x, tile_x_), stage(sp_, y, tile_y_), stage(sp_, m, tile_m_), nullptr);
  }

  product_info last_product() const override { return info_; }

  void reset_vertex_counts() override {
    zero(sp_, counts_, n_);
    synchronize(sp_);
  }

  void add_vertex_counts(bool rows, bool cols) override {
    using plus = plus_monoid<count_t>;
    if (rows) reduce_rows<plus>(sp_, c_, value_as<count_t>{}, counts_, true);
    if (cols) reduce_cols<plus>(sp_, c_, value_as<count_t>{}, counts_, true);
    synchronize(sp_);
  }

  std::vector<std::int64_t> vertex_counts() override {
    const vector<count_t>* in = &counts_;
    if (permuted_) {
      gather(sp_, counts_, new_of_old_, n_, counts_out_);
      in = &counts_out_;
    }
    const std::vector<count_t> host = to_host(sp_, *in, n_);
    return std::vector<std::int64_t>(host.begin(), host.end());
  }

 protected:
  /// Work the space does once before its first product (none by default).
  virtual void prepare() {}
  Space& space() { return sp_; }

 private:
  /// sum(C<M> = X·Y), C kept in *keep when given (for the vertex counts), else never formed.
  std::int64_t count(const matrix<pattern>& x, const matrix<pattern>& y, const matrix<pattern>& m,
                     matrix<count_t>* keep) {
    if (keep == nullptr) {
      info_.fused = true;
      const count_t s = spgemm_reduce<sum>(sp_, x, y, m);
      info_.products = products(sp_);
      return static_cast<std::int64_t>(s);
    }
    matrix<count_t> own;
    matrix<count_t>& c = keep ? *keep : own;
    spgemm<sum>(sp_, x, y, m, c);
    info_.products = products(sp_);
    info_.nnz = c.nnz();
    const count_t s = reduce<plus_monoid<count_t>>(sp_, c, value_as<count_t>{});
    synchronize(sp_);
    return static_cast<std::int64_t>(s);
  }

  const matrix<pattern>& get(operand o) const {
    if ((o == operand::l && !has_l_) || (o == operand::u && !has_u_))
      throw std::logic_error("triangle backend: operand used before extract()");
    return o == operand::a ? a_ : o == operand::l ? l_ : u_;
  }

  const char* name_;
  Space sp_;
  index_t n_ = 0;
  matrix<pattern> a_, l_, u_, tmp_;
  matrix<pattern> tile_x_, tile_y_, tile_m_;  ///< count_tile's operands, where the space copies
  bool has_l_ = false, has_u_ = false, permuted_ = false;
  matrix<count_t> c_;
  vector<index_t> order_, step_, new_of_old_, composed_;
  vector<count_t> counts_, counts_out_;
  product_info info_;
};

}  // namespace opsparse::triangle
