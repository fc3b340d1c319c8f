#include "common/cli.hpp"

#include <omp.h>

#include <ostream>

#ifndef OPSPARSE_VERSION
#define OPSPARSE_VERSION "unknown"
#endif

namespace opsparse::apps {

std::string version_line(const char* program) {
  return std::string(program) + " (OpSparse) " + OPSPARSE_VERSION;
}

int cap_threads(const char* program, const char* option, int requested, std::ostream& err) {
  // omp_get_num_procs: the processors of this process's affinity mask (taskset, cgroups).
  const int available = omp_get_num_procs();
  if (requested <= available || available < 1) return requested;
  err << "[" << program << "] warning: " << option << " " << requested << " is more than the "
      << available << " processors available: using " << available << "\n";
  return available;
}

void report_backend(const char* program, backend b, const std::string& detail, std::ostream& err) {
  err << "[" << program << "] backend: " << to_string(b);
  if (!detail.empty()) err << " (" << detail << ")";
  err << "\n";
}

}  // namespace opsparse::apps
