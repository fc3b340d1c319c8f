#pragma once
// msbfs::backend's levels as products (msbfs.hpp), written once over an execution space
// (opsparse/space.hpp): F ← (F·A)<¬V> by spgemm over (any, pair) under V's complement,
// V ← V ∪ F with the level as F's values by ewise_add (disjoint), the summaries by reduce_rows
// over V, the next push's products by reduce over F. The engines instantiate it:
// msbfs_gpu.cu (gpu_space, which adds its own pull levels on bitmaps and the switch to them)
// and msbfs_cpu.cpp (cpu_space, make_cpu_product_backend: the GPU's push levels on the CPU
// engine; the CPU's own backend keeps its bitmaps, msbfs_cpu.cpp says why).
#include <string>
#include <utility>
#include <vector>

#include "msbfs/msbfs.hpp"
#include "opsparse/error.hpp"
#include "opsparse/graph_ops.hpp"
#include "opsparse/mask.hpp"
#include "opsparse/semiring.hpp"
#include "opsparse/space.hpp"

namespace opsparse::msbfs {

/// The space's last product's multiplications (found by argument-dependent lookup: the
/// backend's own products() hides the space's inside the class).
template <class Space>
offset_t products_of(const Space& sp) {
  return products(sp);
}

template <class Space>
class space_backend : public backend {
 public:
  template <class V>
  using matrix = typename Space::template matrix<V>;
  template <class T>
  using vector = typename Space::template vector<T>;

  template <class... Args>
  explicit space_backend(const char* name, Args&&... args)
      : name_(name), sp_(std::forward<Args>(args)...) {}

  const char* name() const override { return name_; }

  void load(const host_csr<pattern>& a, bool symmetric) override {
    OPSPARSE_EXPECTS(a.rows == a.cols, "BFS needs a square adjacency matrix");
    upload(sp_, a, a_);
    n_ = a.rows;
    a_nnz_ = a.nnz();
    symmetric_ = symmetric;
    loaded();
  }

  void configure(direction dir, bool keep_levels) override {
    dir_ = dir;
    keep_levels_ = keep_levels;
  }

  void start(const std::vector<index_t>& sources) override {
    // F_0 and V_0 have one entry per row: built on the host (b entries) and uploaded.
    const index_t b = static_cast<index_t>(sources.size());
    host_csr<pattern> f(b, n_);
    host_csr<level_t> v(b, n_);
    for (index_t r = 0; r < b; ++r) {
      OPSPARSE_EXPECTS(sources[r] >= 0 && sources[r] < n_, "source out of range");
      f.col.push_back(sources[r]);
      f.rpt[r + 1] = r + 1;
    }
    v.rpt = f.rpt;
    v.col = f.col;
    v.val.assign(sources.size(), 0);
    upload(sp_, f, f_);
    upload(sp_, v, v_);
    rows_ = b;
    f_nnz_ = b;
    pulling_ = false;
    push_levels_ = pull_levels_ = 0;
  }

  offset_t advance(level_t level) override {
    if (rows_ == 0 || a_nnz_ == 0) return 0;
    if (!pulling_) {
      if (f_nnz_ == 0) return 0;
      if (dir_ != direction::push && !keep_levels_ && can_pull(rows_)) {
        const offset_t push_cost = next_push_products();
        if (dir_ == direction::pull || pull_pays(push_cost, v_.nnz() + f_nnz_)) {
          switch_to_pull(push_cost);
          pulling_ = true;
        }
      }
    }
    if (pulling_) {
      ++pull_levels_;
      return pull(level);
    }
    return push(level);
  }

  std::vector<source_summary> summarise() override {
    std::vector<source_summary> out(static_cast<std::size_t>(rows_));
    if (rows_ == 0) return out;
    if (!pulling_) summarise_levels();
    const std::vector<long long> reached = to_host(sp_, reached_, rows_);
    const std::vector<long long> level_sum = to_host(sp_, level_sum_, rows_);
    const std::vector<int> ecc = to_host(sp_, ecc_, rows_);
    for (std::size_t r = 0; r < out.size(); ++r) {
      out[r].reached = reached[r];
      out[r].level_sum = level_sum[r];
      out[r].eccentricity = ecc[r];
    }
    return out;
  }

  host_csr<level_t> levels() override {
    OPSPARSE_EXPECTS(!pulling_, "levels() needs configure(..., keep_levels = true) before start()");
    return to_host(sp_, v_);
  }

  offset_t products() const override { return products_; }
  offset_t edges_traversed() const override { return edges_; }
  const char* last_level_note() const override { return pulling_ ? "pull" : "push"; }
  std::string last_batch_note() const override {
    if (pull_levels_ == 0) return "push";
    return "push " + std::to_string(push_levels_) + ", pull " + std::to_string(pull_levels_);
  }
  offset_t batch_budget() const override { return offset_t{1} << 24; }

 protected:
  /// A space that has levels of its own on bitmaps overrides these four: whether a batch of
  /// `rows` sources can pull, whether pulling pays for a push of `push_cost` products with V
  /// and F holding `entries`, the change of representation (`pending`: the products the push
  /// of F would have made), and one pull level (nnz of the new frontier). By default a search
  /// only pushes.
  virtual bool can_pull(index_t /*rows*/) const { return false; }
  virtual bool pull_pays(offset_t /*push_cost*/, offset_t /*entries*/) const { return false; }
  virtual void switch_to_pull(offset_t /*pending*/) {}
  virtual offset_t pull(level_t /*level*/) { return 0; }
  /// Called after a new graph is loaded.
  virtual void loaded() {}

  /// Each source's reached count, level sum and eccentricity from V's rows.
  void summarise_levels() {
    resize(sp_, reached_, rows_);
    resize(sp_, level_sum_, rows_);
    resize(sp_, ecc_, rows_);
    reduce_rows<plus_monoid<long long>>(sp_, v_, count_one<long long>{}, reached_, false);
    reduce_rows<plus_monoid<long long>>(sp_, v_, value_as<long long>{}, level_sum_, false);
    reduce_rows<max_monoid<int>>(sp_, v_, value_as<int>{}, ecc_, false);
  }

  Space& space() { return sp_; }
  const Space& space() const { return sp_; }
  const matrix<pattern>& graph() const { return a_; }
  const matrix<pattern>& frontier() const { return f_; }
  const matrix<level_t>& visited() const { return v_; }
  vector<long long>& reached() { return reached_; }
  vector<long long>& level_sum() { return level_sum_; }
  vector<int>& eccentricity() { return ecc_; }
  index_t vertices() const { return n_; }
  index_t batch_rows() const { return rows_; }
  offset_t graph_nnz() const { return a_nnz_; }
  bool symmetric() const { return symmetric_; }
  /// The pull levels add the edges they expand.
  void add_edges(offset_t e) { edges_ += e; }

 private:
  /// Σ deg(v) over F's entries.
  offset_t next_push_products() {
    return reduce<plus_monoid<offset_t>>(sp_, f_, row_lengths(sp_, a_));
  }

  offset_t push(level_t level) {
    spgemm<any_pair, complement_mask>(sp_, f_, a_, v_, next_f_);
    products_ += products_of(sp_);
    edges_ += products_of(sp_);
    ++push_levels_;
    std::swap(f_, next_f_);
    f_nnz_ = f_.nnz();
    if (f_nnz_ == 0) {
      synchronize(sp_);
      return 0;
    }
    ewise_add(sp_, v_, f_, union_fill<level_t>{level}, next_v_, /*disjoint=*/true);
    std::swap(v_, next_v_);
    return f_nnz_;
  }

  const char* name_;
  Space sp_;
  matrix<pattern> a_, f_, next_f_;
  matrix<level_t> v_, next_v_;
  vector<long long> reached_, level_sum_;  ///< per source (summaries)
  vector<int> ecc_;
  index_t n_ = 0, rows_ = 0;
  offset_t a_nnz_ = 0, f_nnz_ = 0;
  direction dir_ = direction::automatic;
  bool keep_levels_ = false, symmetric_ = false, pulling_ = false;
  int push_levels_ = 0, pull_levels_ = 0;
  offset_t products_ = 0, edges_ = 0;
};

}  // namespace opsparse::msbfs
