#pragma once
// How every program (the apps, opsparse-gen) reports a failure on stderr, in one format:
//   PROGRAM: error: MESSAGE        (an input error's MESSAGE starts with FILE:LINE:)
//   Try 'PROGRAM --help'.          (after a command-line mistake, which exits with status 2)
// Header-only, so that programs outside apps/ use it without linking the apps' layer.
#include <ostream>
#include <string>

namespace opsparse::apps {

/// "Try 'PROGRAM --help'.\n"
inline std::string try_help(const char* program) {
  return std::string("Try '") + program + " --help'.\n";
}

/// "PROGRAM: error: MESSAGE\n" on `err`.
inline void report_error(std::ostream& err, const char* program, const std::string& message) {
  err << program << ": error: " << message << "\n";
}

/// A command-line mistake: the error line, then "Try 'PROGRAM --help'.".
inline void report_usage_error(std::ostream& err, const char* program, const std::string& message) {
  report_error(err, program, message);
  err << try_help(program);
}

}  // namespace opsparse::apps
