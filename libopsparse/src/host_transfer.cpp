// Copies of large arrays between pageable host memory and the device. The driver copies pageable
// memory through its own small pinned buffers, one thread at a time, at a fraction of the link;
// here host threads fill (or empty) large pinned buffers while another one is on the link
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

/// Host threads copy n bytes between a staging buffer and the caller's array.
void parallel_copy(unsigned char* to, const unsigned char* from, std::size_t n) {
  const int threads = std::max(1, std::min(staging_threads, omp_get_max_threads()));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
    std::memcpy(to + lo, from + lo, hi - lo);
  }
}

/// The staging area, locked, when `bytes` from or to `host` should go through it; else nothing
/// (the caller copies directly).
std::unique_lock<std::mutex> staging_for(std::size_t bytes, const void* host) {
  staging_area& area = staging();
  std::unique_lock<std::mutex> hold(area.lock, std::defer_lock);
  if (bytes >= staging_threshold && is_pageable(host)) {
    hold.lock();
    if (!area.ready()) hold.unlock();
  }
  return hold;
}

}  // namespace

void copy_to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  const std::unique_lock<std::mutex> hold = staging_for(bytes, src);
  if (!hold.owns_lock()) {
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(stream));
    return;
  }
  staging_area& area = staging();
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  std::size_t done = 0;
  for (int k = 0; done < bytes; ++k) {
    const int b = k % staging_buffers;
    const std::size_t n = std::min(staging_chunk, bytes - done);
    unsigned char* buffer = area.host + static_cast<std::size_t>(b) * staging_chunk;
    // the buffer's last copy (of this call or of an earlier one that stopped on an error)
    OPSPARSE_CUDA_TRY(cudaEventSynchronize(area.free_again[b]));
    parallel_copy(buffer, from + done, n);
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(to + done, buffer, n, cudaMemcpyHostToDevice, stream));
    OPSPARSE_CUDA_TRY(cudaEventRecord(area.free_again[b], stream));
    done += n;
  }
  OPSPARSE_CUDA_TRY(cudaStreamSynchronize(stream));
}

void copy_to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  const std::unique_lock<std::mutex> hold = staging_for(bytes, dst);
  if (!hold.owns_lock()) {
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(stream));
    return;
  }
  staging_area& area = staging();
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  const std::size_t chunks = (bytes + staging_chunk - 1) / staging_chunk;
  auto size_of = [&](std::size_t k) { return std::min(staging_chunk, bytes - k * staging_chunk); };
  // chunk k lands in buffer k % staging_buffers; the next one into a buffer is asked for once
  // the host has emptied it
  auto fetch = [&](std::size_t k) {
    const int b = static_cast<int>(k % staging_buffers);
    OPSPARSE_CUDA_TRY(cudaEventSynchronize(area.free_again[b]));  // an earlier call's copy
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(area.host + static_cast<std::size_t>(b) * staging_chunk,
                                      from + k * staging_chunk, size_of(k), cudaMemcpyDeviceToHost,
                                      stream));
    OPSPARSE_CUDA_TRY(cudaEventRecord(area.free_again[b], stream));
  };
  for (std::size_t k = 0; k < std::min<std::size_t>(chunks, staging_buffers); ++k) fetch(k);
  for (std::size_t k = 0; k < chunks; ++k) {
    const int b = static_cast<int>(k % staging_buffers);
    OPSPARSE_CUDA_TRY(cudaEventSynchronize(area.free_again[b]));
    parallel_copy(to + k * staging_chunk, area.host + static_cast<std::size_t>(b) * staging_chunk,
                  size_of(k));
    if (k + staging_buffers < chunks) fetch(k + staging_buffers);
  }
}

}  // namespace opsparse::detail
