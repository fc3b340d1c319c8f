#pragma once
// What the layouts of distributed MCL share (internal to mcl_dist.cpp, the grid layout, and
// mcl_dist_rows.cpp, the rows layout): timing, MPI datatypes, local steps that fail together,
// messages of bounded size, the rank's GPU and the start matrix's check.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "mcl_dist.hpp"
#include "mcl_dist_checkpoint.hpp"
#include "core/mcl_iteration.hpp"
#include "opsparse/distributed/detail/blocks.hpp"
#include "opsparse/distributed/detail/comm.hpp"
#include "opsparse/distributed/error.hpp"
#if OPSPARSE_HAS_GPU_ENGINE
#include <cuda_runtime_api.h>

#include "opsparse/distributed/nccl.hpp"
#endif

namespace opsparse::mcl::detail {

using clock = std::chrono::steady_clock;
inline double since(clock::time_point t) {
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
inline long long message_elements() {
  const char* v = std::getenv("OPSPARSE_DIST_MESSAGE_ELEMENTS");
  const long long x = v ? std::atoll(v) : 0;
  return x > 0 && x <= (1ll << 28) ? x : 1ll << 28;
}

/// count elements at data summed over the ranks, in place, in messages of at most
/// message_elements(). Collective.
template <class V>
void sum_over_ranks(V* data, long long count, MPI_Comm comm) {
  const long long chunk = message_elements();
  for (long long at = 0; at < count; at += chunk)
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, data + at,
                                   static_cast<int>(std::min(chunk, count - at)), mpi_type<V>(),
                                   MPI_SUM, comm));
}

/// count elements at data broadcast from `root` in messages of at most message_elements().
template <class V>
void broadcast(V* data, long long count, int root, MPI_Comm comm) {
  const long long chunk = message_elements();
  for (long long at = 0; at < count; at += chunk)
    OPSPARSE_MPI_TRY(MPI_Bcast(data + at, static_cast<int>(std::min(chunk, count - at)),
                               mpi_type<V>(), root, comm));
}

#if OPSPARSE_HAS_GPU_ENGINE
/// The rank's GPU: local rank % the node's devices (ranks share them when there are more ranks
/// than GPUs on a node). Throws on a rank that has none; *devices gets the node's count.
inline int rank_device(const dist::grid& g, int* devices) {
  if (cudaGetDeviceCount(devices) != cudaSuccess || *devices == 0) {
    (void)cudaGetLastError();
    throw std::runtime_error("rank " + std::to_string(g.rank()) + " has no usable CUDA device");
  }
  return g.rank_on_node() % *devices;
}
#endif

/// Where every rank's rows land when all ranks gather them (NCCL's allgatherv of row ends,
/// columns and values, rank after rank): `before` entries precede this rank's, `total` in all;
/// the bytes each rank sends of each array. `own`: this rank's entries; rows split[r] to
/// split[r + 1] are rank r's. Collective (one MPI_Allgather).
struct gathered_rows_layout {
  offset_t before = 0;
  offset_t total = 0;
  std::vector<std::size_t> rpt_bytes, col_bytes, val_bytes;
};
template <class T>
gathered_rows_layout gathered_rows(const dist::grid& g, const std::vector<index_t>& split,
                                   offset_t own) {
  const int ranks = g.size(), me = g.rank();
  std::vector<long long> entries(static_cast<std::size_t>(ranks), 0);
  long long e = static_cast<long long>(own);
  OPSPARSE_MPI_TRY(MPI_Allgather(&e, 1, MPI_LONG_LONG, entries.data(), 1, MPI_LONG_LONG, g.comm()));
  gathered_rows_layout l;
  for (int r = 0; r < ranks; ++r) {
    const auto k = static_cast<std::size_t>(entries[static_cast<std::size_t>(r)]);
    if (r == me) l.before = l.total;
    l.total += static_cast<offset_t>(k);
    l.rpt_bytes.push_back(static_cast<std::size_t>(split[r + 1] - split[r]) * sizeof(offset_t));
    l.col_bytes.push_back(k * sizeof(index_t));
    l.val_bytes.push_back(k * sizeof(T));
  }
  return l;
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

/// The start matrix by rows checked on every rank (its rows, the split agreed), the verdict on
/// every rank.
template <class T>
void check_start(const dist::grid& g, const row_blocks<T>& start) {
  long long shape[2] = {start.n, -static_cast<long long>(start.n)};
  OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, shape, 2, MPI_LONG_LONG, MPI_MAX, g.comm()));
  local_step(g, "opsparse-mcl-mpi: the start matrix's rows", [&] {
    const auto& s = start.split;
    OPSPARSE_EXPECTS(shape[0] == -shape[1], "the ranks' start matrices differ in size");
    OPSPARSE_EXPECTS(s.size() == static_cast<std::size_t>(g.size()) + 1 && s.front() == 0 &&
                         s.back() == start.n && std::is_sorted(s.begin(), s.end()),
                     "the start matrix's split is not one of the ranks' consecutive rows");
    const int me = g.rank();
    OPSPARSE_EXPECTS(start.rows.rows == s[me + 1] - s[me] && start.rows.cols == start.n,
                     "a rank's rows of the start matrix do not match the split");
    opsparse::validate(start.rows);
    OPSPARSE_EXPECTS(
        std::all_of(start.rows.val.begin(), start.rows.val.end(), [](T v) { return v >= T(0); }),
        "the graph has negative weights, which only opsparse-mcl's CPU backend "
        "clusters as mcl does");
  });
}

#if OPSPARSE_HAS_GPU_ENGINE
/// Whether the rows layout on GPUs with NCCL spreads the iterate over them: yes, unless
/// OPSPARSE_MCL_WHOLE_ITERATE=1 keeps it whole on every GPU (for comparisons).
inline bool spread_iterate() {
  const char* whole = std::getenv("OPSPARSE_MCL_WHOLE_ITERATE");
  return !(whole && std::string(whole) == "1");
}

/// dist_layout::rows with the iterate spread over the ranks' GPUs from the ranks' rows of the
/// start matrix as they lie (mcl_dist_devices.cpp); times from t0. Collective.
template <class T>
dist_run_result<T> run_spread(const dist::grid& g, dist::nccl_comm& nccl, backend<T>& b,
                              row_blocks<T> start, const params& p,
                              const std::function<void(const dist_iteration_info&)>& progress,
                              int root, clock::time_point t0, const dist_checkpoints& ck);
#endif

/// Root's square matrix `m` by rows: the rows split by equal products of m·m (decided on root)
/// and sent to their ranks (mcl_dist_rows.cpp). Collective.
template <class T>
row_blocks<T> scatter_by_products(const dist::grid& g, const host_csr<T>& m, int root);

/// A rank's rows of `m` as an n x n matrix whose other rows are empty (a backend's load), the
/// rows' arrays moved out of m.
template <class T>
host_csr<T> square_of(row_blocks<T>&& m, int rank);

/// dist_layout::rows (mcl_dist_rows.cpp) from the start matrix's rows where they lie.
template <class T>
dist_run_result<T> run_rows(const dist::grid& g, row_blocks<T> start, const params& p,
                            const std::function<void(const dist_iteration_info&)>& progress,
                            int root, dist_engine which, const dist_checkpoints& ck);

/// The iteration hooks' checkpoints and stop from `ck` (none when ck.dir is empty): `save(it)`
/// writes the checkpoint after iteration it.
template <class Save>
void checkpoint_hooks(const dist::grid& g, const dist_checkpoints& ck, iteration_hooks& h,
                      Save save) {
  if (ck.dir.empty()) return;
  h.save = save;
  h.checkpoint_seconds = ck.seconds;
  h.stop = [&g, &ck] { return any_rank_stopping(g, ck); };
}

}  // namespace opsparse::mcl::detail
