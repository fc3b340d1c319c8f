#pragma once
// The GPU engine as an execution space (space.hpp has the vocabulary): device matrices and
// buffers, one context (its stream and memory pool) and one plan for every product. The
// operations queue their work on the context's stream; those that return a scalar (reduce,
// spgemm_reduce, to_host) or size a result on the host (select, permute, spgemm) wait for it.
//
// Needs nvcc (the graph operations are device code): include it from a .cu file.
#include <cuda_runtime.h>

#include <vector>

#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/graph_ops.cuh"
#include "opsparse/plan.hpp"
#include "opsparse/space.hpp"
#include "opsparse/spgemm.hpp"
#include "opsparse/spgemm_reduce.hpp"

namespace opsparse {

struct gpu_space {
  template <class V>
  using matrix = device_csr<V>;
  template <class T>
  using vector = device_buffer<T>;

  context ctx;
  opsparse::plan plan;
  offset_t last_products = 0;

  cudaStream_t stream() const { return ctx.stream(); }
};

template <class V>
void upload(gpu_space& sp, const host_csr<V>& a, device_csr<V>& out) {
  out.assign(a, sp.stream());
}
template <class V>
const device_csr<V>& stage(gpu_space& sp, const host_csr<V>& a, device_csr<V>& buffer) {
  buffer.assign(a, sp.stream());
  return buffer;
}
template <class V>
host_csr<V> to_host(gpu_space& sp, const device_csr<V>& a) {
  host_csr<V> h = a.download(sp.stream());
  sp.ctx.synchronize();
  return h;
}
template <class T>
void resize(gpu_space&, device_buffer<T>& v, index_t n) {
  v.reserve(static_cast<std::size_t>(n) + 1);
}
template <class T>
void zero(gpu_space& sp, device_buffer<T>& v, index_t n) {
  resize(sp, v, n);
  if (n > 0)
    OPSPARSE_CUDA_TRY(
        cudaMemsetAsync(v.data(), 0, static_cast<std::size_t>(n) * sizeof(T), sp.stream()));
}
template <class T>
std::vector<T> to_host(gpu_space& sp, const device_buffer<T>& v, index_t n) {
  std::vector<T> host(static_cast<std::size_t>(n));
  if (n > 0)
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(host.data(), v.data(), host.size() * sizeof(T),
                                      cudaMemcpyDeviceToHost, sp.stream()));
  sp.ctx.synchronize();
  return host;
}

template <class V, class Keep>
void select(gpu_space& sp, const device_csr<V>& a, Keep keep, device_csr<V>& out) {
  select(sp.ctx, a.view(), keep, out);
}
template <class V>
void degree_order(gpu_space& sp, const device_csr<V>& a, bool ascending,
                  device_buffer<index_t>& order) {
  resize(sp, order, a.rows());
  if (a.rows() > 0) degree_order(sp.ctx, a.view(), ascending, order.data());
}
inline void invert_permutation(gpu_space& sp, const device_buffer<index_t>& order, index_t n,
                               device_buffer<index_t>& out) {
  resize(sp, out, n);
  if (n > 0) invert_permutation(sp.ctx, order.data(), n, out.data());
}
template <class T>
void gather(gpu_space& sp, const device_buffer<T>& src, const device_buffer<index_t>& idx,
            index_t n, device_buffer<T>& out) {
  resize(sp, out, n);
  if (n > 0) gather(sp.ctx, src.data(), idx.data(), n, out.data());
}
template <class V>
void permute(gpu_space& sp, const device_csr<V>& a, const device_buffer<index_t>& order,
             const device_buffer<index_t>& new_of_old, device_csr<V>& out) {
  permute(sp.ctx, a.view(), a.rows(), order.data(), new_of_old.data(), out);
}

/// C<M> = A·B over S with M's structure (Mask: structural_mask, or complement_mask for C<¬M>).
/// An empty operand (or an empty structural mask) makes an empty C without a launch.
template <class S, class Mask = structural_mask, class VA, class VB, class VM>
void spgemm(gpu_space& sp, const device_csr<VA>& a, const device_csr<VB>& b,
            const device_csr<VM>& m, device_csr<typename S::value_type>& c) {
  const bool empty_mask = Mask::kind == mask_kind::structural && m.nnz() == 0;
  if (a.nnz() == 0 || b.nnz() == 0 || empty_mask) {
    c.set_shape(a.rows(), b.cols());
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(
        c.rpt(), 0, (static_cast<std::size_t>(a.rows()) + 1) * sizeof(offset_t), sp.stream()));
    c.set_nnz(0);
    sp.last_products = 0;
    return;
  }
  spgemm<S>(sp.ctx, sp.plan, a.view(), b.view(), c, device_mask<Mask>(m));
  sp.last_products = sp.plan.stats().products;
}
template <class VA, class VB, class Rule, class R>
void ewise_add(gpu_space& sp, const device_csr<VA>& a, const device_csr<VB>& b, Rule rule,
               device_csr<R>& out, bool disjoint = false) {
  ewise_add(sp.ctx, a.view(), b.view(), rule, out, disjoint);
}
template <class V>
row_length_of row_lengths(const gpu_space&, const device_csr<V>& b) {
  return row_length_of{b.rpt()};
}
/// The ⊕ of C<M> = A·B over S, fused: C is never formed.
template <class S, class VA, class VB, class VM>
typename S::value_type spgemm_reduce(gpu_space& sp, const device_csr<VA>& a,
                                     const device_csr<VB>& b, const device_csr<VM>& m) {
  const auto sum =
      spgemm_reduce<S>(sp.ctx, sp.plan, a.view(), b.view(), device_mask<structural_mask>(m));
  sp.last_products = sp.plan.stats().products;
  return sum;
}
template <class Monoid, class V, class F>
typename Monoid::value_type reduce(gpu_space& sp, const device_csr<V>& a, F f) {
  if (a.nnz() == 0 || a.rows() == 0) return Monoid::identity();
  return reduce<Monoid>(sp.ctx, a.view(), f);
}
template <class Monoid, class V, class F>
void reduce_rows(gpu_space& sp, const device_csr<V>& a, F f,
                 device_buffer<typename Monoid::value_type>& out, bool accumulate) {
  if (a.nnz() == 0 || a.rows() == 0) return;
  reduce_rows<Monoid>(sp.ctx, a.view(), f, out.data(), accumulate);
}
template <class Monoid, class V, class F>
void reduce_cols(gpu_space& sp, const device_csr<V>& a, F f,
                 device_buffer<typename Monoid::value_type>& out, bool accumulate) {
  if (a.nnz() == 0 || a.rows() == 0) return;
  reduce_cols<Monoid>(sp.ctx, a.view(), f, out.data(), accumulate);
}

inline offset_t products(const gpu_space& sp) { return sp.last_products; }
inline void synchronize(gpu_space& sp) { sp.ctx.synchronize(); }

}  // namespace opsparse
