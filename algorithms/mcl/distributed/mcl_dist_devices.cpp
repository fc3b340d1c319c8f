// Distributed MCL's rows layout with the iterate spread over the ranks' GPUs (mcl_dist.hpp,
// dist_layout::rows, each rank owning its GPU and NCCL usable): rank r keeps rows split[r] to
// split[r + 1] of X on its device, and no rank ever holds the whole X. Each iteration:
//   1. every rank's row ends gathered by NCCL (X's row pointers on every device), from which
//      each rank counts its rows' products; the whole expansion's count decides its kind
//      (dense, fused) on every rank alike;
//   2. a fused (dense) expansion runs in column stages: for columns [c0, c1), every rank cuts
//      that block out of its rows, NCCL gathers the blocks on every device, and each rank
//      expands its rows over those columns, parking each row's candidates until the last
//      stage prunes it (mcl_fused_visit.cuh). A device holds its rows, their next iterate and
//      one column block of X. An expansion that is not fused (sparse networks) gathers the rows
//      of X whole as the right operand;
//   3. chaos, inflation, and the iteration's measures reduced over the ranks.
// Where the counted products leave one rank's rows far heavier than an even split would, the
// rows are split anew before the expansion and moved GPU to GPU (resplit()).
// Each rank starts from its rows of the start matrix as they lie (as read, or cut on `root` by
// equal products); the limit is gathered on `root` at the end.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "core/mcl_detail.hpp"
#include "mcl_dist_common.hpp"
#include "core/mcl_iteration.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/distributed/nccl.hpp"

#if OPSPARSE_HAS_GPU_ENGINE
namespace opsparse::mcl::detail {
namespace {

/// Column stages of a fused expansion: the ranks, or OPSPARSE_MCL_COLUMN_STAGES when set (tests
/// force many on few ranks).
int column_stages(int ranks) {
  const char* v = std::getenv("OPSPARSE_MCL_COLUMN_STAGES");
  const int x = v ? std::atoi(v) : 0;
  return x > 0 ? x : ranks;
}

/// When the rows are split anew by an expansion's products: OPSPARSE_MCL_RESPLIT=0 never, 1
/// whenever the split changes (tests), else when the slowest rank gains enough.
int resplit_mode() {
  const char* v = std::getenv("OPSPARSE_MCL_RESPLIT");
  if (v && std::string(v) == "0") return 0;
  if (v && std::string(v) == "1") return 1;
  return -1;
}

/// The products the heaviest rank must shed for a new split to pay: its copies over NVLink take
/// about what ~10^9 products of a dense expansion take on an H100/H200 (~20 ms).
constexpr long long resplit_min_gain = 1'000'000'000;

/// One rank's view of the spread iterate: its rows, its device, NCCL.
template <class T>
class spread_rows {
 public:
  using arrays = typename device_iterate<T>::arrays;
  spread_rows(const dist::grid& g, dist::nccl_comm& nccl, backend<T>& b, std::vector<index_t> split,
              index_t n)
      : g_(g), nccl_(nccl), b_(b), dev_(*b.on_device()), split_(std::move(split)), n_(n) {}

  /// Gathers `mine` (row ends shifted by `before`, columns, values: this rank's part, `own`
  /// entries) from every rank into the right operand's buffer (n rows). Returns it.
  template <class Ends>
  arrays gather(Ends ends, const index_t* col, const T* val, offset_t own, bool with_entries) {
    const gathered_rows_layout l = gathered_rows<T>(g_, split_, own);
    arrays all;
    const offset_t* shifted = nullptr;
    local_step(g_, "opsparse-mcl-mpi: room for the rows of X on the GPU", [&] {
      all = dev_.right_buffer(with_entries ? l.total : 0);
      shifted = ends(l.before);
    });
    nccl_.allgatherv(shifted, all.rpt + 1, l.rpt_bytes, dev_.stream());
    if (with_entries) {
      nccl_.allgatherv(col, all.col, l.col_bytes, dev_.stream());
      nccl_.allgatherv(val, all.val, l.val_bytes, dev_.stream());
    }
    all.nnz = with_entries ? l.total : 0;
    return all;
  }

  /// X's rows (whole when with_entries, else their row pointers only) as the right operand.
  arrays gather_rows(bool with_entries) {
    const arrays mine = dev_.current();
    const index_t first = split_[g_.rank()], last = split_[g_.rank() + 1];
    return gather([&](offset_t before) { return dev_.shifted_row_pointers(first, last, before); },
                  mine.col, mine.val, mine.nnz, with_entries);
  }

  /// Columns [c0, c1) of X's rows as the right operand.
  arrays gather_columns(index_t c0, index_t c1) {
    const index_t first = split_[g_.rank()], last = split_[g_.rank() + 1];
    arrays piece;
    local_step(g_, "opsparse-mcl-mpi: a column block of the rank's rows",
               [&] { piece = dev_.column_piece(first, last, c0, c1); });
    return gather([&](offset_t before) { return dev_.piece_row_ends(before); }, piece.col,
                  piece.val, piece.nnz, true);
  }

  /// Whether every rank's rows are sorted (the right operand's then are).
  bool all_sorted() {
    int sorted = dev_.rows_sorted() ? 1 : 0;
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &sorted, 1, MPI_INT, MPI_MIN, g_.comm()));
    return sorted != 0;
  }

  /// How many times the rows were split anew.
  int resplits() const { return resplits_; }
  /// Rank r's rows: split()[r] to split()[r + 1].
  const std::vector<index_t>& split() const { return split_; }

  /// Expands, prunes and inflates the rank's rows; returns the chaos (the rank's rows').
  double step(const params& p, double power) {
    const prune_rule rule = p.rule();
    const bool sorted = all_sorted();
    const int stages = column_stages(g_.size());
    std::vector<index_t> blocks = plan(sorted, stages);
    if (resplit()) blocks = plan(sorted, stages);
    const index_t first = split_[g_.rank()], last = split_[g_.rank() + 1];
    if (dev_.fused()) {
      dev_.multiply_by(nullptr, sorted);
      // The same number of row blocks on every rank (their gathers are collective).
      long long per_block = blocks.size() > 1 ? blocks[1] - blocks[0] : 1;
      OPSPARSE_MPI_TRY(
          MPI_Allreduce(MPI_IN_PLACE, &per_block, 1, MPI_LONG_LONG, MPI_MIN, g_.comm()));
      per_block = std::max<long long>(per_block, 1);
      long long rounds = (last - first + per_block - 1) / per_block;
      OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_LONG_LONG, MPI_MAX, g_.comm()));
      for (long long k = 0; k < rounds; ++k) {
        const index_t r0 = static_cast<index_t>(std::min<long long>(first + k * per_block, last));
        const index_t r1 = static_cast<index_t>(std::min<long long>(r0 + per_block, last));
        for (int s = 0; s < stages; ++s) {
          const index_t c0 = static_cast<index_t>(static_cast<long long>(n_) * s / stages);
          const index_t c1 = static_cast<index_t>(static_cast<long long>(n_) * (s + 1) / stages);
          const arrays piece = gather_columns(c0, c1);
          local_step(g_, "opsparse-mcl-mpi: a column stage of the expansion", [&] {
            dev_.expand_stage(r0, r1, rule, piece, c0, c1, s == 0, s + 1 == stages);
          });
        }
      }
      local_step(g_, "opsparse-mcl-mpi: the next iterate", [&] { b_.finish_expansion(); });
    } else {
      const arrays x = gather_rows(true);
      local_step(g_, "opsparse-mcl-mpi: expanding and pruning the rank's rows", [&] {
        dev_.multiply_by(&x, sorted);
        expand_prune_range(b_, blocks, first, last, rule);
      });
    }
    double chaos = 0;
    local_step(g_, "opsparse-mcl-mpi: chaos and inflation", [&] {
      dev_.multiply_by(nullptr, true);
      dev_.release_right_buffer();
      chaos = b_.chaos();
      b_.inflate_normalise(power);
    });
    return chaos;
  }

  /// X's row pointers on every device, the products counted, the expansion's kind decided from
  /// the whole expansion, and the rank's row blocks (the backend's, by its memory).
  std::vector<index_t> plan(bool sorted, int stages) {
    const arrays shape = gather_rows(false);
    long long counts[2] = {0, static_cast<long long>(dev_.current().nnz)};
    local_step(g_, "opsparse-mcl-mpi: counting the expansion", [&] {
      dev_.multiply_by(&shape, sorted);
      counts[0] = static_cast<long long>(dev_.products());
    });
    own_products_ = counts[0];
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, g_.comm()));
    total_products_ = counts[0];
    // Held back for a column stage: the rank's piece and the gathered block (X's entries over
    // the stages, a quarter more for uneven blocks) and their row pointers.
    const long long entry = static_cast<long long>(sizeof(index_t) + sizeof(T));
    const auto reserved = static_cast<std::size_t>(counts[1] / stages * 5 / 4 * entry +
                                                   2 * (static_cast<long long>(n_) + 1) *
                                                       static_cast<long long>(sizeof(offset_t)));
    // An unfused expansion multiplies by X's rows whole: where they would take more than a
    // quarter of the smallest rank's budget, an expansion of a 32nd of the columns in products a
    // row or more goes fused, in column stages (at 8M nodes the dense second expansion has 1.25M
    // products a row, under the quarter of the columns that makes it dense on one GPU).
    double budget = static_cast<double>(b_.device_budget());
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &budget, 1, MPI_DOUBLE, MPI_MIN, g_.comm()));
    const bool fused = static_cast<double>(counts[1] * entry) > budget / 4 &&
                       counts[0] / std::max<long long>(n_, 1) * 32 >= n_;
    std::vector<index_t> blocks;
    local_step(g_, "opsparse-mcl-mpi: planning the expansion", [&] {
      dev_.decide_as(static_cast<offset_t>(counts[0]), reserved, fused);
      blocks = b_.expansion_blocks(0);
    });
    return blocks;
  }

  /// Splits the rows anew by the products plan() counted, when the heaviest rank would shed at
  /// least a 20th of its products and resplit_min_gain (resplit_mode()), and moves them: each
  /// rank keeps the rows it holds of its new range and receives the others from their holders
  /// by NCCL into its spare arrays, whose layout X's gathered row pointers give. Each row is then
  /// expanded as before, by another rank: the iterates do not change. Collective; the same
  /// answer on every rank.
  bool resplit() {
    const int size = g_.size(), mode = resplit_mode();
    if (size == 1 || mode == 0 || !dist::nccl_comm::has_point_to_point()) return false;
    long long heaviest = own_products_;
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &heaviest, 1, MPI_LONG_LONG, MPI_MAX, g_.comm()));
    // No split does better than the mean: skip the count's exchange when even it would not pay.
    if (mode < 0 && heaviest - total_products_ / size < std::max(heaviest / 20, resplit_min_gain))
      return false;
    std::vector<offset_t> before;
    local_step(g_, "opsparse-mcl-mpi: the rows' products",
               [&] { before = dev_.row_products_prefix(); });
    // Each rank's count is flat outside its rows: their sum is the whole expansion's.
    sum_over_ranks(before.data(), static_cast<long long>(before.size()), g_.comm());
    std::vector<index_t> next = cpu::balanced_row_blocks(before, size);
    next.back() = n_;
    auto load = [&](const std::vector<index_t>& s) {
      long long most = 0;
      for (int r = 0; r < size; ++r)
        most = std::max<long long>(most, before[s[r + 1]] - before[s[r]]);
      return most;
    };
    const long long gain = load(split_) - load(next);
    if (next == split_ || (mode < 0 && gain < std::max(load(split_) / 20, resplit_min_gain)))
      return false;
    move_rows(next);
    ++resplits_;
    return true;
  }

  /// The whole iterate on root's host (collective; empty elsewhere).
  host_csr<T> gather_on_root(int root) {
    const index_t first = split_[g_.rank()], last = split_[g_.rank() + 1];
    const host_csr<T> rows = dist::detail::take_rows(b_.download(), {first}, {last});
    // the converged iterate is small: through the host
    return dist::detail::gather_row_blocks(rows, split_, n_, root, g_.comm());
  }

 private:
  /// Makes rows next[me] to next[me + 1] this rank's (resplit()); X's gathered row pointers
  /// (plan()) are the right operand.
  void move_rows(const std::vector<index_t>& next) {
    const int size = g_.size(), me = g_.rank();
    std::vector<index_t> points(split_);
    points.insert(points.end(), next.begin(), next.end());
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    std::vector<offset_t> at;
    local_step(g_, "opsparse-mcl-mpi: where the rows lie",
               [&] { at = dev_.right_row_pointers(points); });
    auto entry = [&](index_t row) {  // X's entries before `row`
      return at[static_cast<std::size_t>(std::lower_bound(points.begin(), points.end(), row) -
                                         points.begin())];
    };
    const index_t first = split_[me], last = split_[me + 1], nfirst = next[me],
                  nlast = next[me + 1];
    const index_t k0 = std::max(first, nfirst), k1 = std::max(k0, std::min(last, nlast));
    const arrays mine = dev_.current();
    arrays mine_next;
    local_step(g_, "opsparse-mcl-mpi: room for the rank's rows split anew", [&] {
      if (k0 < k1)
        mine_next = dev_.spare_rows(nfirst, nlast, entry(k0) - entry(first),
                                    entry(k1) - entry(first), entry(k0) - entry(nfirst));
      else
        mine_next = dev_.spare_rows(nfirst, nlast, 0, 0, 0);  // keeps none of its rows
    });
    // Between a pair of ranks the columns go first, then the values.
    std::vector<dist::nccl_comm::transfer> sends, receives;
    auto add = [](std::vector<dist::nccl_comm::transfer>& list, int peer, index_t* col, T* val,
                  offset_t from, offset_t entries) {
      if (entries <= 0) return;
      const auto e = static_cast<std::size_t>(entries);
      list.push_back({peer, col + from, e * sizeof(index_t)});
      list.push_back({peer, val + from, e * sizeof(T)});
    };
    for (int q = 0; q < size; ++q) {
      if (q == me) continue;
      const index_t s0 = std::max(first, next[q]), s1 = std::min(last, next[q + 1]);
      if (s0 < s1)
        add(sends, q, mine.col, mine.val, entry(s0) - entry(first), entry(s1) - entry(s0));
      const index_t r0 = std::max(split_[q], nfirst), r1 = std::min(split_[q + 1], nlast);
      if (r0 < r1)
        add(receives, q, mine_next.col, mine_next.val, entry(r0) - entry(nfirst),
            entry(r1) - entry(r0));
    }
    nccl_.exchange(sends, receives, dev_.stream());
    local_step(g_, "opsparse-mcl-mpi: the rank's rows split anew", [&] { dev_.use_spare(); });
    split_ = next;
  }

  const dist::grid& g_;
  dist::nccl_comm& nccl_;
  backend<T>& b_;
  device_iterate<T>& dev_;
  std::vector<index_t> split_;
  index_t n_;
  long long own_products_ = 0, total_products_ = 0;  ///< counted by plan()
  int resplits_ = 0;
};

}  // namespace

template <class T>
dist_run_result<T> run_spread(const dist::grid& g, dist::nccl_comm& nccl, backend<T>& b,
                              row_blocks<T> start, const params& p,
                              const std::function<void(const dist_iteration_info&)>& progress,
                              int root, clock::time_point t0, const dist_checkpoints& ck) {
  dist_run_result<T> r;
  r.row_exchange = "NCCL";
  r.spread = true;
  r.column_stages = column_stages(g.size());
  const index_t n = start.n;
  const std::vector<index_t> split = start.split;
  int first = 1;
  if (!ck.resume_dir.empty()) {  // the rank's rows of the checkpoint (any split will do)
    start = {};
    const checkpoint::state<T> st = read_rows<T>(g, ck, n, split[g.rank()], split[g.rank() + 1]);
    first = st.iteration + 1;
    local_step(g, "opsparse-mcl-mpi: the rank's rows on the GPU",
               [&] { b.restore(st.iterate, st.rows_sorted); });
  } else {
    local_step(g, "opsparse-mcl-mpi: the rank's rows on the GPU",
               [&] { b.load(square_of(std::move(start), g.rank())); });
  }
  spread_rows<T> rows(g, nccl, b, split, n);
  r.start_seconds = since(t0);
  double maxima[2] = {};   // chaos, the iteration's seconds (the slowest rank's)
  long long sums[2] = {};  // expanded entries, kept entries
  iteration_hooks h;
  h.step = [&](int, double power) {
    const auto t1 = clock::now();
    maxima[0] = rows.step(p, power);
    maxima[1] = since(t1);
    sums[0] = static_cast<long long>(b.expanded_nnz());
    sums[1] = static_cast<long long>(b.nnz());
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, maxima, 2, MPI_DOUBLE, MPI_MAX, g.comm()));
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_LONG_LONG, MPI_SUM, g.comm()));
    return maxima[0];
  };
  if (progress)
    h.done = [&](int it, double chaos, double seconds) {
      dist_iteration_info i;
      i.iteration = it;
      i.chaos = chaos;
      i.expanded_nnz = sums[0];
      i.nnz = sums[1];
      i.seconds = seconds;
      i.expand_seconds = maxima[1];
      i.products_seconds = maxima[1];  // (fused: products, pruning and inflation together)
      progress(i);
    };
  checkpoint_hooks(g, ck, h, [&](int it) {
    host_csr<T> mine;
    bool sorted = true;
    local_step(g, "opsparse-mcl-mpi: the rank's rows for the checkpoint",
               [&] { mine = b.snapshot(sorted); });
    write_parts(g, ck, it, sorted, std::move(mine), rows.split());
  });
  const iteration_outcome o = iterate(p, first, h);
  r.iterations = o.iterations;
  r.converged = o.converged;
  r.resplits = rows.resplits();
  r.limit = rows.gather_on_root(root);
  r.seconds = since(t0);
  return r;
}

template dist_run_result<float> run_spread<float>(
    const dist::grid&, dist::nccl_comm&, backend<float>&, row_blocks<float>, const params&,
    const std::function<void(const dist_iteration_info&)>&, int, clock::time_point,
    const dist_checkpoints&);
template dist_run_result<double> run_spread<double>(
    const dist::grid&, dist::nccl_comm&, backend<double>&, row_blocks<double>, const params&,
    const std::function<void(const dist_iteration_info&)>&, int, clock::time_point,
    const dist_checkpoints&);

}  // namespace opsparse::mcl::detail
#endif  // OPSPARSE_HAS_GPU_ENGINE
