#include "common/backend.hpp"

#include <dlfcn.h>

#include <cstdlib>
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

bool driver_installed() {
  void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver) ::dlclose(driver);
  return driver != nullptr;
}

std::string gpu_device_name() {
#if OPSPARSE_HAS_GPU_ENGINE
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaGetDeviceProperties(&prop, device) == cudaSuccess)
    return prop.name;
  (void)cudaGetLastError();
#endif
  return {};
}

backend_probe::backend_probe(const std::string& choice) {
  if (choice == "cpu") {
    why_ = "--backend cpu";
    return;
  }
  if (choice != "gpu" && choice != "auto")
    throw std::invalid_argument("--backend must be gpu, cpu or auto, not '" + choice + "'");
  thread_ = std::thread([this, choice] {
    try {
      result_ = resolve_backend(choice, &why_);
#if OPSPARSE_HAS_GPU_ENGINE
      if (result_ == backend::gpu) {
        (void)cudaFree(nullptr);  // the context, made now
        device_ = gpu_device_name();
      }
#endif
    } catch (...) {
      error_ = std::current_exception();
    }
  });
}

backend backend_probe::get(std::string* why_cpu) {
  if (thread_.joinable()) thread_.join();
  if (error_) std::rethrow_exception(error_);
  if (why_cpu) *why_cpu = why_;
  return result_;
}

backend_probe::~backend_probe() {
  if (thread_.joinable()) thread_.join();
}

background_warm_up::background_warm_up(std::function<void()> task)
    : thread_([task = std::move(task)] {
        try {
          task();
        } catch (...) {  // the real run meets the same failure and reports it
        }
      }) {}

background_warm_up::~background_warm_up() { wait(); }

void background_warm_up::wait() {
  if (thread_.joinable()) thread_.join();
}

void prefer_one_connection() noexcept {
  (void)::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", /*overwrite=*/0);
}

}  // namespace opsparse::apps
