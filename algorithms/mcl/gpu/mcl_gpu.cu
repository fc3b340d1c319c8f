// The GPU backend: one opsparse::context and ONE opsparse::plan for the whole run; expansion with
// opsparse::spgemm<plus_times<double>> into a reused device_csr; pruning (cutoff, selection at rank
// S, recovery at rank R, all as mcl does, see mcl_prune.hpp), renormalisation, inflation and chaos
// as CUDA kernels and CUB calls on the device. Only scalars (products, kept entries, chaos) come
// back to the host during the run; the limit is downloaded once at the end.
//
// Arithmetic as mcl's: an iterate's cells hold T, expanded columns are summed in double and each
// sum is rounded to T once before pruning (cell() below). For T = float that is exactly mcl's
// float cells with double sums: the engine multiplies the float cells in double (exactly: a
// product of two floats fits a double) and sums in double, since float sums would break ties
// that mcl keeps.
//
// Every device array is grow-only and reused, so that once the iterates stop growing an
// iteration allocates nothing (opsparse::device_allocation_count() shows it with -V).
//
// Dense expansions (at least as many products a row as there are columns, on average) are expanded
// and pruned at once (mcl_fused.cuh): the unpruned rows never reach device memory and no symbolic
// phase sizes them. Sparse ones go through the engine's product and the pruning kernels below.
//
// When the expansion would not fit in device memory (estimated from its number of products,
// an upper bound of its nnz), it is computed in row blocks; each block is pruned into the next
// iterate before the next block is expanded, so only one block's expanded rows exist at a time.
// When the next iterate itself does not fit beside the current one (its bound: each row keeps
// at most max(S, R) entries, ties aside, and no more than its products), it is assembled in
// pinned host memory instead, block by block, and uploaded once the current one is freed
// (mcl_next_iterate.cuh): the same kernels, the same iterates, one iterate on the device at a time.
// Every size is taken within the memory budget (gpu_backend_options::memory_budget).
#include <cub/cub.cuh>
#include <thrust/iterator/constant_iterator.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/mcl.hpp"
#include "mcl_device_memory_budget.cuh"
#include "mcl_fused_visit.cuh"
#include "mcl_gpu_kernels.cuh"
#include "mcl_iterate_rows.cuh"
#include "mcl_next_iterate.cuh"
#include "opsparse/context.hpp"
#include "opsparse/dense_rows.cuh"
#include "opsparse/detail/util/device_utils.cuh"
#include "opsparse/detail/util/launch.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/graph_ops.cuh"
#include "opsparse/error.hpp"
#include "opsparse/plan.hpp"
#include "opsparse/row_blocks.hpp"
#include "opsparse/spgemm.hpp"

namespace opsparse::mcl {

namespace {

/// The deepest rank (max(S, R)) the fused expansion handles; deeper ones expand unfused (the
/// candidates' scratch is twice a window plus twice K entries a thread block).
constexpr long long fused_max_rank = 1 << 20;

/// Entries a row of the next iterate is assumed to keep when no pruning rule was given
/// (backend::set_prune_rule), and the fused expansion's room for a row's kept entries.
constexpr long long assumed_kept_per_row = 2048;

template <class T>
class gpu_backend final : public backend<T>, public device_iterate<T> {
 public:
  using arrays = typename device_iterate<T>::arrays;
  gpu_backend(int device, const gpu_backend_options& opt)
      : ctx_(device),
        block_pruned_rows_(std::max<offset_t>(1, opt.block_pruned_rows)),
        fused_mode_(opt.fused),
        fused_max_window_(opt.fused_max_window),
        placement_(opt.placement),
        budget_(opt.memory_budget),
        explicit_budget_(opt.memory_budget > 0) {
    visit_.lane_walk = opt.fused_lane_walk;
    OPSPARSE_CUDA_TRY(cudaMallocHost(&pinned_, 64));
    for (auto& e : ev_) OPSPARSE_CUDA_TRY(cudaEventCreate(&e));
    // Rows of the expansion need not be sorted: pruning, inflation and the interpretation read
    // a row as a set, and the engine takes unsorted rows of A and B.
    opt_.sorted = false;
    // Phase times of each product for -V (one more event wait per product: ~20 us).
    opt_.time_phases = true;
  }
  ~gpu_backend() override {
    // The destructor may run on another thread (cluster() releases the backend in the
    // background): the arrays are freed on their own device.
    OPSPARSE_CUDA_TRY_NO_THROW(cudaSetDevice(ctx_.device().device));
    for (auto& e : ev_)
      if (e) OPSPARSE_CUDA_TRY_NO_THROW(cudaEventDestroy(e));
    if (pinned_) OPSPARSE_CUDA_TRY_NO_THROW(cudaFreeHost(pinned_));
  }
  gpu_backend(const gpu_backend&) = delete;
  gpu_backend& operator=(const gpu_backend&) = delete;

  const char* name() const override { return "gpu"; }

  void load(const host_csr<T>& start) override { load_as(start); }

  /// The program's double start matrix: values uploaded as they are and converted here.
  void load_cells(const host_csr<double>& start, int) override { load_as(start); }

  /// `check`: the matrix is validated (sorted rows); a restored iterate may hold unsorted ones.
  template <class V>
  void load_as(const host_csr<V>& start, bool check = true) {
    if (check) opsparse::validate(start);
    OPSPARSE_EXPECTS(start.rows == start.cols, "the MCL start matrix must be square");
    n_ = start.rows;
    cudaStream_t s = ctx_.stream();
    // the iterates grow from the context's pool (stream-ordered, no synchronisation)
    m_.set_shape(n_, n_, ctx_.memory());
    m_.set_nnz(start.nnz(), ctx_.memory());
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(m_.rpt(), start.rpt.data(),
                                      start.rpt.size() * sizeof(offset_t), cudaMemcpyHostToDevice,
                                      s));
    if (m_.nnz()) {
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(m_.col(), start.col.data(),
                                        start.col.size() * sizeof(index_t), cudaMemcpyHostToDevice,
                                        s));
      if constexpr (std::is_same_v<V, T>) {
        OPSPARSE_CUDA_TRY(cudaMemcpyAsync(m_.val(), start.val.data(), start.val.size() * sizeof(T),
                                          cudaMemcpyHostToDevice, s));
      } else {
        device_buffer<V> staged;  // from the pool: its release is ordered after the transform
        staged.reserve(start.val.size(), ctx_.memory());
        OPSPARSE_CUDA_TRY(cudaMemcpyAsync(staged.data(), start.val.data(),
                                          start.val.size() * sizeof(V), cudaMemcpyHostToDevice, s));
        OPSPARSE_CUDA_TRY(cub::DeviceTransform::Transform(
            staged.data(), m_.val(), static_cast<long long>(start.val.size()), cast_to<T>{}, s));
      }
    }
    next_.arrays().set_shape(n_, n_, ctx_.memory());
    chaos_.reserve(std::max<std::size_t>(1, static_cast<std::size_t>(n_)));
    products_.reserve(static_cast<std::size_t>(n_) + 1);
    OPSPARSE_CUDA_TRY(
        cudaMemsetAsync(chaos_.data(), 0, std::max<std::size_t>(1, n_) * sizeof(double), s));
    m_sorted_ = true;                             // start_matrix builds sorted rows
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));  // the host arrays may go away
    note_memory("the start matrix loaded");
  }

  void set_prune_rule(const prune_rule& rule) override {
    kept_per_row_ = kept_entries_bound(rule, std::numeric_limits<long long>::max());
  }

  std::vector<index_t> expansion_blocks(long long max_products) override {
    cudaStream_t s = ctx_.stream();
    expanded_nnz_ = 0;
    times_ = stage_times{};
    compact_pending_ = false;
    next_row_ = 0;
    if (n_ == 0) return {0};
    // Products per row (an upper bound of the expanded nnz), then the next iterate's bound
    // (each row's products capped at the entries a row keeps), then the products scanned.
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(products_.data() + n_, 0, sizeof(offset_t), s));
    row_products(ctx_, m_.view(), right(), products_.data());
    const offset_t bound = kept_bound();
    cub_scratch(scan_bytes(static_cast<long long>(n_) + 1));
    OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(cub_.data(), cub_bytes_, products_.data(),
                                                    static_cast<long long>(n_) + 1, s));
    const offset_t total = read_scalar(products_.data() + n_);
    // A dense expansion (a quarter of the columns in products per row, on average) goes to
    // the engine's shared-memory windows, which find their part of each row of X by a search
    // when X's rows are sorted and walk them whole once per window otherwise
    // (spgemm_tuning::dense_windows): X's rows are sorted then, and so are the expanded rows,
    // which the next iterate keeps. Sparse networks keep unsorted rows (pruning, inflation and
    // the interpretation read rows as sets; sorting cost the 200k-node benchmark 60 ms).
    // (A distributed rank decides as the whole expansion does: decide_as().)
    const offset_t all = decide_total_ >= 0 ? decide_total_ : total;
    const bool dense = force_fused_ || all / std::max<offset_t>(1, n_) * 4 >= n_;
    opt_.sorted = dense;
    if (dense && !m_sorted_) sort_iterate_rows();
    total_products_ = total;
    // Fused when the rows' products reach the column count on average: rows then cover most
    // columns (1 - 1/e of them for evenly spread products), and scanning every column of every
    // row costs less than storing the row and pruning it afterwards. Measured on the H100 (100k
    // nodes, dense network): 1.23M products a row, fused 0.96 s against 1.84 s; 26k a row
    // (a quarter of the columns), fused 65 ms against 47 ms.
    // Fused too when the expansion is dense but wider than the engine's dense paths take
    // (spgemm_dense_rows_fit: ~1.8M columns on an H100; the fused windows take any width):
    // unfused, its long rows would go to global hash tables, where a 2M-node dense network had
    // not finished its second iteration after 300 s (the 1M-node one's fused expansion: 14 s).
    fused_ =
        fused_mode_ == fused_expansion::always ||
        (fused_mode_ != fused_expansion::never && force_fused_) ||
        (fused_mode_ == fused_expansion::automatic &&
         (all / std::max<offset_t>(1, n_) >= n_ || (dense && !spgemm_dense_rows_fit(ctx_, n_))));
    release_unused_workspace();
    settle_memory();

    // Room: the budget less what is held, plus what this expansion reuses or frees.
    const std::size_t entry = sizeof(index_t) + sizeof(T);
    const std::size_t next_bytes = static_cast<std::size_t>(bound) * entry;
    std::size_t avail = available_bytes(workspace_bytes() + next_.device_bytes());
    avail = avail > reserved_bytes_ ? avail - reserved_bytes_ : 0;
    // A fused row costs its kept entries in the output buffer (and, streamed, in the two block
    // buffers); a stored product its column and (double) sum, the sorted copy of sums and CUB's
    // sort buffers (about two more) and, streamed, its kept copy in a block buffer.
    const long long per_row_out = assumed_kept_per_row * static_cast<long long>(entry) +
                                  3 * static_cast<long long>(sizeof(offset_t));
    const long long per_product_stored =
        static_cast<long long>(2 * sizeof(index_t) + 4 * sizeof(double));
    const std::size_t min_workspace =
        static_cast<std::size_t>(fused_ ? std::min<long long>(n_, 1 << 16) * per_row_out
                                        : std::min<long long>(total, 1 << 24) * per_product_stored);
    const bool streamed =
        placement_ == iterate_placement::streamed ||
        (placement_ == iterate_placement::automatic && next_bytes + min_workspace > avail);
    next_.begin(n_, streamed, bound, ctx_);
    if (streamed) settle_memory();  // the next iterate's device entries were freed
    const std::size_t room = streamed ? avail : avail > next_bytes ? avail - next_bytes : 0;
    // A row no block expands has no chaos (a distributed rank expands only its own rows).
    OPSPARSE_CUDA_TRY(
        cudaMemsetAsync(chaos_.data(), 0, static_cast<std::size_t>(n_) * sizeof(double), s));

    if (fused_) {
      // Nothing unpruned is stored: a row costs its kept entries (at most max(S, R) and ties;
      // 2,048 assumed here, the output buffer grows when rows keep more).
      // (Staged, its candidates are parked between stages: twice as many again.)
      const long long per_row =
          per_row_out + (streamed ? 2 * assumed_kept_per_row * static_cast<long long>(entry) : 0) +
          (reserved_bytes_ > 0 ? 2 * per_row_out : 0);
      const long long rows = std::max<long long>(1, static_cast<long long>(room) / per_row);
      if (max_products > 0 && total > max_products)  // blocks asked for (--block-products)
        return rows_within(products_prefix(), 1, 0, static_cast<double>(max_products));
      std::vector<index_t> blocks;
      for (long long r = 0; r < n_; r += rows) blocks.push_back(static_cast<index_t>(r));
      blocks.push_back(n_);
      return blocks;
    }
    const long long per_product =
        per_product_stored + (streamed ? 2 * static_cast<long long>(entry) : 0);
    long long limit = std::max<long long>(1, static_cast<long long>(room) / per_product);
    if (max_products > 0) limit = std::min(limit, max_products);
    if (total <= limit) return {0, n_};
    return rows_within(products_prefix(), 1, 0, static_cast<double>(limit));
  }

  void expand(index_t r0, index_t r1) override {
    OPSPARSE_EXPECTS(0 <= r0 && r0 <= r1 && r1 <= n_, "expand: bad row block");
    OPSPARSE_EXPECTS(r0 >= next_row_, "expand: row blocks must come in order, without overlap");
    // The next iterate is appended block after block: rows skipped before this block are empty.
    leave_rows_empty(next_row_, r0);
    next_row_ = r1;
    r0_ = r0;
    r1_ = r1;
    // A fused block is expanded by prune_normalise, which knows the pruning rule.
    if (!fused_) expand_unfused(r0, r1);
  }

  void expand_unfused(index_t r0, index_t r1) {
    // Rows [r0, r1) of X as a view: the engine indexes col/val by absolute row pointers, so the
    // block is X's row pointers from r0 on, with X's column and value arrays.
    const csr_view<T> b = right();
    csr_view<T> a = m_.view();
    a.rows = r1 - r0;
    a.rpt = m_.rpt() + r0;
    try {
      spgemm<plus_times<double>, T, T>(ctx_, plan_, a, b, e_, no_mask{}, opt_);
      // The engine's phase events (opt_.time_phases) time the expansion.
      const spgemm_stats& ps = plan_.stats();
      times_.products += ps.products;
      times_.symbolic += ps.ms_setup + ps.ms_symbolic_binning + ps.ms_symbolic;
      times_.numeric += ps.ms_numeric_binning + ps.ms_numeric;
      times_.expand += ps.ms_setup + ps.ms_symbolic_binning + ps.ms_symbolic +
                       ps.ms_numeric_binning + ps.ms_numeric;
    } catch (const cuda_error& err) {
      throw std::runtime_error(
          std::string("expanding rows [") + std::to_string(r0) + ", " + std::to_string(r1) +
          ") of " + std::to_string(n_) + " failed: " + err.what() +
          " (if the device ran out of memory, give --block-products a smaller value)");
    }
    expanded_nnz_ += e_.nnz();
  }

  void prune_normalise(const prune_rule& rule) override {
    if (fused_) {
      expand_prune_fused(rule);
      return;
    }
    prune_expanded(rule);
  }

  /// Prunes the expanded block in e_ (the engine's product).
  void prune_expanded(const prune_rule& rule) {
    const index_t m = e_.rows();
    if (m == 0) return;
    // Long expanded rows (dense expansions) are pruned by a block each, others by a warp.
    if (e_.nnz() / m >= block_pruned_rows_)
      prune_rows<long_team>(rule, m, m);
    else
      prune_rows<warp_size>(rule, m, warp_grid(m));
  }

  template <int TEAM>
  void prune_rows(const prune_rule& rule, index_t m, long long blocks) {
    cudaStream_t s = ctx_.stream();
    const unsigned grid = static_cast<unsigned>(blocks);
    stat_.reserve(static_cast<std::size_t>(m));
    dec_.reserve(static_cast<std::size_t>(m));
    seg_off_.reserve(static_cast<std::size_t>(m) + 1);
    keep_.reserve(static_cast<std::size_t>(m) + 1);
    cub_scratch(scan_bytes(static_cast<long long>(m) + 1));

    OPSPARSE_CUDA_TRY(cudaEventRecord(ev_[0], s));
    prune_stats_kernel<T, TEAM>
        <<<grid, block_threads, 0, s>>>(m, e_.rpt(), e_.val(), rule, stat_.data(), seg_off_.data());
    check_launch("prune_stats_kernel");
    OPSPARSE_CUDA_TRY(cudaEventRecord(ev_[1], s));
    // Order statistics: the values that rows needing a rank-S or rank-R value rank among
    // (prune_stats_kernel) are gathered and sorted (descending) into sorted_, one segment a row.
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(seg_off_.data() + m, 0, sizeof(offset_t), s));
    OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(cub_.data(), cub_bytes_, seg_off_.data(),
                                                    static_cast<long long>(m) + 1, s));
    const offset_t ranked = read_scalar(seg_off_.data() + m);
    if (ranked > 0) {
      gathered_.reserve(static_cast<std::size_t>(ranked));
      sorted_.reserve(static_cast<std::size_t>(ranked));
      prune_gather_kernel<T, TEAM><<<grid, block_threads, 0, s>>>(
          m, e_.rpt(), e_.val(), rule, stat_.data(), seg_off_.data(), gathered_.data());
      check_launch("prune_gather_kernel");
      std::size_t sort_bytes = 0;
      OPSPARSE_CUDA_TRY(cub::DeviceSegmentedSort::SortKeysDescending(
          nullptr, sort_bytes, gathered_.data(), sorted_.data(), static_cast<std::int64_t>(ranked),
          static_cast<std::int64_t>(m), seg_off_.data(), seg_off_.data() + 1, s));
      cub_scratch(std::max(sort_bytes, scan_bytes(static_cast<long long>(m) + 1)));
      OPSPARSE_CUDA_TRY(cub::DeviceSegmentedSort::SortKeysDescending(
          cub_.data(), sort_bytes, gathered_.data(), sorted_.data(),
          static_cast<std::int64_t>(ranked), static_cast<std::int64_t>(m), seg_off_.data(),
          seg_off_.data() + 1, s));
    }
    OPSPARSE_CUDA_TRY(cudaEventRecord(ev_[2], s));
    prune_decide_kernel<T, TEAM><<<grid, block_threads, 0, s>>>(
        m, r0_, e_.rpt(), e_.val(), sorted_.data(), seg_off_.data(), rule, stat_.data(),
        dec_.data(), keep_.data(), chaos_.data());
    check_launch("prune_decide_kernel");
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(keep_.data() + m, 0, sizeof(offset_t), s));
    OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(cub_.data(), cub_bytes_, keep_.data(),
                                                    static_cast<long long>(m) + 1, s));
    OPSPARSE_CUDA_TRY(cudaEventRecord(ev_[3], s));
    const offset_t kept = read_scalar(keep_.data() + m);
    // Everything recorded so far has run: add this block's stage times.
    times_.prune += elapsed(0, 1) + elapsed(2, 3);
    times_.sort += elapsed(1, 2);
    if (compact_pending_) times_.prune += elapsed(4, 5);
    const auto out = next_.block(kept, ctx_);
    OPSPARSE_CUDA_TRY(cudaEventRecord(ev_[4], s));
    prune_compact_kernel<T, TEAM><<<grid, block_threads, 0, s>>>(
        m, r0_, out.rpt_base, out.base, e_.rpt(), e_.col(), e_.val(), stat_.data(), dec_.data(),
        keep_.data(), next_.arrays().rpt(), out.col, out.val);
    check_launch("prune_compact_kernel");
    OPSPARSE_CUDA_TRY(cudaEventRecord(ev_[5], s));
    next_.written(kept, ctx_);
    compact_pending_ = true;
    note_memory("a block expanded and pruned");
  }

  /// Rows [r0_, r1_) of X·X (X·B with multiply_by()) expanded and pruned at once
  /// (mcl_fused.cuh), appended to the next iterate. Falls back to the engine's product and the
  /// pruning kernels for the block when a row's candidates overflow the scratch (never with
  /// mcl's pruning on real data: see there).
  void expand_prune_fused(const prune_rule& rule) {
    if (r1_ == r0_) return;
    if (std::max(rule.select, rule.recover) > fused_max_rank || !visit_fused(rule, right(), {})) {
      // Ranks this deep need scratch of several times K a thread block: the stored expansion.
      expand_unfused(r0_, r1_);
      prune_expanded(rule);
    }
  }

  /// A visit (or a stage of it) of rows [r0_, r1_) times b; after the last stage the kept rows
  /// are laid out in the next iterate. False when a row's candidates overflowed the scratch.
  bool visit_fused(const prune_rule& rule, const csr_view<T>& b, const visit_stage& stage) {
    cudaStream_t s = ctx_.stream();
    const index_t m = r1_ - r0_;
    keep_.reserve(static_cast<std::size_t>(m) + 1);
    cub_scratch(scan_bytes(static_cast<long long>(m) + 1));
    csr_view<T> a = m_.view();
    a.rows = m;
    a.rpt = m_.rpt() + r0_;
    const int max_window = fused_max_window_ > 0 ? std::max(32, fused_max_window_ / 32 * 32) : 0;
    float ms = 0;
    const fused::counters c = visit_.run(ctx_, a, b, right_sorted(), rule, r0_, m, max_window,
                                         stage, keep_.data(), chaos_.data(), &ms);
    times_.expand += ms;
    times_.numeric += ms;
    if (c.flags & fused::overflow_candidates) return false;
    if (!stage.last) return true;
    times_.products += products_between(r0_, r1_);
    expanded_nnz_ += static_cast<offset_t>(c.expanded);
    // The rows' kept counts (keep_) scanned into offsets; the rows gathered into the next iterate.
    // Timed like the stored path's compaction: read once the stream has passed it (the next
    // block's readback or stats()), so this block adds no wait of its own.
    if (compact_pending_) times_.prune += elapsed(4, 5);  // the last block's: the stream is past it
    OPSPARSE_CUDA_TRY(cudaEventRecord(ev_[4], s));
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(keep_.data() + m, 0, sizeof(offset_t), s));
    OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(cub_.data(), cub_bytes_, keep_.data(),
                                                    static_cast<long long>(m) + 1, s));
    const offset_t kept = read_scalar(keep_.data() + m);
    const auto out = next_.block(kept, ctx_);
    gather_rows_kernel<T><<<warp_grid(m), block_threads, 0, s>>>(
        m, r0_, out.rpt_base, out.base, keep_.data(), visit_.row_base(), visit_.out_col(),
        visit_.out_val(), next_.arrays().rpt(), out.col, out.val);
    check_launch("gather_rows_kernel");
    OPSPARSE_CUDA_TRY(cudaEventRecord(ev_[5], s));
    next_.written(kept, ctx_);
    compact_pending_ = true;
    note_memory("a block expanded and pruned (fused)");
    return true;
  }

  /// Products of rows [r0, r1) of X·X (from the scanned per-row counts).
  long long products_between(index_t r0, index_t r1) {
    if (r0 == 0 && r1 == n_) return total_products_;
    return static_cast<long long>(read_scalar(products_.data() + r1) -
                                  read_scalar(products_.data() + r0));
  }

  void finish_expansion() override {
    // Rows no block expanded (a distributed rank expands only its own: mcl_dist.cpp's rows
    // layout) are empty, as the CPU backend leaves them.
    leave_rows_empty(next_row_, n_);
    next_row_ = n_;
    m_sorted_ = opt_.sorted;  // pruning keeps the order of the expanded rows
    next_.make_current(m_, ctx_, [this] {
      release_workspace();
      settle_memory();
    });
    if (next_.streamed()) note_memory("the streamed iterate uploaded");
  }

  double chaos() override {
    if (n_ == 0) return 0.0;
    cudaStream_t s = ctx_.stream();
    std::size_t bytes = 0;
    OPSPARSE_CUDA_TRY(cub::DeviceReduce::Max(nullptr, bytes, chaos_.data(), chaos_out_.data(),
                                             static_cast<long long>(n_), s));
    chaos_out_.reserve(1);
    cub_scratch(bytes);
    OPSPARSE_CUDA_TRY(cub::DeviceReduce::Max(cub_.data(), bytes, chaos_.data(), chaos_out_.data(),
                                             static_cast<long long>(n_), s));
    OPSPARSE_CUDA_TRY(
        cudaMemcpyAsync(pinned_, chaos_out_.data(), sizeof(double), cudaMemcpyDeviceToHost, s));
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
    return *static_cast<double*>(pinned_);
  }

  void inflate_normalise(double power) override {
    if (n_ == 0) return;
    inflate_kernel<T>
        <<<warp_grid(n_), block_threads, 0, ctx_.stream()>>>(n_, m_.rpt(), m_.val(), power);
    check_launch("inflate_kernel");
  }

  offset_t nnz() const override { return m_.nnz(); }
  offset_t expanded_nnz() const override { return expanded_nnz_; }

  host_csr<T> download() override {
    // The iterate's rows are unsorted (see the constructor): sorted by column here, once (in
    // place, block by block, where a sorted copy does not fit), so that callers get a canonical
    // CSR.
    sort_iterate_rows();
    return copy_current();
  }

  host_csr<T> snapshot(bool& rows_sorted) override {
    rows_sorted = m_sorted_;
    return copy_current();
  }

  void restore(const host_csr<T>& iterate, bool rows_sorted) override {
    load_as(iterate, false);
    m_sorted_ = rows_sorted;
  }

  /// The current iterate copied to the host as it is.
  host_csr<T> copy_current() {
    cudaStream_t s = ctx_.stream();
    host_csr<T> h(n_, n_);
    h.col.resize(static_cast<std::size_t>(m_.nnz()));
    h.val.resize(static_cast<std::size_t>(m_.nnz()));
    if (n_ > 0)
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(h.rpt.data(), m_.rpt(), h.rpt.size() * sizeof(offset_t),
                                        cudaMemcpyDeviceToHost, s));
    if (m_.nnz() > 0) {
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(h.col.data(), m_.col(), h.col.size() * sizeof(index_t),
                                        cudaMemcpyDeviceToHost, s));
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(h.val.data(), m_.val(), h.val.size() * sizeof(T),
                                        cudaMemcpyDeviceToHost, s));
    }
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
    return h;
  }

  // ---- device_iterate: a distributed rank's face (mcl_gpu_rank.cuh) --------------------------
  device_iterate<T>* on_device() override { return this; }
  CUstream_st* stream() override { return ctx_.stream(); }
  arrays current() override { return {m_.rpt(), m_.col(), m_.val(), m_.nnz()}; }
  const offset_t* shifted_row_pointers(index_t r0, index_t r1, offset_t shift) override;
  arrays spare(offset_t nnz) override;
  void use_spare() override;
  std::vector<offset_t> row_products_prefix() override;
  std::vector<offset_t> right_row_pointers(const std::vector<index_t>& rows) override;
  arrays spare_rows(index_t r0, index_t r1, offset_t from, offset_t to, offset_t at) override;
  void multiply_by(const arrays* b, bool sorted) override;
  arrays right_buffer(offset_t nnz) override;
  void release_right_buffer() override;
  offset_t products() override;
  void decide_as(offset_t total_products, std::size_t reserved_bytes, bool fused) override {
    decide_total_ = total_products;
    force_fused_ = fused;
    reserved_bytes_ = reserved_bytes;
  }
  bool fused() const override { return fused_; }
  bool rows_sorted() const override { return m_sorted_; }
  arrays column_piece(index_t r0, index_t r1, index_t c0, index_t c1) override;
  const offset_t* piece_row_ends(offset_t shift) override;
  void expand_stage(index_t r0, index_t r1, const prune_rule& rule, const arrays& b, index_t c0,
                    index_t c1, bool first, bool last) override;

  std::size_t device_budget() const override { return budget_.bytes(); }

  backend_stats stats() override {
    backend_stats b;
    b.device_allocations = device_allocation_count();
    b.current_device_bytes = ctx_.note_memory();
    b.peak_device_bytes = ctx_.peak_memory();
    b.device = ctx_.device().name;
    if (compact_pending_) {
      // The last block's compaction (chaos() or download() has synchronised since).
      OPSPARSE_CUDA_TRY(cudaEventSynchronize(ev_[5]));
      times_.prune += elapsed(4, 5);
      compact_pending_ = false;
    }
    b.expand_ms = times_.expand;
    b.prune_ms = times_.prune;
    b.sort_ms = times_.sort;
    b.products = times_.products;
    b.symbolic_ms = times_.symbolic;
    b.numeric_ms = times_.numeric;
    b.fused = fused_;
    b.streamed = next_.streamed();
    b.pinned_host_bytes = next_.host_bytes();
    b.peak_device_breakdown = peak_breakdown_;
    return b;
  }

 private:
  /// The expansion's right operand: X, or the distributed rank's B (multiply_by()).
  csr_view<T> right();
  /// An n x n view of arrays (the rank's operand received, a column block).
  csr_view<T> square_view(const arrays& a) const;
  bool right_sorted() const { return right_on_ ? right_sorted_ : m_sorted_; }
  const offset_t* shifted(const offset_t* ends, index_t rows, offset_t shift);

  /// Sorts every row of the iterate by column: into next_'s arrays, then swapped; in place, a
  /// block of rows at a time, when a sorted copy (and CUB's scratch, about as much) won't fit.
  void sort_iterate_rows() {
    const std::size_t entry = sizeof(index_t) + sizeof(T);
    const std::size_t bytes = static_cast<std::size_t>(m_.nnz()) * entry;
    const std::size_t avail = available_bytes(workspace_bytes() + next_.device_bytes());
    if (m_.nnz() > 0 && 2 * bytes <= avail) {
      sort_rows(ctx_, m_.view(), next_.arrays());
      std::swap(m_, next_.arrays());
      next_.arrays().set_nnz(0);
    } else if (m_.nnz() > 0) {
      release_workspace();
      settle_memory();
      sort_rows_in_blocks(ctx_, m_, std::max<std::size_t>(avail / (3 * entry), 1 << 20), seg_off_,
                          sort_col_, sort_val_, cub_);
    }
    m_sorted_ = true;
  }
  /// Rows [from, to) of the next iterate empty: their row pointers repeat rpt[from], which is
  /// the entries appended so far (blocks come in order).
  void leave_rows_empty(index_t from, index_t to) {
    if (from >= to) return;
    const thrust::constant_iterator<offset_t> zero(0);
    OPSPARSE_CUDA_TRY(cub::DeviceTransform::Transform(
        zero, next_.arrays().rpt() + from + 1, static_cast<long long>(to) - from,
        plus_offset{next_.appended()}, ctx_.stream()));
  }
  /// The next iterate's nnz at most (ties at the selection's bar aside): products_ holds the
  /// per-row counts, not yet scanned.
  offset_t kept_bound() {
    return sum_capped(ctx_, products_.data(), n_, std::min<long long>(kept_per_row_, n_), bound_,
                      cub_);
  }

  /// The scanned products per row on the host (rows + 1 values), to split rows into blocks.
  std::vector<offset_t> products_prefix() {
    std::vector<offset_t> prefix(static_cast<std::size_t>(n_) + 1);
    OPSPARSE_CUDA_TRY(cudaMemcpy(prefix.data(), products_.data(), prefix.size() * sizeof(offset_t),
                                 cudaMemcpyDeviceToHost));
    return prefix;
  }

  std::size_t available_bytes(std::size_t reusable) const {
    return budget_.available(ctx_, reusable);
  }

  /// The process's device memory noted (context::note_memory); at a new peak, what held it.
  void note_memory(const char* where) {
    const std::size_t before = ctx_.peak_memory();
    const std::size_t used = ctx_.note_memory();
    if (used <= before) return;
    device_memory_use u;
    u.used = used;
    u.iterate = m_.nnz_capacity() * (sizeof(index_t) + sizeof(T)) +
                (static_cast<std::size_t>(n_) + 1) * sizeof(offset_t);
    u.next_iterate = next_.device_bytes();
    u.workspaces = workspace_bytes();
    u.pool_idle = ctx_.pool_idle_bytes();
    peak_breakdown_ = budget_.describe(where, u);
  }

  /// Device bytes of the expansion's workspaces (all reused or freed by the next expansion).
  std::size_t workspace_bytes() const {
    return (e_.nnz_capacity() + piece_.nnz_capacity()) * (sizeof(index_t) + sizeof(double)) +
           (sorted_.capacity() + gathered_.capacity()) * sizeof(double) + cub_.capacity() +
           sort_col_.capacity() * sizeof(index_t) + sort_val_.capacity() * sizeof(T) +
           visit_.bytes();
  }
  /// Frees the workspaces of the path (fused or stored) this expansion does not take.
  void release_unused_workspace() {
    if (fused_)
      release_stored_workspace();
    else
      release_fused_workspace();
  }
  void release_stored_workspace() {
    e_ = device_csr<double>();
    sorted_ = device_buffer<double>();
    gathered_ = device_buffer<double>();
    sort_col_ = device_buffer<index_t>();
    sort_val_ = device_buffer<T>();
  }
  void release_fused_workspace() { visit_.release(); }
  /// Under a memory budget, gives the memory pool's unused blocks back to the device: what the
  /// backend then holds is what it uses, and the budget bounds that. (Without one the pool keeps
  /// them for reuse; an allocation that finds the device full trims the pool and tries again.)
  void settle_memory() {
    if (explicit_budget_) ctx_.release_cached_memory();
  }

  /// Frees every expansion workspace (before a streamed iterate is uploaded).
  void release_workspace() {
    release_stored_workspace();
    release_fused_workspace();
  }

  std::size_t scan_bytes(long long items) {
    std::size_t bytes = 0;
    OPSPARSE_CUDA_TRY(
        cub::DeviceScan::ExclusiveSum(nullptr, bytes, keep_.data(), items, ctx_.stream()));
    return bytes;
  }
  void cub_scratch(std::size_t bytes) {
    cub_.reserve(std::max<std::size_t>(bytes, 1));
    cub_bytes_ = std::max(bytes, std::size_t(1));
  }
  float elapsed(int from, int to) const {
    float ms = 0;
    OPSPARSE_CUDA_TRY(cudaEventElapsedTime(&ms, ev_[from], ev_[to]));
    return ms;
  }
  offset_t read_scalar(const offset_t* d) {
    OPSPARSE_CUDA_TRY(
        cudaMemcpyAsync(pinned_, d, sizeof(offset_t), cudaMemcpyDeviceToHost, ctx_.stream()));
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(ctx_.stream()));
    return *static_cast<offset_t*>(pinned_);
  }

  /// GPU milliseconds of the current iteration's stages (CUDA events around each stage).
  struct stage_times {
    double expand = 0, prune = 0, sort = 0, symbolic = 0, numeric = 0;
    long long products = 0;
  };

  context ctx_;
  offset_t block_pruned_rows_;  ///< mean expanded row length from which a block prunes a row
  fused_expansion fused_mode_;
  int fused_max_window_;  ///< tests: columns per fused window (0: as many as fit)
  iterate_placement placement_;
  device_memory_budget budget_;  ///< made after ctx_: counts from the context's memory
  bool explicit_budget_;         ///< the budget was given (else: the device's free memory)
  long long kept_per_row_ = assumed_kept_per_row;  ///< a pruned row's entries at most
  bool fused_ = false;                             ///< this expansion is fused with its pruning
  long long total_products_ = 0;                   ///< products of the whole expansion
  index_t r1_ = 0;
  plan plan_;
  spgemm_options opt_;
  std::array<cudaEvent_t, 6> ev_{};  // around the pruning's stages
  stage_times times_;
  bool compact_pending_ = false;
  bool m_sorted_ = true;  ///< rows of m_ sorted by column (the start matrix is)
  void* pinned_ = nullptr;
  std::string peak_breakdown_;  ///< note_memory(): what held the peak
  index_t n_ = 0;
  index_t r0_ = 0;
  index_t next_row_ = 0;  ///< rows of next_ laid out so far (blocks come in order)
  device_csr<T> m_;       // current iterate X (rows are mcl columns)
  next_iterate<T> next_;  // the next iterate, assembled block by block
  device_csr<double> e_;  // the expanded block (double sums), reused by every product
  device_buffer<double> sorted_;
  device_buffer<row_stat> stat_;
  device_buffer<row_decision> dec_;
  device_buffer<double> gathered_;   ///< values ranked by pruning, by row, before the sort
  device_buffer<offset_t> seg_off_;  ///< where each row's ranked values start (m + 1)
  device_buffer<offset_t> keep_;
  device_buffer<offset_t> products_;
  fused_visit<T> visit_;  ///< the fused expansion's visit and buffers
  // A distributed rank's expansion (device_iterate): its right operand, the buffer it arrives
  // in, a column piece of the rank's rows, the whole expansion's products and held-back bytes.
  bool right_on_ = false;
  bool right_sorted_ = true;
  arrays right_;
  device_csr<T> b_;
  device_csr<T> piece_;
  offset_t decide_total_ = -1;
  bool force_fused_ = false;
  std::size_t reserved_bytes_ = 0;
  device_buffer<index_t> sort_col_;  ///< sorting the iterate in place: a block's scratch
  device_buffer<T> sort_val_;
  device_buffer<double> chaos_;
  device_buffer<double> chaos_out_;
  device_buffer<offset_t> bound_;  ///< the next iterate's nnz bound (kept_bound())
  device_buffer<unsigned char> cub_;
  std::size_t cub_bytes_ = 0;
  offset_t expanded_nnz_ = 0;
};

}  // namespace
}  // namespace opsparse::mcl

#include "mcl_gpu_rank.cuh"

namespace opsparse::mcl {

template <class T>
std::unique_ptr<backend<T>> make_gpu_backend(int device, const gpu_backend_options& opt) {
  return std::make_unique<gpu_backend<T>>(device, opt);
}

template std::unique_ptr<backend<float>> make_gpu_backend<float>(int, const gpu_backend_options&);
template std::unique_ptr<backend<double>> make_gpu_backend<double>(int, const gpu_backend_options&);

}  // namespace opsparse::mcl
