// triangle::backend on the CPU engine (opsparse::cpu::spgemm, OpenMP): the oracle of the GPU
// backend and the program's engine where no GPU is present. Relabelling, L/U and the sums are
// the library's graph operations (cpu/graph_ops.hpp), on the engine's thread count.
#include <algorithm>
#include <stdexcept>

#include "opsparse/cpu/graph_ops.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/error.hpp"
#include "triangle/triangle.hpp"

namespace opsparse::triangle {

namespace {

class cpu_backend final : public backend {
 public:
  explicit cpu_backend(int threads) { opt_.threads = threads; }

  const char* name() const override { return "cpu"; }

  void load(const host_csr<pattern>& a) override {
    OPSPARSE_EXPECTS(a.rows == a.cols, "triangle counting needs a square matrix");
    a_ = a;
    has_l_ = has_u_ = false;
    new_of_old_.clear();
    counts_.assign(static_cast<std::size_t>(a.rows), 0);
  }

  void sort_by_degree(bool ascending) override {
    const cpu::scoped_threads team(opt_.threads);
    // Stable, so that equal degrees keep their vertex order (as the GPU's radix sort does).
    const std::vector<index_t> order = cpu::degree_order(a_, ascending);  // order[new] = old
    std::vector<index_t> new_of_old = cpu::invert_permutation(order);
    a_ = cpu::permute(a_, order, &new_of_old);  // P·A·Pᵀ, rows sorted again
    has_l_ = has_u_ = false;                    // derived from the old numbering
    // Compose with an earlier relabelling, if any.
    new_of_old_ =
        new_of_old_.empty() ? std::move(new_of_old) : cpu::gather(new_of_old, new_of_old_);
  }

  void extract(operand which) override {
    OPSPARSE_EXPECTS(which != operand::a, "extract takes L or U");
    const cpu::scoped_threads team(opt_.threads);
    if (which == operand::l) {
      l_ = cpu::select(a_, lower_triangle{-1});
      has_l_ = true;
    } else {
      u_ = cpu::select(a_, upper_triangle{1});
      has_u_ = true;
    }
  }

  std::int64_t product(operand x, operand y, operand mask, bool /*keep*/) override {
    const host_csr<pattern>& mx = get(x);
    const host_csr<pattern>& my = get(y);
    const host_csr<pattern>& mm = get(mask);
    c_ = cpu::spgemm<plus_pair<std::int64_t>>(mx, my, cpu::host_mask<structural_mask>(mm), opt_);
    info_.products = cpu::count_products(mx, my);
    info_.nnz = c_.nnz();
    const cpu::scoped_threads team(opt_.threads);
    return cpu::reduce<plus_monoid<std::int64_t>>(c_, value_as<std::int64_t>{});
  }

  std::int64_t count_tile(const host_csr<pattern>& x, const host_csr<pattern>& y,
                          const host_csr<pattern>& m) override {
    const host_csr<std::int64_t> c =
        cpu::spgemm<plus_pair<std::int64_t>>(x, y, cpu::host_mask<structural_mask>(m), opt_);
    info_ = {};
    info_.products = cpu::count_products(x, y);
    info_.nnz = c.nnz();
    const cpu::scoped_threads team(opt_.threads);
    return cpu::reduce<plus_monoid<std::int64_t>>(c, value_as<std::int64_t>{});
  }

  product_info last_product() const override { return info_; }

  void reset_vertex_counts() override { std::fill(counts_.begin(), counts_.end(), 0); }

  void add_vertex_counts(bool rows, bool cols) override {
    const cpu::scoped_threads team(opt_.threads);
    using sum = plus_monoid<std::int64_t>;
    if (rows) cpu::reduce_rows<sum>(c_, value_as<std::int64_t>{}, counts_, true);
    if (cols) cpu::reduce_cols<sum>(c_, value_as<std::int64_t>{}, counts_, true);
  }

  std::vector<std::int64_t> vertex_counts() override {
    if (new_of_old_.empty()) return counts_;
    const cpu::scoped_threads team(opt_.threads);
    return cpu::gather(counts_, new_of_old_);
  }

 private:
  const host_csr<pattern>& get(operand o) const {
    if ((o == operand::l && !has_l_) || (o == operand::u && !has_u_))
      throw std::logic_error("triangle backend: operand used before extract()");
    return o == operand::a ? a_ : o == operand::l ? l_ : u_;
  }

  cpu::options opt_;
  host_csr<pattern> a_, l_, u_;
  bool has_l_ = false, has_u_ = false;
  host_csr<std::int64_t> c_;
  std::vector<index_t> new_of_old_;  ///< empty: no relabelling
  std::vector<std::int64_t> counts_;
  product_info info_;
};

}  // namespace

std::unique_ptr<backend> make_cpu_backend(int threads) {
  return std::make_unique<cpu_backend>(threads);
}

}  // namespace opsparse::triangle
