#pragma once
// Device CSR matrix: owns its device arrays, move-only, grow-only capacity (reusing a matrix for
// a smaller result allocates nothing), plus a non-owning view that the engines take. Values and
// column indices share one allocation (one cudaMalloc/cudaFree per growth instead of two: each
// costs ~40-50 us of host time on an H200, more than a small product's kernels).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "opsparse/csr.hpp"
#include "opsparse/stream_pool.hpp"
#include "opsparse/error.hpp"
#include "opsparse/types.hpp"

namespace opsparse {

/// Number of device allocations / frees the library has made in this process (all devices;
/// cudaMalloc and stream-ordered pool allocations alike). Tests and apps read it to prove that a
/// warmed-up loop allocates nothing.
std::int64_t device_allocation_count() noexcept;
std::int64_t device_free_count() noexcept;

namespace detail {
/// From `from`'s pool, ordered on its stream (no host synchronisation, microseconds once the
/// pool holds the memory), or with cudaMalloc when `from` is null. Throws cuda_error naming
/// the size.
void* device_allocate(std::size_t bytes, const pool_ref& from = {});
void device_release(void* ptr, const pool_ref& from = {}) noexcept;  // never throws
/// Copies `bytes` from host memory to the device on `stream` and waits for the copy. Large
/// pageable arrays go through pinned staging buffers filled by host threads.
void copy_to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);
/// Copies `bytes` from the device to host memory after the work queued on `stream`, and waits
/// for it. Large pageable destinations are filled from pinned staging buffers by host threads.
void copy_to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);
}  // namespace detail

/// A grow-only device array. reserve() keeps the content only when no reallocation is needed.
/// Memory comes from cudaMalloc, or from a context's pool (reserve(n, ctx.memory())): then it
/// is stream-ordered on the context's main stream, and freeing it waits for nothing.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) { reserve(n); }
  ~device_buffer() { detail::device_release(ptr_, from_); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)),
        cap_(std::exchange(o.cap_, 0)),
        from_(std::move(o.from_)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      detail::device_release(ptr_, from_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      cap_ = std::exchange(o.cap_, 0);
      from_ = std::move(o.from_);
    }
    return *this;
  }
  /// Ensures room for n elements; returns true when it had to allocate.
  bool reserve(std::size_t n, const detail::pool_ref& from = {}) {
    if (n <= cap_) return false;
    T* fresh = static_cast<T*>(detail::device_allocate(n * sizeof(T), from));
    detail::device_release(ptr_, from_);
    ptr_ = fresh;
    cap_ = n;
    from_ = from;
    return true;
  }
  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t capacity() const noexcept { return cap_; }

 private:
  T* ptr_ = nullptr;
  std::size_t cap_ = 0;
  detail::pool_ref from_;  ///< where ptr_ came from (null: cudaMalloc)
};

/// Non-owning view of a device CSR matrix (device pointers). val is null for pattern matrices.
template <class V>
struct csr_view {
  index_t rows = 0;
  index_t cols = 0;
  offset_t nnz = 0;
  const offset_t* rpt = nullptr;
  const index_t* col = nullptr;
  const V* val = nullptr;
};

template <class V>
class device_csr {
 public:
  using value_type = V;
  device_csr() = default;
  device_csr(device_csr&& o) noexcept
      : rows_(std::exchange(o.rows_, 0)),
        cols_(std::exchange(o.cols_, 0)),
        nnz_(std::exchange(o.nnz_, 0)),
        rpt_(std::move(o.rpt_)),
        entries_(std::move(o.entries_)),
        cap_(std::exchange(o.cap_, 0)) {}
  device_csr& operator=(device_csr&& o) noexcept {
    if (this != &o) {
      rows_ = std::exchange(o.rows_, 0);
      cols_ = std::exchange(o.cols_, 0);
      nnz_ = std::exchange(o.nnz_, 0);
      rpt_ = std::move(o.rpt_);
      entries_ = std::move(o.entries_);
      cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
  }
  device_csr(const device_csr&) = delete;
  device_csr& operator=(const device_csr&) = delete;

  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  offset_t nnz() const noexcept { return nnz_; }
  offset_t* rpt() noexcept { return rpt_.data(); }
  index_t* col() noexcept { return reinterpret_cast<index_t*>(entries_.data() + col_offset(cap_)); }
  V* val() noexcept {
    if constexpr (has_values_v<V>)
      return reinterpret_cast<V*>(entries_.data());
    else
      return nullptr;
  }
  const offset_t* rpt() const noexcept { return rpt_.data(); }
  const index_t* col() const noexcept {
    return reinterpret_cast<const index_t*>(entries_.data() + col_offset(cap_));
  }
  const V* val() const noexcept {
    if constexpr (has_values_v<V>)
      return reinterpret_cast<const V*>(entries_.data());
    else
      return nullptr;
  }
  std::size_t nnz_capacity() const noexcept { return cap_; }

  /// Sets the shape and row-pointer capacity (grow-only); nnz becomes 0 until set_nnz. `from`:
  /// where growth allocates (a context's pool, see device_buffer; default cudaMalloc).
  void set_shape(index_t rows, index_t cols, const detail::pool_ref& from = {}) {
    OPSPARSE_EXPECTS(rows >= 0 && cols >= 0, "matrix dimensions must be non-negative");
    rows_ = rows;
    cols_ = cols;
    nnz_ = 0;
    rpt_.reserve(static_cast<std::size_t>(rows) + 1, from);
  }
  /// Sets nnz, growing col/val capacity (content is not preserved on growth).
  void set_nnz(offset_t nnz, const detail::pool_ref& from = {}) {
    OPSPARSE_EXPECTS(nnz >= 0, "nnz must be non-negative");
    nnz_ = nnz;
    const std::size_t n = static_cast<std::size_t>(nnz);
    if (n > cap_) {
      entries_ = device_buffer<unsigned char>();  // the old block goes before the new one comes
      cap_ = 0;
      entries_.reserve(col_offset(n) + n * sizeof(index_t), from);
      cap_ = n;
    }
  }

  /// Sets nnz keeping the entries already there (the first min(old nnz, nnz)): a matrix built
  /// by appending rows block after block. Growth takes half as much again as asked, copies the
  /// kept entries on `stream` and frees the old block after them (from a context's pool, give
  /// its stream: the free is ordered on it).
  void grow_nnz(offset_t nnz, const detail::pool_ref& from = {}, cudaStream_t stream = nullptr) {
    OPSPARSE_EXPECTS(nnz >= 0, "nnz must be non-negative");
    const std::size_t n = static_cast<std::size_t>(nnz);
    const std::size_t keep = static_cast<std::size_t>(std::min(nnz, nnz_));
    if (n > cap_) {
      const std::size_t cap = std::max(n, cap_ + cap_ / 2);
      device_buffer<unsigned char> fresh;
      fresh.reserve(col_offset(cap) + cap * sizeof(index_t), from);
      if (keep > 0) {
        if constexpr (has_values_v<V>)
          OPSPARSE_CUDA_TRY(cudaMemcpyAsync(fresh.data(), entries_.data(), keep * sizeof(V),
                                            cudaMemcpyDeviceToDevice, stream));
        OPSPARSE_CUDA_TRY(
            cudaMemcpyAsync(fresh.data() + col_offset(cap), entries_.data() + col_offset(cap_),
                            keep * sizeof(index_t), cudaMemcpyDeviceToDevice, stream));
      }
      entries_ = std::move(fresh);  // cudaFree (or the pool's ordered free) after the copies
      cap_ = cap;
    }
    nnz_ = nnz;
  }

  csr_view<V> view() const noexcept { return {rows_, cols_, nnz_, rpt(), col(), val()}; }

  /// Copies a host matrix in (stream-ordered; the host arrays must outlive the copy, so this
  /// synchronises `stream` before returning).
  static device_csr upload(const host_csr<V>& h, cudaStream_t stream = nullptr) {
    device_csr d;
    d.assign(h, stream);
    return d;
  }
  void assign(const host_csr<V>& h, cudaStream_t stream = nullptr) {
    set_shape(h.rows, h.cols);
    set_nnz(h.nnz());
    detail::copy_to_device(rpt(), h.rpt.data(), h.rpt.size() * sizeof(offset_t), stream);
    if (nnz_ > 0) {
      detail::copy_to_device(col(), h.col.data(), h.col.size() * sizeof(index_t), stream);
      if constexpr (has_values_v<V>)
        detail::copy_to_device(val(), h.val.data(), h.val.size() * sizeof(V), stream);
    }
  }
  /// Copies the matrix out (synchronises `stream`).
  host_csr<V> download(cudaStream_t stream = nullptr) const {
    host_csr<V> h(rows_, cols_);
    h.col.resize(static_cast<std::size_t>(nnz_));
    if constexpr (has_values_v<V>) h.val.resize(static_cast<std::size_t>(nnz_));
    if (rows_ > 0 || rpt_.capacity() > 0)
      detail::copy_to_host(h.rpt.data(), rpt(), h.rpt.size() * sizeof(offset_t), stream);
    if (nnz_ > 0) {
      detail::copy_to_host(h.col.data(), col(), h.col.size() * sizeof(index_t), stream);
      if constexpr (has_values_v<V>)
        detail::copy_to_host(h.val.data(), val(), h.val.size() * sizeof(V), stream);
    }
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(stream));
    return h;
  }

 private:
  index_t rows_ = 0;
  index_t cols_ = 0;
  offset_t nnz_ = 0;
  /// Values first (V's alignment), then column indices, 256-byte aligned.
  static constexpr std::size_t col_offset(std::size_t cap) noexcept {
    if constexpr (has_values_v<V>)
      return (cap * sizeof(V) + 255) / 256 * 256;
    else
      return 0;
  }

  device_buffer<offset_t> rpt_;
  device_buffer<unsigned char> entries_;  ///< val[cap_] | col[cap_], one allocation
  std::size_t cap_ = 0;                   ///< entries that fit
};

/// Mask views over a device matrix (device pointers), for the GPU engine.
template <class MaskT, class V>
MaskT device_mask(const device_csr<V>& m) {
  MaskT k;
  k.rows = m.rows();
  k.cols = m.cols();
  k.rpt = m.rpt();
  k.col = m.col();
  return k;
}

}  // namespace opsparse
