#include "common/cli.hpp"

#include <omp.h>

#include <iomanip>
#include <new>
#include <ostream>

#ifndef OPSPARSE_VERSION
#define OPSPARSE_VERSION "unknown"
#endif

namespace opsparse::apps {

int run_guarded(const program& p, std::ostream& err, const std::function<int()>& body) {
  try {
    return body();
  } catch (const usage_error& e) {
    report_usage_error(err, p.name, e.what());
    return 2;
  } catch (const std::bad_alloc& e) {
    report_error(err, p.name, p.out_of_memory ? p.out_of_memory() : e.what());
    return 1;
  } catch (const std::exception& e) {
    report_error(err, p.name, e.what());
    return 1;
  } catch (...) {
    report_error(err, p.name, "unknown failure");
    return 1;
  }
}

int run_modes(const char* program_name, const char* usage, int argc, const char* const* argv,
              std::ostream& out, std::ostream& err, std::initializer_list<program_mode> modes,
              const char* unknown_note) {
  return run_guarded(program(program_name), err, [&] {
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string names;
    for (const program_mode& m : modes)
      names += (names.empty() ? "" : " or ") + std::string(m.name);
    if (args.empty()) throw usage_error("a mode is needed: " + names);
    if (args[0] == "-h" || args[0] == "--help") {
      out << usage;
      return 0;
    }
    if (args[0] == "--version") {
      out << version_line(program_name) << "\n";
      return 0;
    }
    const std::string mode = args[0];
    args.erase(args.begin());
    for (const program_mode& m : modes)
      if (mode == m.name) return m.run(args);
    throw usage_error("unknown mode '" + mode + "' (" + names + unknown_note + ")");
  });
}

std::vector<std::string> read_words(const std::vector<std::string>& args, const char* mode,
                                    const word_options& o) {
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (const auto v = o.values.find(a); v != o.values.end()) {
      if (i + 1 >= args.size()) throw usage_error(a + " needs a value");
      *v->second = args[++i];
    } else if (const auto s = o.switches.find(a); s != o.switches.end()) {
      s->second();
    } else if (a.size() > 1 && a[0] == '-') {
      throw usage_error(std::string(mode) + ": unsupported option '" + a + "'");
    } else {
      rest.push_back(a);
    }
  }
  return rest;
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
