#pragma once
// Where the GPU backend (mcl_gpu.cu) assembles the next iterate, block after block: on the
// device, or (streamed) in pinned host memory when it does not fit beside the current one.
//
// streamed_iterate: the next iterate in pinned host memory. Each pruned
// row block is compacted into one of two device buffers and copied to the host behind the
// compute stream, on a stream of its own, while the next block is expanded; the host arrays are
// pinned chunks, allocated on first use and kept for the iterations after (an iterate of 4M
// nodes takes tens of GB: pinning them anew every iteration would cost seconds each time). After
// the last block the whole iterate is uploaded in place of the current one, which was freed
// first: the device then never holds two iterates at once.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/types.hpp"

namespace opsparse::mcl {

template <class T>
class streamed_iterate {
 public:
  /// Entries a pinned chunk holds (2^26: 256 MiB of columns and as much of float values).
  static constexpr std::size_t chunk_entries = std::size_t(1) << 26;

  streamed_iterate() = default;
  ~streamed_iterate() {
    for (auto& e : written_)
      if (e) OPSPARSE_CUDA_TRY_NO_THROW(cudaEventDestroy(e));
    for (auto& e : copied_)
      if (e) OPSPARSE_CUDA_TRY_NO_THROW(cudaEventDestroy(e));
    if (copy_) OPSPARSE_CUDA_TRY_NO_THROW(cudaStreamSynchronize(copy_));
    for (index_t* p : host_col_) OPSPARSE_CUDA_TRY_NO_THROW(cudaFreeHost(p));
    for (T* p : host_val_) OPSPARSE_CUDA_TRY_NO_THROW(cudaFreeHost(p));
    if (copy_) OPSPARSE_CUDA_TRY_NO_THROW(cudaStreamDestroy(copy_));
  }
  streamed_iterate(const streamed_iterate&) = delete;
  streamed_iterate& operator=(const streamed_iterate&) = delete;

  /// Starts a new iterate (no entries yet).
  void begin() {
    if (!copy_) {
      OPSPARSE_CUDA_TRY(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
      for (auto& e : written_)
        OPSPARSE_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      for (auto& e : copied_) {
        OPSPARSE_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        OPSPARSE_CUDA_TRY(cudaEventRecord(e, copy_));  // nothing to wait for yet
      }
    }
    total_ = 0;
  }

  /// Entries appended so far: where the next block's entries start in the whole iterate.
  offset_t total() const noexcept { return total_; }

  struct block_arrays {
    index_t* col;
    T* val;
  };
  /// Device room for the next block's `kept` entries: `compute` first waits until the block that
  /// last used these buffers has been copied out (their growth is then ordered after it too).
  block_arrays next_block(offset_t kept, const opsparse::detail::pool_ref& pool,
                          cudaStream_t compute) {
    OPSPARSE_CUDA_TRY(cudaStreamWaitEvent(compute, copied_[turn_], 0));
    const std::size_t n = std::max<std::size_t>(1, static_cast<std::size_t>(kept));
    col_[turn_].reserve(n, pool);
    val_[turn_].reserve(n, pool);
    ensure_host(static_cast<std::size_t>(total_) + static_cast<std::size_t>(kept));
    return {col_[turn_].data(), val_[turn_].data()};
  }

  /// The block of `kept` entries just written to next_block()'s arrays on `compute`: copied to
  /// the host behind it; the other buffers take the next block.
  void commit(offset_t kept, cudaStream_t compute) {
    OPSPARSE_CUDA_TRY(cudaEventRecord(written_[turn_], compute));
    OPSPARSE_CUDA_TRY(cudaStreamWaitEvent(copy_, written_[turn_], 0));
    for_pieces(
        total_, kept, [&](std::size_t chunk, std::size_t at, std::size_t from, std::size_t n) {
          OPSPARSE_CUDA_TRY(cudaMemcpyAsync(host_col_[chunk] + at, col_[turn_].data() + from,
                                            n * sizeof(index_t), cudaMemcpyDeviceToHost, copy_));
          OPSPARSE_CUDA_TRY(cudaMemcpyAsync(host_val_[chunk] + at, val_[turn_].data() + from,
                                            n * sizeof(T), cudaMemcpyDeviceToHost, copy_));
        });
    OPSPARSE_CUDA_TRY(cudaEventRecord(copied_[turn_], copy_));
    total_ += kept;
    turn_ ^= 1;
  }

  /// After the last block: the whole iterate (total() entries) uploaded to `col` and `val` on
  /// `compute`, behind every copy out.
  void upload(index_t* col, T* val, cudaStream_t compute) {
    for (cudaEvent_t e : copied_) OPSPARSE_CUDA_TRY(cudaStreamWaitEvent(compute, e, 0));
    for_pieces(0, total_, [&](std::size_t chunk, std::size_t at, std::size_t from, std::size_t n) {
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(col + from, host_col_[chunk] + at, n * sizeof(index_t),
                                        cudaMemcpyHostToDevice, compute));
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(val + from, host_val_[chunk] + at, n * sizeof(T),
                                        cudaMemcpyHostToDevice, compute));
    });
  }

  /// Device bytes of the two block buffers (the expansion may reuse them).
  std::size_t device_bytes() const noexcept {
    std::size_t b = 0;
    for (int i = 0; i < 2; ++i)
      b += col_[i].capacity() * sizeof(index_t) + val_[i].capacity() * sizeof(T);
    return b;
  }
  /// Frees the block buffers (ordered on their pool's stream, behind the copies `compute` waited
  /// for in next_block()): before the whole iterate is uploaded.
  void release_device(cudaStream_t compute) {
    for (cudaEvent_t e : copied_) OPSPARSE_CUDA_TRY(cudaStreamWaitEvent(compute, e, 0));
    for (int i = 0; i < 2; ++i) {
      col_[i] = device_buffer<index_t>();
      val_[i] = device_buffer<T>();
    }
  }
  /// Pinned host bytes held.
  std::size_t host_bytes() const noexcept {
    return host_col_.size() * chunk_entries * (sizeof(index_t) + sizeof(T));
  }

 private:
  /// Calls f(chunk, offset in chunk, offset in the range, count) for the pieces of entries
  /// [first, first + n) of the whole iterate.
  template <class F>
  void for_pieces(offset_t first, offset_t n, F&& f) const {
    std::size_t g = static_cast<std::size_t>(first), left = static_cast<std::size_t>(n), from = 0;
    while (left > 0) {
      const std::size_t chunk = g / chunk_entries, at = g % chunk_entries;
      const std::size_t piece = std::min(left, chunk_entries - at);
      f(chunk, at, from, piece);
      g += piece;
      from += piece;
      left -= piece;
    }
  }
  void ensure_host(std::size_t entries) {
    while (host_col_.size() * chunk_entries < entries) {
      void* c = nullptr;
      void* v = nullptr;
      if (cudaHostAlloc(&c, chunk_entries * sizeof(index_t), cudaHostAllocDefault) != cudaSuccess ||
          cudaHostAlloc(&v, chunk_entries * sizeof(T), cudaHostAllocDefault) != cudaSuccess) {
        if (c) cudaFreeHost(c);
        (void)cudaGetLastError();
        throw std::runtime_error(
            "out of host memory: the iterate streamed through host memory needs " +
            std::to_string((entries * (sizeof(index_t) + sizeof(T)) + (1u << 30) - 1) >> 30) +
            " GiB of pinned memory, and pinning more than " + std::to_string(host_bytes() >> 30) +
            " GiB failed (a smaller -S/-R keeps fewer entries per column)");
      }
      host_col_.push_back(static_cast<index_t*>(c));
      host_val_.push_back(static_cast<T*>(v));
    }
  }

  cudaStream_t copy_ = nullptr;
  cudaEvent_t written_[2] = {nullptr, nullptr};
  cudaEvent_t copied_[2] = {nullptr, nullptr};
  device_buffer<index_t> col_[2];
  device_buffer<T> val_[2];
  std::vector<index_t*> host_col_;
  std::vector<T*> host_val_;
  offset_t total_ = 0;
  int turn_ = 0;
};

/// The next iterate: its row pointers always on the device; its entries appended on the device
/// after the blocks before, or (streamed) through a block buffer to pinned host memory.
template <class T>
class next_iterate {
 public:
  /// Where a block's `kept` entries go: `col`/`val` from `base` on, counted in the row pointers
  /// from `rpt_base` (written(kept) once the block's kernel is enqueued).
  struct block_target {
    offset_t rpt_base, base;
    index_t* col;
    T* val;
  };

  /// The device arrays (row pointers; entries unless streamed).
  device_csr<T>& arrays() noexcept { return arrays_; }
  bool streamed() const noexcept { return streamed_; }

  /// A new next iterate of n rows, at most `bound` entries (its device entries sized for them
  /// once, so that no block grows and copies them), or streamed through the host.
  void begin(index_t n, bool streamed, offset_t bound, const context& ctx) {
    streamed_ = streamed;
    if (streamed) {
      arrays_ = device_csr<T>();  // the entries go to the host: only the row pointers stay
      arrays_.set_shape(n, n, ctx.memory());
      host_.begin();
    } else {
      arrays_.set_nnz(bound, ctx.memory());
      arrays_.set_nnz(0);
    }
    OPSPARSE_CUDA_TRY(cudaMemsetAsync(arrays_.rpt(), 0, sizeof(offset_t), ctx.stream()));
  }

  /// Entries appended so far.
  offset_t appended() const noexcept { return streamed_ ? host_.total() : arrays_.nnz(); }

  block_target block(offset_t kept, const context& ctx) {
    if (streamed_) {
      const auto b = host_.next_block(kept, ctx.memory(), ctx.stream());
      return {host_.total(), 0, b.col, b.val};
    }
    const offset_t base = arrays_.nnz();
    arrays_.grow_nnz(base + kept, ctx.memory(), ctx.stream());
    return {base, base, arrays_.col(), arrays_.val()};
  }
  void written(offset_t kept, const context& ctx) {
    if (streamed_) host_.commit(kept, ctx.stream());
  }

  /// After the last block: makes the next iterate `current` (the old current one becomes the
  /// spare arrays). Streamed, the current iterate and `free_workspace`'s arrays are freed first
  /// (stream-ordered, behind the blocks' copies), then the entries come up from the host.
  template <class F>
  void make_current(device_csr<T>& current, const context& ctx, F&& free_workspace) {
    std::swap(current, arrays_);
    if (!streamed_) {
      arrays_.set_nnz(0);
      return;
    }
    const index_t n = current.rows();
    host_.release_device(ctx.stream());
    free_workspace();
    arrays_ = device_csr<T>();
    current.set_nnz(host_.total(), ctx.memory());
    host_.upload(current.col(), current.val(), ctx.stream());
    arrays_.set_shape(n, n, ctx.memory());
  }

  /// Device bytes the next expansion may reuse: the entries' capacity and the block buffers.
  std::size_t device_bytes() const noexcept {
    return arrays_.nnz_capacity() * (sizeof(index_t) + sizeof(T)) + host_.device_bytes();
  }
  std::size_t host_bytes() const noexcept { return host_.host_bytes(); }

 private:
  device_csr<T> arrays_;
  streamed_iterate<T> host_;
  bool streamed_ = false;
};

}  // namespace opsparse::mcl
