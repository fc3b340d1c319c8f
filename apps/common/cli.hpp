#pragma once
// What the programs' command lines share without a parser: the program's name and the wording
// of its error reports, run_guarded (exceptions to messages and exit statuses), --version, the
// thread cap, the backend line and -V's stage timings.
#include <chrono>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/error.hpp"

#include "common/backend.hpp"
#include "common/messages.hpp"

namespace opsparse::apps {

/// A command-line mistake: the programs report it with their usage hint and exit with status 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A program as its messages name it. Every program reports failures in one format
/// (common/messages.hpp): "NAME: error: MESSAGE", and after a usage error "Try 'NAME --help'.".
struct program {
  explicit program(const char* program_name) : name(program_name) {}

  const char* name;
  /// The message for std::bad_alloc (e.g. what the program was doing); empty: as any error.
  std::function<std::string()> out_of_memory;
};

/// Calls `f`; an opsparse::device_memory_error it throws comes back as a std::runtime_error
/// whose message goes on with `advice()`: what the run needs on the device and the option that
/// needs less (a program's own words; the library's error names only the failed allocation).
template <class F>
decltype(auto) advise_on_device_memory(F&& f, const std::function<std::string()>& advice) {
  try {
    return f();
  } catch (const device_memory_error& e) {
    throw std::runtime_error(std::string(e.what()) + "; " + advice());
  }
}

/// Runs `body` and returns its status, or reports what it throws on `err` as
/// "NAME: error: MESSAGE" and returns: usage_error 2 (then "Try 'NAME --help'."); any other
/// exception 1 (an opsparse::parse_error's message names the file and the line).
int run_guarded(const program& p, std::ostream& err, const std::function<int()>& body);

/// A mode of a program run as `PROGRAM MODE [ARGUMENTS]` (opsparse-clm dist, opsparse-mcx load):
/// its name and what runs it on the arguments after the mode.
struct program_mode {
  const char* name;
  std::function<int(const std::vector<std::string>& args)> run;
};

/// The whole of such a program: -h/--help (`usage` on `out`) or --version as the first
/// argument, else the mode it names, under run_guarded. No mode or an unknown one is a usage
/// error that lists the modes (and `unknown_note` after them).
int run_modes(const char* program_name, const char* usage, int argc, const char* const* argv,
              std::ostream& out, std::ostream& err, std::initializer_list<program_mode> modes,
              const char* unknown_note = "");

/// The options of a mode, spelled as mcl's tools spell them (-o FILE, --chain): those that take
/// the next argument as their value (the last one given wins) and switches, each with what it
/// does, in the order given.
struct word_options {
  std::map<std::string, std::string*> values;
  std::map<std::string, std::function<void()>> switches;
};

/// Reads `args` by `o`; returns the other arguments. An option missing its value, or another
/// word that starts with '-', is a usage error ("MODE: unsupported option '-x'").
std::vector<std::string> read_words(const std::vector<std::string>& args, const char* mode,
                                    const word_options& o);

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

/// Wall-clock laps for -V's stage timings.
class stopwatch {
 public:
  /// Milliseconds since the last lap (or the start), and starts the next lap.
  double lap_ms();
  /// The same in seconds.
  double lap_s() { return lap_ms() / 1000.0; }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// "NAME: LABEL      12.345 ms" on `err` (LABEL left-aligned in `width` characters, the
/// milliseconds in 10 with 3 decimals), without the newline; `err`'s format is left as it was.
void print_stage_ms(std::ostream& err, const char* program, const std::string& label, int width,
                    double ms);

}  // namespace opsparse::apps
