// Distributed MCL (mcl_dist.hpp): the iteration over a dist::grid, the exchanges between a
// process row's blocks and its whole rows, and the pruning of whole rows.
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

#include "mcl_detail.hpp"
#include "mcl_rows.hpp"
#include "opsparse/dist/dist_csr.hpp"
#include "opsparse/dist/error.hpp"
#include "opsparse/dist/spgemm.hpp"
#if OPSPARSE_HAS_GPU_ENGINE
#include <cuda_runtime_api.h>

#include "opsparse/dist/gpu_engine.hpp"
#endif

namespace opsparse::mcl {

namespace {

using clock = std::chrono::steady_clock;
double since(clock::time_point t) {
  return std::chrono::duration<double>(clock::now() - t).count();
}

template <class V>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<V, float>) {
    return MPI_FLOAT;
  } else if constexpr (std::is_same_v<V, double>) {
    return MPI_DOUBLE;
  } else if constexpr (std::is_same_v<V, std::int32_t>) {
    return MPI_INT32_T;
  } else {
    static_assert(std::is_same_v<V, std::int64_t>, "no MPI datatype for this element type");
    return MPI_INT64_T;
  }
}

/// Runs the local step f on every rank; when it throws on some, every rank throws (the layer's
/// agreement), so that none is left waiting in the next collective.
template <class F>
void local_step(const dist::grid& g, const char* what, F&& f) {
  std::exception_ptr error;
  try {
    f();
  } catch (...) {
    error = std::current_exception();
  }
  dist::detail::agree_on_failure(error, what, g.comm());
}

/// Elements a message of the row exchanges carries at most: 2^28, or OPSPARSE_DIST_MESSAGE_ELEMENTS
/// when set (a test makes messages small to cut every exchange into many).
long long message_elements() {
  const char* v = std::getenv("OPSPARSE_DIST_MESSAGE_ELEMENTS");
  const long long x = v ? std::atoll(v) : 0;
  return x > 0 && x <= (1ll << 28) ? x : 1ll << 28;
}

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
  OPSPARSE_MPI_TRY(MPI_Alltoall(counts.data(), 1, MPI_LONG_LONG, from.data(), 1, MPI_LONG_LONG, comm));
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
  std::vector<long long> sdispl(static_cast<std::size_t>(n), 0), rdispl(static_cast<std::size_t>(n), 0);
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
  OPSPARSE_MPI_TRY(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                               MPI_STATUSES_IGNORE));
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

/// The expanded blocks of a process row exchanged so that each of its pc ranks holds whole rows:
/// rank (i, j) gets the rows [split_point(h, pc, j), split_point(h, pc, j + 1)) of block row i
/// (h rows), all columns, its values rounded to the cell type (as the CPU backend rounds its
/// double sums). `first_row` gets the first one's global index. Frees e.
template <class T>
host_csr<T> blocks_to_rows(const dist::grid& g, dist::dist_csr<double>& e, index_t& first_row) {
  const int pc = g.cols();
  const index_t h = e.block.rows, n = e.cols;
  row_pieces<T> out(pc);
  local_step(g, "opsparse-mcl-mpi: packing the expanded blocks", [&] {
    // The destinations take consecutive rows: the block's arrays are in their order already.
    const host_csr<double>& b = e.block;
    for (int d = 0; d < pc; ++d) {
      const index_t r0 = dist::split_point(h, pc, d), r1 = dist::split_point(h, pc, d + 1);
      out.rows[d] = r1 - r0;
      out.entries[d] = b.rpt[r1] - b.rpt[r0];
    }
    out.lengths.resize(static_cast<std::size_t>(h));
    for (index_t i = 0; i < h; ++i) out.lengths[i] = b.rpt[i + 1] - b.rpt[i];
    out.col.resize(b.col.size());
    out.val.resize(b.val.size());
    const index_t shift = e.col_begin;
    std::transform(b.col.begin(), b.col.end(), out.col.begin(), [shift](index_t j) { return j + shift; });
    std::transform(b.val.begin(), b.val.end(), out.val.begin(), [](double v) { return static_cast<T>(v); });
  });
  first_row = e.row_begin + dist::split_point(h, pc, g.col());
  e = {};
  const auto in = out.exchange_all(g.row_comm());
  const index_t rows = dist::split_point(h, pc, g.col() + 1) - dist::split_point(h, pc, g.col());
  host_csr<T> m;
  local_step(g, "opsparse-mcl-mpi: assembling whole rows", [&] {
    // Source s sent its piece of each of these rows (columns ascending, sources in column order).
    std::vector<offset_t> cursor(static_cast<std::size_t>(pc), 0);
    for (int s = 1; s < pc; ++s) cursor[s] = cursor[s - 1] + in.entries_from[s - 1];
    m = host_csr<T>(rows, n);
    m.col.resize(in.col.size());
    m.val.resize(in.val.size());
    offset_t at = 0;
    for (index_t i = 0; i < rows; ++i) {
      for (int s = 0; s < pc; ++s) {
        const offset_t length = in.lengths[static_cast<std::size_t>(s) * rows + i];
        std::copy_n(in.col.begin() + cursor[s], length, m.col.begin() + at);
        std::copy_n(in.val.begin() + cursor[s], length, m.val.begin() + at);
        cursor[s] += length;
        at += length;
      }
      m.rpt[i + 1] = at;
    }
  });
  return m;
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
      decisions[i] = detail::decide_row(rule, e.val.data() + e.rpt[i], e.rpt[i + 1] - e.rpt[i],
                                        tmp, c, /*signed_values=*/false);
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
  host_csr<double> operator()(const host_csr<T>& a, const host_csr<T>& b) const { return cpu(a, b); }
  void accumulate(const host_csr<T>& a, const host_csr<T>& b, host_csr<double>& c) const {
    const auto t = clock::now();
    cpu.accumulate(a, b, c);
    *seconds += since(t);
  }
};

/// The expansion E = X·X over the grid with the chosen engine, its local products timed into
/// *seconds. The GPU engine (one per rank, kept across iterations) sits on the rank's device.
template <class T>
std::function<dist::dist_csr<double>(const dist::dist_csr<T>&)> make_expansion(
    const dist::grid& g, const params& p, dist_engine which, double* seconds,
    dist::spgemm_info* info) {
  dist::spgemm_options opt;
  opt.info = info;
  if (which == dist_engine::cpu) {
    timed_engine<T> engine{{}, seconds};
    engine.cpu.options.threads = p.threads;
    opt.in_order = true;  // the CPU backend's sums, bit for bit
    return [&g, opt, engine](const dist::dist_csr<T>& x) {
      return dist::spgemm<plus_times<double>>(g, x, x, opt, engine);
    };
  }
#if OPSPARSE_HAS_GPU_ENGINE
  std::shared_ptr<dist::gpu_engine<plus_times<double>, T, T>> gpu;
  local_step(g, "opsparse-mcl-mpi: choosing the rank's GPU", [&] {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      (void)cudaGetLastError();
      throw std::runtime_error("rank " + std::to_string(g.rank()) + " has no usable CUDA device");
    }
    gpu = std::make_shared<dist::gpu_engine<plus_times<double>, T, T>>(
        opsparse::spgemm_options{}, g.rank_on_node() % devices);
  });
  auto timed = [gpu, seconds](const host_csr<T>& a, const host_csr<T>& b) {
    const auto t = clock::now();
    host_csr<double> c = (*gpu)(a, b);
    *seconds += since(t);
    return c;
  };
  return [&g, opt, timed](const dist::dist_csr<T>& x) {
    return dist::spgemm<plus_times<double>>(g, x, x, opt, timed);
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
                                   int root, dist_engine which) {
  validate(p);
  const auto t0 = clock::now();
  local_step(g, "opsparse-mcl-mpi: the start matrix", [&] {
    if (g.rank() != root) return;
    opsparse::validate(start);
    OPSPARSE_EXPECTS(start.rows == start.cols, "the MCL start matrix must be square");
    OPSPARSE_EXPECTS(std::all_of(start.val.begin(), start.val.end(), [](T v) { return v >= T(0); }),
                     "the graph has negative weights, which only opsparse-mcl's CPU backend "
                     "clusters as mcl does");
  });
  dist::dist_csr<T> x = dist::scatter(g, start, root);
  const index_t n = x.rows;
  const prune_rule rule = p.rule();
  const double power = detail::mcl_float(p.inflation);
  double products_seconds = 0;
  dist::spgemm_info info;
  const auto expand = make_expansion<T>(g, p, which, &products_seconds, &info);
  dist_run_result<T> r;
  for (int it = 1; it <= p.max_iter; ++it) {
    const auto t1 = clock::now();
    products_seconds = 0;
    dist::dist_csr<double> e = expand(x);
    const double expand_seconds = since(t1);
    auto t = clock::now();
    index_t first_row = 0;
    x = {};  // (its blocks were the expansion's operands; the rows below replace them)
    host_csr<T> rows = blocks_to_rows<T>(g, e, first_row);
    double exchange_seconds = since(t);
    t = clock::now();
    double chaos = 0;
    host_csr<T> pruned;
    local_step(g, "opsparse-mcl-mpi: pruning", [&] {
      pruned = prune_inflate(rows, first_row, rule, power, p.threads, chaos);
    });
    const offset_t expanded = rows.nnz();
    rows = {};
    const double prune_seconds = since(t);
    t = clock::now();
    x = rows_to_blocks(g, pruned, n);
    exchange_seconds += since(t);
    double maxima[5] = {chaos, expand_seconds, products_seconds, exchange_seconds, prune_seconds};
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, maxima, 5, MPI_DOUBLE, MPI_MAX, g.comm()));
    long long sums[2] = {static_cast<long long>(expanded), static_cast<long long>(x.block.nnz())};
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_LONG_LONG, MPI_SUM, g.comm()));
    r.iterations = it;
    if (progress) {
      dist_iteration_info i;
      i.iteration = it;
      i.chaos = maxima[0];
      i.expanded_nnz = sums[0];
      i.nnz = sums[1];
      i.phases = info.phases;
      i.seconds = since(t1);
      i.expand_seconds = maxima[1];
      i.products_seconds = maxima[2];
      i.exchange_seconds = maxima[3];
      i.prune_seconds = maxima[4];
      progress(i);
    }
    // As run(): the chaos of the expansion, tested after the inflation.
    if (maxima[0] < p.chaos_limit) {
      r.converged = true;
      break;
    }
  }
  r.limit = dist::gather(g, x, root);
  r.seconds = since(t0);
  return r;
}

template dist_run_result<float> run_distributed<float>(
    const dist::grid&, const host_csr<float>&, const params&,
    const std::function<void(const dist_iteration_info&)>&, int, dist_engine);
template dist_run_result<double> run_distributed<double>(
    const dist::grid&, const host_csr<double>&, const params&,
    const std::function<void(const dist_iteration_info&)>&, int, dist_engine);

}  // namespace opsparse::mcl
