// Every device allocation of the library goes through here, so that tests and apps can count
// them (a warmed-up iterative app must allocate nothing per iteration).
#include <cuda_runtime.h>

#include <atomic>
#include <cstdlib>
#include <limits>
#include <string>

#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"

namespace opsparse {
namespace {
std::atomic<std::int64_t> g_allocs{0};
std::atomic<std::int64_t> g_frees{0};
}  // namespace

std::int64_t device_allocation_count() noexcept { return g_allocs.load(); }
std::int64_t device_free_count() noexcept { return g_frees.load(); }

namespace detail {
stream_pool::~stream_pool() {
  // Blocks freed on `stream` return to the pool in stream order: let them, then let go.
  if (stream) OPSPARSE_CUDA_TRY_NO_THROW(cudaStreamSynchronize(stream));
  if (pool) OPSPARSE_CUDA_TRY_NO_THROW(cudaMemPoolDestroy(pool));
  if (stream) OPSPARSE_CUDA_TRY_NO_THROW(cudaStreamDestroy(stream));
}

namespace {
/// OPSPARSE_DEVICE_ALLOCATION_LIMIT=BYTES: any single allocation above BYTES fails as if the
/// device were out of memory (tests of the programs' out-of-memory messages; unset: no limit).
std::size_t allocation_limit() {
  // Read at every allocation (they are few: buffers only grow), so that a test may set it.
  const char* v = std::getenv("OPSPARSE_DEVICE_ALLOCATION_LIMIT");
  if (v == nullptr || *v == '\0') return std::numeric_limits<std::size_t>::max();
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v, &end, 10);
  return end != v && *end == '\0' ? static_cast<std::size_t>(x)
                                  : std::numeric_limits<std::size_t>::max();
}

cudaError_t try_allocate(void** p, std::size_t bytes, const pool_ref& from) {
  if (bytes > allocation_limit()) return cudaErrorMemoryAllocation;
  return from ? cudaMallocFromPoolAsync(p, bytes, from->pool, from->stream) : cudaMalloc(p, bytes);
}
}  // namespace

void* device_allocate(std::size_t bytes, const pool_ref& from) {
  if (bytes == 0) bytes = 1;  // a valid pointer even for empty arrays
  void* p = nullptr;
  cudaError_t err = try_allocate(&p, bytes, from);
  if (err == cudaErrorMemoryAllocation && from) {
    // The pool may keep freed blocks (its release threshold): give them back and try again.
    (void)cudaGetLastError();
    OPSPARSE_CUDA_TRY(cudaStreamSynchronize(from->stream));
    OPSPARSE_CUDA_TRY(cudaMemPoolTrimTo(from->pool, 0));
    err = try_allocate(&p, bytes, from);
  }
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
    throw device_memory_error(bytes, free_b, total_b);
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    throw cuda_error(std::string(from ? "cudaMallocFromPoolAsync(" : "cudaMalloc(") +
                         std::to_string(bytes) + " bytes)",
                     std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")",
                     __FILE__, __LINE__);
  }
  ++g_allocs;
  return p;
}

void device_release(void* ptr, const pool_ref& from) noexcept {
  if (!ptr) return;
  if (from)
    OPSPARSE_CUDA_TRY_NO_THROW(cudaFreeAsync(ptr, from->stream));
  else
    OPSPARSE_CUDA_TRY_NO_THROW(cudaFree(ptr));
  ++g_frees;
}
}  // namespace detail
}  // namespace opsparse
