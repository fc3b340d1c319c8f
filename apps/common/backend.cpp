#include "common/backend.hpp"

#include <stdexcept>

#if OPSPARSE_HAS_GPU_ENGINE
#include <cuda_runtime_api.h>

#include "opsparse/context.hpp"
#endif

namespace opsparse::apps {

backend resolve_backend(const std::string& choice, std::string* why_cpu) {
  if (choice == "cpu") {
    if (why_cpu) *why_cpu = "--backend cpu";
    return backend::cpu;
  }
  if (choice != "gpu" && choice != "auto")
    throw std::invalid_argument("--backend must be gpu, cpu or auto, not '" + choice + "'");
  std::string why;
#if OPSPARSE_HAS_GPU_ENGINE
  if (gpu_available(&why)) return backend::gpu;
#else
  why = "this build has no GPU engine (configured with -DOPSPARSE_GPU=OFF)";
#endif
  if (choice == "gpu") throw std::runtime_error("--backend gpu: " + why);
  if (why_cpu) *why_cpu = why;
  return backend::cpu;
}

const char* to_string(backend b) { return b == backend::gpu ? "gpu" : "cpu"; }

gpu_warmup::gpu_warmup(backend b) {
#if OPSPARSE_HAS_GPU_ENGINE
  if (b == backend::gpu) thread_ = std::thread([] { (void)cudaFree(nullptr); });
#else
  (void)b;
#endif
}

void gpu_warmup::wait() {
  if (thread_.joinable()) thread_.join();
}

gpu_warmup::~gpu_warmup() { wait(); }

}  // namespace opsparse::apps
