#pragma once
// Execution spaces: one shape for the library's operations on either engine, so that an
// algorithm is written once, as a template over the space (Kokkos Kernels' handles templated on
// the execution space; GraphBLAS's GrB_mxm over any backend). A space names its matrix and
// vector types and holds the engine's resources; every operation takes the space first, then
// its inputs, then where its result goes (grown as needed, never shrunk):
//
//   upload(sp, host_matrix, out)                  a host matrix into the space
//   stage(sp, host_matrix, buffer)                the matrix as the space reads it: the host
//                                                 matrix itself, or a copy in `buffer`
//   to_host(sp, m)                                a matrix on the host
//   resize(sp, v, n) / zero(sp, v, n) / to_host(sp, v, n)   vectors of (at least) n entries
//   select(sp, a, keep, out)                      the entries keep(i, j, v) keeps
//   degree_order(sp, a, ascending, order)         order[new] = old, stable by row length
//   invert_permutation(sp, order, n, out)         out[order[i]] = i
//   gather(sp, src, idx, n, out)                  out[i] = src[idx[i]]
//   permute(sp, a, order, new_of_old, out)        P·A·Pᵀ, rows sorted again
//   spgemm<S>(sp, a, b, mask, c)                  C<M> = A·B over semiring S (M's structure;
//   spgemm<S, complement_mask>(sp, a, b, mask, c)   C<¬M>: the entries M does not have)
//   ewise_add(sp, a, b, rule, out, disjoint)      the union of A's and B's entries (graph_ops.hpp)
//   row_lengths(sp, b)                            row_length_of B's rows, for reduce over A
//   spgemm_reduce<S>(sp, a, b, mask)              the ⊕ of C<M> = A·B, C never formed
//   reduce<M>(sp, a, f), reduce_rows<M>(sp, a, f, out, accumulate), reduce_cols<M>(...)
//   products(sp) / synchronize(sp)                the last product's multiplications; the
//                                                 space's work finished
//
// cpu_space (here, host compiler) runs them on the CPU engine (cpu/graph_ops.hpp,
// cpu/spgemm.hpp, OpenMP with the space's threads); gpu_space (gpu_space.cuh, nvcc) on the GPU
// engine, with one context and one plan for all its products. Results are the same on both
// (the GPU's graph operations equal their CPU twins: tests/unit/gpu/test_graph_ops.cu).
#include <algorithm>
#include <vector>

#include "opsparse/cpu/graph_ops.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/graph_ops.hpp"
#include "opsparse/mask.hpp"
#include "opsparse/semiring.hpp"

namespace opsparse {

/// The CPU engine as an execution space: host matrices and vectors, `options.threads` OpenMP
/// threads (0: OpenMP's default).
struct cpu_space {
  template <class V>
  using matrix = host_csr<V>;
  template <class T>
  using vector = std::vector<T>;

  cpu::options options;
  offset_t last_products = 0;

  explicit cpu_space(int threads = 0) { options.threads = threads; }
};

template <class V>
void upload(cpu_space&, const host_csr<V>& a, host_csr<V>& out) {
  out = a;
}
template <class V>
const host_csr<V>& stage(cpu_space&, const host_csr<V>& a, host_csr<V>&) {
  return a;
}
template <class V>
host_csr<V> to_host(cpu_space&, const host_csr<V>& a) {
  return a;
}
/// (A CPU vector holds exactly n entries: the operations below take it whole.)
template <class T>
void resize(cpu_space&, std::vector<T>& v, index_t n) {
  v.resize(static_cast<std::size_t>(n));
}
template <class T>
void zero(cpu_space& sp, std::vector<T>& v, index_t n) {
  resize(sp, v, n);
  std::fill(v.begin(), v.begin() + n, T(0));
}
template <class T>
std::vector<T> to_host(cpu_space&, const std::vector<T>& v, index_t n) {
  return std::vector<T>(v.begin(), v.begin() + n);
}

template <class V, class Keep>
void select(cpu_space& sp, const host_csr<V>& a, Keep keep, host_csr<V>& out) {
  const cpu::scoped_threads team(sp.options.threads);
  out = cpu::select(a, keep);
}
template <class V>
void degree_order(cpu_space& sp, const host_csr<V>& a, bool ascending,
                  std::vector<index_t>& order) {
  const cpu::scoped_threads team(sp.options.threads);
  order = cpu::degree_order(a, ascending);
}
inline void invert_permutation(cpu_space& sp, const std::vector<index_t>& order, index_t n,
                               std::vector<index_t>& out) {
  OPSPARSE_EXPECTS(order.size() == static_cast<std::size_t>(n), "invert_permutation: n entries");
  const cpu::scoped_threads team(sp.options.threads);
  out = cpu::invert_permutation(order);
}
template <class T>
void gather(cpu_space& sp, const std::vector<T>& src, const std::vector<index_t>& idx, index_t n,
            std::vector<T>& out) {
  OPSPARSE_EXPECTS(idx.size() == static_cast<std::size_t>(n), "gather: n indices");
  const cpu::scoped_threads team(sp.options.threads);
  out = cpu::gather(src, idx);
}
template <class V>
void permute(cpu_space& sp, const host_csr<V>& a, const std::vector<index_t>& order,
             const std::vector<index_t>& new_of_old, host_csr<V>& out) {
  const cpu::scoped_threads team(sp.options.threads);
  out = cpu::permute(a, order, &new_of_old);
}

/// C<M> = A·B over S with M's structure (Mask: structural_mask, or complement_mask for C<¬M>).
template <class S, class Mask = structural_mask, class VA, class VB, class VM>
void spgemm(cpu_space& sp, const host_csr<VA>& a, const host_csr<VB>& b, const host_csr<VM>& m,
            host_csr<typename S::value_type>& c) {
  c = cpu::spgemm<S>(a, b, cpu::host_mask<Mask>(m), sp.options);
  sp.last_products = cpu::count_products(a, b);
}
/// (The CPU's union finds common entries row by row whether or not `disjoint`.)
template <class VA, class VB, class Rule, class R>
void ewise_add(cpu_space& sp, const host_csr<VA>& a, const host_csr<VB>& b, Rule rule,
               host_csr<R>& out, bool /*disjoint*/ = false) {
  const cpu::scoped_threads team(sp.options.threads);
  out = cpu::ewise_add(a, b, rule);
}
template <class V>
row_length_of row_lengths(const cpu_space&, const host_csr<V>& b) {
  return row_length_of{b.rpt.data()};
}
template <class Monoid, class V, class F>
typename Monoid::value_type reduce(cpu_space& sp, const host_csr<V>& a, F f) {
  const cpu::scoped_threads team(sp.options.threads);
  return cpu::reduce<Monoid>(a, f);
}
/// The ⊕ of C<M> = A·B over S, C never formed (cpu::spgemm_reduce).
template <class S, class VA, class VB, class VM>
typename S::value_type spgemm_reduce(cpu_space& sp, const host_csr<VA>& a, const host_csr<VB>& b,
                                     const host_csr<VM>& m) {
  sp.last_products = cpu::count_products(a, b);
  return cpu::spgemm_reduce<S>(a, b, cpu::host_mask<structural_mask>(m), nullptr, sp.options);
}
template <class Monoid, class V, class F>
void reduce_rows(cpu_space& sp, const host_csr<V>& a, F f,
                 std::vector<typename Monoid::value_type>& out, bool accumulate) {
  const cpu::scoped_threads team(sp.options.threads);
  cpu::reduce_rows<Monoid>(a, f, out, accumulate);
}
template <class Monoid, class V, class F>
void reduce_cols(cpu_space& sp, const host_csr<V>& a, F f,
                 std::vector<typename Monoid::value_type>& out, bool accumulate) {
  const cpu::scoped_threads team(sp.options.threads);
  cpu::reduce_cols<Monoid>(a, f, out, accumulate);
}

inline offset_t products(const cpu_space& sp) { return sp.last_products; }
inline void synchronize(cpu_space&) {}

}  // namespace opsparse
