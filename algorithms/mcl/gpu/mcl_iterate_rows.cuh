#pragma once
// Operations of the GPU backend (mcl_gpu.cu) over an iterate's rows: the bound of the next
// iterate's size from the products of each row, and the rows sorted in place block by block.
#include <cub/cub.cuh>

#include <cstddef>
#include <vector>

#include "core/mcl.hpp"
#include "mcl_gpu_kernels.cuh"
#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/graph_ops.cuh"
#include "opsparse/row_blocks.hpp"

namespace opsparse::mcl {

/// min(x, k): a row's kept entries at most, from its products.
struct capped_at {
  offset_t k;
  __host__ __device__ offset_t operator()(offset_t x) const { return x < k ? x : k; }
};

/// The sum of min(counts[i], cap) over i < n (the next iterate's nnz at most when counts are the
/// rows' products and cap the entries a pruned row keeps), through `out` and `temp` (grown).
inline offset_t sum_capped(context& ctx, const offset_t* counts, index_t n, long long cap,
                           device_buffer<offset_t>& out, device_buffer<unsigned char>& temp) {
  const cudaStream_t s = ctx.stream();
  std::size_t bytes = 0;
  const capped_at f{static_cast<offset_t>(cap)};
  OPSPARSE_CUDA_TRY(cub::DeviceReduce::TransformReduce(
      nullptr, bytes, counts, out.data(), static_cast<long long>(n), cuda::std::plus<offset_t>{}, f,
      offset_t{0}, s));
  out.reserve(1, ctx.memory());
  temp.reserve(std::max<std::size_t>(bytes, 1), ctx.memory());
  OPSPARSE_CUDA_TRY(cub::DeviceReduce::TransformReduce(
      temp.data(), bytes, counts, out.data(), static_cast<long long>(n),
      cuda::std::plus<offset_t>{}, f, offset_t{0}, s));
  offset_t* host = static_cast<offset_t*>(ctx.pinned(sizeof(offset_t)));
  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(host, out.data(), sizeof(offset_t), cudaMemcpyDeviceToHost, s));
  OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
  return *host;
}

/// Sorts each row of `m` by column, in blocks of rows of at most `max_entries` entries (a longer
/// row is a block of its own). The scratch buffers grow to a block's size.
template <class T>
void sort_rows_in_blocks(context& ctx, device_csr<T>& m, std::size_t max_entries,
                         device_buffer<offset_t>& segments, device_buffer<index_t>& col,
                         device_buffer<T>& val, device_buffer<unsigned char>& temp) {
  const cudaStream_t s = ctx.stream();
  const index_t n = m.rows();
  std::vector<offset_t> rpt(static_cast<std::size_t>(n) + 1);
  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(rpt.data(), m.rpt(), rpt.size() * sizeof(offset_t),
                                    cudaMemcpyDeviceToHost, s));
  OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
  const std::vector<index_t> blocks = rows_within(rpt, 1, 0, static_cast<double>(max_entries));
  for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
    const index_t r0 = blocks[b], r1 = blocks[b + 1], rows = r1 - r0;
    const offset_t base = rpt[r0], nnz = rpt[r1] - base;
    if (nnz == 0) continue;
    // the block's row pointers counted from its first entry
    segments.reserve(static_cast<std::size_t>(rows) + 1, ctx.memory());
    OPSPARSE_CUDA_TRY(cub::DeviceTransform::Transform(
        m.rpt() + r0, segments.data(), static_cast<long long>(rows) + 1, plus_offset{-base}, s));
    col.reserve(static_cast<std::size_t>(nnz), ctx.memory());
    val.reserve(static_cast<std::size_t>(nnz), ctx.memory());
    std::size_t bytes = 0;
    opsparse::detail::segmented_sort<T>(ctx, segments.data(), rows, nnz, nullptr, nullptr, nullptr,
                                        nullptr, nullptr, bytes);
    temp.reserve(bytes + 16, ctx.memory());
    opsparse::detail::segmented_sort<T>(ctx, segments.data(), rows, nnz, m.col() + base, col.data(),
                                        m.val() + base, val.data(), temp.data(), bytes);
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(m.col() + base, col.data(),
                                      static_cast<std::size_t>(nnz) * sizeof(index_t),
                                      cudaMemcpyDeviceToDevice, s));
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(m.val() + base, val.data(),
                                      static_cast<std::size_t>(nnz) * sizeof(T),
                                      cudaMemcpyDeviceToDevice, s));
  }
}

}  // namespace opsparse::mcl
