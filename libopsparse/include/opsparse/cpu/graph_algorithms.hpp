#pragma once
// Graph algorithms built from masked products on host matrices (OpenMP, header-only like the
// CPU engine): the oracle of their GPU twins in opsparse/graph_algorithms.cuh, which return
// exactly what these return.
//
// Both take A as the undirected simple graph: a symmetric pattern without loops, rows sorted
// and free of repeats (cpu::undirected_simple makes it from any square matrix). Row i of A is
// the set N(i) of i's neighbours, so that over the (+, pair) semiring (A·A)(u, v) = |N(u) ∩ N(v)|:
//   k_truss(A, k)     the k-truss (Cohen): the largest subgraph in which every edge lies on at
//                     least k - 2 triangles of the subgraph. The support of every edge is
//                     S<A> = A·A (LAGraph_KTruss); edges with S < k - 2 go, and the product is
//                     taken again on what is left until nothing goes. k <= 2 keeps every edge.
//   jaccard(A, P)     J(u, v) = |N(u) ∩ N(v)| / |N(u) ∪ N(v)| for each position (u, v) of the
//                     pattern P (rows sorted, no repeats), 0 where both sets are empty:
//                     I<P> = A·A gives the intersections, |N(u)| + |N(v)| - I the unions.
//                     The result has P's structure (every requested pair, its 0s too).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "opsparse/cpu/graph_ops.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/graph_ops.hpp"

namespace opsparse::cpu {

namespace graph_algorithms_detail {

/// A's structure as a pattern matrix (its values dropped).
template <class V>
host_csr<pattern> structure_of(host_csr<V>&& a) {
  host_csr<pattern> s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.rpt = std::move(a.rpt);
  s.col = std::move(a.col);
  return s;
}

inline void check_graph(const char* what, const host_csr<pattern>& a) {
  graph_ops_detail::check_shape("A", a);
  OPSPARSE_EXPECTS(a.rows == a.cols, std::string(what) + ": A must be square, not " +
                                         std::to_string(a.rows) + "x" + std::to_string(a.cols));
}

}  // namespace graph_algorithms_detail

/// The k-truss of the undirected simple graph A (see the header): its edges, both directions,
/// as a pattern of A's shape; vertices left without edges have empty rows. `opt` sets the
/// products' threads and accumulator; `iterations`, when given, receives how many products ran.
inline host_csr<pattern> k_truss(const host_csr<pattern>& a, long long k, const options& opt = {},
                                 int* iterations = nullptr) {
  namespace gad = graph_algorithms_detail;
  gad::check_graph("k_truss", a);
  if (iterations) *iterations = 0;
  if (k <= 2) return a;
  const scoped_threads team(opt.threads);
  host_csr<pattern> cur = a;
  for (;;) {
    // support of every edge that lies on a triangle; the others are not in S at all
    const host_csr<long long> support =
        spgemm<plus_pair<long long>>(cur, cur, host_mask<structural_mask>(cur), opt);
    if (iterations) ++*iterations;
    host_csr<long long> kept = select(support, value_at_least{static_cast<double>(k - 2)});
    if (kept.nnz() == cur.nnz()) return cur;  // kept ⊆ cur: nothing went
    cur = gad::structure_of(std::move(kept));
  }
}

/// Jaccard coefficients of the pairs P over the undirected simple graph A (see the header):
/// a matrix of P's structure holding J(u, v) at each of its positions. Throws
/// std::invalid_argument when A is not square or P's shape is not A's.
inline host_csr<double> jaccard(const host_csr<pattern>& a, const host_csr<pattern>& pairs,
                                const options& opt = {}) {
  namespace gad = graph_algorithms_detail;
  gad::check_graph("jaccard", a);
  graph_ops_detail::check_shape("P", pairs);
  OPSPARSE_EXPECTS(pairs.rows == a.rows && pairs.cols == a.cols,
                   "jaccard: P is " + std::to_string(pairs.rows) + "x" +
                       std::to_string(pairs.cols) + ", A is " + std::to_string(a.rows) + "x" +
                       std::to_string(a.cols));
  const scoped_threads team(opt.threads);
  options sorted = opt;
  sorted.sorted = true;  // the merge below walks I's rows beside P's
  const host_csr<long long> inter =
      spgemm<plus_pair<long long>>(a, a, host_mask<structural_mask>(pairs), sorted);
  host_csr<double> j(pairs.rows, pairs.cols);
  j.rpt = pairs.rpt;
  j.col = pairs.col;
  j.val.assign(pairs.col.size(), 0.0);
  const long long n = pairs.rows;
#pragma omp parallel for schedule(dynamic, 1024) if (graph_ops_detail::worth_parallel(pairs))
  for (long long u = 0; u < n; ++u) {
    offset_t q = inter.rpt[u];
    const offset_t qe = inter.rpt[u + 1];
    const offset_t du = a.rpt[u + 1] - a.rpt[u];
    for (offset_t p = pairs.rpt[u]; p < pairs.rpt[u + 1]; ++p) {
      const index_t v = pairs.col[p];
      while (q < qe && inter.col[q] < v) ++q;
      const long long common = q < qe && inter.col[q] == v ? inter.val[q] : 0;
      const long long either = du + (a.rpt[v + 1] - a.rpt[v]) - common;
      j.val[p] = either == 0 ? 0.0 : static_cast<double>(common) / static_cast<double>(either);
    }
  }
  return j;
}

}  // namespace opsparse::cpu
