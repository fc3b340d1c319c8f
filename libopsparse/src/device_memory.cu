// Every device allocation of the library goes through here, so that tests and apps can count
// them (a warmed-up iterative app must allocate nothing per iteration).
#include <cuda_runtime.h>

#include <atomic>
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

void* device_allocate(std::size_t bytes, const pool_ref& from) {
  if (bytes == 0) bytes = 1;  // a valid pointer even for empty arrays
  void* p = nullptr;
  const cudaError_t err = from ? cudaMallocFromPoolAsync(&p, bytes, from->pool, from->stream)
                               : cudaMalloc(&p, bytes);
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
