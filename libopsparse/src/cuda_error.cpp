// The CUDA half of error.hpp: naming a runtime error needs the CUDA runtime, so it lives in the
// GPU library (opsparse::gpu) and the host library's error.cpp stays free of CUDA.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "opsparse/error.hpp"

namespace opsparse::detail {

static std::string error_name(int code) {
  const auto err = static_cast<cudaError_t>(code);
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

void throw_cuda_error(const char* call, int code, const char* file, int line) {
  // Clear a sticky-free error so that the context stays usable for the caller's next call.
  (void)cudaGetLastError();
  throw cuda_error(call, error_name(code), file, line);
}

void log_cuda_error_no_throw(const char* call, int code, const char* file, int line) noexcept {
  std::fprintf(stderr, "opsparse: %s failed: %s at %s:%d\n", call, error_name(code).c_str(), file,
               line);
}

}  // namespace opsparse::detail
