#pragma once
// What the host parts of apps/mcl share (internal): mcl's float rounding of -I and -c, and how
// numbers appear in messages.
#include <cstdio>
#include <string>

namespace opsparse::mcl::detail {

/// mcl reads -I and -c into floats (-I 1.4 is 1.39999998 there); using the same values keeps
/// the arithmetic, and so the clusters, identical.
inline double mcl_float(double x) { return static_cast<double>(static_cast<float>(x)); }

/// The iteration after which mcl starts raising the inflation of a process that has not
/// converged (a directed 3-cycle at -I 2 oscillates for ever otherwise).
inline constexpr int inflation_bump_after = 40;

/// mcl's inflation in iteration `it` (1-based): -I as mcl reads it (a float) up to iteration 40,
/// then 0.1% more after every iteration from the 40th that did not converge, as mcl 22-282 does
/// ("Inflation bumped to 2.0020").
inline double inflation_at(double inflation, int it) {
  double x = mcl_float(inflation);
  for (int k = inflation_bump_after; k < it; ++k) x *= 1.001;
  return x;
}

/// x as "%g" writes it, for messages.
inline std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace opsparse::mcl::detail
