// Host parts of apps/mcl: parameter checks, mcl's input transformation, the iteration driver,
// the interpretation of the limit matrix and the output.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <numeric>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <omp.h>

#include "mcl.hpp"
#include "opsparse/io.hpp"

namespace opsparse::mcl {

namespace {

/// mcl reads -I and -c into floats (-I 1.4 is 1.39999998 there); using the same values keeps
/// the arithmetic, and so the clusters, identical.
double mcl_float(double x) { return static_cast<double>(static_cast<float>(x)); }

std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

void validate(const params& p) {
  // The ranges mcl's option parser accepts (procinit.c); anything else is refused, not clamped.
  // -I and -c are used as floats (mcl_float), so the float they round to is what is checked:
  // -I 1e-50 passed as a double and inflated with 0.
  if (!(p.inflation > 0.0 && p.inflation <= 30.0))
    throw std::invalid_argument("-I (inflation) must be in (0, 30], not " + num(p.inflation));
  if (!(mcl_float(p.inflation) > 0.0))
    throw std::invalid_argument("-I " + num(p.inflation) +
                                " is 0 in mcl's float arithmetic: inflation must be in (0, 30]");
  if (p.loop_scale >= 0 && !std::isfinite(mcl_float(p.loop_scale)))
    throw std::invalid_argument("-c " + num(p.loop_scale) +
                                " is not finite in mcl's float arithmetic");
  if (p.pre_inflation >= 0 && !std::isfinite(p.pre_inflation))
    throw std::invalid_argument("-pi must be finite");
  if (p.prune < 0) throw std::invalid_argument("-P must be >= 0, not " + std::to_string(p.prune));
  if (p.select < 0) throw std::invalid_argument("-S must be >= 0, not " + std::to_string(p.select));
  if (p.recover < 0)
    throw std::invalid_argument("-R must be >= 0, not " + std::to_string(p.recover));
  if (p.pct < 0 || p.pct >= 100)
    throw std::invalid_argument("-pct must be in [0, 100), not " + std::to_string(p.pct));
  if (p.max_iter < 0)
    throw std::invalid_argument("--max-iter must be >= 0, not " + std::to_string(p.max_iter));
  if (p.threads < 0) throw std::invalid_argument("-te must be >= 0, not " + std::to_string(p.threads));
  if (p.block_products < 0)
    throw std::invalid_argument("--block-products must be >= 0, not " +
                                std::to_string(p.block_products));
  if (!(p.chaos_limit >= 0.0)) throw std::invalid_argument("the chaos limit must be >= 0");
}

void apply_scheme(params& p, int scheme) {
  // mcl's preset resource schemes (--show-schemes): P, S, R, pct.
  static const long long table[7][4] = {{3000, 400, 500, 90},   {4000, 500, 600, 90},
                                        {5000, 600, 700, 90},   {6000, 700, 800, 90},
                                        {7000, 800, 900, 90},   {10000, 1100, 1400, 90},
                                        {10000, 1200, 1600, 90}};
  if (scheme < 1 || scheme > 7)
    throw std::invalid_argument("-scheme must be 1..7, not " + std::to_string(scheme));
  const long long* s = table[scheme - 1];
  p.prune = s[0];
  p.select = s[1];
  p.recover = s[2];
  p.pct = static_cast<int>(s[3]);
}

// ------------------------------------------------------------------------------------------------
// Input transformation (mcl's mclAlgorithmTransform + mclxMakeStochastic)
// ------------------------------------------------------------------------------------------------

host_csr<double> start_matrix(const host_csr<double>& adjacency, const params& p,
                              const std::vector<std::string>* labels) {
  OPSPARSE_EXPECTS(adjacency.rows == adjacency.cols,
                   "the graph's adjacency must be square, not " + std::to_string(adjacency.rows) +
                       "x" + std::to_string(adjacency.cols));
  // mcl mirrors every arc and merges duplicates by their maximum (--abc streaming); a native
  // matrix is taken as it is (p.mirror off), without a copy.
  host_csr<double> mirrored;
  if (p.mirror) mirrored = io::symmetrize_max(adjacency);
  const host_csr<double>& s = p.mirror ? mirrored : adjacency;
  const index_t n = s.rows;
  auto name = [&](index_t v) {
    return labels && static_cast<std::size_t>(v) < labels->size() ? (*labels)[v]
                                                                  : std::to_string(v);
  };
  // -c multiplies the loop's weight (applied in make_row, with the other weights' scaling); a
  // loop it makes zero is no entry.
  const double loop_scale = p.loop_scale >= 0 ? mcl_float(p.loop_scale) : 1.0;
  // Row i's entries: visit(j, w) for every non-zero one in order, the loop included; returns
  // the weight of the loop that the row gets (0: none).
  const auto scan_row = [&](index_t i, auto&& visit) {
    double loop = 0;
    bool has_loop = false, edges = false;
    double heaviest = 0;
    for (offset_t k = s.rpt[i]; k < s.rpt[i + 1]; ++k) {
      const index_t j = s.col[k];
      const double w = s.val[k];
      if (w == 0) continue;  // a zero similarity is no edge (mcl keeps the nodes, not the arc)
      visit(j, w);
      if (j == i) {
        loop = w;
        has_loop = true;
        continue;
      }
      heaviest = std::max(heaviest, w);
      edges = true;
    }
    if (p.discard_loops) {
      // mcl 22-282's default: input loops are dropped, then every node gets a loop as heavy as
      // its heaviest edge (weight 1 for a node without edges).
      loop = edges ? heaviest : 1.0;
      has_loop = true;
    }
    return has_loop && loop != 0 && loop_scale != 0 ? loop : 0.0;
  };
  // Row i of the start matrix into `row` as (column, value), sorted by column.
  const auto make_row = [&](index_t i, std::vector<std::pair<index_t, double>>& row) {
    row.clear();
    const double loop = scan_row(i, [&](index_t j, double w) {
      if (w < 0)
        throw std::invalid_argument("negative weight " + num(w) + " on the edge " + name(i) +
                                    " - " + name(j) +
                                    ": MCL needs non-negative similarities (mcl's result is "
                                    "undefined for negative weights)");
      if (j != i) row.emplace_back(j, w);
    });
    if (loop != 0) {
      const auto at = std::lower_bound(row.begin(), row.end(), i,
                                       [](const auto& e, index_t c) { return e.first < c; });
      row.insert(at, {i, loop});
    }
    // The column's probabilities: -c on the loop, -pi on every weight, then division by the
    // sum. `scale` multiplies the weights first.
    const auto weight = [&](const std::pair<index_t, double>& e, double scale) {
      double w = e.second * scale;
      if (e.first == i) w *= loop_scale;  // -c
      return p.pre_inflation >= 0 ? std::pow(w, p.pre_inflation) : w;  // -pi
    };
    double sum = 0;
    for (const auto& e : row) sum += weight(e, 1.0);
    if (std::isfinite(sum)) {
      if (sum > 0)
        for (auto& e : row) e.second = weight(e, 1.0) / sum;
      return;
    }
    // Weights near the top of double's range (1e308) overflow the sum, and every node landed
    // in one cluster. Divided by the largest weight (with -c applied) first, every weight is at
    // most 1, and so is its power: the probabilities are the same in exact arithmetic.
    double largest = 0;
    for (const auto& e : row) largest = std::max(largest, e.second);
    const double first = 1.0 / largest;  // -c can still make the loop exceed 1
    double top = 0;
    for (const auto& e : row) top = std::max(top, e.second * first * (e.first == i ? loop_scale : 1.0));
    for (auto& e : row) {
      const double w = e.second * first * (e.first == i ? loop_scale : 1.0) / top;
      e.second = p.pre_inflation >= 0 ? std::pow(w, p.pre_inflation) : w;
    }
    sum = 0;
    for (const auto& e : row) sum += e.second;
    if (sum > 0)
      for (auto& e : row) e.second /= sum;
  };

  host_csr<double> out(n, n);
  const int threads = p.threads > 0 ? p.threads : omp_get_max_threads();
  if (threads <= 1 || s.col.size() < (std::size_t(1) << 16)) {
    // One pass, appending.
    out.col.reserve(s.col.size() + static_cast<std::size_t>(n));
    out.val.reserve(s.col.size() + static_cast<std::size_t>(n));
    std::vector<std::pair<index_t, double>> row;
    for (index_t i = 0; i < n; ++i) {
      make_row(i, row);
      for (const auto& e : row) {
        out.col.push_back(e.first);
        out.val.push_back(e.second);
      }
      out.rpt[i + 1] = static_cast<offset_t>(out.col.size());
    }
    return out;
  }
  // In parallel: every row's length, then its entries in place (rows are independent). A row
  // loop rethrows the exception of the lowest row that threw: the one a serial pass would throw.
  const auto for_rows = [&](auto&& f) {
    std::exception_ptr error;
    index_t error_row = n;
#pragma omp parallel num_threads(threads)
    {
      std::vector<std::pair<index_t, double>> row;
#pragma omp for schedule(dynamic, 1024)
      for (index_t i = 0; i < n; ++i) {
        try {
          make_row(i, row);
          f(i, row);
        } catch (...) {
#pragma omp critical(opsparse_mcl_start_matrix)
          if (i < error_row) {
            error_row = i;
            error = std::current_exception();
          }
        }
      }
    }
    if (error) std::rethrow_exception(error);
  };
  // A row's length without making it (making every row twice took half of the time): its
  // non-zero edges and its loop, by make_row's rules (scan_row). A negative weight counts too:
  // make_row throws on it in the second pass.
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads)
  for (index_t i = 0; i < n; ++i) {
    offset_t count = 0;
    const double loop = scan_row(i, [&](index_t j, double) { count += j != i; });
    out.rpt[static_cast<std::size_t>(i) + 1] = count + (loop != 0 ? 1 : 0);
  }
  for (index_t i = 0; i < n; ++i) out.rpt[i + 1] += out.rpt[i];
  out.col.resize(static_cast<std::size_t>(out.rpt.back()));
  out.val.resize(static_cast<std::size_t>(out.rpt.back()));
  for_rows([&](index_t i, const std::vector<std::pair<index_t, double>>& row) {
    std::size_t at = static_cast<std::size_t>(out.rpt[i]);
    OPSPARSE_EXPECTS(at + row.size() == static_cast<std::size_t>(out.rpt[i + 1]),
                     "start_matrix: row " + std::to_string(i) + " counted " +
                         std::to_string(out.rpt[i + 1] - out.rpt[i]) + " entries, made " +
                         std::to_string(row.size()));
    for (const auto& e : row) {
      out.col[at] = e.first;
      out.val[at++] = e.second;
    }
  });
  return out;
}

std::vector<index_t> split_rows_by_products(const std::vector<offset_t>& prefix,
                                            long long max_products) {
  OPSPARSE_EXPECTS(!prefix.empty(), "split_rows_by_products: the prefix needs rows + 1 entries");
  const index_t rows = static_cast<index_t>(prefix.size() - 1);
  std::vector<index_t> b{0};
  if (rows == 0) return b;
  if (max_products <= 0 || prefix.back() <= max_products) {
    b.push_back(rows);
    return b;
  }
  index_t r0 = 0;
  while (r0 < rows) {
    // The last row r such that rows [r0, r) hold at most max_products products; at least one row.
    const offset_t limit = prefix[r0] + max_products;
    index_t r1 = static_cast<index_t>(
        std::upper_bound(prefix.begin() + r0 + 1, prefix.end(), limit) - prefix.begin() - 1);
    if (r1 <= r0) r1 = r0 + 1;
    b.push_back(r1);
    r0 = r1;
  }
  return b;
}

// ------------------------------------------------------------------------------------------------
// The iteration (mcl's mclProcess / doIteration)
// ------------------------------------------------------------------------------------------------

template <class T>
run_result<T> run(backend<T>& b, const host_csr<T>& start, const params& p,
                  const std::function<void(const iteration_info&)>& progress) {
  validate(p);
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  b.load(start);
  const prune_rule rule = p.rule();
  run_result<T> r;
  for (int it = 1; it <= p.max_iter; ++it) {
    const auto t1 = clock::now();
    const std::vector<index_t> blocks = b.expansion_blocks(p.block_products);
    for (std::size_t k = 0; k + 1 < blocks.size(); ++k) {
      b.expand(blocks[k], blocks[k + 1]);
      b.prune_normalise(rule);
    }
    b.finish_expansion();
    // mcl measures chaos during expansion but tests it after the iteration's inflation, so the
    // limit it interprets has been inflated once more.
    const double chaos = b.chaos();
    b.inflate_normalise(mcl_float(p.inflation));
    r.iterations = it;
    if (progress) {
      iteration_info info;
      info.iteration = it;
      info.chaos = chaos;
      info.expanded_nnz = b.expanded_nnz();
      info.nnz = b.nnz();
      info.blocks = blocks.empty() ? 0 : static_cast<int>(blocks.size() - 1);
      info.seconds = std::chrono::duration<double>(clock::now() - t1).count();
      info.stats = b.stats();
      progress(info);
    }
    if (chaos < p.chaos_limit) {
      r.converged = true;
      break;
    }
  }
  r.limit = b.download();
  r.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  r.stats = b.stats();
  return r;
}

template run_result<float> run<float>(backend<float>&, const host_csr<float>&, const params&,
                                      const std::function<void(const iteration_info&)>&);
template run_result<double> run<double>(backend<double>&, const host_csr<double>&, const params&,
                                        const std::function<void(const iteration_info&)>&);

// ------------------------------------------------------------------------------------------------
// Interpretation (mcl's mclDag + mclInterpret + clmEnstrict + revsize sort)
// ------------------------------------------------------------------------------------------------

namespace {

/// Below this many nodes the interpretation runs on one thread: waking a team costs more.
constexpr index_t interpret_parallel_min_nodes = index_t(1) << 15;
/// ... and below this many when the thread count is left to it (threads 0). One thread takes
/// about 12 ms over a 200,000-node limit and two 9 ms; but a pass is a dozen parallel loops, and
/// with one of the two cores busy with another process each loop's barrier waited for a
/// descheduled thread: 130 ms.
constexpr index_t interpret_auto_parallel_min_nodes = index_t(1) << 18;
/// Nodes per block of the parallel passes: small enough for 16 threads to balance on 200,000
/// nodes, large enough that a block's bookkeeping (a vector of memberships) is negligible.
constexpr index_t interpret_block_nodes = index_t(1) << 13;

/// Runs f(b) for every b in [0, blocks) on `threads` OpenMP threads. Only allocations can throw
/// here; the exception of the lowest block that threw is rethrown.
template <class F>
void for_blocks(std::size_t blocks, int threads, F&& f) {
  std::exception_ptr error;
  std::size_t error_block = blocks;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && blocks > 1)
  for (long long b = 0; b < static_cast<long long>(blocks); ++b) {
    try {
      f(static_cast<std::size_t>(b));
    } catch (...) {
#pragma omp critical(opsparse_mcl_for_blocks)
      if (static_cast<std::size_t>(b) < error_block) {
        error_block = static_cast<std::size_t>(b);
        error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

/// std::sort on `threads` threads: slices sorted in parallel, then merged pairwise. The same
/// order as std::sort when `less` is a strict total order (no two elements equivalent), which
/// every use below has.
template <class It, class Less>
void parallel_sort(It first, It last, Less less, int threads) {
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (threads <= 1 || n < (std::size_t(1) << 14)) {
    std::sort(first, last, less);
    return;
  }
  std::size_t parts = 1;
  while (parts < static_cast<std::size_t>(threads) && parts < 64) parts *= 2;
  std::vector<std::size_t> bound(parts + 1);
  for (std::size_t i = 0; i <= parts; ++i) bound[i] = n * i / parts;
  for_blocks(parts, threads, [&](std::size_t i) { std::sort(first + bound[i], first + bound[i + 1], less); });
  for (std::size_t width = 1; width < parts; width *= 2)
    for_blocks(parts / (2 * width), threads, [&](std::size_t j) {
      const std::size_t i = j * 2 * width;
      std::inplace_merge(first + bound[i], first + bound[i + width], first + bound[i + 2 * width], less);
    });
}

/// Union-find that threads may unite in concurrently: a root is always linked below a smaller
/// one (by compare-and-swap), so a parent is never larger than its child, there are no cycles,
/// and find() ends at the smallest node of the class whatever the order of the unions.
class concurrent_union_find {
 public:
  concurrent_union_find(index_t n, int threads) : parent_(new std::atomic<index_t>[static_cast<std::size_t>(n)]) {
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (index_t v = 0; v < n; ++v) parent_[v].store(v, std::memory_order_relaxed);
  }
  index_t find(index_t x) {
    for (;;) {
      index_t p = parent_[x].load(std::memory_order_relaxed);
      if (p == x) return x;
      const index_t g = parent_[p].load(std::memory_order_relaxed);
      if (g != p) parent_[x].compare_exchange_weak(p, g, std::memory_order_relaxed);  // halving
      x = g;
    }
  }
  void unite(index_t a, index_t b) {
    for (;;) {
      a = find(a);
      b = find(b);
      if (a == b) return;
      if (b < a) std::swap(a, b);
      index_t expected = b;
      if (parent_[b].compare_exchange_strong(expected, a, std::memory_order_relaxed)) return;
    }
  }

 private:
  std::unique_ptr<std::atomic<index_t>[]> parent_;
};

/// A small set of nodes for one traversal: open addressing, cleared by the slots it used.
class node_set {
 public:
  node_set() : slot_(64, -1) {}
  /// Whether v was new.
  bool insert(index_t v) {
    if (2 * (used_.size() + 1) > slot_.size()) grow();
    const std::size_t mask = slot_.size() - 1;
    for (std::size_t at = hash(v) & mask;; at = (at + 1) & mask) {
      if (slot_[at] == v) return false;
      if (slot_[at] < 0) {
        slot_[at] = v;
        used_.push_back(at);
        return true;
      }
    }
  }
  void clear() {
    for (const std::size_t at : used_) slot_[at] = -1;
    used_.clear();
  }

 private:
  static std::size_t hash(index_t v) {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(v)) *
                                     0x9e3779b97f4a7c15ULL) >> 32);
  }
  void grow() {
    std::vector<index_t> keys;
    keys.reserve(used_.size());
    for (const std::size_t at : used_) keys.push_back(slot_[at]);
    slot_.assign(slot_.size() * 2, -1);
    used_.clear();
    for (const index_t v : keys) insert(v);
  }
  std::vector<index_t> slot_;
  std::vector<std::size_t> used_;
};

/// Serial union-find for the split overlap mode.
struct union_find {
  std::vector<index_t> parent;
  explicit union_find(index_t n) : parent(static_cast<std::size_t>(n)) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  index_t find(index_t x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }
  void unite(index_t a, index_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent[b] = a;
  }
};

/// mcl's revsize order: more members first, equal sizes by their sorted member lists
/// (mclvSizeRevCmp, which falls back to mclvLexCmp).
bool revsize_less(const std::vector<index_t>& a, const std::vector<index_t>& b) {
  if (a.size() != b.size()) return a.size() > b.size();
  return a < b;
}

/// The split mode's groups (union-find classes, each sorted, in order of their smallest node).
std::vector<std::vector<index_t>> classes_of(union_find& uf) {
  const index_t n = static_cast<index_t>(uf.parent.size());
  std::vector<index_t> id(static_cast<std::size_t>(n), -1);
  std::vector<std::vector<index_t>> out;
  for (index_t v = 0; v < n; ++v) {
    const index_t root = uf.find(v);
    if (id[root] < 0) {
      id[root] = static_cast<index_t>(out.size());
      out.emplace_back();
    }
    out[id[root]].push_back(v);
  }
  return out;
}

/// ++x, atomically when other threads may add to x too (an atomic add costs one thread about
/// 20 cycles: 30 ms over 4 million nodes).
template <class V>
void increment(V& x, bool concurrent) {
  if (concurrent) {
#pragma omp atomic
    ++x;
  } else {
    ++x;
  }
}

/// In-place exclusive prefix sum of counts[1..n] (counts[0] == 0): counts[i] becomes the sum
/// of the counts before i. Serial: a few milliseconds at 4 million nodes.
template <class V>
void prefix_sum(std::vector<V>& counts) {
  for (std::size_t i = 1; i < counts.size(); ++i) counts[i] += counts[i - 1];
}

}  // namespace

// The interpretation runs in parallel over blocks of nodes (on one thread it took 1.4 s of a
// 6.4 s run at 4 million nodes on the H100 machine, more than half the GPU's iterations). Every
// pass computes per node what the serial algorithm computed, in the same arithmetic, and the
// orders that depend on the work's distribution are made canonical (attractor systems by size
// and smallest node, clusters by revsize), so that the clusters and their order do not depend
// on the thread count.
template <class T>
clustering interpret(const host_csr<T>& limit, overlap_mode mode, int threads) {
  OPSPARSE_EXPECTS(limit.rows == limit.cols, "interpret: the limit matrix must be square");
  const index_t n = limit.rows;
  if (threads <= 0) threads = n < interpret_auto_parallel_min_nodes ? 1 : omp_get_max_threads();
  if (n < interpret_parallel_min_nodes) threads = 1;
  const std::size_t blocks =
      (static_cast<std::size_t>(n) + interpret_block_nodes - 1) / interpret_block_nodes;
  const auto block_range = [n](std::size_t b) {
    const index_t d0 = static_cast<index_t>(b) * interpret_block_nodes;
    return std::make_pair(d0, std::min(n, d0 + interpret_block_nodes));
  };

  // 1. The DAG (mclDag with mcl's interpretation weights 0.999 / 0.001 / delta 0.01), made
  //    stochastic and thinned to values >= 1/(n+1) per row (mclProcess does both). emit(c) for
  //    every column c that row d keeps, in order.
  const auto dag_row = [&](index_t d, auto&& emit) {
    double selfval = 0, maxval = 0;
    bool any = false;
    for (offset_t k = limit.rpt[d]; k < limit.rpt[d + 1]; ++k) {
      const double v = static_cast<double>(limit.val[k]);
      if (limit.col[k] == d) selfval = v;
      if (!any || v > maxval) maxval = v;
      any = true;
    }
    const double bar = selfval < maxval ? 0.999 * selfval + 0.001 * maxval : selfval / 1.01;
    double sum = 0;
    std::size_t kept = 0;
    for (offset_t k = limit.rpt[d]; k < limit.rpt[d + 1]; ++k)
      if (static_cast<double>(limit.val[k]) >= bar) {
        sum += static_cast<double>(limit.val[k]);
        ++kept;
      }
    // Renormalised in T as mcl stores its (float) values, then thinned.
    const double thin = 1.0 / (static_cast<double>(kept) + 1.0);
    for (offset_t k = limit.rpt[d]; k < limit.rpt[d + 1]; ++k) {
      if (!(static_cast<double>(limit.val[k]) >= bar)) continue;
      const T v = sum != 0 ? static_cast<T>(static_cast<double>(limit.val[k]) / sum) : limit.val[k];
      if (static_cast<double>(v) >= thin) emit(limit.col[k]);
    }
  };
  // In one pass, each row where the limit's row is (dcol[limit.rpt[d] .. dend[d])): a row of
  // the DAG is part of the limit's. Attractors keep their loop.
  std::vector<index_t> dcol(static_cast<std::size_t>(limit.nnz()));
  std::vector<offset_t> dend(static_cast<std::size_t>(n));
  std::vector<char> attractor(static_cast<std::size_t>(n));
  for_blocks(blocks, threads, [&](std::size_t b) {
    const auto [d0, d1] = block_range(b);
    for (index_t d = d0; d < d1; ++d) {
      offset_t at = limit.rpt[d];
      bool loop = false;
      dag_row(d, [&](index_t c) {
        dcol[at++] = c;
        loop = loop || c == d;
      });
      dend[d] = at;
      attractor[d] = loop;
    }
  });

  // 2. Attractor systems are the connected components of the DAG restricted to attractors,
  //    made undirected. Each is named by its smallest node (the union-find's root).
  clustering out;
  concurrent_union_find uf(n, threads);
  std::vector<std::size_t> block_attractors(blocks, 0);
  for_blocks(blocks, threads, [&](std::size_t b) {
    const auto [d0, d1] = block_range(b);
    std::size_t attractors = 0;
    for (index_t d = d0; d < d1; ++d) {
      if (!attractor[d]) continue;
      ++attractors;
      for (offset_t k = limit.rpt[d]; k < dend[d]; ++k)
        if (attractor[dcol[k]]) uf.unite(d, dcol[k]);
    }
    block_attractors[b] = attractors;
  });
  for (const std::size_t a : block_attractors) out.attractors += a;
  // root[v]: v's system's smallest node (attractors only); system_size by that node. A system
  // is open when one of its attractors keeps an entry to a node that is no attractor (the
  // traversal below goes on from there).
  std::vector<index_t> root(static_cast<std::size_t>(n), -1);
  std::vector<index_t> system_size(static_cast<std::size_t>(n), 0);
  std::vector<char> open(static_cast<std::size_t>(n), 0);
  std::vector<std::vector<index_t>> block_roots(blocks);
  for_blocks(blocks, threads, [&](std::size_t b) {
    const auto [d0, d1] = block_range(b);
    std::vector<index_t> roots;
    for (index_t v = d0; v < d1; ++v) {
      if (!attractor[v]) continue;
      const index_t r = uf.find(v);
      root[v] = r;
      if (r == v) roots.push_back(v);
      increment(system_size[r], threads > 1);
      for (offset_t k = limit.rpt[v]; k < dend[v]; ++k)
        if (!attractor[dcol[k]]) {
#pragma omp atomic write
          open[r] = 1;
          break;
        }
    }
    block_roots[b] = std::move(roots);
  });
  // System ids follow mcl's component order (clmUGraphComponents sorts by revsize); the cut
  // overlap mode keeps a node in its lowest-numbered cluster, so the order matters. Systems are
  // disjoint, so revsize (size, then member lists) is size, then smallest node: one key each.
  std::vector<std::uint64_t> systems;  // (n - size) << 32 | smallest node, sorted
  for (const auto& r : block_roots)
    for (const index_t v : r)
      systems.push_back(static_cast<std::uint64_t>(n - system_size[v]) << 32 |
                        static_cast<std::uint32_t>(v));
  block_roots = {};
  parallel_sort(systems.begin(), systems.end(), std::less<std::uint64_t>(), threads);
  std::vector<index_t>& system_of_root = system_size;  // reused: the size is no longer needed
  for_blocks((systems.size() + interpret_block_nodes - 1) / interpret_block_nodes, threads,
             [&](std::size_t b) {
               const std::size_t s1 = std::min(systems.size(), (b + 1) * interpret_block_nodes);
               for (std::size_t s = b * interpret_block_nodes; s < s1; ++s)
                 system_of_root[static_cast<index_t>(systems[s] & 0xffffffffu)] = static_cast<index_t>(s);
             });
  // Per node, one lookup: an attractor's system s (s >= 0 in a closed system, -2 - s in an open
  // one), -1 for any other node.
  std::vector<index_t>& system_code = root;  // reused
  for_blocks(blocks, threads, [&](std::size_t b) {
    const auto [d0, d1] = block_range(b);
    for (index_t v = d0; v < d1; ++v) {
      if (!attractor[v]) continue;
      const index_t r = root[v];
      const index_t s = system_of_root[r];
      system_code[v] = open[r] ? -2 - s : s;
    }
  });
  open = {};
  const auto system_of = [&](index_t v) {
    const index_t c = system_code[v];
    return c >= 0 ? c : -2 - c;
  };

  // 3. Every other node joins the systems of all attractors it reaches through the DAG; a node
  //    that reaches none is missing: clmEnstrict collects those into one extra cluster, numbered
  //    after the systems. Memberships as one flat list (node d's are member[member_start[d] ..
  //    member_start[d + 1]), sorted): a vector per node cost 200,000 allocations at 200,000
  //    nodes, a fifth of the interpretation. Each block of nodes makes its part, then the parts
  //    are joined. A node that keeps entries only to attractors of closed systems reaches just
  //    those systems (most nodes of a converged limit): no traversal.
  const index_t missing_cluster = static_cast<index_t>(systems.size());
  std::vector<offset_t> member_start(static_cast<std::size_t>(n) + 1, 0);
  std::vector<std::vector<index_t>> block_member(blocks);
  std::vector<std::size_t> block_overlap(blocks, 0), block_missing(blocks, 0);
  for_blocks(blocks, threads, [&](std::size_t b) {
    const auto [d0, d1] = block_range(b);
    // Local until the block is done: the blocks' vectors and counters lie side by side, and
    // writing them node by node from several threads made the pass 2.4 times slower on two
    // threads than on one (false sharing).
    std::vector<index_t> member;
    std::size_t overlap = 0, missing = 0;
    member.reserve(static_cast<std::size_t>(d1 - d0));
    node_set seen;
    std::vector<index_t> stack;
    for (index_t d = d0; d < d1; ++d) {
      const std::size_t first = member.size();
      if (attractor[d]) {
        member.push_back(system_of(d));
      } else {
        bool closed = true;
        for (offset_t k = limit.rpt[d]; k < dend[d] && closed; ++k) {
          const index_t c = system_code[dcol[k]];
          if (c >= 0) member.push_back(c);
          else closed = false;
        }
        if (!closed) {
          member.resize(first);
          seen.clear();
          stack.clear();
          for (offset_t k = limit.rpt[d]; k < dend[d]; ++k)
            if (seen.insert(dcol[k])) stack.push_back(dcol[k]);
          while (!stack.empty()) {
            const index_t v = stack.back();
            stack.pop_back();
            if (attractor[v]) member.push_back(system_of(v));
            for (offset_t k = limit.rpt[v]; k < dend[v]; ++k)
              if (seen.insert(dcol[k])) stack.push_back(dcol[k]);
          }
        }
        if (member.size() - first > 1) {
          std::sort(member.begin() + static_cast<std::ptrdiff_t>(first), member.end());
          member.erase(std::unique(member.begin() + static_cast<std::ptrdiff_t>(first), member.end()),
                       member.end());
        }
        if (member.size() == first) {
          member.push_back(missing_cluster);
          ++missing;
        }
      }
      overlap += member.size() - first - 1;
      member_start[static_cast<std::size_t>(d) + 1] = static_cast<offset_t>(member.size() - first);
    }
    block_member[b] = std::move(member);
    block_overlap[b] = overlap;
    block_missing[b] = missing;
  });
  for (std::size_t b = 0; b < blocks; ++b) {
    out.overlap += block_overlap[b];
    out.missing += block_missing[b];
  }
  prefix_sum(member_start);
  std::vector<index_t> member(static_cast<std::size_t>(member_start.back()));
  for_blocks(blocks, threads, [&](std::size_t b) {
    std::copy(block_member[b].begin(), block_member[b].end(),
              member.begin() + member_start[block_range(b).first]);
    block_member[b] = {};
  });
  const auto first_member = [&](index_t d) { return member.data() + member_start[d]; };
  const auto last_member = [&](index_t d) { return member.data() + member_start[d + 1]; };

  // 4. clmEnstrict: overlap is cut, kept or split.
  const index_t n_clusters = missing_cluster + (out.missing ? 1 : 0);
  if (mode == overlap_mode::split && out.overlap) {
    // clm_split_overlap: nodes unique to a cluster form one group; the nodes shared by any two
    // clusters form one group; groups that share a node merge. (Serial: overlap is rare.)
    union_find g(n);
    std::vector<index_t> unique_rep(static_cast<std::size_t>(n_clusters), -1);
    std::map<std::pair<index_t, index_t>, index_t> meet_rep;
    for (index_t d = 0; d < n; ++d) {
      const index_t* const m = first_member(d);
      const std::ptrdiff_t size = last_member(d) - m;
      if (size == 1) {
        index_t& rep = unique_rep[m[0]];
        if (rep < 0) rep = d;
        else g.unite(rep, d);
        continue;
      }
      for (std::ptrdiff_t a = 0; a < size; ++a)
        for (std::ptrdiff_t b = a + 1; b < size; ++b) {
          auto it = meet_rep.emplace(std::make_pair(m[a], m[b]), d).first;
          g.unite(it->second, d);
        }
    }
    std::vector<std::vector<index_t>> clusters = classes_of(g);
    std::sort(clusters.begin(), clusters.end(), revsize_less);
    out.clusters = std::move(clusters);
    return out;
  }
  // Cut or keep: the clusters' members, node by node, as one flat list (a counting sort by
  // cluster; a node's memberships are its first one when cut).
  const bool keep = mode == overlap_mode::keep;
  std::vector<offset_t> cluster_start(static_cast<std::size_t>(n_clusters) + 1, 0);
  for_blocks(blocks, threads, [&](std::size_t b) {
    const auto [d0, d1] = block_range(b);
    for (index_t d = d0; d < d1; ++d) {
      const index_t* const last = keep ? last_member(d) : first_member(d) + 1;
      for (const index_t* c = first_member(d); c < last; ++c)
        increment(cluster_start[static_cast<std::size_t>(*c) + 1], threads > 1);
    }
  });
  prefix_sum(cluster_start);
  // Every thread fills the clusters of one range of cluster numbers, in node order, scanning
  // all the memberships: no two threads write to the same cluster.
  std::vector<index_t> flat(static_cast<std::size_t>(cluster_start.back()));
  {
    const std::size_t parts = static_cast<std::size_t>(threads);
    std::vector<index_t> part_start(parts + 1, n_clusters);
    part_start[0] = 0;
    for (std::size_t t = 1; t < parts; ++t) {
      const offset_t want = cluster_start.back() * static_cast<offset_t>(t) / static_cast<offset_t>(parts);
      part_start[t] = static_cast<index_t>(
          std::lower_bound(cluster_start.begin(), cluster_start.end(), want) - cluster_start.begin());
      part_start[t] = std::min(std::max(part_start[t], part_start[t - 1]), n_clusters);
    }
    for_blocks(parts, threads, [&](std::size_t t) {
      const index_t c0 = part_start[t], c1 = part_start[t + 1];
      if (c0 == c1) return;
      std::vector<offset_t> next(cluster_start.begin() + c0, cluster_start.begin() + c1);
      for (index_t d = 0; d < n; ++d) {
        const index_t* const last = keep ? last_member(d) : first_member(d) + 1;
        for (const index_t* c = first_member(d); c < last; ++c)
          if (*c >= c0 && *c < c1) flat[static_cast<std::size_t>(next[*c - c0]++)] = d;
      }
    });
  }
  // The non-empty clusters in revsize order (a total order: distinct clusters differ), by a key
  // of size and first member (which decides unless clusters overlap), then their member lists.
  std::vector<std::pair<std::uint64_t, index_t>> order;  // (key, cluster)
  order.reserve(static_cast<std::size_t>(n_clusters));
  for (index_t c = 0; c < n_clusters; ++c) {
    const offset_t size = cluster_start[c + 1] - cluster_start[c];
    if (size == 0) continue;
    order.emplace_back(static_cast<std::uint64_t>(n - size) << 32 |
                           static_cast<std::uint32_t>(flat[cluster_start[c]]),
                       c);
  }
  parallel_sort(
      order.begin(), order.end(),
      [&](const std::pair<std::uint64_t, index_t>& x, const std::pair<std::uint64_t, index_t>& y) {
        if (x.first != y.first) return x.first < y.first;
        return std::lexicographical_compare(
            flat.begin() + cluster_start[x.second], flat.begin() + cluster_start[x.second + 1],
            flat.begin() + cluster_start[y.second], flat.begin() + cluster_start[y.second + 1]);
      },
      threads);
  out.clusters.resize(order.size());
  for_blocks((order.size() + interpret_block_nodes - 1) / interpret_block_nodes, threads,
             [&](std::size_t b) {
               const std::size_t i1 = std::min(order.size(), (b + 1) * interpret_block_nodes);
               for (std::size_t i = b * interpret_block_nodes; i < i1; ++i) {
                 const index_t c = order[i].second;
                 out.clusters[i].assign(flat.begin() + cluster_start[c],
                                        flat.begin() + cluster_start[c + 1]);
               }
             });
  return out;
}

template clustering interpret<float>(const host_csr<float>&, overlap_mode, int);
template clustering interpret<double>(const host_csr<double>&, overlap_mode, int);

void write_clusters(std::ostream& os, const clustering& c, const std::vector<std::string>& labels) {
  io::write_labelled_groups(os, c.clusters, labels);
}

std::string default_output_name(const std::string& input, const params& p) {
  // mcl's make_output_name: "I%.1f", then "pi%.1f" and "c%.1f" when used, dots removed.
  char buf[64];
  std::string suffix;
  std::snprintf(buf, sizeof buf, "I%.1f", p.inflation);
  suffix += buf;
  if (p.pre_inflation >= 0) {
    std::snprintf(buf, sizeof buf, "pi%.1f", p.pre_inflation);
    suffix += buf;
  }
  if (p.loop_scale >= 0) {
    std::snprintf(buf, sizeof buf, "c%.1f", p.loop_scale);
    suffix += buf;
  }
  suffix.erase(std::remove(suffix.begin(), suffix.end(), '.'), suffix.end());
  const std::size_t slash = input.find_last_of('/');
  const std::string base = slash == std::string::npos ? input : input.substr(slash + 1);
  return "out." + base + "." + suffix;
}

// ------------------------------------------------------------------------------------------------
// Convenience
// ------------------------------------------------------------------------------------------------

namespace {

template <class T>
std::unique_ptr<backend<T>> make_backend(const params& p, bool gpu) {
  if (gpu) {
#if OPSPARSE_HAS_GPU_ENGINE
    // OPSPARSE_MCL_FUSED=0 or 1 overrides the automatic choice of the fused expansion (for the
    // benchmark's ablation; the results are the same).
    gpu_backend_options o;
    if (const char* f = std::getenv("OPSPARSE_MCL_FUSED")) {
      if (std::string(f) == "0") o.fused = fused_expansion::never;
      if (std::string(f) == "1") o.fused = fused_expansion::always;
    }
    // OPSPARSE_MCL_FUSED_WINDOW=N caps the fused expansion's windows at N columns (a diagnostic:
    // it reproduces a larger network's windows a row on a smaller one).
    if (const char* w = std::getenv("OPSPARSE_MCL_FUSED_WINDOW")) o.fused_max_window = std::atoi(w);
    return make_gpu_backend<T>(-1, o);
#else
    throw std::runtime_error("this build has no GPU engine (configured with -DOPSPARSE_GPU=OFF)");
#endif
  }
  return make_cpu_backend<T>(p.threads);
}

/// The start matrix in the cell type T: `start` itself for double (no copy), else a copy in
/// `converted` with its values converted on `threads` threads (convert() took 0.2 s on one
/// thread for 44 million entries).
template <class T>
const host_csr<T>& in_cell_type(const host_csr<double>& start, host_csr<T>& converted, int threads) {
  if constexpr (std::is_same_v<T, double>) {
    return start;
  } else {
    converted.rows = start.rows;
    converted.cols = start.cols;
    converted.rpt = start.rpt;
    converted.col = start.col;
    converted.val.resize(start.val.size());
    const long long nnz = static_cast<long long>(start.val.size());
    if (threads <= 0) threads = omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && nnz >= (1 << 16))
    for (long long k = 0; k < nnz; ++k) converted.val[k] = static_cast<T>(start.val[k]);
    return converted;
  }
}

/// Runs `b` on `s` with `p` and interprets the limit; `release` (may be empty) is waited for
/// after the interpretation and its wait reported.
template <class T>
cluster_result run_and_interpret(backend<T>& b, const host_csr<T>& s, const params& p,
                                 const std::function<void(const iteration_info&)>& progress,
                                 const std::function<void()>& release = {}) {
  using clock = std::chrono::steady_clock;
  const auto since = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  run_result<T> r = run(b, s, p, progress);
  // The backend is released on another thread while the limit is interpreted here: a GPU
  // backend returns tens of GB with one cudaFree per array, ~1.4 ms per 4 GB on an H200.
  auto released = std::async(std::launch::async, [&release] {
    if (release) release();
  });
  cluster_result out;
  auto t = clock::now();
  out.result = interpret(r.limit, p.overlap, p.threads);
  out.interpret_seconds = since(t);
  t = clock::now();
  released.get();
  out.release_wait_seconds = since(t);
  out.iterations = r.iterations;
  out.converged = r.converged;
  out.seconds = r.seconds;
  out.stats = r.stats;
  return out;
}

template <class T>
cluster_result cluster_as(const host_csr<double>& start, const params& p, bool gpu,
                          const std::function<void(const iteration_info&)>& progress) {
  const auto t = std::chrono::steady_clock::now();
  std::unique_ptr<backend<T>> b = make_backend<T>(p, gpu);
  host_csr<T> converted;
  const host_csr<T>& s = in_cell_type<T>(start, converted, p.threads);
  const double backend_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  cluster_result out = run_and_interpret<T>(*b, s, p, progress, [&b] { b.reset(); });
  out.backend_seconds = backend_seconds;
  return out;
}

template <class T>
void sweep_as(const host_csr<double>& start, const params& p, const std::vector<double>& inflations,
              bool gpu, const std::function<void(const iteration_info&)>& progress,
              const std::function<void(std::size_t, const cluster_result&)>& done) {
  std::unique_ptr<backend<T>> b = make_backend<T>(p, gpu);
  host_csr<T> converted;
  const host_csr<T>& s = in_cell_type<T>(start, converted, p.threads);
  for (std::size_t k = 0; k < inflations.size(); ++k) {
    params pk = p;
    pk.inflation = inflations[k];
    validate(pk);
    done(k, run_and_interpret<T>(*b, s, pk, progress));
  }
}

}  // namespace

cluster_result cluster(const host_csr<double>& start, const params& p, bool gpu, precision prec,
                       const std::function<void(const iteration_info&)>& progress) {
  return prec == precision::float32 ? cluster_as<float>(start, p, gpu, progress)
                                    : cluster_as<double>(start, p, gpu, progress);
}

void cluster_sweep(const host_csr<double>& start, const params& p,
                   const std::vector<double>& inflations, bool gpu, precision prec,
                   const std::function<void(const iteration_info&)>& progress,
                   const std::function<void(std::size_t, const cluster_result&)>& done) {
  if (prec == precision::float32)
    sweep_as<float>(start, p, inflations, gpu, progress, done);
  else
    sweep_as<double>(start, p, inflations, gpu, progress, done);
}

}  // namespace opsparse::mcl
