#pragma once
// cuSPARSE's SpGEMM as the peer of the benchmark (and of the GPU tests' cross-check).
#include <string>

#include "opsparse/csr.hpp"
#include "opsparse/device_csr.hpp"

namespace opsparse::bench {

struct cusparse_result {
  bool ok = false;
  std::string algorithm;  ///< ALG1, ALG2 or ALG3: the first that succeeded
  std::string error;      ///< why every algorithm failed
  std::vector<float> ms;  ///< end-to-end time per timed run (buffers and C allocated inside)
  host_csr<double> c;     ///< the result of the last run (for the check)
};

/// C = A·B with cusparseSpGEMM: one warm-up then `runs` timed runs, each end to end
/// (work estimation, compute, C allocation, copy, frees), timed with CUDA events.
/// The handle is created outside the timer. T = double or float.
/// pooled false: the buffers and C through cudaMalloc and cudaFree, as NVIDIA's SpGEMM sample
/// does. pooled true: from a stream-ordered pool of its own that keeps its memory between runs
/// (release threshold at the maximum), warm from the warm-up run: the allocator the engine's
/// timed runs get (context::memory()), so that the two differ by their SpGEMM alone.
template <class T>
cusparse_result cusparse_spgemm(const host_csr<T>& a, const host_csr<T>& b, int runs,
                                bool pooled = false);

}  // namespace opsparse::bench
