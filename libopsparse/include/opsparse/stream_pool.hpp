#pragma once
// Where the engine's device memory comes from (context.hpp, device_csr.hpp).
#include <cuda_runtime_api.h>

#include <memory>

namespace opsparse::detail {

/// A context's stream-ordered memory pool and the stream its blocks are ordered on (the
/// context's main stream). Shared by the context and every block taken from it, so that a block
/// freed after its context (a plan that outlives it) is still freed on a live stream.
struct stream_pool {
  cudaStream_t stream = nullptr;  ///< owned
  cudaMemPool_t pool = nullptr;   ///< owned
  stream_pool() = default;
  stream_pool(const stream_pool&) = delete;
  stream_pool& operator=(const stream_pool&) = delete;
  ~stream_pool();
};
using pool_ref = std::shared_ptr<stream_pool>;

}  // namespace opsparse::detail
