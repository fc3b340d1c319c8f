#include "common/cli.hpp"

#include <omp.h>

#include <iomanip>
#include <new>
#include <ostream>

#include "opsparse/error.hpp"

#ifndef OPSPARSE_VERSION
#define OPSPARSE_VERSION "unknown"
#endif

namespace opsparse::apps {

std::string try_help(const char* name) { return std::string("Try '") + name + " --help'.\n"; }

int run_guarded(const program& p, std::ostream& err, const std::function<int()>& body) {
  try {
    return body();
  } catch (const usage_error& e) {
    err << p.name << ": " << e.what() << "\n" << p.usage_hint;
    return 2;
  } catch (const parse_error& e) {
    err << p.name << ": " << p.input_error_prefix << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc& e) {
    err << p.name << ": error: " << (p.out_of_memory ? p.out_of_memory() : e.what()) << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << p.name << ": error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    err << p.name << ": " << p.unknown_error << "\n";
    return 1;
  }
}

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

double stopwatch::lap_ms() {
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - start_).count();
  start_ = now;
  return ms;
}

void print_stage_ms(std::ostream& err, const char* program, const std::string& label, int width,
                    double ms) {
  const std::ios::fmtflags flags = err.flags();
  const std::streamsize precision = err.precision();
  err << program << ": " << std::left << std::setw(width) << label << std::right << std::fixed
      << std::setprecision(3) << std::setw(10) << ms << " ms";
  err.flags(flags);
  err.precision(precision);
}

}  // namespace opsparse::apps
