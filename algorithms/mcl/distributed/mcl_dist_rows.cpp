// Distributed MCL's rows layout (mcl_dist.hpp, dist_layout::rows): the whole iterate on every
// rank, each rank's share of the rows expanded, pruned and inflated by opsparse-mcl's own
// backend, the kept rows then gathered on every rank (GPU to GPU by NCCL, or through the host).
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mcl_detail.hpp"
#include "mcl_dist_common.hpp"
#include "core/mcl_iteration.hpp"
#include "opsparse/cpu/spgemm.hpp"
#if OPSPARSE_HAS_GPU_ENGINE
#include "opsparse/distributed/nccl.hpp"
#endif

namespace opsparse::mcl {
namespace detail {
namespace {

/// The rows' split of root's square matrix `m` (n rows): equal products of its square, decided on
/// root. Collective.
template <class T>
std::vector<index_t> product_split(const dist::grid& g, const host_csr<T>& m, int root, index_t n) {
  std::vector<long long> split(static_cast<std::size_t>(g.size()) + 1, 0);
  if (g.rank() == root) {
    const std::vector<offset_t> per_row = cpu::row_products(m, m);
    std::vector<offset_t> before(per_row.size() + 1, 0);
    for (std::size_t i = 0; i < per_row.size(); ++i) before[i + 1] = before[i] + per_row[i];
    const std::vector<index_t> s = cpu::balanced_row_blocks(before, g.size());
    std::copy(s.begin(), s.end(), split.begin());
  }
  OPSPARSE_MPI_TRY(
      MPI_Bcast(split.data(), static_cast<int>(split.size()), MPI_LONG_LONG, root, g.comm()));
  std::vector<index_t> out(split.begin(), split.end());
  out.back() = n;
  return out;
}

}  // namespace

template <class T>
row_blocks<T> scatter_by_products(const dist::grid& g, const host_csr<T>& m, int root) {
  long long rows = m.rows;
  OPSPARSE_MPI_TRY(MPI_Bcast(&rows, 1, MPI_LONG_LONG, root, g.comm()));
  row_blocks<T> out;
  out.n = static_cast<index_t>(rows);
  out.split = product_split(g, m, root, out.n);
  out.rows = dist::detail::scatter_row_blocks(m, out.split, root, g.comm());
  return out;
}

template <class T>
host_csr<T> square_of(row_blocks<T>&& m, int rank) {
  const index_t first = m.split[rank], last = m.split[rank + 1];
  host_csr<T> x(m.n, m.n);
  std::fill(x.rpt.begin() + first + 1, x.rpt.end(), offset_t(0));
  for (index_t i = first; i < last; ++i) x.rpt[i + 1] = m.rows.rpt[i - first + 1];
  std::fill(x.rpt.begin() + last + 1, x.rpt.end(), x.rpt[last]);
  x.col = std::move(m.rows.col);
  x.val = std::move(m.rows.val);
  m.rows = {};
  return x;
}

namespace {

/// The whole matrix on every rank from each rank's consecutive rows (rank r holds rows
/// split[r] to split[r + 1] of an n-column matrix in `mine`). Collective; a buffer that cannot
/// be allocated is refused on every rank.
template <class T>
host_csr<T> gather_rows_everywhere(const dist::grid& g, const host_csr<T>& mine,
                                   const std::vector<index_t>& split, index_t n) {
  const int ranks = g.size();
  std::vector<long long> entries(static_cast<std::size_t>(ranks), 0);
  long long own = static_cast<long long>(mine.nnz());
  OPSPARSE_MPI_TRY(
      MPI_Allgather(&own, 1, MPI_LONG_LONG, entries.data(), 1, MPI_LONG_LONG, g.comm()));
  host_csr<T> x;
  local_step(g, "opsparse-mcl-mpi: room for the whole iterate", [&] {
    long long total = 0;
    for (const long long e : entries) total += e;
    x = host_csr<T>(split.back(), n);
    x.col.resize(static_cast<std::size_t>(total));
    x.val.resize(static_cast<std::size_t>(total));
  });
  std::vector<offset_t> lengths(static_cast<std::size_t>(split.back()), 0);
  for (index_t i = 0; i < mine.rows; ++i)
    lengths[split[g.rank()] + i] = mine.rpt[i + 1] - mine.rpt[i];
  offset_t at = 0;
  for (int r = 0; r < ranks; ++r) {
    if (r == g.rank()) {
      std::copy(mine.col.begin(), mine.col.end(), x.col.begin() + at);
      std::copy(mine.val.begin(), mine.val.end(), x.val.begin() + at);
    }
    broadcast(lengths.data() + split[r], split[r + 1] - split[r], r, g.comm());
    broadcast(x.col.data() + at, entries[r], r, g.comm());
    broadcast(x.val.data() + at, entries[r], r, g.comm());
    at += entries[r];
  }
  for (index_t i = 0; i < x.rows; ++i) x.rpt[i + 1] = x.rpt[i] + lengths[i];
  return x;
}

/// The backend of the rows layout: opsparse-mcl's CPU backend, or its GPU backend on the rank's
/// GPU (made on every rank or, failing on one, on none).
template <class T>
std::unique_ptr<backend<T>> make_rows_backend(const dist::grid& g, const params& p,
                                              dist_engine which) {
  std::unique_ptr<backend<T>> b;
  local_step(g, "opsparse-mcl-mpi: the rank's backend", [&] {
    if (which == dist_engine::cpu) {
      b = make_cpu_backend<T>(p.threads);
      return;
    }
#if OPSPARSE_HAS_GPU_ENGINE
    int devices = 0;
    b = make_gpu_backend<T>(rank_device(g, &devices), gpu_options_from_environment());
#else
    throw std::runtime_error("this build has no GPU engine (configured with -DOPSPARSE_GPU=OFF)");
#endif
  });
  return b;
}

#if OPSPARSE_HAS_GPU_ENGINE
/// NCCL for the rows layout where every rank owns its GPU and NCCL loads (collective); else
/// nullptr, and *how says why the rows go through the host.
std::unique_ptr<dist::nccl_comm> rows_nccl(const dist::grid& g, std::string* how) {
  int devices = 0;
  const int device = rank_device(g, &devices);
  std::string why;
  if (!dist::nccl_usable(g.comm(), device, &why)) {
    *how = "the host (no NCCL: " + why + ")";
    return nullptr;
  }
  try {
    auto nccl = std::make_unique<dist::nccl_comm>(g.comm());
    *how = "NCCL";
    return nccl;
  } catch (const std::exception& e) {  // agreed on by every rank: all go through the host
    *how = std::string("the host (NCCL failed: ") + e.what() + ")";
    return nullptr;
  }
}

/// The ranks' kept rows gathered on every rank's GPU by NCCL, into the backend's spare arrays
/// made its iterate: rank r's rows split[r] to split[r + 1], its entries after those of the
/// ranks before it. Returns the gathered iterate's nnz.
template <class T>
offset_t gather_rows_on_devices(const dist::grid& g, dist::nccl_comm& nccl, device_iterate<T>& dev,
                                const std::vector<index_t>& split) {
  const int me = g.rank();
  // This rank's rows are the only ones in its iterate: its entries start at 0.
  const gathered_rows_layout l = gathered_rows<T>(g, split, dev.current().nnz);
  // Room first, agreed on by every rank, so that no rank is left alone in NCCL's broadcasts.
  const offset_t* rows = nullptr;
  typename device_iterate<T>::arrays mine, all;
  local_step(g, "opsparse-mcl-mpi: room for the gathered iterate on the GPU", [&] {
    rows = dev.shifted_row_pointers(split[me], split[me + 1], l.before);
    mine = dev.current();
    all = dev.spare(l.total);
  });
  nccl.allgatherv(rows, all.rpt + 1, l.rpt_bytes, dev.stream());
  nccl.allgatherv(mine.col, all.col, l.col_bytes, dev.stream());
  nccl.allgatherv(mine.val, all.val, l.val_bytes, dev.stream());
  dev.use_spare();
  // Done here, so that the exchange's time is its own.
  OPSPARSE_CUDA_TRY(cudaStreamSynchronize(dev.stream()));
  return l.total;
}

#endif

}  // namespace

/// One rank's part of an iteration with the whole iterate on every rank: the rows split by the
/// expansion's products (the same split on every rank: the same X), the rank's rows expanded,
/// pruned and inflated by its backend, and (on the host path) downloaded.
template <class T>
struct share_step {
  std::vector<index_t> split;
  double chaos = 0;
  offset_t expanded = 0;
  host_csr<T> mine;  ///< the rank's rows (the host path)
};
template <class T>
share_step<T> expand_share(backend<T>& b, host_csr<T>& x, bool x_on_device, int ranks, int me,
                           const prune_rule& rule, double power) {
  share_step<T> s;
  // (With NCCL, X stays on the devices: gather_rows_on_devices put it there.)
  if (!x_on_device) b.load(x);
  std::vector<offset_t> before;
  if (!b.on_device()) {  // the CPU backend: counted here; the GPU's by expansion_blocks
    const std::vector<offset_t> per_row = cpu::row_products(x, x);
    before.assign(per_row.size() + 1, 0);
    for (std::size_t i = 0; i < per_row.size(); ++i) before[i + 1] = before[i] + per_row[i];
  }
  x = {};
  const std::vector<index_t> blocks = b.expansion_blocks(0);
  if (b.on_device()) before = b.on_device()->row_products_prefix();
  s.split = cpu::balanced_row_blocks(before, ranks);
  expand_prune_range(b, blocks, s.split[me], s.split[me + 1], rule);
  s.chaos = b.chaos();
  b.inflate_normalise(power);
  s.expanded = b.expanded_nnz();
  if (!x_on_device)
    s.mine = dist::detail::take_rows(b.download(), {s.split[me]}, {s.split[me + 1]});
  return s;
}

/// Resuming with the whole iterate on every rank: the checkpoint's iterate in the backend (X on
/// the devices) or in x (the host path). Returns the first iteration; nnz: X's entries.
template <class T>
int resume_whole(const dist::grid& g, const dist_checkpoints& ck, backend<T>& b, bool x_on_device,
                 index_t n, offset_t& nnz, host_csr<T>& x) {
  checkpoint::state<T> st = read_rows<T>(g, ck, n, 0, n);
  nnz = st.iterate.nnz();
  if (x_on_device)
    local_step(g, "opsparse-mcl-mpi: the checkpoint's iterate on the GPU",
               [&] { b.restore(st.iterate, st.rows_sorted); });
  else
    x = std::move(st.iterate);
  return st.iteration + 1;
}

/// The checkpoint after `it` with the whole iterate on every rank: each rank writes an equal
/// share of its rows.
template <class T>
void write_share(const dist::grid& g, const dist_checkpoints& ck, int it, backend<T>& b,
                 bool x_on_device, const host_csr<T>& x, index_t n) {
  const int me = g.rank(), ranks = g.size();
  std::vector<index_t> share(static_cast<std::size_t>(ranks) + 1);
  for (int q = 0; q <= ranks; ++q)
    share[q] = static_cast<index_t>(static_cast<long long>(n) * q / ranks);
  host_csr<T> mine;
  bool sorted = true;
  local_step(g, "opsparse-mcl-mpi: the iterate for the checkpoint", [&] {
    // (the host path's x is the iterate itself: its share is copied, not the whole of it)
    mine = x_on_device ? rows_only(b.snapshot(sorted), share[me], share[me + 1])
                       : rows_only(x, share[me], share[me + 1]);
  });
  write_parts(g, ck, it, sorted, std::move(mine), share);
}

/// dist_layout::rows (mcl_dist.hpp): the whole iterate on every rank, each expanding, pruning and
/// inflating its share of the rows with opsparse-mcl's CPU or GPU backend, the kept rows then
/// broadcast: GPU to GPU by NCCL where each rank owns its GPU (the iterate then stays on the
/// devices), else through the host.
template <class T>
dist_run_result<T> run_rows(const dist::grid& g, row_blocks<T> start, const params& p,
                            const std::function<void(const dist_iteration_info&)>& progress,
                            int root, dist_engine which, const dist_checkpoints& ck) {
  const auto t0 = clock::now();
  const int me = g.rank(), ranks = g.size();
  const index_t n = start.n;
  offset_t nnz = 0;
  const prune_rule rule = p.rule();
  const std::unique_ptr<backend<T>> b = make_rows_backend<T>(g, p, which);
  dist_run_result<T> r;
  r.row_exchange = "the host";
  // GPU to GPU where every rank owns its GPU: X then stays on the devices, each rank's rows
  // gathered there; else X on every rank's host, loaded into its backend at each iteration.
  device_iterate<T>* dev = nullptr;
  host_csr<T> x;
#if OPSPARSE_HAS_GPU_ENGINE
  std::unique_ptr<dist::nccl_comm> nccl;
  if (b->on_device()) {
    nccl = rows_nccl(g, &r.row_exchange);
    if (nccl) dev = b->on_device();
  }
  if (dev && spread_iterate())
    return run_spread(g, *nccl, *b, std::move(start), p, progress, root, t0, ck);
#endif
  // From the start matrix, or (resuming) every rank the whole iterate of the checkpoint.
  int first = 1;
  if (!ck.resume_dir.empty()) {
    start = {};  // (the checkpoint's iterate replaces it)
    first = resume_whole(g, ck, *b, dev != nullptr, n, nnz, x);
  } else {
#if OPSPARSE_HAS_GPU_ENGINE
    if (dev) {
      const std::vector<index_t> split = start.split;
      local_step(g, "opsparse-mcl-mpi: the rank's rows on the GPU",
                 [&] { b->load(square_of(std::move(start), me)); });
      nnz = gather_rows_on_devices(g, *nccl, *dev, split);
    }
#endif
    if (!dev) {
      x = gather_rows_everywhere(g, start.rows, start.split, n);
      nnz = x.nnz();
    }
    start = {};
  }
  r.start_seconds = since(t0);
  double maxima[3] = {};  // the iteration's chaos, expansion and exchange seconds (every rank's)
  long long expanded_sum = 0;
  detail::iteration_hooks h;
  h.step = [&](int, double power) {
    const auto t1 = clock::now();
    share_step<T> s;
    local_step(g, "opsparse-mcl-mpi: expanding and pruning the rank's rows",
               [&] { s = expand_share(*b, x, dev != nullptr, ranks, me, rule, power); });
    const double expand_seconds = since(t1);
    const auto t2 = clock::now();
#if OPSPARSE_HAS_GPU_ENGINE
    if (dev) nnz = gather_rows_on_devices(g, *nccl, *dev, s.split);
#endif
    if (!dev) {
      x = gather_rows_everywhere(g, s.mine, s.split, n);
      nnz = x.nnz();
    }
    maxima[0] = s.chaos;
    maxima[1] = expand_seconds;
    maxima[2] = since(t2);
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, maxima, 3, MPI_DOUBLE, MPI_MAX, g.comm()));
    expanded_sum = static_cast<long long>(s.expanded);
    OPSPARSE_MPI_TRY(
        MPI_Allreduce(MPI_IN_PLACE, &expanded_sum, 1, MPI_LONG_LONG, MPI_SUM, g.comm()));
    return maxima[0];
  };
  if (progress)
    h.done = [&](int it, double chaos, double seconds) {
      dist_iteration_info i;
      i.iteration = it;
      i.chaos = chaos;
      i.expanded_nnz = expanded_sum;
      i.nnz = nnz;
      i.seconds = seconds;
      i.expand_seconds = maxima[1];
      i.products_seconds = maxima[1];  // (fused: products, pruning and inflation together)
      i.exchange_seconds = maxima[2];
      progress(i);
    };
  checkpoint_hooks(g, ck, h, [&](int it) { write_share(g, ck, it, *b, dev != nullptr, x, n); });
  const detail::iteration_outcome o = detail::iterate(p, first, h);
  r.iterations = o.iterations;
  r.converged = o.converged;
  if (me == root) r.limit = dev ? b->download() : std::move(x);
  r.seconds = since(t0);
  return r;
}
template dist_run_result<float> run_rows<float>(
    const dist::grid&, row_blocks<float>, const params&,
    const std::function<void(const dist_iteration_info&)>&, int, dist_engine,
    const dist_checkpoints&);
template dist_run_result<double> run_rows<double>(
    const dist::grid&, row_blocks<double>, const params&,
    const std::function<void(const dist_iteration_info&)>&, int, dist_engine,
    const dist_checkpoints&);

template row_blocks<float> scatter_by_products<float>(const dist::grid&, const host_csr<float>&,
                                                      int);
template row_blocks<double> scatter_by_products<double>(const dist::grid&, const host_csr<double>&,
                                                        int);
template host_csr<float> square_of<float>(row_blocks<float>&&, int);
template host_csr<double> square_of<double>(row_blocks<double>&&, int);

}  // namespace detail
}  // namespace opsparse::mcl
