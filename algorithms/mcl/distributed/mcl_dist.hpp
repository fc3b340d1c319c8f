#pragma once
// Distributed MCL over MPI (opsparse-mcl-mpi): the iterate X (mcl's matrix
// transposed, an mcl column a CSR row) lies in 2D blocks on a dist::grid (or whole on every
// rank: dist_layout::rows below). Each iteration of the grid layout:
//
//   1. expansion  E = X·X by dist::spgemm_row_phases (Sparse SUMMA, the rank's engine for the
//      local products), in phases over E's rows sized by memory; with the CPU engine summed in
//      order (spgemm_options::in_order) over doubles as the CPU backend sums its rows;
//   2. each phase's blocks exchanged within the process row (point to point) so that each rank
//      holds its whole rows of the phase;
//   3. on those rows, before the next phase is multiplied: mcl's pruning and renormalisation,
//      chaos, inflation (mcl_rows.hpp, the CPU backend's code); only the survivors are kept;
//   4. the chaos' maximum over the ranks (MPI_Allreduce), and the kept rows cut back into the
//      grid's blocks (the reverse exchange) for the next expansion.
//
// With the CPU engine every value and every decision is the CPU backend's (opsparse-mcl
// --backend cpu): the limit is the single-process limit bit for bit, on any grid and any number
// of phases (tests/apps/mcl/test_mcl_dist.cpp). With the GPU engine (one GPU per rank: the rank
// on its node modulo the node's GPUs) each stage's local product runs on the rank's GPU and the
// stages' partial sums are merged (the GPU engine has no in-order accumulate): the expansion's
// sums then differ from the CPU backend's in the last bits, and the clusters are compared, not
// the bits.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/mcl.hpp"
#include "opsparse/csr.hpp"
#include "opsparse/distributed/grid.hpp"

namespace opsparse::mcl {

/// One distributed iteration, as seen by the progress callback (on every rank).
struct dist_iteration_info {
  int iteration = 0;          ///< 1-based
  double chaos = 0;           ///< the maximum over all rows
  offset_t expanded_nnz = 0;  ///< nnz of X·X before pruning (all ranks)
  offset_t nnz = 0;           ///< nnz of the iterate after inflation (all ranks)
  int phases = 1;             ///< memory phases of the expansion (over E's rows)
  double seconds = 0;         ///< wall time of the iteration (this rank's)
  // The slowest rank's seconds of each stage (max over ranks of each, so they need not add up):
  double expand_seconds = 0;    ///< the expansion's product: its phases, less their
                                ///< exchanges and pruning
  double products_seconds = 0;  ///< of which the local products (the rest: broadcasts, waits,
                                ///< the product count, cutting the phases' pieces)
  double exchange_seconds = 0;  ///< both redistributions (each phase's blocks to rows, the
                                ///< kept rows to blocks)
  double prune_seconds = 0;     ///< pruning, chaos and inflation of the whole rows
};

/// The local products' engine.
enum class dist_engine { cpu, gpu };

/// How the iterate lies on the ranks.
///   grid  2D blocks on the grid, the expansion by Sparse SUMMA in memory phases (above): the
///         iterate is never whole on a rank.
///   rows  each rank expands, prunes and inflates its share of the rows (equal products) with
///         opsparse-mcl's own backend (the CPU's, or the GPU's on the rank's GPU with the GPU
///         engine), each expanded block pruned before the next. Where every rank owns its GPU and
///         NCCL works, a rank keeps only its rows and receives the rows of X its expansion needs
///         GPU to GPU, a column block at a time for a fused (dense) expansion
///         (mcl_dist_devices.cpp): no rank holds the whole iterate. Otherwise every rank holds
///         the whole iterate and the kept rows are broadcast to every rank after each iteration. A
///         grid with one process column broadcasts X whole to every rank each iteration anyway, and
///         the fused expansion never stores the unpruned rows. PPISB_human on the 2-core CPU
///         machine (mpirun --bind-to none): 4.1 -> 1.6 s on 1 rank of 2 threads, 5.1 -> 1.6 s on 2
///         ranks of 1 (opsparse-mcl -te 2: 1.15 s, the same output).
enum class dist_layout { grid, rows };

template <class T>
struct dist_run_result {
  host_csr<T> limit;  ///< the last iterate on rank `root`, empty elsewhere
  int iterations = 0;
  bool converged = false;
  double seconds = 0;  ///< scatter, iterations and gather
  /// Of `seconds`, in the rows layout: the start matrix on every rank, the ranks' backends and
  /// NCCL, before the first iteration (0 in the grid layout).
  double start_seconds = 0;
  /// How the rows layout gathered the kept rows: "NCCL" (GPU to GPU), or "the host" and why
  /// not NCCL; "" in the grid layout.
  std::string row_exchange;
  /// The rows layout on GPUs with NCCL: the iterate spread over the ranks (each holding its own
  /// rows), and how many column stages a fused expansion gathered X in; else false and 0.
  bool spread = false;
  int column_stages = 0;
  /// How many times the spread iterate's rows were split anew by an expansion's products.
  int resplits = 0;
};

/// Checkpoints of a distributed run in the rows layout (mcl_dist_checkpoint.hpp): each rank
/// writes its share of the iterate; a run on any number of ranks resumes from them.
struct dist_checkpoints {
  std::string dir;  ///< written after each iteration of at least `seconds` (empty: none)
  double seconds = 60;
  std::string resume_dir;         ///< resumed from (empty: from the start matrix)
  std::uint64_t fingerprint = 0;  ///< checkpoint::fingerprint of the run, the same on every rank
  /// This rank's request to stop after the running iteration (a signal); nullptr: none. The
  /// run stops when any rank's is raised (run_interrupted on every rank).
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const std::string&)> note;  ///< rank 0's notes on what was written or read
};

/// A square matrix held by rows: rank r holds rows split[r] to split[r + 1] in `rows` (those rows
/// only, n columns); n and split are the same on every rank.
template <class T>
struct row_blocks {
  index_t n = 0;
  std::vector<index_t> split;
  host_csr<T> rows;
};

/// Runs MCL on the grid from `start` (rows sum to 1, held by rank `root`; ignored elsewhere)
/// until the chaos is below p.chaos_limit or p.max_iter iterations, as run() does. Collective.
/// A start matrix with negative values (negative weights) is std::invalid_argument on every rank:
/// the distributed iterations do not reproduce the CPU backend's handling of cancelled sums.
/// p.threads: OpenMP threads per rank. p.block_products is not used (the row phases bound the
/// expansion's memory; OPSPARSE_DIST_MEMORY sets the budget). dist_engine::gpu needs a
/// build with the GPU engine and a GPU on every rank (std::runtime_error on every rank otherwise).
/// Checkpoints (`ck`) are the rows layout's; the grid layout refuses them (std::invalid_argument).
template <class T>
dist_run_result<T> run_distributed(
    const dist::grid& g, const host_csr<T>& start, const params& p,
    const std::function<void(const dist_iteration_info&)>& progress = {}, int root = 0,
    dist_engine engine = dist_engine::cpu, dist_layout layout = dist_layout::grid,
    const dist_checkpoints& ck = {});

/// run_distributed from a start matrix held by rows (as every rank reads its part of the input,
/// dist::read_abc_rows). The rows layout starts from the rows where they lie: with the iterate
/// spread over the GPUs no rank ever holds the whole start matrix (the first expansion's
/// products then split the rows anew where that pays); the grid layout gathers them on rank 0
/// first. Collective; the same checks and results as the overload above.
template <class T>
dist_run_result<T> run_distributed(
    const dist::grid& g, row_blocks<T> start, const params& p,
    const std::function<void(const dist_iteration_info&)>& progress = {},
    dist_engine engine = dist_engine::cpu, dist_layout layout = dist_layout::grid,
    const dist_checkpoints& ck = {});

}  // namespace opsparse::mcl
