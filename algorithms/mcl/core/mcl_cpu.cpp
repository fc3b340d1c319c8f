// The CPU backend: expansion and pruning fused row by row (mcl's columns), inflation and chaos,
// with OpenMP over rows.
//
// A thread expands one row into a dense accumulator over the columns (double sums, in the order
// of opsparse::cpu::spgemm: the row's entries in order, each B row in order, so the sums are
// the engine's bit for bit), decides its pruning on the spot and keeps only the survivors: the
// unpruned expansion is never stored, sorted or converted (as mcl's per-column dense vector).
// Dense rows of float iterates are summed eight products at a time by AVX-512 gathers and
// scatters where the processor has them (mcl_cpu_scatter.hpp): the scalar loop's load, flag
// store, add and store per product were 95% of a one-thread run on the human PPI network.
// Above a memory bound for the per-thread accumulators (very many columns), rows are expanded
// by opsparse::cpu::spgemm in blocks and pruned afterwards, as before.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "mcl.hpp"
#include "mcl_cpu_scatter.hpp"
#include "mcl_rows.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/row_blocks.hpp"

namespace opsparse::mcl {

namespace {

using detail::row_decision;

template <class T>
class cpu_backend final : public backend<T> {
 public:
  cpu_backend(int threads, std::size_t accumulator_bytes, std::size_t memory_budget)
      : threads_(threads),
        accumulator_bytes_(memory_budget > 0 ? std::min(accumulator_bytes, memory_budget / 4)
                                             : accumulator_bytes),
        memory_budget_(memory_budget) {
    opt_.threads = threads;
    opt_.sorted = true;
    scatter_ = std::is_same_v<T, float> && detail::scatter_add_supported();
  }
  const char* name() const override { return "cpu"; }

  void load(const host_csr<T>& start) override {
    opsparse::validate(start);
    OPSPARSE_EXPECTS(start.rows == start.cols, "the MCL start matrix must be square");
    m_ = start;
    chaos_.assign(static_cast<std::size_t>(m_.rows), 0.0);
    // Negative weights leave negative values in the start matrix (see signed_).
    signed_ = std::any_of(m_.val.begin(), m_.val.end(), [](T v) { return !(v >= T(0)); });
    // So do values whose float products can fall below float's normal range (weights 1e38 apart in
    // a column), where mcl's products in float lose their digits or become 0: such a start matrix
    // is expanded as mcl expands it too.
    if constexpr (std::is_same_v<T, float>)
      signed_ = signed_ || std::any_of(m_.val.begin(), m_.val.end(), [](T v) {
                  return v > T(0) && static_cast<double>(v) * static_cast<double>(v) <
                                         static_cast<double>(std::numeric_limits<float>::min());
                });
  }

  std::vector<index_t> expansion_blocks(long long max_products) override {
    begin_step();
    // Host memory is what it is; blocks are only made when asked for (tests, very large runs)
    // or when a budget bounds the stored expansion (a column and a double sum a product).
    if (memory_budget_ > 0) {
      const long long fit = std::max<long long>(
          1, static_cast<long long>(memory_budget_ / (sizeof(index_t) + sizeof(double))));
      max_products = max_products > 0 ? std::min(max_products, fit) : fit;
    }
    if (max_products <= 0) return {0, m_.rows};
    const std::vector<offset_t> per_row = cpu::row_products(m_, m_);
    std::vector<offset_t> prefix(per_row.size() + 1, 0);
    std::partial_sum(per_row.begin(), per_row.end(), prefix.begin() + 1);
    return rows_within(prefix, 1, 0, static_cast<double>(max_products));
  }

  void expand(index_t r0, index_t r1) override {
    OPSPARSE_EXPECTS(0 <= r0 && r0 <= r1 && r1 <= m_.rows, "expand: bad row block");
    r0_ = r0;
    r1_ = r1;
    if (fused()) return;  // prune_normalise expands and prunes each row at once
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
    if (fused()) {
      expand_prune(rule);
      return;
    }
    if (signed_) drop_cancelled_sums();
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
    std::vector<offset_t> offs;
    const offset_t base = append_block(rows, offs);
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
    // Rows no block expanded (a distributed rank expands only its own: mcl_dist.cpp's rows
    // layout) are empty: their row pointers follow the last expanded row's.
    for (std::size_t i = 1; i < next_rpt_.size(); ++i)
      next_rpt_[i] = std::max(next_rpt_[i], next_rpt_[i - 1]);
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
    int emptied = 0;
#pragma omp parallel for schedule(dynamic, 256) num_threads(nthreads) reduction(| : emptied)
    for (index_t i = 0; i < rows; ++i) {
      // mcl empties a column whose powers sum to at most 0 (drop_massless_rows).
      if (!detail::inflate_row(m_.val.data() + m_.rpt[i], m_.rpt[i + 1] - m_.rpt[i], power))
        emptied = 1;
    }
    if (emptied) drop_massless_rows();
  }

  offset_t nnz() const override { return m_.nnz(); }
  offset_t expanded_nnz() const override { return expanded_nnz_; }
  host_csr<T> download() override { return m_; }
  backend_stats stats() override { return {}; }

 private:
  /// Whether rows are expanded and pruned at once: per-thread dense accumulators over the
  /// columns (a double and a flag each) within accumulator_bytes_ in all.
  bool fused() const {
    const std::size_t per_thread = static_cast<std::size_t>(m_.cols) * (sizeof(double) + 1);
    return per_thread * static_cast<std::size_t>(std::max(1, threads_for(m_.nnz() * 16))) <=
           accumulator_bytes_;
  }

  /// A surviving entry. Its constructor leaves it uninitialised: keep_survivors grows the list
  /// by a row's length before it writes (zero-filling it took 1.7% of the run's time).
  struct cell {
    index_t col;
    T val;
    cell() {}  // NOLINT: no initialisation, on purpose
    cell(index_t c, T v) : col(c), val(v) {}
  };

  /// One thread's dense accumulator and buffers, kept across rows and iterations.
  struct row_workspace {
    std::vector<double> acc;    ///< sums by column
    std::vector<char> present;  ///< columns the current row touched
    std::vector<index_t> cols;  ///< those columns, in order of first touch
    std::vector<T> vals;        ///< the row's values as cells (T)
    std::vector<T> tmp;         ///< decide()'s rank scratch
    std::vector<cell> kept;     ///< survivors of the rows done by this thread
  };

  /// Row i of X·X summed in w.acc: returns its length, its columns in w.cols in ascending order
  /// (flagged in w.present; the caller clears both). `products_bound` is row_products(i).
  /// CellProducts: each product rounded to the cell type before it is added (mcl's dense
  /// expansion multiplies two floats; see mcl_drops_zeros).
  template <bool CellProducts>
  offset_t expand_row(index_t i, row_workspace& w, offset_t products_bound) const {
    const auto product = [](T a, T b) {
      return CellProducts ? static_cast<double>(a * b)
                          : static_cast<double>(a) * static_cast<double>(b);
    };
    // A row with products for a good part of the columns flags its columns and finds them
    // by a scan afterwards (ascending); a sparser one lists them on first touch and sorts.
    // Either way a sum starts from 0.0 (0.0 + x is x exactly) and the loop has no branch.
    const bool scan = products_bound * 4 >= static_cast<offset_t>(m_.cols);
    offset_t n = 0;
    double* __restrict const acc = w.acc.data();
    char* __restrict const present = w.present.data();
    const offset_t* __restrict const rpt = m_.rpt.data();
    const index_t* __restrict const col = m_.col.data();
    const T* __restrict const val = m_.val.data();
    if (scan) {
      for (offset_t ka = rpt[i]; ka < rpt[i + 1]; ++ka) {
        const T a = val[ka];
        const index_t k = col[ka];
        for (offset_t kb = rpt[k]; kb < rpt[k + 1]; ++kb) {
          const index_t j = col[kb];
          present[j] = 1;
          acc[j] += product(a, val[kb]);
        }
      }
      w.cols.resize(static_cast<std::size_t>(
          std::min<offset_t>(products_bound, static_cast<offset_t>(m_.cols)) + 1));
      for (index_t j = 0; j < m_.cols; ++j) {
        w.cols[static_cast<std::size_t>(n)] = j;
        n += present[j];
      }
    } else {
      w.cols.resize(static_cast<std::size_t>(products_bound + 1));
      index_t* __restrict const touched = w.cols.data();
      for (offset_t ka = rpt[i]; ka < rpt[i + 1]; ++ka) {
        const T a = val[ka];
        const index_t k = col[ka];
        for (offset_t kb = rpt[k]; kb < rpt[k + 1]; ++kb) {
          const index_t j = col[kb];
          touched[n] = j;
          n += present[j] ^ 1;
          present[j] = 1;
          acc[j] += product(a, val[kb]);
        }
      }
    }
    w.cols.resize(static_cast<std::size_t>(n));
    // In column order, as the engine's sorted rows: the row's masses are then summed in
    // the same order, and the survivors come out sorted.
    if (!scan) std::sort(w.cols.begin(), w.cols.end());
    return n;
  }

  /// expand_row<false> of a dense row (scan mode) by detail::scatter_add, when every product
  /// is > 0 (products_positive): a column was then touched iff its sum is not 0, and no flag
  /// is stored. Returns the row's length, its columns in w.cols in ascending order.
  offset_t expand_row_scatter(index_t i, row_workspace& w) const {
    double* __restrict const acc = w.acc.data();
    const offset_t* const rpt = m_.rpt.data();
    const index_t* const col = m_.col.data();
    offset_t n = 0;
    if constexpr (std::is_same_v<T, float>) {
      const float* const val = m_.val.data();
      for (offset_t ka = rpt[i]; ka < rpt[i + 1]; ++ka) {
        const index_t k = col[ka];
        detail::scatter_add(acc, col + rpt[k], val + rpt[k], rpt[k + 1] - rpt[k], val[ka]);
      }
      // One pass lists the row (ascending), takes its values and clears the sums (take_row).
      w.cols.resize(static_cast<std::size_t>(m_.cols) + 8);
      w.vals.resize(static_cast<std::size_t>(m_.cols) + 8);
      n = detail::take_sums(acc, m_.cols, w.cols.data(), w.vals.data());
    }
    w.cols.resize(static_cast<std::size_t>(n));
    w.vals.resize(static_cast<std::size_t>(n));
    return n;
  }

  /// The expanded row's values (as cells) into w.vals, its sums and flags cleared.
  static void take_row(row_workspace& w) {
    w.vals.resize(w.cols.size());
    for (std::size_t t = 0; t < w.cols.size(); ++t) {
      const index_t j = w.cols[t];
      w.vals[t] = static_cast<T>(w.acc[j]);
      w.acc[j] = 0.0;
      w.present[j] = 0;
    }
  }

  /// The row's values >= d.bar, renormalised, appended to w.kept. Written unconditionally and
  /// counted by the comparison: whether a value survives is data, which a branch mispredicts.
  /// The division waits for the survivors (a tenth of the row or less, and a division costs
  /// several cycles' throughput).
  static void keep_survivors(row_workspace& w, const row_decision& d) {
    const std::size_t first = w.kept.size();
    std::size_t out = first;
    w.kept.resize(out + w.cols.size());
    for (std::size_t t = 0; t < w.cols.size(); ++t) {
      w.kept[out] = cell(w.cols[t], w.vals[t]);
      out += static_cast<double>(w.vals[t]) >= d.bar;
    }
    w.kept.resize(out);
    if (d.mass != 0)
      for (std::size_t t = first; t < out; ++t)
        w.kept[t].val = static_cast<T>(static_cast<double>(w.kept[t].val) / d.mass);
  }

  /// Whether every product of X·X is > 0: X's values are (not NaN and) > 0 and the smallest
  /// one's square does not underflow (it cannot for float values, whose products are exact).
  bool products_positive() const {
    double least = INFINITY;
    for (const T v : m_.val) {
      if (!(v > T(0))) return false;
      least = std::min(least, static_cast<double>(v));
    }
    return least * least > 0;
  }

  /// The products of row i of X·X (mcl's n_entries of the column).
  offset_t row_products(index_t i) const {
    offset_t products = 0;
    for (offset_t ka = m_.rpt[i]; ka < m_.rpt[i + 1]; ++ka)
      products += m_.rpt[m_.col[ka] + 1] - m_.rpt[m_.col[ka]];
    return products;
  }

  // Negative weights: sums that cancel to 0, and ties. mcl expands a column in a dense array when
  // it has at least a tenth as many products as there are nodes (expand.c, sparse_trigger 10),
  // multiplying floats (each product rounded to float) and keeping only its non-zero sums; a
  // sparser column is composed entry by entry, with products in double, and a sum that cancels
  // stays an entry of value 0 (which recovery keeps). Without negative values no sum is 0, and
  // ties that a product's rounding decides are rare enough that the products stay in double
  // there (as on the GPU, whose results equal the CPU's).
  bool mcl_drops_zeros(offset_t products) const {
    return products * 10 >= static_cast<offset_t>(m_.cols);
  }

  /// The expanded row in w without its zero sums (their flags cleared); returns its length.
  static offset_t drop_zero_sums(row_workspace& w) {
    std::size_t kept = 0;
    for (const index_t j : w.cols) {
      if (w.acc[j] != 0.0)
        w.cols[kept++] = j;
      else
        w.present[j] = 0;  // (acc[j] is 0 already)
    }
    w.cols.resize(kept);
    return static_cast<offset_t>(kept);
  }

  /// drop_zero_sums for the stored expansion e_ (rows r0_ + i), in place.
  void drop_cancelled_sums() {
    offset_t out = 0;
    for (index_t i = 0; i < e_.rows; ++i) {
      const bool drop = mcl_drops_zeros(row_products(r0_ + i));
      const offset_t b = e_.rpt[i], e = e_.rpt[i + 1];
      e_.rpt[i] = out;
      for (offset_t k = b; k < e; ++k) {
        if (drop && e_.val[k] == T(0)) continue;
        e_.col[out] = e_.col[k];
        e_.val[out++] = e_.val[k];
      }
    }
    e_.rpt[e_.rows] = out;
    e_.col.resize(static_cast<std::size_t>(out));
    e_.val.resize(static_cast<std::size_t>(out));
  }

  /// Rows whose inflated values sum to at most 0 emptied (inflate_normalise), in place.
  void drop_massless_rows() {
    offset_t out = 0;
    for (index_t i = 0; i < m_.rows; ++i) {
      const offset_t b = m_.rpt[i], e = m_.rpt[i + 1];
      double sum = 0;
      for (offset_t k = b; k < e; ++k) sum += static_cast<double>(m_.val[k]);
      m_.rpt[i] = out;
      if (sum <= 0) continue;
      for (offset_t k = b; k < e; ++k) {
        m_.col[out] = m_.col[k];
        m_.val[out++] = m_.val[k];
      }
    }
    m_.rpt[m_.rows] = out;
    m_.col.resize(static_cast<std::size_t>(out));
    m_.val.resize(static_cast<std::size_t>(out));
  }

  /// Rows [r0_, r1_) of X·X expanded and pruned one at a time (see the file's comment).
  void expand_prune(const prune_rule& rule) {
    const index_t rows = r1_ - r0_;
    if (rows == 0) return;
    decisions_.assign(static_cast<std::size_t>(rows), row_decision{});
    const offset_t work = m_.nnz() * 16;  // a rough size of the expansion, for the thread count
    const int nthreads = std::max(1, threads_for(work));
    if (static_cast<int>(ws_.size()) < nthreads) ws_.resize(static_cast<std::size_t>(nthreads));
    // Where each row's survivors are: (thread, start) in that thread's kept list.
    std::vector<std::pair<int, offset_t>> where(static_cast<std::size_t>(rows));
    const bool scatter = scatter_ && products_positive();
    offset_t expanded = 0;
#pragma omp parallel num_threads(nthreads) reduction(+ : expanded)
    {
      row_workspace& w = ws_[static_cast<std::size_t>(omp_get_thread_num())];
      if (w.acc.size() != static_cast<std::size_t>(m_.cols)) {
        w.acc.assign(static_cast<std::size_t>(m_.cols), 0.0);
        w.present.assign(static_cast<std::size_t>(m_.cols), 0);
      }
      w.kept.clear();
#pragma omp for schedule(dynamic, 16)
      for (index_t r = 0; r < rows; ++r) {
        const index_t i = r0_ + r;
        const offset_t products = row_products(i);
        offset_t n;
        if (signed_ && mcl_drops_zeros(products)) {
          expand_row<true>(i, w, products);
          n = drop_zero_sums(w);
          take_row(w);
        } else if (scatter && products * 4 >= static_cast<offset_t>(m_.cols)) {
          n = expand_row_scatter(i, w);
        } else {
          n = expand_row<false>(i, w, products);
          take_row(w);
        }
        expanded += n;
        const row_decision d =
            decide(rule, w.vals.data(), n, w.tmp, chaos_[static_cast<std::size_t>(i)]);
        decisions_[r] = d;
        where[r] = {omp_get_thread_num(), static_cast<offset_t>(w.kept.size())};
        if (d.emergency)
          w.kept.emplace_back(i, T(1));
        else
          keep_survivors(w, d);
      }
    }
    expanded_nnz_ += expanded;
    std::vector<offset_t> offs;
    const offset_t base = append_block(rows, offs);
#pragma omp parallel for schedule(dynamic, 64) num_threads(nthreads)
    for (index_t r = 0; r < rows; ++r) {
      const auto& kept = ws_[static_cast<std::size_t>(where[r].first)].kept;
      const offset_t from = where[r].second;
      for (offset_t t = 0; t < offs[r + 1] - offs[r]; ++t) {
        next_col_[base + offs[r] + t] = kept[from + t].col;
        next_val_[base + offs[r] + t] = kept[from + t].val;
      }
    }
    for (index_t r = 0; r < rows; ++r) next_rpt_[r0_ + r + 1] = base + offs[r + 1];
  }

  /// Room for a block of `rows` pruned rows at the end of the next iterate: `offs` gets each
  /// row's offset from the returned base (from decisions_[r].keep); the rows are then copied in
  /// parallel.
  offset_t append_block(index_t rows, std::vector<offset_t>& offs) {
    const offset_t base = static_cast<offset_t>(next_col_.size());
    offs.assign(static_cast<std::size_t>(rows) + 1, 0);
    for (index_t r = 0; r < rows; ++r) offs[r + 1] = offs[r] + decisions_[r].keep;
    next_col_.resize(static_cast<std::size_t>(base + offs[rows]));
    next_val_.resize(static_cast<std::size_t>(base + offs[rows]));
    return base;
  }

  void begin_step() {
    expanded_nnz_ = 0;
    // A row no block expands is empty and has no chaos (a distributed rank expands its own).
    std::fill(chaos_.begin(), chaos_.end(), 0.0);
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
  row_decision decide(const prune_rule& rule, const T* val, offset_t n, std::vector<T>& tmp,
                      double& chaos) const {
    return detail::decide_row(rule, val, n, tmp, chaos, signed_);
  }

  /// Threads for a pass over `entries` values: one per 2^14 of them at least, since a team
  /// woken for a small matrix costs more than the pass (and spins on a busy machine).
  int threads_for(offset_t entries) const {
    const int all = threads_ > 0 ? threads_ : omp_get_max_threads();
    return static_cast<int>(std::min<offset_t>(all, std::max<offset_t>(1, entries >> 14)));
  }

  int threads_;
  std::size_t accumulator_bytes_;
  std::size_t memory_budget_;  ///< bytes for the stored expansion (0: no bound)
  cpu::options opt_;
  host_csr<T> m_;
  host_csr<T> e_;
  index_t r0_ = 0, r1_ = 0;
  std::vector<row_workspace> ws_;
  /// Dense rows are expanded by detail::scatter_add (float values, AVX-512 present).
  bool scatter_ = false;
  std::vector<offset_t> next_rpt_{0};
  std::vector<index_t> next_col_;
  std::vector<T> next_val_;
  std::vector<row_decision> decisions_;
  std::vector<double> chaos_;
  offset_t expanded_nnz_ = 0;
  /// The start matrix has negative values (negative weights: sums may cancel to 0) or values whose
  /// products underflow float: expanded as mcl expands them.
  bool signed_ = false;
};

}  // namespace

template <class T>
std::unique_ptr<backend<T>> make_cpu_backend(int threads, std::size_t accumulator_bytes,
                                             std::size_t memory_budget) {
  return std::make_unique<cpu_backend<T>>(threads, accumulator_bytes, memory_budget);
}

template std::unique_ptr<backend<float>> make_cpu_backend<float>(int, std::size_t, std::size_t);
template std::unique_ptr<backend<double>> make_cpu_backend<double>(int, std::size_t, std::size_t);

}  // namespace opsparse::mcl
