#pragma once
// Backend choice shared by the apps: --backend gpu|cpu|auto.
#include <iosfwd>
#include <exception>
#include <functional>
#include <string>
#include <thread>

namespace opsparse::apps {

enum class backend { cpu, gpu };

/// Resolves "auto" to gpu when a device is usable (and the library was built with the GPU
/// engine), else cpu. "gpu" without a usable device throws std::runtime_error saying why.
/// Anything else throws std::invalid_argument.
backend resolve_backend(const std::string& choice, std::string* why_cpu = nullptr);

const char* to_string(backend b);

/// Whether an NVIDIA driver library (libcuda.so.1) can be loaded: a check of about a
/// millisecond that, unlike asking CUDA for its devices, does not start the driver.
bool driver_installed();

/// The current CUDA device's name ("" without the GPU engine or when it cannot be asked).
std::string gpu_device_name();

/// Decides the backend (resolve_backend: asking the driver for a device costs a cold process a
/// few hundred milliseconds) and creates the GPU's context, both on a background thread while
/// the caller reads its input. A choice other than gpu, cpu or auto throws at once.
class backend_probe {
 public:
  explicit backend_probe(const std::string& choice);
  ~backend_probe();
  backend_probe(const backend_probe&) = delete;
  backend_probe& operator=(const backend_probe&) = delete;
  /// Waits for the probe; the backend as resolve_backend returns it (and throws what it throws).
  backend get(std::string* why_cpu);
  /// After get(): the GPU's name when the backend is gpu, else empty.
  const std::string& device_name() const { return device_; }

 private:
  std::thread thread_;
  backend result_ = backend::cpu;
  std::string why_;
  std::string device_;
  std::exception_ptr error_;
};

/// Runs `task` on a background thread while the caller reads its input, and waits for it at
/// wait() or when destroyed. For a warm-up on the GPU: a tiny run launches the kernels the real
/// run will launch, which CUDA loads at their first launch (about 70 ms of an MS-BFS's first
/// level on an H200), and makes the context. Its failures are dropped: the real run meets them
/// and reports them.
class background_warm_up {
 public:
  explicit background_warm_up(std::function<void()> task);
  ~background_warm_up();
  background_warm_up(const background_warm_up&) = delete;
  background_warm_up& operator=(const background_warm_up&) = delete;
  void wait();

 private:
  std::thread thread_;
};

/// For a short-lived program: asks CUDA for one hardware work queue per context
/// (CUDA_DEVICE_MAX_CONNECTIONS=1) unless the variable is already set. CUDA's default of 8
/// queues costs context creation and teardown about 50 ms each on an H200 (measured: context
/// 95-109 ms -> 46-53 ms, a whole opsparse-mcl run 0.49-0.61 s -> 0.40-0.45 s), while the MCL
/// iterations ran as fast on one queue. Call before anything touches CUDA.
void prefer_one_connection() noexcept;

}  // namespace opsparse::apps
