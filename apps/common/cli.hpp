#pragma once
// What the programs' command lines share: usage errors, --version, the thread cap and the
// backend line.
#include <iosfwd>
#include <stdexcept>
#include <string>

#include "common/backend.hpp"

namespace opsparse::apps {

/// A command-line mistake: the programs report it with their usage hint and exit with status 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
