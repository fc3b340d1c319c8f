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
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/dist/detail/blocks.hpp"
#include "opsparse/dist/dist_csr.hpp"
#include "opsparse/dist/error.hpp"
#include "opsparse/dist/spgemm.hpp"
#if OPSPARSE_HAS_GPU_ENGINE
#include <cuda_runtime_api.h>

#include "opsparse/dist/gpu_engine.hpp"
#include "opsparse/dist/nccl.hpp"
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

#if OPSPARSE_HAS_GPU_ENGINE
/// The rank's GPU: local rank % the node's devices (ranks share them when there are more ranks
/// than GPUs on a node). Throws on a rank that has none; *devices gets the node's count.
int rank_device(const dist::grid& g, int* devices) {
  if (cudaGetDeviceCount(devices) != cudaSuccess || *devices == 0) {
    (void)cudaGetLastError();
    throw std::runtime_error("rank " + std::to_string(g.rank()) + " has no usable CUDA device");
  }
  return g.rank_on_node() % *devices;
}
#endif

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

/// The start matrix checked on `root`, the verdict on every rank.
template <class T>
void check_start(const dist::grid& g, const host_csr<T>& start, int root) {
  local_step(g, "opsparse-mcl-mpi: the start matrix", [&] {
    if (g.rank() != root) return;
    opsparse::validate(start);
    OPSPARSE_EXPECTS(start.rows == start.cols, "the MCL start matrix must be square");
    OPSPARSE_EXPECTS(std::all_of(start.val.begin(), start.val.end(), [](T v) { return v >= T(0); }),
                     "the graph has negative weights, which only opsparse-mcl's CPU backend "
                     "clusters as mcl does");
  });
}

/// count elements at data broadcast from `root` in messages of at most message_elements().
template <class V>
void broadcast(V* data, long long count, int root, MPI_Comm comm) {
  const long long chunk = message_elements();
  for (long long at = 0; at < count; at += chunk)
    OPSPARSE_MPI_TRY(MPI_Bcast(data + at, static_cast<int>(std::min(chunk, count - at)), mpi_type<V>(),
                               root, comm));
}

/// The whole matrix on every rank from each rank's consecutive rows (rank r holds rows
/// split[r] to split[r + 1] of an n-column matrix in `mine`). Collective; a buffer that cannot
/// be allocated is refused on every rank.
template <class T>
host_csr<T> gather_rows_everywhere(const dist::grid& g, const host_csr<T>& mine,
                                   const std::vector<index_t>& split, index_t n) {
  const int ranks = g.size();
  std::vector<long long> entries(static_cast<std::size_t>(ranks), 0);
  long long own = static_cast<long long>(mine.nnz());
  OPSPARSE_MPI_TRY(MPI_Allgather(&own, 1, MPI_LONG_LONG, entries.data(), 1, MPI_LONG_LONG, g.comm()));
  host_csr<T> x;
  local_step(g, "opsparse-mcl-mpi: room for the whole iterate", [&] {
    long long total = 0;
    for (const long long e : entries) total += e;
    x = host_csr<T>(split.back(), n);
    x.col.resize(static_cast<std::size_t>(total));
    x.val.resize(static_cast<std::size_t>(total));
  });
  std::vector<offset_t> lengths(static_cast<std::size_t>(split.back()), 0);
  for (index_t i = 0; i < mine.rows; ++i) lengths[split[g.rank()] + i] = mine.rpt[i + 1] - mine.rpt[i];
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

/// `root`'s square matrix of n rows and nnz entries (known on every rank) on every rank's host
/// (collective).
template <class T>
host_csr<T> broadcast_matrix(const dist::grid& g, const host_csr<T>& m, int root, index_t n,
                             offset_t nnz) {
  host_csr<T> x;
  local_step(g, "opsparse-mcl-mpi: room for the start matrix", [&] {
    x = g.rank() == root ? m : host_csr<T>(n, n);
    x.col.resize(static_cast<std::size_t>(nnz));
    x.val.resize(static_cast<std::size_t>(nnz));
  });
  broadcast(x.rpt.data(), static_cast<long long>(x.rpt.size()), root, g.comm());
  broadcast(x.col.data(), static_cast<long long>(nnz), root, g.comm());
  broadcast(x.val.data(), static_cast<long long>(nnz), root, g.comm());
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
    b = make_gpu_backend<T>(rank_device(g, &devices));
#else
    throw std::runtime_error("this build has no GPU engine (configured with -DOPSPARSE_GPU=OFF)");
#endif
  });
  return b;
}

/// Rows [first, last) of the expansion, in the backend's blocks of the whole X·X (its memory's:
/// expansion_blocks()) cut to that range, each pruned before the next is expanded.
template <class T>
void expand_prune_range(backend<T>& b, const std::vector<index_t>& blocks, index_t first,
                        index_t last, const prune_rule& rule) {
  for (std::size_t k = 0; k + 1 < blocks.size(); ++k) {
    const index_t r0 = std::max(blocks[k], first), r1 = std::min(blocks[k + 1], last);
    if (r0 >= r1) continue;
    b.expand(r0, r1);
    b.prune_normalise(rule);
  }
  b.finish_expansion();
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
  const int ranks = g.size(), me = g.rank();
  // This rank's rows are the only ones in its iterate: its entries start at 0.
  std::vector<long long> entries(static_cast<std::size_t>(ranks), 0);
  long long own = static_cast<long long>(dev.current().nnz);
  OPSPARSE_MPI_TRY(MPI_Allgather(&own, 1, MPI_LONG_LONG, entries.data(), 1, MPI_LONG_LONG, g.comm()));
  offset_t before = 0, total = 0;
  std::vector<std::size_t> rpt_bytes, col_bytes, val_bytes;
  for (int r = 0; r < ranks; ++r) {
    if (r == me) before = total;
    total += entries[static_cast<std::size_t>(r)];
    const auto e = static_cast<std::size_t>(entries[static_cast<std::size_t>(r)]);
    rpt_bytes.push_back(static_cast<std::size_t>(split[r + 1] - split[r]) * sizeof(offset_t));
    col_bytes.push_back(e * sizeof(index_t));
    val_bytes.push_back(e * sizeof(T));
  }
  // Room first, agreed on by every rank, so that no rank is left alone in NCCL's broadcasts.
  const offset_t* rows = nullptr;
  typename device_iterate<T>::arrays mine, all;
  local_step(g, "opsparse-mcl-mpi: room for the gathered iterate on the GPU", [&] {
    rows = dev.shifted_row_pointers(split[me], split[me + 1], before);
    mine = dev.current();
    all = dev.spare(total);
  });
  nccl.allgatherv(rows, all.rpt + 1, rpt_bytes, dev.stream());
  nccl.allgatherv(mine.col, all.col, col_bytes, dev.stream());
  nccl.allgatherv(mine.val, all.val, val_bytes, dev.stream());
  dev.use_spare();
  // Done here, so that the exchange's time is its own.
  OPSPARSE_CUDA_TRY(cudaStreamSynchronize(dev.stream()));
  return total;
}

/// `root`'s start matrix loaded on every rank's GPU: uploaded by root alone, then broadcast GPU to
/// GPU by NCCL into the other ranks' backends (each loaded with an empty matrix of its shape
/// first). n and nnz: its shape, known on every rank. Collective.
template <class T>
void start_on_devices(const dist::grid& g, dist::nccl_comm& nccl, backend<T>& b,
                      const host_csr<T>& start, int root, index_t n, offset_t entries) {
  const auto nnz = static_cast<std::size_t>(entries);
  device_iterate<T>& dev = *b.on_device();
  typename device_iterate<T>::arrays from, to;
  local_step(g, "opsparse-mcl-mpi: the start matrix on the GPU", [&] {
    b.load(g.rank() == root ? start : host_csr<T>(n, n));
    from = dev.current();
    to = dev.spare(static_cast<offset_t>(nnz));
  });
  nccl.broadcast(from.rpt, to.rpt, (static_cast<std::size_t>(n) + 1) * sizeof(offset_t), root,
                 dev.stream());
  nccl.broadcast(from.col, to.col, nnz * sizeof(index_t), root, dev.stream());
  nccl.broadcast(from.val, to.val, nnz * sizeof(T), root, dev.stream());
  dev.use_spare();
  OPSPARSE_CUDA_TRY(cudaStreamSynchronize(dev.stream()));
}
#endif

/// dist_layout::rows (mcl_dist.hpp): the whole iterate on every rank, each expanding, pruning and
/// inflating its share of the rows with opsparse-mcl's CPU or GPU backend, the kept rows then
/// broadcast: GPU to GPU by NCCL where each rank owns its GPU (the iterate then stays on the
/// devices), else through the host.
template <class T>
dist_run_result<T> run_rows(const dist::grid& g, const host_csr<T>& start, const params& p,
                            const std::function<void(const dist_iteration_info&)>& progress,
                            int root, dist_engine which) {
  const auto t0 = clock::now();
  const int me = g.rank(), ranks = g.size();
  long long shape[2] = {start.rows, static_cast<long long>(start.nnz())};
  OPSPARSE_MPI_TRY(MPI_Bcast(shape, 2, MPI_LONG_LONG, root, g.comm()));
  const auto n = static_cast<index_t>(shape[0]);
  offset_t nnz = static_cast<offset_t>(shape[1]);
  const prune_rule rule = p.rule();
  const std::unique_ptr<backend<T>> b = make_rows_backend<T>(g, p, which);
  dist_run_result<T> r;
  r.row_exchange = "the host";
  // GPU to GPU where every rank owns its GPU: X then stays on the devices, the start matrix
  // broadcast there; else X on every rank's host, loaded into its backend at each iteration.
  device_iterate<T>* dev = nullptr;
  host_csr<T> x;
#if OPSPARSE_HAS_GPU_ENGINE
  std::unique_ptr<dist::nccl_comm> nccl;
  if (b->on_device()) {
    nccl = rows_nccl(g, &r.row_exchange);
    if (nccl) dev = b->on_device();
  }
  if (dev) start_on_devices(g, *nccl, *b, start, root, n, nnz);
#endif
  if (!dev) x = broadcast_matrix(g, start, root, n, nnz);
  r.start_seconds = since(t0);
  for (int it = 1; it <= p.initial_loop + p.max_iter; ++it) {
    const auto t1 = clock::now();
    const double power = detail::inflation_at(p.initial_inflation, p.initial_loop, p.inflation, it);
    std::vector<index_t> split;
    double chaos = 0, expand_seconds = 0;
    offset_t expanded = 0;
    host_csr<T> mine;
    local_step(g, "opsparse-mcl-mpi: expanding and pruning the rank's rows", [&] {
      // Equal shares of the products, the same split on every rank (the same X).
      // (With NCCL, X stays on the devices: start_on_devices put it there.)
      if (!dev) b->load(x);
      std::vector<offset_t> before;
      if (!b->on_device()) {  // the CPU backend: counted here; the GPU's by expansion_blocks
        const std::vector<offset_t> per_row = cpu::row_products(x, x);
        before.assign(per_row.size() + 1, 0);
        for (std::size_t i = 0; i < per_row.size(); ++i) before[i + 1] = before[i] + per_row[i];
      }
      x = {};
      const std::vector<index_t> blocks = b->expansion_blocks(0);
      if (b->on_device()) before = b->on_device()->row_products_prefix();
      split = cpu::balanced_row_blocks(before, ranks);
      expand_prune_range(*b, blocks, split[me], split[me + 1], rule);
      chaos = b->chaos();
      b->inflate_normalise(power);
      expanded = b->expanded_nnz();
      if (!dev) {
        const host_csr<T> all = b->download();
        mine = dist::detail::take_rows(all, {split[me]}, {split[me + 1]});
      }
      expand_seconds = since(t1);
    });
    const auto t2 = clock::now();
#if OPSPARSE_HAS_GPU_ENGINE
    if (dev) nnz = gather_rows_on_devices(g, *nccl, *dev, split);
#endif
    if (!dev) {
      x = gather_rows_everywhere(g, mine, split, n);
      nnz = x.nnz();
    }
    double maxima[3] = {chaos, expand_seconds, since(t2)};
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, maxima, 3, MPI_DOUBLE, MPI_MAX, g.comm()));
    long long sum = static_cast<long long>(expanded);
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG_LONG, MPI_SUM, g.comm()));
    r.iterations = it;
    if (progress) {
      dist_iteration_info i;
      i.iteration = it;
      i.chaos = maxima[0];
      i.expanded_nnz = sum;
      i.nnz = nnz;
      i.seconds = since(t1);
      i.expand_seconds = maxima[1];
      i.products_seconds = maxima[1];  // (fused: products, pruning and inflation together)
      i.exchange_seconds = maxima[2];
      progress(i);
    }
    if (it > p.initial_loop && maxima[0] < p.chaos_limit) {
      r.converged = true;
      break;
    }
  }
  if (me == root) r.limit = dev ? b->download() : std::move(x);
  r.seconds = since(t0);
  return r;
}

}  // namespace

template <class T>
dist_run_result<T> run_distributed(const dist::grid& g, const host_csr<T>& start, const params& p,
                                   const std::function<void(const dist_iteration_info&)>& progress,
                                   int root, dist_engine which, dist_layout layout) {
  validate(p);
  check_start(g, start, root);
  if (layout == dist_layout::rows) return run_rows(g, start, p, progress, root, which);
  const auto t0 = clock::now();
  dist::dist_csr<T> x = dist::scatter(g, start, root);
  const index_t n = x.rows;
  const prune_rule rule = p.rule();
  double products_seconds = 0;
  dist::spgemm_info info;
  const auto expand = make_expansion<T>(g, p, which, &products_seconds, &info);
  dist_run_result<T> r;
  for (int it = 1; it <= p.initial_loop + p.max_iter; ++it) {
    const auto t1 = clock::now();
    const double power = detail::inflation_at(p.initial_inflation, p.initial_loop, p.inflation, it);
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
    if (it > p.initial_loop && maxima[0] < p.chaos_limit) {
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
    const std::function<void(const dist_iteration_info&)>&, int, dist_engine, dist_layout);
template dist_run_result<double> run_distributed<double>(
    const dist::grid&, const host_csr<double>&, const params&,
    const std::function<void(const dist_iteration_info&)>&, int, dist_engine, dist_layout);

}  // namespace opsparse::mcl
