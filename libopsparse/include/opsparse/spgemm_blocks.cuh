#pragma once
// Products larger than the device: C = A·B computed in consecutive blocks of A's rows, each cut
// from its rows' products so that the block of C and the engine's scratch fit a device-memory
// budget (beyond A, B and the mask, which the caller holds on the device). Each block is rows
// [r0, r1) of C exactly as the whole product gives them. spgemm_blocks hands the blocks, in
// order, to a consumer on the device; spgemm_to_host gathers them into a host matrix.
// Include from CUDA sources (nvcc); the products are the engine's (spgemm.hpp: the semiring,
// value and mask combinations instantiated there).
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "opsparse/device_csr.hpp"
#include "opsparse/graph_ops.cuh"
#include "opsparse/row_blocks.hpp"
#include "opsparse/spgemm.hpp"

namespace opsparse {

/// What a block of C is estimated to take: each product at most one entry of C (its column and
/// value); each row C's row pointer and the engine's per-row scratch (products, bins, flags);
/// the engine's hash pools for rows too long for shared memory (at most 1 GiB a phase) are held
/// back from the budget first: a quarter of it, at most 2 GiB.
template <class T>
struct spgemm_block_costs {
  static constexpr double per_product =
      static_cast<double>(sizeof(index_t) + (has_values_v<T> ? sizeof(T) : 0));
  static constexpr double per_row = 64;
  static double rows_budget(std::size_t device_bytes) {
    const std::size_t pools = std::min<std::size_t>(device_bytes / 4, std::size_t{2} << 30);
    return static_cast<double>(device_bytes - pools);
  }
};

/// The first rows of the blocks spgemm_blocks would compute A·B in within `device_bytes`, then
/// a.rows (blocks + 1 values; {0, a.rows} when the whole product fits). Synchronises ctx's
/// stream (the products per row are read on the host). A row that alone needs more than the
/// budget is std::invalid_argument, naming it and what it needs.
template <class T, class VA, class VB>
std::vector<index_t> spgemm_row_blocks(context& ctx, const csr_view<VA>& a, const csr_view<VB>& b,
                                       std::size_t device_bytes) {
  OPSPARSE_EXPECTS(a.cols == b.rows, "spgemm_blocks: A's columns must be B's rows");
  OPSPARSE_EXPECTS(device_bytes > 0, "spgemm_blocks: the device-memory budget must be positive");
  const std::size_t n = static_cast<std::size_t>(a.rows);
  std::vector<offset_t> prefix(n + 1, 0);
  if (n > 0) {
    const cudaStream_t s = ctx.stream();
    device_buffer<offset_t> per_row;
    per_row.reserve(n + 1, ctx.memory());
    row_products(ctx, a, b, per_row.data());
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(per_row.data() + n, 0, sizeof(offset_t), s));
    detail::scan_lengths(ctx, per_row.data(), a.rows);
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(prefix.data(), per_row.data(),
                                      prefix.size() * sizeof(offset_t), cudaMemcpyDeviceToHost, s));
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
  }
  using costs = spgemm_block_costs<T>;
  const double budget = costs::rows_budget(device_bytes);
  std::vector<index_t> first = rows_within(prefix, costs::per_product, costs::per_row, budget);
  for (std::size_t k = 0; k + 1 < first.size(); ++k) {
    if (first[k + 1] - first[k] != 1) continue;
    const std::size_t r = static_cast<std::size_t>(first[k]);
    const double need =
        static_cast<double>(prefix[r + 1] - prefix[r]) * costs::per_product + costs::per_row;
    if (need > budget)
      throw std::invalid_argument(
          "spgemm_blocks: row " + std::to_string(r) + " of A·B alone needs about " +
          std::to_string(static_cast<long long>(need)) + " bytes (" +
          std::to_string(prefix[r + 1] - prefix[r]) + " products), more than the " +
          std::to_string(static_cast<long long>(budget)) + " a block may take of the " +
          std::to_string(device_bytes) + " given");
  }
  return first;
}

/// C = A·B (or C<M>, C<¬M>) in blocks of A's rows within `device_bytes` of device memory
/// (spgemm_row_blocks); for each block, in order, `consume(first_row, block)` with block the
/// rows [first_row, first_row + block.rows()) of C on ctx's device, complete (ctx's stream
/// synchronised) and valid until consume returns: the next block reuses its memory. The same
/// entries and values as spgemm() of the whole; `p` and `opt` as there. Returns the number of
/// blocks.
template <class Semiring, class VA, class VB, class Mask = no_mask, class Consume>
std::size_t spgemm_blocks(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
                          std::size_t device_bytes, Consume&& consume, const Mask& mask = {},
                          const spgemm_options& opt = {}) {
  using T = typename Semiring::value_type;
  if constexpr (Mask::kind != mask_kind::none)
    OPSPARSE_EXPECTS(mask.rows == a.rows && mask.cols == b.cols,
                     "spgemm_blocks: the mask must have C's dimensions");
  const std::vector<index_t> first = spgemm_row_blocks<T>(ctx, a, b, device_bytes);
  device_csr<T> c;
  for (std::size_t k = 0; k + 1 < first.size(); ++k) {
    const index_t r0 = first[k], r1 = first[k + 1];
    // The engine indexes columns by absolute row pointers: a block is the row pointers from r0.
    csr_view<VA> rows = a;
    rows.rows = r1 - r0;
    rows.rpt = a.rpt + r0;
    Mask m = mask;
    if constexpr (Mask::kind != mask_kind::none) {
      m.rows = r1 - r0;
      m.rpt = mask.rpt + r0;
    }
    spgemm<Semiring, VA, VB, Mask>(ctx, p, rows, b, c, m, opt);
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(ctx.stream()));
    consume(r0, c);
  }
  return first.size() - 1;
}

/// C = A·B (or C<M>, C<¬M>) gathered on the host, computed in blocks within `device_bytes` of
/// device memory as spgemm_blocks does: for results larger than the device.
template <class Semiring, class VA, class VB, class Mask = no_mask>
host_csr<typename Semiring::value_type> spgemm_to_host(context& ctx, plan& p, const csr_view<VA>& a,
                                                       const csr_view<VB>& b,
                                                       std::size_t device_bytes,
                                                       const Mask& mask = {},
                                                       const spgemm_options& opt = {}) {
  using T = typename Semiring::value_type;
  host_csr<T> out(a.rows, b.cols);
  const cudaStream_t s = ctx.stream();
  spgemm_blocks<Semiring>(
      ctx, p, a, b, device_bytes,
      [&](index_t r0, const device_csr<T>& block) {
        const std::size_t rows = static_cast<std::size_t>(block.rows());
        const std::size_t at = out.col.size(), nnz = static_cast<std::size_t>(block.nnz());
        OPSPARSE_CUDA_TRY(cudaMemcpyAsync(out.rpt.data() + r0, block.rpt(),
                                          (rows + 1) * sizeof(offset_t), cudaMemcpyDeviceToHost,
                                          s));
        out.col.resize(at + nnz);
        if constexpr (has_values_v<T>) out.val.resize(at + nnz);
        if (nnz > 0) {
          OPSPARSE_CUDA_TRY(cudaMemcpyAsync(out.col.data() + at, block.col(), nnz * sizeof(index_t),
                                            cudaMemcpyDeviceToHost, s));
          if constexpr (has_values_v<T>)
            OPSPARSE_CUDA_TRY(cudaMemcpyAsync(out.val.data() + at, block.val(), nnz * sizeof(T),
                                              cudaMemcpyDeviceToHost, s));
        }
        OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
        // the block's row pointers start at 0: shifted by the entries before it
        for (std::size_t i = 0; i <= rows; ++i)
          out.rpt[static_cast<std::size_t>(r0) + i] += static_cast<offset_t>(at);
      },
      mask, opt);
  return out;
}

}  // namespace opsparse
