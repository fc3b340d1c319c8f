// Distributed MCL (mcl_dist.hpp): the grid layout's iteration over a dist::grid, the exchanges
// between a process row's blocks and its whole rows, and the pruning of whole rows; the rows
// layout is in mcl_dist_rows.cpp.
#include "mcl_dist.hpp"

#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mcl_detail.hpp"
#include "mcl_dist_common.hpp"
#include "core/mcl_iteration.hpp"
#include "core/mcl_rows.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/distributed/detail/blocks.hpp"
#include "opsparse/distributed/dist_csr.hpp"
#include "opsparse/distributed/error.hpp"
#include "opsparse/distributed/spgemm.hpp"
#if OPSPARSE_HAS_GPU_ENGINE
#include <cuda_runtime_api.h>

#include "opsparse/distributed/gpu_engine.hpp"
#include "opsparse/distributed/nccl.hpp"
#endif

namespace opsparse::mcl {

namespace {

using namespace detail;

/// `send` (counts[d] elements for rank d of `comm`, in rank order) sent to the ranks; returns
/// what the ranks sent here in rank order, `from` the count from each. Point to point, in
/// messages of at most 2^28 elements (MPI's counts are ints: one MPI_Alltoallv refused the
/// 2.35 billion entries a single rank's expansion held), this rank's own part copied. A buffer
/// that cannot be allocated is refused on every rank of `comm` (none is left waiting).
template <class V>
std::vector<V> exchange(const std::vector<V>& send, const std::vector<long long>& counts,
                        std::vector<long long>& from, MPI_Comm comm) {
  const int n = static_cast<int>(counts.size());
  int me = 0;
  OPSPARSE_MPI_TRY(MPI_Comm_rank(comm, &me));
  from.assign(static_cast<std::size_t>(n), 0);
  OPSPARSE_MPI_TRY(
      MPI_Alltoall(counts.data(), 1, MPI_LONG_LONG, from.data(), 1, MPI_LONG_LONG, comm));
  long long received = 0;
  for (const long long c : from) received += c;
  std::vector<V> in;
  int failed = 0;
  try {
    in.resize(static_cast<std::size_t>(received));
  } catch (const std::bad_alloc&) {
    failed = 1;
  }
  OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm));
  if (failed) throw std::runtime_error("opsparse-mcl-mpi: out of memory in an exchange of rows");
  std::vector<long long> sdispl(static_cast<std::size_t>(n), 0),
      rdispl(static_cast<std::size_t>(n), 0);
  for (int d = 1; d < n; ++d) {
    sdispl[d] = sdispl[d - 1] + counts[d - 1];
    rdispl[d] = rdispl[d - 1] + from[d - 1];
  }
  std::copy_n(send.begin() + sdispl[me], counts[me], in.begin() + rdispl[me]);
  const long long chunk = message_elements();
  // Messages of one pair arrive in the order they were sent (MPI's non-overtaking rule): one tag.
  std::vector<MPI_Request> requests;
  for (int d = 0; d < n; ++d)
    for (long long at = 0; d != me && at < from[d]; at += chunk)
      OPSPARSE_MPI_TRY(MPI_Irecv(in.data() + rdispl[d] + at,
                                 static_cast<int>(std::min(chunk, from[d] - at)), mpi_type<V>(), d,
                                 0, comm, &requests.emplace_back()));
  for (int d = 0; d < n; ++d)
    for (long long at = 0; d != me && at < counts[d]; at += chunk)
      OPSPARSE_MPI_TRY(MPI_Isend(send.data() + sdispl[d] + at,
                                 static_cast<int>(std::min(chunk, counts[d] - at)), mpi_type<V>(),
                                 d, 0, comm, &requests.emplace_back()));
  OPSPARSE_MPI_TRY(
      MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  return in;
}

/// Rows on their way between the ranks of a process row, in destination order: their lengths,
/// columns and values, with the rows and the entries for each destination; then what arrived,
/// in source order.
template <class T>
struct row_pieces {
  explicit row_pieces(int parts) : rows(parts, 0), entries(parts, 0) {}
  std::vector<offset_t> lengths;
  std::vector<index_t> col;
  std::vector<T> val;
  std::vector<long long> rows, entries;

  struct arrived {
    std::vector<offset_t> lengths;
    std::vector<index_t> col;
    std::vector<T> val;
    std::vector<long long> rows_from, entries_from;
  };
  /// Sends them within `comm` (collective), emptying the pieces.
  arrived exchange_all(MPI_Comm comm) {
    arrived a;
    std::vector<long long> values_from;
    a.lengths = exchange(lengths, rows, a.rows_from, comm);
    lengths = {};
    a.col = exchange(col, entries, a.entries_from, comm);
    col = {};
    a.val = exchange(val, entries, values_from, comm);
    val = {};
    return a;
  }
};

/// A phase of the expansion exchanged within the process row so that each of its pc ranks holds
/// whole rows: the phase's block holds part d's rows (rp.begin[d] to rp.end[d] of the block row)
/// for each rank d of the row, all of which it gets, with all columns (`e_col_begin`: the
/// block's first one), its values rounded to the cell type (as the CPU backend rounds its
/// double sums). Frees block.
template <class T>
host_csr<T> phase_to_rows(const dist::grid& g, host_csr<double>& block, const dist::row_phase& rp,
                          index_t e_col_begin, index_t n) {
  const int pc = g.cols(), me = g.col();
  const index_t rows = rp.end[me] - rp.begin[me];
  host_csr<T> m;
  if (pc == 1) {  // whole rows already: only the values change type
    local_step(g, "opsparse-mcl-mpi: rounding the expanded rows", [&] {
      m = host_csr<T>(rows, n);
      m.rpt = std::move(block.rpt);
      m.col = std::move(block.col);
      m.val.resize(block.val.size());
      const long long k = static_cast<long long>(block.val.size());
#pragma omp parallel for schedule(static) if (k >= (1 << 16))
      for (long long t = 0; t < k; ++t) m.val[t] = static_cast<T>(block.val[t]);
      block = {};
    });
    return m;
  }
  row_pieces<T> out(pc);
  local_step(g, "opsparse-mcl-mpi: packing the expanded blocks", [&] {
    // The destinations take consecutive rows: the block's arrays are in their order already.
    const host_csr<double>& b = block;
    index_t r0 = 0;
    for (int d = 0; d < pc; ++d) {
      const index_t r1 = r0 + (rp.end[d] - rp.begin[d]);
      out.rows[d] = r1 - r0;
      out.entries[d] = b.rpt[r1] - b.rpt[r0];
      r0 = r1;
    }
    out.lengths.resize(static_cast<std::size_t>(b.rows));
    for (index_t i = 0; i < b.rows; ++i) out.lengths[i] = b.rpt[i + 1] - b.rpt[i];
    out.col.resize(b.col.size());
    out.val.resize(b.val.size());
    const index_t shift = e_col_begin;
    const long long k = static_cast<long long>(b.col.size());
#pragma omp parallel for schedule(static) if (k >= (1 << 16))
    for (long long t = 0; t < k; ++t) {
      out.col[t] = b.col[t] + shift;
      out.val[t] = static_cast<T>(b.val[t]);
    }
  });
  block = {};
  const auto in = out.exchange_all(g.row_comm());
  local_step(g, "opsparse-mcl-mpi: assembling whole rows", [&] {
    // Source s sent its piece of each of these rows (columns ascending, sources in column
    // order): where each source's piece of row i starts, then the rows copied in parallel.
    std::vector<offset_t> from(static_cast<std::size_t>(pc) * (rows + 1), 0);
    offset_t base = 0;
    m = host_csr<T>(rows, n);
    for (int s = 0; s < pc; ++s) {
      offset_t* f = from.data() + static_cast<std::size_t>(s) * (rows + 1);
      f[0] = base;
      for (index_t i = 0; i < rows; ++i) {
        const offset_t length = in.lengths[static_cast<std::size_t>(s) * rows + i];
        f[i + 1] = f[i] + length;
        m.rpt[i + 1] += length;
      }
      base = f[rows];
    }
    for (index_t i = 0; i < rows; ++i) m.rpt[i + 1] += m.rpt[i];
    m.col.resize(in.col.size());
    m.val.resize(in.val.size());
#pragma omp parallel for schedule(dynamic, 256) if (in.col.size() >= (1 << 16))
    for (index_t i = 0; i < rows; ++i) {
      offset_t at = m.rpt[i];
      for (int s = 0; s < pc; ++s) {
        const offset_t* f = from.data() + static_cast<std::size_t>(s) * (rows + 1);
        std::copy(in.col.begin() + f[i], in.col.begin() + f[i + 1], m.col.begin() + at);
        std::copy(in.val.begin() + f[i], in.val.begin() + f[i + 1], m.val.begin() + at);
        at += f[i + 1] - f[i];
      }
    }
  });
  return m;
}

/// Appends the rows of `more` to m (same columns).
template <class T>
void append_rows(host_csr<T>& m, const host_csr<T>& more) {
  const offset_t shift = m.rpt.back();
  m.rpt.reserve(m.rpt.size() + static_cast<std::size_t>(more.rows));
  for (index_t i = 1; i <= more.rows; ++i) m.rpt.push_back(more.rpt[i] + shift);
  m.rows += more.rows;
  m.col.insert(m.col.end(), more.col.begin(), more.col.end());
  m.val.insert(m.val.end(), more.val.begin(), more.val.end());
}

/// Whole rows cut back into the grid's blocks (the reverse of blocks_to_rows): rank (i, j) gets
/// the columns of its block from each rank of its process row, whose rows follow one another.
/// Frees rows.
template <class T>
dist::dist_csr<T> rows_to_blocks(const dist::grid& g, host_csr<T>& rows, index_t n) {
  const int pc = g.cols();
  const index_t h = rows.rows;
  row_pieces<T> out(pc);
  local_step(g, "opsparse-mcl-mpi: cutting rows into blocks", [&] {
    // cut[i * (pc + 1) + d]: where row i's columns of destination d start (rows are sorted).
    std::vector<offset_t> cut(static_cast<std::size_t>(h) * (pc + 1));
    for (index_t i = 0; i < h; ++i) {
      const auto first = rows.col.begin() + rows.rpt[i], last = rows.col.begin() + rows.rpt[i + 1];
      offset_t* c = cut.data() + static_cast<std::size_t>(i) * (pc + 1);
      for (int d = 0; d <= pc; ++d)
        c[d] = std::lower_bound(first, last, dist::split_point(n, pc, d)) - rows.col.begin();
      for (int d = 0; d < pc; ++d) out.entries[d] += c[d + 1] - c[d];
    }
    std::fill(out.rows.begin(), out.rows.end(), static_cast<long long>(h));
    out.lengths.resize(static_cast<std::size_t>(h) * pc);
    out.col.resize(rows.col.size());
    out.val.resize(rows.val.size());
    offset_t at = 0;
    for (int d = 0; d < pc; ++d) {
      const index_t c0 = dist::split_point(n, pc, d);
      for (index_t i = 0; i < h; ++i) {
        const offset_t* c = cut.data() + static_cast<std::size_t>(i) * (pc + 1);
        out.lengths[static_cast<std::size_t>(d) * h + i] = c[d + 1] - c[d];
        for (offset_t k = c[d]; k < c[d + 1]; ++k, ++at) {
          out.col[at] = rows.col[k] - c0;
          out.val[at] = rows.val[k];
        }
      }
    }
    rows = {};
  });
  auto in = out.exchange_all(g.row_comm());
  dist::dist_csr<T> x;
  local_step(g, "opsparse-mcl-mpi: assembling blocks", [&] {
    host_csr<T> block(static_cast<index_t>(in.lengths.size()),
                      dist::split_point(n, pc, g.col() + 1) - dist::split_point(n, pc, g.col()));
    for (std::size_t i = 0; i < in.lengths.size(); ++i)
      block.rpt[i + 1] = block.rpt[i] + in.lengths[i];
    block.col = std::move(in.col);
    block.val = std::move(in.val);
    x = dist::from_block(g, n, n, std::move(block));
  });
  return x;
}

/// mcl's pruning, renormalisation and inflation of whole expanded rows (global rows first_row
/// on), as the CPU backend does them (mcl_rows.hpp); `chaos` gets the rows' largest.
template <class T>
host_csr<T> prune_inflate(const host_csr<T>& e, index_t first_row, const prune_rule& rule,
                          double power, int threads, double& chaos) {
  const index_t rows = e.rows;
  std::vector<detail::row_decision> decisions(static_cast<std::size_t>(rows));
  double largest = 0;
  if (threads <= 0) threads = omp_get_max_threads();
#pragma omp parallel num_threads(threads) if (e.nnz() >= (1 << 14)) reduction(max : largest)
  {
    std::vector<T> tmp;
#pragma omp for schedule(dynamic, 64)
    for (index_t i = 0; i < rows; ++i) {
      double c = 0;
      decisions[i] = detail::decide_row(rule, e.val.data() + e.rpt[i], e.rpt[i + 1] - e.rpt[i], tmp,
                                        c, /*signed_values=*/false);
      largest = std::max(largest, c);
    }
  }
  chaos = largest;
  host_csr<T> x(rows, e.cols);
  for (index_t i = 0; i < rows; ++i) x.rpt[i + 1] = x.rpt[i] + decisions[i].keep;
  x.col.resize(static_cast<std::size_t>(x.rpt[rows]));
  x.val.resize(x.col.size());
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads) if (e.nnz() >= (1 << 14))
  for (index_t i = 0; i < rows; ++i) {
    const detail::row_decision& d = decisions[i];
    offset_t out = x.rpt[i];
    if (d.emergency) {
      x.col[out] = first_row + i;
      x.val[out] = T(1);
    } else {
      for (offset_t k = e.rpt[i]; k < e.rpt[i + 1]; ++k) {
        const double v = static_cast<double>(e.val[k]);
        if (v >= d.bar) {
          x.col[out] = e.col[k];
          x.val[out++] = d.mass != 0 ? static_cast<T>(v / d.mass) : e.val[k];
        }
      }
    }
    // Without negative values every kept row has a positive mass (see run_distributed).
    detail::inflate_row(x.val.data() + x.rpt[i], x.rpt[i + 1] - x.rpt[i], power);
  }
  return x;
}

/// dist::spgemm's local engine: the CPU engine in order (cpu_engine::accumulate), timed.
template <class T>
struct timed_engine {
  dist::cpu_engine<plus_times<double>> cpu;
  double* seconds;
  host_csr<double> operator()(const host_csr<T>& a, const host_csr<T>& b) const {
    return cpu(a, b);
  }
  void accumulate(const host_csr<T>& a, const host_csr<T>& b, host_csr<double>& c) const {
    const auto t = clock::now();
    cpu.accumulate(a, b, c);
    *seconds += since(t);
  }
};

/// Takes each row phase of the expansion: its rows of E on the host, in parts for the process
/// row's ranks (spgemm_row_phases).
using phase_consumer = std::function<void(const dist::row_phase&, host_csr<double>&&)>;

/// The expansion E = X·X over the grid with the chosen engine, in row phases handed to a
/// consumer (which prunes them before the next phase is multiplied), its local products timed
/// into *seconds. The GPU engine (one per rank, kept across iterations) sits on the rank's device.
template <class T>
std::function<void(const dist::dist_csr<T>&, const phase_consumer&)> make_expansion(
    const dist::grid& g, const params& p, dist_engine which, double* seconds,
    dist::spgemm_info* info) {
  dist::spgemm_options opt;
  opt.info = info;
  if (which == dist_engine::cpu) {
    timed_engine<T> engine{{}, seconds};
    engine.cpu.options.threads = p.threads;
    opt.in_order = true;  // the CPU backend's sums, bit for bit
    return [&g, opt, engine](const dist::dist_csr<T>& x, const phase_consumer& consume) {
      dist::spgemm_row_phases<plus_times<double>>(g, x, x, consume, opt, engine);
    };
  }
#if OPSPARSE_HAS_GPU_ENGINE
  std::shared_ptr<dist::gpu_engine<plus_times<double>, T, T>> gpu;
  local_step(g, "opsparse-mcl-mpi: choosing the rank's GPU", [&] {
    int devices = 0;
    const int device = rank_device(g, &devices);
    gpu = std::make_shared<dist::gpu_engine<plus_times<double>, T, T>>(opsparse::spgemm_options{},
                                                                       device);
    // A phase's product is held on the device too, by each of the ranks sharing it: the budget
    // is at most half the device's memory a rank (the estimate counts 24 bytes a product, of
    // which C takes at most 12 there: a quarter of the device).
    const int sharing = (g.ranks_on_node() + devices - 1) / devices;
    opt.memory_budget = std::min(dist::default_memory_budget(g),
                                 gpu->device_memory() / 2 / static_cast<std::size_t>(sharing));
  });
  auto timed = [gpu, seconds](const host_csr<T>& a, const host_csr<T>& b) {
    const auto t = clock::now();
    host_csr<double> c = (*gpu)(a, b);
    *seconds += since(t);
    return c;
  };
  return [&g, opt, timed](const dist::dist_csr<T>& x, const phase_consumer& consume) {
    dist::spgemm_row_phases<plus_times<double>>(g, x, x, consume, opt, timed);
  };
#else
  (void)g;
  (void)p;
  throw std::runtime_error("this build has no GPU engine (configured with -DOPSPARSE_GPU=OFF)");
#endif
}

}  // namespace

template <class T>
dist_run_result<T> run_distributed(const dist::grid& g, const host_csr<T>& start, const params& p,
                                   const std::function<void(const dist_iteration_info&)>& progress,
                                   int root, dist_engine which, dist_layout layout,
                                   const dist_checkpoints& ck) {
  validate(p);
  check_start(g, start, root);
  if (layout == dist_layout::rows)
    return detail::run_rows(g, detail::scatter_by_products(g, start, root), p, progress, root,
                            which, ck);
  if (!ck.dir.empty() || !ck.resume_dir.empty())
    throw std::invalid_argument("checkpoints are written and resumed in the rows layout only");
  const auto t0 = clock::now();
  dist::dist_csr<T> x = dist::scatter(g, start, root);
  const index_t n = x.rows;
  const prune_rule rule = p.rule();
  double products_seconds = 0;
  dist::spgemm_info info;
  const auto expand = make_expansion<T>(g, p, which, &products_seconds, &info);
  dist_run_result<T> r;
  double maxima[5] = {};   // the iteration's chaos and stage seconds (every rank's maximum)
  long long sums[2] = {};  // expanded and kept entries (all ranks)
  detail::iteration_hooks h;
  h.step = [&](int, double power) {
    const auto t1 = clock::now();
    products_seconds = 0;
    double exchange_seconds = 0, prune_seconds = 0, chaos = 0;
    offset_t expanded = 0;
    // This rank's whole rows of the pruned iterate, phase after phase: each phase of E is
    // exchanged into whole rows and pruned before the next is multiplied, so only one phase's
    // expansion is held (HipMCL prunes its phases so).
    const index_t part_begin = dist::split_point(x.block.rows, g.cols(), g.col());
    host_csr<T> kept(0, n);
    expand(x, [&](const dist::row_phase& rp, host_csr<double>&& block) {
      auto t = clock::now();
      host_csr<T> rows = phase_to_rows<T>(g, block, rp, x.col_begin, n);
      exchange_seconds += since(t);
      t = clock::now();
      local_step(g, "opsparse-mcl-mpi: pruning", [&] {
        const index_t first_row = x.row_begin + rp.begin[g.col()];
        double c = 0;
        const host_csr<T> pruned = prune_inflate(rows, first_row, rule, power, p.threads, c);
        chaos = std::max(chaos, c);
        expanded += rows.nnz();
        rows = {};
        OPSPARSE_EXPECTS(rp.begin[g.col()] - part_begin == kept.rows,
                         "opsparse-mcl-mpi: a phase's rows do not follow the last one's");
        append_rows(kept, pruned);
      });
      prune_seconds += since(t);
    });
    const double expand_seconds = since(t1) - exchange_seconds - prune_seconds;
    const auto t = clock::now();
    x = rows_to_blocks(g, kept, n);
    exchange_seconds += since(t);
    maxima[0] = chaos;
    maxima[1] = expand_seconds;
    maxima[2] = products_seconds;
    maxima[3] = exchange_seconds;
    maxima[4] = prune_seconds;
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, maxima, 5, MPI_DOUBLE, MPI_MAX, g.comm()));
    sums[0] = static_cast<long long>(expanded);
    sums[1] = static_cast<long long>(x.block.nnz());
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
      i.phases = info.phases;
      i.seconds = seconds;
      i.expand_seconds = maxima[1];
      i.products_seconds = maxima[2];
      i.exchange_seconds = maxima[3];
      i.prune_seconds = maxima[4];
      progress(i);
    };
  const detail::iteration_outcome o = detail::iterate(p, 1, h);
  r.iterations = o.iterations;
  r.converged = o.converged;
  r.limit = dist::gather(g, x, root);
  r.seconds = since(t0);
  return r;
}

template dist_run_result<float> run_distributed<float>(
    const dist::grid&, const host_csr<float>&, const params&,
    const std::function<void(const dist_iteration_info&)>&, int, dist_engine, dist_layout,
    const dist_checkpoints&);
template dist_run_result<double> run_distributed<double>(
    const dist::grid&, const host_csr<double>&, const params&,
    const std::function<void(const dist_iteration_info&)>&, int, dist_engine, dist_layout,
    const dist_checkpoints&);

template <class T>
dist_run_result<T> run_distributed(const dist::grid& g, row_blocks<T> start, const params& p,
                                   const std::function<void(const dist_iteration_info&)>& progress,
                                   dist_engine which, dist_layout layout,
                                   const dist_checkpoints& ck) {
  validate(p);
  check_start(g, start);
  if (layout == dist_layout::rows)
    return detail::run_rows(g, std::move(start), p, progress, 0, which, ck);
  const host_csr<T> whole =
      dist::detail::gather_row_blocks(start.rows, start.split, start.n, 0, g.comm());
  start = {};
  return run_distributed(g, whole, p, progress, 0, which, layout, ck);
}

template dist_run_result<float> run_distributed<float>(
    const dist::grid&, row_blocks<float>, const params&,
    const std::function<void(const dist_iteration_info&)>&, dist_engine, dist_layout,
    const dist_checkpoints&);
template dist_run_result<double> run_distributed<double>(
    const dist::grid&, row_blocks<double>, const params&,
    const std::function<void(const dist_iteration_info&)>&, dist_engine, dist_layout,
    const dist_checkpoints&);

}  // namespace opsparse::mcl
