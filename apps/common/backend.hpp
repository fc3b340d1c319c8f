#pragma once
// Backend choice shared by the apps: --backend gpu|cpu|auto.
#include <iosfwd>
#include <string>

namespace opsparse::apps {

enum class backend { cpu, gpu };

/// Resolves "auto" to gpu when a device is usable (and the library was built with the GPU
/// engine), else cpu. "gpu" without a usable device throws std::runtime_error saying why.
/// Anything else throws std::invalid_argument.
backend resolve_backend(const std::string& choice, std::string* why_cpu = nullptr);

const char* to_string(backend b);

}  // namespace opsparse::apps
