#pragma once
// Markov clustering with the semantics of Debian's `mcl` 22-282 (Stijn van Dongen's program):
// same input transformation, pruning, convergence test and interpretation of the limit, so that
// users get the same clusters. The algorithm is written once (run()) over a backend interface;
// mcl_cpu.cpp and mcl_gpu.cu provide the backends.
//
// Orientation: mcl works on a column-stochastic matrix M. Here the iterate is its TRANSPOSE in
// CSR, so an mcl column is a CSR row and the expansion (M·M)^T = M^T·M^T is a plain CSR square.
#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "mcl_prune.hpp"
#include "opsparse/csr.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace opsparse::mcl {

/// What mcl does with nodes that end up in several clusters (-overlap; mcl's default is cut).
enum class overlap_mode {
  cut,    ///< a node stays only in the first cluster it is in (mcl's default)
  keep,   ///< overlapping clusters are written as they are
  split,  ///< overlapping parts become clusters of their own
};

/// Parameters with mcl 22-282's defaults (`mcl -z`; the defaults are scheme 6).
struct params {
  double inflation = 2.0;    ///< -I, in (0, 30]; used rounded to float, as mcl reads it
  long long prune = 10000;   ///< -P: cutoff 0.99999/P (0: no cutoff); -p f sets P = (int)(1/f)
  long long select = 1100;   ///< -S (0: no selection)
  long long recover = 1400;  ///< -R (0: no recovery)
  int pct = 90;              ///< -pct: recover when the kept mass is below pct percent
  int max_iter = 10000;      ///< mcl's main loop length (-L)
  int initial_loop = 0;      ///< -l: iterations before the main loop, at initial_inflation, with
                             ///< no convergence test (mcl's initial loop)
  double initial_inflation = 2.0;  ///< -i: the initial loop's inflation
  double chaos_limit = 1e-4;       ///< mcl stops when the chaos of an expansion is below this
  bool discard_loops = true;       ///< --discard-loops=y: drop input loops, add max-weight loops
  /// Mirror every arc, merging by the maximum (mcl --abc). Off: the graph is used as it is, as
  /// mcl uses a native matrix (a directed one stays directed).
  bool mirror = true;
  double loop_scale = -1;     ///< -c: multiply loops by this, rounded to float (negative: off)
  double pre_inflation = -1;  ///< -pi: inflate the input once (negative: not used)
  overlap_mode overlap = overlap_mode::cut;
  int threads = 0;               ///< -te: CPU threads (0: OpenMP default)
  long long block_products = 0;  ///< expand in row blocks of at most this many products (0: auto)

  prune_rule rule() const {
    prune_rule r;
    r.cutoff = prune > 0 ? 0.99999 / static_cast<double>(prune) : 0.0;
    r.select = select;
    r.recover = recover;
    r.pct = pct / 100.0;
    return r;
  }
};

/// Throws std::invalid_argument naming the first parameter outside mcl's accepted range.
void validate(const params& p);

/// Sets P, S, R and pct from mcl's preset -scheme 1..7.
void apply_scheme(params& p, int scheme);

/// mcl's -resource n: S = R = n neighbours tracked a node, P = 10 n.
void apply_resource(params& p, long long n);

/// mcl's -z: the settings as mcl 22-282 prints them (warn_pct, warn_factor: those options as
/// given, "" for mcl's defaults).
std::string settings_table(const params& p, const std::string& warn_pct = "",
                           const std::string& warn_factor = "");

// ------------------------------------------------------------------------------------------------
// Input transformation
// ------------------------------------------------------------------------------------------------

/// The start matrix from a graph's (possibly directed) weighted adjacency, as mcl prepares it:
/// symmetrised with the maximum weight, zero weights dropped, loops removed and each node given
/// a loop equal to its heaviest edge (1 for an isolated node) unless discard_loops is off, loops
/// scaled by -c, pre-inflated by -pi, then every row normalised to sum 1. Negative weights are
/// taken as mcl 22-282 takes them: they count in the heaviest edge (a node whose edges are all
/// negative gets the least negative as its loop) and in the sum, which divides the row even
/// when it is negative (a zero sum leaves the row as it is; see mcl_start.cpp).
host_csr<double> start_matrix(const host_csr<double>& adjacency, const params& p);
/// Rows first .. first + rows.rows of start_matrix(graph, p), from those rows of the (mirrored)
/// graph (rows.cols columns): a distributed program's share. p.mirror must be off (mirroring
/// needs the whole graph: std::invalid_argument).
host_csr<double> start_matrix_rows(const host_csr<double>& rows, index_t first, const params& p);

/// What mcl keeps with each column of its start matrix (mclxMakeStochastic's column sums, its
/// -dump ite file of iteration 0 writes them): the sum each row of start_matrix(adjacency, p) was
/// divided by, 0 where none.
std::vector<double> start_column_sums(const host_csr<double>& adjacency, const params& p);

/// Whether the start matrix has a negative value (or a NaN, from -pi on a negative weight): the
/// CPU backend clusters such a matrix as mcl does; cluster() and cluster_sweep() refuse it on
/// the GPU (std::invalid_argument), whose pruning orders values by their bits (non-negative
/// values only) and keeps sums that cancel to 0.
bool has_negative_values(const host_csr<double>& start);

// ------------------------------------------------------------------------------------------------
// Backends
// ------------------------------------------------------------------------------------------------

/// Counters a backend can report (negative or zero where it has none).
struct backend_stats {
  std::int64_t device_allocations = -1;  ///< opsparse::device_allocation_count() now
  std::size_t peak_device_bytes = 0;     ///< peak process device memory seen
  std::size_t current_device_bytes = 0;  ///< device memory in use now
  std::string device;                    ///< device name ("" on the CPU)
  /// GPU time of the last iteration's stages, from CUDA events (negative on the CPU):
  /// expansion (the engine's product), pruning without its sort, and the sort of the rows that
  /// need an order statistic.
  double expand_ms = -1, prune_ms = -1, sort_ms = -1;
  double symbolic_ms = -1, numeric_ms = -1;  ///< the expansion's two phases (engine's events)
  long long products = -1;                   ///< multiplications of the last expansion (all blocks)
  bool fused = false;  ///< the last expansion was fused with its pruning (mcl_fused.cuh)
  /// The last expansion's next iterate went through pinned host memory (mcl_streamed.cuh): the
  /// device held one iterate, not two.
  bool streamed = false;
  std::size_t pinned_host_bytes = 0;  ///< pinned host memory held for streamed iterates
  /// Where the peak device memory was seen and what held it (--verbose; "" on the CPU).
  std::string peak_device_breakdown;
};

template <class T>
class device_iterate;  // the GPU backend's iterate on the device (below)

/// The operations of one MCL iteration on the transposed iterate X (rows are mcl columns).
/// An expansion is done in row blocks: for each block the backend computes the block's rows of
/// X·X and prunes them into the next iterate, so that the whole expanded matrix never has to
/// exist at once when it would not fit; one block is the usual case.
template <class T>
class backend {
 public:
  virtual ~backend() = default;
  virtual const char* name() const = 0;
  /// Uploads the start matrix (rows sum to 1).
  virtual void load(const host_csr<T>& start) = 0;
  /// The pruning rule of the coming expansions: its ranks bound the next iterate's rows (the
  /// GPU backend sizes its memory by them). Without it a backend assumes rows of 2,048.
  virtual void set_prune_rule(const prune_rule&) {}
  /// The current iterate exactly as the backend holds it (rows in its order, which may be
  /// unsorted: `rows_sorted` says), for a checkpoint; restore() makes it current again, so that
  /// the iterations after it compute what they would have computed without the interruption.
  virtual host_csr<T> snapshot(bool& rows_sorted) {
    rows_sorted = true;
    return download();
  }
  virtual void restore(const host_csr<T>& iterate, bool /*rows_sorted*/) { load(iterate); }
  /// Uploads a start matrix of double cells (the program's) in the cell type T: by default a
  /// converted copy made on `threads` host threads, then load(); the GPU backend uploads the
  /// structure as it is and converts the values on the device (no host copy of a 100M-entry
  /// matrix, which cost 0.5 s at 1M nodes).
  virtual void load_cells(const host_csr<double>& start, int threads);
  /// Row blocks for the coming expansion: boundaries r0 = 0 < r1 < ... = rows. `max_products`
  /// caps the multiplications per block (0: the backend decides from its memory).
  virtual std::vector<index_t> expansion_blocks(long long max_products) = 0;
  /// Computes rows [r0, r1) of X·X (the expanded block). Blocks come in increasing order
  /// without overlap; they need not cover every row: a row no block expanded is empty in the
  /// next iterate and has no chaos (a distributed rank expands only its own rows).
  virtual void expand(index_t r0, index_t r1) = 0;
  /// Prunes the expanded block row by row as mcl does (see mcl_prune.hpp), renormalises it and
  /// appends it to the next iterate; records each row's chaos.
  virtual void prune_normalise(const prune_rule& rule) = 0;
  /// Makes the next iterate current (after the last block).
  virtual void finish_expansion() = 0;
  /// Maximum chaos over the rows of the last expansion.
  virtual double chaos() = 0;
  /// Inflation: every value to the power `power`, rows renormalised.
  virtual void inflate_normalise(double power) = 0;
  /// nnz of the current iterate, and the total nnz of the last expansion before pruning.
  virtual offset_t nnz() const = 0;
  virtual offset_t expanded_nnz() const = 0;
  /// The current iterate on the host.
  virtual host_csr<T> download() = 0;
  virtual backend_stats stats() = 0;
  /// Device bytes the backend may use (the GPU's memory budget; 0 on the CPU).
  virtual std::size_t device_budget() const { return 0; }
  /// The iterate on the device (the GPU backend), else nullptr.
  virtual device_iterate<T>* on_device() { return nullptr; }
};

/// The GPU backend's iterate on the device, for a distributed rank of the rows layout that
/// gathers the ranks' rows GPU to GPU (NCCL, mcl_dist.cpp) instead of through the host. After an
/// expansion of the rank's rows only, the current iterate holds those rows alone (the others are
/// empty), so its entries are theirs and its row pointers start at 0 there. Work is enqueued on
/// stream(); pointers stay valid until the backend's next call.
template <class T>
class device_iterate {
 public:
  virtual ~device_iterate() = default;
  struct arrays {
    offset_t* rpt = nullptr;  ///< rows + 1
    index_t* col = nullptr;
    T* val = nullptr;
    offset_t nnz = 0;
  };
  virtual CUstream_st* stream() = 0;
  /// The current iterate.
  virtual arrays current() = 0;
  /// Row pointers r0 + 1 .. r1 of the current iterate plus `shift` (r1 - r0 values, in scratch
  /// of the backend's): the rows as they will lie in the gathered iterate.
  virtual const offset_t* shifted_row_pointers(index_t r0, index_t r1, offset_t shift) = 0;
  /// Room for a whole iterate of nnz entries (the backend's spare arrays, row pointer 0 set to
  /// 0), to be filled on stream() and then made the current iterate by use_spare().
  virtual arrays spare(offset_t nnz) = 0;
  virtual void use_spare() = 0;
  /// Products of each row of X·X, scanned, as the last expansion_blocks() counted them: n + 1
  /// values on the host (the ranks' shares of the expansion).
  virtual std::vector<offset_t> row_products_prefix() = 0;
  /// The right operand's row pointers at `rows` (each in [0, n]) on the host: where the rows lie
  /// in X gathered from every rank (multiply_by()).
  virtual std::vector<offset_t> right_row_pointers(const std::vector<index_t>& rows) = 0;
  /// The spare iterate (spare()) laid out for rows [r0, r1) as the right operand's row pointers
  /// place them, shifted to start at 0 (the other rows empty), with the current iterate's
  /// entries [from, to) copied in at `at`; the other entries are to be filled on stream()
  /// before use_spare(). A rank taking over rows of other ranks when the rows are split anew.
  virtual arrays spare_rows(index_t r0, index_t r1, offset_t from, offset_t to, offset_t at) = 0;

  // A rank that keeps only its own rows of X (the others empty) multiplies them by the rows of
  // X it receives from the other ranks: whole, or one column block per stage of a fused
  // expansion, so that no rank holds all of X.
  /// The coming expansions multiply the iterate's rows by b (n rows laid out as X's, holding
  /// every row the rank's rows need; b.col and b.val may be null for products() and
  /// expansion_blocks() only) instead of by X itself; nullptr: X·X again. `sorted`: b's rows are.
  virtual void multiply_by(const arrays* b, bool sorted) = 0;
  /// Room for b (n rows, nnz entries; row pointer 0 set to 0), to be filled on stream(); valid
  /// until the next call or release_right_buffer().
  virtual arrays right_buffer(offset_t nnz) = 0;
  virtual void release_right_buffer() = 0;
  /// Products of the rank's rows times the right operand (this rank's share of the expansion).
  virtual offset_t products() = 0;
  /// The next expansion_blocks() decides the expansion's kind (dense, fused) from the whole
  /// expansion's products, as every rank does, and leaves `reserved_bytes` of the budget free
  /// (the right operand's pieces and, fused, the parked rows of a staged expansion). `fused`:
  /// fused whatever the products (the rows of X an unfused expansion needs do not fit).
  virtual void decide_as(offset_t total_products, std::size_t reserved_bytes, bool fused) = 0;
  /// Whether the expansion that expansion_blocks() set up is fused (then expand_stage() serves).
  virtual bool fused() const = 0;
  /// Whether the current iterate's rows are sorted by column.
  virtual bool rows_sorted() const = 0;
  /// Rows [r0, r1) of the iterate restricted to columns [c0, c1), in scratch: row pointers from 0
  /// (r1 - r0 + 1), columns, values; piece_row_ends(shift) gives its row ends plus shift (as
  /// they lie in the gathered operand). Valid until the next call.
  virtual arrays column_piece(index_t r0, index_t r1, index_t c0, index_t c1) = 0;
  virtual const offset_t* piece_row_ends(offset_t shift) = 0;
  /// One stage of a fused expansion of rows [r0, r1) (in place of expand() and prune_normalise()):
  /// b holds columns [c0, c1) of X's rows (n rows). Stages come in increasing column order and
  /// cover every column; the first begins the rows as expand() does, the last prunes them (as a
  /// whole expansion would, to the bit) and appends them to the next iterate.
  virtual void expand_stage(index_t r0, index_t r1, const prune_rule& rule, const arrays& b,
                            index_t c0, index_t c1, bool first, bool last) = 0;
};

template <class T>
/// The CPU backend with `threads` OpenMP threads (0: all). It expands and prunes each row at
/// once in a dense accumulator over the columns per thread while those accumulators take at
/// most `accumulator_bytes` in all, else expands with opsparse::cpu::spgemm and prunes after.
/// A `memory_budget` (bytes, 0: none) bounds the stored expansion: it is then computed in row
/// blocks that fit, as the GPU backend's are, and the accumulators take at most a quarter of it.
std::unique_ptr<backend<T>> make_cpu_backend(int threads,
                                             std::size_t accumulator_bytes = std::size_t(1) << 30,
                                             std::size_t memory_budget = 0);

#if OPSPARSE_HAS_GPU_ENGINE
/// Expanded rows at least this long on average are pruned by a thread block each on the GPU
/// (shorter ones by a warp each).
inline constexpr offset_t gpu_block_pruned_row_entries = 4096;

/// Where the GPU backend keeps the next iterate while it is assembled: `automatic` on the
/// device when it fits beside the current one (within the memory budget) and in pinned host
/// memory otherwise (mcl_streamed.cuh); `device` and `streamed` force one (tests).
enum class iterate_placement { automatic, device, streamed };

/// Whether the GPU backend expands and prunes at once (mcl_fused.cuh): `automatic` for dense
/// expansions (at least as many products a row as there are columns, on average), where the
/// unpruned rows would be nearly dense; `always` and `never` for tests and the benchmark's ablation
/// (the program reads OPSPARSE_MCL_FUSED=1 or 0).
enum class fused_expansion { automatic, always, never };

struct gpu_backend_options {
  /// The expanded row length (mean) from which pruning takes a thread block a row (tests lower
  /// it to reach that path on small graphs).
  offset_t block_pruned_rows = gpu_block_pruned_row_entries;
  fused_expansion fused = fused_expansion::automatic;
  /// Columns per window of the fused expansion (0: as many as shared memory holds); tests lower
  /// it to reach many windows, rising candidate bars and the unfused fallback on small graphs.
  int fused_max_window = 0;
  /// The fused expansion's windows walk X's rows a lane its own cursors, not a warp a row part
  /// (dense_rows_options::lane_walk; off: slower where measured).
  bool fused_lane_walk = false;
  /// Device bytes the backend may take beyond what the process held when it was made (the CUDA
  /// context's own), for the iterates and every workspace; 0: the device's free memory then.
  std::size_t memory_budget = 0;
  iterate_placement placement = iterate_placement::automatic;
};

/// The options the programs read from the environment: OPSPARSE_MCL_FUSED=0 or 1 (the fused
/// expansion never or always), OPSPARSE_MCL_FUSED_WINDOW=N (its windows' columns at most) and
/// OPSPARSE_MCL_LANE_WALK=1 (its windows' lanes walk their own cursors).
gpu_backend_options gpu_options_from_environment();

/// The GPU backend on `device` (negative: the current one). Throws cuda_error without a device.
template <class T>
std::unique_ptr<backend<T>> make_gpu_backend(int device, const gpu_backend_options& opt);
template <class T>
std::unique_ptr<backend<T>> make_gpu_backend(
    int device = -1, offset_t block_pruned_rows = gpu_block_pruned_row_entries) {
  gpu_backend_options o;
  o.block_pruned_rows = block_pruned_rows;
  return make_gpu_backend<T>(device, o);
}
#endif

// ------------------------------------------------------------------------------------------------
// The algorithm
// ------------------------------------------------------------------------------------------------

struct iteration_info {
  int iteration = 0;  ///< 1-based
  double chaos = 0;
  offset_t expanded_nnz = 0;  ///< nnz of X·X before pruning (all blocks)
  offset_t nnz = 0;           ///< nnz of the iterate after inflation
  int blocks = 1;             ///< row blocks of the expansion
  double seconds = 0;         ///< wall time of the iteration
  backend_stats stats;
};

struct memory_plan;  // mcl_memory_plan.hpp

/// How a run is bounded and kept: its memory budget, its checkpoints, a request to stop.
struct run_options {
  /// The GPU backend's device bytes (gpu_backend_options::memory_budget; 0: the device's free
  /// memory); the CPU backend's bytes for a stored expansion (0: no bound).
  std::size_t memory_budget = 0;
  /// A folder for checkpoints (mcl_checkpoint.hpp; empty: none): the iterate is written there
  /// after each iteration that took at least checkpoint_seconds, and after the iteration in
  /// which `stop` was raised.
  std::string checkpoint_dir;
  double checkpoint_seconds = 60;
  /// A folder whose checkpoint the run continues from (empty: from the start matrix).
  std::string resume_dir;
  /// The run's checkpoint::fingerprint (written to checkpoints, checked on resume).
  std::uint64_t fingerprint = 0;
  /// Raised (by a signal handler) to end the run after the current iteration.
  const std::atomic<bool>* stop = nullptr;
  /// One-line notes on checkpoints written and read.
  std::function<void(const std::string&)> note;
  /// Called with the memory plan before the first iteration (mcl_memory_plan.hpp).
  std::function<void(const memory_plan&)> on_plan;
  /// mcl's -dump: on_iterand(it, inflated, X) is called with iteration it's iterand, once
  /// expanded and pruned (inflated false: what mcl interprets for its cls and dag dumps) and once
  /// inflated (mcl's ite dump), wherever wants_iterand(it, inflated) holds (iteration 0: the
  /// start matrix, not called here). X's rows are mcl's columns, sorted. Each call copies the
  /// iterand to the host without changing what the backend computes next.
  std::function<bool(int it, bool inflated)> wants_iterand;
  std::function<void(int it, bool inflated, const host_csr<double>&)> on_iterand;
  /// mcl's --write-limit: called with the limit (the last iterand) before it is interpreted.
  std::function<void(const host_csr<double>&)> on_limit;
};

/// Thrown by run() and cluster() when run_options::stop was raised: the run ended after
/// `iteration` (its checkpoint written when a folder was given).
struct run_interrupted : std::runtime_error {
  run_interrupted(int it, bool saved)
      : std::runtime_error("interrupted"), iteration(it), checkpointed(saved) {}
  int iteration;
  bool checkpointed;
};

template <class T>
struct run_result {
  host_csr<T> limit;  ///< the last iterate (mcl's limit matrix, transposed)
  int iterations = 0;
  bool converged = false;
  double seconds = 0;
  backend_stats stats;
};

/// Runs MCL from `start` (rows sum to 1) until the chaos of an expansion is below
/// p.chaos_limit (checked after that iteration's inflation, as mcl does) or p.max_iter
/// iterations. `progress` (optional) is called after every iteration.
template <class T>
run_result<T> run(backend<T>& b, const host_csr<T>& start, const params& p,
                  const std::function<void(const iteration_info&)>& progress = {},
                  const run_options& options = {});

// ------------------------------------------------------------------------------------------------
// Interpretation and output
// ------------------------------------------------------------------------------------------------

struct clustering {
  std::vector<std::vector<index_t>> clusters;  ///< each sorted; largest first, ties lexicographic
  std::size_t overlap = 0;  ///< node memberships beyond the first (before resolution)
  std::size_t missing = 0;  ///< nodes that no cluster claimed (collected into one cluster)
  std::size_t attractors = 0;
};

/// Interprets a limit (transposed, rows = mcl columns) as mcl does: per row keep values at or
/// above 0.999·self + 0.001·max (or self/1.01 when the loop is the maximum), renormalise, keep
/// values >= 1/(n+1); attractors are nodes that keep their loop; attractor systems (connected
/// through kept entries) are clusters, numbered by size then lexicographically; every other node
/// joins the clusters of all attractors it reaches; unclaimed nodes form one extra cluster;
/// overlap is resolved by `mode`; clusters are sorted largest first, equal sizes by their node
/// lists (mcl's revsize order). Runs on `threads` OpenMP threads (0: all from 262,144 nodes,
/// one below; any count: one below 32,768 nodes); the result does not depend on the count.
template <class T>
clustering interpret(const host_csr<T>& limit, overlap_mode mode, int threads = 0);

/// The clustering mcl writes for an iterand with -dump cls (its doIteration): the DAG of the
/// expanded and pruned iterand as interpret() makes it but not thinned, the overlap kept, the
/// clusters in mcl's order (attractor systems by size, then by their smallest node; the nodes no
/// cluster claimed last), not sorted.
template <class T>
clustering interpret_iterand(const host_csr<T>& iterand);

/// The DAG of an iterand as mcl writes it with -dump dag: the entries of each row that the
/// interpretation keeps (see interpret_iterand), with their values.
template <class T>
host_csr<T> iterand_dag(const host_csr<T>& iterand);

/// Writes clusters as mcl -o does in label mode: one per line, tab-separated labels.
void write_clusters(std::ostream& os, const clustering& c, const std::vector<std::string>& labels);

/// mcl's suffix of its automatic names: I<inflation with one decimal>[l<n>i<initial
/// inflation>][pi..][c..], dots removed, e.g. I20 or I20l2i30 (the -dump files' default stem is
/// the input's name, a dot and this).
std::string output_suffix(const params& p, int inflation_decimals = 1);

/// mcl's automatic output name: out.<input file name without directories>.<output_suffix>, e.g.
/// out.graph.abc.I20.
/// `inflation_decimals` > 1 writes the inflation with more decimals (an inflation sweep whose
/// inflations mcl's one decimal would give one name: 1.2 and 1.25 -> I120, I125).
std::string default_output_name(const std::string& input, const params& p,
                                int inflation_decimals = 1);

/// The iterates' cell type. float32 is mcl's own arithmetic (float cells, expanded columns summed
/// in double and rounded once), the most faithful to mcl; float64 keeps double cells throughout.
enum class precision { float32, float64 };

/// Convenience for tests and the program: start matrix -> run -> interpret.
struct cluster_result {
  clustering result;
  int iterations = 0;
  bool converged = false;
  double seconds = 0;               ///< run(): upload, iterations, download
  double backend_seconds = 0;       ///< making the backend
  double interpret_seconds = 0;     ///< interpret()
  double release_wait_seconds = 0;  ///< waiting for the backend's release after interpret()
  backend_stats stats;
};
/// `options`: the memory budget, checkpoints and resumption (run_options); the memory plan is
/// made first, and a run that cannot fit throws std::runtime_error naming what it needs.
cluster_result cluster(const host_csr<double>& start, const params& p, bool gpu, precision prec,
                       const std::function<void(const iteration_info&)>& progress = {},
                       const run_options& options = {});

/// An inflation sweep: `start` clustered with p at each of `inflations` in turn, by one backend
/// (the GPU's context, plan and arrays are made once and reused); done(k, result) is called as
/// soon as inflation k is done. The results equal those of cluster() with p.inflation set.
void cluster_sweep(const host_csr<double>& start, const params& p,
                   const std::vector<double>& inflations, bool gpu, precision prec,
                   const std::function<void(const iteration_info&)>& progress,
                   const std::function<void(std::size_t, const cluster_result&)>& done,
                   std::size_t memory_budget = 0);

}  // namespace opsparse::mcl
