#pragma once
// Kernel launch helpers shared by every launcher of the library (host code; g++ compiles it).
#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>
#include <unordered_map>

#include "opsparse/error.hpp"

namespace opsparse::detail {

/// Throws cuda_error naming `what` when the last launch failed.
inline void check_launch(const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) throw_cuda_error(what, static_cast<int>(err), __FILE__, __LINE__);
}

/// Raises a kernel's dynamic shared-memory limit once (above the 48 KiB default) and asks for
/// the largest carveout, so that the derived tables actually fit.
inline void allow_smem(const void* kernel, std::size_t bytes) {
  static std::mutex mu;
  static std::unordered_map<const void*, std::size_t> done;
  std::lock_guard<std::mutex> lock(mu);
  auto& have = done[kernel];
  if (bytes <= have) return;
  OPSPARSE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(bytes)));
  OPSPARSE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxShared));
  have = bytes;
}

/// Bytes of the context's device scratch (context::scratch()) each user owns: the engine's
/// longest-B-row and longest-A-row scalars at 0 and 8 and the six merged-row counters after them
/// (phase_policy),
/// visit_dense_rows' unsorted flag here.
constexpr std::size_t scratch_visit_flag = 128;

}  // namespace opsparse::detail
