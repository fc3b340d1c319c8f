#pragma once
// Backend choice shared by the apps: --backend gpu|cpu|auto.
#include <iosfwd>
#include <string>
#include <thread>

namespace opsparse::apps {

enum class backend { cpu, gpu };

/// Resolves "auto" to gpu when a device is usable (and the library was built with the GPU
/// engine), else cpu. "gpu" without a usable device throws std::runtime_error saying why.
/// Anything else throws std::invalid_argument.
backend resolve_backend(const std::string& choice, std::string* why_cpu = nullptr);

const char* to_string(backend b);

/// Creates the GPU's context on a background thread (a few hundred milliseconds on a cold
/// process) while the caller reads its input; joins on destruction. Does nothing for the CPU.
class gpu_warmup {
 public:
  explicit gpu_warmup(backend b);
  ~gpu_warmup();
  gpu_warmup(const gpu_warmup&) = delete;
  gpu_warmup& operator=(const gpu_warmup&) = delete;
  void wait();

 private:
  std::thread thread_;
};

}  // namespace opsparse::apps
