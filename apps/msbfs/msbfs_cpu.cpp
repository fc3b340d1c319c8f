// msbfs::backend on the CPU engine (opsparse::cpu::spgemm, OpenMP): the oracle of the GPU
// backend and the program's engine where no GPU is present.
#include <algorithm>

#include "msbfs/msbfs.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/error.hpp"

namespace opsparse::msbfs {

namespace {

class cpu_backend final : public backend {
 public:
  explicit cpu_backend(int threads) { opt_.threads = threads; }

  const char* name() const override { return "cpu"; }

  void load(const host_csr<pattern>& a, bool /*symmetric*/) override {
    OPSPARSE_EXPECTS(a.rows == a.cols, "BFS needs a square adjacency matrix");
    a_ = a;
  }

  void start(const std::vector<index_t>& sources) override {
    const index_t b = static_cast<index_t>(sources.size());
    f_ = host_csr<pattern>(b, a_.cols);
    v_ = host_csr<level_t>(b, a_.cols);
    for (index_t r = 0; r < b; ++r) {
      OPSPARSE_EXPECTS(sources[r] >= 0 && sources[r] < a_.rows, "source out of range");
      f_.col.push_back(sources[r]);
      f_.rpt[r + 1] = r + 1;
    }
    v_.rpt = f_.rpt;
    v_.col = f_.col;
    v_.val.assign(sources.size(), 0);
  }

  offset_t advance(level_t level) override {
    products_ += cpu::count_products(f_, a_);
    f_ = cpu::spgemm<any_pair>(f_, a_, cpu::host_mask<complement_mask>(v_), opt_);
    if (f_.nnz() == 0) return 0;
    // V ∪ F, row by row: two sorted, disjoint lists (the mask kept F out of V).
    host_csr<level_t> m(v_.rows, v_.cols);
    m.col.resize(v_.col.size() + f_.col.size());
    m.val.resize(m.col.size());
    offset_t out = 0;
    for (index_t r = 0; r < v_.rows; ++r) {
      offset_t p = v_.rpt[r], q = f_.rpt[r];
      const offset_t pe = v_.rpt[r + 1], qe = f_.rpt[r + 1];
      while (p < pe || q < qe) {
        if (q == qe || (p < pe && v_.col[p] < f_.col[q])) {
          m.col[out] = v_.col[p];
          m.val[out++] = v_.val[p++];
        } else {
          m.col[out] = f_.col[q++];
          m.val[out++] = level;
        }
      }
      m.rpt[r + 1] = out;
    }
    v_ = std::move(m);
    return f_.nnz();
  }

  std::vector<source_summary> summarise() override {
    std::vector<source_summary> s(static_cast<std::size_t>(v_.rows));
    for (index_t r = 0; r < v_.rows; ++r) {
      s[r].reached = v_.rpt[r + 1] - v_.rpt[r];
      for (offset_t p = v_.rpt[r]; p < v_.rpt[r + 1]; ++p) {
        s[r].level_sum += v_.val[p];
        s[r].eccentricity = std::max(s[r].eccentricity, v_.val[p]);
      }
    }
    return s;
  }

  host_csr<level_t> levels() override { return v_; }
  offset_t products() const override { return products_; }
  offset_t batch_budget() const override { return offset_t{1} << 24; }

 private:
  cpu::options opt_;
  host_csr<pattern> a_, f_;
  host_csr<level_t> v_;
  offset_t products_ = 0;
};

}  // namespace

std::unique_ptr<backend> make_cpu_backend(int threads) {
  return std::make_unique<cpu_backend>(threads);
}

}  // namespace opsparse::msbfs
