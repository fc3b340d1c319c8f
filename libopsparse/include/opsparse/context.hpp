#pragma once
// The execution context, RAFT style: one object owns the device's properties, the main stream,
// one stream per bin (the paper's concurrent per-bin kernels), their events, the pinned host
// staging that readbacks go to, a few bytes of device scratch for per-call scalars and the
// stream-ordered memory pool that plans and results grow from. Build one per device and pass it
// to every call.
#include <cuda_runtime_api.h>

#include <array>
#include <memory>
#include <string>

#include "opsparse/stream_pool.hpp"
#include "opsparse/device_info.hpp"
#include "opsparse/types.hpp"

namespace opsparse {

class context {
 public:
  /// Uses `device` (or the current device when negative), creating its streams and events.
  explicit context(int device = -1);
  ~context();
  context(const context&) = delete;
  context& operator=(const context&) = delete;

  const device_info& device() const noexcept { return info_; }
  cudaStream_t stream() const noexcept { return memory_->stream; }
  cudaStream_t bin_stream(int i) const noexcept { return bins_[i]; }
  cudaEvent_t bin_event(int i) const noexcept { return bin_events_[i]; }
  cudaEvent_t main_event() const noexcept { return main_event_; }
  /// Makes every bin stream wait for the work queued so far on the main stream.
  void fork();
  /// Makes the main stream wait for the work queued so far on bins [0, n).
  void join(int n);
  /// Blocks the host until the main stream is idle.
  void synchronize() const;
  /// Device memory in use by the whole process now (cudaMemGetInfo), and the peak seen by calls
  /// to note_memory().
  std::size_t note_memory();
  std::size_t peak_memory() const noexcept { return peak_used_; }
  /// Pinned host staging for readbacks (grow-only; async copies never target pageable memory).
  void* pinned(std::size_t bytes);
  /// A few bytes of device scratch for a call's scalars (the longest row of B that the setup
  /// kernel finds), made once with the context: a product then needs no allocation of its own
  /// before its first kernel. Stream-ordered on stream(), like the pinned staging.
  void* scratch() noexcept { return scratch_; }
  static constexpr std::size_t scratch_bytes = 256;
  /// Grow-only device scratch for the graph operations (graph_ops.cuh) and the apps' CUB calls:
  /// at least `bytes`, 256-byte aligned, stream-ordered on stream(); valid until the next call
  /// of workspace() (a larger request frees the old block, stream-ordered). An iterative app's
  /// loop then allocates nothing once its largest step has run.
  void* workspace(std::size_t bytes);
  /// The memory pool the engines allocate plans and results from (device_buffer::reserve,
  /// device_csr::set_shape/set_nnz take it): stream-ordered on stream(), so an allocation costs
  /// microseconds of host time and no synchronisation once the pool holds the memory, and a
  /// free waits for nothing (beyond the paper, whose cudaMalloc/cudaFree cost ~40-50 us each and
  /// cudaFree synchronises the device). Freed memory stays in the pool for the next product
  /// until release_cached_memory() or the context's end. Such memory is ordered on stream():
  /// work on other streams that reads it must be synchronised before it is freed.
  const detail::pool_ref& memory() const noexcept { return memory_; }
  /// Returns the pool's unused memory to the device (e.g. before another library allocates).
  void release_cached_memory();
  /// Device memory the pool holds but no allocation uses (freed blocks kept for reuse): counted
  /// as in use by cudaMemGetInfo, yet free for the pool's next allocations.
  std::size_t pool_idle_bytes() const;

 private:
  device_info info_;
  detail::pool_ref memory_;  ///< owns the main stream and the pool
  std::array<cudaStream_t, max_bins> bins_{};
  std::array<cudaEvent_t, max_bins> bin_events_{};
  cudaEvent_t main_event_ = nullptr;
  std::size_t peak_used_ = 0;
  void* pinned_ = nullptr;
  std::size_t pinned_bytes_ = 0;
  void* scratch_ = nullptr;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
};

/// True when a CUDA device is present and usable; `why` says what is missing otherwise.
bool gpu_available(std::string* why = nullptr);

}  // namespace opsparse
