#pragma once
// opsparse-triangle's command line over the algorithm (triangle/triangle.hpp).
#include <ostream>

namespace opsparse::triangle {

/// The whole program (opsparse-triangle): parses argv, writes the count to `out`, messages to
/// `err`; returns the exit status (0 ok, 1 error in input or run, 2 bad usage). Never throws.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace opsparse::triangle
