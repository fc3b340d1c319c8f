#pragma once
// Multi-source breadth-first search as sparse matrix products.
//
// A is the graph's pattern, A(u,v) for an edge u -> v (symmetrised with --undirected). A batch
// of b sources s_0..s_{b-1} (duplicates allowed: each has its own row) is searched at once:
//   F_0 = rows e_{s_r}              (b × n pattern: row r is source r's frontier)
//   V_0 = F_0 with value 0          (b × n: visited vertices, the value is the level)
//   F_{l+1} = (F_l · A)<¬V_l>       over (any, pair): the out-neighbours of the frontier that
//                                   row r has not visited yet; the complemented mask drops them
//                                   inside the product, so no visited vertex is ever stored
//   V_{l+1} = V_l ∪ F_{l+1}         entries of F_{l+1} take the value l+1 (the sets are disjoint,
//                                   so the union is a row-wise merge of two sorted lists)
// until F is empty or the level reaches max_depth. Row r of the final V lists every vertex
// source r reaches with its BFS level, which gives per source: reached = nnz(V(r,:)) (the source
// included), the sum of levels, the eccentricity (largest level) and the closeness centrality
// (reached - 1) / sum of levels (0 when nothing else is reached).
// Work per level is the products of F·A (each vertex's edges are expanded once per source that
// reaches it): on the GPU plus the merge, which copies V; the CPU backend keeps F and V as
// bitmaps beside a list of F's vertices, so that a push level costs the frontier and its edges,
// not n or nnz(V), and pulls (n + nnz(A)) only when the push would cost a quarter of that
// (msbfs_cpu.cpp).
//
// Direction optimisation (GPU backend, as LAGraph's BFS switches from push to pull): once the
// next push would cost more than a pull, F and V change representation, for the rest of the
// batch, to bitmaps of n × ⌈b/64⌉ words (bit r of vertex v's words: row r of the matrix), and
// a level becomes the pull product Fᵀ ← (Aᵀ·Fᵀ)<¬Vᵀ> over (or, and) on 64 sources per word:
// vertex v's word is the OR of its in-neighbours' frontier words, stopping as soon as every
// source of the word has reached v (or finished its search). The summaries are then
// accumulated per level instead of read off V. Push costs the products Σ deg(v) over F's
// entries; pull costs about nnz(A) words per 64 sources, less the finished vertices; the switch
// is made when the products of the next push exceed nnz(A)·⌈b/64⌉ / 128, or when V would
// outgrow the bitmaps. The 128: on the H100 (1,024 sources) a pushed product cost 2.2 ns at
// R-MAT 22 (the engine's masked product and the union with V: 254 ms for the 114M of level 2)
// and 9 ns at R-MAT 25 (1.73 s for 190M: rows of 10^5 outputs), a pulled word 0.01 ns (19 ms for
// the 2.05G of a level that finds nothing early); a quarter, the old rule, pushed level 2 and
// took 353 ms for R-MAT 22's batch, pulling from it 44 ms. A search that must return V itself
// (keep_levels) stays with push.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "opsparse/csr.hpp"
#include "opsparse/types.hpp"

namespace opsparse::msbfs {

/// BFS levels are stored as int: a level is at most n - 1.
using level_t = std::int32_t;

/// One BFS row's results.
struct source_summary {
  index_t source = 0;          ///< vertex number in A
  offset_t reached = 0;        ///< vertices reached, the source included
  std::int64_t level_sum = 0;  ///< sum of the levels of the reached vertices
  level_t eccentricity = 0;    ///< largest level reached
  double closeness() const {
    return level_sum > 0 ? static_cast<double>(reached - 1) / static_cast<double>(level_sum) : 0.0;
  }
};

/// Which way the levels go. automatic: the GPU switches to pull once (see above); the CPU
/// chooses again at every level (pull when the push would expand more than (n + nnz(A)) / 4
/// edges).
enum class direction { automatic, push, pull };

/// "auto" / "push" / "pull"; throws std::invalid_argument naming the choices.
direction parse_direction(const std::string& s);
const char* to_string(direction d);

/// Where F, V and A live and the levels run. The algorithm (run_batches) is written once over
/// this interface, and the push levels as products once over the execution spaces
/// (msbfs_space.hpp); the GPU adds its pull levels on bitmaps, the CPU's own backend levels on
/// bitmaps (msbfs_cpu.cpp).
class backend {
 public:
  virtual ~backend() = default;
  virtual const char* name() const = 0;
  /// Takes A (square pattern; rows are the tails of the edges). `symmetric`: A = Aᵀ is known,
  /// so pulling needs no transpose.
  virtual void load(const host_csr<pattern>& a, bool symmetric = false) = 0;
  /// How the next batches run: the direction rule, and whether V must be kept (levels()).
  virtual void configure(direction /*dir*/, bool /*keep_levels*/) {}
  /// F = V = one row per source (level 0).
  virtual void start(const std::vector<index_t>& sources) = 0;
  /// One level: F ← (F·A)<¬V>, V ← V ∪ F with value `level`. Returns nnz(F).
  virtual offset_t advance(level_t level) = 0;
  /// reached, level sum and eccentricity of every row of V (source left for the caller).
  virtual std::vector<source_summary> summarise() = 0;
  /// V: rows = the batch's sources, values = levels.
  virtual host_csr<level_t> levels() = 0;
  /// Multiplications of the products so far (0 where the backend does not count them). The CPU,
  /// whose levels push or pull on bitmaps, counts those of F·A as written above for every level.
  virtual offset_t products() const = 0;
  /// Edges traversed so far: over every source, the out-degrees of the vertices it expanded
  /// (what a push-only search multiplies, whichever direction the levels actually went).
  virtual offset_t edges_traversed() const { return products(); }
  /// Steps taken so far, in the backend's own unit (the CPU: bitmap words and edges read), so
  /// that tests can bound what a search costs without timing it; 0 where not counted.
  virtual offset_t work() const { return 0; }
  /// How the last batch ran (for progress lines), e.g. "push 2, pull 5"; empty if nothing to say.
  virtual std::string last_batch_note() const { return {}; }
  /// How the last level ran ("push" or "pull"; for -V's level lines); empty if nothing to say.
  virtual const char* last_level_note() const { return ""; }
  /// About how many entries of V a batch may hold (sizes the default batch).
  virtual offset_t batch_budget() const = 0;
};

std::unique_ptr<backend> make_cpu_backend(int threads = 0);
/// The push levels as products (msbfs_space.hpp) on the CPU engine: what the GPU backend runs
/// before it pulls, on the host; it never pulls. The CPU's backend is make_cpu_backend's.
std::unique_ptr<backend> make_cpu_product_backend(int threads = 0);
#if OPSPARSE_HAS_GPU_ENGINE
/// Uses the current CUDA device: one context and one plan for every level of every batch.
std::unique_ptr<backend> make_gpu_backend();
#endif

/// The batch size used when none is given: as many rows as keep V under about `budget` entries
/// (backend::batch_budget: 2^24 on the CPU; on the GPU, bits of a bitmap: three of them within
/// a quarter of the free memory) for a graph of n vertices, between
/// 1 and 1024, and never more than the number of sources.
index_t default_batch(index_t n, std::size_t sources, offset_t budget);

struct options {
  index_t batch = 0;         ///< sources per batch; 0: default_batch
  level_t max_depth = -1;    ///< stop after this level; negative: no limit
  bool keep_levels = false;  ///< download V of every batch (batch_result::levels)
  bool symmetric = false;    ///< A is symmetric (undirected), so pulling needs no transpose
  direction dir = direction::automatic;
};

/// What one batch produced.
struct batch_result {
  std::size_t first = 0;                ///< index of its first source in the source list
  std::vector<source_summary> summary;  ///< one per source of the batch, in order
  host_csr<level_t> levels;             ///< V (when options::keep_levels)
  level_t depth = 0;                    ///< levels expanded
  double ms = 0;                        ///< wall time of the batch
  std::string note;                     ///< backend::last_batch_note()
  /// Per level expanded (and the last, empty one): its wall time, nnz of the frontier it made
  /// and backend::last_level_note().
  struct level_stat {
    double ms = 0;
    offset_t frontier = 0;
    const char* how = "";
  };
  std::vector<level_stat> level_stats;
};

/// Searches from every source (vertex numbers in A), batch by batch, handing each batch to
/// `on_batch` as soon as it is done.
void run_batches(backend& be, const host_csr<pattern>& a, const std::vector<index_t>& sources,
                 const options& opt, const std::function<void(const batch_result&)>& on_batch);

/// A tiny search in each direction on `be`: it launches what a real search launches, so that a
/// program can run it on a throwaway backend while it reads the graph (the GPU loads a kernel
/// at its first launch).
void warm_up(backend& be);

/// All batches at once: summaries in source order and, with keep_levels, V of all sources
/// (row r = sources[r]).
struct result {
  std::vector<source_summary> summary;
  host_csr<level_t> levels;
};
result search(backend& be, const host_csr<pattern>& a, const std::vector<index_t>& sources,
              const options& opt);

/// The graph to search: the pattern of `adj` (square), symmetrised when `undirected`, without
/// self-loops (they never change a BFS).
host_csr<pattern> graph_pattern(const host_csr<double>& adj, bool undirected);

/// Maps labels (ids as written in the graph file) to vertex numbers. An id absent from the graph
/// throws std::runtime_error naming it and `graph_name`. Integer ids also match their canonical
/// spelling ("007" finds vertex "7" of an edge list).
std::vector<index_t> resolve_sources(const std::vector<std::string>& ids,
                                     const std::vector<std::string>& labels,
                                     const std::string& graph_name);

/// Ids from a --sources value: the lines of the file it names (blank and '#' lines skipped), or,
/// when no such file exists, a comma-separated list. An empty list or id throws
/// std::invalid_argument naming --sources; an unreadable file or one without ids,
/// std::runtime_error.
std::vector<std::string> parse_sources_argument(const std::string& value);

/// k distinct random vertices of n (std::mt19937_64 seeded with `seed`); k > n throws.
std::vector<index_t> random_sources(index_t n, std::size_t k, std::uint64_t seed);

}  // namespace opsparse::msbfs
