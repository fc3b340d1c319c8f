// apps/mcl's interpretation of the limit matrix (mcl's mclDag + mclInterpret + clmEnstrict +
// revsize sort; see interpret in mcl.hpp).
//
// The interpretation runs in parallel over blocks of nodes (on one thread it took 1.4 s of a
// 6.4 s run at 4 million nodes on the H100 machine, more than half the GPU's iterations). Every
// pass computes per node what the serial algorithm computed, in the same arithmetic, and the
// orders that depend on the work's distribution are made canonical (attractor systems by size
// and smallest node, clusters by revsize), so that the clusters and their order do not depend
// on the thread count. tests/apps/mcl/mcl_reference.hpp is the serial algorithm.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include <omp.h>

#include "mcl.hpp"
#include "opsparse/error.hpp"
#include "node_sets.hpp"
#include "parallel_blocks.hpp"

namespace opsparse::mcl {
namespace {

using detail::concurrent_union_find;
using detail::for_blocks;
using detail::increment;
using detail::node_set;
using detail::parallel_sort;
using detail::prefix_sum;
using detail::union_find;

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

// ------------------------------------------------------------------------------------------------
// Parallel building blocks
// ------------------------------------------------------------------------------------------------

/// f(i) for every i in [0, count), in blocks of interpret_block_nodes on `threads` threads.
template <class F>
void for_blocked_range(std::size_t count, int threads, F&& f) {
  for_blocks((count + interpret_block_nodes - 1) / interpret_block_nodes, threads,
             [&](std::size_t b) {
               const std::size_t i1 = std::min(count, (b + 1) * interpret_block_nodes);
               for (std::size_t i = b * interpret_block_nodes; i < i1; ++i) f(i);
             });
}

/// The nodes 0 .. n-1 cut into blocks of interpret_block_nodes, and the threads that run them.
struct node_blocks {
  index_t n;
  int threads;
  std::size_t count;
  node_blocks(index_t nodes, int t)
      : n(nodes),
        threads(t),
        count((static_cast<std::size_t>(nodes) + interpret_block_nodes - 1) /
              interpret_block_nodes) {}
  /// Block b's nodes [first, second).
  std::pair<index_t, index_t> range(std::size_t b) const {
    const index_t d0 = static_cast<index_t>(b) * interpret_block_nodes;
    return std::make_pair(d0, std::min(n, d0 + interpret_block_nodes));
  }
  /// f(b) for every block b, in parallel.
  template <class F>
  void each(F&& f) const {
    for_blocks(count, threads, std::forward<F>(f));
  }
};

// ------------------------------------------------------------------------------------------------
// 1. The DAG
// ------------------------------------------------------------------------------------------------

/// The DAG of a limit: row d's entries are col[start[d] .. end[d]), within the limit's row d
/// (start is the limit's rpt), so that it is made in one pass. Attractors keep their loop.
struct limit_dag {
  const offset_t* start;
  std::vector<index_t> col;
  std::vector<offset_t> end;
  std::vector<char> attractor;
};

/// Row d of the DAG (mclDag with mcl's interpretation weights 0.999 / 0.001 / delta 0.01):
/// emit(k) for every entry k of the row that it keeps, in order. `thin`: made stochastic and
/// thinned to values >= 1/(n+1) per row, as mclProcess does to the limit (not to the iterands it
/// interprets for -dump cls and dag).
template <class T, class Emit>
void dag_row(const host_csr<T>& limit, index_t d, bool thin, Emit&& emit) {
  double selfval = 0, maxval = 0;
  bool any = false;
  for (offset_t k = limit.rpt[d]; k < limit.rpt[d + 1]; ++k) {
    const double v = static_cast<double>(limit.val[k]);
    if (limit.col[k] == d) selfval = v;
    if (!any || v > maxval) maxval = v;
    any = true;
  }
  const double bar = selfval < maxval ? 0.999 * selfval + 0.001 * maxval : selfval / 1.01;
  if (!thin) {
    for (offset_t k = limit.rpt[d]; k < limit.rpt[d + 1]; ++k)
      if (static_cast<double>(limit.val[k]) >= bar) emit(k);
    return;
  }
  double sum = 0;
  std::size_t kept = 0;
  for (offset_t k = limit.rpt[d]; k < limit.rpt[d + 1]; ++k)
    if (static_cast<double>(limit.val[k]) >= bar) {
      sum += static_cast<double>(limit.val[k]);
      ++kept;
    }
  // Renormalised in T as mcl stores its (float) values, then thinned.
  const double thin_bar = 1.0 / (static_cast<double>(kept) + 1.0);
  for (offset_t k = limit.rpt[d]; k < limit.rpt[d + 1]; ++k) {
    if (!(static_cast<double>(limit.val[k]) >= bar)) continue;
    const T v = sum != 0 ? static_cast<T>(static_cast<double>(limit.val[k]) / sum) : limit.val[k];
    if (static_cast<double>(v) >= thin_bar) emit(k);
  }
}

template <class T>
limit_dag make_dag(const host_csr<T>& limit, const node_blocks& nodes, bool thin) {
  limit_dag dag;
  dag.start = limit.rpt.data();
  dag.col.resize(static_cast<std::size_t>(limit.nnz()));
  dag.end.resize(static_cast<std::size_t>(nodes.n));
  dag.attractor.resize(static_cast<std::size_t>(nodes.n));
  nodes.each([&](std::size_t b) {
    const auto [d0, d1] = nodes.range(b);
    for (index_t d = d0; d < d1; ++d) {
      offset_t at = limit.rpt[d];
      bool loop = false;
      dag_row(limit, d, thin, [&](offset_t k) {
        const index_t c = limit.col[k];
        dag.col[at++] = c;
        loop = loop || c == d;
      });
      dag.end[d] = at;
      dag.attractor[d] = loop;
    }
  });
  return dag;
}

// ------------------------------------------------------------------------------------------------
// 2. Attractor systems
// ------------------------------------------------------------------------------------------------

/// The attractor systems: the connected components of the DAG restricted to attractors, made
/// undirected, numbered in mcl's component order.
struct attractor_systems {
  std::size_t count = 0;
  std::size_t attractors = 0;
  /// Per node, one lookup: an attractor's system s (s >= 0 in a closed system, -2 - s in an open
  /// one), -1 for any other node. A system is open when one of its attractors keeps an entry to
  /// a node that is no attractor (the traversal of step 3 goes on from there).
  std::vector<index_t> code;
  index_t of(index_t v) const {
    const index_t c = code[v];
    return c >= 0 ? c : -2 - c;
  }
};

/// Unites every attractor with the attractors its DAG row keeps; returns the attractors.
std::size_t unite_attractors(const limit_dag& dag, const node_blocks& nodes,
                             concurrent_union_find& uf) {
  std::vector<std::size_t> block_attractors(nodes.count, 0);
  nodes.each([&](std::size_t b) {
    const auto [d0, d1] = nodes.range(b);
    std::size_t attractors = 0;
    for (index_t d = d0; d < d1; ++d) {
      if (!dag.attractor[d]) continue;
      ++attractors;
      for (offset_t k = dag.start[d]; k < dag.end[d]; ++k)
        if (dag.attractor[dag.col[k]]) uf.unite(d, dag.col[k]);
    }
    block_attractors[b] = attractors;
  });
  std::size_t attractors = 0;
  for (const std::size_t a : block_attractors) attractors += a;
  return attractors;
}

/// The systems of the united attractors, each named by its smallest node (the union-find's
/// root), in mcl's component order: clmUGraphComponents sorts by revsize; the cut overlap mode
/// keeps a node in its lowest-numbered cluster, so the order matters. Systems are disjoint, so
/// revsize (size, then member lists) is size, then smallest node: one key each.
attractor_systems number_systems(const limit_dag& dag, const node_blocks& nodes,
                                 concurrent_union_find& uf) {
  const index_t n = nodes.n;
  // root[v]: v's system's smallest node (attractors only); system_size by that node.
  std::vector<index_t> root(static_cast<std::size_t>(n), -1);
  std::vector<index_t> system_size(static_cast<std::size_t>(n), 0);
  std::vector<char> open(static_cast<std::size_t>(n), 0);
  std::vector<std::vector<index_t>> block_roots(nodes.count);
  nodes.each([&](std::size_t b) {
    const auto [d0, d1] = nodes.range(b);
    std::vector<index_t> roots;
    for (index_t v = d0; v < d1; ++v) {
      if (!dag.attractor[v]) continue;
      const index_t r = uf.find(v);
      root[v] = r;
      if (r == v) roots.push_back(v);
      increment(system_size[r], nodes.threads > 1);
      for (offset_t k = dag.start[v]; k < dag.end[v]; ++k)
        if (!dag.attractor[dag.col[k]]) {
#pragma omp atomic write
          open[r] = 1;
          break;
        }
    }
    block_roots[b] = std::move(roots);
  });
  std::vector<std::uint64_t> systems;  // (n - size) << 32 | smallest node, sorted
  for (const auto& r : block_roots)
    for (const index_t v : r)
      systems.push_back(static_cast<std::uint64_t>(n - system_size[v]) << 32 |
                        static_cast<std::uint32_t>(v));
  block_roots = {};
  parallel_sort(systems.begin(), systems.end(), std::less<std::uint64_t>(), nodes.threads);
  std::vector<index_t>& system_of_root = system_size;  // reused: the size is no longer needed
  for_blocked_range(systems.size(), nodes.threads, [&](std::size_t s) {
    system_of_root[static_cast<index_t>(systems[s] & 0xffffffffu)] = static_cast<index_t>(s);
  });
  attractor_systems out;
  out.count = systems.size();
  out.code = std::move(root);  // reused
  nodes.each([&](std::size_t b) {
    const auto [d0, d1] = nodes.range(b);
    for (index_t v = d0; v < d1; ++v) {
      if (!dag.attractor[v]) continue;
      const index_t r = out.code[v];
      const index_t s = system_of_root[r];
      out.code[v] = open[r] ? -2 - s : s;
    }
  });
  return out;
}

// ------------------------------------------------------------------------------------------------
// 3. Memberships
// ------------------------------------------------------------------------------------------------

/// Every node's clusters as one flat list: node d's are member[start[d] .. start[d + 1]),
/// sorted (a vector per node cost 200,000 allocations at 200,000 nodes, a fifth of the
/// interpretation).
struct memberships {
  std::vector<offset_t> start;
  std::vector<index_t> member;
  const index_t* first(index_t d) const { return member.data() + start[d]; }
  const index_t* last(index_t d) const { return member.data() + start[d + 1]; }
};

/// Appends the systems that node d (no attractor) reaches through the DAG to `member`, sorted
/// and distinct. A node that keeps entries only to attractors of closed systems reaches just
/// those systems (most nodes of a converged limit): no traversal.
inline void reach_systems(index_t d, const limit_dag& dag, const attractor_systems& systems,
                          std::vector<index_t>& member, node_set& seen,
                          std::vector<index_t>& stack) {
  const std::size_t first = member.size();
  bool closed = true;
  for (offset_t k = dag.start[d]; k < dag.end[d] && closed; ++k) {
    const index_t c = systems.code[dag.col[k]];
    if (c >= 0)
      member.push_back(c);
    else
      closed = false;
  }
  if (!closed) {
    member.resize(first);
    seen.clear();
    stack.clear();
    for (offset_t k = dag.start[d]; k < dag.end[d]; ++k)
      if (seen.insert(dag.col[k])) stack.push_back(dag.col[k]);
    while (!stack.empty()) {
      const index_t v = stack.back();
      stack.pop_back();
      if (dag.attractor[v]) member.push_back(systems.of(v));
      for (offset_t k = dag.start[v]; k < dag.end[v]; ++k)
        if (seen.insert(dag.col[k])) stack.push_back(dag.col[k]);
    }
  }
  if (member.size() - first > 1) {
    std::sort(member.begin() + static_cast<std::ptrdiff_t>(first), member.end());
    member.erase(std::unique(member.begin() + static_cast<std::ptrdiff_t>(first), member.end()),
                 member.end());
  }
}

/// Every other node joins the systems of all attractors it reaches through the DAG; a node that
/// reaches none is missing: clmEnstrict collects those into one extra cluster, numbered after
/// the systems. Each block of nodes makes its part, then the parts are joined. Adds to
/// out.overlap and out.missing.
memberships find_memberships(const limit_dag& dag, const attractor_systems& systems,
                             const node_blocks& nodes, clustering& out) {
  const index_t missing_cluster = static_cast<index_t>(systems.count);
  memberships m;
  m.start.assign(static_cast<std::size_t>(nodes.n) + 1, 0);
  std::vector<std::vector<index_t>> block_member(nodes.count);
  std::vector<std::size_t> block_overlap(nodes.count, 0), block_missing(nodes.count, 0);
  nodes.each([&](std::size_t b) {
    const auto [d0, d1] = nodes.range(b);
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
      if (dag.attractor[d]) {
        member.push_back(systems.of(d));
      } else {
        reach_systems(d, dag, systems, member, seen, stack);
        if (member.size() == first) {
          member.push_back(missing_cluster);
          ++missing;
        }
      }
      overlap += member.size() - first - 1;
      m.start[static_cast<std::size_t>(d) + 1] = static_cast<offset_t>(member.size() - first);
    }
    block_member[b] = std::move(member);
    block_overlap[b] = overlap;
    block_missing[b] = missing;
  });
  for (std::size_t b = 0; b < nodes.count; ++b) {
    out.overlap += block_overlap[b];
    out.missing += block_missing[b];
  }
  prefix_sum(m.start);
  m.member.resize(static_cast<std::size_t>(m.start.back()));
  nodes.each([&](std::size_t b) {
    std::copy(block_member[b].begin(), block_member[b].end(),
              m.member.begin() + m.start[nodes.range(b).first]);
    block_member[b] = {};
  });
  return m;
}

// ------------------------------------------------------------------------------------------------
// 4. clmEnstrict: overlap is cut, kept or split
// ------------------------------------------------------------------------------------------------

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

/// clm_split_overlap: nodes unique to a cluster form one group; the nodes shared by any two
/// clusters form one group; groups that share a node merge. Serial: overlap is rare. The groups
/// in revsize order.
std::vector<std::vector<index_t>> split_overlap(const memberships& m, index_t n,
                                                index_t n_clusters) {
  union_find g(n);
  std::vector<index_t> unique_rep(static_cast<std::size_t>(n_clusters), -1);
  std::map<std::pair<index_t, index_t>, index_t> meet_rep;
  for (index_t d = 0; d < n; ++d) {
    const index_t* const c = m.first(d);
    const std::ptrdiff_t size = m.last(d) - c;
    if (size == 1) {
      index_t& rep = unique_rep[c[0]];
      if (rep < 0)
        rep = d;
      else
        g.unite(rep, d);
      continue;
    }
    for (std::ptrdiff_t a = 0; a < size; ++a)
      for (std::ptrdiff_t b = a + 1; b < size; ++b) {
        auto it = meet_rep.emplace(std::make_pair(c[a], c[b]), d).first;
        g.unite(it->second, d);
      }
  }
  std::vector<std::vector<index_t>> clusters = classes_of(g);
  std::sort(clusters.begin(), clusters.end(), revsize_less);
  return clusters;
}

/// The clusters' members as one flat list: cluster c's are flat[start[c] .. start[c + 1]), in
/// node order.
struct cluster_lists {
  std::vector<offset_t> start;
  std::vector<index_t> flat;
};

/// The cut or kept clusters, node by node (a counting sort by cluster; a node's memberships
/// are its first one when cut).
cluster_lists cut_or_keep(const memberships& m, bool keep, index_t n_clusters,
                          const node_blocks& nodes) {
  const auto last = [&](index_t d) { return keep ? m.last(d) : m.first(d) + 1; };
  cluster_lists out;
  out.start.assign(static_cast<std::size_t>(n_clusters) + 1, 0);
  nodes.each([&](std::size_t b) {
    const auto [d0, d1] = nodes.range(b);
    for (index_t d = d0; d < d1; ++d) {
      const index_t* const e = last(d);
      for (const index_t* c = m.first(d); c < e; ++c)
        increment(out.start[static_cast<std::size_t>(*c) + 1], nodes.threads > 1);
    }
  });
  prefix_sum(out.start);
  // Every thread fills the clusters of one range of cluster numbers, in node order, scanning
  // all the memberships: no two threads write to the same cluster.
  out.flat.resize(static_cast<std::size_t>(out.start.back()));
  const std::size_t parts = static_cast<std::size_t>(nodes.threads);
  std::vector<index_t> part_start(parts + 1, n_clusters);
  part_start[0] = 0;
  for (std::size_t t = 1; t < parts; ++t) {
    const offset_t want =
        out.start.back() * static_cast<offset_t>(t) / static_cast<offset_t>(parts);
    part_start[t] = static_cast<index_t>(
        std::lower_bound(out.start.begin(), out.start.end(), want) - out.start.begin());
    part_start[t] = std::min(std::max(part_start[t], part_start[t - 1]), n_clusters);
  }
  for_blocks(parts, nodes.threads, [&](std::size_t t) {
    const index_t c0 = part_start[t], c1 = part_start[t + 1];
    if (c0 == c1) return;
    std::vector<offset_t> next(out.start.begin() + c0, out.start.begin() + c1);
    for (index_t d = 0; d < nodes.n; ++d) {
      const index_t* const e = last(d);
      for (const index_t* c = m.first(d); c < e; ++c)
        if (*c >= c0 && *c < c1) out.flat[static_cast<std::size_t>(next[*c - c0]++)] = d;
    }
  });
  return out;
}

/// The non-empty clusters in revsize order (a total order: distinct clusters differ), by a key
/// of size and first member (which decides unless clusters overlap), then their member lists.
std::vector<std::vector<index_t>> revsize_clusters(const cluster_lists& l, index_t n, int threads) {
  const index_t n_clusters = static_cast<index_t>(l.start.size() - 1);
  std::vector<std::pair<std::uint64_t, index_t>> order;  // (key, cluster)
  order.reserve(static_cast<std::size_t>(n_clusters));
  for (index_t c = 0; c < n_clusters; ++c) {
    const offset_t size = l.start[c + 1] - l.start[c];
    if (size == 0) continue;
    order.emplace_back(
        static_cast<std::uint64_t>(n - size) << 32 | static_cast<std::uint32_t>(l.flat[l.start[c]]),
        c);
  }
  parallel_sort(
      order.begin(), order.end(),
      [&](const std::pair<std::uint64_t, index_t>& x, const std::pair<std::uint64_t, index_t>& y) {
        if (x.first != y.first) return x.first < y.first;
        return std::lexicographical_compare(
            l.flat.begin() + l.start[x.second], l.flat.begin() + l.start[x.second + 1],
            l.flat.begin() + l.start[y.second], l.flat.begin() + l.start[y.second + 1]);
      },
      threads);
  std::vector<std::vector<index_t>> clusters(order.size());
  for_blocked_range(order.size(), threads, [&](std::size_t i) {
    const index_t c = order[i].second;
    clusters[i].assign(l.flat.begin() + l.start[c], l.flat.begin() + l.start[c + 1]);
  });
  return clusters;
}

/// interpret() (`iterand` false) or interpret_iterand() (true): the DAG thinned or not, the
/// clusters revsize sorted or in mcl's order.
template <class T>
clustering interpret_as(const host_csr<T>& limit, overlap_mode mode, int threads, bool iterand) {
  OPSPARSE_EXPECTS(limit.rows == limit.cols, "interpret: the limit matrix must be square");
  const index_t n = limit.rows;
  if (threads <= 0) threads = n < interpret_auto_parallel_min_nodes ? 1 : omp_get_max_threads();
  if (n < interpret_parallel_min_nodes) threads = 1;
  const node_blocks nodes(n, threads);
  clustering out;
  const limit_dag dag = make_dag(limit, nodes, !iterand);
  attractor_systems systems;
  {
    concurrent_union_find uf(n, threads);
    out.attractors = unite_attractors(dag, nodes, uf);
    systems = number_systems(dag, nodes, uf);
  }
  const memberships m = find_memberships(dag, systems, nodes, out);
  const index_t n_clusters = static_cast<index_t>(systems.count) + (out.missing ? 1 : 0);
  if (iterand) {
    const cluster_lists l = cut_or_keep(m, true, n_clusters, nodes);
    for (index_t c = 0; c < n_clusters; ++c)
      if (l.start[c + 1] > l.start[c])
        out.clusters.emplace_back(l.flat.begin() + l.start[c], l.flat.begin() + l.start[c + 1]);
    return out;
  }
  if (mode == overlap_mode::split && out.overlap) {
    out.clusters = split_overlap(m, n, n_clusters);
    return out;
  }
  out.clusters =
      revsize_clusters(cut_or_keep(m, mode == overlap_mode::keep, n_clusters, nodes), n, threads);
  return out;
}

}  // namespace

template <class T>
clustering interpret(const host_csr<T>& limit, overlap_mode mode, int threads) {
  return interpret_as(limit, mode, threads, false);
}

template <class T>
clustering interpret_iterand(const host_csr<T>& iterand) {
  return interpret_as(iterand, overlap_mode::keep, 0, true);
}

template <class T>
host_csr<T> iterand_dag(const host_csr<T>& iterand) {
  OPSPARSE_EXPECTS(iterand.rows == iterand.cols, "iterand_dag: the iterand must be square");
  host_csr<T> dag(iterand.rows, iterand.cols);
  for (index_t d = 0; d < iterand.rows; ++d) {
    dag_row(iterand, d, false, [&](offset_t k) {
      dag.col.push_back(iterand.col[k]);
      dag.val.push_back(iterand.val[k]);
    });
    dag.rpt[d + 1] = static_cast<offset_t>(dag.col.size());
  }
  return dag;
}

template clustering interpret<float>(const host_csr<float>&, overlap_mode, int);
template clustering interpret<double>(const host_csr<double>&, overlap_mode, int);
template clustering interpret_iterand<double>(const host_csr<double>&);
template host_csr<double> iterand_dag<double>(const host_csr<double>&);

}  // namespace opsparse::mcl
