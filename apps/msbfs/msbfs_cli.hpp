#pragma once
// opsparse-msbfs's command line over the algorithm (msbfs/msbfs.hpp).
#include <ostream>

namespace opsparse::msbfs {

/// The whole program (opsparse-msbfs): parses argv, writes totals to `out`, progress and
/// messages to `err`; returns the exit status (0 ok, 1 error in input or run, 2 bad usage).
/// Never throws.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace opsparse::msbfs
