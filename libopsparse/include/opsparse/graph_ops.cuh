#pragma once
// Graph and matrix operations on the GPU (nvcc): what the apps build their algorithms from,
// besides the product. The vocabulary (predicates, entry functions, monoids, union rules) and
// each operation's meaning are in graph_ops.hpp; the CPU twins, which the tests hold these to,
// in cpu/graph_ops.hpp.
//
// Every operation runs on the context's main stream, grows its result from the context's pool
// (device_csr is grow-only: a loop that reuses its results allocates nothing once warm) and
// takes its scratch from context::workspace(). Operations that return a host value or size
// their result from the device (select, permute, transpose, ewise_add, reduce) read back one
// scalar and so synchronise the stream; the others only queue work.
//
// Preconditions the device cannot check cheaply are the caller's: row_order/col_map entries in
// range, and sorted rows where an operation says so (ewise_add, in_mask's mask).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "opsparse/context.hpp"
#include "opsparse/detail/kernels/graph_ops_kernels.cuh"
#include "opsparse/detail/util/launch.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/graph_ops.hpp"

namespace opsparse {

namespace detail {

constexpr int ops_block = 256;
/// Rows this long on average (entries) are reduced a block a row, or a thread an entry: a warp a
/// row kept too few loads in flight on BFS's 1,024 rows of millions of entries (MS-BFS on R-MAT
/// 22, H100: the warp-a-row reduction of the frontier's out-degrees made the search 12% slower
/// than a kernel of its own that took an entry a thread).
constexpr offset_t long_rows = 1024;

/// Carves one aligned block (context::workspace) into parts, CUB style: sizes first, then the
/// pointers.
class workspace_layout {
 public:
  std::size_t add(std::size_t bytes) {
    const std::size_t at = total_;
    total_ += (bytes + 255) / 256 * 256;
    return at;
  }
  std::size_t total() const noexcept { return total_; }
  template <class T>
  T* at(void* base, std::size_t offset) const {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(base) + offset);
  }

 private:
  std::size_t total_ = 0;
};

/// Reads one device value back through the context's pinned staging (synchronises).
template <class T>
T read_back(context& ctx, const T* d_value) {
  T* h = static_cast<T*>(ctx.pinned(sizeof(T)));
  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(h, d_value, sizeof(T), cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.synchronize();
  return *h;
}

/// rpt[0..rows] (lengths, rpt[rows] = 0) into row pointers in place, queued on the stream.
inline void scan_lengths(context& ctx, offset_t* rpt, index_t rows) {
  const long long items = static_cast<long long>(rows) + 1;
  std::size_t bytes = 0;
  OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, rpt, rpt, items, ctx.stream()));
  OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(ctx.workspace(bytes + 16), bytes, rpt, rpt, items,
                                                  ctx.stream()));
}

/// scan_lengths, then nnz read back (synchronises): for results whose size the host needs.
inline offset_t scan_row_pointers(context& ctx, offset_t* rpt, index_t rows) {
  scan_lengths(ctx, rpt, rows);
  return read_back(ctx, rpt + rows);
}

/// Sorts each row of (col, val) from `in` into `out` (CUB's segmented sort).
template <class V>
void segmented_sort(context& ctx, const offset_t* rpt, index_t rows, offset_t nnz,
                    const index_t* col_in, index_t* col_out, const V* val_in, V* val_out,
                    void* temp, std::size_t& temp_bytes) {
  if constexpr (has_values_v<V>)
    OPSPARSE_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(
        temp, temp_bytes, col_in, col_out, val_in, val_out, nnz, rows, rpt, rpt + 1, ctx.stream()));
  else
    OPSPARSE_CUDA_TRY(cub::DeviceSegmentedSort::SortKeys(temp, temp_bytes, col_in, col_out, nnz,
                                                         rows, rpt, rpt + 1, ctx.stream()));
}

/// Bits that hold every column below `cols` (radix sorts read no more).
inline int key_bits(index_t cols) {
  int bits = 1;
  while (bits < 31 && (index_t{1} << bits) < cols) ++bits;
  return bits;
}

}  // namespace detail

/// Aᵀ into `at`, its rows sorted (A's need not be).
template <class V>
void transpose(context& ctx, csr_view<V> a, device_csr<V>& at) {
  using namespace detail;
  const cudaStream_t s = ctx.stream();
  at.set_shape(a.cols, a.rows, ctx.memory());
  OPSPARSE_CUDA_TRY(
      cudaMemsetAsync(at.rpt(), 0, (static_cast<std::size_t>(a.cols) + 1) * sizeof(offset_t), s));
  at.set_nnz(a.nnz, ctx.memory());
  if (a.nnz == 0) return;
  // The entries sorted by column with a stable radix sort keep their rows in order: Aᵀ's rows
  // come out sorted. Patterns sort the rows themselves; valued matrices sort entry numbers and
  // gather rows and values after.
  const std::size_t n = static_cast<std::size_t>(a.nnz);
  workspace_layout w;
  const std::size_t keys_out = w.add(n * sizeof(index_t)), rows_at = w.add(n * sizeof(index_t));
  const std::size_t perm_in = has_values_v<V> ? w.add(n * sizeof(offset_t)) : 0;
  const std::size_t perm_out = has_values_v<V> ? w.add(n * sizeof(offset_t)) : 0;
  std::size_t sort_bytes = 0;
  const int bits = key_bits(a.cols);
  if constexpr (has_values_v<V>)
    OPSPARSE_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, a.col, (index_t*)nullptr,
                                                      (offset_t*)nullptr, (offset_t*)nullptr, a.nnz,
                                                      0, bits, s));
  else
    OPSPARSE_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, a.col, (index_t*)nullptr,
                                                      (index_t*)nullptr, (index_t*)nullptr, a.nnz,
                                                      0, bits, s));
  const std::size_t temp = w.add(sort_bytes + 16);
  void* base = ctx.workspace(w.total());
  index_t* rows = w.at<index_t>(base, rows_at);
  entry_rows_kernel<<<warp_grid_for(a.rows, ops_block), ops_block, 0, s>>>(a.rows, a.rpt, a.col,
                                                                           rows, at.rpt());
  check_launch("entry_rows_kernel");
  if constexpr (has_values_v<V>) {
    offset_t* in = w.at<offset_t>(base, perm_in);
    offset_t* out = w.at<offset_t>(base, perm_out);
    iota_kernel<<<grid_for(std::min<long long>(a.nnz, 1ll << 24), ops_block), ops_block, 0, s>>>(
        in, a.nnz);
    check_launch("iota_kernel");
    OPSPARSE_CUDA_TRY(cub::DeviceRadixSort::SortPairs(w.at<void>(base, temp), sort_bytes, a.col,
                                                      w.at<index_t>(base, keys_out), in, out, a.nnz,
                                                      0, bits, s));
    transpose_gather_kernel<<<grid_for(a.nnz, ops_block), ops_block, 0, s>>>(
        a.nnz, out, rows, a.val, at.col(), at.val());
    check_launch("transpose_gather_kernel");
  } else {
    OPSPARSE_CUDA_TRY(cub::DeviceRadixSort::SortPairs(w.at<void>(base, temp), sort_bytes, a.col,
                                                      w.at<index_t>(base, keys_out), rows, at.col(),
                                                      a.nnz, 0, bits, s));
  }
  // column counts into row pointers (the workspace is free again: the sort is queued before);
  // nnz(Aᵀ) = nnz(A), so nothing is read back and nothing waits
  scan_lengths(ctx, at.rpt(), a.cols);
}

/// The entries (i, j, v) of A with keep(i, j, v), in their order, into `out`.
template <class V, class Keep>
void select(context& ctx, csr_view<V> a, Keep keep, device_csr<V>& out) {
  using namespace detail;
  const cudaStream_t s = ctx.stream();
  out.set_shape(a.rows, a.cols, ctx.memory());
  OPSPARSE_CUDA_TRY(
      cudaMemsetAsync(out.rpt(), 0, (static_cast<std::size_t>(a.rows) + 1) * sizeof(offset_t), s));
  if (a.rows > 0) {
    select_count_kernel<<<warp_grid_for(a.rows, ops_block), ops_block, 0, s>>>(a, keep, out.rpt());
    check_launch("select_count_kernel");
  }
  out.set_nnz(scan_row_pointers(ctx, out.rpt(), a.rows), ctx.memory());
  if (out.nnz() == 0) return;
  select_fill_kernel<<<warp_grid_for(a.rows, ops_block), ops_block, 0, s>>>(a, keep, out.rpt(),
                                                                            out.col(), out.val());
  check_launch("select_fill_kernel");
}

/// Each row's entries sorted by column, in place.
template <class V>
void sort_rows(context& ctx, device_csr<V>& a) {
  using namespace detail;
  if (a.nnz() == 0) return;
  const std::size_t n = static_cast<std::size_t>(a.nnz());
  workspace_layout w;
  const std::size_t col_at = w.add(n * sizeof(index_t));
  const std::size_t val_at = has_values_v<V> ? w.add(n * sizeof(V)) : 0;
  std::size_t temp_bytes = 0;
  segmented_sort<V>(ctx, a.rpt(), a.rows(), a.nnz(), nullptr, nullptr, nullptr, nullptr, nullptr,
                    temp_bytes);
  const std::size_t temp_at = w.add(temp_bytes + 16);
  void* base = ctx.workspace(w.total());
  index_t* col = w.at<index_t>(base, col_at);
  V* val = has_values_v<V> ? w.at<V>(base, val_at) : nullptr;
  OPSPARSE_CUDA_TRY(
      cudaMemcpyAsync(col, a.col(), n * sizeof(index_t), cudaMemcpyDeviceToDevice, ctx.stream()));
  if constexpr (has_values_v<V>)
    OPSPARSE_CUDA_TRY(
        cudaMemcpyAsync(val, a.val(), n * sizeof(V), cudaMemcpyDeviceToDevice, ctx.stream()));
  segmented_sort<V>(ctx, a.rpt(), a.rows(), a.nnz(), col, a.col(), val, a.val(),
                    w.at<void>(base, temp_at), temp_bytes);
}

/// A's rows sorted by column into `out` (no scratch beyond the sort's own: an iterative app can
/// sort into its spare matrix and swap).
template <class V>
void sort_rows(context& ctx, csr_view<V> a, device_csr<V>& out) {
  using namespace detail;
  out.set_shape(a.rows, a.cols, ctx.memory());
  out.set_nnz(a.nnz, ctx.memory());
  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(out.rpt(), a.rpt,
                                    (static_cast<std::size_t>(a.rows) + 1) * sizeof(offset_t),
                                    cudaMemcpyDeviceToDevice, ctx.stream()));
  if (a.nnz == 0) return;
  std::size_t temp_bytes = 0;
  segmented_sort<V>(ctx, a.rpt, a.rows, a.nnz, nullptr, nullptr, nullptr, nullptr, nullptr,
                    temp_bytes);
  segmented_sort<V>(ctx, a.rpt, a.rows, a.nnz, a.col, out.col(), a.val, out.val(),
                    ctx.workspace(temp_bytes + 16), temp_bytes);
}

/// Row r of `out` is A's row row_order[r] (row_order has `rows` entries); with col_map, column j
/// becomes col_map[j] (col_map has a.cols entries, new columns below `cols`, default a.cols) and
/// every row is sorted again: P·A·Qᵀ.
template <class V>
void permute(context& ctx, csr_view<V> a, index_t rows, const index_t* d_row_order,
             const index_t* d_col_map, device_csr<V>& out, index_t cols = -1) {
  using namespace detail;
  const cudaStream_t s = ctx.stream();
  out.set_shape(rows, cols < 0 ? a.cols : cols, ctx.memory());
  OPSPARSE_CUDA_TRY(
      cudaMemsetAsync(out.rpt(), 0, (static_cast<std::size_t>(rows) + 1) * sizeof(offset_t), s));
  if (rows > 0) {
    permuted_lengths_kernel<<<grid_for(rows, ops_block), ops_block, 0, s>>>(rows, d_row_order,
                                                                            a.rpt, out.rpt());
    check_launch("permuted_lengths_kernel");
  }
  out.set_nnz(scan_row_pointers(ctx, out.rpt(), rows), ctx.memory());
  if (out.nnz() == 0) return;
  if (!d_col_map) {
    permute_fill_kernel<<<warp_grid_for(rows, ops_block), ops_block, 0, s>>>(
        rows, d_row_order, d_col_map, a, out.rpt(), out.col(), out.val());
    check_launch("permute_fill_kernel");
    return;
  }
  // relabelled rows into the workspace, then sorted from there into `out`
  const std::size_t n = static_cast<std::size_t>(out.nnz());
  workspace_layout w;
  const std::size_t col_at = w.add(n * sizeof(index_t));
  const std::size_t val_at = has_values_v<V> ? w.add(n * sizeof(V)) : 0;
  std::size_t temp_bytes = 0;
  segmented_sort<V>(ctx, out.rpt(), rows, out.nnz(), nullptr, nullptr, nullptr, nullptr, nullptr,
                    temp_bytes);
  const std::size_t temp_at = w.add(temp_bytes + 16);
  void* base = ctx.workspace(w.total());
  index_t* col = w.at<index_t>(base, col_at);
  V* val = has_values_v<V> ? w.at<V>(base, val_at) : nullptr;
  permute_fill_kernel<<<warp_grid_for(rows, ops_block), ops_block, 0, s>>>(
      rows, d_row_order, d_col_map, a, out.rpt(), col, val);
  check_launch("permute_fill_kernel");
  segmented_sort<V>(ctx, out.rpt(), rows, out.nnz(), col, out.col(), val, out.val(),
                    w.at<void>(base, temp_at), temp_bytes);
}

/// out[i] = ⊕ over row i of f(i, j, A(i,j)), a.rows entries (accumulate: out[i] ⊕= that).
template <class Monoid, class V, class F>
void reduce_rows(context& ctx, csr_view<V> a, F f, typename Monoid::value_type* d_out,
                 bool accumulate = false) {
  using namespace detail;
  if (a.rows == 0) return;
  if (a.nnz >= long_rows * static_cast<offset_t>(a.rows)) {
    const unsigned grid = static_cast<unsigned>(std::min<long long>(a.rows, 1 << 20));
    reduce_long_rows_kernel<ops_block, Monoid>
        <<<grid, ops_block, 0, ctx.stream()>>>(a, f, d_out, accumulate);
    check_launch("reduce_long_rows_kernel");
    return;
  }
  reduce_rows_kernel<Monoid>
      <<<warp_grid_for(a.rows, ops_block), ops_block, 0, ctx.stream()>>>(a, f, d_out, accumulate);
  check_launch("reduce_rows_kernel");
}

/// out[j] = ⊕ over column j of f(i, j, A(i,j)), a.cols entries (accumulate: out[j] ⊕= that).
/// The order of ⊕ is not fixed: floating-point sums may differ from the CPU's in the last bits.
template <class Monoid, class V, class F>
void reduce_cols(context& ctx, csr_view<V> a, F f, typename Monoid::value_type* d_out,
                 bool accumulate = false) {
  using namespace detail;
  const cudaStream_t s = ctx.stream();
  if (!accumulate && a.cols > 0) {
    fill_kernel<<<grid_for(a.cols, ops_block), ops_block, 0, s>>>(d_out, a.cols,
                                                                  Monoid::identity());
    check_launch("fill_kernel");
  }
  if (a.rows == 0 || a.nnz == 0) return;
  reduce_cols_kernel<Monoid><<<warp_grid_for(a.rows, ops_block), ops_block, 0, s>>>(a, f, d_out);
  check_launch("reduce_cols_kernel");
}

/// ⊕ over all entries of f(i, j, A(i,j)) (synchronises).
template <class Monoid, class V, class F>
typename Monoid::value_type reduce(context& ctx, csr_view<V> a, F f) {
  using namespace detail;
  using T = typename Monoid::value_type;
  T* total = static_cast<T*>(ctx.workspace(sizeof(T)));
  const cudaStream_t s = ctx.stream();
  fill_kernel<<<1, 1, 0, s>>>(total, 1, Monoid::identity());
  check_launch("fill_kernel");
  if (a.rows > 0 && a.nnz > 0) {
    const long long resident = static_cast<long long>(ctx.device().sm_count) *
                               std::max(ctx.device().max_threads_per_sm / ops_block, 1);
    const unsigned grid =
        static_cast<unsigned>(std::min<long long>(warp_grid_for(a.rows, ops_block), resident));
    if (a.nnz >= long_rows * static_cast<offset_t>(a.rows)) {
      const unsigned egrid =
          static_cast<unsigned>(std::min<long long>(grid_for(a.nnz, ops_block), resident));
      reduce_entries_kernel<ops_block, Monoid><<<egrid, ops_block, 0, s>>>(a, f, total);
      check_launch("reduce_entries_kernel");
    } else {
      reduce_all_kernel<ops_block, Monoid><<<grid, ops_block, 0, s>>>(a, f, total);
      check_launch("reduce_all_kernel");
    }
  }
  return read_back(ctx, total);
}

/// A(i,j) ← f(A(i,j)) (nothing for patterns).
template <class V, class F>
void apply(context& ctx, device_csr<V>& a, F f) {
  using namespace detail;
  if constexpr (has_values_v<V>) {
    if (a.nnz() == 0) return;
    const unsigned grid =
        static_cast<unsigned>(std::min<long long>(grid_for(a.nnz(), ops_block), 65535ll * 8));
    apply_kernel<<<grid, ops_block, 0, ctx.stream()>>>(a.val(), a.nnz(), f);
    check_launch("apply_kernel");
  }
}

/// out[i] = Σ_{k ∈ A(i,:)} nnz(B(k,:)): the products of row i of A·B, a.rows entries.
template <class VA, class VB>
void row_products(context& ctx, csr_view<VA> a, csr_view<VB> b, offset_t* d_out) {
  OPSPARSE_EXPECTS(a.cols == b.rows, "row_products: A's columns must be B's rows");
  reduce_rows<plus_monoid<offset_t>>(ctx, a, row_length_of{b.rpt}, d_out);
}

/// The rows by their length (ascending or descending), ties by row index: order[new] = old.
template <class V>
void degree_order(context& ctx, csr_view<V> a, bool ascending, index_t* d_order) {
  using namespace detail;
  if (a.rows == 0) return;
  const cudaStream_t s = ctx.stream();
  const std::size_t n = static_cast<std::size_t>(a.rows);
  workspace_layout w;
  const std::size_t deg_at = w.add(n * sizeof(index_t)), sorted_at = w.add(n * sizeof(index_t));
  const std::size_t iota_at = w.add(n * sizeof(index_t));
  std::size_t bytes = 0;
  const int bits = 8 * static_cast<int>(sizeof(index_t));
  OPSPARSE_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, (index_t*)nullptr,
                                                    (index_t*)nullptr, (index_t*)nullptr, d_order,
                                                    a.rows, 0, bits, s));
  const std::size_t temp_at = w.add(bytes + 16);
  void* base = ctx.workspace(w.total());
  index_t* deg = w.at<index_t>(base, deg_at);
  index_t* iota = w.at<index_t>(base, iota_at);
  lengths_iota_kernel<<<grid_for(a.rows, ops_block), ops_block, 0, s>>>(a.rows, a.rpt, deg, iota);
  check_launch("lengths_iota_kernel");
  // radix sorts are stable, descending ones too: equal lengths keep their index order
  if (ascending)
    OPSPARSE_CUDA_TRY(cub::DeviceRadixSort::SortPairs(w.at<void>(base, temp_at), bytes, deg,
                                                      w.at<index_t>(base, sorted_at), iota, d_order,
                                                      a.rows, 0, bits, s));
  else
    OPSPARSE_CUDA_TRY(cub::DeviceRadixSort::SortPairsDescending(w.at<void>(base, temp_at), bytes,
                                                                deg, w.at<index_t>(base, sorted_at),
                                                                iota, d_order, a.rows, 0, bits, s));
}

/// The rows of A with more than `length` entries, ascending, into d_rows (room for A.rows);
/// returns how many (one readback). E.g. a graph's hubs, for kernels that give them more threads.
template <class V>
index_t rows_longer_than(context& ctx, csr_view<V> a, offset_t length, index_t* d_rows) {
  using namespace detail;
  if (a.rows == 0) return 0;
  const cudaStream_t s = ctx.stream();
  const thrust::counting_iterator<index_t> rows(0);
  const row_longer_than keep{a.rpt, length};
  workspace_layout w;
  const std::size_t count_at = w.add(sizeof(index_t));
  std::size_t bytes = 0;
  OPSPARSE_CUDA_TRY(
      cub::DeviceSelect::If(nullptr, bytes, rows, d_rows, (index_t*)nullptr, a.rows, keep, s));
  const std::size_t temp_at = w.add(bytes + 16);
  void* base = ctx.workspace(w.total());
  index_t* count = w.at<index_t>(base, count_at);
  OPSPARSE_CUDA_TRY(cub::DeviceSelect::If(w.at<void>(base, temp_at), bytes, rows, d_rows, count,
                                          a.rows, keep, s));
  return read_back(ctx, count);
}

/// inverse[order[r]] = r for r < n.
inline void invert_permutation(context& ctx, const index_t* d_order, index_t n,
                               index_t* d_inverse) {
  if (n == 0) return;
  detail::
      invert_kernel<<<detail::grid_for(n, detail::ops_block), detail::ops_block, 0, ctx.stream()>>>(
          n, d_order, d_inverse);
  detail::check_launch("invert_kernel");
}

/// out[i] = src[idx[i]] for i < n (out must not overlap src).
template <class T>
void gather(context& ctx, const T* d_src, const index_t* d_idx, index_t n, T* d_out) {
  if (n == 0) return;
  detail::
      gather_kernel<<<detail::grid_for(n, detail::ops_block), detail::ops_block, 0, ctx.stream()>>>(
          n, d_src, d_idx, d_out);
  detail::check_launch("gather_kernel");
}

/// The union of A's and B's entries (rows of both sorted; the result's come out sorted):
/// rule.both(a, b) where both have an entry, rule.left(a) / rule.right(b) elsewhere (see
/// graph_ops.hpp). `disjoint`: the caller knows that no position is in both (B computed under
/// A's complement, as BFS's frontier is), which saves the pass that finds the common entries.
template <class VA, class VB, class R, class Rule>
void ewise_add(context& ctx, csr_view<VA> a, csr_view<VB> b, Rule rule, device_csr<R>& out,
               bool disjoint = false) {
  using namespace detail;
  OPSPARSE_EXPECTS(a.rows == b.rows && a.cols == b.cols, "ewise_add: A and B must have one shape");
  const cudaStream_t s = ctx.stream();
  offset_t* common = nullptr;
  if (!disjoint && a.nnz > 0 && b.nnz > 0) {
    const long long items = b.nnz + 1;
    std::size_t bytes = 0;
    OPSPARSE_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, (offset_t*)nullptr,
                                                    (offset_t*)nullptr, items, s));
    workspace_layout w;
    const std::size_t flags_at = w.add(static_cast<std::size_t>(items) * sizeof(offset_t));
    const std::size_t temp_at = w.add(bytes + 16);
    void* base = ctx.workspace(w.total());
    common = w.at<offset_t>(base, flags_at);
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(common + b.nnz, 0, sizeof(offset_t), s));
    union_common_kernel<<<grid_for(std::min<long long>(b.nnz, 1ll << 22), ops_block), ops_block, 0,
                          s>>>(a, b, common);
    check_launch("union_common_kernel");
    OPSPARSE_CUDA_TRY(
        cub::DeviceScan::ExclusiveSum(w.at<void>(base, temp_at), bytes, common, common, items, s));
  }
  out.set_shape(a.rows, a.cols, ctx.memory());
  union_rpt_kernel<<<grid_for(static_cast<long long>(a.rows) + 1, ops_block), ops_block, 0, s>>>(
      a, b, common, out.rpt());
  check_launch("union_rpt_kernel");
  // disjoint: the size is known here, and a BFS level saves a readback
  out.set_nnz(disjoint ? a.nnz + b.nnz : read_back(ctx, out.rpt() + a.rows), ctx.memory());
  const long long total = a.nnz + b.nnz;
  if (total == 0) return;
  union_fill_kernel<<<grid_for(std::min<long long>(total, 1ll << 24), ops_block), ops_block, 0,
                      s>>>(a, b, common, rule, out.rpt(), out.col(), out.val());
  check_launch("union_fill_kernel");
}

}  // namespace opsparse
