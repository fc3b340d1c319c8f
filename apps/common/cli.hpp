#pragma once
// What the three programs' command lines share: --version, the thread cap and the backend line.
#include <iosfwd>
#include <string>

#include "common/backend.hpp"

namespace opsparse::apps {

/// "opsparse-mcl (OpSparse) 0.1.0" for --version.
std::string version_line(const char* program);

/// The threads a program may use: `requested` (0: the default, all) capped to the processors
/// this process may run on, with a warning on `err` when it asked for more (OpenMP crashed on
/// 100,000 threads). Negative values are the caller's usage error and are returned unchanged.
int cap_threads(const char* program, const char* option, int requested, std::ostream& err);

/// One line on `err` saying which engine runs and why, e.g.
///   [opsparse-mcl] backend: gpu (NVIDIA H100 80GB HBM3)
///   [opsparse-mcl] backend: cpu (no CUDA device found)
void report_backend(const char* program, backend b, const std::string& detail, std::ostream& err);

}  // namespace opsparse::apps
