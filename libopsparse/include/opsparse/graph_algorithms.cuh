#pragma once
// Graph algorithms built from masked products on the GPU (nvcc): k_truss and jaccard, what
// each computes and from which products is in opsparse/cpu/graph_algorithms.hpp, whose CPU
// twins return exactly what these return (tests/unit/gpu/test_graph_algorithms.cu).
//
// Both take A as the undirected simple graph (symmetric pattern, no loops, rows sorted without
// repeats) and run their products with the GPU engine on the caller's context and plan, over
// (+, pair) with 64-bit counts under a structural mask: the instantiation that triangle counting
// uses (the list spgemm_graph of libopsparse/CMakeLists.txt). The other steps are graph operations
// (graph_ops.cuh). Each call synchronises the context's stream before it returns.
#include <cuda_runtime_api.h>

#include <string>

#include "opsparse/context.hpp"
#include "opsparse/detail/kernels/graph_ops_kernels.cuh"
#include "opsparse/detail/util/launch.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/graph_ops.cuh"
#include "opsparse/mask.hpp"
#include "opsparse/plan.hpp"
#include "opsparse/semiring.hpp"
#include "opsparse/spgemm.hpp"

namespace opsparse {

namespace detail {

/// A matrix's structure seen as a pattern (its values not read).
template <class V>
csr_view<pattern> structure_view(csr_view<V> a) {
  return {a.rows, a.cols, a.nnz, a.rpt, a.col, nullptr};
}

/// A copy of A's structure into `out` (queued on the context's stream).
inline void copy_structure(context& ctx, csr_view<pattern> a, device_csr<pattern>& out) {
  out.set_shape(a.rows, a.cols, ctx.memory());
  out.set_nnz(a.nnz, ctx.memory());
  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(out.rpt(), a.rpt,
                                    (static_cast<std::size_t>(a.rows) + 1) * sizeof(offset_t),
                                    cudaMemcpyDeviceToDevice, ctx.stream()));
  if (a.nnz > 0)
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(out.col(), a.col,
                                      static_cast<std::size_t>(a.nnz) * sizeof(index_t),
                                      cudaMemcpyDeviceToDevice, ctx.stream()));
}

/// I<M> = A·B over (+, pair), 64-bit counts; an empty I without calling the engine when an
/// operand or the mask is empty.
inline void common_counts(context& ctx, plan& p, csr_view<pattern> a, csr_view<pattern> b,
                          csr_view<pattern> m, device_csr<long long>& out) {
  if (a.nnz == 0 || b.nnz == 0 || m.nnz == 0) {
    out.set_shape(a.rows, b.cols, ctx.memory());
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(
        out.rpt(), 0, (static_cast<std::size_t>(a.rows) + 1) * sizeof(offset_t), ctx.stream()));
    out.set_nnz(0, ctx.memory());
    return;
  }
  spgemm<plus_pair<long long>>(ctx, p, a, b, out,
                               make_mask<structural_mask>(m.rows, m.cols, m.rpt, m.col));
}

inline void check_graph(const char* what, csr_view<pattern> a) {
  OPSPARSE_EXPECTS(a.rows == a.cols, std::string(what) + ": A must be square, not " +
                                         std::to_string(a.rows) + "x" + std::to_string(a.cols));
}

}  // namespace detail

/// The k-truss of the undirected simple graph A into `out` (cpu::k_truss): the support
/// S<C> = C·C of the edges C left, the edges with S >= k - 2 kept (select), until none goes.
/// Returns how many products ran.
inline int k_truss(context& ctx, plan& p, csr_view<pattern> a, long long k,
                   device_csr<pattern>& out) {
  detail::check_graph("k_truss", a);
  if (k <= 2) {
    detail::copy_structure(ctx, a, out);
    ctx.synchronize();
    return 0;
  }
  device_csr<long long> support, kept[2];
  csr_view<pattern> cur = a;
  int products = 0;
  for (int t = 0;; t ^= 1) {
    detail::common_counts(ctx, p, cur, cur, cur, support);
    ++products;
    // kept[t] may not be `cur` (which is kept[t ^ 1] or A): the product reads it as its mask
    select(ctx, support.view(), value_at_least{static_cast<double>(k - 2)}, kept[t]);
    const bool done = kept[t].nnz() == cur.nnz;  // kept ⊆ cur: nothing went
    cur = detail::structure_view(kept[t].view());
    if (done) break;
  }
  detail::copy_structure(ctx, cur, out);
  ctx.synchronize();
  return products;
}

/// Jaccard coefficients of the pairs P (rows sorted, no repeats; A's shape) over the undirected
/// simple graph A into `out`, a matrix of P's structure (cpu::jaccard): I<P> = A·A, then each
/// coefficient from I and the degrees (a warp a row of P).
inline void jaccard(context& ctx, plan& p, csr_view<pattern> a, csr_view<pattern> pairs,
                    device_csr<double>& out) {
  using namespace detail;
  check_graph("jaccard", a);
  OPSPARSE_EXPECTS(pairs.rows == a.rows && pairs.cols == a.cols,
                   "jaccard: P is " + std::to_string(pairs.rows) + "x" +
                       std::to_string(pairs.cols) + ", A is " + std::to_string(a.rows) + "x" +
                       std::to_string(a.cols));
  device_csr<long long> inter;
  common_counts(ctx, p, a, a, pairs, inter);
  out.set_shape(pairs.rows, pairs.cols, ctx.memory());
  out.set_nnz(pairs.nnz, ctx.memory());
  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(out.rpt(), pairs.rpt,
                                    (static_cast<std::size_t>(pairs.rows) + 1) * sizeof(offset_t),
                                    cudaMemcpyDeviceToDevice, ctx.stream()));
  if (pairs.nnz > 0) {
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(out.col(), pairs.col,
                                      static_cast<std::size_t>(pairs.nnz) * sizeof(index_t),
                                      cudaMemcpyDeviceToDevice, ctx.stream()));
    jaccard_kernel<<<warp_grid_for(pairs.rows, ops_block), ops_block, 0, ctx.stream()>>>(
        a, pairs, inter.view(), out.val());
    check_launch("jaccard_kernel");
  }
  ctx.synchronize();
}

}  // namespace opsparse
