// triangle::backend on the CPU engine (opsparse::cpu::spgemm, OpenMP): the oracle of the GPU
// backend and the program's engine where no GPU is present.
#include <algorithm>
#include <numeric>
#include <stdexcept>

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
    const index_t n = a_.rows;
    std::vector<index_t> order(static_cast<std::size_t>(n));  // order[new] = old
    std::iota(order.begin(), order.end(), 0);
    auto deg = [&](index_t v) { return a_.rpt[v + 1] - a_.rpt[v]; };
    // Stable, so that equal degrees keep their vertex order (as the GPU's radix sort does).
    if (ascending)
      std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return deg(x) < deg(y); });
    else
      std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return deg(x) > deg(y); });
    std::vector<index_t> new_of_old(static_cast<std::size_t>(n));
    for (index_t r = 0; r < n; ++r) new_of_old[order[r]] = r;

    host_csr<pattern> p(n, n);
    p.col.resize(a_.col.size());
    for (index_t r = 0; r < n; ++r) p.rpt[r + 1] = p.rpt[r] + deg(order[r]);
    for (index_t r = 0; r < n; ++r) {
      const index_t v = order[r];
      offset_t out = p.rpt[r];
      for (offset_t q = a_.rpt[v]; q < a_.rpt[v + 1]; ++q) p.col[out++] = new_of_old[a_.col[q]];
      std::sort(p.col.begin() + p.rpt[r], p.col.begin() + p.rpt[r + 1]);
    }
    a_ = std::move(p);
    has_l_ = has_u_ = false;  // derived from the old numbering
    // Compose with an earlier relabelling, if any.
    if (new_of_old_.empty()) {
      new_of_old_ = std::move(new_of_old);
    } else {
      for (auto& v : new_of_old_) v = new_of_old[v];
    }
  }

  void extract(operand which) override {
    OPSPARSE_EXPECTS(which != operand::a, "extract takes L or U");
    const bool lower = which == operand::l;
    host_csr<pattern> t(a_.rows, a_.cols);
    for (index_t i = 0; i < a_.rows; ++i) {
      for (offset_t p = a_.rpt[i]; p < a_.rpt[i + 1]; ++p) {
        const index_t j = a_.col[p];
        if (lower ? j < i : j > i) t.col.push_back(j);
      }
      t.rpt[i + 1] = static_cast<offset_t>(t.col.size());
    }
    (lower ? l_ : u_) = std::move(t);
    (lower ? has_l_ : has_u_) = true;
  }

  std::int64_t product(operand x, operand y, operand mask, bool /*keep*/) override {
    const host_csr<pattern>& mx = get(x);
    const host_csr<pattern>& my = get(y);
    const host_csr<pattern>& mm = get(mask);
    c_ = cpu::spgemm<plus_pair<std::int64_t>>(mx, my, cpu::host_mask<structural_mask>(mm), opt_);
    info_.products = cpu::count_products(mx, my);
    info_.nnz = c_.nnz();
    std::int64_t sum = 0;
    for (std::int64_t v : c_.val) sum += v;
    return sum;
  }

  product_info last_product() const override { return info_; }

  void reset_vertex_counts() override { std::fill(counts_.begin(), counts_.end(), 0); }

  void add_vertex_counts(bool rows, bool cols) override {
    for (index_t i = 0; i < c_.rows; ++i)
      for (offset_t p = c_.rpt[i]; p < c_.rpt[i + 1]; ++p) {
        if (rows) counts_[i] += c_.val[p];
        if (cols) counts_[c_.col[p]] += c_.val[p];
      }
  }

  std::vector<std::int64_t> vertex_counts() override {
    if (new_of_old_.empty()) return counts_;
    std::vector<std::int64_t> out(counts_.size());
    for (std::size_t v = 0; v < out.size(); ++v) out[v] = counts_[new_of_old_[v]];
    return out;
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
