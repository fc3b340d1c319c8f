// Host-to-device copies of large arrays from pageable memory. The driver copies pageable memory
// through its own small pinned buffers, one thread at a time, at a fraction of the link; here
// host threads fill large pinned buffers while the previous one is on its way
// (docs/experiments/2026-11-28-uploads-and-first-launches.md has the rates).
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>

#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"

namespace opsparse::detail {
namespace {

constexpr std::size_t staging_chunk = std::size_t{16} << 20;
constexpr int staging_buffers = 3;
/// Below this, one cudaMemcpyAsync: the staging would cost more than it saves.
constexpr std::size_t staging_threshold = std::size_t{32} << 20;
constexpr int staging_threads = 8;

/// Pinned buffers shared by the process (allocated at the first large copy, kept until exit),
/// one copy at a time.
struct staging_area {
  std::mutex lock;
  unsigned char* host = nullptr;
  std::array<cudaEvent_t, staging_buffers> free_again{};
  bool tried = false;

  bool ready() {
    if (tried) return host != nullptr;
    tried = true;
    void* p = nullptr;
    if (cudaHostAlloc(&p, staging_chunk * staging_buffers, cudaHostAllocPortable) != cudaSuccess) {
      (void)cudaGetLastError();  // no pinned memory to spare: copy directly
      return false;
    }
    for (auto& e : free_again) {
      if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) {
        (void)cudaGetLastError();
        OPSPARSE_CUDA_TRY_NO_THROW(cudaFreeHost(p));
        return false;
      }
    }
    host = static_cast<unsigned char*>(p);
    return true;
  }
};

staging_area& staging() {
  static staging_area* area = new staging_area;  // never destroyed: no teardown at exit
  return *area;
}

bool is_pageable(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return true;
  }
  return attributes.type == cudaMemoryTypeUnregistered;
}

}  // namespace

void copy_to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  staging_area& area = staging();
  std::unique_lock<std::mutex> hold(area.lock, std::defer_lock);
  if (bytes >= staging_threshold && is_pageable(src)) hold.lock();
  if (!hold.owns_lock() || !area.ready()) {
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(stream));
    return;
  }
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  const int threads = std::max(1, std::min(staging_threads, omp_get_max_threads()));
  std::size_t done = 0;
  for (int k = 0; done < bytes; ++k) {
    const int b = k % staging_buffers;
    const std::size_t n = std::min(staging_chunk, bytes - done);
    unsigned char* buffer = area.host + static_cast<std::size_t>(b) * staging_chunk;
    // the buffer's last copy (of this call or of an earlier one that stopped on an error)
    OPSPARSE_CUDA_TRY(cudaEventSynchronize(area.free_again[b]));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
      std::memcpy(buffer + lo, from + done + lo, hi - lo);
    }
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(to + done, buffer, n, cudaMemcpyHostToDevice, stream));
    OPSPARSE_CUDA_TRY(cudaEventRecord(area.free_again[b], stream));
    done += n;
  }
  OPSPARSE_CUDA_TRY(cudaStreamSynchronize(stream));
}

}  // namespace opsparse::detail
