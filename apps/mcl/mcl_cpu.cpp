// The CPU backend: expansion with opsparse::cpu::spgemm over (+, ×), pruning, inflation and chaos
// with OpenMP over rows (mcl's columns).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <type_traits>
#include <vector>

#include "mcl.hpp"
#include "opsparse/cpu/spgemm.hpp"

namespace opsparse::mcl {

namespace {

/// What pruning decided for one expanded row.
struct row_decision {
  double bar = 0;          ///< keep values >= bar
  double mass = 0;         ///< their sum (the divisor of the renormalisation)
  offset_t keep = 0;       ///< how many
  bool emergency = false;  ///< the row becomes a loop of weight 1
};

template <class T>
class cpu_backend final : public backend<T> {
 public:
  explicit cpu_backend(int threads) : threads_(threads) {
    opt_.threads = threads;
    opt_.sorted = true;
  }
  const char* name() const override { return "cpu"; }

  void load(const host_csr<T>& start) override {
    opsparse::validate(start);
    OPSPARSE_EXPECTS(start.rows == start.cols, "the MCL start matrix must be square");
    m_ = start;
    chaos_.assign(static_cast<std::size_t>(m_.rows), 0.0);
  }

  std::vector<index_t> expansion_blocks(long long max_products) override {
    begin_step();
    if (max_products <= 0) return {0, m_.rows};
    // Host memory is what it is; blocks are only made when asked for (tests, very large runs).
    const std::vector<offset_t> per_row = cpu::row_products(m_, m_);
    std::vector<offset_t> prefix(per_row.size() + 1, 0);
    std::partial_sum(per_row.begin(), per_row.end(), prefix.begin() + 1);
    return split_rows_by_products(prefix, max_products);
  }

  void expand(index_t r0, index_t r1) override {
    OPSPARSE_EXPECTS(0 <= r0 && r0 <= r1 && r1 <= m_.rows, "expand: bad row block");
    r0_ = r0;
    if (r0 == 0 && r1 == m_.rows) {
      e_ = multiply(m_, m_);
    } else {
      // The block's rows of X as a matrix of their own (row pointers rebased to 0).
      host_csr<T> slice(r1 - r0, m_.cols);
      const offset_t base = m_.rpt[r0];
      for (index_t i = r0; i < r1; ++i) slice.rpt[i - r0 + 1] = m_.rpt[i + 1] - base;
      slice.col.assign(m_.col.begin() + base, m_.col.begin() + m_.rpt[r1]);
      slice.val.assign(m_.val.begin() + base, m_.val.begin() + m_.rpt[r1]);
      e_ = multiply(slice, m_);
    }
    expanded_nnz_ += e_.nnz();
  }

  void prune_normalise(const prune_rule& rule) override {
    const index_t rows = e_.rows;
    decisions_.assign(static_cast<std::size_t>(rows), row_decision{});
    const int nthreads = threads_for(e_.nnz());
    std::vector<std::vector<T>> scratch(static_cast<std::size_t>(std::max(1, nthreads)));
#pragma omp parallel for schedule(dynamic, 64) num_threads(nthreads)
    for (index_t i = 0; i < rows; ++i) {
      std::vector<T>& tmp = scratch[static_cast<std::size_t>(omp_get_thread_num())];
      decisions_[i] = decide(rule, e_.val.data() + e_.rpt[i], e_.rpt[i + 1] - e_.rpt[i], tmp,
                             chaos_[static_cast<std::size_t>(r0_ + i)]);
    }
    // Append the block to the next iterate: row sizes -> offsets -> parallel copy.
    const offset_t base = static_cast<offset_t>(next_col_.size());
    std::vector<offset_t> offs(static_cast<std::size_t>(rows) + 1, 0);
    for (index_t i = 0; i < rows; ++i) offs[i + 1] = offs[i] + decisions_[i].keep;
    next_col_.resize(static_cast<std::size_t>(base + offs[rows]));
    next_val_.resize(static_cast<std::size_t>(base + offs[rows]));
#pragma omp parallel for schedule(dynamic, 64) num_threads(nthreads)
    for (index_t i = 0; i < rows; ++i) {
      const row_decision& d = decisions_[i];
      offset_t out = base + offs[i];
      if (d.emergency) {
        next_col_[out] = r0_ + i;
        next_val_[out] = T(1);
        continue;
      }
      for (offset_t k = e_.rpt[i]; k < e_.rpt[i + 1]; ++k) {
        const double v = static_cast<double>(e_.val[k]);
        if (v >= d.bar) {
          next_col_[out] = e_.col[k];
          next_val_[out] = d.mass != 0 ? static_cast<T>(v / d.mass) : e_.val[k];
          ++out;
        }
      }
    }
    for (index_t i = 0; i < rows; ++i) next_rpt_[r0_ + i + 1] = base + offs[i + 1];
  }

  void finish_expansion() override {
    m_.rpt.swap(next_rpt_);
    m_.col.swap(next_col_);
    m_.val.swap(next_val_);
    next_col_.clear();
    next_val_.clear();
  }

  double chaos() override {
    double c = 0;
    for (double x : chaos_) c = std::max(c, x);
    return c;
  }

  void inflate_normalise(double power) override {
    const index_t rows = m_.rows;
    const int nthreads = threads_for(m_.nnz());
#pragma omp parallel for schedule(dynamic, 256) num_threads(nthreads)
    for (index_t i = 0; i < rows; ++i) {
      // As mcl's mclvInflate: the powers are stored (rounded to T) before they are summed.
      double sum = 0;
      for (offset_t k = m_.rpt[i]; k < m_.rpt[i + 1]; ++k) {
        const double v = static_cast<double>(m_.val[k]);
        m_.val[k] = static_cast<T>(power == 2.0 ? v * v : std::pow(v, power));
        sum += static_cast<double>(m_.val[k]);
      }
      if (sum > 0)
        for (offset_t k = m_.rpt[i]; k < m_.rpt[i + 1]; ++k)
          m_.val[k] = static_cast<T>(static_cast<double>(m_.val[k]) / sum);
    }
  }

  offset_t nnz() const override { return m_.nnz(); }
  offset_t expanded_nnz() const override { return expanded_nnz_; }
  host_csr<T> download() override { return m_; }
  backend_stats stats() override { return {}; }

 private:
  void begin_step() {
    expanded_nnz_ = 0;
    next_rpt_.assign(static_cast<std::size_t>(m_.rows) + 1, 0);
    next_col_.clear();
    next_val_.clear();
    next_col_.reserve(m_.col.size());
    next_val_.reserve(m_.val.size());
  }

  /// One expansion product. mcl stores float values but sums every expanded column in double
  /// and rounds the sum once; float iterates are expanded the same way (double accumulation,
  /// then rounding), which keeps ties that exact arithmetic has and float sums would break.
  host_csr<T> multiply(const host_csr<T>& a, const host_csr<T>& b) const {
    if constexpr (std::is_same_v<T, double>) {
      return cpu::spgemm<plus_times<double>>(a, b, no_mask{}, opt_);
    } else {
      return convert<T>(cpu::spgemm<plus_times<double>>(a, b, no_mask{}, opt_));
    }
  }

  /// mcl's pruning of one expanded row (see mcl_prune.hpp), and its chaos.
  static row_decision decide(const prune_rule& rule, const T* val, offset_t n, std::vector<T>& tmp,
                             double& chaos) {
    double maxval = 0, center = 0, mass_prune = 0;
    offset_t n_prune = 0;
    for (offset_t k = 0; k < n; ++k) {
      const double v = static_cast<double>(val[k]);
      center += v * v;
      maxval = std::max(maxval, v);
      if (v >= rule.cutoff) {
        ++n_prune;
        mass_prune += v;
      }
    }
    auto rank_value = [&](long long rank) {  // the rank-th largest value (1-based)
      tmp.assign(val, val + n);
      std::nth_element(tmp.begin(), tmp.begin() + (rank - 1), tmp.end(), std::greater<T>());
      return static_cast<double>(tmp[static_cast<std::size_t>(rank - 1)]);
    };
    auto measure = [&](double bar, offset_t& count, double& mass) {
      count = 0;
      mass = 0;
      for (offset_t k = 0; k < n; ++k) {
        const double v = static_cast<double>(val[k]);
        if (v >= bar) {
          ++count;
          mass += v;
        }
      }
    };
    row_decision d;
    switch (prune_case_of(rule, n, n_prune, mass_prune)) {
      case case_emergency:
        d.emergency = true;
        d.keep = 1;
        d.mass = 1;
        break;
      case case_keep_all:
        d.bar = keep_all_bar;
        measure(d.bar, d.keep, d.mass);
        break;
      case case_recover:
        d.bar = rank_value(rule.recover);
        measure(d.bar, d.keep, d.mass);
        break;
      case case_select: {
        const double sbar = rank_value(rule.select);
        offset_t n_sel = 0;
        double mass_sel = 0;
        measure(sbar, n_sel, mass_sel);
        if (select_recovers(rule, n_sel, mass_sel)) {
          d.bar = select_recovery_needs_rank_r(rule, n_prune) ? rank_value(rule.recover)
                                                               : rule.cutoff;
          measure(d.bar, d.keep, d.mass);
        } else {
          d.bar = sbar;
          d.keep = n_sel;
          d.mass = mass_sel;
        }
        break;
      }
      default:
        d.bar = rule.cutoff;
        d.keep = n_prune;
        d.mass = mass_prune;
        break;
    }
    chaos = (maxval - center) * static_cast<double>(d.keep);
    return d;
  }

  /// Threads for a pass over `entries` values: one per 2^14 of them at least, since a team
  /// woken for a small matrix costs more than the pass (and spins on a busy machine).
  int threads_for(offset_t entries) const {
    const int all = threads_ > 0 ? threads_ : omp_get_max_threads();
    return static_cast<int>(std::min<offset_t>(all, std::max<offset_t>(1, entries >> 14)));
  }

  int threads_;
  cpu::options opt_;
  host_csr<T> m_;
  host_csr<T> e_;
  index_t r0_ = 0;
  std::vector<offset_t> next_rpt_{0};
  std::vector<index_t> next_col_;
  std::vector<T> next_val_;
  std::vector<row_decision> decisions_;
  std::vector<double> chaos_;
  offset_t expanded_nnz_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<backend<T>> make_cpu_backend(int threads) {
  return std::make_unique<cpu_backend<T>>(threads);
}

template std::unique_ptr<backend<float>> make_cpu_backend<float>(int);
template std::unique_ptr<backend<double>> make_cpu_backend<double>(int);

}  // namespace opsparse::mcl
